"""The ``drafting-config`` command: check draft models offline, and render the verdicts.

Every decision is made by :func:`drafting_config.verdicts.check_many`; this module
parses arguments, renders :class:`~drafting_config.verdicts.Verdict`\\ s as text
or JSON, and maps them to an exit status.  ``check`` and ``explain`` build no
pydantic model and import neither torch nor transformers; only ``schema``
builds the model, and huggingface_hub is imported only for a repo id.

A large ``check`` sweep is spread over processes (:func:`_render_sweep`); its
output is the one process's, byte for byte.

Exit status: 0 all valid, 1 any invalid (or unreadable, or no path at all from
``-``), 2 usage error,
130 interrupted (Ctrl-C), 141 the output's reader went away (128 + SIGPIPE).
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import math
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Final, NamedTuple, TextIO, cast

from drafting_config import __version__
from drafting_config.draft.resolution import FieldStatus
from drafting_config.files.json_files import ConfigFileError
from drafting_config.files.repo_ids import DEFAULT_REVISION, RepoIdError, validate_revision
from drafting_config.values.errors import describe_value, exception_text
from drafting_config.values.fields import MISSING
from drafting_config.values.paths import display_path, output_errors
from drafting_config.values.sources import PRIORITY_ORDER
from drafting_config.verdicts import ENGINE_NAMES, VLLM_ENGINE, Engine, Verdict, check_many

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.context import ForkContext, SpawnContext
    from multiprocessing.process import BaseProcess

    from drafting_config.rules.checkpoint import WeightsFacts


EXIT_OK: Final = 0
EXIT_INVALID: Final = 1
EXIT_USAGE: Final = 2
EXIT_INTERRUPTED: Final = 130
"""128 + SIGINT, as shells report Ctrl-C."""
EXIT_BROKEN_PIPE: Final = 141
"""128 + SIGPIPE, as shells report a reader that went away (``... | head``)."""


class _UsageError(Exception):
    """A problem with the argument list (exit 2)."""


def verdict_json(verdict: Verdict, *, strict: bool = False) -> dict[str, object]:
    """The ``--json`` object of one verdict (documented in the README).

    ``ok`` is whether the draft passed, as the exit status counts it: with
    ``strict``, a verdict with warnings did not, and its warnings are listed in
    ``errors`` too (``"--strict: ..."``, field null), so ``error`` says why ``ok`` is
    false; ``token_id`` and ``source`` stay set, as the draft itself has no error.
    """
    resolution = verdict.resolution
    usable = verdict.token_id is not None and verdict.ok
    errors = [{"field": e.field, "message": _message(e, verdict)} for e in verdict.errors]
    if strict and verdict.ok:  # the warnings are what failed the check: list them as such
        errors += [{"field": None, "message": f"--strict: {w}"} for w in verdict.warnings]
    first = errors[0] if errors else None
    token = verdict.token
    return {
        "path": verdict.path,
        "engine": verdict.engine,
        "ok": _passed(verdict, strict),
        "token_id": verdict.token_id if usable else None,
        "source": verdict.token_source if usable else None,
        "shadowed": []
        if resolution is None or not usable or verdict.engine != VLLM_ENGINE
        else [{"source": f.source.value, "token_id": f.token_id} for f in resolution.shadowed],
        "hidden_size": None if resolution is None else resolution.hidden_size,
        "vocab_size": None if resolution is None else resolution.vocab_size,
        "format": None if resolution is None else resolution.format,
        "algorithm": verdict.algorithm,
        "aux_layer_ids": None if verdict.aux_layer_ids is None else list(verdict.aux_layer_ids),
        "aux_layer_source": verdict.aux_layer_source,
        "token": None
        if token is None
        else {"id": token.id, "kind": token.kind.value, "text": token.text},
        "target": verdict.target,
        "weights": _weights_json(verdict),
        "warnings": [str(w) for w in verdict.warnings],
        "notes": list(verdict.notes),
        "errors": errors,
        "error": None if first is None else first["message"],
        "error_field": None if first is None else first["field"],
    }


def _message(error: Exception, verdict: Verdict) -> str:
    """An error's text; the draft's own path, which the verdict shows already, left out.

    Only an error that kept the draft from being read is about the draft's path; once
    the draft is read, a file error is about the target's or the tokenizer's files,
    and its message keeps the path that says which.
    """
    if verdict.resolution is not None:
        return str(error)
    if isinstance(error, ConfigFileError):
        # The file's own path when it is not the argument: `DIR/config.json` is a directory.
        return error.problem if display_path(error.path) == verdict.path else str(error)
    return str(error).removeprefix(f"{verdict.path}: ")  # a repo id not cached, ...


def _passed(verdict: Verdict, strict: bool) -> bool:
    return verdict.ok and not (strict and verdict.warnings)


def _verdict_lines(  # noqa: PLR0912
    verdict: Verdict, strict: bool, indent: str = "    ", *, engines: int = 1
) -> list[str]:
    """The text rendering of one verdict: a headline, then details indented; with several
    ``engines``, the headline names the verdict's engine."""
    resolution = verdict.resolution
    name = verdict.path if verdict.path is not None else "<config>"
    if engines > 1:
        name = f"{name} [{verdict.engine}]"
    if not verdict.ok or resolution is None:
        lines = [f"{name}: INVALID: {_message(verdict.errors[0], verdict)}"]
        lines += [f"{indent}error: {_message(e, verdict)}" for e in verdict.errors[1:]]
    else:
        details = [
            f"{size_name} {size}"
            for size_name, size in (
                ("hidden_size", resolution.hidden_size),
                ("vocab_size", resolution.vocab_size),
            )
            if size is not None
        ]
        if resolution.format != "hf":
            details.insert(0, f"{resolution.format} {resolution.algorithm}")
        status = "OK" if _passed(verdict, strict) else "FAILED (--strict: warnings)"
        if verdict.engine != VLLM_ENGINE:
            details.insert(0, f"assumes {verdict.algorithm}")
        if verdict.token_id is None:  # SGLang: the served tokenizer's, or EAGLE3's none
            token_part = "token id from the served tokenizer at start-up"
            if verdict.algorithm == "EAGLE3":
                token_part = "no token id (sequential EAGLE3)"
        elif verdict.token_source == "tokenizer":
            token_part = f"token id {verdict.token_id} from the tokenizer"
        else:
            token_part = f"token id {verdict.token_id} from `{verdict.token_source}`"
        lines = [
            f"{name}: {status}: {token_part}" + (f" ({', '.join(details)})" if details else "")
        ]
        if resolution.shadowed and verdict.engine == VLLM_ENGINE:
            shadowed = ", ".join(f"`{f.source.value}` = {f.token_id}" for f in resolution.shadowed)
            lines.append(f"{indent}shadowed: {shadowed}")
        if verdict.token is not None:
            token = verdict.token
            text = "" if token.text is None else f" {token.text!r}"
            lines.append(f"{indent}token: {token.kind.value}{text}")
    if verdict.target is not None:
        lines.append(f"{indent}target: {verdict.target}")
    if verdict.weights is not None:
        lines.append(f"{indent}weights: {_weights_line(verdict.weights)}")
    lines += [f"{indent}warning: {w}" for w in verdict.warnings]
    lines += [f"{indent}note: {note}" for note in verdict.notes]
    return lines


