"""The layer rules: the target layers a drafter taps, by vLLM 0.33's own rules, each seen
through ``check()``.

Targets are given as config dicts with the sizes of real models (Qwen3-4B and Qwen3-8B:
36 layers).  Every expected outcome is the engine's: an error where vLLM fails or
silently taps other layers, a warning or a note where it does not read the field.
"""

from __future__ import annotations

import copy
from types import SimpleNamespace
from typing import Any
from unittest.mock import Mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drafting_config import (
    ParallelDraftingConfig,
    ParallelDraftingConfigError,
    Verdict,
    check,
    get_parallel_drafting_token_id,
    resolve,
)
from drafting_config.cli.render import verdict_json
from drafting_config.engines.vllm.runners import default_layers
from drafting_config.integrations import vllm
from drafting_config.values.errors import TargetLayersWarning
from tests.conftest import EXAMPLES, assert_clean, load_json, only_error
from tests.engines.vllm import PARALLEL_SWITCH, PEAGLE, TWO_RUNNERS, tokens_read  # noqa: F401
from tests.foreign import Unusable, int_enum
from tests.serve_commands import UNKNOWN_TOKENS

QWEN3_4B = {"vocab_size": 151936, "hidden_size": 2560, "num_hidden_layers": 36}
QWEN3_8B = {"vocab_size": 151936, "hidden_size": 4096, "num_hidden_layers": 36}
SPECULATORS = load_json(EXAMPLES / "speculators-dflash-qwen3-8b" / "config.json")

DFLASH_STYLE = ("dflash_config.target_layer_ids", "target_layer_ids", "dspark_target_layer_ids")
"""Fields of layer indices, which vLLM shifts by one: 0 to L - 1."""


def at(path: str, value: object) -> dict[str, Any]:
    section, _, key = path.rpartition(".")
    return {section: {key: value}} if section else {key: value}


def draft(path: str, value: object, **extra: object) -> dict[str, Any]:
    """A DSpark-noise draft (newer runner) with one layer field set."""
    return {"dspark_noise_token_id": 151669, **at(path, value), **extra}


def layer_warnings(verdict: Verdict) -> list[str]:
    return [str(w) for w in verdict.warnings if isinstance(w, TargetLayersWarning)]


# --- the range: capture indices 0 to L, layer indices 0 to L - 1 ----------------------------------


def test_capture_indices_run_from_0_to_l() -> None:
    """``[2, 18, 36]`` on a 36-layer target was refused; vLLM records index 36 (the output of
    the last layer)."""
    field = "eagle_aux_hidden_state_layer_ids"
    verdict = check(draft(field, [0, 2, 18, 36]), target=QWEN3_4B)
    assert_clean(verdict)
    assert verdict.resolution is not None
    assert verdict.resolution.aux_layer_ids == (0, 2, 18, 36)
    error = only_error(check(draft(field, [2, 18, 37]), target=QWEN3_4B))
    assert error.field == field
    assert str(error) == (
        f"`{field}` item 2 = 37 is outside the target's capture indices 0 to 36, so vLLM "
        "never captures it."
    )
    assert error.fix == "name capture indices of the target, 0 to 36"
    assert "LlamaModel.forward" in (error.evidence or "")
    assert "in the newer model runner" in (error.evidence or "")


@pytest.mark.parametrize("field", DFLASH_STYLE)
def test_layer_indices_run_from_0_to_l_minus_1(field: str) -> None:
    verdict = check(draft(field, [0, 17, 35]), target=QWEN3_4B)
    assert_clean(verdict)
    assert verdict.resolution is not None
    assert verdict.resolution.aux_layer_ids == (1, 18, 36)
    error = only_error(check(draft(field, [1, 9, 36]), target=QWEN3_4B))
    assert error.field == field
    assert str(error) == (
        f"`{field}` item 2 = 36 is outside the target's layer indices -1 to 35, so vLLM "
        "never captures it."
    )
    assert error.fix == "name layer indices of the target, -1 to 35"


def test_a_negative_capture_index_is_an_error_with_or_without_a_target() -> None:
    field = "eagle_aux_hidden_state_layer_ids"
    for target in (None, QWEN3_4B):
        error = only_error(check(draft(field, [-1, 3]), target=target))
        assert error.field == field
        assert "item 0 = -1 is" in str(error)
    assert "below 0, the lowest of the capture indices" in str(
        only_error(check(draft(field, [-1, 3])))
    )


