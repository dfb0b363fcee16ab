"""Maintainers' tools, not part of the package and not collected as tests.

* ``python -m tools.refresh ENGINE VERSION`` adds or refreshes an engine release: its
  tables, its harness pins, its readings, the transcripts and the compatibility page; see
  :mod:`tools.refresh`.
* ``python -m tools.engine_tables ENGINE VERSION`` writes an engine release's tables
  (``drafting_config``'s data file for that release) from its wheel, fetched with
  ``pip download --no-deps``; see :mod:`tools.engine_tables`.
* ``python -m tools.transcripts`` and ``python -m tools.compatibility`` rewrite the
  README's and docs' transcripts, and ``docs/compatibility.md`` with the CHANGELOG's
  verdict changes (each with ``--check``).
* :mod:`tools.wheels` fetches and caches wheels, reads them, and caches what is derived
  from them by their hash; :mod:`tools.harness` is what both harnesses share (the corpus
  among it).
* ``tools/engines/ENGINE/`` is one engine's: its tables, the functions the differential
  tests take from its wheel, its harness; :func:`tools.engines.engine_tools` gives each
  engine's row, in the package's order of engines.
"""
