"""The checker's vLLM verdicts against the released vLLM's own runs (``engine_runs`` in
``tests/real_configs/vllm_readings.json``, one list per release, taken by
``tools/engines/vllm/harness``; the live share of CI re-runs a sample in
``tests/tools/test_vllm_harness.py``).

Each release that has readings *and* is shipped (:data:`COMPARED`, derived from
``drafting_config.engines.RELEASES``) is compared with the verdict of that release
(``engine="vllm==VERSION"``), for the stages its runs reached: readings of a release the
checker does not ship yet wait for it. Per run, in the mode the verdict judges: the verdict
is OK exactly when the engine passed every stage, and where both fail, one of the checker's
errors is about a step of the stage where the engine stopped (:func:`error_steps`, through
the errors' codes), except where a synthesized target decides the stage; :data:`STEP_GAPS`
lists the runs where a rule is still missing. A run in a mode the draft does not ask for (a
PARD draft run sequentially, where the release serves it in parallel) is not what any
verdict judges; where the release's verdict serves such a draft sequentially (``parallel``
false), the sequential run is the one it judges; a run of eagle3 or draft_model with
``parallel_drafting`` is judged by the verdict with ``require_parallel``. A failure on a
path only vLLM's CPU platform takes (``artefact``) is no reading. :data:`EXCEPTIONS` lists
every disagreement, each with the stage the harness cannot reach.
"""

from __future__ import annotations

from typing import Any, Final

import pytest

from drafting_config import Verdict, check
from drafting_config.draft.file import read_draft
from drafting_config.engines import RELEASES, Engine
from drafting_config.engines.vllm.modes import served_mode
from drafting_config.engines.vllm.resolution import resolution_of
from drafting_config.files.json_files import load_config_json
from drafting_config.values.codes import Step
from tests.serve_commands import vllm_config
from tools.engines.vllm.harness.readings import ROOT, engine_runs

ENGINE_RUNS: Final = engine_runs()
"""Every recorded reading, per vLLM release (its version)."""

COMPARED: Final[dict[str, Engine]] = {
    name.partition("==")[2]: name
    for name in RELEASES
    if name.startswith("vllm==") and name.partition("==")[2] in ENGINE_RUNS
}
"""The releases compared: recorded and shipped, each with the engine its verdicts name."""

RUNS: Final[list[tuple[str, dict[str, Any]]]] = [
    (release, run) for release in COMPARED for run in ENGINE_RUNS[release]
]

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
    "0.33.0:examples/invalid/pard-token-as-string[draft_model+parallel]": (
        "forward pass, not reached: the newer runner's get_parallel_drafting_token_id "
        "int()s the string '151665' (v1/worker/gpu/spec_decode/utils.py), the older "
        "runner's _init_parallel_drafting_params keeps it a str "
        "(v1/spec_decode/llm_base_proposer.py); the checker refuses the coercion"
    ),
    "0.33.0:examples/invalid/qwen3-dflash-fc-width[dflash]": (
        "weights, not reached (the dummy loader): the checkpoint's fc.weight is 80 wide "
        "where vLLM builds fc for 48; the weights stage fails there "
        "(vllm_weight_runs.json: qwen3-dflash-fc-width)"
    ),
    "0.34.0:examples/invalid/qwen3-dflash-fc-width[dflash]": (
        "weights, not reached (the dummy loader), as on 0.33.0: fc.weight is 80 wide where "
        "vLLM builds fc for 48; the weights stage fails there"
    ),
}
"""Every run where the verdict and the engine disagree, with why: the stage the harness
cannot reach, where the checker reads the files the engine would (keyed
``RELEASE:NAME[MODE]``)."""


def _id(item: tuple[str, dict[str, Any]]) -> str:
    release, run = item
    mode = run["mode"]
    parallel = "+parallel" if mode["parallel_drafting"] else ""
    return f"{release}:{run['name']}[{mode['method']}{parallel}]"


def _asks_parallel(release: str, run: dict[str, Any]) -> bool:
    draft = read_draft(load_config_json(ROOT / run["draft"]))
    return served_mode(resolution_of(draft), release).asks_parallel


