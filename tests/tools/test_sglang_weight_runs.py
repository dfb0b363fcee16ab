"""What SGLang did when it loaded each weights case's checkpoint (``weight_runs`` in
``tests/real_configs/sglang_weight_runs.json``, taken by
``tools/engines/sglang/harness/weights.py``),
against the checker's SGLang verdict on the same scaled files.

Where the checker models the draft's class (``drafting_config.engines.sglang.weights``:
the EAGLE-3 heads), its ``weights`` step has an error exactly where SGLang failed loading or
left a parameter it reads unwritten, and a warning where SGLang loaded a reduced vocabulary
without a draft-to-target map. Elsewhere the verdict says the weights were not checked
(``weights-not-modelled``), and :data:`NOT_MODELLED_WRONG` lists the readings where SGLang
shows that note hides a fault: a rule still to write, each removed as it lands.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

import pytest

from drafting_config import Verdict, check
from drafting_config.engines.sglang.weights import MODELLED_CLASSES
from drafting_config.values import codes
from drafting_config.values.codes import Step
from drafting_config.values.findings import Note
from tests.package_index import unavailable
from tools.engines.sglang.harness.environment import HarnessUnavailable, environment_key
from tools.engines.sglang.harness.stage_runner import WEIGHT_STAGES
from tools.engines.sglang.harness.weights import ALGORITHM, CASES, run_many, weight_runs
from tools.harness.weight_cases import case_digest, lay_out, tensors_of

RUNS: Final = weight_runs()
BY_NAME: Final = {case.name: case for case in CASES}

NOT_MODELLED_WRONG: Final[dict[str, str]] = {
    "qwen3-dflash-fc-width": (
        "SGLang's DFlash loader refuses the 5-tap fc.weight ('DFLASH fc.weight shape "
        "mismatch'); the checker does not model SGLang's DFlash loader"
    ),
    "dflash-qwen3-4b-no-fc": (
        "SGLang's DFlash draft keeps fc.weight unwritten; not modelled for DFlash"
    ),
    "torchspec--qwen3_8b_dflash+fc-for-3-taps": (
        "SGLang's DFlash loader refuses an fc.weight 3 taps wide where the draft names no "
        "layers and SGLang builds fc for its 5 ('DFLASH fc.weight shape mismatch')"
    ),
    "pard-llama3-1b-no-embedding": (
        "SGLang's standalone Llama draft keeps embed_tokens unwritten; not modelled for STANDALONE"
    ),
}
"""Readings of classes the checker does not model where SGLang shows a fault, with what."""


def _replaced(run: dict[str, Any]) -> set[str]:
    """The parameters SGLang's EAGLE worker replaces with the target's after loading
    (``srt/speculative/eagle_worker_v2.py``: ``EAGLEWorkerV2.init_lm_head``: ``set_embed``
    always, ``set_embed_and_head`` when ``load_lm_head_from_target``)."""
    if run["algorithm"] != "EAGLE3":
        return set()
    replaced = {"model.embed_tokens.weight"}
    if run["loaded"]["load_lm_head_from_target"]:
        replaced.add("lm_head.weight")
    return replaced


def engine_says_wrong(run: dict[str, Any]) -> bool:
    """SGLang failed loading, or left a parameter the draft reads unwritten."""
    if run["outcome"] == "failed":
        return True
    return bool(set(run["loaded"]["not_from_checkpoint"]) - _replaced(run))


def engine_says_maybe_wrong(run: dict[str, Any], draft: dict[str, Any]) -> bool:
    """SGLang loaded an EAGLE-3 head with a reduced vocabulary and no draft-to-target map
    (``hot_token_id``): its ids are taken as the target's, right only if the reduced
    vocabulary is the target's first rows."""
    vocab, reduced = draft.get("vocab_size"), draft.get("draft_vocab_size")
    return (
        run["outcome"] == "passed"
        and run["algorithm"] == "EAGLE3"
        and run["loaded"]["hot_token_id_shape"] is None
        and isinstance(reduced, int)
        and isinstance(vocab, int)
        and reduced < vocab
    )


def test_one_reading_per_case_taken_on_the_case_as_it_is() -> None:
    assert [run["name"] for run in RUNS] == [case.name for case in CASES]
    for run in RUNS:
        case = BY_NAME[run["name"]]
        assert run["case_sha256"] == case_digest(case), run["name"]
        assert run["algorithm"] == ALGORITHM[case.mode.method]
        assert run["environment"] == environment_key()
        assert run["stage_reached"] == WEIGHT_STAGES[-1], "every case reaches the weights"
        assert run["artefact"] is None
        assert (run["exception"] is None) is (run["outcome"] == "passed")
        assert (run["loaded"] is None) is (run["outcome"] == "failed")


