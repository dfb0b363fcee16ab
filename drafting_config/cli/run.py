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
from collections.abc import Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from contextlib import contextmanager
from typing import Final, NoReturn, TextIO, cast

from drafting_config import __version__
from drafting_config.cli.exit_status import EXIT_STATUS_HELP
from drafting_config.cli.output_schema import OUTPUT_SCHEMA
from drafting_config.cli.render import (
    HEADLINE_WORDS,
    block_lines,
    edit_plan,
    explain_lines,
    field_rows,
    finding_rows,
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
from drafting_config.cli.terminal import COLOR_CHOICES, Style, style_for, waiting
from drafting_config.draft.fields import FieldStatus
from drafting_config.engines import (
    CODES,
    DEFAULT_ENGINE,
    ENGINE_NAMES,
    ENGINES,
    EVERY_RELEASE,
    RELEASES,
    Engine,
    EveryRelease,
    chosen_engines,
    engine_rules,
)
from drafting_config.files.repo_ids import DEFAULT_REVISION, RepoIdError, validate_revision
from drafting_config.values.codes import (
    CAUSALITY_ASSUMED,
    SAMPLE_FROM_ANCHOR_ASSUMED,
    SPECULATIVE_TOKENS_UNKNOWN,
    TARGET_NOT_GIVEN,
    TOKENIZER_NOT_FOUND,
    WEIGHTS_NOT_MODELLED,
)
from drafting_config.values.edits import EditPlan
from drafting_config.values.errors import exception_text
from drafting_config.values.launch import Launch, LaunchError, launch_words, option_value
from drafting_config.values.paths import output_errors, printable, runner_inert
from drafting_config.values.sources import PRIORITY_ORDER
from drafting_config.verdicts import CheckOptions, Verdict, check_each, checked_launch

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

ENGINE_CHOICES: Final[Mapping[str, tuple[Engine | EveryRelease, ...]]] = {
    **{engine: (engine,) for engine in (*ENGINES, *RELEASES, *EVERY_RELEASE)},
    ALL_ENGINES: tuple(ENGINES),
}
"""``--engine``: the engines each draft gets a verdict for, in this order (from
:data:`drafting_config.engines.ENGINES`, :data:`~drafting_config.engines.RELEASES` and
:data:`~drafting_config.engines.EVERY_RELEASE`: ``vllm==*`` is every shipped release);
``all`` is each engine by its bare name: its installed release if shipped, else its newest."""


def _engines(args: argparse.Namespace) -> tuple[Engine, ...]:
    """The engines of every ``--engine`` given (repeatable), in order, each release once
    (without one, :func:`_apply_settings` has set the settings' engine, else the engine the
    launch is for, :func:`_launch_engine`)."""
    given = getattr(args, "engine", None) or (DEFAULT_ENGINE,)
    return chosen_engines(engine for choice in given for engine in ENGINE_CHOICES[choice])


SGLANG_ARGS_ENGINE: Final = "sglang"
"""The engine ``--sglang-args`` speaks for (the option is named after it)."""


def _launch(args: argparse.Namespace) -> Launch | None:
    """The launch ``--speculative-config``, ``--sglang-args`` or ``--launch`` gives, read
    and parsed by each engine (:func:`~drafting_config.verdicts.checked_launch`).

    Raises:
        _UsageError: it cannot be read at all (the option, the value, what was expected).
    """
    config = getattr(args, "speculative_config", None)
    sglang = getattr(args, "sglang_args", None)
    whole = getattr(args, "launch", None)
    try:
        if config is not None:
            words: tuple[str, ...] = (
                "--speculative-config",
                option_value(config, "--speculative-config"),
            )
        elif sglang is not None:
            words = launch_words(sglang, "--sglang-args")
        elif whole is not None:
            words = launch_words(whole, "--launch")
        else:
            return None
        return checked_launch(Launch(words))
    except LaunchError as error:
        raise _UsageError(str(error)) from None


def _launch_engine(args: argparse.Namespace) -> str:
    """The engine a launch given without ``--engine`` is for: SGLang for ``--sglang-args``,
    the engine whose program a whole ``--launch`` runs, else the default."""
    if getattr(args, "sglang_args", None) is not None:
        return SGLANG_ARGS_ENGINE
    launch = _launch(args)
    if launch is not None and launch.words and not launch.words[0].startswith("-"):
        for name, rules in ENGINES.items():
            if rules.launch_facts(launch).ours:
                return name
    return DEFAULT_ENGINE


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
        launch=_launch(args),
    )
    ignored = frozenset(getattr(args, "ignore", None) or ())
    verdicts = check_each(paths, options, _engines(args))
    if args.download:
        verdicts = _shown_waiting(verdicts)
    if not ignored:  # most runs: each verdict as it is
        return verdicts
    return (verdict.without(ignored) for verdict in verdicts)


