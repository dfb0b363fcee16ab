"""Regenerate the engine's readings in ``tests/real_configs/vllm_readings.json``.

The maintainers' command (from the repository's root, with the development environment
active; the harness's own environment for the release is built and cached on first use)::

    python -m tools.engines.vllm.harness.readings                  # the newest release, every case
    python -m tools.engines.vllm.harness.readings --release 0.33.0 # another release it runs
    python -m tools.engines.vllm.harness.readings --only NAME...   # some cases (names as listed)
    python -m tools.engines.vllm.harness.readings --synthesize     # rewrite the synthesized targets
    python -m tools.engines.vllm.harness.readings --list           # the cases and their modes

Runs go one at a time (each is a fresh process of 25-60 s, CPU-heavy); the file is written
after every run, so an interrupted regeneration keeps what it has. The readings are the
``engine_runs`` of that file, one list per vLLM release (keyed by its version: 0.33.0's
kept beside 0.34.0's), one entry per (draft, mode), in the order of
:data:`tools.harness.corpus.CASES`, each with the stage it reached and the inputs it
ran on: the paths and the sha256 of the draft's and the target's ``config.json`` bytes,
the vLLM version and the harness environment's key (a hash of its pinned requirements).
Regenerating one release leaves the others' as they are, and the hand-traced
``readings`` list of the same file too.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Final

from tools.engines.vllm.harness.environment import RELEASES, ensure_environment, environment_key
from tools.engines.vllm.harness.harness import DEFAULT_RELEASE, STAGES, run_many
from tools.harness import readings as _shared
from tools.harness.corpus import CASES, SYNTHESIZED, SYNTHESIZED_DIR, Case, Mode
from tools.harness.readings import sha256_of

__all__ = [
    "NOT_REACHED",
    "READINGS_FILE",
    "ROOT",
    "artefact",
    "engine_run_entry",
    "engine_runs",
    "live_sample",
    "main",
    "sha256_of",
    "stage_reached",
    "synthesize_targets",
]

ROOT: Final = Path(__file__).resolve().parents[4]
READINGS_FILE: Final = ROOT / "tests" / "real_configs" / "vllm_readings.json"
SYNTHESIZER: Final = Path(__file__).with_name("synthesize_target.py")
NOT_REACHED: Final = ("weights", "tokenizer", "attention back-ends", "KV cache", "forward pass")
"""What the harness never runs; the checker's rules stay the judge there."""

ENGINE_RUNS_ABOUT: Final = (
    "engine_runs: per vLLM release (keyed by its version), what the released vLLM itself "
    "does with each draft, run by tools/engines/vllm/harness "
    "(python -m tools.engines.vllm.harness.readings "
    "--release VERSION regenerates one release's) on this "
    "project's CPU-only machine, one fresh process per (draft, target, mode) (a child "
    "forked from a process that has imported vLLM and configured nothing): "
    "EngineArgs(...).create_engine_config() (stage config), the speculator's set-up "
    "(speculator), the target built on the meta device by the dummy loader (target), "
    "set_eagle3_aux_hidden_state_layers (tap), the draft built on the meta device (draft), "
    "the draft's combine_hidden_states on a meta tensor as wide as the tapped layers "
    "(combine). stage_reached: the stage that failed, else the last one run; "
    "exception: its type, first line, the next lines (detail) and the innermost frame that "
    "raised (where, relative to site-packages). artefact: why the failure is an artefact of "
    "this machine (a path only vLLM's CPU platform takes, a GPU kernel package), not a "
    "reading of the draft (from 0.34.0 a kernel launched through the harness's CPU Triton "
    "stand-in would be one); null for a reading. inputs: sha256 of the "
    "draft's and target's config.json bytes, the vLLM version and the harness "
    "environment's key. target_synthesized: the target is no public config (see "
    "tools/harness/corpus.py); a failure at target, tap or combine on it is not a "
    "reading of the draft. not_reached: what the harness never runs (weights, tokenizer, "
    "attention back-ends, KV cache, a forward pass)."
)


def stage_reached(result: dict[str, Any]) -> str | None:
    """The stage that failed, else the last stage the run passed (None: none passed)."""
    return _shared.stage_reached(result, STAGES)


