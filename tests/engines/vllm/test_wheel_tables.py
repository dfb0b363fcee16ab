"""The package's tables against vLLM 0.33.0's registry and class bases, and transformers'
model types, read from the released wheels at test time (``tools/wheels.py``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from drafting_config.engines.vllm.architectures import ARCHITECTURES
from tools.engines.transformers import transformers_model_types
from tools.engines.vllm.functions import (
    VLLM_REGISTRY_TABLE,
    vllm_class_ancestors,
    vllm_registry,
    vllm_registry_tables,
)
from tools.wheels import Wheel

pytestmark = pytest.mark.engine_wheels

CAUSAL_LM_ROW = "causal_lm"
"""The row of plain causal LMs (PARD drafts): several vLLM modules, one loading rule."""


def test_vllm_s_registry_maps_every_architecture_of_the_checkpoint_table_to_the_row_s_module(
    vllm_wheel: Wheel,
) -> None:
    registry = vllm_registry(vllm_wheel)
    for row in ARCHITECTURES:
        for name in row.architectures:
            assert name in registry, name
            module, class_name = registry[name]
            if row.name == CAUSAL_LM_ROW:
                assert class_name == name  # vLLM's own class of that name, in its module
            else:
                assert module == row.name, name


def test_the_registry_helper_reads_every_table_and_merges_them_as_vllm_does(
    vllm_wheel: Wheel,
) -> None:
    tables = vllm_registry_tables(vllm_wheel)
    registry = vllm_registry(vllm_wheel)
    assert registry == tables[VLLM_REGISTRY_TABLE]
    # One architecture of each kind of table, as vLLM 0.33.0's registry.py lists it.
    assert registry["Qwen3ForCausalLM"] == ("qwen3", "Qwen3ForCausalLM")
    assert registry["BertModel"] == ("bert", "BertEmbeddingModel")
    assert registry["Qwen2_5_VLForConditionalGeneration"][0] == "qwen2_5_vl"
    assert registry["DFlashDraftModel"] == ("qwen3_dflash", "DFlashQwen3ForCausalLM")
    assert registry["Qwen3DSparkModel"] == ("qwen3_dspark", "Qwen3DSparkForCausalLM")
    assert registry["TransformersForCausalLM"] == ("transformers", "TransformersForCausalLM")
    # A table of another shape (previously supported models: name -> last version) is not
    # a registry table.
    assert "MPTForCausalLM" not in registry
    # Every table of (module, class) pairs is served: none is left out of the merge.
    for name, table in tables.items():
        assert table.keys() <= registry.keys(), name
    assert len(registry) > 300


@pytest.mark.parametrize(
    ("architecture", "taps"),
    [
        ("Qwen3ForCausalLM", True),
        ("Qwen2ForCausalLM", True),
        ("LlamaForCausalLM", True),
        ("MistralForCausalLM", True),  # through LlamaForCausalLM, in another module
        ("Lfm2ForCausalLM", False),  # the LFM2.5 drafts' target
        ("LongcatFlashForCausalLM", False),  # the LongCat drafts' target
    ],
)
def test_class_ancestors_follow_bases_across_vllm_s_modules(
    vllm_wheel: Wheel, architecture: str, taps: bool
) -> None:
    module, class_name = vllm_registry(vllm_wheel)[architecture]
    ancestors = vllm_class_ancestors(vllm_wheel, module, class_name)
    assert ("SupportsEagle3" in ancestors) is taps
    assert "Module" in ancestors  # torch.nn.Module: named, not followed


def test_class_ancestors_refuse_a_class_the_module_does_not_define(vllm_wheel: Wheel) -> None:
    with pytest.raises(KeyError, match="NoSuchModel"):
        vllm_class_ancestors(vllm_wheel, "qwen3", "NoSuchModel")


@pytest.mark.parametrize("version", ["5.16.1", "5.20.2"])
def test_transformers_model_types_are_config_mapping_names_keys(
    transformers_wheel: Callable[[str], Wheel], version: str
) -> None:
    # The two ends of the range vLLM 0.33.0 accepts (transformers >=5.16.1,<5.21).
    model_types = transformers_model_types(transformers_wheel(version))
    assert {"qwen3", "llama", "qwen2", "lfm2", "deepseek_v3"} <= model_types
    assert "gpt-sw3" in model_types  # added in configuration_auto.py, not auto_mappings.py
    assert "mlcd" in model_types  # CONFIG_MAPPING_NAMES.update(...) in configuration_auto.py
    assert not {"dflash", "dspark", "qwen3_dspark"} & model_types  # TorchSpec's: unknown