def _shown_waiting(verdicts: Iterator[Verdict]) -> Iterator[Verdict]:
    """``verdicts``, a spinner on standard error (a terminal only) while one is awaited for
    longer than a second: a ``--download`` waits on the hub."""
    while True:
        with waiting("waiting for the hub (--download)...", sys.stderr):
            verdict = next(verdicts, None)
        if verdict is None:
            return
        yield verdict


FOOTER_CODES: Final = frozenset(
    {
        TARGET_NOT_GIVEN,
        TOKENIZER_NOT_FOUND,
        WEIGHTS_NOT_MODELLED,
        SAMPLE_FROM_ANCHOR_ASSUMED,
        CAUSALITY_ASSUMED,
        SPECULATIVE_TOKENS_UNKNOWN,
    }
)
"""The notes about what a run did not check rather than about a draft ("target not checked:
no target given"), and those saying what an engine default decides where the file records
nothing, whose text is the same for every draft: in a run of several drafts, the text
output says each once, in its footer, with how many drafts hold it."""


FOOTER_NAMES: Final = frozenset(code.name for code in FOOTER_CODES)
"""The names of :data:`FOOTER_CODES`, by which a draft's notes are tested: a name is a
string, hashed once, where a :class:`~drafting_config.values.codes.Code` hashes each of its
fields on every test."""


def _count_footer_notes(
    verdicts: Sequence[Verdict], names: AbstractSet[str], footer: dict[str, int]
) -> None:
    """Count each note of ``verdicts`` (one draft's) whose code's name is in ``names`` once
    for the draft into ``footer``; the draft's block leaves them out
    (``block_lines(footer=names)``)."""
    held: dict[str, None] = {}
    for verdict in verdicts:
        for note in verdict.notes:
            code = getattr(note, "code", None)
            if code is not None and code.name in names:
                held[note] = None
    for note in held:
        footer[note] = footer.get(note, 0) + 1


