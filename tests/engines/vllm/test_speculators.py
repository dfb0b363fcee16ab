"""Speculators-format drafts: translated as vLLM 0.33 translates them, with clean errors."""

from __future__ import annotations

import contextlib
import copy
import json
from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType, SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drafting_config import ParallelDraftingConfig, check, resolve
from drafting_config.draft.file import SPECULATORS_TYPE_FIELD, is_speculators
from drafting_config.engines.vllm import codes as vllm_codes
from drafting_config.engines.vllm.speculators import (
    AUX_LAYER_IDS_FIELD,
    PARALLEL_DRAFTING_ALGORITHMS,
    SPECULATIVE_TOKENS_FIELD,
    SPECULATORS_ALGORITHMS,
    VERIFIER_FIELD,
    SpeculatorsDraft,
    translate,
)
from drafting_config.values import codes
from drafting_config.values.codes import Step
from drafting_config.values.errors import ParallelDraftingConfigError, describe_value
from drafting_config.values.fields import field_getter
from tests.conftest import EXAMPLES, VALID_EXAMPLES, load_json
from tests.engines.vllm import PARALLEL_SWITCH, PEAGLE
from tests.foreign import Unusable, int_enum
from tests.serve_commands import vllm_switch

Config = dict[str, Any]

EXAMPLE = EXAMPLES / "speculators-dflash-qwen3-8b" / "config.json"


# --- realistic speculators configs, one per algorithm ---------------------------------------------


def qwen3_layer_config(hidden_size: int, intermediate_size: int) -> Config:
    return {
        "model_type": "qwen3",
        "hidden_size": hidden_size,
        "intermediate_size": intermediate_size,
        "num_hidden_layers": 5,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "hidden_act": "silu",
        "max_position_embeddings": 40960,
        "rms_norm_eps": 1e-06,
        "rope_theta": 1000000,
        "vocab_size": 151936,
        "tie_word_embeddings": False,
        "bos_token_id": 151643,
        "eos_token_id": 151645,
    }


def llama3_layer_config() -> Config:
    return {
        "model_type": "llama",
        "hidden_size": 4096,
        "intermediate_size": 14336,
        "num_hidden_layers": 2,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "hidden_act": "silu",
        "max_position_embeddings": 131072,
        "rms_norm_eps": 1e-05,
        "vocab_size": 128256,
        "bos_token_id": 128000,
        "eos_token_id": 128009,
    }


def speculators_section(algorithm: str, tokens: int, verifier: str, arch: str) -> Config:
    return {
        "algorithm": algorithm,
        "proposal_methods": [{"proposal_type": "greedy", "speculative_tokens": tokens}],
        "default_proposal_method": "greedy",
        "verifier": {"name_or_path": verifier, "architectures": [arch]},
    }


def dflash2_config() -> Config:
    return {
        "architectures": ["DFlash2Speculator"],
        "speculators_model_type": "dflash2",
        "speculators_version": "0.9.0",
        "mask_token_id": 151669,
        "aux_hidden_state_layer_ids": [2, 10, 18, 26, 34],
        "draft_vocab_size": 151936,
        "target_hidden_size": 2560,
        "block_size": 16,
        "transformer_layer_config": qwen3_layer_config(2560, 9728),
        "speculators_config": speculators_section(
            "dflash2", 15, "Qwen/Qwen3-4B", "Qwen3ForCausalLM"
        ),
    }


def dspark_config() -> Config:
    return {
        "architectures": ["DSparkSpeculator"],
        "speculators_model_type": "dspark",
        "speculators_version": "0.9.0",
        "mask_token_id": 151669,
        "aux_hidden_state_layer_ids": [2, 13, 24, 35],
        "draft_vocab_size": 151936,
        "target_hidden_size": 4096,
        "block_size": 8,
        "markov_rank": 256,
        "sample_from_anchor": True,
        "transformer_layer_config": qwen3_layer_config(4096, 12288),
        "speculators_config": speculators_section("dspark", 7, "Qwen/Qwen3-8B", "Qwen3ForCausalLM"),
    }


def peagle_config() -> Config:
    return {
        "architectures": ["PeagleSpeculator"],
        "speculators_model_type": "peagle",
        "speculators_version": "0.9.0",
        "mask_token_id": 128002,
        "eagle_aux_hidden_state_layer_ids": [2, 16, 29],
        "draft_vocab_size": 32000,
        "target_hidden_size": 4096,
        "norm_before_residual": False,
        "transformer_layer_config": llama3_layer_config(),
        "speculators_config": speculators_section(
            "peagle", 5, "meta-llama/Llama-3.1-8B-Instruct", "LlamaForCausalLM"
        ),
    }


def eagle3_config() -> Config:
    config = peagle_config()
    del config["mask_token_id"]
    config["speculators_model_type"] = "eagle3"
    config["speculators_config"]["algorithm"] = "eagle3"
    return config


CONFIGS: dict[str, Callable[[], Config]] = {
    "dflash": lambda: load_json(EXAMPLE),
    "dflash2": dflash2_config,
    "dspark": dspark_config,
    "peagle": peagle_config,
}
EXPECTED_MASK = {"dflash": 151669, "dflash2": 151669, "dspark": 151669, "peagle": 128002}


# --- vLLM 0.33's translation, re-expressed from its documented behaviour --------------------------


