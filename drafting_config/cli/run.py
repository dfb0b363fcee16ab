"""The ``drafting-config`` command: its arguments, and the exit status of its verdicts.

Every decision is made by :func:`drafting_config.verdicts.check_many`; this module
parses arguments, writes the verdicts as :mod:`drafting_config.cli.render` renders them
(text or JSON), and maps them to an exit status.  ``check`` and ``explain`` build no
pydantic model and import neither torch nor transformers; only ``schema``
builds the model, and huggingface_hub is imported only for a repo id.

A sweep runs in this one process: the package starts no process or thread pool.

Exit status: the ``EXIT_*`` constants below; what each means is written once, in
:mod:`drafting_config.cli.exit_status`, which ``check --help`` prints.
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Final, TextIO

from drafting_config import __version__
from drafting_config.cli.exit_status import EXIT_STATUS_HELP
from drafting_config.cli.fixing import fix_paths
from drafting_config.cli.output_schema import OUTPUT_SCHEMA
from drafting_config.cli.render import (
    HEADLINE_WORDS,
    block_lines,
    explain_lines,
    field_rows,
    footer_line,
    github_lines,
    headline_word,
    json_text,
    outcome,
    verdict_json,
)
from drafting_config.cli.settings import (
    SettingsError,
    error_codes,
    error_codes_text,
    read_settings,
    unknown_codes,
)
from drafting_config.draft.fields import FieldStatus
from drafting_config.engines import DEFAULT_ENGINE, ENGINES, RELEASES, Engine, engine_rules
from drafting_config.files.repo_ids import DEFAULT_REVISION, RepoIdError, validate_revision
from drafting_config.values.codes import TARGET_NOT_GIVEN, TOKENIZER_NOT_FOUND, WEIGHTS_NOT_MODELLED
from drafting_config.values.errors import exception_text
from drafting_config.values.paths import output_errors
from drafting_config.values.sources import PRIORITY_ORDER
from drafting_config.verdicts import CheckOptions, Verdict, check_each

EXIT_OK: Final = 0
EXIT_INVALID: Final = 1
EXIT_UNCHECKED: Final = 2
"""A check could not be made: a file, repo or extra it needs could not be had, or the
argument list is wrong (a usage error), as ruff and mypy exit 2 when they cannot run."""
EXIT_USAGE: Final = EXIT_UNCHECKED
EXIT_INTERRUPTED: Final = 130
"""128 + SIGINT, as shells report Ctrl-C."""
EXIT_BROKEN_PIPE: Final = 141
"""128 + SIGPIPE, as shells report a reader that went away (``... | head``)."""


class _UsageError(Exception):
    """A problem with the argument list (exit 2)."""


ALL_ENGINES: Final = "all"
"""``--engine all``: one verdict per draft and engine."""

ENGINE_CHOICES: Final[Mapping[str, tuple[Engine, ...]]] = {
    **{engine: (engine,) for engine in (*ENGINES, *RELEASES)},
    ALL_ENGINES: tuple(ENGINES),
}
"""``--engine``: the engines each draft gets a verdict for, in this order (from
:data:`drafting_config.engines.ENGINES` and :data:`~drafting_config.engines.RELEASES`);
``all`` is each engine by its bare name: its installed release if shipped, else its newest."""


def _engines(args: argparse.Namespace) -> tuple[Engine, ...]:
    return ENGINE_CHOICES[getattr(args, "engine", DEFAULT_ENGINE)]


def _check_all(paths: Sequence[str], args: argparse.Namespace) -> Iterator[Verdict]:
    """One verdict per (draft, engine), the engines of each draft together, each draft's
    file read once whatever the engines, yielded as soon as they are known; the findings of
    the codes ``--ignore`` names dropped."""
    options = CheckOptions(
        target=args.target,
        tokenizer=args.tokenizer,
        check_tokenizer=not args.no_tokenizer,
        check_weights=not args.no_weights,
        revision=args.revision,
        target_revision=args.target_revision,
        download=args.download,
        require_parallel=bool(getattr(args, "require_parallel", False)),
    )
    ignored = frozenset(getattr(args, "ignore", None) or ())
    return (verdict.without(ignored) for verdict in check_each(paths, options, _engines(args)))


FOOTER_CODES: Final = frozenset({TARGET_NOT_GIVEN, TOKENIZER_NOT_FOUND, WEIGHTS_NOT_MODELLED})
"""The notes about what a run did not check rather than about a draft ("target not checked:
no target given"): in a run of several drafts, the text output says each once, in its
footer, with how many drafts hold it."""


def _footer_notes(verdicts: Sequence[Verdict], footer: dict[str, int]) -> list[Verdict]:
    """``verdicts`` (one draft's) without their :data:`FOOTER_CODES` notes, each counted
    once for the draft into ``footer``."""
    held: dict[str, None] = {}
    kept = []
    for verdict in verdicts:
        notes = []
        for note in dict.fromkeys(verdict.notes):
            if getattr(note, "code", None) in FOOTER_CODES:
                held[note] = None
            else:
                notes.append(note)
        kept.append(replace(verdict, notes=tuple(notes)))
    for note in held:
        footer[note] = footer.get(note, 0) + 1
    return kept


def _by_draft(verdicts: Iterator[Verdict], engines: int) -> Iterator[list[Verdict]]:
    """The verdicts of each draft together: ``check_each`` yields one per engine, in turn."""
    draft: list[Verdict] = []
    for verdict in verdicts:
        draft.append(verdict)
        if len(draft) == engines:
            yield draft
            draft = []
    if draft:
        yield draft


def _serve_options(engines: Sequence[Engine]) -> dict[str, str]:
    """Each engine's option for a verdict's ``serve_with``, by the name a verdict gives it."""
    return {
        rules.ENGINE: rules.SERVE_OPTION
        for rules in (engine_rules(engine)[0] for engine in engines)
    }


def _tally(verdicts: Sequence[Verdict], strict: bool) -> tuple[int, int, int]:
    """How many verdicts passed, failed and could not be checked."""
    outcomes = [outcome(verdict, strict) for verdict in verdicts]
    return outcomes.count("ok"), outcomes.count("invalid"), outcomes.count("unchecked")


def _status(invalid: int, unchecked: int) -> int:
    """1 if any draft fails, else 2 if any could not be checked, else 0."""
    if invalid:
        return EXIT_INVALID
    return EXIT_UNCHECKED if unchecked else EXIT_OK


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Keep the cyclic garbage collector off the objects that exist when the command starts
    (the imported modules, their tables) for the ``with`` block, and on everything else.

    A sweep streams its verdicts, so the cycles each draft leaves (a caught error's
    traceback and frames) are garbage once its verdict is written: the collector must run,
    or memory grows with the number of drafts (5 to 8 KB a draft once). Frozen
    (:func:`gc.freeze`), the start-up objects are never traversed again, and each
    collection costs what the drafts in flight hold. The freeze is global to the process,
    so only the command line, which owns its process, uses it; library calls leave the
    caller's collector alone.
    """
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _one_format(args: argparse.Namespace) -> None:
    """``--json`` beside ``--format github``: a usage error, never one format dropped.

    Raises:
        _UsageError: the two ask for different output formats.
    """
    if args.json and args.format not in {"text", "json"}:
        raise _UsageError(f"--json and --format {args.format} ask for two output formats")


def _run_check(args: argparse.Namespace, out: TextIO) -> int:
    _one_format(args)
    _apply_settings(args)
    args.json = args.json or args.format == "json"
    paths = _expand_stdin(args.paths, nul=args.null)
    _fix_first(args, out)
    if args.jobs is not None:
        print(_JOBS_DEPRECATED, file=sys.stderr)
    engines = _engines(args)
    names = [engine_rules(engine)[0].ENGINE for engine in engines]
    several = len(paths) > 1
    quiet = getattr(args, "quiet", False)
    options = _serve_options(engines)
    footer: dict[str, int] = {}
    outcomes = {"ok": 0, "invalid": 0, "unchecked": 0}
    served = dict.fromkeys(names, 0)
    total = drafts_unchecked = 0
    # Each draft's verdicts are written as soon as they are known, piece by piece, never as
    # one string: when the reader leaves during one large write (`... | head`), the kernel
    # reports it partly done and CPython's buffered writer drops the rest without a
    # BrokenPipeError, so the run would exit 0, not 141.
    for verdicts in _by_draft(_check_all(paths, args), len(engines)):
        for verdict in verdicts:
            result = outcome(verdict, args.strict)
            outcomes[result] += 1
            served[verdict.engine] = served.get(verdict.engine, 0) + (result == "ok")
        drafts_unchecked += headline_word(verdicts, args.strict) == HEADLINE_WORDS["unchecked"]
        if args.json:
            for verdict in verdicts:
                item = json_text(verdict_json(verdict, strict=args.strict))
                out.write(("[" if total == 0 else ", ") + item)
                total += 1
            continue
        if args.format == "github":
            for verdict in verdicts:
                out.write("".join(f"{line}\n" for line in github_lines(verdict, args.strict)))
            continue
        shown = _footer_notes(verdicts, footer) if several else verdicts
        if not (quiet and all(v.ok and not v.warnings for v in verdicts)):
            lines = block_lines(shown, args.strict, verbose=args.verbose, serve_options=options)
            out.write("".join(f"{line}\n" for line in lines))
    if args.json:
        out.write("]\n" if total else "[]\n")
    else:
        for note, count in footer.items():  # once, in the run's footer, with the count
            out.write(footer_line(note, count) + "\n")
        out.write(_summary(len(paths), engines, served, outcomes, drafts_unchecked) + "\n")
    if not paths:  # `find ... | drafting-config check -` that found nothing: no CI pass
        print("drafting-config: no paths to check: standard input held none", file=sys.stderr)
        return EXIT_UNCHECKED
    return _status(outcomes["invalid"], outcomes["unchecked"])


def _fix_first(args: argparse.Namespace, out: TextIO) -> None:
    """``--fix`` and ``--diff``: apply (or show) the certain fixes before the check, which
    then checks every draft again: its exit status is the re-check's."""
    if args.fix or args.diff:
        fix_paths(
            args.paths,
            lambda path: _check_all([path], args),
            write=args.fix,
            diff=args.diff,
            out=sys.stderr if args.json or args.format == "github" else out,
        )


def _summary(
    drafts: int,
    engines: Sequence[Engine],
    served: dict[str, int],
    outcomes: dict[str, int],
    drafts_unchecked: int,
) -> str:
    """The run's last line: with several engines, the drafts, how many each engine serves,
    and how many drafts could not be checked, if any; with one, how many verdicts are valid
    and invalid, and how many could not be checked, if any."""
    if len(engines) > 1:
        serves = ", ".join(f"{name} serves {count}" for name, count in served.items())
        unchecked = f", {drafts_unchecked} not checked" if drafts_unchecked else ""
        return f"{drafts} draft{'' if drafts == 1 else 's'} checked: {serves}{unchecked}"
    unchecked = f", {outcomes['unchecked']} not checked" if outcomes["unchecked"] else ""
    summary = f"{drafts} checked"
    if engines != (DEFAULT_ENGINE,):
        summary += f" with {next(iter(served))}"
    return f"{summary}: {outcomes['ok']} valid, {outcomes['invalid']} invalid{unchecked}"


def _run_explain(args: argparse.Namespace, out: TextIO) -> int:
    """``explain``: each draft's block with its token-id fields in each engine's order; with
    ``--json``, one verdict object with its ``fields`` for one draft and engine, else an
    array of them, one per draft and engine."""
    _apply_settings(args)
    engines = _engines(args)
    options = _serve_options(engines)
    verdicts = list(_check_all(args.paths, args))
    if args.json:
        documents = [
            {**verdict_json(verdict, strict=args.strict), "fields": field_rows(verdict)}
            for verdict in verdicts
        ]
        out.write(json_text(documents[0] if len(documents) == 1 else documents) + "\n")
    else:
        for draft in _by_draft(iter(verdicts), len(engines)):
            lines = explain_lines(draft, args.strict, verbose=args.verbose, serve_options=options)
            out.write("".join(f"{line}\n" for line in lines))
    return _status(*_tally(verdicts, args.strict)[1:])


def _run_schema(args: argparse.Namespace, out: TextIO) -> int:
    """The output's JSON Schema; with ``--model``, ``ParallelDraftingConfig``'s."""
    if not args.model:
        json.dump(OUTPUT_SCHEMA, out, indent=2)
        out.write("\n")
        return EXIT_OK
    # Imported here: the only command that needs pydantic's model machinery.
    from drafting_config.config import ParallelDraftingConfig  # noqa: PLC0415

    json.dump(ParallelDraftingConfig.model_json_schema(), out, indent=2)
    out.write("\n")
    return EXIT_OK


def _expand_stdin(paths: Sequence[str], *, nul: bool) -> list[str]:
    """Replace a ``-`` argument by the paths on standard input.

    One per line (blank lines skipped), or NUL-separated with ``-0`` (``find
    ... -print0``), so that paths holding newlines can be swept.  Bytes that are
    not UTF-8 are kept (as surrogate escapes), so every path gets its verdict.

    Raises:
        _UsageError: ``-`` was given but standard input is closed.
    """
    if "-" not in paths:
        if nul:
            raise _UsageError("-0 reads NUL-separated paths from standard input: give '-' too")
        return list(paths)
    stream = sys.stdin
    if stream is None:
        raise _UsageError("'-' reads paths from standard input, but it is closed")
    try:
        data = stream.buffer.read() if hasattr(stream, "buffer") else stream.read().encode()
    except (OSError, ValueError) as error:
        raise _UsageError(f"cannot read paths from standard input: {error}") from None
    pieces = data.split(b"\0") if nul else data.splitlines()
    from_stdin = [os.fsdecode(piece) for piece in pieces if piece.strip()]
    expanded: list[str] = []
    for path in paths:
        expanded.extend(from_stdin if path == "-" else [path])
    return expanded


def _revision(text: str) -> str:
    try:
        return validate_revision(text)
    except RepoIdError as error:
        raise argparse.ArgumentTypeError(error.problem) from None


def _jobs(text: str) -> int:
    try:
        jobs = int(text)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise argparse.ArgumentTypeError(
            f"expected a whole number of processes, at least 1; got {text!r}"
        )
    return jobs


_JOBS_DEPRECATED: Final = (
    "drafting-config: warning: --jobs is deprecated and ignored: a sweep runs in one process "
    "(it will be removed in the next release)"
)


def _add_model_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--json", action="store_true", help="print JSON (the shape is in docs/cli.md)"
    )
    parser.add_argument(
        "--target",
        metavar="TARGET",
        help="the target model (config.json, model directory or ORG/NAME) to check against",
    )
    parser.add_argument(
        "--tokenizer",
        metavar="DIR",
        help="a directory of tokenizer files or ORG/NAME (default: the draft's, else the target's)",
    )
    parser.add_argument(
        "--no-tokenizer",
        action="store_true",
        help="skip the tokenizer check (for sweeps over whole model caches)",
    )
    parser.add_argument(
        "--no-weights",
        action="store_true",
        help="skip the checkpoint check, touching no weight file (for sweeps over whole "
        "model caches); by default the safetensors headers beside a draft are checked",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        default=None,
        help="fail (exit 1) on any warning too, for CI",
    )
    parser.add_argument(
        "--no-strict",
        dest="strict",
        action="store_false",
        default=None,
        help="do not fail on warnings, whatever [tool.drafting-config] says",
    )
    parser.add_argument(
        "--ignore",
        action="append",
        default=None,
        metavar="CODE",
        help="drop the findings of this code (repeatable; the codes are in docs/codes.md)",
    )
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="read [tool.drafting-config] from FILE (default: the nearest pyproject.toml at "
        "or above the current directory); flags win over it",
    )
    parser.add_argument(
        "--revision",
        default=DEFAULT_REVISION,
        type=_revision,
        metavar="REV",
        help="branch, tag or commit of a draft given as ORG/NAME (default: main)",
    )
    parser.add_argument(
        "--target-revision",
        default=DEFAULT_REVISION,
        type=_revision,
        metavar="REV",
        help="branch, tag or commit of a --target given as ORG/NAME (default: main)",
    )
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="print each finding's evidence too: the engine's file and function behind it",
    )
    parser.add_argument(
        "--download",
        action="store_true",
        help="fetch config.json and tokenizer files of ORG/NAME models into the Hugging Face "
        "cache first (never weights or code; honours HF_TOKEN and HF_ENDPOINT)",
    )