def _by_draft(verdicts: Iterator[Verdict], engines: int) -> Iterator[list[Verdict]]:
    """The verdicts of each draft together: ``check_each`` yields one per engine, in turn."""
    if engines == 1:  # most runs: each verdict is a draft's
        for verdict in verdicts:
            yield [verdict]
        return
    draft: list[Verdict] = []
    for verdict in verdicts:
        draft.append(verdict)
        if len(draft) == engines:
            yield draft
            draft = []
    if draft:
        yield draft


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
    # In a run of several drafts, the notes of FOOTER_CODES are said once, in its footer.
    footer_names: AbstractSet[str] = FOOTER_NAMES if len(paths) > 1 else frozenset()
    quiet = getattr(args, "quiet", False)
    footer: dict[str, int] = {}
    style = _style(args, out)
    outcomes = {"ok": 0, "invalid": 0, "unchecked": 0}
    served = dict.fromkeys(names, 0)
    total = 0
    drafts = dict.fromkeys(HEADLINE_WORDS.values(), 0)
    # Each draft's verdicts are written as soon as they are known, piece by piece, never as
    # one string: when the reader leaves during one large write (`... | head`), the kernel
    # reports it partly done and CPython's buffered writer drops the rest without a
    # BrokenPipeError, so the run would exit 0, not 141.
    fixable = 0
    for verdicts in _by_draft(_check_all(paths, args), len(engines)):
        plan = edit_plan(verdicts)
        fixable += _fixable_count(verdicts, plan)
        results = [outcome(verdict, args.strict) for verdict in verdicts]
        for verdict, result in zip(verdicts, results, strict=True):
            outcomes[result] += 1
            served[verdict.engine] = served.get(verdict.engine, 0) + (result == "ok")
        word = headline_word(verdicts, args.strict, results)
        drafts[word if word in drafts else HEADLINE_WORDS["invalid"]] += 1  # --strict: failed
        if args.json:
            for verdict in verdicts:
                item = json_text(verdict_json(verdict, strict=args.strict, plan=plan))
                out.write(("[" if total == 0 else ", ") + item)
                total += 1
            continue
        if args.format == "github":
            for verdict in verdicts:
                out.write("".join(f"{line}\n" for line in github_lines(verdict, args.strict)))
            continue
        _count_footer_notes(verdicts, footer_names, footer)
        if not (quiet and all(v.ok and not v.warnings for v in verdicts)):
            lines = block_lines(
                verdicts,
                args.strict,
                verbose=args.verbose,
                style=style,
                plan=plan,
                footer=footer_names,
                word=word,
            )
            out.write("\n".join(lines) + "\n")
    if args.json:
        out.write("]\n" if total else "[]\n")
    else:
        for note, count in footer.items():  # once, in the run's footer, with the count
            out.write(footer_line(note, count, style) + "\n")
        summary = _summary(engines, served, drafts)
        out.write(summary + _fixable_tail(fixable, args.format) + "\n")
    if not paths:  # `find ... | drafting-config check -` that found nothing: no CI pass
        print("drafting-config: no paths to check: standard input held none", file=sys.stderr)
        return EXIT_UNCHECKED
    return _status(outcomes["invalid"], outcomes["unchecked"])


def _fixable_count(verdicts: Sequence[Verdict], plan: EditPlan) -> int:
    """How many of a draft's findings ``--fix`` mends, each counted once as the text shows
    it (one finding that two engines report alike is one)."""
    if not plan.edits:
        return 0
    return len(
        {
            (row["severity"], row["code"], row["field"], row["message"])
            for verdict in verdicts
            for row in finding_rows(verdict, plan)
            if row["fixable"]
        }
    )


def _fixable_tail(fixable: int, output_format: str) -> str:
    """The text summary's count of the findings ``--fix`` mends (ruff's "N fixable")."""
    return f", {fixable} fixable with --fix" if fixable and output_format == "text" else ""


def _fix_first(args: argparse.Namespace, out: TextIO) -> None:
    """``--fix`` and ``--diff``: apply (or show) the certain fixes before the check, which
    then checks every draft again: its exit status is the re-check's."""
    if args.fix or args.diff:
        from drafting_config.cli.fixing import fix_paths  # noqa: PLC0415 (a plain check never pays for it)

        fix_paths(
            args.paths,
            lambda path: _check_all([path], args),
            write=args.fix,
            diff=args.diff,
            # fix_paths only writes lines: a stream that writes each inert is enough
            out=cast(
                "TextIO", _InertLines(sys.stderr if args.json or args.format == "github" else out)
            ),
        )


