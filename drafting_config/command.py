"""The entry point of the ``drafting-config`` command (and of ``python -m drafting_config``).

Ctrl-C exits with status 130 and prints nothing, however early it comes: this
module imports nothing of the package at import time (and importing the package
runs none of its modules), so the ~150 ms of start-up that import
:mod:`drafting_config.cli.run` and everything it needs run inside the handler of
:func:`main`, as does the run itself.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["main"]

EXIT_INTERRUPTED = 130
"""128 + SIGINT, as shells report Ctrl-C (the same as ``cli.EXIT_INTERRUPTED``)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line (:func:`drafting_config.cli.run.main`); 130 on Ctrl-C at any point."""
    try:
        from drafting_config.cli import run as cli  # noqa: PLC0415 (inside the handler, on purpose)

        return cli.main(argv)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
