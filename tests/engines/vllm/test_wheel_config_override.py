"""``load_path.hf_config_override`` against each shipped vLLM release's own
``SpeculativeConfig.hf_config_override`` (``vllm/config/speculative.py``), taken from the
released wheels (``engine_wheels``): the ``model_type`` and ``architectures`` it leaves on a
draft's config, for every model type and first architecture one of its rewrites tests,
crossed, and the few rewrites that test another field.  A probe the release's function
raises on, or that the mirror does not follow (``None``), is not compared.
"""

from __future__ import annotations

import ast
import copy
import sys
import textwrap
import types
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from drafting_config.engines.vllm.load_path import hf_config_override
from drafting_config.engines.vllm.names import VERSIONS
from drafting_config.values.fields import field_getter
from tools.wheels import Wheel

pytestmark = pytest.mark.engine_wheels

SPECULATIVE = "vllm/config/speculative.py"

MODEL_TYPES = (
    "llama",
    "qwen3",
    "qwen2",
    "dflash",
    "deepseek_v2",
    "deepseek_v3",
    "deepseek_v32",
    "glm_moe_dsa",
    "deepseek_mtp",
    "deepseek_v4",
    "deepseek_v41",
    "dots3_note",
    "pangu_ultra_moe",
    "pangu_ultra_moe_mtp",
    "moe",
    "kimi_k3",
    "ernie4_5_moe",
    "ernie_mtp",
    "nemotron_h",
    "nemotron_h_puzzle",
    "nemotron_h_mtp",
    "qwen3_next",
    "qwen3_next_mtp",
    "bailing_hybrid",
    "exaone_moe",
    "exaone4_5",
    "qwen3_5",
    "qwen3_5_moe_text",
    "interns2_mobius",
    "longcat_flash",
    "step3p5",
    "step5",
    "hy_v3",
    "hy_v4",
    "inkling_model",
    "gemma4_assistant",
    "minimax_m3_vl",
    "minimax_m3_mtp",
    "glm5_next",
    "muse_glimmer_assistant",
)
ARCHITECTURES = (
    "LlamaForCausalLM",
    "LlamaForCausalLMEagle3",
    "DFlashDraftModel",
    "DeepseekDFlashDraftModel",
    "DSparkDraftModel",
    "DFlash2DraftModel",
    "Gemma4DSparkModel",
    "MiMoForCausalLM",
    "MiMoV2ForCausalLM",
    "MiMoV2OmniForCausalLM",
    "MiMoV2FlashForCausalLM",
    "Glm4MoeForCausalLM",
    "Glm4MoeLiteForCausalLM",
    "GlmOcrForConditionalGeneration",
    "BailingMoeV3ForCausalLM",
    "BailingMoeV2_5ForCausalLM",
    "Step3p5ForCausalLM",
    "Step5ForCausalLM",
    "MistralLarge3ForCausalLM",
    "DSparkMiniMaxDraftModel",
    "MiniMaxM3SparseForConditionalGeneration",
    "MiniMaxM3MTP",
    "RadioMBartPrefixForCausalLM",
)
EXTRAS: tuple[dict[str, Any], ...] = (
    {"model_type": "qwen3", "architectures": ["DFlash2DraftModel"], "no_rope_layers": [1]},
    {
        "model_type": "mbart",
        "architectures": ["RadioMBartPrefixForCausalLM"],
        "decoder": {"causal_vision_prefix": True},
    },
    {
        "model_type": "intern_s2_preview",
        "architectures": ["InternS2PreviewForConditionalGeneration"],
        "text_config": {"model_type": "qwen3_5_moe_text", "mtp_num_hidden_layers": 1},
    },
    {
        "model_type": "nemotron_h",
        "architectures": ["NemotronHForCausalLM"],
        "num_nextn_predict_layers": 0,
    },
)


class _Config:
    """What ``hf_config_override`` reads of a ``PretrainedConfig``: attributes, ``update``,
    ``get_text_config``."""

    def __init__(self, data: dict[str, Any]) -> None:
        for key, value in data.items():
            setattr(self, key, _Config(value) if isinstance(value, dict) else value)

    def update(self, values: dict[str, Any]) -> None:
        for key, value in values.items():
            setattr(self, key, value)

    def get_text_config(self) -> _Config:
        text = getattr(self, "text_config", self)
        assert isinstance(text, _Config)
        return text

    def get(self, key: str, default: object = None) -> object:  # mtp_config.get
        return getattr(self, key, default)


def _probes() -> Iterator[dict[str, Any]]:
    base = {
        "layer_types": [],
        "num_nextn_predict_layers": 1,
        "hc_count": 1,
        "dspark_markov_rank": 1,
        "mtp_config": {"num_nextn_predict_layers": 1},
    }
    for model_type in MODEL_TYPES:
        for architecture in ARCHITECTURES:
            yield base | {"model_type": model_type, "architectures": [architecture]}
    yield from (base | extra for extra in EXTRAS)


def _function(wheel: Wheel) -> Callable[[object], Any]:
    source = wheel.source(SPECULATIVE)
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name == "hf_config_override":
            segment = ast.get_source_segment(source, node)
            assert segment is not None
            namespace: dict[str, Any] = {
                "copy": copy,
                "Any": Any,
                "PreTrainedConfig": object,
                "get_hf_text_config": lambda config: getattr(config, "text_config", config),
            }
            exec(textwrap.dedent(segment), namespace)
            function: Callable[[object], Any] = namespace["hf_config_override"]
            return function
    raise AssertionError(f"hf_config_override not in {SPECULATIVE}")


@pytest.fixture
def _imported_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    """The modules ``hf_config_override`` imports inside its branches, as stand-ins."""
    mimo = types.ModuleType("vllm.model_executor.models.mimo_v2_mtp")
    mimo._MIMO_V2_PRO_NUM_MTP_LAYERS = 1  # type: ignore[attr-defined]
    mimo._MIMO_V2_FLASH_NUM_MTP_LAYERS = 1  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, mimo.__name__, mimo)


@pytest.mark.usefixtures("_imported_modules")
@pytest.mark.parametrize("version", VERSIONS)
def test_the_mirror_leaves_the_architectures_each_release_leaves(
    version: str, vllm_release_wheel: Callable[[str], Wheel]
) -> None:
    real = _function(vllm_release_wheel(version))
    compared = 0
    for probe in _probes():
        try:
            config = real(_Config(probe))
        except Exception:
            continue
        mirrored = hf_config_override(field_getter(probe, ""), version)
        if mirrored is None:
            continue
        expected = (getattr(config, "model_type", None), tuple(config.architectures))
        assert (mirrored[0], mirrored[1]) == expected, (version, probe)
        compared += 1
    assert compared > len(MODEL_TYPES) * len(ARCHITECTURES) // 2