@pytest.mark.parametrize("field", DFLASH_STYLE)
def test_minus_one_as_a_layer_index_taps_capture_index_0_with_a_warning(field: str) -> None:
    """vLLM adds 1 and taps capture index 0 (the hidden state entering
    the first layer, which ``LlamaModel.forward`` records); it serves the draft."""
    for target in (None, QWEN3_4B):
        verdict = check(draft(field, [-1, 3]), target=target)
        assert verdict.errors == (), [str(e) for e in verdict.errors]
        assert verdict.aux_layer_ids == (0, 4)
        (warning,) = verdict.warnings
        assert isinstance(warning, TargetLayersWarning)
        assert "holds -1, which vLLM taps as capture index 0" in str(warning)
        assert warning.field == field
        assert warning.fix is None  # served as written: right if the drafter was trained so
    error = only_error(check(draft(field, [-2, 3])))
    assert "item 0 = -2 is below -1, the lowest of the layer indices" in str(error)
    assert error.fix == "name layer indices from -1 up"


@pytest.mark.parametrize("field", [*DFLASH_STYLE, "eagle_aux_hidden_state_layer_ids"])
def test_whole_number_float_ids_tap_the_same_layers_with_a_warning(field: str) -> None:
    """``[1.0, 9.0]`` loads and runs in vLLM 0.33 (its models compare the
    float ids with their int layer indices)."""
    as_ints = check(draft(field, [1, 9]), target=QWEN3_4B)
    verdict = check(draft(field, [1.0, 9.0]), target=QWEN3_4B)
    assert verdict.errors == (), [str(e) for e in verdict.errors]
    assert verdict.aux_layer_ids == as_ints.aux_layer_ids
    (warning,) = verdict.warnings
    assert "holds whole-number floats, which vLLM keeps as floats" in str(warning)
    assert warning.fix == "write the layer ids as ints"


def test_without_a_target_there_is_no_upper_bound() -> None:
    assert_clean(check(draft("target_layer_ids", [1, 1000])))


def test_a_multimodal_targets_depth_comes_from_its_text_config() -> None:
    target = {"model_type": "qwen2_5_vl", "text_config": {"num_hidden_layers": 28}}
    assert_clean(check(draft("target_layer_ids", [1, 27]), target=target))
    assert only_error(check(draft("target_layer_ids", [1, 28]), target=target)).field == (
        "target_layer_ids"
    )


# --- ints, each once, in increasing order, in the list the runner reads ---------------------------


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ([9, 9], "item 1 = 9 follows 9, but vLLM taps layers sorted and once each"),
        ([9, 1], "item 1 = 1 follows 9"),
        (["1", 9], "has item 0 = '1' (str)"),
        ([1, True], "has item 1 = True (bool)"),
        ([1, 9.5], "has item 1 = 9.5 (float)"),
        ("1,9,17", "is '1,9,17' (str), not a list"),
        ({"0": 1}, "is {'0': 1} (dict), not a list"),
    ],
)
@pytest.mark.parametrize("field", [*DFLASH_STYLE, "eagle_aux_hidden_state_layer_ids"])
def test_a_malformed_serving_list_is_an_error_with_or_without_a_target(
    field: str, value: object, problem: str
) -> None:
    for target in (None, QWEN3_4B):
        verdict = check(draft(field, value), target=target)
        error = only_error(verdict)
        assert error.field == field
        assert problem in str(error)
        assert "in the newer model runner" in (error.evidence or "")


def test_an_empty_list_is_absent_as_vllm_reads_it() -> None:
    verdict = check(draft("target_layer_ids", []), target=QWEN3_4B)
    assert_clean(verdict)
    assert verdict.resolution is not None
    assert verdict.resolution.aux_layer_ids is None


def test_a_truthy_value_that_is_not_a_list_stops_vllms_chain_and_is_an_error() -> None:
    config = draft("eagle_aux_hidden_state_layer_ids", 5, target_layer_ids=[1, 9])
    error = only_error(check(config, target=QWEN3_4B))
    assert error.field == "eagle_aux_hidden_state_layer_ids"
    assert "taps the target model's default layers instead" in str(error)
    assert error.fix == "write `eagle_aux_hidden_state_layer_ids` as a list of int layer ids"


