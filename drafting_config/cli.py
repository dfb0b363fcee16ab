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
from typing import NamedTuple, TextIO

from drafting_config import __version__
from drafting_config.errors import (
    ParallelDraftingConfigError,
    ParallelDraftingConfigWarning,
    describe_value,
)
from drafting_config.loading import ConfigFileError, load_config_json
from drafting_config.reading import MISSING, field_getter
from drafting_config.resolution import (
    ResolvedFields,
    check_token_id,
    read_token_id_fields,
    resolve,
)
from drafting_config.sources import TokenIdSource

__all__ = ["main"]

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2


class Verdict(NamedTuple):
    """The outcome of checking one path: the resolved fields, or the reason there are none."""

    path: str
    fields: ResolvedFields | None
    warnings: list[ParallelDraftingConfigWarning]
    error: str | None
    error_field: str | None

    def as_json(self) -> dict[str, object]:
        f = self.fields
        return {
            "path": self.path,
            "ok": f is not None,
            "token_id": None if f is None else f["token_id"],
            "source": None if f is None else f["source"].value,
            "shadowed": []
            if f is None
            else [{"source": s.value, "token_id": t} for s, t in f["shadowed"]],
            "hidden_size": None if f is None else f["hidden_size"],
            "vocab_size": None if f is None else f["vocab_size"],
            "warnings": [str(w) for w in self.warnings],
            "error": self.error,
            "error_field": self.error_field,
        }


def check(path: str) -> Verdict:
    """Load and resolve one config.json (or model directory); never raises for bad input."""
    try:
        hf_config = load_config_json(path)
    except ConfigFileError as error:
        return Verdict(path, None, [], error.problem, None)
    return _verdict(path, hf_config)


def _verdict(path: str, hf_config: dict[str, object]) -> Verdict:
    try:
        fields, warnings = resolve(hf_config)
    except ParallelDraftingConfigError as error:
        return Verdict(path, None, [], str(error), error.field)
    return Verdict(path, fields, warnings, None, None)


def _print_check(verdicts: Sequence[Verdict], out: TextIO) -> None:
    lines = []
    for verdict in verdicts:
        f = verdict.fields
        if f is None:
            lines.append(f"{verdict.path}: INVALID: {verdict.error}")
            continue
        sizes = ", ".join(
            f"{name} {f[name]}" for name in ("hidden_size", "vocab_size") if f[name] is not None
        )
        lines.append(
            f"{verdict.path}: OK: token id {f['token_id']} from `{f['source'].value}`"
            + (f" ({sizes})" if sizes else "")
        )
        if f["shadowed"]:
            shadowed = ", ".join(f"`{source.value}` = {value}" for source, value in f["shadowed"])
            lines.append(f"    shadowed: {shadowed}")
        lines.extend(f"    warning: {warning}" for warning in verdict.warnings)
    valid = sum(v.fields is not None for v in verdicts)
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
        out.write(json.dumps([v.as_json() for v in verdicts]) + "\n")
    else:
        _print_check(verdicts, out)
    return EXIT_OK if all(v.fields is not None for v in verdicts) else EXIT_INVALID


def _run_explain(path: str, out: TextIO) -> int:
    try:
        hf_config = load_config_json(path)
    except ConfigFileError as error:
        out.write(f"{path}\n  INVALID: {error.problem}\n")
        return EXIT_INVALID
    verdict = _verdict(path, hf_config)
    lines = [path]
    rows = _explain_rows(hf_config, verdict.error_field)
    if rows is not None:
        width = max(len(source.value) for source, _, _ in rows)
        value_width = max(len("value"), *(len(value) for _, value, _ in rows))
        lines.append(f"  rank  {'field':<{width}}  {'value':<{value_width}}  status")
        lines.extend(
            f"  {rank:<4}  {source.value:<{width}}  {value:<{value_width}}  {status}"
            for rank, (source, value, status) in enumerate(rows, 1)
        )
    f = verdict.fields
    if f is None:
        lines.append(f"  INVALID: {verdict.error}")
    else:
        lines.append(f"  OK: token id {f['token_id']} from `{f['source'].value}`")
        lines.extend(f"  warning: {warning}" for warning in verdict.warnings)
    out.write("\n".join(lines) + "\n")
    return EXIT_OK if f is not None else EXIT_INVALID


def _explain_rows(
    hf_config: dict[str, object], error_field: str | None
) -> list[tuple[TokenIdSource, str, str]] | None:
    """``(source, shown value, status)`` per field; ``None`` if a section is unreadable."""
    try:
        raw = read_token_id_fields(field_getter(hf_config, ""))
    except ParallelDraftingConfigError:
        return None
    rows = []
    winner_seen = False
    for source, value in raw:
        if value is MISSING:
            rows.append((source, "-", "absent"))
            continue
        if value is None:
            rows.append((source, "null", "null"))
            continue
        shown = str(value) if type(value) is int else describe_value(value)
        try:
            check_token_id(source, value, None)
            valid = source.value != error_field  # e.g. out of the vocabulary
        except ParallelDraftingConfigError:
            valid = False
        status = "invalid" if not valid else "shadowed" if winner_seen else "winner"
        rows.append((source, shown, status))
        winner_seen = True
    return rows


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
        help="show the five token-id fields of one config and why one wins",
        description="Show the five token-id fields of PATH in priority order, with statuses.",
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