def _weights(verdict: Verdict) -> tuple[list[str], list[str], list[str]]:
    """The verdict's errors and warnings at the ``weights`` step, and its notes' codes."""
    errors = [str(e) for e in verdict.errors if e.step == Step.WEIGHTS]
    warnings = [str(w) for w in verdict.warnings if w.step == Step.WEIGHTS]
    notes = [
        note.code.name for note in verdict.notes if isinstance(note, Note) and note.code is not None
    ]
    return errors, warnings, notes


@pytest.mark.parametrize("run", RUNS, ids=lambda run: run["name"])
def test_the_checkers_sglang_weights_agree_with_what_sglang_did(
    run: dict[str, Any], tmp_path: Path
) -> None:
    draft_path, target, _ = lay_out(BY_NAME[run["name"]], tmp_path)
    verdict = check(draft_path.parent, target=target, engine="sglang")
    errors, warnings, notes = _weights(verdict)
    if run["draft_class"] in MODELLED_CLASSES and run["algorithm"] == "EAGLE3":
        draft = json.loads(draft_path.read_text(encoding="utf-8"))
        assert bool(errors) is engine_says_wrong(run), (run["loaded"], errors)
        assert bool(warnings) is engine_says_maybe_wrong(run, draft), (run["loaded"], warnings)
        assert run["name"] not in NOT_MODELLED_WRONG
        return
    assert errors == []
    assert codes.WEIGHTS_NOT_MODELLED.name in notes  # the verdict says it did not look
    assert engine_says_wrong(run) is (run["name"] in NOT_MODELLED_WRONG)


def test_the_comparison_covers_a_fault_and_a_clean_load_of_a_modelled_class() -> None:
    modelled = [run for run in RUNS if run["draft_class"] in MODELLED_CLASSES]
    assert any(engine_says_wrong(run) for run in modelled)
    assert any(not engine_says_wrong(run) for run in modelled)


@pytest.mark.slow
@pytest.mark.engine_wheels
def test_sglang_still_loads_the_sample_as_recorded() -> None:
    sample = [
        next(run for run in RUNS if run["outcome"] == "failed"),
        next(run for run in RUNS if run["draft_class"] in MODELLED_CLASSES),
        # The running state read back live: a DSpark draft's sample_from_anchor.
        next(run for run in RUNS if (run.get("running") or {}).get("sample_from_anchor")),
    ]
    try:
        live = list(run_many([BY_NAME[run["name"]] for run in sample]))
    except HarnessUnavailable as error:
        unavailable("the SGLang harness's environment", str(error))
    for recorded, result in zip(sample, live, strict=True):
        assert result["outcome"] == recorded["outcome"], recorded["name"]
        assert result.get("weights") == recorded["loaded"]
        # What the built models run with, read back from SGLang's own objects.
        assert result.get("running") == recorded["running"], recorded["name"]
        if recorded["exception"] is not None:
            assert result["exception"]["message"] == recorded["exception"]["message"]


# --- the state that decides running right, read back from the built models -----------------

RUNNING_FIELDS: Final = ("layers", "rope", "causal", "sample_from_anchor")
"""The readings of ``running`` compared with the checker's findings, one comparison each."""

SHARES_POSITIONS: Final = frozenset({"EAGLE3", "DFLASH", "DSPARK"})
"""SGLang's algorithms whose drafter runs at its target's positions (the RoPE compared)."""

RUNNING_EXCEPTIONS: Final[dict[str, str]] = {
    "dspark-qwen3-8b:rope": (
        "the draft records no rope_theta, so SGLang builds its rotary embedding with the "
        "config class's default base (Qwen3Config: 10000) while the target records "
        "1000000; the checker compares a base only where both files record one "
        "(drafting_config/draft/rope.py: rope_difference) and says nothing"
    ),
    "dspark-qwen3-8b+fill-in:rope": "as dspark-qwen3-8b:rope (the same config but the layout)",
}
"""Comparisons (``NAME:FIELD``) where the checker's findings and SGLang's reading disagree,
with why; each must still disagree."""


def _coded(verdict: Verdict) -> dict[str, str]:
    """Each finding's code (errors, warnings, notes) and its text."""
    found = (*verdict.errors, *verdict.warnings, *verdict.notes)
    return {str(code): str(f) for f in found if (code := getattr(f, "code", None)) is not None}


