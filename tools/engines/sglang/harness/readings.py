"""Record what SGLang 0.5.23 does with each corpus draft, in
``tests/real_configs/sglang_engine_runs.json``.

The maintainers' command (from the repository's root, with the development environment
active; the harness's own environment is built and cached on first use)::

    python -m tools.engines.sglang.harness.readings                 # every case
    python -m tools.engines.sglang.harness.readings --only NAME...  # some cases (names as listed)
    python -m tools.engines.sglang.harness.readings --list          # the cases and their algorithms

Runs go one at a time, each a fresh process forked from one that has imported SGLang and
configured nothing (``harness.run_many``; the imports, with the registry's import of every
model file, take one to three minutes here, once); the file is written after every run, so
an interrupted regeneration keeps what it has. Each reading records the inputs it ran on:
the paths and the sha256 of the draft's and the target's ``config.json`` bytes, the SGLang
version and the harness environment's key (a hash of its pinned requirements).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from tools.engines.sglang.harness.corpus import CASES, Case
from tools.engines.sglang.harness.environment import environment_key
from tools.engines.sglang.harness.harness import STAGES, run_many
from tools.harness import readings as _shared
from tools.harness.readings import sha256_of

__all__ = [
    "NOT_REACHED",
    "READINGS_FILE",
    "ROOT",
    "artefact",
    "engine_run_entry",
    "main",
    "sha256_of",
    "stage_reached",
]

ROOT: Final = Path(__file__).resolve().parents[4]
READINGS_FILE: Final = ROOT / "tests" / "real_configs" / "sglang_engine_runs.json"
NOT_REACHED: Final = (
    "draft worker set-up (mask token id, served tokenizer, shared embedding and lm_head)",
    "weights",
    "tokenizer",
    "attention back-ends",
    "KV cache",
    "forward pass",
)
"""What the harness never runs; the checker's rules stay the judge there."""

ABOUT: Final = (
    "What the released SGLang 0.5.23 itself does with each corpus draft, run by "
    "tools/engines/sglang/harness (python -m tools.engines.sglang.harness.readings "
    "regenerates this file) on "
    "this project's CPU-only machine, one fresh process per (draft, target, algorithm): "
    "ServerArgs and both ModelConfigs (stage config), get_model_architecture for the draft "
    "and the target (registry), the resolution pipeline with its speculative hook and "
    "resolve_spec_aux_hidden_state_config (pipeline), the target built on the meta device "
    "(target), configure_aux_hidden_state_capture on it (capture), the draft built on the "
    "meta device (draft). stage_reached: the stage that failed, else the last one run; "
    "exception: its type, first line, the next lines (detail) and the innermost frame that "
    "raised (where, relative to site-packages). speculative: the num_steps, eagle_topk and "
    "num_draft_tokens SGLang derived from the draft (none is passed). capture_layers: the "
    "layer ids the pipeline chose; captured: the target's layers_to_capture after the "
    "capture call, in its own indexing. failed_model: whose config a config or registry "
    "failure is about (target, draft, server arguments). skipped_classes: the draft's and "
    "target's architectures defined by a model file SGLang's registry could not import here "
    "(registry_skipped lists those files). artefact: why a "
    "failure is an artefact of this machine (a refusal or path only SGLang's CPU platform "
    "has, a stand-in called, a GPU kernel package), not a reading of the draft; null for a "
    "reading. inputs: sha256 of the draft's and target's config.json bytes, the SGLang "
    "version and the harness environment's key. target_synthesized: the target is no "
    "public config (tools/harness/corpus.py); a failure at target or capture on it is "
    "not a reading of the draft. not_reached: what the harness never runs."
)


def stage_reached(result: dict[str, Any]) -> str | None:
    """The stage that failed, else the last stage the run passed (None: none passed)."""
    return _shared.stage_reached(result, STAGES)


_CPU_REFUSALS: Final = ("CpuSRTPlatform", "only supports CUDA", "requires CUDA or")
_NO_CUDA: Final = ("Torch not compiled with CUDA enabled", "requires CUDA support")
_GPU_ONLY_MODULES: Final = (
    "vllm",
    "flashinfer",
    "flash_attn",
    "deep_gemm",
    "sgl_kernel",
    "cutlass",
)