def vllm_translation(config: Config) -> Config:
    """What vLLM 0.33 builds from a speculators config.json, written plainly.

    Start from ``transformer_layer_config``.  DFlash (and DFlash2) always set
    ``draft_vocab_size`` (null when absent), copy ``target_hidden_size`` when set, require
    ``aux_hidden_state_layer_ids`` (kept as eagle_aux_hidden_state_layer_ids) and
    ``mask_token_id``, and assign a new ``dflash_config`` with the mask id and ``aux - 1``.
    DSpark requires the aux ids, writes ``aux - 1`` to top-level ``target_layer_ids``, and
    copies ``draft_vocab_size``, ``target_hidden_size`` and ``mask_token_id`` when set.
    P-EAGLE always sets ``draft_vocab_size``, copies ``target_hidden_size`` when set,
    requires ``mask_token_id`` and stores it as ``pard_token``, and copies a non-empty
    ``eagle_aux_hidden_state_layer_ids``.  Each writes its architecture: DFlash's and
    DFlash2's draft models, P-EAGLE's class for the layers' ``model_type`` (``llama`` when
    unset), DSpark's ``Qwen3DSparkModel`` unless the file's own top-level list names it or
    ``Qwen3OmniDSparkModel``.
    """
    kind = config["speculators_model_type"]
    result = dict(config["transformer_layer_config"])
    model_type = result.get("model_type", "llama")
    eagle = {"llama": "LlamaForCausalLM", "qwen3": "Qwen3ForCausalLM"}[model_type]
    kept = [name for name in config.get("architectures") or [] if "Qwen3" in name]
    result["architectures"] = {
        "dflash": ["DFlashDraftModel"],
        "dflash2": ["DFlash2DraftModel"],
        "dspark": kept or ["Qwen3DSparkModel"],
        "peagle": [f"Peagle{eagle}"],
    }[kind]
    if kind in {"dflash", "dflash2"}:
        result["draft_vocab_size"] = config.get("draft_vocab_size")
        if config.get("target_hidden_size") is not None:
            result["target_hidden_size"] = config["target_hidden_size"]
        aux = config["aux_hidden_state_layer_ids"]
        result["eagle_aux_hidden_state_layer_ids"] = aux
        result["dflash_config"] = {
            "mask_token_id": config["mask_token_id"],
            "target_layer_ids": [i - 1 for i in aux],
        }
    elif kind == "dspark":
        aux = config["aux_hidden_state_layer_ids"]
        result["eagle_aux_hidden_state_layer_ids"] = aux
        result["target_layer_ids"] = [i - 1 for i in aux]
        for key in ("draft_vocab_size", "target_hidden_size", "mask_token_id"):
            if config.get(key) is not None:
                result[key] = config[key]
    elif kind == "peagle":
        result["draft_vocab_size"] = config.get("draft_vocab_size")
        if config.get("target_hidden_size") is not None:
            result["target_hidden_size"] = config["target_hidden_size"]
        result["pard_token"] = config["mask_token_id"]
        if config.get("eagle_aux_hidden_state_layer_ids"):
            result["eagle_aux_hidden_state_layer_ids"] = config["eagle_aux_hidden_state_layer_ids"]
    else:
        raise AssertionError(kind)
    return result


CHECKED_FIELDS = (
    "hidden_size",
    "vocab_size",
    "num_hidden_layers",
    "draft_vocab_size",
    "target_hidden_size",
    "dflash_config",
    "mask_token_id",
    "pard_token",
    "dspark_noise_token_id",
    "ptd_token_id",
    "target_layer_ids",
    "eagle_aux_hidden_state_layer_ids",
)


