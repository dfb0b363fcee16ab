"""The ``drafting-config`` command: check draft-model config.json files offline.

``check`` and ``explain`` use the resolver directly, without pydantic's model
machinery, torch or transformers, so a sweep over a whole model cache starts
in milliseconds; only ``schema`` builds the pydantic model.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from drafting_config import __version__
from drafting_config.checking import Verdict, check
from drafting_config.errors import describe_value
from drafting_config.loading import ConfigFileError
from drafting_config.reading import MISSING
from drafting_config.resolution import FieldStatus
from drafting_config.sources import PRIORITY_ORDER

__all__ = ["main"]

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2


def verdict_json(verdict: Verdict) -> dict[str, object]:
    """The ``--json`` object of one verdict."""
    resolution = verdict.resolution
    winner = None if resolution is None else resolution.winner
    first = verdict.errors[0] if verdict.errors else None
    return {
        "path": verdict.path,
        "ok": verdict.ok,
        "token_id": None if winner is None or not verdict.ok else winner.token_id,
        "source": None if winner is None or not verdict.ok else winner.source.value,
        "shadowed": []
        if resolution is None or not verdict.ok
        else [{"source": f.source.value, "token_id": f.token_id} for f in resolution.shadowed],
        "hidden_size": None if resolution is None else resolution.hidden_size,
        "vocab_size": None if resolution is None else resolution.vocab_size,
        "warnings": [str(w) for w in verdict.warnings],
        "error": None if first is None else _message(first),
        "error_field": None if first is None else first.field,
    }


def _message(error: Exception) -> str:
    """An error's text without the path, which the verdict shows once already."""
    return error.problem if isinstance(error, ConfigFileError) else str(error)


def _print_check(verdicts: Sequence[Verdict], out: TextIO) -> None:
    lines = []
    for verdict in verdicts:
        resolution = verdict.resolution
        winner = None if resolution is None else resolution.winner
        if not verdict.ok or resolution is None or winner is None:
            lines.append(f"{verdict.path}: INVALID: {_message(verdict.errors[0])}")
            lines.extend(f"    error: {_message(error)}" for error in verdict.errors[1:])
            continue
        sizes = ", ".join(
            f"{name} {size}"
            for name, size in (
                ("hidden_size", resolution.hidden_size),
                ("vocab_size", resolution.vocab_size),
            )
            if size is not None
        )
        lines.append(
            f"{verdict.path}: OK: token id {winner.token_id} from `{winner.source.value}`"
            + (f" ({sizes})" if sizes else "")
        )
        if resolution.shadowed:
            shadowed = ", ".join(f"`{f.source.value}` = {f.token_id}" for f in resolution.shadowed)
            lines.append(f"    shadowed: {shadowed}")
        lines.extend(f"    warning: {warning}" for warning in verdict.warnings)
    valid = sum(v.ok for v in verdicts)
    lines.append(f"{len(verdicts)} checked: {valid} valid, {len(verdicts) - valid} invalid")
    out.write("\n".join(lines) + "\n")


def _expand_stdin(paths: Sequence[str]) -> list[str]:
    """Replace a ``-`` argument by the paths on standard input (one per line, blanks skipped).

    For sweeps too large for a command line: ``find cache -name config.json | drafting-config
    check --json -``.
    """
    if "-" not in paths:
        return list(paths)
    from_stdin = [line for line in sys.stdin.read().splitlines() if line.strip()]
    expanded: list[str] = []
    for path in paths:
        expanded.extend(from_stdin if path == "-" else [path])
    return expanded


def _run_check(paths: Sequence[str], as_json: bool, out: TextIO) -> int:
    verdicts = [check(path) for path in paths]
    if as_json:
        # json.dumps, not json.dump: only dumps uses the C encoder.
        out.write(json.dumps([verdict_json(v) for v in verdicts]) + "\n")
    else:
        _print_check(verdicts, out)
    return EXIT_OK if all(v.ok for v in verdicts) else EXIT_INVALID