def _weights_json(verdict: Verdict) -> dict[str, object] | None:
    weights = verdict.weights
    if weights is None:
        return None
    return {
        "files": list(weights.files),
        "tensors": weights.tensors,
        "architecture": weights.architecture,
        "embedding_rows": weights.embedding_rows,
        "fc_input_width": weights.fc_input_width,
        "layers": weights.layers,
    }


def _weights_line(weights: WeightsFacts) -> str:
    """``7 tensors in DIR/model.safetensors (qwen3_dflash: 2 layers, fc input 192)``."""
    files = weights.files
    where = files[0] if len(files) == 1 else f"{len(files)} files ({files[0]}, ...)"
    found = [f"{weights.layers} layers"] if weights.layers is not None else []
    if weights.embedding_rows is not None:
        found.append(f"embedding rows {weights.embedding_rows}")
    if weights.fc_input_width is not None:
        found.append(f"fc input {weights.fc_input_width}")
    row = weights.architecture or "architecture not checked"
    details = f"{row}: {', '.join(found)}" if found else row
    return f"{weights.tensors} tensors in {where} ({details})"


ENGINE_CHOICES: Final = {"vllm": ("vllm",), "sglang": ("sglang",), "all": ("vllm", "sglang")}
"""``--engine``: the engines each draft gets a verdict for, in this order."""