def test_only_the_list_the_runner_reads_is_judged_and_the_others_get_a_note() -> None:
    """PTD is served by the older runner, which never reads ``target_layer_ids``."""
    config = {
        "ptd_token_id": 5,
        "eagle_aux_hidden_state_layer_ids": [2, 18, 33],
        "target_layer_ids": [99, 1, 1],
    }
    verdict = check(config, target=QWEN3_4B, check_tokenizer=False)
    assert verdict.errors == ()
    assert verdict.notes == (
        "`target_layer_ids` is not read by vLLM for this draft, which taps "
        "`eagle_aux_hidden_state_layer_ids`.",
        UNKNOWN_TOKENS,
    )
    newer = draft("dflash_config.target_layer_ids", [1, 9], target_layer_ids=[99, 1])
    verdict = check(newer, target=QWEN3_4B)
    assert verdict.errors == ()
    assert (
        "`target_layer_ids` is not read by vLLM for this draft, which taps "
        "`dflash_config.target_layer_ids`."
    ) in verdict.notes


def test_the_serving_list_of_a_ptd_draft_is_checked_on_the_older_runner() -> None:
    config = {"ptd_token_id": 5, "eagle_aux_hidden_state_layer_ids": [2, 18, 40]}
    error = only_error(
        check(config, target=QWEN3_4B, engine=PARALLEL_SWITCH, check_tokenizer=False)
    )
    assert error.field == "eagle_aux_hidden_state_layer_ids"
    assert "in the older model runner" in (error.evidence or "")
    # the default release serves it as sequential EAGLE-3, on its one runner
    error = only_error(check(config, target=QWEN3_4B, check_tokenizer=False))
    assert error.field == "eagle_aux_hidden_state_layer_ids"
    assert "older" not in (error.evidence or "")


def test_a_pard_draft_taps_no_layers() -> None:
    config = {"pard_token": 5, "target_layer_ids": ["x"], "num_target_layers": "many"}
    assert_clean(check(config, target=QWEN3_4B, engine=PARALLEL_SWITCH, check_tokenizer=False))
    verdict = check(config, target=QWEN3_4B, check_tokenizer=False)  # a draft model, no taps
    assert verdict.errors == ()
    assert [w.field for w in verdict.warnings] == ["pard_token"]


# --- DFlash on either runner ----------------------------------------------------------------------


def test_a_dflash_draft_whose_runners_disagree_gets_a_warning_naming_both() -> None:
    config = {"dflash_config": {"mask_token_id": 151669}, "target_layer_ids": [1, 9, 17]}
    verdict = check(config, target=QWEN3_4B, engine=TWO_RUNNERS)
    assert verdict.errors == ()
    assert layer_warnings(verdict) == [
        "vLLM's newer runner taps [2, 10, 18] from `target_layer_ids` and its older one, which "
        "may serve it too, the target's defaults."
    ]
    (warning,) = verdict.warnings
    assert warning.field == "target_layer_ids"
    assert "VLLM_USE_V2_MODEL_RUNNER=0" in (warning.evidence or "")
    # the fix: a field both runners read first
    fixed = {**config, "eagle_aux_hidden_state_layer_ids": [2, 10, 18]}
    assert layer_warnings(check(fixed, target=QWEN3_4B, engine=TWO_RUNNERS)) == []
    agreeing = {"dflash_config": {"mask_token_id": 151669, "target_layer_ids": [1, 9, 17]}}
    assert layer_warnings(check(agreeing, target=QWEN3_4B, engine=TWO_RUNNERS)) == []
    # A candidate-head DFlash draft runs on the newer runner only.
    candidate = {**config, "architectures": ["DFlash2DraftModel"]}
    assert layer_warnings(check(candidate, target=QWEN3_4B, engine=TWO_RUNNERS)) == []
    # the default release has one runner
    assert layer_warnings(check(config, target=QWEN3_4B)) == []


def test_a_dspark_draft_runs_on_the_newer_runner_only() -> None:
    config = {"dspark_noise_token_id": 151669, "target_layer_ids": [1, 9, 17]}
    assert_clean(check(config, target=QWEN3_4B))


