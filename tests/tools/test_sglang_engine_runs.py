"""The checker's SGLang verdicts against SGLang 0.5.23's own runs
(``tests/real_configs/sglang_engine_runs.json``, taken by ``tools/engines/sglang/harness``; the live
share of CI re-runs a sample in ``tests/tools/test_sglang_harness.py``).

These tests need no network and no SGLang. They hold the readings to the files they were
taken on (a changed draft or target fails until the readings are regenerated with
``python -m tools.engines.sglang.harness.readings``) and compare each reading with the checker:
the verdict (``check(draft, target=..., engine="sglang")``) is OK exactly when SGLang passed
every stage, and where both fail, the step of the checker's first error is one the stage
where SGLang stopped covers (:data:`STAGE_STEPS`), except where a synthesized target
decides the stage. :data:`EXCEPTIONS` lists every disagreement of verdicts and
:data:`STEP_GAPS` every one of steps, with why; a failure only
this machine has (``artefact``), or a synthesized target's own, is no reading of the draft
(:func:`no_reading`).
"""

from __future__ import annotations

import json
from typing import Any, Final

import pytest

from drafting_config import Verdict, check
from drafting_config.values.codes import Step
from tools.engines.sglang.harness.corpus import CASES
from tools.engines.sglang.harness.harness import STAGES
from tools.engines.sglang.harness.readings import READINGS_FILE, ROOT, artefact, sha256_of

RUNS: list[dict[str, Any]] = json.loads(READINGS_FILE.read_text(encoding="utf-8"))["engine_runs"]

STAGE_STEPS: Final[dict[str, frozenset[Step]]] = {
    "config": frozenset({Step.PARSE}),
    "registry": frozenset({Step.REGISTRY}),
    # The pipeline parses the DFlash and DSpark blocks (parse_dflash_draft_config,
    # parse_dspark_draft_config) as it chooses the layers to capture.
    "pipeline": frozenset({Step.PARSE, Step.TOKEN, Step.LAYERS}),
    "target": frozenset({Step.TARGET}),
    "capture": frozenset({Step.TAP}),
    "draft": frozenset({Step.CONSTRUCTION}),
}
"""Each harness stage and the steps (``drafting_config.values.codes.Step``) it covers; the
width, the weights and the tokenizer are no stage of the harness."""

SYNTHESIZED_TARGET_STAGES: Final = frozenset({"target", "capture"})
"""The stages where a synthesized target's own sizes and classes decide (and ``config`` and
``registry`` where the target's config is the one that failed, ``failed_model``)."""


def no_reading(reading: dict[str, Any]) -> str | None:
    """Why ``reading`` says nothing about the draft, or None: an artefact of this machine, or
    a synthesized target's own failure (the issue's "a failure at the target, tap or width
    stage on a synthesized target is not a reading of the draft")."""
    if reading["artefact"] is not None:
        return str(reading["artefact"])
    if reading["target_synthesized"] and reading["outcome"] == "failed":
        if reading["stage_reached"] in SYNTHESIZED_TARGET_STAGES:
            return f"a synthesized target fails at {reading['stage_reached']}"
        if reading["failed_model"] == "target":
            return f"a synthesized target's config fails at {reading['stage_reached']}"
    return None


EXCEPTIONS: Final[dict[str, str]] = {}
"""Every reading where the verdict and SGLang disagree, with why."""

STEP_GAPS: Final[dict[str, str]] = {}
"""Readings where both fail but the checker's first error is about a step the stage where
SGLang stopped does not cover, each with why."""


def first_error_step(verdict: Verdict) -> Step | None:
    """The step of the verdict's first error (None: no error, or one with no step)."""
    return verdict.errors[0].step if verdict.errors else None