def _engines(args: argparse.Namespace) -> tuple[Engine, ...]:
    return cast("tuple[Engine, ...]", ENGINE_CHOICES[getattr(args, "engine", "vllm")])


def _check_all(paths: Sequence[str], args: argparse.Namespace) -> list[Verdict]:
    """One verdict per (draft, engine), the engines of each draft together."""
    per_engine = [
        check_many(
            paths,
            target=args.target,
            tokenizer=args.tokenizer,
            check_tokenizer=not args.no_tokenizer,
            check_weights=not args.no_weights,
            revision=args.revision,
            target_revision=args.target_revision,
            download=args.download,
            engine=engine,
        )
        for engine in _engines(args)
    ]
    return [verdict for verdicts in zip(*per_engine, strict=True) for verdict in verdicts]


def _tally(verdicts: Sequence[Verdict], strict: bool) -> tuple[int, bool]:
    """How many verdicts passed, and whether any names a malformed repo id or revision."""
    passed = sum(_passed(v, strict) for v in verdicts)
    return passed, any(isinstance(e, RepoIdError) for v in verdicts for e in v.errors)


def _status(checked: int, passed: int, bad_repo_id: bool) -> int:
    if bad_repo_id:
        return EXIT_USAGE  # a malformed repo id or revision: the argument list is wrong
    return EXIT_OK if passed == checked else EXIT_INVALID


class _Rendered(NamedTuple):
    """A sweep's (or one chunk's) output: one string per draft, and its tally."""

    items: list[str]
    passed: int
    bad_repo_id: bool


def _render(paths: Sequence[str], args: argparse.Namespace) -> _Rendered:
    """Check ``paths`` and render each verdict: a JSON item, or its text lines."""
    verdicts = _check_all(paths, args)
    if args.json:
        items = [_json_text(verdict_json(v, strict=args.strict)) for v in verdicts]
    else:
        engines = len(_engines(args))
        items = [
            "".join(f"{line}\n" for line in _verdict_lines(v, args.strict, engines=engines))
            for v in verdicts
        ]
    return _Rendered(items, *_tally(verdicts, args.strict))


PARALLEL_MINIMUM: Final = 1024
"""Sweeps of fewer drafts run in one process. A worker costs about 20 ms (its start, and
the pages of the parent it copies as it runs), which half of 512 drafts' checks (about
75 us each) does not repay: measured, 512 drafts took as long in two processes as in
one, 1,024 about 12% less, 2,048 about 25% less, 10,000 about 40% less."""
DRAFTS_PER_PROCESS: Final = 512
"""A sweep gets one process per this many drafts, up to ``--jobs`` and the CPUs."""