@pytest.fixture(params=sorted(CONFIGS))
def algorithm(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


# --- the table ------------------------------------------------------------------------------------


def test_the_table_lists_the_parallel_drafting_algorithms_and_eagle3() -> None:
    assert PARALLEL_DRAFTING_ALGORITHMS == ("dflash", "dflash2", "dspark", "peagle")
    assert sorted(CONFIGS) == sorted(PARALLEL_DRAFTING_ALGORITHMS)
    assert set(SPECULATORS_ALGORITHMS) == {*PARALLEL_DRAFTING_ALGORITHMS, "eagle3"}
    assert not SPECULATORS_ALGORITHMS["eagle3"].parallel_drafting
    assert all(row.fed_target_hidden_states for row in SPECULATORS_ALGORITHMS.values())
    assert SPECULATORS_ALGORITHMS["peagle"].vllm_method == "eagle3"
    assert SPECULATORS_ALGORITHMS["dflash2"].vllm_method == "dflash"
    assert all(name == row.name for name, row in SPECULATORS_ALGORITHMS.items())


# --- translation ----------------------------------------------------------------------------------


def test_translation_equals_vllms_for_every_algorithm(algorithm: str) -> None:
    config = CONFIGS[algorithm]()
    draft = translate(config.get)
    expected = vllm_translation(config)
    assert draft.hf_config == expected
    for field in CHECKED_FIELDS:  # spelled out: these are what the resolver reads
        assert draft.hf_config.get(field) == expected.get(field), field
    assert draft.algorithm == algorithm
    assert (
        draft.speculative_tokens
        == config["speculators_config"]["proposal_methods"][0]["speculative_tokens"]
    )
    assert draft.verifier == config["speculators_config"]["verifier"]["name_or_path"]


def test_the_translated_config_resolves_to_the_mask_id_where_vllm_puts_it(algorithm: str) -> None:
    draft = translate(CONFIGS[algorithm]().get)
    resolved = ParallelDraftingConfig.from_hf_config(draft.hf_config)
    assert resolved.token_id == EXPECTED_MASK[algorithm]
    assert resolved.source is draft.spec.mask_token_source
    assert resolved.hidden_size == draft.hf_config["hidden_size"]
    assert resolved.vocab_size == draft.hf_config["vocab_size"]


def test_sizes_come_from_transformer_layer_config(algorithm: str) -> None:
    config = CONFIGS[algorithm]()
    draft = translate(config.get)
    layer = config["transformer_layer_config"]
    assert (draft.hf_config["hidden_size"], draft.hf_config["vocab_size"]) == (
        layer["hidden_size"],
        layer["vocab_size"],
    )


def test_aux_ids_are_kept_as_given_and_shifted_into_the_target_layers() -> None:
    for name, where in [("dflash", "dflash_config"), ("dflash2", "dflash_config"), ("dspark", "")]:
        config = CONFIGS[name]()
        draft = translate(config.get)
        aux = config[AUX_LAYER_IDS_FIELD]
        section = draft.hf_config[where] if where else draft.hf_config
        assert isinstance(section, dict)
        assert section["target_layer_ids"] == [i - 1 for i in aux]
        assert draft.hf_config["eagle_aux_hidden_state_layer_ids"] == aux


def test_peagle_has_no_aux_ids_and_passes_its_eagle_ids_through() -> None:
    draft = translate(peagle_config().get)
    assert draft.spec.target_layer_ids_field is None
    assert "target_layer_ids" not in draft.hf_config
    assert draft.hf_config["eagle_aux_hidden_state_layer_ids"] == [2, 16, 29]


@pytest.mark.parametrize(
    ("value", "copied"),
    [
        ([], False),
        (None, False),
        (0, False),
        (0.0, False),
        (False, False),
        ("", False),
        ({}, False),
        ([3], True),
        ("x", True),
        (1.5, True),
    ],
)
def test_peagle_copies_eagle_ids_only_when_not_empty(value: object, copied: bool) -> None:
    config = peagle_config()
    config["eagle_aux_hidden_state_layer_ids"] = value
    hf_config = translate(config.get).hf_config
    assert ("eagle_aux_hidden_state_layer_ids" in hf_config) is copied
    assert hf_config == vllm_translation(config)


def test_dflash_replaces_a_dflash_config_from_transformer_layer_config() -> None:
    config = CONFIGS["dflash"]()
    config["transformer_layer_config"]["dflash_config"] = {"mask_token_id": 5, "block_size": 16}
    hf_config = translate(config.get).hf_config
    assert hf_config["dflash_config"] == {
        "mask_token_id": 151669,
        "target_layer_ids": [1, 9, 17, 25, 33],
    }
    assert hf_config == vllm_translation(config)


@pytest.mark.parametrize("algorithm_name", ["dflash", "dflash2", "peagle"])
def test_draft_vocab_size_is_always_set_for_dflash_and_peagle(algorithm_name: str) -> None:
    config = CONFIGS[algorithm_name]()
    del config["draft_vocab_size"]
    config["transformer_layer_config"]["draft_vocab_size"] = 32000
    hf_config = translate(config.get).hf_config
    assert "draft_vocab_size" in hf_config
    assert hf_config["draft_vocab_size"] is None
    assert hf_config == vllm_translation(config)


def test_dspark_copies_draft_vocab_size_target_hidden_size_and_mask_only_when_set() -> None:
    config = dspark_config()
    config["transformer_layer_config"]["draft_vocab_size"] = 32000
    for key in ("draft_vocab_size", "target_hidden_size", "mask_token_id"):
        config[key] = None
    hf_config = translate(config.get).hf_config
    assert hf_config["draft_vocab_size"] == 32000
    assert "target_hidden_size" not in hf_config
    assert "mask_token_id" not in hf_config
    assert hf_config == vllm_translation(config)
    del config["mask_token_id"]
    assert "mask_token_id" not in translate(config.get).hf_config


@pytest.mark.parametrize("algorithm_name", ["dflash", "dflash2", "peagle"])
def test_a_null_required_mask_id_is_copied_for_the_resolver_to_judge(algorithm_name: str) -> None:
    config = CONFIGS[algorithm_name]()
    config["mask_token_id"] = None
    hf_config = translate(config.get).hf_config
    assert hf_config == vllm_translation(config)
    source = SPECULATORS_ALGORITHMS[algorithm_name].mask_token_source
    assert source is not None
    section = hf_config[source.section] if source.section else hf_config
    assert isinstance(section, dict)
    assert source.key in section
    assert section[source.key] is None


def test_token_ids_are_copied_as_they_are() -> None:
    config = CONFIGS["dflash"]()
    config["mask_token_id"] = "151669"
    draft = translate(config.get)
    assert draft.hf_config["dflash_config"] == {
        "mask_token_id": "151669",
        "target_layer_ids": [1, 9, 17, 25, 33],
    }


def test_translate_leaves_its_input_as_it_was(algorithm: str) -> None:
    config = CONFIGS[algorithm]()
    before = copy.deepcopy(config)
    draft = translate(config.get)
    assert config == before
    draft.hf_config["hidden_size"] = 1
    assert config["transformer_layer_config"]["hidden_size"] != 1


# --- the bundled example --------------------------------------------------------------------------


def test_the_bundled_example_translates_to_qwen3_8b_facts() -> None:
    draft = translate(field_getter(load_json(EXAMPLE), ""))
    assert draft.algorithm == "dflash"
    assert draft.verifier == "Qwen/Qwen3-8B"
    assert draft.speculative_tokens == 15
    assert draft.hf_config["dflash_config"] == {
        "mask_token_id": 151669,
        "target_layer_ids": [1, 9, 17, 25, 33],
    }
    assert (draft.hf_config["hidden_size"], draft.hf_config["vocab_size"]) == (4096, 151936)
    assert draft.hf_config["eagle_aux_hidden_state_layer_ids"] == [2, 10, 18, 26, 34]
    assert ParallelDraftingConfig.from_hf_config(draft.hf_config).token_id == 151669


def test_the_bundled_example_is_picked_up_with_the_other_examples() -> None:
    assert EXAMPLE in VALID_EXAMPLES


def test_is_speculators_tells_the_formats_apart() -> None:
    for path in VALID_EXAMPLES:
        config = load_json(path)
        assert is_speculators(config.get) is (path == EXAMPLE), path
    for make in (*CONFIGS.values(), eagle3_config):
        assert is_speculators(make().get)
    assert is_speculators({"speculators_config": {}}.get)
    assert is_speculators({"speculators_model_type": "dflash"}.get)
    assert not is_speculators({"speculators_model_type": None, "speculators_config": None}.get)


@pytest.mark.parametrize("algorithm_name", [*sorted(CONFIGS), "eagle3"])
def test_a_top_level_model_type_makes_it_a_hugging_face_config(algorithm_name: str) -> None:
    """vLLM's ``HFConfigParser.parse`` reads the file as a speculators file only when its
    top-level ``model_type`` is missing or null, as the draft of ``--speculative-config``
    and of ``--model`` alike; a set ``model_type`` wins and the file is that model type's
    Hugging Face config."""
    config = CONFIGS[algorithm_name]() if algorithm_name in CONFIGS else eagle3_config()
    config["model_type"] = None
    assert is_speculators(config.get)
    config["model_type"] = "qwen3"
    assert not is_speculators(config.get)
    resolution = resolve(config)
    assert resolution.format == "hf"
    assert resolution.speculators is None


# --- errors ---------------------------------------------------------------------------------------

REQUIRED_PATHS = [
    "speculators_config",
    "speculators_config.proposal_methods",
    "speculators_config.proposal_methods[0].speculative_tokens",
    "speculators_config.verifier",
    "speculators_config.verifier.name_or_path",
    "transformer_layer_config",
]
REQUIRED_BY_ALGORITHM = {
    "dflash": ["mask_token_id", "aux_hidden_state_layer_ids"],
    "dflash2": ["mask_token_id", "aux_hidden_state_layer_ids"],
    "dspark": ["aux_hidden_state_layer_ids"],
    "peagle": ["mask_token_id"],
}
MISSING_CASES = [
    (name, path)
    for name in sorted(CONFIGS)
    for path in [*REQUIRED_PATHS, *REQUIRED_BY_ALGORITHM[name]]
]


def delete_path(config: Config, path: str) -> None:
    """Delete the key at a path like ``a.b[0].c``."""
    *parents, last = path.replace("[0]", ".0").split(".")
    node: Any = config
    for part in parents:
        node = node[int(part)] if part.isdigit() else node[part]
    del node[last]


def set_path(config: Config, path: str, value: object) -> None:
    *parents, last = path.replace("[0]", ".0").split(".")
    node: Any = config
    for part in parents:
        node = node[int(part)] if part.isdigit() else node[part]
    if last.isdigit():
        node[int(last)] = value
    else:
        node[last] = value


@pytest.mark.parametrize(("algorithm_name", "path"), MISSING_CASES)
def test_a_missing_required_key_is_named_by_its_full_path(algorithm_name: str, path: str) -> None:
    config = CONFIGS[algorithm_name]()
    delete_path(config, path)
    with pytest.raises(ParallelDraftingConfigError) as caught:
        translate(config.get)
    assert caught.value.field == path
    assert str(caught.value).startswith(f"`{path}` is missing")


def test_the_four_leaf_paths_of_the_issue_are_the_fields() -> None:
    assert SPECULATIVE_TOKENS_FIELD == "speculators_config.proposal_methods[0].speculative_tokens"
    assert VERIFIER_FIELD == "speculators_config.verifier.name_or_path"
    fields = {path for _, path in MISSING_CASES}
    assert {
        "mask_token_id",
        "aux_hidden_state_layer_ids",
        SPECULATIVE_TOKENS_FIELD,
        VERIFIER_FIELD,
    } <= fields


def test_an_empty_proposal_list_names_its_missing_first_entry() -> None:
    config = CONFIGS["dflash"]()
    config["speculators_config"]["proposal_methods"] = []
    with pytest.raises(ParallelDraftingConfigError) as caught:
        translate(config.get)
    assert caught.value.field == "speculators_config.proposal_methods[0]"
    assert "`speculators_config.proposal_methods` is empty" in str(caught.value)


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("speculators_config", []),
        ("speculators_config", "dflash"),
        ("speculators_config", None),
        ("speculators_config.verifier", "Qwen/Qwen3-8B"),
        ("speculators_config.verifier", None),
        ("speculators_config.proposal_methods[0]", 15),
        ("speculators_config.proposal_methods[0]", ["greedy", 15]),
        ("transformer_layer_config", None),
        ("transformer_layer_config", "qwen3"),
        ("transformer_layer_config", [["hidden_size", 4096]]),
    ],
)
def test_a_section_that_is_not_a_json_object_is_named_by_its_full_path(
    path: str, value: object
) -> None:
    config = CONFIGS["dflash"]()
    set_path(config, path, value)
    with pytest.raises(ParallelDraftingConfigError) as caught:
        translate(config.get)
    assert caught.value.field == path
    assert "is not a JSON object" in str(caught.value)
    assert str(caught.value).startswith(f"`{path}` = ")
    assert describe_value(value) in str(caught.value)