_CPU_ONLY: Final = ("vllm/platforms/cpu.py", "cpu_moe", "cpu_attn", "/cpu/")
_GPU_ONLY_MODULES: Final = ("cutlass", "triton", "flash_attn", "deep_gemm", "flashinfer", "vllm._C")


def artefact(result: dict[str, Any]) -> str | None:
    """Why a failed run is an artefact of this machine, not a reading of the draft: a path
    only vLLM's CPU platform takes (its MoE experts, its attention back-ends), or a GPU
    kernel package this machine cannot have. None for a reading."""
    exception = result.get("exception") or {}
    where = str(exception.get("where", ""))
    message = str(exception.get("message", ""))
    if any(part in where for part in _CPU_ONLY) or "not supported on CPU" in message:
        return "a path only vLLM's CPU platform takes"
    if "torchvision stand-in" in message:
        return "the run needs torchvision, whose wheels do not load against the CPU torch"
    if "'_OpNamespace' '_C' object has no attribute" in message:
        return "a compiled operator of vLLM's (vllm._C), which does not load against the CPU torch"
    if "triton stand-in" in message:
        return "the run launches a Triton kernel, and this machine has only a stand-in"
    if exception.get("type") == "ModuleNotFoundError":
        module = message.removeprefix("No module named ").strip("'")
        if module.split(".")[0] in _GPU_ONLY_MODULES or module in _GPU_ONLY_MODULES:
            return f"the GPU kernel package {module!r} is not installed here"
    return None


_DETAILS: Final = (
    "runner",
    "speculator",
    "target_class",
    "draft_class",
    "tapped_layers",
    "combine_width",
)
"""What the stage runner reports beyond the outcome, copied into the reading as it is."""


def engine_run_entry(
    case: Case, mode: Mode, result: dict[str, Any], *, release: str = DEFAULT_RELEASE
) -> dict[str, Any]:
    """One ``engine_runs`` entry of ``release``: the case, its inputs and what the engine
    reported."""
    return _shared.reading(
        case,
        {"mode": {"method": mode.method, "parallel_drafting": mode.parallel_drafting}},
        result,
        inputs=_shared.inputs(
            ROOT,
            case.draft,
            case.target,
            version=("vllm_version", result.get("vllm_version", release)),
            environment=environment_key(release),
        ),
        stages=STAGES,
        details={key: result.get(key) for key in _DETAILS},
        artefact=artefact(result),
        not_reached=NOT_REACHED,
    )


def _run_key(entry: dict[str, Any]) -> tuple[str, str, bool]:
    mode = entry["mode"]
    return (entry["draft"], mode["method"], bool(mode["parallel_drafting"]))


def _outcome(entry: dict[str, Any]) -> tuple[str | None, str]:
    return (entry["stage_reached"], entry["outcome"])


