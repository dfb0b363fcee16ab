"""Maintainers' tools, not part of the package and not collected as tests.

* ``python -m tools.engine_tables ENGINE VERSION`` writes an engine release's tables
  (``drafting_config``'s data file for that release) from its wheel, fetched with
  ``pip download --no-deps``; see :mod:`tools.engine_tables`.
* :mod:`tools.wheels` fetches and caches engine wheels and takes engine code out of
  them with :mod:`ast`; the ``engine_wheels`` tests use it.
* :mod:`tools.engines.vllm.tables` and :mod:`tools.engines.sglang.tables` derive each
  engine's tables from its wheel's source.
"""