def test_attribute_objects_are_not_json_objects() -> None:
    config = CONFIGS["dflash"]()
    config["speculators_config"] = SimpleNamespace(**config["speculators_config"])
    with pytest.raises(ParallelDraftingConfigError) as caught:
        translate(config.get)
    assert caught.value.field == "speculators_config"


@pytest.mark.parametrize("value", [{}, "greedy", 15, None])
def test_proposal_methods_must_be_an_array(value: object) -> None:
    config = CONFIGS["dflash"]()
    config["speculators_config"]["proposal_methods"] = value
    with pytest.raises(ParallelDraftingConfigError) as caught:
        translate(config.get)
    assert caught.value.field == "speculators_config.proposal_methods"
    assert "is not a non-empty JSON array of proposal methods" in str(caught.value)


@pytest.mark.parametrize("value", [0, -1, True, 15.0, "15", None, 2**31, [15]], ids=describe_value)
def test_speculative_tokens_must_be_a_positive_int(value: object) -> None:
    config = CONFIGS["dflash"]()
    set_path(config, SPECULATIVE_TOKENS_FIELD, value)
    with pytest.raises(ParallelDraftingConfigError) as caught:
        translate(config.get)
    assert caught.value.field == SPECULATIVE_TOKENS_FIELD
    assert describe_value(value) in str(caught.value)


def test_a_hostile_int_of_speculative_tokens_counts_as_its_real_value() -> None:
    config = CONFIGS["dflash"]()
    set_path(config, SPECULATIVE_TOKENS_FIELD, int_enum(15))
    tokens = translate(config.get).speculative_tokens
    assert tokens == 15
    assert type(tokens) is int


@pytest.mark.parametrize("value", ["", None, 8, ["Qwen/Qwen3-8B"]])
def test_the_verifier_must_be_a_non_empty_string(value: object) -> None:
    config = CONFIGS["dflash"]()
    set_path(config, VERIFIER_FIELD, value)
    with pytest.raises(ParallelDraftingConfigError) as caught:
        translate(config.get)
    assert caught.value.field == VERIFIER_FIELD


@pytest.mark.parametrize(
    ("value", "phrase"),
    [
        ("2,10", "got '2,10' (str)"),
        (None, "got None"),
        ({"2": 1}, "got {'2': 1} (dict)"),
        ([2, "10"], "item 1 is '10' (str)"),
        ([2, None], "item 1 is None"),
    ],
)
def test_aux_ids_are_refused_where_vllms_translation_fails(value: object, phrase: str) -> None:
    """vLLM computes ``[i - 1 for i in aux]`` and fails with a bare TypeError on these."""
    for name in ("dflash", "dflash2", "dspark"):
        config = CONFIGS[name]()
        config[AUX_LAYER_IDS_FIELD] = value
        with pytest.raises(ParallelDraftingConfigError) as caught:
            translate(config.get)
        assert caught.value.field == AUX_LAYER_IDS_FIELD
        assert phrase in str(caught.value)
        assert "vLLM computes id - 1 for each and fails on it" in str(caught.value)


