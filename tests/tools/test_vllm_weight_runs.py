"""What the released vLLM did when it loaded each weights case's checkpoint (``weight_runs``
in ``tests/real_configs/vllm_weight_runs.json``, taken by
``tools/engines/vllm/harness/weights.py``),
against the checker's ``weights`` step on the same scaled files.

These tests need no vLLM and no network: they hold each release's readings to the cases
(a changed case, config or checkpoint layout fails until they are taken again with
``python -m tools.engines.vllm.harness.weights --release VERSION``), and compare each reading with
the verdict of that release, where the checker ships it: the checker has an error at the
``weights`` step exactly when vLLM failed loading the checkpoint or left a parameter of the
draft unwritten by it (the draft then runs on whatever memory it was given); and each
reading of the state the built draft runs with (``running``: the tapped layers and whether
the draft named them, its RoPE beside the target's, its causality, ``sample_from_anchor``)
agrees with the checker's ``layers-guessed``, ``rope-differs-from-target``,
``causality-assumed`` and ``sample-from-anchor-assumed``. The live sample is
``test_the_engine_still_loads_the_sample_as_recorded`` (slow).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import pytest

from drafting_config import Verdict, check
from drafting_config.draft.file import read_draft
from drafting_config.engines import RELEASES as SHIPPED
from drafting_config.engines.vllm.modes import served_mode
from drafting_config.engines.vllm.resolution import resolution_of
from drafting_config.files.json_files import load_config_json
from drafting_config.values.codes import Step
from tests.package_index import unavailable
from tools.engines.vllm.harness.environment import RELEASES, HarnessUnavailable, environment_key
from tools.engines.vllm.harness.harness import STAGES
from tools.engines.vllm.harness.readings import artefact, engine_runs
from tools.engines.vllm.harness.weights import run_many, weight_runs
from tools.harness.checkpoint import read_header
from tools.harness.weight_cases import CASES, case_digest, lay_out, tensors_of

WEIGHT_RUNS: Final = weight_runs()
ENGINE_RUNS: Final = engine_runs()
RUNS: Final[list[tuple[str, dict[str, Any]]]] = [
    (release, run) for release, runs in WEIGHT_RUNS.items() for run in runs
]
BY_NAME: Final = {case.name: case for case in CASES}
COMPARED: Final = {
    name.partition("==")[2]: name
    for name in SHIPPED
    if name.startswith("vllm==") and name.partition("==")[2] in WEIGHT_RUNS
}
"""The releases whose readings are compared with a verdict: recorded and shipped."""

EXCEPTIONS: Final[dict[str, str]] = {}
"""Readings where the checker's weights step and the engine disagree, with why (keyed
``RELEASE:NAME``)."""


def _id(item: tuple[str, dict[str, Any]]) -> str:
    return f"{item[0]}:{item[1]['name']}"


def test_every_release_the_harness_runs_has_one_reading_per_case() -> None:
    assert list(WEIGHT_RUNS) == list(RELEASES)
    for runs in WEIGHT_RUNS.values():
        assert [run["name"] for run in runs] == [case.name for case in CASES]


@pytest.mark.parametrize("item", RUNS, ids=_id)
def test_a_reading_was_taken_on_the_case_as_it_is(item: tuple[str, dict[str, Any]]) -> None:
    release, run = item
    case = BY_NAME[run["name"]]
    # Change a case, its configs or its checkpoint's layout and this fails until the
    # readings are taken again.
    assert run["case_sha256"] == case_digest(case)
    assert (run["draft"], run["target"]) == (case.draft, case.target)
    assert run["vllm_version"] == release
    assert run["environment"] == environment_key(release)


@pytest.mark.parametrize("item", RUNS, ids=_id)
def test_a_reading_reached_the_weights_and_says_what_they_held(
    item: tuple[str, dict[str, Any]],
) -> None:
    release, run = item
    if _refused(release, run):
        # The release refuses the mode itself (0.34.0: parallel drafting only for dflash
        # and dspark), as its construction reading of the same draft and mode says.
        assert (run["outcome"], run["stage_reached"]) == ("failed", "config")
        return
    # Every case is built: its draft reaches the loader, and the stage that decides is weights.
    assert run["stage_reached"] == "weights"
    # The older runner (up to 0.33.0) builds the draft before it taps the target.
    assert {"config", "speculator", "target", "draft"} <= set(run["stages_passed"])
    assert run["stages_passed"] == [stage for stage in STAGES if stage in run["stages_passed"]] or (
        run["stages_passed"][-1] == "tap"  # the older runner taps after the draft
    )
    if run["outcome"] == "passed":
        assert run["exception"] is None
        assert run["loaded"] is not None
        assert run["loaded"]["lm_head"] in ("draft", "target")
    else:
        assert run["outcome"] == "failed", "a timeout or crash is no reading: run it again"
        assert run["exception"]["message"]
        assert run["loaded"] is None
    # A failure only this machine has (vllm._C, the CPU platform's paths) says so.
    assert run["artefact"] == artefact(run)


def _refused(release: str, run: dict[str, Any]) -> bool:
    """The construction reading of the same draft and mode (``vllm_readings.json``) failed
    at ``config``: the release does not take the mode at all."""
    return any(
        reading["draft"] == run["draft"]
        and reading["mode"] == run["mode"]
        and (reading["outcome"], reading["stage_reached"]) == ("failed", "config")
        for reading in ENGINE_RUNS[release]
    )


def _served_in_parallel(draft: Path, target: Path, release: str, scratch: Path) -> bool:
    """Whether ``release`` drafts the draft in parallel without being asked, as
    ``tests/engines/vllm/test_engine_verdicts.py`` (``judged``) tells it: the draft asks for
    it and the
    verdict of its config alone (no checkpoint, whose faults would leave ``parallel``
    unsaid) does not say sequential."""
    config = load_config_json(draft)
    if not served_mode(resolution_of(read_draft(config)), release).asks_parallel:
        return False
    alone = scratch / "config-only"
    alone.mkdir()
    shutil.copyfile(draft, alone / "config.json")
    return check(alone, target=target, engine=COMPARED[release]).parallel is not False


def _weights_errors(verdict: Verdict) -> list[str]:
    return [str(error) for error in verdict.errors if error.step == Step.WEIGHTS]


UNUSED_WHEN_UNWRITTEN: Final[dict[str, str]] = {
    "model.mask_embedding": (
        "vLLM's DFlash model reads it only with has_separate_mask_embedding, set when a "
        "mask_embedding.pt is loaded (qwen3_dflash.py: DFlashQwen3ForCausalLM.load_weights, "
        "DFlashQwen3Model.embed_input_ids); no case ships one"
    ),
}
"""Parameters the checkpoint need not write, because the draft never reads them unless
another file is loaded, with why."""


def engine_says_wrong(run: dict[str, Any]) -> bool:
    """vLLM failed loading the checkpoint, or loaded a draft that runs wrong: a parameter it
    reads left unwritten (it keeps the memory it was allocated with), or the target's
    ``lm_head`` read through a draft-vocabulary map (``llama_eagle3.py``:
    ``compute_logits`` scatters the head's first ``draft_vocab_size`` columns through
    ``draft_id_to_target_id``, which exists only when the draft's vocabulary is not the
    target's)."""
    if run["outcome"] == "failed":
        return True
    loaded = run["loaded"]
    unwritten = set(loaded["not_from_checkpoint"]) - set(UNUSED_WHEN_UNWRITTEN)
    shared_head_mapped = loaded["lm_head"] == "target" and loaded["d2t_shape"] is not None
    return bool(unwritten) or shared_head_mapped


COMPARED_RUNS: Final = [(release, run) for release, run in RUNS if release in COMPARED]


@pytest.mark.parametrize("item", COMPARED_RUNS, ids=_id)
def test_the_checkers_weights_step_agrees_with_what_the_engine_did(
    item: tuple[str, dict[str, Any]], tmp_path: Path
) -> None:
    release, run = item
    if run["artefact"] is not None:
        pytest.skip(f"no reading: {run['artefact']}")
    if _refused(release, run):
        pytest.skip("the release refuses the mode: the construction readings compare it")
    case = BY_NAME[run["name"]]
    draft, target, _ = lay_out(case, tmp_path)
    parallel = case.mode.parallel_drafting
    optional = case.mode.method in ("eagle3", "draft_model")  # parallel only with the switch
    verdict = check(
        draft.parent,
        target=target,
        engine=COMPARED[release],
        require_parallel=optional and parallel,
    )
    if optional and not parallel and _served_in_parallel(draft, target, release, tmp_path):
        # As tests/engines/vllm/test_engine_verdicts.py judges: the release drafts this draft in
        # parallel, so a sequential run is another drafter, which no verdict judges.
        pytest.skip("the release drafts it in parallel: the parallel case is compared")
    errors = _weights_errors(verdict)
    if _id(item) in EXCEPTIONS:
        assert bool(errors) is not engine_says_wrong(run), f"{_id(item)} agrees now"
        return
    assert bool(errors) is engine_says_wrong(run), (run["exception"], run["loaded"], errors)
    # No error at another step the weights run passes: the case's scaled files are right
    # but for the fault (the width of the tapped layers is the combine stage's, after).
    other = {error.step for error in verdict.errors if error.step != Step.WEIGHTS}
    assert other <= {Step.WIDTH}, [str(e) for e in verdict.errors]


def test_the_comparison_covers_both_outcomes_on_every_release_compared() -> None:
    assert COMPARED  # at least one release is both recorded and shipped
    for release in COMPARED:
        runs = [
            run
            for run in WEIGHT_RUNS[release]
            if run["artefact"] is None and not _refused(release, run)
        ]
        assert any(engine_says_wrong(run) for run in runs)
        assert any(not engine_says_wrong(run) for run in runs)
        assert any(run["outcome"] == "failed" for run in runs)


def test_a_case_with_a_fixture_checkpoint_keeps_its_tensor_names(tmp_path: Path) -> None:
    for case in CASES:
        if case.header is None:
            continue
        _, _, weights = lay_out(case, tmp_path / case.name)
        names = set(read_header(weights))
        expected = set(read_header(Path(__file__).parents[2] / case.header)) - set(case.drop)
        assert names == expected | {name for name, _, _ in case.add}


def _holds_anchor(reading: dict[str, Any]) -> bool:
    return reading.get("sample_from_anchor") is True


def _rope_class_differs(reading: dict[str, Any]) -> bool:
    draft, target = reading.get("draft_rope") or {}, reading.get("target_rope") or {}
    return bool(draft.get("class") != target.get("class"))


LIVE: Final = [
    (release, next(run for run in runs if (run["outcome"], run["stage_reached"]) == pair))
    for release, runs in WEIGHT_RUNS.items()
    for pair in (("failed", "weights"), ("passed", "weights"))
    if any((run["outcome"], run["stage_reached"]) == pair for run in runs)
] + [
    (release, next(run for run in runs if wanted(run.get("running") or {})))
    for release, runs in WEIGHT_RUNS.items()
    for wanted in (_holds_anchor, _rope_class_differs)
]
"""Per release, the first reading that failed loading and the first that loaded, and the
first whose speculator holds ``sample_from_anchor`` true and whose draft's RoPE class is not
the target's (the running state read back live)."""


@pytest.mark.slow
@pytest.mark.engine_wheels
@pytest.mark.parametrize("release", list(WEIGHT_RUNS))
def test_the_engine_still_loads_the_sample_as_recorded(release: str) -> None:
    sample = [run for rel, run in LIVE if rel == release]
    try:
        live = list(run_many([BY_NAME[run["name"]] for run in sample], release=release))
    except HarnessUnavailable as error:
        unavailable(f"the vLLM {release} harness's environment", str(error))
    for recorded, result in zip(sample, live, strict=True):
        assert result["outcome"] == recorded["outcome"], recorded["name"]
        assert result.get("weights") == recorded["loaded"]
        # What the built draft runs with, read back from the release's own objects.
        assert result.get("running") == recorded["running"], recorded["name"]
        if recorded["exception"] is not None:
            assert result["exception"]["message"] == recorded["exception"]["message"]


def test_a_construction_run_blamed_on_the_weights_fails_there_when_loaded() -> None:
    # tests/engines/vllm/test_engine_verdicts.py lists the construction runs that disagree with the
    # verdict because the dummy loader never reads the checkpoint; loaded, each fails at
    # the weights, as the checker says.
    from tests.engines.vllm.test_engine_verdicts import EXCEPTIONS as CONSTRUCTION_EXCEPTIONS

    blamed = [key for key, why in CONSTRUCTION_EXCEPTIONS.items() if why.startswith("weights")]
    assert blamed
    for key in blamed:
        release, _, rest = key.partition(":")
        draft = rest.partition("[")[0] + "/config.json"
        loaded = [
            run
            for run in WEIGHT_RUNS[release]
            if run["draft"] == draft
            and BY_NAME[run["name"]].header is not None
            and not (BY_NAME[run["name"]].drop or BY_NAME[run["name"]].add)
            and not BY_NAME[run["name"]].narrow
        ]
        assert loaded, f"{key}: no weights case loads its own checkpoint"
        assert all(run["stage_reached"] == "weights" for run in loaded)
        assert all(run["outcome"] == "failed" for run in loaded), key


# --- the state that decides running right, read back from the built draft -------------------

RUNNING_FIELDS: Final = ("layers", "rope", "causal", "sample_from_anchor")
"""The readings of ``running`` compared with the checker's findings, one comparison each."""

RUNNING_EXCEPTIONS: Final[dict[str, str]] = {
    "dspark-qwen3-8b:rope": (
        "the draft records no rope_theta, so vLLM builds its rotary embedding with the "
        "config class's default base (Qwen3Config: 10000) while the target records "
        "1000000; the checker compares a base only where both files record one "
        "(drafting_config/draft/rope.py: rope_difference) and says nothing"
    ),
    "dspark-qwen3-8b+fill-in:rope": "as dspark-qwen3-8b:rope (the same config but for the layout)",
}
"""Comparisons (``NAME:FIELD``, on every compared release) where the checker's finding and
the release's reading disagree, with why; each must still disagree."""


GUESS_CODES: Final = ("layers-guessed", "default-layers-mismatch")
"""The checker's findings that the engine taps layers it guessed: a note or warning, or the
guess failing outright at the layers step (``layers.py: default_layers_finding``)."""


def _coded(verdict: Verdict) -> dict[str, str]:
    """Each finding's code (errors, warnings, notes) and its text."""
    found = (*verdict.errors, *verdict.warnings, *verdict.notes)
    return {str(code): str(f) for f in found if (code := getattr(f, "code", None)) is not None}


def running_disagreements(run: dict[str, Any], verdict: Verdict) -> dict[str, str]:
    """Where the release's reading of the built draft (``running``) and the checker's
    findings on the same scaled files disagree, per field of :data:`RUNNING_FIELDS`:

    * ``layers``: the target taps layers the draft did not name (``layers_named`` false)
      exactly when the checker says ``layers-guessed`` (or ``default-layers-mismatch``,
      the guess failing outright), and its finding names the list tapped;
    * ``rope``: the draft's rotary embedding is not the target's (class, base, scaling)
      exactly when the checker says ``rope-differs-from-target`` (methods whose drafter
      runs at the target's positions only);
    * ``causal``: ``causality-assumed`` only where the draft reports per-layer causality
      and every layer runs non-causal, and never where it reports none;
    * ``sample_from_anchor``: ``sample-from-anchor-assumed`` only where the speculator
      holds true, and for a DSpark draft that records no ``sample_from_anchor`` always.
    """
    from drafting_config.engines.vllm.running import SHARES_POSITIONS

    reading, coded, method = run["running"], _coded(verdict), run["mode"]["method"]
    wrong: dict[str, str] = {}
    if reading["tapped_layers"] is not None:
        said = [coded[code] for code in GUESS_CODES if code in coded]
        if reading["layers_named"] == bool(said):
            wrong["layers"] = f"named {reading['layers_named']}, checker {sorted(coded)}"
        elif said and repr(reading["tapped_layers"]) not in said[0]:
            wrong["layers"] = f"tapped {reading['tapped_layers']}: {said[0]}"
    elif "layers-guessed" in coded and "tap" in run["stages_passed"]:
        wrong["layers"] = "the target taps nothing"
    if method in SHARES_POSITIONS and reading["draft_rope"] is not None:
        differs = reading["draft_rope"] != reading["target_rope"]
        if differs is not ("rope-differs-from-target" in coded):
            wrong["rope"] = f"{reading['draft_rope']} against {reading['target_rope']}"
    causal = reading["causal"]
    if "causality-assumed" in coded and not (causal and not any(causal)):
        wrong["causal"] = f"the draft's layers run causal {causal}"
    anchor = reading["sample_from_anchor"]
    noted = "sample-from-anchor-assumed" in coded
    recorded = "sample_from_anchor" in _draft_config(run)
    if (noted and anchor is not True) or (method == "dspark" and not recorded and not noted):
        wrong["sample_from_anchor"] = f"the speculator holds {anchor}"
    return wrong


def _draft_config(run: dict[str, Any]) -> dict[str, Any]:
    """The case's scaled draft config, its overrides included."""
    return tensors_of(BY_NAME[run["name"]])[0]


def _verdict_of(release: str, run: dict[str, Any], folder: Path) -> Verdict:
    case = BY_NAME[run["name"]]
    draft, target, _ = lay_out(case, folder)
    parallel = case.mode.parallel_drafting
    optional = case.mode.method in ("eagle3", "draft_model")
    return check(
        draft.parent,
        target=target,
        engine=COMPARED[release],
        require_parallel=optional and parallel,
    )


READ_BACK: Final = [
    (release, run)
    for release, run in COMPARED_RUNS
    if run.get("running") is not None and run["artefact"] is None and not _refused(release, run)
]
"""The compared readings that read back the built draft's state."""


@pytest.mark.parametrize("item", READ_BACK, ids=_id)
def test_the_checkers_running_findings_agree_with_the_built_draft(
    item: tuple[str, dict[str, Any]], tmp_path: Path
) -> None:
    release, run = item
    wrong = running_disagreements(run, _verdict_of(release, run, tmp_path))
    expected = {field for field in RUNNING_FIELDS if f"{run['name']}:{field}" in RUNNING_EXCEPTIONS}
    assert set(wrong) == expected, wrong


def test_every_reading_reads_back_the_running_state_and_covers_both_answers() -> None:
    for release, runs in WEIGHT_RUNS.items():
        built = [run for run in runs if "draft" in run["stages_passed"]]
        assert built
        # Every draft that was built was read back, whatever its weights did.
        assert all(run.get("running") is not None for run in built), release
        readings = [run["running"] for run in built]
        assert {r["layers_named"] for r in readings} >= {True, False}
        assert {r["draft_rope"] == r["target_rope"] for r in readings} == {True, False}
        assert any(r["causal"] and not any(r["causal"]) for r in readings)
        assert any(r["sample_from_anchor"] is True for r in readings)
    for key in RUNNING_EXCEPTIONS:
        assert key.partition(":")[0] in BY_NAME, key


def _agreeing(field: str) -> tuple[str, dict[str, Any]]:
    """A compared reading whose ``field`` agrees with the checker and can be planted wrong."""
    wanted: Callable[[dict[str, Any]], bool] = {
        "layers": lambda r: r["tapped_layers"] is not None and not r["layers_named"],
        "rope": lambda r: r["draft_rope"] != r["target_rope"],
        "causal": lambda r: bool(r["causal"]) and not any(r["causal"]),
        "sample_from_anchor": lambda r: r["sample_from_anchor"] is True,
    }[field]
    return next(
        (release, run)
        for release, run in READ_BACK
        if wanted(run["running"]) and f"{run['name']}:{field}" not in RUNNING_EXCEPTIONS
    )


PLANTED: Final[dict[str, Any]] = {
    "layers": lambda r: {**r, "layers_named": True},
    "rope": lambda r: {**r, "draft_rope": r["target_rope"]},
    "causal": lambda r: {**r, "causal": [True] * len(r["causal"])},
    "sample_from_anchor": lambda r: {**r, "sample_from_anchor": False},
}
"""A wrong reading of each field: what the comparison must catch."""


@pytest.mark.parametrize("field", RUNNING_FIELDS)
def test_a_wrong_reading_planted_in_a_run_is_caught(field: str, tmp_path: Path) -> None:
    release, run = _agreeing(field)
    verdict = _verdict_of(release, run, tmp_path)
    assert field not in running_disagreements(run, verdict)
    planted = {**run, "running": PLANTED[field](run["running"])}
    assert field in running_disagreements(planted, verdict)


def test_a_guessed_list_that_is_not_the_tapped_one_is_caught(tmp_path: Path) -> None:
    release, run = _agreeing("layers")
    verdict = _verdict_of(release, run, tmp_path)
    tapped = run["running"]["tapped_layers"]
    planted = {**run, "running": {**run["running"], "tapped_layers": [*tapped[:-1], 99]}}
    assert "layers" in running_disagreements(planted, verdict)