def _cpus() -> int:
    if hasattr(os, "sched_getaffinity"):  # the CPUs this process may run on (Linux)
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _render_sweep(paths: Sequence[str], args: argparse.Namespace) -> _Rendered:
    """:func:`_render` over ``paths``, split over processes when the sweep is large.

    The first chunk is rendered here, the others by worker processes (``fork`` on Linux,
    so that they inherit the imported package; else ``spawn``), each
    reading what its drafts share (a ``--target``, a ``--tokenizer``) once. The chunks
    are joined in order, so the output is the one process's, byte for byte.
    """
    processes = min(args.jobs or _cpus(), _cpus(), len(paths) // DRAFTS_PER_PROCESS)
    if len(paths) < PARALLEL_MINIMUM or processes < 2:
        return _render(paths, args)
    count = len(paths)
    chunks = [
        paths[count * i // processes : count * (i + 1) // processes] for i in range(processes)
    ]
    import multiprocessing  # noqa: PLC0415 (about 10 ms: only for a sweep that uses it)

    # fork on Linux only: macOS has it, but its system libraries are not safe to fork.
    if sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods():
        context: ForkContext | SpawnContext = multiprocessing.get_context("fork")
    else:
        context = multiprocessing.get_context("spawn")
    workers: list[tuple[BaseProcess, Connection]] = []
    try:
        with _sigint_blocked():  # a worker ignores Ctrl-C from its first instruction on
            for chunk in chunks[1:]:
                receiver, sender = context.Pipe(duplex=False)
                process = context.Process(target=_work, args=(chunk, args, sender), daemon=True)
                try:
                    process.start()
                finally:
                    sender.close()  # the worker's copy alone: its death is our end of file
                workers.append((process, receiver))
        parts = [_render(chunks[0], args)] + [_receive(*pair) for pair in workers]
    except BaseException:  # Ctrl-C, a worker's error or death: stop the others now
        for worker, _ in workers:
            worker.terminate()
        raise
    finally:
        for worker, receiver in workers:
            worker.join()
            receiver.close()
    return _Rendered(
        [item for part in parts for item in part.items],
        sum(part.passed for part in parts),
        any(part.bad_repo_id for part in parts),
    )


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the ``with`` block.

    A sweep builds many objects and few cycles, and its verdicts live until they are
    printed: collections would traverse them again and again and find almost nothing.
    The pause is global to the process, so only the command line, which owns its
    process, uses it; library calls leave the caller's collector alone.
    """
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


@contextmanager
def _sigint_blocked() -> Iterator[None]:
    """Hold back SIGINT while workers start: each inherits the mask, ignores SIGINT, then
    unblocks it; a Ctrl-C in between reaches this process once the block ends."""
    if not hasattr(signal, "pthread_sigmask"):  # Windows: no signal masks
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _work(paths: Sequence[str], args: argparse.Namespace, sender: Connection) -> None:
    """A worker: render ``paths`` and send the result (or the exception) back.

    Ctrl-C is ignored: the terminal sends it to the whole process group, and the main
    process, which alone reports it, stops the workers.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    try:
        sender.send(_render(paths, args))
    except Exception as error:  # a bug of ours: the main process reports it
        try:
            sender.send(error)
        except Exception:  # an exception that cannot be pickled: send its text
            sender.send(RuntimeError(exception_text(error, kind=True)))
    sender.close()


def _receive(worker: BaseProcess, receiver: Connection) -> _Rendered:
    """A worker's result; its exception raised here; an error if it died without one."""
    try:
        outcome = receiver.recv()
    except EOFError:
        worker.join()
        raise RuntimeError(
            f"a worker process ended (exit status {worker.exitcode}) without its verdicts"
        ) from None
    if isinstance(outcome, Exception):
        raise outcome
    return cast("_Rendered", outcome)


def _run_check(args: argparse.Namespace, out: TextIO) -> int:
    paths = _expand_stdin(args.paths, nul=args.null)
    rendered = _render_sweep(paths, args)
    # Written piece by piece, never as one string: when the reader leaves during one large
    # write (`... | head`), the kernel reports it partly done and CPython's buffered writer
    # drops the rest without a BrokenPipeError, so the run would exit 0, not 141.
    if args.json:
        for index, item in enumerate(rendered.items):
            out.write(("[" if index == 0 else ", ") + item)
        out.write("]\n" if rendered.items else "[]\n")
    else:
        for item in rendered.items:
            out.write(item)
        valid = rendered.passed
        engines = _engines(args)
        if engines == ("vllm",):  # the default: the summary of a single vLLM sweep
            summary = f"{len(paths)} checked"
        else:
            names = " and ".join(ENGINE_NAMES[engine] for engine in engines)
            summary = f"{len(paths)} checked with {names}"
        total = len(rendered.items)
        out.write(f"{summary}: {valid} valid, {total - valid} invalid\n")
    if not paths:  # `find ... | drafting-config check -` that found nothing: no CI pass
        print("drafting-config: no paths to check: standard input held none", file=sys.stderr)
        return EXIT_INVALID
    return _status(len(rendered.items), rendered.passed, rendered.bad_repo_id)


def _json_text(document: object) -> str:
    """``document`` as strict JSON: a ``NaN`` or infinity from a config (which Python's
    ``json``, transformers and vLLM all read) is written as the string ``"NaN"``,
    ``"Infinity"`` or ``"-Infinity"``, which strict parsers accept."""
    try:
        return _STRICT_JSON.encode(document)
    except ValueError:  # rare: walk the document only when it holds one
        return _STRICT_JSON.encode(_finite(document))


_STRICT_JSON: Final = json.JSONEncoder(allow_nan=False, check_circular=False)
"""One encoder for every document (``json.dumps`` with an option builds one per call); a
document is a tree built afresh by :func:`verdict_json`, so no cycle check."""


_NON_FINITE: Final = {math.inf: "Infinity", -math.inf: "-Infinity"}


def _finite(value: object) -> object:
    if isinstance(value, float) and not math.isfinite(value):
        return _NON_FINITE.get(value, "NaN")
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_finite(item) for item in value]
    return value


def _field_rows(verdict: Verdict) -> list[dict[str, object]]:
    resolution = verdict.resolution
    if resolution is None:
        return []
    return [
        {
            "rank": rank,
            "field": f.source.value,
            "value": None if f.value is MISSING else f.value,
            "status": f.status.value,
            "error": None if f.error is None else str(f.error),
        }
        for rank, f in enumerate(resolution.fields, 1)
    ]


def _shown(value: object) -> str:
    if value is MISSING:
        return "-"
    if value is None:
        return "null"
    return str(value) if type(value) is int else describe_value(value)


def _run_explain(args: argparse.Namespace, out: TextIO) -> int:
    (verdict,) = _check_all([args.path], args)
    if args.json:
        document = {**verdict_json(verdict, strict=args.strict), "fields": _field_rows(verdict)}
        out.write(_json_text(document) + "\n")
        return _status(1, *_tally([verdict], args.strict))
    lines = [verdict.path or "<config>"]
    resolution = verdict.resolution
    if resolution is not None and resolution.fields:
        header = ("rank", "field", "value", "status")
        rows = [header] + [
            (str(rank), f.source.value, _shown(f.value), f.status.value)
            for rank, f in enumerate(resolution.fields, 1)
        ]
        widths = [max(len(row[i]) for row in rows) for i in range(len(header) - 1)]
        lines += [
            "  " + "".join(c.ljust(w + 2) for c, w in zip(row, widths, strict=False)) + row[-1]
            for row in rows
        ]
    detail = _verdict_lines(verdict, args.strict, indent="    ")
    lines.append("  " + detail[0].removeprefix(f"{verdict.path or '<config>'}: "))
    lines += ["  " + line.strip() for line in detail[1:]]
    out.write("\n".join(lines) + "\n")
    return _status(1, *_tally([verdict], args.strict))


def _run_schema(out: TextIO) -> int:
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


def _add_model_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--json", action="store_true", help="print JSON (the shape is in the README)"
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
        "--strict", action="store_true", help="fail (exit 1) on any warning too, for CI"
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
        "--download",
        action="store_true",
        help="fetch config.json and tokenizer files of ORG/NAME models into the Hugging Face "
        "cache first (never weights or code; honours HF_TOKEN and HF_ENDPOINT)",
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
        help=f"spread a sweep of {PARALLEL_MINIMUM} drafts or more over at most N processes "
        "(default: one per CPU; 1: a single process); the output is the same",
    )
    check_parser.add_argument(
        "--engine",
        choices=tuple(ENGINE_CHOICES),
        default="vllm",
        help="the engine the verdicts speak for: vllm (0.33.0, the default), sglang "
        "(0.5.23), or all (one verdict per draft and engine; exit 0 only if all pass)",
    )
    _add_model_options(check_parser)

    explain_parser = commands.add_parser(
        "explain",
        help=f"show the {len(PRIORITY_ORDER)} token-id fields of one draft and why one wins",
        description=(
            f"Show the {len(PRIORITY_ORDER)} token-id fields of PATH in priority order, each "
            f"with its value and status ({', '.join(status.value for status in FieldStatus)}), "
            "then the verdict."
        ),
    )
    explain_parser.add_argument("path", metavar="PATH")
    _add_model_options(explain_parser)

    commands.add_parser(
        "schema",
        help="print the JSON Schema of ParallelDraftingConfig",
        description="Print the JSON Schema of ParallelDraftingConfig.",
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
        return EXIT_INVALID
    if isinstance(out, io.TextIOWrapper):
        # Paths are escaped already; anything else the encoding lacks prints as a \u escape
        # that parse_display_path reads back, never an error.
        out.reconfigure(errors=output_errors())
    try:
        with _collector_paused():  # the verdicts live until they are printed: nothing to collect
            if args.command == "check":
                status = _run_check(args, out)
            elif args.command == "explain":
                status = _run_explain(args, out)
            else:
                status = _run_schema(out)
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
        status = EXIT_INVALID
    except Exception as error:  # a bug of ours: say so in one line, never a traceback
        print(
            f"drafting-config: internal error: {exception_text(error, kind=True)} "
            "(please report this, with the file that caused it)",
            file=sys.stderr,
        )
        status = EXIT_INVALID
    return status


def _silence_stdout() -> None:
    # Python flushes stdout again at exit; point it at devnull so that flush
    # cannot raise a second BrokenPipeError with a traceback.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real stdout (tests capture it)
        pass