# --- the Qwen3-Omni DSpark validator, a second reader ---------------------------------------------

OMNI = {
    "model_type": "qwen3_omni_moe",
    "architectures": ["Qwen3OmniMoeForConditionalGeneration"],
    "thinker_config": {"text_config": {"num_hidden_layers": 48, "hidden_size": 2048}},
}


def test_the_omni_validator_reads_its_own_order() -> None:
    """It reads ``dflash_config.target_layer_ids`` first even where the runner reads the
    capture indices of ``eagle_aux_hidden_state_layer_ids``."""
    fine = draft("eagle_aux_hidden_state_layer_ids", [2, 10], dspark_target_layer_ids=[1, 9])
    assert check(fine, target=OMNI).errors == ()
    unsorted = {**fine, "dflash_config": {"target_layer_ids": [9, 1]}}
    error = only_error(check(unsorted, target=OMNI))
    assert error.field == "dflash_config.target_layer_ids"
    assert str(error) == (
        "`dflash_config.target_layer_ids` = [9, 1] (list) is not unique and strictly "
        "increasing, so vLLM refuses it for a Qwen3-Omni target."
    )
    assert error.fix == "list target layer ids, each once, in increasing order, from 0 to 47"
    assert "_validate_qwen3_omni_dspark" in (error.evidence or "")


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ([], "is not a non-empty list of layer ids"),
        ([1, True], "holds an id that is not an int"),
        ([1, 48], "holds an id outside layers 0 to 47"),
    ],
)
def test_the_omni_validators_rules(value: object, problem: str) -> None:
    config = draft("eagle_aux_hidden_state_layer_ids", [2, 10], dspark_target_layer_ids=value)
    error = only_error(check(config, target=OMNI))
    assert error.field == "dspark_target_layer_ids"
    assert problem in str(error)
    assert check(config, target=QWEN3_4B).errors == ()  # not an Omni target: not read


# --- no layers named: the target model's defaults -------------------------------------------------


def dflash_without_layers(num_hidden_layers: int, **extra: object) -> dict[str, Any]:
    return {
        "architectures": ["DFlashDraftModel"],
        "model_type": "qwen3",
        "hidden_size": 4096,
        "num_hidden_layers": num_hidden_layers,
        "dflash_config": {"mask_token_id": 151669, "target_layer_ids": None},
        **extra,
    }


def test_default_layers_are_vllms() -> None:
    assert default_layers(36) == (2, 18, 33)
    assert default_layers(32) == (2, 16, 29)
    assert default_layers(6) == (2, 3)


def test_a_dflash_draft_naming_no_layers_is_an_error_when_sized_for_another_count() -> None:
    error = only_error(check(dflash_without_layers(5), target=QWEN3_8B))
    assert error.field == "dflash_config.target_layer_ids"
    assert str(error) == (
        "No target layers are named, so vLLM taps the defaults [2, 18, 33] while fc is sized "
        "for 5 layers, and fails at the first forward pass."
    )
    assert error.fix == (
        "set `dflash_config.target_layer_ids` to the 5 target layers the drafter was trained on"
    )
    assert (
        '"DFlash drafter expects 20480 concatenated aux hidden features but received 12288"'
    ) in (error.evidence or "")


def test_a_dflash_draft_sized_for_the_default_count_or_without_fc_is_fine() -> None:
    assert check(dflash_without_layers(3), target=QWEN3_8B).errors == ()
    off = dflash_without_layers(5, dflash_config={"mask_token_id": 1, "use_aux_hidden_state": 0})
    assert check(off, target=QWEN3_8B).errors == ()
    eagle_off = dflash_without_layers(5, eagle_config={"use_aux_hidden_state": False})
    assert check(eagle_off, target=QWEN3_8B).errors == ()
    empty = dflash_without_layers(5, eagle_config={"use_aux_hidden_state": ""})
    assert check(empty, target=QWEN3_8B).errors == ()  # vLLM tests the truth value