def _add_engine_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--engine",
        choices=tuple(ENGINE_CHOICES),
        default=None,
        help="the engine the verdicts speak for: vllm (the default) or sglang, each the "
        "release installed here if the checker knows it, else its newest (vLLM 0.33.0, SGLang "
        "0.5.23); a release, such as vllm==0.32.0; or all (one verdict per draft and engine; "
        "exit 0 only if all pass)",
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="drafting-config",
        description=(
            "Check a parallel-drafting draft model: its token id, its target, its tokenizer. "
            "Reads local files and the local Hugging Face cache; never imports transformers, "
            "and contacts a hub only with --download."
        ),
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    check_parser = commands.add_parser(
        "check",
        help="a verdict for each draft model",
        description="Check each PATH: a config.json, a model directory, or ORG/NAME.",
        epilog=EXIT_STATUS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,  # keeps the epilog's lines
    )
    check_parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="a config.json, model directory or ORG/NAME; '-' reads more from standard input",
    )
    check_parser.add_argument(
        "-0",
        dest="null",
        action="store_true",
        help="with '-', standard input holds NUL-separated paths (find -print0)",
    )
    check_parser.add_argument(
        "--jobs",
        type=_jobs,
        metavar="N",
        help="deprecated and ignored: a sweep runs in one process (removed in the next release)",
    )
    _add_engine_option(check_parser)
    check_parser.add_argument(
        "--require-parallel",
        action="store_true",
        default=None,
        help="judge each draft as served with parallel drafting on: a draft the engine "
        "would serve sequentially (a sequential EAGLE-3 draft, a plain draft model) fails",
    )
    check_parser.add_argument(
        "--no-require-parallel",
        dest="require_parallel",
        action="store_false",
        default=None,
        help="judge each draft as served, whatever [tool.drafting-config] says",
    )
    check_parser.add_argument(
        "--format",
        choices=("text", "json", "github"),
        default="text",
        help="text (the default), json (as --json), or github: GitHub Actions annotations "
        "(::error file=...), one per error and warning",
    )
    check_parser.add_argument(
        "--fix",
        action="store_true",
        help="apply the certain fixes (those that use only values already in the file) to "
        "each config.json named by path, say what changed, then check again; never a repo "
        "id, a symbolic link, a Hugging Face cache or a path read from standard input",
    )
    check_parser.add_argument(
        "--diff",
        action="store_true",
        help="print the certain fixes as a unified diff; with --fix too, write them",
    )
    check_parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print only the drafts with an error or warning (and the summary)",
    )
    _add_model_options(check_parser)

    explain_parser = commands.add_parser(
        "explain",
        help="show where each engine looks for a draft's token id, and why one wins",
        description=(
            "Show, for each PATH and engine, the fields the engine reads the token id from, in "
            f"its order (vLLM: the {len(PRIORITY_ORDER)} fields of the priority table; SGLang: "
            "its own fields, then the served tokenizer's mask token), each with its value and "
            f"status ({', '.join(status.value for status in FieldStatus)}, ...), then the "
            "verdict."
        ),
    )
    explain_parser.add_argument(
        "paths", nargs="+", metavar="PATH", help="a config.json, model directory or ORG/NAME"
    )
    _add_engine_option(explain_parser)
    _add_model_options(explain_parser)

    schema_parser = commands.add_parser(
        "schema",
        help="print the JSON Schema (2020-12) of check --json and explain --json",
        description="Print the JSON Schema (2020-12) of the output of check --json and "
        "explain --json; with --model, the schema of the typed model ParallelDraftingConfig "
        "(neither is a schema of config.json).",
    )
    schema_parser.add_argument(
        "--model",
        action="store_true",
        help="print the JSON Schema of ParallelDraftingConfig instead",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (see the module docstring)."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exit_:  # argparse: --help, --version, or a usage error
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    out = sys.stdout
    if out is None:  # started with standard output closed (>&-)
        print(
            "drafting-config: cannot write the output: standard output is closed", file=sys.stderr
        )
        return EXIT_UNCHECKED
    if isinstance(out, io.TextIOWrapper):
        # Paths are escaped already; anything else the encoding lacks prints as a \u escape
        # that parse_display_path reads back, never an error.
        out.reconfigure(errors=output_errors())
    try:
        with _collector_paused():  # the start-up objects: never traversed again
            if args.command == "check":
                status = _run_check(args, out)
            elif args.command == "explain":
                status = _run_explain(args, out)
            else:
                status = _run_schema(args, out)
        out.flush()
    except _UsageError as error:
        print(f"drafting-config: error: {error}", file=sys.stderr)
        status = EXIT_USAGE
    except BrokenPipeError:  # `drafting-config check ... | head`: the reader left
        _silence_stdout()
        status = EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        status = EXIT_INTERRUPTED
    except OSError as error:  # stdout closed, a full disk: the output could not be written
        print(f"drafting-config: cannot write the output: {error}", file=sys.stderr)
        status = EXIT_UNCHECKED
    except Exception as error:  # a bug of ours: say so in one line, never a traceback
        print(
            f"drafting-config: internal error: {exception_text(error, kind=True)} "
            "(please report this, with the file that caused it)",
            file=sys.stderr,
        )
        status = EXIT_UNCHECKED
    return status


def _apply_settings(args: argparse.Namespace) -> None:
    """Fill what the flags left unset from ``[tool.drafting-config]``; flags win.

    Raises:
        _UsageError: the table is unusable, or ``--ignore`` names an unknown code.
    """
    try:
        settings = read_settings(args.config)
    except SettingsError as error:
        raise _UsageError(str(error)) from None
    if args.strict is None:
        args.strict = bool(settings.strict)
    if getattr(args, "engine", DEFAULT_ENGINE) is None:
        args.engine = settings.engine or DEFAULT_ENGINE
    if settings.require_parallel is not None and getattr(args, "require_parallel", None) is None:
        args.require_parallel = settings.require_parallel
    given = args.ignore or []
    bad = unknown_codes(given)
    if bad:
        raise _UsageError(
            f"--ignore: unknown code {', '.join(bad)} (the codes are listed in docs/codes.md)"
        )
    errors = error_codes(given)
    if errors:
        raise _UsageError(f"--ignore names {error_codes_text(errors)}")
    args.ignore = (*settings.ignore, *given)


def _silence_stdout() -> None:
    # Python flushes stdout again at exit; point it at devnull so that flush
    # cannot raise a second BrokenPipeError with a traceback.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real stdout (tests capture it)
        pass