def artefact(result: dict[str, Any]) -> str | None:
    """Why a failed run is an artefact of this machine, not a reading of the draft: a refusal
    only SGLang's CPU platform makes (``--device cpu``, or a CPU-platform path), a CUDA call
    the CPU torch cannot make, a model file the registry could not import here, a stand-in
    called, a GPU kernel package this machine cannot have. None for a reading."""
    exception = result.get("exception") or {}
    message = str(exception.get("message", ""))
    where = str(exception.get("where", ""))
    stage = result.get("failed_stage", result.get("stage_reached"))
    if exception and stage == "registry" and result.get("skipped_classes"):
        skipped = result["skipped_classes"]
        name = next(iter(skipped))
        return f"SGLang's model file for {name} does not import here ({skipped[name]})"[:300]
    if any(part in message for part in _CPU_REFUSALS) or "platforms/cpu" in where:
        return "a refusal or path only SGLang's CPU platform has"
    if where.startswith("torch/cuda/") or any(part in message for part in _NO_CUDA):
        return "a CUDA call the CPU torch cannot make"
    if "stand-in" in message:
        return "the run called a stand-in (torchvision or sgl_kernel), which cannot load here"
    if exception.get("type") == "ModuleNotFoundError":
        module = message.removeprefix("No module named ").strip("'")
        if module.split(".")[0] in _GPU_ONLY_MODULES:
            return f"the GPU kernel package {module!r} is not installed here"
    return None


_DETAILS: Final = (
    "draft_class",
    "target_class",
    "speculative",
    "capture_layers",
    "captured",
    "failed_model",
)
"""What the stage runner reports beyond the outcome, copied into the reading as it is (then
``skipped_classes``, ``{}`` when none)."""


def engine_run_entry(case: Case, result: dict[str, Any]) -> dict[str, Any]:
    """One reading: the case, its inputs and what the engine reported."""
    details = {key: result.get(key) for key in _DETAILS}
    details["skipped_classes"] = result.get("skipped_classes") or {}
    return _shared.reading(
        case,
        {"algorithm": case.algorithm, "device": result.get("device", "cuda")},
        result,
        inputs=_shared.inputs(
            ROOT,
            case.draft,
            case.target,
            version=("sglang_version", result.get("sglang_version", "0.5.23")),
            environment=environment_key(),
        ),
        stages=STAGES,
        details=details,
        artefact=artefact(result),
        not_reached=NOT_REACHED,
    )


def _load() -> dict[str, Any]:
    if not READINGS_FILE.is_file():
        return {"about": ABOUT, "engine_runs": []}
    document: dict[str, Any] = json.loads(READINGS_FILE.read_text(encoding="utf-8"))
    return document


def _write(document: dict[str, Any]) -> None:
    _shared.write_document(READINGS_FILE, document)


def record(cases: Sequence[Case], *, timeout: float) -> None:
    """Run ``cases`` one at a time and write each reading as soon as it is taken."""
    document = _load()
    document["about"] = ABOUT
    order = {case.draft: index for index, case in enumerate(CASES)}
    entries = {entry["draft"]: entry for entry in document.get("engine_runs", [])}
    results = run_many(
        ((ROOT / case.draft, ROOT / case.target, case.algorithm) for case in cases),
        timeout=timeout,
    )
    for case, result in zip(cases, results, strict=False):
        entry = engine_run_entry(case, result)
        entries[case.draft] = entry
        if result.get("registry_skipped") is not None:
            document["registry_skipped"] = result["registry_skipped"]
        known = sorted((draft for draft in entries if draft in order), key=order.__getitem__)
        document["engine_runs"] = [entries[draft] for draft in known]
        _write(document)
        _shared.progress(f"{case.name} [{case.algorithm}]", entry)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.engines.sglang.harness.readings")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these cases")
    parser.add_argument("--list", action="store_true", help="list the cases and algorithms")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per run")
    args = parser.parse_args(argv)
    if args.list:
        for case in CASES:
            print(f"{case.name}: {case.algorithm} (target {case.target})")
        return 0
    record(_shared.chosen(parser, CASES, args.only), timeout=args.timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