def test_without_a_target_the_default_layers_rule_is_a_warning() -> None:
    verdict = check(dflash_without_layers(1))
    assert verdict.errors == ()
    assert layer_warnings(verdict) == [
        "No target layers are named, so vLLM taps 3 default layers of a target of 7 or more, "
        "while fc is sized for `num_hidden_layers` = 1."
    ]
    (warning,) = verdict.warnings
    assert warning.field == "dflash_config.target_layer_ids"
    assert warning.fix == (
        "set `dflash_config.target_layer_ids` to the 1 target layer the drafter was trained on"
    )


def test_the_default_layers_rule_is_for_models_that_size_fc_by_draft_layers() -> None:
    eagle = {
        "architectures": ["LlamaForCausalLMEagle3"],
        "model_type": "llama",
        "ptd_token_id": 5,
        "num_hidden_layers": 1,
    }
    assert check(eagle, target=QWEN3_8B, check_tokenizer=False).errors == ()


def test_a_speculators_draft_is_told_to_set_its_own_field() -> None:
    config = copy.deepcopy(SPECULATORS)
    config["aux_hidden_state_layer_ids"] = []
    error = only_error(check(config, target=QWEN3_8B))
    assert error.field == "aux_hidden_state_layer_ids"
    assert "set `aux_hidden_state_layer_ids` to the 5 target layers" in (error.fix or "")


# --- counts of target layers: never an error by themselves ----------------------------------------

TORCHSPEC_DSPARK = {
    "architectures": ["DSparkDraftModel"],
    "model_type": "qwen3",
    "markov_rank": 64,
    "mask_token_id": 151669,
    "num_target_layers": 5,
    "target_layer_ids": [1, 9, 17, 25, 33],
    "target_num_hidden_layers": 36,
}
"""TorchSpec's DSpark drafter for Qwen3-8B, its layer fields as published."""


def test_num_target_layers_as_the_number_of_tapped_layers_is_fine() -> None:
    assert_clean(check(TORCHSPEC_DSPARK, target=QWEN3_8B))
    assert_clean(check(TORCHSPEC_DSPARK))


@pytest.mark.parametrize("count_field", ["num_target_layers", "dflash_config.num_target_layers"])
def test_num_target_layers_as_the_targets_depth_is_fine(count_field: str) -> None:
    dflash: dict[str, object] = {"mask_token_id": 5, "target_layer_ids": [1, 9, 17, 25, 33]}
    config: dict[str, object] = {"dflash_config": dflash}
    if "." in count_field:
        dflash["num_target_layers"] = 36
    else:
        config["num_target_layers"] = 36
    assert_clean(check(config, target=QWEN3_4B))
    assert_clean(check(config))


def test_num_target_layers_fitting_neither_reading_is_a_warning_only() -> None:
    config = {**TORCHSPEC_DSPARK, "num_target_layers": 40, "target_num_hidden_layers": 36}
    verdict = check(config, target=QWEN3_8B)
    assert verdict.errors == ()
    assert layer_warnings(verdict) == [
        "`num_target_layers` = 40 is neither the target's depth, 36, nor the tapped layer "
        "count, 5, which vLLM ignores but trainers and SGLang read."
    ]
    (warning,) = verdict.warnings
    assert warning.field == "num_target_layers"
    assert "TorchSpec" in (warning.fix or "")


def test_without_a_target_num_target_layers_below_a_layer_id_fits_neither_reading() -> None:
    config = {**TORCHSPEC_DSPARK, "num_target_layers": 30}
    verdict = check(config)
    assert verdict.errors == ()
    assert len(layer_warnings(verdict)) == 1
    assert (
        "is neither the target's depth, as a layer id is at or above it, nor"
        in layer_warnings(verdict)[0]
    )


@pytest.mark.parametrize("value", ["36", 0, True, 36.0])
def test_a_malformed_num_target_layers_is_a_warning_only(value: object) -> None:
    verdict = check(draft("target_layer_ids", [1, 9], num_target_layers=value), target=QWEN3_4B)
    assert verdict.errors == ()
    assert layer_warnings(verdict) == [
        f"`num_target_layers` = {value!r} ({type(value).__name__}) is not a count of layers, "
        "which vLLM ignores but trainers and other engines read."
    ]