def running_disagreements(run: dict[str, Any], verdict: Verdict) -> dict[str, str]:
    """Where SGLang's reading of the built models (``running``) and the checker's findings on
    the same scaled files disagree, per field of :data:`RUNNING_FIELDS`:

    * ``layers``: the target captures layers the draft did not name exactly when the
      checker says ``layers-guessed``, naming the list captured;
    * ``rope``: the draft's rotary embedding is not the target's (class, base, scaling)
      exactly when the checker says ``rope-differs-from-target``;
    * ``causal``: the checker warns that recorded causality is not honoured
      (``causality-assumed`` as a warning) only where a layer runs non-causal, notes it
      assumed only where every layer does, and says nothing where the draft reports none;
    * ``sample_from_anchor``: ``sample-from-anchor-assumed`` only where the DSpark draft
      holds true, and always where it records none.
    """
    reading, coded, algorithm = run["running"], _coded(verdict), run["algorithm"]
    wrong: dict[str, str] = {}
    if reading["captured"] is not None:
        said = coded.get("layers-guessed")
        if reading["layers_named"] == (said is not None):
            wrong["layers"] = f"named {reading['layers_named']}, checker {sorted(coded)}"
        elif said is not None and repr(reading["captured"]) not in said:
            wrong["layers"] = f"captured {reading['captured']}: {said}"
    elif "layers-guessed" in coded:
        wrong["layers"] = "the target captures nothing"
    if algorithm in SHARES_POSITIONS and reading["draft_rope"] is not None:
        differs = reading["draft_rope"] != reading["target_rope"]
        if differs is not ("rope-differs-from-target" in coded):
            wrong["rope"] = f"{reading['draft_rope']} against {reading['target_rope']}"
    causal, warned = reading["causal"], _warned(verdict, "causality-assumed")
    if "causality-assumed" in coded:
        if causal is None:
            wrong["causal"] = "the draft reports no causality"
        elif warned and all(causal):
            wrong["causal"] = f"warned not honoured, but every layer runs causal {causal}"
        elif not warned and any(causal):
            wrong["causal"] = f"noted non-causal, but layers run causal {causal}"
    anchor = reading["sample_from_anchor"]
    said_anchor = "sample-from-anchor-assumed" in coded
    recorded = "sample_from_anchor" in tensors_of(BY_NAME[run["name"]])[0]
    if (said_anchor and anchor is not True) or (
        algorithm == "DSPARK" and not recorded and not said_anchor
    ):
        wrong["sample_from_anchor"] = f"the draft holds {anchor}"
    return wrong


def _warned(verdict: Verdict, code: str) -> bool:
    return any(str(getattr(w, "code", None)) == code for w in verdict.warnings)


READ_BACK: Final = [
    run for run in RUNS if run.get("running") is not None and run["artefact"] is None
]
"""The readings that read back the built models' state."""


def _verdict(run: dict[str, Any], folder: Path) -> Verdict:
    draft_path, target, _ = lay_out(BY_NAME[run["name"]], folder)
    return check(draft_path.parent, target=target, engine="sglang")


@pytest.mark.parametrize("run", READ_BACK, ids=lambda run: run["name"])
def test_the_checkers_running_findings_agree_with_the_built_models(
    run: dict[str, Any], tmp_path: Path
) -> None:
    wrong = running_disagreements(run, _verdict(run, tmp_path))
    expected = {field for field in RUNNING_FIELDS if f"{run['name']}:{field}" in RUNNING_EXCEPTIONS}
    assert set(wrong) == expected, wrong


def test_every_reading_reads_back_the_running_state_and_covers_both_answers() -> None:
    built = [run for run in RUNS if "draft" in run["stages_passed"]]
    assert built
    assert all(run.get("running") is not None for run in built)
    readings = [run["running"] for run in built]
    assert {r["layers_named"] for r in readings} >= {True, False}
    assert {r["draft_rope"] == r["target_rope"] for r in readings} == {True, False}
    assert {bool(r["causal"]) and all(r["causal"]) for r in readings} == {True, False}
    assert {r["sample_from_anchor"] for r in readings} >= {True, False}
    for key in RUNNING_EXCEPTIONS:
        assert key.partition(":")[0] in BY_NAME, key


WANTED: Final[dict[str, Any]] = {
    "layers": lambda r: r["captured"] is not None and not r["layers_named"],
    "rope": lambda r: r["draft_rope"] != r["target_rope"],
    "causal": lambda r: bool(r["causal"]) and not any(r["causal"]),
    "sample_from_anchor": lambda r: r["sample_from_anchor"] is True,
}
"""A reading whose field the checker speaks of, to plant a wrong one in."""

PLANTED: Final[dict[str, Any]] = {
    "layers": lambda r: {**r, "layers_named": True},
    "rope": lambda r: {**r, "draft_rope": r["target_rope"]},
    "causal": lambda r: {**r, "causal": [True] * len(r["causal"])},
    "sample_from_anchor": lambda r: {**r, "sample_from_anchor": False},
}
"""A wrong reading of each field: what the comparison must catch."""


@pytest.mark.parametrize("field", RUNNING_FIELDS)
def test_a_wrong_reading_planted_in_a_run_is_caught(field: str, tmp_path: Path) -> None:
    run = next(
        run
        for run in READ_BACK
        if WANTED[field](run["running"]) and f"{run['name']}:{field}" not in RUNNING_EXCEPTIONS
    )
    verdict = _verdict(run, tmp_path)
    assert field not in running_disagreements(run, verdict)
    planted = {**run, "running": PLANTED[field](run["running"])}
    assert field in running_disagreements(planted, verdict)