@pytest.mark.parametrize("value", ["", {}])
def test_an_empty_string_or_object_of_aux_ids_is_no_layers(value: object) -> None:
    """vLLM iterates ``aux_hidden_state_layer_ids`` (``[i - 1 for i in aux]``): an empty
    string or object yields no layers, as ``[]`` does, and is kept as given beside them; the
    rules for a draft that names no target layers then judge it, as they judge ``[]``."""
    for name, where in (("dflash", "dflash_config"), ("dflash2", "dflash_config"), ("dspark", "")):
        config = CONFIGS[name]()
        config[AUX_LAYER_IDS_FIELD] = value
        draft = translate(config.get)
        assert draft.hf_config["eagle_aux_hidden_state_layer_ids"] == value
        section = draft.hf_config[where] if where else draft.hf_config
        assert isinstance(section, dict)
        assert section["target_layer_ids"] == []
        resolution = resolve(config)
        assert resolution.errors == ()
        assert resolution.aux_layer_ids is None
        verdict = check(config, check_tokenizer=False, check_weights=False)
        config[AUX_LAYER_IDS_FIELD] = []
        as_empty_list = check(config, check_tokenizer=False, check_weights=False)
        assert verdict.ok == as_empty_list.ok
        assert [str(e) for e in verdict.errors] == [str(e) for e in as_empty_list.errors]
        assert [str(w) for w in verdict.warnings] == [str(w) for w in as_empty_list.warnings]
        assert any(w.code is vllm_codes.DEFAULT_LAYERS_MISMATCH for w in verdict.warnings), name


@pytest.mark.parametrize("value", [[0, 10], [], [10, 2], [2, True], [2, 2.5]])
def test_aux_ids_vllm_translates_are_translated_and_left_to_check(value: list[object]) -> None:
    """A 0 (the input of the target's first layer), an empty list, a reordering, a bool or
    a float: vLLM's translation takes them all, so the token id resolves; ``check()`` judges
    the layers on the list the serving runner reads."""
    for name, where in (("dflash", "dflash_config"), ("dflash2", "dflash_config"), ("dspark", "")):
        config = CONFIGS[name]()
        config[AUX_LAYER_IDS_FIELD] = value
        draft = translate(config.get)
        assert draft.hf_config["eagle_aux_hidden_state_layer_ids"] == value
        section = draft.hf_config[where] if where else draft.hf_config
        assert isinstance(section, dict)
        assert section["target_layer_ids"] == [i - 1 for i in value]  # type: ignore[operator]
        assert resolve(config).errors == ()


@pytest.mark.parametrize(
    "value", [None, "mistral", "Qwen3", "qwen3_moe", "", 7, ["llama"]], ids=describe_value
)
@pytest.mark.parametrize("algorithm_name", ["peagle", "eagle3"])
def test_a_model_type_vllm_maps_to_no_eagle_class_is_refused(
    algorithm_name: str, value: object
) -> None:
    """``update_peagle`` and ``update_eagle3`` map only ``llama`` and ``qwen3`` to a class
    and raise ``ValueError`` for anything else, a present ``null`` included."""
    config = peagle_config() if algorithm_name == "peagle" else eagle3_config()
    config["transformer_layer_config"]["model_type"] = value
    with pytest.raises(ParallelDraftingConfigError) as caught:
        translate(config.get, parallel_only=False)
    message = str(caught.value)
    assert caught.value.field == "transformer_layer_config.model_type"
    assert f"`transformer_layer_config.model_type` is {describe_value(value)}" in message
    assert f"vLLM's `update_{algorithm_name}` maps to no" in message
    assert caught.value.evidence == (
        f"vllm/transformers_utils/configs/speculators/algos.py: update_{algorithm_name} raises "
        'ValueError "Unsupported model_type"'
    )
    assert "accepts only 'llama' or 'qwen3', 'llama' when the key is missing" in message


@pytest.mark.parametrize("value", ["llama", "qwen3", None])
@pytest.mark.parametrize("algorithm_name", ["peagle", "eagle3"])
def test_the_model_types_vllm_maps_are_translated(algorithm_name: str, value: str | None) -> None:
    config = peagle_config() if algorithm_name == "peagle" else eagle3_config()
    if value is None:  # missing: vLLM counts it as llama
        del config["transformer_layer_config"]["model_type"]
    else:
        config["transformer_layer_config"]["model_type"] = value
    assert translate(config.get, parallel_only=False).algorithm == algorithm_name


def test_a_peagle_file_of_another_model_type_is_not_ok() -> None:
    config = peagle_config()
    config["transformer_layer_config"]["model_type"] = "mistral"
    resolution = resolve(config)
    assert [error.field for error in resolution.errors] == ["transformer_layer_config.model_type"]
    assert resolution.format == "speculators"
    assert resolution.winner is None


@pytest.mark.parametrize("algorithm_name", ["dflash", "dflash2", "dspark"])
def test_other_algorithms_do_not_read_the_model_type(algorithm_name: str) -> None:
    config = CONFIGS[algorithm_name]()
    config["transformer_layer_config"]["model_type"] = "mistral"
    assert translate(config.get).hf_config["model_type"] == "mistral"


def test_the_model_types_are_those_vllms_updaters_map() -> None:
    """``update_eagle3`` and ``update_peagle`` map these model types, ``llama`` first (a
    missing key), to the classes vLLM's registry serves them as."""
    assert dict(SPECULATORS_ALGORITHMS["peagle"].model_types or {}) == {
        "llama": "PeagleLlamaForCausalLM",
        "qwen3": "PeagleQwen3ForCausalLM",
    }
    assert dict(SPECULATORS_ALGORITHMS["eagle3"].model_types or {}) == {
        "llama": "Eagle3LlamaForCausalLM",
        "qwen3": "Eagle3Qwen3ForCausalLM",
    }
    assert all(
        row.model_types is None
        for name, row in SPECULATORS_ALGORITHMS.items()
        if name not in {"peagle", "eagle3"}
    )