def test_target_num_hidden_layers_differing_from_the_target_is_a_warning() -> None:
    config = {**TORCHSPEC_DSPARK, "target_num_hidden_layers": 28}
    verdict = check(config, target=QWEN3_8B)
    assert verdict.errors == ()
    assert layer_warnings(verdict) == [
        "`target_num_hidden_layers` = 28 (int) but the target has 36 layers, so the draft may "
        "be for another target, though vLLM ignores the field."
    ]


K3 = {
    "architectures": ["K3DSparkModel"],
    "model_type": "k3_dspark",
    "markov_rank": 256,
    "target_hidden_size": 7168,
    "mask_token_id": 163837,
    "num_target_layers": 5,
    "target_layer_ids": [7, 31, 47, 63, 87],
}


def test_k3_dspark_num_target_layers_as_a_whole_float_fails_in_the_model_not_the_config() -> None:
    """``5.0 == len(ids)`` passes K3DSparkConfig's check; the float then
    sizes K3DSparkModel's context_proj linear layer, which fails.  vLLM does read the field
    here, so no "vLLM does not read it" warning."""
    verdict = check({**K3, "num_target_layers": 5.0})
    error = only_error(verdict)
    assert error.field == "num_target_layers"
    assert "is a float, so vLLM's K3 DSpark model fails sizing its context projection" in str(error)
    assert "K3DSparkModel.__init__ sizes context_proj" in (error.evidence or "")
    assert "K3DSparkConfig.__init__ accepts 5.0 == 5" in (error.evidence or "")
    assert error.fix == "set `num_target_layers` to the int 5"
    assert verdict.warnings == ()


def test_k3_dspark_requires_num_target_layers_to_count_its_layer_ids() -> None:
    assert check(K3).errors == ()
    for broken in ({**K3, "num_target_layers": 93}, {**K3, "target_layer_ids": None}):
        error = only_error(check(broken))
        assert error.field == "num_target_layers"
        assert "so vLLM refuses the K3 DSpark draft." in str(error)
        assert "K3DSparkConfig.__init__ raises ValueError" in (error.evidence or "")


# --- DeepSeek-V4.1: dspark_target_layer_ids as given ----------------------------------------------


@pytest.mark.usefixtures("tokens_read")  # a generic token on no class: PARD, read up to then
def test_dspark_target_layer_ids_are_capture_indices_for_a_deepseek_v41_target() -> None:
    config = {"mask_token_id": 5, "dspark_target_layer_ids": [1, 61]}
    v41 = {"model_type": "deepseek_v41", "num_hidden_layers": 61}
    verdict = check(config, target=v41, check_tokenizer=False)
    assert verdict.errors == ()
    assert (verdict.aux_layer_ids, verdict.aux_layer_source) == ((1, 61), "dspark_target_layer_ids")
    # The resolution is exactly what resolve() made of the draft alone; the reading that
    # depends on the target is the verdict's (and the JSON's aux_layer_ids).
    assert verdict.resolution == resolve(config)
    assert verdict.resolution.aux_layer_ids == (2, 62)
    assert verdict_json(verdict)["aux_layer_ids"] == [1, 61]
    assert ParallelDraftingConfig.from_hf_config(config, target=v41).aux_layer_ids == (1, 61)
    v4 = {"model_type": "deepseek_v4", "num_hidden_layers": 61}
    verdict = check(config, target=v4, check_tokenizer=False)
    assert verdict.aux_layer_ids == (2, 62)
    assert only_error(verdict).field == "dspark_target_layer_ids"


# --- speculators drafts ---------------------------------------------------------------------------


def test_speculators_aux_ids_are_capture_indices_and_0_is_one() -> None:
    config = {**SPECULATORS, "aux_hidden_state_layer_ids": [0, 18, 36]}
    assert_clean(check(config, target=QWEN3_8B))
    assert ParallelDraftingConfig.from_hf_config(config).aux_layer_ids == (0, 18, 36)
    error = only_error(check({**config, "aux_hidden_state_layer_ids": [0, 37]}, target=QWEN3_8B))
    assert error.field == "aux_hidden_state_layer_ids"
    assert "outside the target's capture indices 0 to 36" in str(error)


