"""The entry point of the ``drafting-config`` command (and of ``python -m drafting_config``).

Ctrl-C exits with status 130 and prints nothing from the moment the package's code
runs: importing this module and the package imports no other module at all (not
even ``typing``), so the ~150 ms of start-up that import :mod:`drafting_config.cli.run`
and everything it needs run inside the handler of :func:`main`, as does the run
itself.  What comes before is CPython's own start-up and the console script's two
lines (``import re, sys``, then this module), the first ~20 ms: a Ctrl-C there is
the interpreter's to report, and it prints its own traceback.
"""

__all__ = ["main"]

TYPE_CHECKING = False  # mypy takes any name TYPE_CHECKING as True
if TYPE_CHECKING:
    from collections.abc import Sequence

EXIT_INTERRUPTED = 130
"""128 + SIGINT, as shells report Ctrl-C (the same as ``cli.EXIT_INTERRUPTED``)."""


def main(argv: "Sequence[str] | None" = None) -> int:
    """Run the command line (:func:`drafting_config.cli.run.main`); 130 on Ctrl-C at any point."""
    try:
        from drafting_config.cli import run as cli  # noqa: PLC0415 (inside the handler, on purpose)

        return cli.main(argv)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
