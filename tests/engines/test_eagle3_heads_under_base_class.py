"""EAGLE-3 heads published under their base class (the original EAGLE-3 releases name
``LlamaForCausalLM``, one layer, and ``draft_vocab_size``): judged as each engine serves an
EAGLE-3 head, never as a separate draft model.

vLLM serves them with ``method: eagle3``, and ``EAGLEConfig`` renames the class to
``Eagle3{arch}``, which must be registered (vllm-project/vllm#24967 for the same rename
refused); SGLang under EAGLE3 loads the plain class, whose missing ``set_embed`` or
``hot_token_id`` fails ``EAGLEWorkerV2.init_lm_head`` (sgl-project/sglang#36528).
"""

from __future__ import annotations

from typing import Any

import pytest

from drafting_config import check
from drafting_config.draft.architectures import EAGLE3_HEAD_FIELDS, eagle3_head_fields
from drafting_config.engines.sglang.codes import ARCHITECTURE_NOT_DRAFTER
from drafting_config.engines.vllm.codes import RENAMED_ARCHITECTURE_UNSUPPORTED
from drafting_config.engines.vllm.names import VERSIONS
from tests.serve_commands import vllm_switch

VLLM_RELEASES = [f"vllm=={version}" for version in VERSIONS]

EAGLE3_LLAMA31_8B: dict[str, Any] = {
    # the fields of the original EAGLE-3 head for Llama-3.1-8B-Instruct, as its card shows
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "num_hidden_layers": 1,
    "max_position_embeddings": 2048,
    "vocab_size": 128256,
    "draft_vocab_size": 32000,
    "tie_word_embeddings": False,
}
LLAMA31_8B: dict[str, Any] = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 4096,
    "num_hidden_layers": 32,
    "vocab_size": 128256,
}
PLAIN_FIELDS: dict[str, object] = dict.fromkeys(EAGLE3_HEAD_FIELDS)
SET_VALUES: dict[str, object] = {
    "draft_vocab_size": 32000,
    "target_hidden_size": 4096,
    "eagle_aux_hidden_state_layer_ids": [1, 15, 28],
    "eagle_config": {"use_aux_hidden_state": True},
}


@pytest.mark.parametrize("engine", VLLM_RELEASES)
def test_vllm_serves_an_eagle3_head_under_llama_for_causal_lm_as_eagle3(engine: Any) -> None:
    verdict = check(EAGLE3_LLAMA31_8B, target=LLAMA31_8B, engine=engine, check_tokenizer=False)
    assert verdict.errors == ()
    assert (verdict.mode, verdict.parallel) == ("eagle3", False)
    assert vllm_switch(verdict.serve_with) == {"method": "eagle3"}


@pytest.mark.parametrize("field", EAGLE3_HEAD_FIELDS)
def test_each_eagle3_field_on_a_plain_class_makes_an_eagle3_head(field: str) -> None:
    head = {**EAGLE3_LLAMA31_8B, **PLAIN_FIELDS, field: SET_VALUES[field]}
    assert eagle3_head_fields(head.get) == (field,)
    assert check(head, check_tokenizer=False).mode == "eagle3"


def test_a_plain_causal_lm_is_still_a_draft_model() -> None:
    plain = {**EAGLE3_LLAMA31_8B, **PLAIN_FIELDS}
    assert eagle3_head_fields(plain.get) == ()
    assert check(plain, check_tokenizer=False).mode == "draft-model"
    assert check(plain, engine="sglang", check_tokenizer=False).mode == "standalone"


@pytest.mark.parametrize("engine", VLLM_RELEASES)
def test_vllm_refuses_a_head_whose_renamed_class_is_unregistered(engine: Any) -> None:
    head = {**EAGLE3_LLAMA31_8B, "architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2"}
    verdict = check(head, engine=engine, check_tokenizer=False)
    ((code, field),) = [(e.code, e.field) for e in verdict.errors]
    assert (code, field) == (RENAMED_ARCHITECTURE_UNSUPPORTED, "architectures")
    assert "Eagle3Qwen2ForCausalLM" in str(verdict.errors[0])


def test_sglang_refuses_an_eagle3_head_under_its_base_class() -> None:
    verdict = check(EAGLE3_LLAMA31_8B, target=LLAMA31_8B, engine="sglang", check_tokenizer=False)
    (error,) = verdict.errors
    assert (error.code, error.field) == (ARCHITECTURE_NOT_DRAFTER, "architectures")
    assert "`draft_vocab_size`" in str(error)
    assert "LlamaForCausalLMEagle3" in (error.fix or "")
    assert "init_lm_head" in (error.evidence or "")


def test_sglang_serves_the_head_once_it_names_its_eagle3_class() -> None:
    head = {**EAGLE3_LLAMA31_8B, "architectures": ["LlamaForCausalLMEagle3"]}
    verdict = check(head, target=LLAMA31_8B, engine="sglang", check_tokenizer=False)
    assert verdict.errors == ()
    assert verdict.mode == "eagle3"


UNLISTED = {k: v for k, v in EAGLE3_LLAMA31_8B.items() if k != "architectures"}


@pytest.mark.parametrize("engine", VLLM_RELEASES)
@pytest.mark.parametrize("listed", [{}, {"architectures": None}, {"architectures": []}])
def test_vllm_refuses_an_eagle3_head_without_architectures_at_the_registry(
    engine: Any, listed: dict[str, Any]
) -> None:
    # get_config fills the base class of the model type (LlamaModel), EAGLEConfig renames it
    # Eagle3LlamaModel, which no registry table holds: not a missing token id.
    verdict = check({**UNLISTED, **listed}, engine=engine, check_tokenizer=False)
    (error,) = verdict.errors
    assert (error.code, error.field) == (RENAMED_ARCHITECTURE_UNSUPPORTED, "architectures")
    assert error.code is not None
    assert error.code.step.value == "registry"
    assert "MODEL_MAPPING_NAMES" in (error.evidence or "")


def test_a_ptd_head_without_architectures_is_refused_at_the_registry_too() -> None:
    head = {**UNLISTED, "ptd_token_id": 128002}
    (error,) = check(head, check_tokenizer=False).errors
    assert error.code is RENAMED_ARCHITECTURE_UNSUPPORTED
    assert "Eagle3..." in str(error)


def test_a_fragment_without_model_type_is_not_judged_for_its_architectures() -> None:
    fragment = {"ptd_token_id": 5, "draft_vocab_size": 32000}
    codes_found = {e.code for e in check(fragment, check_tokenizer=False).errors}
    assert RENAMED_ARCHITECTURE_UNSUPPORTED not in codes_found