def test_eagle3_is_not_parallel_drafting() -> None:
    with pytest.raises(ParallelDraftingConfigError) as caught:
        translate(eagle3_config().get)
    message = str(caught.value)
    assert caught.value.field == SPECULATORS_TYPE_FIELD
    assert "eagle3 is not parallel drafting" in message
    assert "ptd_token_id" not in message  # not the five-field error


def test_a_file_refused_as_eagle3_is_still_a_speculators_file() -> None:
    """The format and algorithm stay, and so do the layers vLLM taps."""
    resolution = resolve(eagle3_config())
    assert [error.field for error in resolution.errors] == [SPECULATORS_TYPE_FIELD]
    assert (resolution.format, resolution.algorithm) == ("speculators", "eagle3")
    assert resolution.aux_layer_ids == (2, 16, 29)
    assert resolution.aux_layer_source == "eagle_aux_hidden_state_layer_ids"
    assert resolution.winner is None


@pytest.mark.parametrize("path", ["transformer_layer_config", SPECULATIVE_TOKENS_FIELD])
def test_a_broken_speculators_file_keeps_its_format(path: str) -> None:
    config = CONFIGS["dflash"]()
    delete_path(config, path)
    resolution = resolve(config)
    assert [error.field for error in resolution.errors] == [path]
    assert resolution.format == "speculators"
    assert (resolution.algorithm, resolution.aux_layer_ids) == (None, None)


@pytest.mark.parametrize("value", ["medusa", "DFlash", "", 7, ["dflash"], b"dflash"])
def test_an_unknown_type_lists_the_known_ones(value: object) -> None:
    config = CONFIGS["dflash"]()
    config[SPECULATORS_TYPE_FIELD] = value
    with pytest.raises(ParallelDraftingConfigError) as caught:
        translate(config.get)
    message = str(caught.value)
    assert caught.value.field == SPECULATORS_TYPE_FIELD
    assert "dflash, dflash2, dspark, peagle (parallel drafting) or eagle3" in message
    assert describe_value(value) in message


@pytest.mark.parametrize("present", [False, True])
def test_a_missing_or_null_type_is_named(present: bool) -> None:
    config = CONFIGS["dflash"]()
    if present:
        config[SPECULATORS_TYPE_FIELD] = None
    else:
        del config[SPECULATORS_TYPE_FIELD]
    with pytest.raises(ParallelDraftingConfigError) as caught:
        translate(config.get)
    assert caught.value.field == SPECULATORS_TYPE_FIELD
    assert ("is null" if present else "is missing") in str(caught.value)


def test_transformer_layer_config_keys_must_be_strings() -> None:
    config = CONFIGS["dflash"]()
    config["transformer_layer_config"][7] = "x"
    with pytest.raises(ParallelDraftingConfigError) as caught:
        translate(config.get)
    assert caught.value.field == "transformer_layer_config"
    assert "7 (int)" in str(caught.value)


# --- hostile and junk input -----------------------------------------------------------------------


class HostileMapping(Mapping[str, Any]):
    """A mapping whose every method raises."""

    def __getitem__(self, key: str) -> Any:
        raise RuntimeError("no item")

    def __iter__(self) -> Iterator[str]:
        raise RuntimeError("no iteration")

    def __len__(self) -> int:
        raise RuntimeError("no length")

    def get(self, key: str, default: Any = None) -> Any:
        raise RuntimeError("no get")

    def items(self) -> Any:
        raise RuntimeError("no items")

    def __repr__(self) -> str:
        raise RuntimeError("no repr")


SECTIONS = [
    "speculators_config",
    "speculators_config.verifier",
    "speculators_config.proposal_methods[0]",
    "transformer_layer_config",
]


@pytest.mark.parametrize("path", SECTIONS)
def test_a_hostile_mapping_section_gives_our_error_naming_it(path: str) -> None:
    config = CONFIGS["dflash"]()
    set_path(config, path, HostileMapping())
    with pytest.raises(ParallelDraftingConfigError) as caught:
        translate(config.get)
    assert caught.value.field is not None
    assert caught.value.field.startswith(path)


def test_a_hostile_root_mapping_gives_our_error() -> None:
    with pytest.raises(ParallelDraftingConfigError) as caught:
        translate(field_getter(HostileMapping(), ""))
    assert caught.value.field == SPECULATORS_TYPE_FIELD
    with pytest.raises(ParallelDraftingConfigError):
        is_speculators(field_getter(HostileMapping(), ""))


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-5, max_value=40),
    st.integers(),
    st.floats(allow_nan=True),
    st.text(max_size=10),
    st.sampled_from(["dflash", "dflash2", "dspark", "peagle", "eagle3", "Qwen/Qwen3-8B"]),
    st.builds(int_enum, st.integers(min_value=0, max_value=40)),
    st.builds(Unusable),
    st.builds(HostileMapping),
    st.builds(object),
)
junk: st.SearchStrategy[object] = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(
            st.sampled_from(["name_or_path", "speculative_tokens", "hidden_size", "x"]),
            inner,
            max_size=3,
        ),
    ),
    max_leaves=6,
)

JUNK_PATHS = [
    SPECULATORS_TYPE_FIELD,
    "mask_token_id",
    "aux_hidden_state_layer_ids",
    "eagle_aux_hidden_state_layer_ids",
    "draft_vocab_size",
    "target_hidden_size",
    "transformer_layer_config",
    "transformer_layer_config.hidden_size",
    "speculators_config",
    "speculators_config.proposal_methods",
    "speculators_config.proposal_methods[0]",
    SPECULATIVE_TOKENS_FIELD,
    "speculators_config.verifier",
    VERIFIER_FIELD,
]