def test_a_speculators_peagle_drafter_has_its_eagle_layer_ids_checked() -> None:
    config = {
        **SPECULATORS,
        "speculators_model_type": "peagle",
        "eagle_aux_hidden_state_layer_ids": [2, 18, 33],
    }
    del config["aux_hidden_state_layer_ids"]
    assert check(config, target=QWEN3_8B, engine=PEAGLE).errors == ()
    error = only_error(check(config, target={**QWEN3_8B, "num_hidden_layers": 32}, engine=PEAGLE))
    assert error.field == "eagle_aux_hidden_state_layer_ids"


# --- the token-id entry points run no layer rule (point 1) ----------------------------------------

_layer_values = st.one_of(
    st.none(),
    st.sampled_from([[], "1,9", 5, True, {"a": 1}, [1, 1], [9, 1], [-1], [True], ["1"], [1.5]]),
    st.lists(st.integers(-(2**40), 2**40), max_size=4),
)
_layer_fields = st.fixed_dictionaries(
    {},
    optional={
        "eagle_aux_hidden_state_layer_ids": _layer_values,
        "target_layer_ids": _layer_values,
        "dspark_target_layer_ids": _layer_values,
        "num_target_layers": st.one_of(st.integers(-5, 100), st.just("36"), st.none()),
        "target_num_hidden_layers": st.one_of(st.integers(-5, 100), st.just([36])),
        "model_type": st.sampled_from(["k3_dspark", "deepseek_v41", "qwen3"]),
        "architectures": st.sampled_from([["DFlashDraftModel"], ["K3DSparkModel"]]),
    },
)


@given(
    layer_fields=_layer_fields,
    dflash_layers=st.one_of(st.none(), _layer_values),
    token_field=st.sampled_from(["dflash_config", "mask_token_id", "ptd_token_id", "pard_token"]),
)
def test_a_valid_token_id_is_never_refused_for_its_layers(
    layer_fields: dict[str, object], dflash_layers: object, token_field: str
) -> None:
    config: dict[str, Any] = {**layer_fields, "vocab_size": 151936, "hidden_size": 4096}
    if token_field == "dflash_config":
        config["dflash_config"] = {"mask_token_id": 151669, "target_layer_ids": dflash_layers}
    else:
        config[token_field] = 151669
    model = ParallelDraftingConfig.from_hf_config(config)
    assert model.token_id == 151669
    assert ParallelDraftingConfig.model_validate(config) == model
    assert get_parallel_drafting_token_id(config) == 151669


def test_the_engine_drop_in_refuses_no_layer_list() -> None:
    """The issue's example: TorchSpec's DSpark drafter for Qwen3-8B was refused."""
    config = {**TORCHSPEC_DSPARK, "vocab_size": 151936}
    assert vllm.get_parallel_drafting_token_id(config) == 151669
    assert get_parallel_drafting_token_id({**config, "target_layer_ids": [99, 1, 1]}) == 151669


@pytest.mark.parametrize(
    ("layer_types", "warned"),
    [
        (["sliding_attention", "full_attention"], False),  # several KV groups: newer only
        (["full_attention", "sliding_attention", "sliding_attention"], False),
        (["sliding_attention", "sliding_attention"], True),
        (["full_attention"], True),
        ([], True),
        ("sliding_attention", True),  # vLLM counts characters: none is a layer type
        ({"sliding_attention": 1, "full_attention": 2}, True),  # or a dict's keys: not read
        (None, True),
    ],
)
def test_a_dflash_draft_mixing_sliding_and_full_layers_runs_on_the_newer_runner_only(
    layer_types: object, warned: bool
) -> None:
    """``_dflash_needs_multi_kv_group`` in ``vllm/config/vllm.py``: the older runner refuses
    such a draft, so its chain never applies and no two-runner warning is due."""
    config = {
        "dflash_config": {"mask_token_id": 151669},
        "target_layer_ids": [1, 9, 17],
        "layer_types": layer_types,
    }
    assert bool(layer_warnings(check(config, target=QWEN3_4B, engine=TWO_RUNNERS))) is warned


