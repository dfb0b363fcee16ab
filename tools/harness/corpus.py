"""What the harness runs: every corpus draft and bundled example, its target, its modes.

A *mode* is what a user asks of vLLM in ``--speculative-config``: the ``method`` and
whether ``"parallel_drafting": true`` is set. Each draft runs in the mode it asks for:

* DFlash-family classes (DFlash, DFlash2, Domino, MuseGlimmer's assistant, DeepSeek's
  DFlash) and the speculators ``dflash`` algorithm: ``dflash``, which vLLM always drafts
  in parallel (``config/speculative.py`` sets ``parallel_drafting`` for it);
* DSpark-family classes (DSpark, DSpine, Qwen3/K3 DSpark): ``dspark``, likewise parallel;
* EAGLE-3 classes (and the speculators ``eagle3`` algorithm, and SpecForge's P-EAGLE):
  ``eagle3`` both sequentially and with ``"parallel_drafting": true``;
* a plain causal LM (PARD): ``draft_model`` both sequentially and in parallel.

Targets: a public target config from ``tests/real_configs/targets/`` where one fits; the
target of a bundled example pair where the example has one; otherwise a synthesized one
(:data:`SYNTHESIZED`): the family's config class, as the harness's transformers (or vLLM)
defines it, with the release's sizes (hidden size, layers, heads, vocabulary). Those live
in ``tests/real_configs/synthesized_targets/`` and every reading on one carries
``"target_synthesized": true``: a failure at the target, tap or combine stage on a
synthesized target is not a reading of the draft. The examples' own targets are fixtures
written for this repository, so they count as synthesized too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "CASES",
    "SYNTHESIZED",
    "SYNTHESIZED_DIR",
    "Case",
    "Mode",
]

SYNTHESIZED_DIR: Final = "tests/real_configs/synthesized_targets"
"""Where the synthesized target configs live, relative to the repository's root."""


@dataclass(frozen=True)
class Mode:
    """A ``--speculative-config`` request: the method and the parallel-drafting switch."""

    method: str
    parallel_drafting: bool = False

    @property
    def name(self) -> str:
        return f"{self.method}{'+parallel' if self.parallel_drafting else ''}"


@dataclass(frozen=True)
class Case:
    """One draft with its target (a path relative to the repository's root) and modes."""

    draft: str
    target: str
    target_synthesized: bool
    modes: tuple[Mode, ...]

    @property
    def name(self) -> str:
        path = self.draft.removeprefix("tests/real_configs/drafts/").removesuffix("/config.json")
        return path.removesuffix(".json")


DFLASH: Final = (Mode("dflash"),)
DSPARK: Final = (Mode("dspark"),)
EAGLE3: Final = (Mode("eagle3"), Mode("eagle3", parallel_drafting=True))
DRAFT_MODEL: Final = (Mode("draft_model"), Mode("draft_model", parallel_drafting=True))

_QWEN3_4B: Final[dict[str, Any]] = {
    "hidden_size": 2560,
    "intermediate_size": 9728,
    "num_hidden_layers": 36,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "vocab_size": 151936,
    "max_position_embeddings": 40960,
    "tie_word_embeddings": True,
}
_QWEN3_5_27B: Final[dict[str, Any]] = {
    "hidden_size": 5120,
    "intermediate_size": 17408,
    "num_hidden_layers": 64,
    "num_attention_heads": 24,
    "num_key_value_heads": 4,
    "head_dim": 256,
    "vocab_size": 248320,
}

