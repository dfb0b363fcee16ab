"""The checker's vLLM verdicts against the released vLLM 0.33.0's own runs (``engine_runs``
in ``tests/real_configs/vllm_readings.json``, taken by ``tools/vllm_harness``; the live
share of CI re-runs a sample in ``tests/tools/test_vllm_harness.py``).

Per run, in the mode the verdict judges: the verdict is OK exactly when the engine passed
every stage, and where both fail, one of the checker's errors is about a step of the stage
where the engine stopped (:func:`error_steps`, through the errors' codes), except where a
synthesized target decides the stage; :data:`STEP_GAPS` lists the runs where a rule is
still missing.  A run in a mode the draft does not ask for (a PARD
draft run sequentially) is not what any verdict judges; a run of eagle3 or draft_model
with ``parallel_drafting`` is judged by the verdict with ``require_parallel``.  A failure
on a path only vLLM's CPU platform takes (``artefact``) is no reading.  :data:`EXCEPTIONS`
lists every disagreement, each with the stage the harness cannot reach.
"""

from __future__ import annotations

import json
from typing import Any, Final, cast

import pytest

from drafting_config import Verdict, check
from drafting_config.draft.file import read_draft
from drafting_config.engines.vllm.modes import served_mode
from drafting_config.engines.vllm.names import Release
from drafting_config.engines.vllm.resolution import resolution_of
from drafting_config.files.json_files import load_config_json
from drafting_config.values.codes import Step
from tools.vllm_harness.readings import READINGS_FILE, ROOT

RUNS: list[dict[str, Any]] = json.loads(READINGS_FILE.read_text(encoding="utf-8"))["engine_runs"]
READ_ON: Final = cast(
    Release,
    "vllm==" + str(json.loads(READINGS_FILE.read_text(encoding="utf-8"))["vllm_version"]),
)
"""The release the runs were taken on, which the verdicts compared with them speak for."""

STAGE_STEPS: Final[dict[str, frozenset[Step]]] = {
    "config": frozenset({Step.PARSE, Step.REGISTRY}),
    "speculator": frozenset({Step.TOKEN, Step.LAYERS}),
    "target": frozenset({Step.TARGET}),
    "tap": frozenset({Step.TAP}),
    "draft": frozenset({Step.CONSTRUCTION}),
    "combine": frozenset({Step.WIDTH}),
}
"""Each harness stage and the steps (``drafting_config.values.codes.Step``) it covers; the
weights and the tokenizer are no stage of the harness."""

EXCEPTIONS: Final[dict[str, str]] = {
    "examples/invalid/pard-token-as-string[draft_model+parallel]": (
        "forward pass, not reached: the newer runner's get_parallel_drafting_token_id "
        "int()s the string '151665' (v1/worker/gpu/spec_decode/utils.py), the older "
        "runner's _init_parallel_drafting_params keeps it a str "
        "(v1/spec_decode/llm_base_proposer.py); the checker refuses the coercion"
    ),
    "examples/invalid/qwen3-dflash-fc-width[dflash]": (
        "weights, not reached (the dummy loader): the checkpoint's fc.weight is 80 wide "
        "where vLLM builds fc for 48"
    ),
}
"""Every run where the verdict and the engine disagree, with why: the stage the harness
cannot reach, where the checker reads the files the engine would."""


def _id(run: dict[str, Any]) -> str:
    mode = run["mode"]
    return f"{run['name']}[{mode['method']}{'+parallel' if mode['parallel_drafting'] else ''}]"


def _asks_parallel(run: dict[str, Any]) -> bool:
    draft = read_draft(load_config_json(ROOT / run["draft"]))
    return served_mode(resolution_of(draft), READ_ON.removeprefix("vllm==")).asks_parallel


def judged(run: dict[str, Any]) -> Verdict | None:
    """The verdict that judges the run's mode, or ``None`` when none does."""
    method, parallel = run["mode"]["method"], run["mode"]["parallel_drafting"]
    optional = method in ("eagle3", "draft_model")  # parallel only with the switch
    if optional and not parallel and _asks_parallel(run):
        return None  # the draft asks for parallel drafting; this run is another drafter
    return check(
        ROOT / run["draft"],
        target=ROOT / run["target"],
        require_parallel=optional and parallel,
        engine=READ_ON,
    )


@pytest.mark.parametrize("run", RUNS, ids=_id)
def test_the_verdict_is_ok_exactly_when_the_engine_serves_the_draft(run: dict[str, Any]) -> None:
    if run["artefact"] is not None:
        pytest.skip(f"no reading: {run['artefact']}")
    verdict = judged(run)
    if verdict is None:
        pytest.skip("a mode the draft does not ask for: no verdict judges it")
    served = run["outcome"] == "passed"
    if _id(run) in EXCEPTIONS:
        assert verdict.ok is not served, f"{_id(run)} agrees now: remove its exception"
        return
    assert verdict.ok is served, (run["exception"], [str(e) for e in verdict.errors])
    stage = run["stage_reached"]
    if served or (run["target_synthesized"] and stage in _TARGET_STAGES):
        return  # a synthesized target's own failure is no reading of the draft
    found = error_steps(verdict) & STAGE_STEPS[stage]
    if _id(run) in STEP_GAPS:
        assert not found, f"{_id(run)} names the engine's step now: remove its gap"
        return
    assert found, (stage, sorted(step.value for step in error_steps(verdict)))


_TARGET_STAGES: Final = frozenset({"target", "tap", "combine"})
"""The stages where a synthesized target's own sizes and classes decide (the issue's
"a failure at the target, tap or width stage on a synthesized target is not a reading of
the draft")."""

STEP_GAPS: Final[dict[str, str]] = {}
"""Runs where both fail but the checker's errors name no step of the stage where the engine
stopped: a rule the engine shows missing, each removed as it lands."""


def error_steps(verdict: Verdict) -> set[Step]:
    """The steps of the engine's load path the verdict's errors are about (their codes'): a
    verdict lists every certain failure, the engine stops at its first."""
    return {error.step for error in verdict.errors if error.step is not None}


def test_an_ok_verdict_names_the_mode_the_engine_ran() -> None:
    # The serve_with of an OK verdict is the --speculative-config the harness ran.
    for run in RUNS:
        if run["outcome"] != "passed" or run["artefact"] is not None:
            continue
        verdict = judged(run)
        if verdict is None or not verdict.ok:
            continue
        config = json.loads(verdict.serve_with or "")
        assert config["method"] == run["mode"]["method"], _id(run)
        switch = config.get("parallel_drafting", False)
        assert switch is run["mode"]["parallel_drafting"] or config["method"] in (
            "dflash",
            "dspark",
        ), _id(run)


def test_the_exceptions_are_runs_of_the_corpus() -> None:
    assert set(EXCEPTIONS) | set(STEP_GAPS) <= {_id(run) for run in RUNS}