@given(
    name=st.sampled_from(sorted(CONFIGS)),
    changes=st.lists(st.tuples(st.sampled_from(JUNK_PATHS), junk), min_size=1, max_size=3),
    through_field_getter=st.booleans(),
)
def test_junk_anywhere_gives_a_draft_or_our_error(
    name: str, changes: list[tuple[str, object]], through_field_getter: bool
) -> None:
    config = CONFIGS[name]()
    for path, value in changes:
        # An earlier change may have replaced a parent: then there is nothing to set.
        with contextlib.suppress(KeyError, TypeError, IndexError, RuntimeError):
            set_path(config, path, value)
    get = field_getter(config, "") if through_field_getter else config.get
    outcome: SpeculatorsDraft | ParallelDraftingConfigError
    try:
        outcome = translate(get)
    except ParallelDraftingConfigError as error:
        outcome = error
    if isinstance(outcome, ParallelDraftingConfigError):
        assert outcome.field is not None
        assert str(outcome)  # the message renders
        return
    draft = outcome
    assert draft.algorithm in PARALLEL_DRAFTING_ALGORITHMS
    assert type(draft.speculative_tokens) is int
    assert draft.speculative_tokens >= 1
    assert type(draft.verifier) is str
    assert draft.verifier
    assert all(type(key) is str for key in draft.hf_config)


# --- transformers configs -------------------------------------------------------------------------


@pytest.mark.slow
def test_a_transformers_config_of_a_speculators_file_translates_the_same() -> None:
    from transformers import PreTrainedConfig

    data = load_json(EXAMPLE)
    hf = PreTrainedConfig.from_dict(json.loads(json.dumps(data)))
    draft = translate(field_getter(hf, ""))
    assert draft == translate(data.get)


def test_the_resolver_reads_a_speculators_file_as_vllm_does() -> None:
    from drafting_config import ParallelDraftingConfig
    from tests.conftest import EXAMPLES

    config = ParallelDraftingConfig.from_pretrained(EXAMPLES / "speculators-dflash-qwen3-8b")
    assert (config.token_id, config.hidden_size, config.vocab_size) == (151669, 4096, 151936)
    assert (config.format, config.algorithm) == ("speculators", "dflash")


def test_eagle3_is_refused_as_not_parallel_drafting_by_the_model() -> None:
    from drafting_config import ParallelDraftingConfig

    with pytest.raises(ParallelDraftingConfigError, match="not parallel drafting") as info:
        ParallelDraftingConfig.from_hf_config({"speculators_model_type": "eagle3"})
    assert info.value.field == "speculators_model_type"


# --- a speculators eagle3 file: sequential EAGLE-3, as vLLM serves it ----------------------------


def test_a_speculators_eagle3_file_is_served_as_sequential_eagle3() -> None:
    # update_eagle3 (speculators/algos.py) reads no token id: vLLM serves it as EAGLE-3,
    # sequentially; the real engine builds Eagle3LlamaForCausalLM and passes every stage.
    verdict = check(eagle3_config(), check_tokenizer=False)
    assert verdict.ok, [str(e) for e in verdict.errors]
    assert (verdict.mode, verdict.parallel) == ("eagle3", False)
    assert vllm_switch(verdict.serve_with) == {"method": "eagle3"}
    assert vllm_codes.SERVED_SEQUENTIALLY in {getattr(note, "code", None) for note in verdict.notes}
    required = check(
        eagle3_config(), check_tokenizer=False, require_parallel=True, engine=PARALLEL_SWITCH
    )
    (error,) = required.errors
    assert (error.code, error.field) == (codes.SEQUENTIAL_NOT_PARALLEL, SPECULATORS_TYPE_FIELD)
    assert error.step is Step.TOKEN  # the real engine: no token field, at the speculator
    (error,) = check(eagle3_config(), check_tokenizer=False, require_parallel=True).errors
    assert (error.code, error.step) == (vllm_codes.PARALLEL_SWITCH_REFUSED, Step.PARSE)  # 0.34.0


def test_a_broken_speculators_eagle3_file_stays_invalid_when_served_sequentially() -> None:
    config = eagle3_config()
    del config["speculators_config"]["verifier"]
    errors = check(config, check_tokenizer=False).errors
    assert [error.field for error in errors] == ["speculators_config.verifier"]


@pytest.mark.parametrize(
    ("taps", "declared", "refused"),
    [((2, 16, 29), None, False), ((2, 16, 29, 30), None, True), ((2, 16, 29, 30), 4, False)],
)
def test_the_eagle3_width_rule_runs_on_a_speculators_eagle3_file(
    taps: tuple[int, ...], declared: int | None, refused: bool
) -> None:
    # The speculators issue #1065 config on the real engine: 4 taps, fc and its pre-fc norm
    # sized for 3 ("Attempting to broadcast a dimension of length 12288"); with
    # transformer_layer_config.num_aux_hidden_states = 4, Eagle3LlamaForCausalLM sizes for 4.
    config = eagle3_config()
    config["eagle_aux_hidden_state_layer_ids"] = list(taps)
    if declared is not None:
        config["transformer_layer_config"]["num_aux_hidden_states"] = declared
    for required in (False, True):
        verdict = check(config, check_tokenizer=False, require_parallel=required)
        width = [e for e in verdict.errors if e.code is vllm_codes.EAGLE3_WIDTH]
        assert bool(width) is refused
        if refused:
            assert width[0].field == "eagle_aux_hidden_state_layer_ids"
            assert width[0].step is Step.WIDTH


@pytest.mark.parametrize(
    ("algorithm", "field", "refused"),
    [
        ("dflash", "max_position_embeddings", True),
        ("dflash", "rms_norm_eps", True),
        ("dflash2", "max_position_embeddings", True),
        ("dspark", "max_position_embeddings", True),
        ("peagle", "rms_norm_eps", True),
        ("eagle3", "rms_norm_eps", True),
        ("eagle3", "max_position_embeddings", False),
    ],
)
def test_a_layer_config_field_the_class_reads_must_be_set(
    algorithm: str, field: str, refused: bool
) -> None:
    # The real engine (tools/engines/vllm/harness): "'SpeculatorsConfig' object has no attribute
    # 'max_position_embeddings'" building a DFlash or DSpark draft, "... 'rms_norm_eps'"
    # building DFlash and EAGLE-3 ones; an EAGLE-3 draft without max_position_embeddings
    # passes every stage (its rotary size has a default).
    config = eagle3_config() if algorithm == "eagle3" else CONFIGS[algorithm]()
    config["sample_from_anchor"] = False
    del config["transformer_layer_config"][field]
    engine = PEAGLE if algorithm == "peagle" else "vllm"  # later releases refuse P-EAGLE
    errors = check(config, engine=engine, check_tokenizer=False).errors
    missing = [e for e in errors if e.code is vllm_codes.CONSTRUCTOR_FIELD_MISSING]
    assert bool(missing) is refused, [str(e) for e in errors]
    if refused:
        (error,) = missing
        assert error.field == f"transformer_layer_config.{field}"
        assert error.step is Step.CONSTRUCTION
        assert error.evidence is not None
        assert f"has no attribute '{field}'" in error.evidence
    config["transformer_layer_config"][field] = None  # present: not this rule's
    assert not [
        e
        for e in check(config, engine=engine).errors
        if e.code is vllm_codes.CONSTRUCTOR_FIELD_MISSING
    ]


