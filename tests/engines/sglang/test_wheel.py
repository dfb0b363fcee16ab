"""SGLang 0.5.23's own config-reading functions, taken from its wheel, on corpus configs.

Smoke tests of the extraction in ``tools/wheels.py`` (``sglang_functions``): each
function runs on two corpus configs (with the Qwen3-8B target config where SGLang needs a
target) and gives what ``/work/shared/reference/sglang-and-vllm-versions.md`` states.
The differential tests against the package's SGLang rules build on the same helpers.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tools.engines.sglang.functions import SglangFunctions, sglang_functions
from tools.wheels import Wheel

pytestmark = pytest.mark.engine_wheels

CORPUS = Path(__file__).resolve().parents[2] / "real_configs"
QWEN3_8B_DEPTH = 36


def corpus(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((CORPUS / name).read_text(encoding="utf-8"))
    return data


def draft(name: str) -> dict[str, Any]:
    return corpus(f"drafts/{name}.json")


@pytest.fixture(scope="module")
def sglang(sglang_wheel: Wheel) -> SglangFunctions:
    return sglang_functions(sglang_wheel)


@pytest.fixture(scope="module")
def qwen3_8b() -> dict[str, Any]:
    target = corpus("targets/qwen3-8b.json")
    assert target["num_hidden_layers"] == QWEN3_8B_DEPTH
    return target


# --- parse_dflash_draft_config (srt/speculative/dflash_utils.py) --------------------------------


def test_parse_dflash_reads_the_two_mask_fields_and_the_layer_list(sglang: SglangFunctions) -> None:
    specforge = sglang.parse_dflash_draft_config(
        draft_hf_config=draft("specforge--qwen3-8b-dflash")
    )
    assert specforge.mask_token_id == 151669
    assert specforge.target_layer_ids == [1, 9, 17, 25, 33]
    assert specforge.num_target_layers == QWEN3_8B_DEPTH
    assert specforge.mask_token == "<|MASK|>"  # DEFAULT_DFLASH_MASK_TOKEN
    torchspec = sglang.parse_dflash_draft_config(
        draft_hf_config=draft("torchspec--qwen3_8b_dflash")
    )
    assert torchspec.mask_token_id == 151643
    assert torchspec.target_layer_ids is None  # `target_layer_ids: null`: none named


def test_parse_dflash_stops_at_a_null_in_dflash_config_and_refuses_coercion(
    sglang: SglangFunctions,
) -> None:
    config = draft("specforge--qwen3-8b-dflash")
    config["dflash_config"]["mask_token_id"] = None
    config["mask_token_id"] = 151669
    # A present null in dflash_config stops the search: the tokenizer decides.
    assert sglang.parse_dflash_draft_config(draft_hf_config=config).mask_token_id is None
    for value in ("151669", True, 7.0):
        config["dflash_config"]["mask_token_id"] = value
        with pytest.raises(ValueError, match="must be an integer"):
            sglang.parse_dflash_draft_config(draft_hf_config=config)


# --- parse_dspark_draft_config (srt/speculative/dspark_components/dspark_config.py) -------------


def test_parse_dspark_reads_nested_and_top_level_drafts(sglang: SglangFunctions) -> None:
    specforge = sglang.parse_dspark_draft_config(
        draft_hf_config=draft("specforge--qwen3-8b-dspark")
    )
    assert (specforge.mask_token_id, specforge.markov_rank) == (151669, 256)
    assert specforge.markov_head_type == "vanilla"
    assert specforge.target_layer_ids == [1, 9, 17, 25, 33]
    torchspec = sglang.parse_dspark_draft_config(
        draft_hf_config=draft("torchspec--dspark_draft_config")
    )
    assert (torchspec.mask_token_id, torchspec.markov_rank) == (151669, 256)
    assert torchspec.target_layer_ids == [1, 9, 17, 25, 33]


def test_parse_dspark_reads_the_noise_token_first(sglang: SglangFunctions) -> None:
    # The reference: noise first, then {dflash_config, dspark_config}.mask_token_id (vLLM
    # reads dflash_config.mask_token_id first); `int()` coerces, without a type check.
    config = draft("specforge--qwen3-8b-dspark")
    config["dspark_noise_token_id"] = 100
    assert sglang.parse_dspark_draft_config(draft_hf_config=config).mask_token_id == 100
    config["dspark_noise_token_id"] = "7"
    assert sglang.parse_dspark_draft_config(draft_hf_config=config).mask_token_id == 7
    del config["dspark_noise_token_id"]
    config["dspark_config"] = {"mask_token_id": 200}  # dspark_config wins over dflash_config
    assert sglang.parse_dspark_draft_config(draft_hf_config=config).mask_token_id == 200


# --- build_target_layer_ids (srt/speculative/dflash_utils.py) ------------------------------------


def test_build_target_layer_ids_spreads_from_1_to_depth_minus_3(sglang: SglangFunctions) -> None:
    assert sglang.build_target_layer_ids(QWEN3_8B_DEPTH, 5) == [1, 9, 17, 25, 33]
    assert sglang.build_target_layer_ids(QWEN3_8B_DEPTH, 1) == [QWEN3_8B_DEPTH // 2]
    with pytest.raises(ValueError, match="num_target_layers >= 4"):
        sglang.build_target_layer_ids(3, 2)


# --- _resolve_dflash_aux_hidden_state (srt/model_executor/model_runner_components/...) -----------


def test_dflash_layers_are_derived_from_the_target_when_none_are_named(
    sglang: SglangFunctions, qwen3_8b: dict[str, Any]
) -> None:
    # TorchSpec's Qwen3-8B DFlash names no layers: SGLang derives them from the target's
    # depth (vLLM taps its defaults and fails).
    config = sglang.dflash_aux_hidden_state(draft("torchspec--qwen3_8b_dflash"), qwen3_8b)
    assert config.dflash_use_aux_hidden_state is True
    assert config.dflash_target_layer_ids == sglang.build_target_layer_ids(QWEN3_8B_DEPTH, 5)
    assert config.dflash_draft_num_layers == 5


def test_dflash_layers_named_by_the_draft_are_range_checked_against_the_target(
    sglang: SglangFunctions, qwen3_8b: dict[str, Any]
) -> None:
    named = draft("specforge--qwen3-8b-dflash")
    config = sglang.dflash_aux_hidden_state(named, qwen3_8b)
    assert config.dflash_target_layer_ids == [1, 9, 17, 25, 33]
    too_deep = copy.deepcopy(named)
    too_deep["dflash_config"]["target_layer_ids"] = [1, 9, QWEN3_8B_DEPTH]
    with pytest.raises(ValueError, match="out-of-range layer id"):
        sglang.dflash_aux_hidden_state(too_deep, qwen3_8b)


def test_dspark_layers_come_from_the_dspark_parse(
    sglang: SglangFunctions, qwen3_8b: dict[str, Any]
) -> None:
    config = sglang.dflash_aux_hidden_state(
        draft("specforge--qwen3-8b-dspark"), qwen3_8b, algorithm="dspark"
    )
    assert config.is_dspark is True
    assert config.dflash_target_layer_ids == [1, 9, 17, 25, 33]


# --- _resolve_eagle_aux_hidden_state -------------------------------------------------------------


def test_eagle3_layers_are_read_from_eagle_config_only(
    sglang: SglangFunctions, qwen3_8b: dict[str, Any]
) -> None:
    # The speculators EAGLE-3 file names its layers at the top level only: SGLang does not
    # read them (the target's defaults apply).
    top_level = draft("speculators-user--eagle3-qwen3moe-issue1065")
    assert top_level["eagle_aux_hidden_state_layer_ids"] == [2, 46, 91, 93]
    config = sglang.eagle_aux_hidden_state(top_level, qwen3_8b)
    assert config.eagle_use_aux_hidden_state is True
    assert config.eagle_aux_hidden_state_layer_ids is None
    # The reference's example: ids in eagle_config are read (the target class adds 1 later).
    nested = draft("specforge--qwen3-8b-dflash") | {
        "eagle_config": {"eagle_aux_hidden_state_layer_ids": [2, 18, 33]}
    }
    config = sglang.eagle_aux_hidden_state(nested, qwen3_8b)
    assert config.eagle_aux_hidden_state_layer_ids == [2, 18, 33]