SYNTHESIZED: Final[dict[str, dict[str, Any]]] = {
    # name: {"model_type", "architectures", "fields"} for synthesize_target.py
    "qwen3-4b": {
        "model_type": "qwen3",
        "architectures": ["Qwen3ForCausalLM"],
        "fields": _QWEN3_4B,
    },
    "qwen2.5-0.5b": {
        "model_type": "qwen2",
        "architectures": ["Qwen2ForCausalLM"],
        "fields": {
            "hidden_size": 896,
            "intermediate_size": 4864,
            "num_hidden_layers": 24,
            "num_attention_heads": 14,
            "num_key_value_heads": 2,
            "vocab_size": 151936,
            "tie_word_embeddings": True,
        },
    },
    "qwen2.5-7b": {
        "model_type": "qwen2",
        "architectures": ["Qwen2ForCausalLM"],
        "fields": {
            "hidden_size": 3584,
            "intermediate_size": 18944,
            "num_hidden_layers": 28,
            "num_attention_heads": 28,
            "num_key_value_heads": 4,
            "vocab_size": 152064,
        },
    },
    "qwen3-235b-a22b": {
        "model_type": "qwen3_moe",
        "architectures": ["Qwen3MoeForCausalLM"],
        "fields": {
            "hidden_size": 4096,
            "intermediate_size": 12288,
            "moe_intermediate_size": 1536,
            "num_hidden_layers": 94,
            "num_attention_heads": 64,
            "num_key_value_heads": 4,
            "head_dim": 128,
            "num_experts": 128,
            "num_experts_per_tok": 8,
            "vocab_size": 151936,
        },
    },
    "qwen3-vl-8b": {
        "model_type": "qwen3_vl",
        "architectures": ["Qwen3VLForConditionalGeneration"],
        "fields": {
            "text_config": {
                "hidden_size": 4096,
                "intermediate_size": 12288,
                "num_hidden_layers": 36,
                "num_attention_heads": 32,
                "num_key_value_heads": 8,
                "head_dim": 128,
                "vocab_size": 151936,
            }
        },
    },
    "qwen3.5-4b": {
        "model_type": "qwen3_5_text",
        "architectures": ["Qwen3_5ForCausalLM"],
        "fields": {
            "hidden_size": 2560,
            "intermediate_size": 9216,
            "num_hidden_layers": 32,
            "num_attention_heads": 16,
            "num_key_value_heads": 4,
            "head_dim": 256,
            "vocab_size": 248320,
        },
    },
    "qwen3.5-27b": {
        "model_type": "qwen3_5_text",
        "architectures": ["Qwen3_5ForCausalLM"],
        "fields": _QWEN3_5_27B,
    },
    "qwen3.5-35b-a3b": {
        "model_type": "qwen3_5_moe_text",
        "architectures": ["Qwen3_5MoeForCausalLM"],
        "fields": {
            "hidden_size": 2048,
            "num_hidden_layers": 40,
            "num_attention_heads": 16,
            "num_key_value_heads": 2,
            "head_dim": 256,
            "vocab_size": 248320,
        },
    },
    "lfm2.5-1.2b": {
        "model_type": "lfm2",
        "architectures": ["Lfm2ForCausalLM"],
        "fields": {
            "hidden_size": 2048,
            "intermediate_size": 12288,
            "block_dim": 2048,
            "block_ff_dim": 12288,
            "num_hidden_layers": 16,
            "num_attention_heads": 32,
            "num_key_value_heads": 8,
            "vocab_size": 65536,
        },
    },
    "longcat-flash": {
        "model_type": "longcat_flash",
        "architectures": ["LongcatFlashForCausalLM"],
        "fields": {
            "hidden_size": 6144,
            "num_layers": 28,
            "num_attention_heads": 64,
            "vocab_size": 131072,
            "mla_scale_q_lora": True,
            "mla_scale_kv_lora": True,
            # Read by vLLM's LongcatFlashForCausalLM; transformers' class has no default.
            "zero_expert_type": "identity",
        },
    },
    "kimi-k2": {
        "model_type": "deepseek_v3",
        "architectures": ["DeepseekV3ForCausalLM"],
        "fields": {
            "hidden_size": 7168,
            "num_hidden_layers": 61,
            "num_attention_heads": 64,
            "vocab_size": 163840,
        },
    },
    "kimi-k3": {
        "model_type": "kimi_k3",
        "architectures": ["KimiK3ForConditionalGeneration"],
        "fields": {"text_config": {"hidden_size": 7168, "num_hidden_layers": 93}},
    },
    "glm-5": {
        "model_type": "glm_moe_dsa",
        "architectures": ["GlmMoeDsaForCausalLM"],
        "fields": {"hidden_size": 6144, "num_hidden_layers": 78, "vocab_size": 154880},
    },
    "inkling": {
        # vLLM's own config class (vllm/models/inkling/configs.py): its model reads
        # padded_vocab_size, which transformers' inkling_text config lacks.
        "model_type": "inkling_model",
        "architectures": ["InklingForCausalLM"],
        "fields": {"hidden_size": 6144, "num_hidden_layers": 66, "vocab_size": 201024},
    },
    "deepseek-v4-flash": {
        "model_type": "deepseek_v4",
        "architectures": ["DeepseekV4ForCausalLM"],
        "fields": {"hidden_size": 4096, "num_hidden_layers": 43, "vocab_size": 129280},
    },
    "deepseek-v2-lite": {
        "model_type": "deepseek_v2",
        "architectures": ["DeepseekV2ForCausalLM"],
        "fields": {
            "hidden_size": 2048,
            "num_hidden_layers": 27,
            "num_attention_heads": 16,
            "vocab_size": 102400,
        },
    },
    "muse-glimmer": {
        "model_type": "muse_glimmer_text",
        "architectures": ["MuseGlimmerForCausalLM"],
        "fields": {
            "hidden_size": 6656,
            "num_hidden_layers": 52,
            "num_attention_heads": 32,
            "num_key_value_heads": 8,
            "head_dim": 128,
            "vocab_size": 202048,
        },
    },
    "qwen3-tiny": {
        # examples/invalid/qwen3-dflash-fc-width: hidden size 16, taps up to layer 5.
        "model_type": "qwen3",
        "architectures": ["Qwen3ForCausalLM"],
        "fields": {
            "hidden_size": 16,
            "intermediate_size": 32,
            "num_hidden_layers": 8,
            "num_attention_heads": 2,
            "num_key_value_heads": 1,
            "head_dim": 8,
            "vocab_size": 256,
        },
    },
}