def _run_explain(path: str, out: TextIO) -> int:
    verdict = check(path)
    lines = [path]
    resolution = verdict.resolution
    if resolution is not None and resolution.fields:
        rows = [
            (str(rank), f.source.value, _shown(f.value), f.status.value)
            for rank, f in enumerate(resolution.fields, 1)
        ]
        header = ("rank", "field", "value", "status")
        widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header) - 1)]
        lines.extend(
            "  "
            + "".join(cell.ljust(width + 2) for cell, width in zip(row, widths, strict=False))
            + row[-1]
            for row in [header, *rows]
        )
    if verdict.ok and resolution is not None and resolution.winner is not None:
        winner = resolution.winner
        lines.append(f"  OK: token id {winner.token_id} from `{winner.source.value}`")
        lines.extend(f"  warning: {warning}" for warning in verdict.warnings)
    else:
        lines.extend(f"  INVALID: {_message(error)}" for error in verdict.errors)
    out.write("\n".join(lines) + "\n")
    return EXIT_OK if verdict.ok else EXIT_INVALID


def _shown(value: object) -> str:
    if value is MISSING:
        return "-"
    if value is None:
        return "null"
    return str(value) if type(value) is int else describe_value(value)


def _run_schema(out: TextIO) -> int:
    # Imported here: the only command that needs pydantic's model machinery.
    from drafting_config.config import ParallelDraftingConfig  # noqa: PLC0415

    json.dump(ParallelDraftingConfig.model_json_schema(), out, indent=2)
    out.write("\n")
    return EXIT_OK


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="drafting-config",
        description=(
            "Check which parallel-drafting token id a draft model's config.json names. "
            "Reads local files only; never imports transformers or contacts a hub."
        ),
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    check_parser = commands.add_parser(
        "check",
        help="verdict for each config.json or model directory",
        description="Check each PATH (a config.json file or a model directory holding one).",
    )
    check_parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="a config.json or model directory; '-' reads more paths from stdin, one per line",
    )
    check_parser.add_argument(
        "--json", action="store_true", help="print one JSON array, an object per PATH"
    )

    explain_parser = commands.add_parser(
        "explain",
        help=f"show the {len(PRIORITY_ORDER)} token-id fields of one config and why one wins",
        description=(
            f"Show the {len(PRIORITY_ORDER)} token-id fields of PATH in priority order, each "
            f"with its value and status ({', '.join(status.value for status in FieldStatus)})."
        ),
    )
    explain_parser.add_argument("path", metavar="PATH")

    commands.add_parser(
        "schema",
        help="print the JSON Schema of ParallelDraftingConfig",
        description="Print the JSON Schema of ParallelDraftingConfig.",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 valid, 1 invalid, 2 usage error)."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exit_:  # argparse: --help, --version, or a usage error
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    out = sys.stdout
    if isinstance(out, io.TextIOWrapper):
        # Paths that are not valid UTF-8 (surrogate escapes) print as escapes, not errors.
        out.reconfigure(errors="backslashreplace")
    try:
        if args.command == "check":
            status = _run_check(_expand_stdin(args.paths), args.json, out)
        elif args.command == "explain":
            status = _run_explain(args.path, out)
        else:
            status = _run_schema(out)
        out.flush()
    except BrokenPipeError:  # `drafting-config check ... | head`: the reader left
        _silence_stdout()
        status = EXIT_INVALID
    except KeyboardInterrupt:
        status = 130
    except Exception as error:  # a bug of ours: say so in one line, never a traceback
        print(
            f"drafting-config: internal error: {type(error).__name__}: {error} "
            "(please report this, with the file that caused it)",
            file=sys.stderr,
        )
        status = EXIT_INVALID
    return status


def _silence_stdout() -> None:
    # Python flushes stdout again at exit; point it at devnull so that flush
    # cannot raise a second BrokenPipeError with a traceback.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