# --- labels (point 6) -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("projector", "algorithm"),
    [("dspark", "dspark"), ("mlp", "dflash"), (None, "dflash"), (["dspark"], "dflash")],
)
def test_a_dflash_layout_with_a_dspark_projector_is_dspark(
    projector: object, algorithm: str
) -> None:
    """SpecForge's DSpark drafters keep DFlash's layout; vLLM serves them as DSpark, on the
    newer runner only, so no warning compares them with the older runner's layers."""
    config = {
        "dflash_config": {"mask_token_id": 151669, "projector_type": projector},
        "target_layer_ids": [1, 9, 17],
    }
    model = ParallelDraftingConfig.from_hf_config(config)
    assert model.algorithm == algorithm
    warned = layer_warnings(check(config, target=QWEN3_4B, engine=TWO_RUNNERS))
    assert bool(warned) is (algorithm == "dflash")  # the older runner reads no top-level list


# --- foreign values real callers pass -------------------------------------------------------------


def test_an_int_subclass_is_a_layer_id_and_a_mock_is_not() -> None:
    config = draft("target_layer_ids", [int_enum(1), int_enum(9)])
    verdict = check(config, target=QWEN3_4B)
    assert_clean(verdict)
    assert verdict.resolution is not None
    assert verdict.resolution.aux_layer_ids == (2, 10)
    fake = Mock(spec=int)
    error = only_error(check(draft("eagle_aux_hidden_state_layer_ids", [fake]), target=QWEN3_4B))
    assert error.field == "eagle_aux_hidden_state_layer_ids"
    assert "has item 0 = " in str(error)


def test_a_layer_value_whose_truth_value_raises_is_an_error_not_a_crash() -> None:
    error = only_error(check(draft("target_layer_ids", Unusable()), target=QWEN3_4B))
    assert error.field == "target_layer_ids"
    assert "whose truth value raises RuntimeError" in str(error)


def test_the_proposer_drop_in_refuses_no_layer_list() -> None:
    hf_config = {**TORCHSPEC_DSPARK, "target_layer_ids": [99, 1, 1], "num_target_layers": "x"}
    proposer = SimpleNamespace(
        draft_model_config=SimpleNamespace(hf_config=hf_config),
        pass_hidden_states_to_model=False,
    )
    vllm.init_parallel_drafting_params(proposer)
    assert proposer.parallel_drafting_token_id == 151669


def test_given_a_target_the_model_runs_the_layer_rules_and_knows_the_targets_layers() -> None:
    broken = draft("target_layer_ids", [1, 9, 36])
    assert ParallelDraftingConfig.from_hf_config(broken).aux_layer_ids == (2, 10, 37)
    with pytest.raises(ParallelDraftingConfigError) as info:
        ParallelDraftingConfig.from_hf_config(broken, target=QWEN3_4B)
    assert info.value.field == "target_layer_ids"
    v41 = {"model_type": "deepseek_v41", "num_hidden_layers": 61}
    config = draft("dspark_target_layer_ids", [1, 61])
    assert ParallelDraftingConfig.from_hf_config(config).aux_layer_ids == (2, 62)
    assert ParallelDraftingConfig.from_hf_config(config, target=v41).aux_layer_ids == (1, 61)


def test_the_omni_validator_reads_a_draft_of_the_omni_dspark_architecture() -> None:
    """A generic ``mask_token_id`` names no method; vLLM serves this architecture as DSpark."""
    config = {
        "architectures": ["Qwen3OmniDSparkModel"],
        "model_type": "qwen3",
        "markov_rank": 64,
        "mask_token_id": 5,
        "eagle_aux_hidden_state_layer_ids": [2, 10],
        "dflash_config": {"target_layer_ids": [9, 1]},
    }
    error = only_error(check(config, target=OMNI, check_tokenizer=False))
    assert error.field == "dflash_config.target_layer_ids"
    assert "so vLLM refuses it for a Qwen3-Omni target" in str(error)


def test_a_list_read_by_no_runner_says_vllm_taps_the_defaults() -> None:
    config = {"ptd_token_id": 5, "target_layer_ids": [1, 9]}
    verdict = check(config, target=QWEN3_4B, engine=PARALLEL_SWITCH, check_tokenizer=False)
    assert verdict.errors == ()
    assert verdict.notes == (
        "`target_layer_ids` is not read by vLLM for this draft, which taps the target model's "
        "default layers.",
        "No target layers are named, so the engine taps its guess [2, 18, 33] (capture "
        "indices), from the target's depth 36.",
        UNKNOWN_TOKENS,
    )