def live_sample(
    runs: Sequence[dict[str, Any]], *, earlier: Sequence[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """One reading per (stage reached, outcome) pair: what CI runs live.

    Of the readings with a pair, the first in the file's order whose target is public, else
    the first: a run on a public target reads the draft alone. With ``earlier`` (an older
    release's readings), only the readings that differ from that release's reading of the
    same draft and mode are sampled, and the passing ones (so that every stage is run on
    the newer release too): what the newer release changed, a few runs, where the older
    release's own sample covers the rest.
    """
    if earlier is not None:
        before = {_run_key(entry): _outcome(entry) for entry in earlier}
        runs = [
            entry
            for entry in runs
            if entry["outcome"] == "passed" or before.get(_run_key(entry)) != _outcome(entry)
        ]
    chosen: dict[tuple[str | None, str], dict[str, Any]] = {}
    for run_ in sorted(runs, key=lambda entry: bool(entry["target_synthesized"])):
        chosen.setdefault((run_["stage_reached"], run_["outcome"]), run_)
    order = {id(entry): index for index, entry in enumerate(runs)}
    return sorted(chosen.values(), key=lambda entry: order[id(entry)])


def synthesize_targets(
    names: Iterable[str] | None = None, *, release: str = RELEASES[0]
) -> list[Path]:
    """Write the synthesized target configs (all, or ``names``) with the classes of
    ``release``'s environment (its transformers)."""
    python = ensure_environment(release)
    folder = ROOT / SYNTHESIZED_DIR
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name in names if names is not None else SYNTHESIZED:
        completed = subprocess.run(
            [str(python), str(SYNTHESIZER)],
            input=json.dumps(SYNTHESIZED[name]),
            capture_output=True,
            text=True,
            check=False,
            env={"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PATH": "/usr/bin:/bin"},
        )
        if completed.returncode != 0:
            tail = completed.stderr.strip().splitlines()[-1:]
            print(f"{name}: not synthesized: {' '.join(tail)}", file=sys.stderr)
            continue
        path = folder / f"{name}.json"
        path.write_text(completed.stdout, encoding="utf-8")
        written.append(path)
    return written


def refresh(document: dict[str, Any]) -> None:
    """Recompute each reading's derived fields (its name, stage reached and artefact) from
    what it recorded, and the description, in place."""
    names = {case.draft: case.name for case in CASES}
    document["engine_runs_about"] = ENGINE_RUNS_ABOUT
    for entry in (run_ for runs in document.get("engine_runs", {}).values() for run_ in runs):
        entry["name"] = names.get(entry["draft"], entry["name"])
        if entry["outcome"] == "passed":
            passed = {"failed_stage": None, "stages_passed": entry["stages_passed"]}
            entry["stage_reached"] = stage_reached(passed)
        entry["artefact"] = artefact(entry)


def _load() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(READINGS_FILE.read_text(encoding="utf-8"))
    return document


def engine_runs() -> dict[str, list[dict[str, Any]]]:
    """The recorded readings, per vLLM release (its version), oldest release first."""
    runs: dict[str, list[dict[str, Any]]] = _load()["engine_runs"]
    return dict(sorted(runs.items(), key=lambda item: _version_key(item[0])))


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def _write(document: dict[str, Any]) -> None:
    _shared.write_document(READINGS_FILE, document)


def _ordered(entries: dict[tuple[str, str, bool], dict[str, Any]]) -> list[dict[str, Any]]:
    order = {
        (case.draft, mode.method, mode.parallel_drafting): index
        for index, (case, mode) in enumerate((c, m) for c in CASES for m in c.modes)
    }
    known = [key for key in entries if key in order]
    return [entries[key] for key in sorted(known, key=order.__getitem__)]


def record(cases: Sequence[Case], *, timeout: float, release: str = DEFAULT_RELEASE) -> None:
    """Run ``cases`` on ``release`` one at a time and write each reading as soon as it is
    taken, beside the other releases' readings."""
    document = _load()
    document["engine_runs_about"] = ENGINE_RUNS_ABOUT
    per_release: dict[str, list[dict[str, Any]]] = document.setdefault("engine_runs", {})
    entries = {_run_key(entry): entry for entry in per_release.get(release, [])}
    todo = [(case, mode) for case in cases for mode in case.modes]
    results = run_many(
        ((ROOT / case.draft, ROOT / case.target, mode) for case, mode in todo),
        timeout=timeout,
        release=release,
    )
    for (case, mode), result in zip(todo, results, strict=False):
        entry = engine_run_entry(case, mode, result, release=release)
        entries[_run_key(entry)] = entry
        per_release[release] = _ordered(entries)
        document["engine_runs"] = dict(
            sorted(per_release.items(), key=lambda item: _version_key(item[0]))
        )
        _write(document)
        _shared.progress(f"{case.name} [{mode.name}]", entry)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.engines.vllm.harness.readings")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these cases")
    parser.add_argument("--synthesize", action="store_true", help="rewrite synthesized targets")
    parser.add_argument("--list", action="store_true", help="list the cases and modes")
    parser.add_argument(
        "--refresh", action="store_true", help="recompute the readings' derived fields only"
    )
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per run")
    parser.add_argument(
        "--release",
        choices=RELEASES,
        default=DEFAULT_RELEASE,
        help=f"the vLLM release to run (default: the newest, {DEFAULT_RELEASE})",
    )
    args = parser.parse_args(argv)
    if args.list:
        for case in CASES:
            modes = ", ".join(mode.name for mode in case.modes)
            print(f"{case.name}: {modes} (target {case.target})")
        return 0
    if args.refresh:
        document = _load()
        refresh(document)
        _write(document)
        return 0
    if args.synthesize:
        for path in synthesize_targets(release=args.release):
            print(f"wrote {path.relative_to(ROOT)}")
        return 0
    record(_shared.chosen(parser, CASES, args.only), timeout=args.timeout, release=args.release)
    return 0


if __name__ == "__main__":
    sys.exit(main())