def disagreement(reading: dict[str, Any]) -> tuple[str, str] | None:
    """How the checker's SGLang verdict disagrees with ``reading`` (``"verdict"`` or
    ``"step"``, and the evidence), or None when it agrees: OK exactly when every stage
    passed, and where both fail, the first error's step one the stage where SGLang stopped
    covers (:func:`no_reading` says which readings are not compared)."""
    verdict = check(ROOT / reading["draft"], target=ROOT / reading["target"], engine="sglang")
    served = reading["outcome"] == "passed"
    errors = [str(error) for error in verdict.errors]
    if verdict.ok is not served:
        outcome = reading["outcome"]
        return "verdict", f"ok={verdict.ok}, SGLang {outcome}: {reading['exception']}, {errors}"
    stage = reading["stage_reached"]
    if served:
        return None
    step = first_error_step(verdict)
    if step not in STAGE_STEPS[stage]:
        return "step", f"SGLang stops at {stage}, the first error is about {step}: {errors[:1]}"
    return None


def _id(reading: dict[str, Any]) -> str:
    """A reading's name and algorithm, as the test ids and :data:`EXCEPTIONS` write it."""
    return f"{reading['name']}[{reading['algorithm']}]"


def test_the_stage_steps_name_every_stage_and_only_steps() -> None:
    assert set(STAGE_STEPS) == set(STAGES)
    assert all(isinstance(step, Step) for steps in STAGE_STEPS.values() for step in steps)


@pytest.mark.parametrize("reading", RUNS, ids=_id)
def test_a_reading_was_taken_on_the_files_as_they_are(reading: dict[str, Any]) -> None:
    # Edit a draft or a target and this fails until the readings are taken again.
    assert sha256_of(ROOT / reading["draft"]) == reading["inputs"]["draft_sha256"]
    assert sha256_of(ROOT / reading["target"]) == reading["inputs"]["target_sha256"]
    assert reading["inputs"]["sglang_version"] == "0.5.23"


def test_each_reading_is_of_a_case_in_the_cases_order_once() -> None:
    cases = {case.draft: case for case in CASES}
    order = [case.draft for case in CASES]
    drafts = [reading["draft"] for reading in RUNS]
    assert drafts == sorted(drafts, key=order.index)
    for reading in RUNS:
        case = cases[reading["draft"]]
        assert (reading["target"], reading["algorithm"]) == (case.target, case.algorithm)
        assert reading["target_synthesized"] is case.target_synthesized


@pytest.mark.parametrize("reading", RUNS, ids=_id)
def test_a_reading_says_where_the_engine_stopped_and_why(reading: dict[str, Any]) -> None:
    passed = reading["stages_passed"]
    assert passed == list(STAGES[: len(passed)])
    if reading["outcome"] == "passed":
        assert reading["exception"] is None
        assert passed == list(STAGES)
        assert reading["stage_reached"] == STAGES[-1]
    else:
        assert reading["outcome"] == "failed", "a timeout or crash is no reading: run it again"
        assert reading["stage_reached"] == STAGES[len(passed)]
        assert reading["exception"]["type"]
        assert reading["exception"]["message"] or reading["exception"]["where"]
    assert reading["artefact"] == artefact(reading)
    assert "weights" in reading["not_reached"]


@pytest.mark.parametrize("reading", RUNS, ids=_id)
def test_the_verdict_is_ok_exactly_when_sglang_serves_the_draft(reading: dict[str, Any]) -> None:
    reason = no_reading(reading)
    if reason is not None:
        pytest.skip(f"no reading of the draft: {reason}")
    assert_agrees(reading)


def assert_agrees(reading: dict[str, Any]) -> None:
    """The verdict agrees with ``reading``, or disagrees as :data:`EXCEPTIONS` or
    :data:`STEP_GAPS` say (and each of those still disagrees)."""
    found = disagreement(reading)
    name = _id(reading)
    kind = None if found is None else found[0]
    if name in EXCEPTIONS:
        assert kind == "verdict", f"{name}: remove its exception"
    elif name in STEP_GAPS:
        assert kind == "step", f"{name}: remove its gap"
    else:
        assert found is None, found


def test_the_exceptions_and_gaps_are_readings_of_the_corpus() -> None:
    names = {_id(reading) for reading in RUNS}
    assert set(EXCEPTIONS) <= names
    assert set(STEP_GAPS) <= names
    assert not set(EXCEPTIONS) & set(STEP_GAPS)
