"""What each exit status of ``drafting-config check`` means, written once.

``check --help`` prints :data:`EXIT_STATUS_HELP` as its epilog and ``docs/cli.md``
shows the same text (a test holds the two equal), so a change of what a status
means is made here and nowhere else.  The numbers are :mod:`drafting_config.cli.run`'s
``EXIT_*`` constants.
"""

from typing import Final

__all__ = ["EXIT_STATUS_HELP"]

EXIT_STATUS_HELP: Final = """\
exit status:
  0    every engine asked serves every draft (warnings pass, unless --strict)
  1    findings: a draft's files were read and an engine would not serve it
       (a rule's error, malformed JSON, not UTF-8, a config that is not an
       object; with --strict, a warning)
  2    could not check: a path named, or a target or tokenizer the check
       needs, could not be had (missing, a folder with no config.json,
       unopenable, a repo id not in the cache, a failed download, a missing
       extra), or a usage error (a bad option, a malformed repo id or
       revision, '-' with no paths); with drafts that fail too, 1
  130  interrupted (Ctrl-C); 141: the output's reader went away (... | head)"""
"""The ``exit status:`` section of ``check --help``: one line per status, 80 columns."""