def judged(release: str, run: dict[str, Any]) -> Verdict | None:
    """The verdict of ``release`` that judges the run's mode, or ``None`` when none does."""
    method, parallel = run["mode"]["method"], run["mode"]["parallel_drafting"]
    optional = method in ("eagle3", "draft_model")  # parallel only with the switch
    verdict = check(
        ROOT / run["draft"],
        target=ROOT / run["target"],
        engine=COMPARED[release],
        require_parallel=optional and parallel,
    )
    if optional and not parallel and _asks_parallel(release, run) and verdict.parallel is not False:
        return None  # the release drafts it in parallel: this run is another drafter
    return verdict


@pytest.mark.parametrize("item", RUNS, ids=_id)
def test_the_verdict_is_ok_exactly_when_the_engine_serves_the_draft(
    item: tuple[str, dict[str, Any]],
) -> None:
    release, run = item
    if run["artefact"] is not None:
        pytest.skip(f"no reading: {run['artefact']}")
    verdict = judged(release, run)
    if verdict is None:
        pytest.skip("a mode the draft does not ask for: no verdict judges it")
    served = run["outcome"] == "passed"
    if _id(item) in EXCEPTIONS:
        assert verdict.ok is not served, f"{_id(item)} agrees now: remove its exception"
        return
    assert verdict.ok is served, (run["exception"], [str(e) for e in verdict.errors])
    stage = run["stage_reached"]
    if served or (run["target_synthesized"] and stage in _TARGET_STAGES):
        return  # a synthesized target's own failure is no reading of the draft
    found = error_steps(verdict) & STAGE_STEPS[stage]
    if _id(item) in STEP_GAPS:
        assert not found, f"{_id(item)} names the engine's step now: remove its gap"
        return
    assert found, (stage, sorted(step.value for step in error_steps(verdict)))


_TARGET_STAGES: Final = frozenset({"target", "tap", "combine"})
"""The stages where a synthesized target's own sizes and classes decide (the issue's
"a failure at the target, tap or width stage on a synthesized target is not a reading of
the draft")."""

STEP_GAPS: Final[dict[str, str]] = {
    f"{release}:specforge--deepseek-v2-lite-dflash[dflash]": (
        "the run names method dflash; the draft names none (its dflash_config is empty, its "
        "class no vLLM drafter), so the checker judges it as PARD, refused for its missing "
        "token. Under dflash it names the engine's step: hf_config_override makes model_type "
        "deepseek_v3 DeepSeekMTPModel, renamed DFlashDeepSeekMTPModel, the engine's own "
        "words (tests/engines/vllm/test_load_path.py, MLA_DFLASH); the registry error on "
        "DeepseekDFlashDraftModel it gave before named a class vLLM never looks up"
    )
    for release in ("0.33.0", "0.34.0")
}
"""Runs where both fail but the checker's errors name no step of the stage where the engine
stopped: a rule the engine shows missing, each removed as it lands."""


def error_steps(verdict: Verdict) -> set[Step]:
    """The steps of the engine's load path the verdict's errors are about (their codes'): a
    verdict lists every certain failure, the engine stops at its first."""
    return {error.step for error in verdict.errors if error.step is not None}


def test_an_ok_verdict_names_the_mode_the_engine_ran() -> None:
    # The serve command of an OK verdict gives the --speculative-config the harness ran.
    for item in RUNS:
        release, run = item
        if run["outcome"] != "passed" or run["artefact"] is not None:
            continue
        verdict = judged(release, run)
        if verdict is None or not verdict.ok:
            continue
        config = vllm_config(verdict.serve_with)
        assert config["method"] == run["mode"]["method"], _id(item)
        switch = config.get("parallel_drafting", False)
        assert switch is run["mode"]["parallel_drafting"] or config["method"] in (
            "dflash",
            "dspark",
        ), _id(item)


def test_the_exceptions_are_runs_of_the_corpus() -> None:
    recorded = {_id((release, run)) for release, runs in ENGINE_RUNS.items() for run in runs}
    assert set(EXCEPTIONS) | set(STEP_GAPS) <= recorded


def test_the_releases_compared_are_those_recorded_and_shipped() -> None:
    shipped = {name.partition("==")[2] for name in RELEASES if name.startswith("vllm==")}
    assert list(COMPARED) == [release for release in ENGINE_RUNS if release in shipped]
    assert COMPARED  # at least one release is both: the comparison runs
    for release, engine in COMPARED.items():
        assert check(ROOT / RUNS[0][1]["draft"], engine=engine).engine.endswith(release)
