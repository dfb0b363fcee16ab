"""The weights stage's readings for SGLang: the vLLM harness's weights cases loaded by SGLang.

The cases are the shared weights cases (:data:`tools.harness.weight_cases.CASES`:
a draft and its target scaled down together, a safetensors file of zeros with the draft's
tensor names, one fault at a time), each run with the algorithm SGLang serves its vLLM
method as (:data:`ALGORITHM`; the parallel-drafting cases are vLLM's switch and are left
out). The stage runner (``--weights``) walks the construction stages on the meta device,
then builds the draft on the CPU and loads the checkpoint with SGLang's own
``DefaultModelLoader``, and reports the parameters the checkpoint did not write,
``load_lm_head_from_target`` and the draft-to-target map it made from ``d2t``; and what
the built models run with (``running``: the layers the target captures and whether the
draft named them, both models' RoPE, the draft's per-layer causality, a DSpark draft's
``sample_from_anchor``).

    python -m tools.engines.sglang.harness.weights
    python -m tools.engines.sglang.harness.weights --only NAME...

The readings are ``weight_runs`` in ``tests/real_configs/sglang_weight_runs.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Final

from tools.engines.sglang.harness.environment import ensure_environment, environment_key
from tools.engines.sglang.harness.harness import STAGE_RUNNER, _environment, _niced
from tools.engines.sglang.harness.readings import artefact
from tools.engines.sglang.harness.stage_runner import WEIGHT_STAGES
from tools.harness import process
from tools.harness import readings as _shared
from tools.harness.weight_cases import CASES as ALL_CASES
from tools.harness.weight_cases import WeightCase, case_digest, lay_out

__all__ = ["ALGORITHM", "CASES", "RUNS_FILE", "main", "run_many", "weight_runs"]

ROOT: Final = Path(__file__).resolve().parents[4]
RUNS_FILE: Final = ROOT / "tests" / "real_configs" / "sglang_weight_runs.json"

ALGORITHM: Final = {
    "dflash": "DFLASH",
    "dspark": "DSPARK",
    "eagle3": "EAGLE3",
    "draft_model": "STANDALONE",
}
"""SGLang's ``--speculative-algorithm`` for each vLLM method of the cases."""

CASES: Final[tuple[WeightCase, ...]] = tuple(
    case for case in ALL_CASES if not case.mode.parallel_drafting
)
"""The cases SGLang runs: every sequential one (parallel drafting is vLLM's switch)."""


def run_many(cases: Sequence[WeightCase], *, timeout: float = 900.0) -> Iterator[dict[str, Any]]:
    """The stage runner's report (``--weights``) for each case, in turn (one served process)."""
    interpreter = ensure_environment()
    with tempfile.TemporaryDirectory(prefix="sglang-weights-") as scratch:
        requests = []
        for index, case in enumerate(cases):
            draft, target, weights = lay_out(case, Path(scratch) / f"case-{index}")
            fields = {
                "algorithm": ALGORITHM[case.mode.method],
                "device": "cuda",
                "weights": str(weights),
            }
            requests.append((draft, target, fields))
        yield from process.run_served(
            _niced([str(interpreter), str(STAGE_RUNNER), "--serve"]),
            _environment,
            requests,
            prefix="sglang-harness-",
            timeout=timeout,
        )


ABOUT: Final = (
    "weight_runs: what SGLang 0.5.23 does when it loads a draft's checkpoint, run by "
    "tools/engines/sglang/harness/weights.py "
    "(python -m tools.engines.sglang.harness.weights) on this "
    "project's CPU-only machine, on the cases of tools/engines/vllm/harness/weights.py: the "
    "construction stages on the meta device, then the draft built on the CPU and loaded "
    "by SGLang's DefaultModelLoader (stage weights). loaded: the draft's parameters the "
    "checkpoint did not write, load_lm_head_from_target and the shape of the hot_token_id "
    "map made from d2t; the draft worker's sharing of the target's embedding and head is "
    "not run. running: read back from the built target and draft whatever the weights did: "
    "captured (the target's layers_to_capture) and layers_named (the draft named them, "
    "else SGLang guessed), draft_rope and target_rope (class, base, scaling), causal (the "
    "draft's self_attn.attn_type per layer, DECODER is causal) and sample_from_anchor (the "
    "DSpark draft's; null: the model holds none). "
    "case_sha256: as in vllm_weight_runs.json."
)


def entry(case: WeightCase, result: dict[str, Any]) -> dict[str, Any]:
    """One reading: the case, what it loaded, and what SGLang did."""
    return {
        "name": case.name,
        "draft": case.draft,
        "target": case.target,
        "algorithm": ALGORITHM[case.mode.method],
        "fault": case.fault,
        "case_sha256": case_digest(case),
        "sglang_version": result.get("sglang_version"),
        "environment": environment_key(),
        "outcome": result["outcome"],
        "stage_reached": _shared.stage_reached(result, WEIGHT_STAGES),
        "stages_passed": list(result.get("stages_passed", [])),
        "exception": result.get("exception"),
        "draft_class": result.get("draft_class"),
        "loaded": result.get("weights"),
        "running": result.get("running"),
        "artefact": artefact(result),
    }


def weight_runs() -> list[dict[str, Any]]:
    """The recorded readings, in the order of :data:`CASES`."""
    runs: list[dict[str, Any]] = json.loads(RUNS_FILE.read_text(encoding="utf-8"))["weight_runs"]
    return runs


def record(cases: Sequence[WeightCase], *, timeout: float) -> None:
    """Run ``cases`` and write each reading as it comes."""
    document: dict[str, Any] = (
        json.loads(RUNS_FILE.read_text(encoding="utf-8")) if RUNS_FILE.exists() else {}
    )
    document["about"] = ABOUT
    entries = {run["name"]: run for run in document.get("weight_runs", [])}
    order = {case.name: index for index, case in enumerate(CASES)}
    for case, result in zip(cases, run_many(cases, timeout=timeout), strict=False):
        entries[case.name] = entry(case, result)
        document["weight_runs"] = sorted(entries.values(), key=lambda run: order[run["name"]])
        _shared.write_document(RUNS_FILE, document)
        _shared.progress(f"{case.name} ({result.get('seconds', {})})", entries[case.name])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.engines.sglang.harness.weights")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these cases")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per run")
    args = parser.parse_args(argv)
    record(_shared.chosen(parser, CASES, args.only), timeout=args.timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