# --- errors name the file's fields, not the translated ones ---------------------------------------


def test_a_bad_mask_token_id_is_named_as_the_file_has_it(algorithm: str) -> None:
    # vLLM reads it as dflash_config.mask_token_id (DFlash), mask_token_id (DSpark) or
    # pard_token (P-EAGLE); the user's file has a top-level mask_token_id in every case.
    config = CONFIGS[algorithm]()
    vocab_size = config["transformer_layer_config"]["vocab_size"]
    for value, phrase in [(vocab_size, "is out of range"), ("5", "must be an integer")]:
        config["mask_token_id"] = value
        resolution = resolve(config)
        (error,) = resolution.errors
        assert error.field == "mask_token_id"
        assert str(error).startswith("`mask_token_id` ")
        assert phrase in str(error)
        # The verdict table stays vLLM's view: which field of the priority order holds it.
        (invalid,) = [f for f in resolution.fields if f.error is not None]
        assert invalid.source is translate(config.get).spec.mask_token_source
        with pytest.raises(ParallelDraftingConfigError) as info:
            ParallelDraftingConfig.from_hf_config(config)
        assert info.value.field == "mask_token_id"


def test_sizes_and_placeholders_are_named_inside_transformer_layer_config() -> None:
    config = dflash2_config()
    config["transformer_layer_config"]["vocab_size"] = "151936"
    (error,) = resolve(config).errors
    assert error.field == "transformer_layer_config.vocab_size"
    assert str(error).startswith("`transformer_layer_config.vocab_size` must be")

    config = dflash2_config()
    config["mask_token_id"] = config["transformer_layer_config"]["eos_token_id"]
    (warning,) = resolve(config).warnings
    placeholder = "is also an eos token id (config `transformer_layer_config.eos_token_id`)"
    assert str(warning).startswith("`mask_token_id` = ")
    assert placeholder in str(warning)
    assert warning.field == "mask_token_id"


def test_target_errors_name_the_files_fields() -> None:
    from drafting_config import check

    config = dflash2_config()
    small = {"vocab_size": 1000, "hidden_size": 1024, "num_hidden_layers": 40}
    fields = [e.field for e in check(config, target=small, check_tokenizer=False).errors]
    assert fields == ["mask_token_id", "draft_vocab_size", "target_hidden_size"]
    del config["target_hidden_size"]
    fields = [e.field for e in check(config, target=small, check_tokenizer=False).errors]
    assert fields[-1] == "transformer_layer_config.hidden_size"


def test_file_field_maps_what_vllm_copied_and_nothing_else(algorithm: str) -> None:
    config = CONFIGS[algorithm]()
    draft = translate(config.get)
    resolution = resolve(config)
    mask_source = draft.spec.mask_token_source
    assert mask_source is not None
    assert resolution.file_field(mask_source.value) == "mask_token_id"
    assert resolution.file_field("vocab_size") == "transformer_layer_config.vocab_size"
    assert resolution.file_field("draft_vocab_size") == "draft_vocab_size"
    if draft.spec.target_layer_ids_field is not None:
        assert resolution.file_field("eagle_aux_hidden_state_layer_ids") == AUX_LAYER_IDS_FIELD
    # A Hugging Face config's fields are where they were read.
    assert resolve({"pard_token": 5}).file_field("dflash_config.mask_token_id") == (
        "dflash_config.mask_token_id"
    )


def test_origins_name_the_top_level_key_of_every_field_vllm_copied() -> None:
    assert dict(translate(load_json(EXAMPLE).get).origins) == {
        "draft_vocab_size": "draft_vocab_size",
        "target_hidden_size": "target_hidden_size",
        "eagle_aux_hidden_state_layer_ids": AUX_LAYER_IDS_FIELD,
        "dflash_config.target_layer_ids": AUX_LAYER_IDS_FIELD,
        "dflash_config.mask_token_id": "mask_token_id",
    }
    assert dict(translate(dspark_config().get).origins)["target_layer_ids"] == AUX_LAYER_IDS_FIELD
    assert dict(translate(peagle_config().get).origins) == {
        "draft_vocab_size": "draft_vocab_size",
        "target_hidden_size": "target_hidden_size",
        "eagle_aux_hidden_state_layer_ids": "eagle_aux_hidden_state_layer_ids",
        "pard_token": "mask_token_id",
    }


def test_a_config_that_is_a_mapping_but_no_dict_translates_as_the_dict() -> None:
    # A non-dict config is read through a getter that needs its default passed, also for
    # P-EAGLE's optional eagle_aux_hidden_state_layer_ids.
    for config in (peagle_config(), {**peagle_config(), "eagle_aux_hidden_state_layer_ids": []}):
        assert translate(field_getter(MappingProxyType(config), "")) == translate(config.get)


def test_a_missing_speculators_config_says_what_vllm_reads_through_it() -> None:
    config = load_json(EXAMPLE)
    del config["speculators_config"]
    with pytest.raises(ParallelDraftingConfigError) as info:
        translate(config.get)
    assert info.value.field == "speculators_config"
    assert str(info.value) == (
        f"`speculators_config` is missing, through which vLLM reads `{SPECULATIVE_TOKENS_FIELD}`, "
        "so it refuses the file at start-up."
    )
    assert info.value.fix == "add `speculators_config`"
    assert info.value.code is vllm_codes.SPECULATORS_FIELD_MISSING