class _InertLines:
    """A stream for ``--fix`` and ``--diff``'s lines that writes each as
    :func:`~drafting_config.values.paths.runner_inert` leaves it: a config value quoted in a
    diff can start no CI runner's workflow command (a diff line keeps its tabs)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        lines = text.split("\n")
        return self._stream.write("\n".join(runner_inert(line) for line in lines))

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)


def _say(message: str) -> None:
    """Write a message to standard error as one printable line, inert for a CI runner."""
    print(printable(message), file=sys.stderr)


def _summary(engines: Sequence[Engine], served: dict[str, int], drafts: dict[str, int]) -> str:
    """The run's last line, one wording whatever the engines: how many drafts were checked,
    how many are valid and invalid (by each draft's headline: with several engines, valid
    when every engine serves it), and how many could not be checked, if any; the engine
    when it is not the default; with several, how many drafts each serves."""
    valid, invalid = drafts[HEADLINE_WORDS["ok"]], drafts[HEADLINE_WORDS["invalid"]]
    unchecked = drafts[HEADLINE_WORDS["unchecked"]]
    summary = f"{sum(drafts.values())} checked"
    if len(engines) == 1 and engines != (DEFAULT_ENGINE,):
        summary += f" with {next(iter(served))}"
    summary += f": {valid} valid, {invalid} invalid"
    if unchecked:
        summary += f", {unchecked} not checked"
    if len(engines) > 1:
        summary += f" ({', '.join(f'{name} serves {count}' for name, count in served.items())})"
    return summary


def _run_explain(args: argparse.Namespace, out: TextIO) -> int:
    """``explain``: each draft's block with its token-id fields in each engine's order; with
    ``--json``, one verdict object with its ``fields`` for one draft and engine, else an
    array of them, one per draft and engine."""
    _apply_settings(args)
    engines = _engines(args)
    _code_for_path(args.paths)
    verdicts = list(_check_all(args.paths, args))
    if args.json:
        documents = [
            {**verdict_json(verdict, strict=args.strict), "fields": field_rows(verdict)}
            for verdict in verdicts
        ]
        out.write(json_text(documents[0] if len(documents) == 1 else documents) + "\n")
    else:
        for draft in _by_draft(iter(verdicts), len(engines)):
            lines = explain_lines(
                draft,
                args.strict,
                verbose=args.verbose,
                style=_style(args, out),
            )
            out.write("".join(f"{line}\n" for line in lines))
    return _status(*_tally(verdicts, args.strict)[1:])


def _style(args: argparse.Namespace, out: TextIO) -> Style:
    """The text output's colour and width: ``--color``, the environment and ``out``."""
    return style_for(out, getattr(args, "color", "auto"))


def _code_for_path(paths: Sequence[str]) -> None:
    """Refuse a path argument that is a finding's code and no file (``explain
    token-placeholder``), pointing to ``drafting-config rule``.

    Raises:
        _UsageError: one is.
    """
    for path in paths:
        if path in CODES and not os.path.exists(path):
            raise _UsageError(
                f"{path!r} is a finding's code, not a path: "
                f"`drafting-config rule {path}` says what it means"
            )


def _run_rule(args: argparse.Namespace, out: TextIO) -> int:
    """``rule CODE``: what a finding's code means, its step, its fix and the engine code
    behind it, from the table the docs' code page is made of; ``rule --all``: every code."""
    from drafting_config.cli.code_page import rule_lines, unknown_code_message  # noqa: PLC0415

    if args.all == bool(args.codes):
        raise _UsageError("rule: name one or more codes, or give --all")
    try:
        lines = rule_lines(args.codes or None, width=_style(args, out).width)
    except KeyError as error:
        raise _UsageError(unknown_code_message(str(error.args[0]))) from None
    out.write("".join(f"{line}\n" for line in lines))
    return EXIT_OK


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
        "--json",
        action="store_true",
        help="print JSON (its JSON Schema: drafting-config schema)",
    )
    _add_color_option(parser)
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
        help="drop the findings of this code (repeatable; drafting-config rule --all lists "
        "the codes)",
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


def _add_color_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--color",
        choices=COLOR_CHOICES,
        default="auto",
        help="colour the text output: auto (the default: on a terminal, unless NO_COLOR is "
        "set; FORCE_COLOR forces it), always or never",
    )