_DRAFTS: Final = "tests/real_configs/drafts/"
_QWEN3_8B: Final = "tests/real_configs/targets/qwen3-8b.json"
_QWEN3_8B_FIXTURE: Final = "tests/real_configs/targets/qwen3-8b-sglang-fixture.json"
_LLAMA3_8B_EXAMPLE: Final = "examples/pair-qwen3-8b-drafter-llama3-target/target/config.json"


def _synthesized(name: str) -> str:
    return f"{SYNTHESIZED_DIR}/{name}.json"


_PUBLIC: Final = (_QWEN3_8B, _QWEN3_8B_FIXTURE)


def _case(draft: str, target: str, modes: tuple[Mode, ...]) -> Case:
    # A target is a path (a public target, or an example pair's own) or a synthesized name.
    path = target if target.endswith(".json") else _synthesized(target)
    return Case(draft, path, path not in _PUBLIC, modes)


def _corpus(file: str, target: str, modes: tuple[Mode, ...]) -> Case:
    return _case(f"{_DRAFTS}{file}.json", target, modes)


def _example(folder: str, target: str, modes: tuple[Mode, ...]) -> Case:
    return _case(f"examples/{folder}/config.json", target, modes)


CASES: Final[tuple[Case, ...]] = (
    _corpus("sglang--qwen3-8b-eagle3-ascend-fixture", _QWEN3_8B_FIXTURE, EAGLE3),
    _corpus("specforge--deepseek-v2-lite-dflash", "deepseek-v2-lite", DFLASH),
    _corpus("specforge--deepseek-v4-flash-dspark-official", "deepseek-v4-flash", DSPARK),
    _corpus("specforge--glm-5.2-dspark", "glm-5", DSPARK),
    _corpus("specforge--inkling-dspark", "inkling", DSPARK),
    _corpus("specforge--kimi-k2.7-code-dflash", "kimi-k2", DFLASH),
    _corpus("specforge--kimi-k3-dspark", "kimi-k3", DSPARK),
    _corpus("specforge--lfm2.5-1.2b-instruct-dflash", "lfm2.5-1.2b", DFLASH),
    _corpus("specforge--longcat-flash-dflash", "longcat-flash", DFLASH),
    _corpus("specforge--qwen2.5-0.5b-dflash", "qwen2.5-0.5b", DFLASH),
    _corpus("specforge--qwen3-4b-dflash", "qwen3-4b", DFLASH),
    _corpus("specforge--qwen3-4b-dspark", "qwen3-4b", DSPARK),
    _corpus("specforge--qwen3-8b-dflash", _QWEN3_8B, DFLASH),
    _corpus("specforge--qwen3-8b-domino", _QWEN3_8B, DFLASH),
    _corpus("specforge--qwen3-8b-dspark", _QWEN3_8B, DSPARK),
    _corpus("specforge--qwen3-8b-dspine", _QWEN3_8B_FIXTURE, DSPARK),
    _corpus("specforge--qwen3-8b-dta", _QWEN3_8B_FIXTURE, DFLASH),
    _corpus("specforge--qwen3-8b-peagle", _QWEN3_8B, EAGLE3),
    _corpus("specforge--qwen3-vl-8b-dflash", "qwen3-vl-8b", DFLASH),
    _corpus("specforge--qwen3.5-27b-dflash", "qwen3.5-27b", DFLASH),
    _corpus("specforge--qwen3.5-35b-a3b-dflash", "qwen3.5-35b-a3b", DFLASH),
    _corpus("specforge--qwen3.5-4b-dflash", "qwen3.5-4b", DFLASH),
    _corpus("specforge--qwen3.5-4b-domino", "qwen3.5-4b", DFLASH),
    _corpus("specforge--qwen3.5-4b-dspark", "qwen3.5-4b", DSPARK),
    _corpus("specforge--qwen3.6-27b-dflash", "qwen3.5-27b", DFLASH),
    _corpus("specforge--qwen3.6-27b-dflash2", "qwen3.5-27b", DFLASH),
    _corpus("specforge--qwen3.6-27b-domino-full-attention", "qwen3.5-27b", DFLASH),
    _corpus("specforge--qwen3.6-27b-dspark", "qwen3.5-27b", DSPARK),
    _corpus("speculators-user--eagle3-qwen3moe-issue1065", "qwen3-235b-a22b", EAGLE3),
    _corpus("torchspec--dflash_draft_config", "qwen2.5-7b", DFLASH),
    _corpus("torchspec--domino_draft_config", _QWEN3_8B_FIXTURE, DFLASH),
    _corpus("torchspec--dspark_draft_config", _QWEN3_8B, DSPARK),
    _corpus("torchspec--glm52_dspark_draft_config", "glm-5", DSPARK),
    _corpus("torchspec--kimi_k3_dflash2_mla_swa", "kimi-k3", DFLASH),
    _corpus("torchspec--kimi_k3_dspark_mla", "kimi-k3", DSPARK),
    _corpus("torchspec--qwen3_8_27b_dspark_draft", "qwen3.5-27b", DSPARK),
    _corpus("torchspec--qwen3_8b_dflash", _QWEN3_8B, DFLASH),
    _corpus("z-lab--assistant-config", "muse-glimmer", DFLASH),
    _corpus("z-lab--dflash2-config", "muse-glimmer", DFLASH),
    _example("dflash-qwen3-4b", "qwen3-4b", DFLASH),
    _example("dspark-noise-qwen3-8b", _QWEN3_8B_FIXTURE, DSPARK),
    _example("dspark-qwen3-8b", _QWEN3_8B_FIXTURE, DSPARK),
    _example("pard-llama3-1b", _LLAMA3_8B_EXAMPLE, DRAFT_MODEL),
    _example("ptd-eagle3-llama3-8b", _LLAMA3_8B_EXAMPLE, EAGLE3),
    _example("speculators-dflash-qwen3-8b", _QWEN3_8B_FIXTURE, DFLASH),
    # A PARD draft for Qwen2.5 (vocabulary 151936, as Qwen2.5-0.5B to 3B have; 7B's differs).
    _example("invalid/pard-token-as-string", "qwen2.5-0.5b", DRAFT_MODEL),
    _example("invalid/qwen3-dflash-fc-width", "qwen3-tiny", DFLASH),
    _example("pair-qwen3-4b/draft", "examples/pair-qwen3-4b/target/config.json", DFLASH),
    _example(
        "pair-qwen3-8b-drafter-llama3-target/draft",
        "examples/pair-qwen3-8b-drafter-llama3-target/target/config.json",
        DFLASH,
    ),
)
"""Every corpus draft and bundled example draft, in the order the readings list them."""
