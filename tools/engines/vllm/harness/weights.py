"""The weights stage's cases and readings: drafts loaded with a checkpoint by vLLM itself.

The construction readings (``readings.py``) stop before the weights: the dummy loader
builds the draft on the meta device. Here each case is a draft, its target, a mode and a
checkpoint: the draft's config and its target scaled down together
(``tools/harness/checkpoint.py``: ``shrink``), and a safetensors file of zeros
with the tensor names the draft's checkpoint has (the real file's header where the
fixture has one, scaled with the configs; otherwise the layout its trainer writes, at the
scaled sizes), with at most one fault injected (a tensor dropped, one added). The stage
runner (``--weights``) loads it through vLLM's own loader and reports the stage reached,
the error, and where the loaded draft's ``lm_head``, embedding and draft-to-target map
come from; and, whatever the weights do, what the built draft runs with (``running``: the
tapped layers and whether the draft named them, its RoPE and the target's, its per-layer
causality, the speculator's ``sample_from_anchor``).

    python -m tools.engines.vllm.harness.weights                  # the newest release, every case
    python -m tools.engines.vllm.harness.weights --release 0.33.0
    python -m tools.engines.vllm.harness.weights --only NAME...

The readings are ``weight_runs`` in ``tests/real_configs/vllm_weight_runs.json``, one list
per release; ``tests/tools/test_vllm_weight_runs.py`` holds them to the cases and compares
each with the checker's ``weights`` step, and each ``running`` reading with its
``layers-guessed``, ``rope-differs-from-target``, ``causality-assumed`` and
``sample-from-anchor-assumed``, on the same scaled files (:func:`lay_out` writes them,
without vLLM or torch).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Final

from tools.engines.vllm.harness.environment import RELEASES, ensure_environment, environment_key
from tools.engines.vllm.harness.harness import (
    DEFAULT_RELEASE,
    STAGE_RUNNER,
    STAGES,
    _environment,
)
from tools.engines.vllm.harness.readings import artefact
from tools.harness import process
from tools.harness import readings as _shared
from tools.harness.weight_cases import CASES, ROOT, WeightCase, case_digest, lay_out

__all__ = ["RUNS_FILE", "main", "run_many", "weight_runs"]

RUNS_FILE: Final = ROOT / "tests" / "real_configs" / "vllm_weight_runs.json"


def run_many(
    cases: Sequence[WeightCase], *, release: str = DEFAULT_RELEASE, timeout: float = 600.0
) -> Iterator[dict[str, Any]]:
    """The stage runner's report (``--weights``) for each case, in turn (one served
    process: vLLM imported once, a forked child per case)."""
    interpreter = ensure_environment(release)
    with tempfile.TemporaryDirectory(prefix="vllm-weights-") as scratch:
        requests = []
        for index, case in enumerate(cases):
            draft, target, weights = lay_out(case, Path(scratch) / f"case-{index}")
            fields = {
                "method": case.mode.method,
                "parallel_drafting": case.mode.parallel_drafting,
                "weights": str(weights),
            }
            requests.append((draft, target, fields))
        yield from process.run_served(
            [str(interpreter), str(STAGE_RUNNER), "--serve"],
            lambda folder: _environment(folder, interpreter, release),
            requests,
            prefix="vllm-harness-",
            timeout=timeout,
        )


ABOUT: Final = (
    "weight_runs: per vLLM release, what the released vLLM does when it loads a draft's "
    "checkpoint, run by tools/engines/vllm/harness/weights.py "
    "(python -m tools.engines.vllm.harness.weights "
    "--release VERSION) on this project's CPU-only machine: the draft and its target scaled "
    "down together (tools/harness/checkpoint.py), a safetensors file of zeros with "
    "the case's tensor names, loaded by vLLM's DefaultModelLoader through the speculator's "
    "load_model after the target is built on the meta device (stage weights). "
    "stage_reached: the stage that failed, else the last one run; exception: its type, "
    "first line and the innermost frame that raised; loaded: the draft's parameters the "
    "checkpoint did not write, where its lm_head and embedding come from (draft, target) "
    "and its draft-to-target map's shape; running: read back whatever the weights did, as"
    " the release's objects hold it: tapped_layers (the target's aux_hidden_state_layers)"
    " and layers_named (get_eagle3_aux_layers_from_config answered, else the target "
    "guessed), the rotary embedding the draft and the target were built with (draft_rope,"
    " target_rope: class, base, scaling), causal (the draft's get_draft_attn_causal, per "
    "layer) and the speculator's sample_from_anchor (null: the object holds none); "
    "artefact: why a failure is this machine's, not "
    "the draft's (as in vllm_readings.json); "
    "case_sha256: a hash of the scaled configs and the checkpoint's tensors (see "
    "weights.case_digest)."
)


def entry(case: WeightCase, result: dict[str, Any], *, release: str) -> dict[str, Any]:
    """One reading: the case, what it loaded, and what vLLM did."""
    return {
        "name": case.name,
        "draft": case.draft,
        "target": case.target,
        "mode": {"method": case.mode.method, "parallel_drafting": case.mode.parallel_drafting},
        "fault": case.fault,
        "case_sha256": case_digest(case),
        "vllm_version": result.get("vllm_version", release),
        "environment": environment_key(release),
        "outcome": result["outcome"],
        "stage_reached": _shared.stage_reached(result, STAGES),
        "stages_passed": list(result.get("stages_passed", [])),
        "exception": result.get("exception"),
        "draft_class": result.get("draft_class"),
        "loaded": result.get("weights"),
        "running": result.get("running"),
        "artefact": artefact(result),
    }


def weight_runs() -> dict[str, list[dict[str, Any]]]:
    """The recorded readings, per release (oldest first)."""
    document = json.loads(RUNS_FILE.read_text(encoding="utf-8"))
    runs: dict[str, list[dict[str, Any]]] = document["weight_runs"]
    return dict(sorted(runs.items(), key=lambda item: _version(item[0])))


def _version(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def record(cases: Sequence[WeightCase], *, release: str, timeout: float) -> None:
    """Run ``cases`` on ``release`` and write each reading as it comes."""
    document: dict[str, Any] = (
        json.loads(RUNS_FILE.read_text(encoding="utf-8")) if RUNS_FILE.exists() else {}
    )
    document["about"] = ABOUT
    per_release: dict[str, list[dict[str, Any]]] = document.setdefault("weight_runs", {})
    entries = {run["name"]: run for run in per_release.get(release, [])}
    order = {case.name: index for index, case in enumerate(CASES)}
    for case, result in zip(cases, run_many(cases, release=release, timeout=timeout), strict=False):
        entries[case.name] = entry(case, result, release=release)
        per_release[release] = sorted(entries.values(), key=lambda run: order[run["name"]])
        document["weight_runs"] = dict(sorted(per_release.items(), key=lambda i: _version(i[0])))
        _shared.write_document(RUNS_FILE, document)
        seconds = result.get("seconds", {})
        _shared.progress(f"{case.name} ({seconds})", entries[case.name])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.engines.vllm.harness.weights")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these cases")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per run")
    parser.add_argument("--release", choices=RELEASES, default=DEFAULT_RELEASE)
    args = parser.parse_args(argv)
    record(_shared.chosen(parser, CASES, args.only), release=args.release, timeout=args.timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