def _add_engine_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--engine",
        action="append",
        choices=tuple(ENGINE_CHOICES),
        default=None,
        help="the engine the verdicts speak for: vllm (the default) or sglang, each the "
        "release installed here if the checker knows it, else its newest "
        f"({', '.join(ENGINE_NAMES.values())}); a release, such as {next(iter(RELEASES))}; "
        "every shipped release of one, such as 'vllm==*'; or all (each engine). Repeatable: "
        "one verdict per draft and release named; exit 0 only if all pass",
    )


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose usage errors (which quote the arguments) are written as one
    printable line, inert for a CI runner, as every other message on standard error."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, printable(f"{self.prog}: error: {message}") + "\n")


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """The epilog's lines kept; an option's help wrapped never at a hyphen, so that a
    command it names (``drafting-config rule --all``) stays whole, to copy."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        import textwrap  # noqa: PLC0415 - only help text is wrapped here

        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
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
        formatter_class=_HelpFormatter,  # keeps the epilog's lines
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
    launch = check_parser.add_mutually_exclusive_group()
    launch.add_argument(
        "--speculative-config",
        metavar="JSON",
        help="judge the draft as served with this vllm serve --speculative-config (a JSON "
        "object, or @FILE): its method, model, num_speculative_tokens and every key, by the "
        "release's own names",
    )
    launch.add_argument(
        "--sglang-args",
        metavar="ARGS",
        help="judge the draft as served with these SGLang speculative options (one string: "
        "'--speculative-algorithm DFLASH --speculative-draft-model-path ...', or @FILE); the "
        "engine is SGLang unless --engine says otherwise",
    )
    launch.add_argument(
        "--launch",
        metavar="COMMAND",
        help="judge the draft as served by this whole command line ('vllm serve TARGET "
        "--speculative-config ...' or 'python -m sglang.launch_server --model-path TARGET "
        "...'): its model is the target unless --target is given, and its engine the verdicts' "
        "unless --engine is given; an option the release does not know fails the check. "
        "@FILE reads the command from a file, as a shell reads a script (serve.sh beside "
        "config.json)",
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
        formatter_class=_HelpFormatter,
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

    rule_parser = commands.add_parser(
        "rule",
        help="what a finding's code means, its step, its fix and the engine code behind it",
        description="Say what each CODE means (the code of a finding, as check prints it): "
        "the step of the engine's load path it is about, how to fix it and the engine code "
        "behind it; --all lists every code.",
    )
    rule_parser.add_argument("codes", nargs="*", metavar="CODE", help="a finding's code")
    rule_parser.add_argument("--all", action="store_true", help="every code, by step")

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
            elif args.command == "rule":
                status = _run_rule(args, out)
            else:
                status = _run_schema(args, out)
        out.flush()
    except _UsageError as error:
        _say(f"drafting-config: error: {error}")
        status = EXIT_USAGE
    except BrokenPipeError:  # `drafting-config check ... | head`: the reader left
        _silence_stdout()
        status = EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        status = EXIT_INTERRUPTED
    except OSError as error:  # stdout closed, a full disk: the output could not be written
        _say(f"drafting-config: cannot write the output: {error}")
        status = EXIT_UNCHECKED
    except Exception as error:  # a bug of ours: say so in one line, never a traceback
        _say(
            f"drafting-config: internal error: {exception_text(error, kind=True)} "
            "(please report this, with the file that caused it)"
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
        args.engine = [settings.engine or _launch_engine(args)]
    if settings.require_parallel is not None and getattr(args, "require_parallel", None) is None:
        args.require_parallel = settings.require_parallel
    given = args.ignore or []
    bad = unknown_codes(given)
    if bad:
        raise _UsageError(
            f"--ignore: unknown code {', '.join(bad)} (drafting-config rule --all lists the codes)"
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
