"""Separate draft models (vLLM ``draft_model``, SGLang ``STANDALONE``): judged on their
vocabulary against the target's, never on their hidden size, on every shipped release of both
engines (:mod:`drafting_config.engines.vllm.draft_models`).

The pairings are public: Qwen3-1.7B drafting for Qwen3-32B is the pairing vLLM's own
draft-model work benchmarks (vllm-project/vllm#24322); a Qwen2.5-family 1.5B draft (vocabulary
151936) for a 32B target (152064) is refused by vLLM's vocabulary check
(vllm-project/vllm#42775, vllm-project/vllm#7252).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from drafting_config import check
from drafting_config.draft.file import read_draft
from drafting_config.draft.target import read_target
from drafting_config.engines import RELEASES
from drafting_config.engines.vllm.codes import WEIGHTS_ARCHITECTURE_UNKNOWN
from drafting_config.engines.vllm.draft_models import check_draft_model_vocab
from drafting_config.engines.vllm.names import DROPS_HETEROGENEOUS_VOCAB, VERSIONS, since
from drafting_config.engines.vllm.resolution import VllmSubject, resolve
from drafting_config.values.codes import HIDDEN_SIZE_MISMATCH, VOCAB_DIFFERS_FROM_TARGET
from drafting_config.values.findings import Findings, Note
from tests.checkpoint_factory import write_safetensors
from tests.engines.vllm import PARALLEL_SWITCH

QWEN3_1_7B: dict[str, Any] = {
    "architectures": ["Qwen3ForCausalLM"],
    "model_type": "qwen3",
    "hidden_size": 2048,
    "intermediate_size": 6144,
    "num_hidden_layers": 28,
    "num_attention_heads": 16,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "vocab_size": 151936,
    "tie_word_embeddings": True,
}
QWEN3_32B: dict[str, Any] = {
    **QWEN3_1_7B,
    "hidden_size": 5120,
    "intermediate_size": 25600,
    "num_hidden_layers": 64,
    "num_attention_heads": 64,
    "tie_word_embeddings": False,
}
QWEN2_1_5B: dict[str, Any] = {
    "architectures": ["Qwen2ForCausalLM"],
    "model_type": "qwen2",
    "hidden_size": 1536,
    "num_hidden_layers": 28,
    "num_attention_heads": 12,
    "num_key_value_heads": 2,
    "vocab_size": 151936,
}
QWEN2_32B: dict[str, Any] = {
    **QWEN2_1_5B,
    "hidden_size": 5120,
    "num_hidden_layers": 64,
    "num_attention_heads": 40,
    "num_key_value_heads": 8,
    "vocab_size": 152064,
}
PARD_QWEN2: dict[str, Any] = {**QWEN2_1_5B, "pard_token": 151665}


@pytest.mark.parametrize("engine", list(RELEASES))
def test_a_small_model_of_the_family_drafts_for_a_large_one_on_every_release(engine: Any) -> None:
    verdict = check(QWEN3_1_7B, target=QWEN3_32B, engine=engine, check_tokenizer=False)
    assert verdict.ok, verdict.errors
    assert HIDDEN_SIZE_MISMATCH not in {e.code for e in verdict.errors}
    assert verdict.mode in ("draft-model", "standalone")
    assert verdict.parallel is False


@pytest.mark.parametrize("engine", list(RELEASES))
def test_a_draft_model_of_another_vocabulary_is_refused_on_every_release(engine: Any) -> None:
    verdict = check(QWEN2_1_5B, target=QWEN2_32B, engine=engine, check_tokenizer=False)
    assert [(e.code, e.field) for e in verdict.errors] == [
        (VOCAB_DIFFERS_FROM_TARGET, "vocab_size")
    ]


@pytest.mark.parametrize("version", VERSIONS)
def test_the_fix_offers_use_heterogeneous_vocab_only_where_the_release_has_it(
    version: str,
) -> None:
    verdict = check(QWEN2_1_5B, target=QWEN2_32B, engine=f"vllm=={version}", check_tokenizer=False)  # type: ignore[arg-type]
    (error,) = verdict.errors
    offered = "use_heterogeneous_vocab" in (error.fix or "")
    assert offered is not since(version, DROPS_HETEROGENEOUS_VOCAB)
    assert "verify_equal_vocab_size_if_draft_model" in (error.evidence or "")


@pytest.mark.parametrize("version", VERSIONS)
def test_the_rule_refuses_unequal_vocabularies_on_each_release_including_0_34_0(
    version: str,
) -> None:
    # 0.34.0 keeps the config-stage check, gated on the speculator's draft_has_own_vocab,
    # and drops use_heterogeneous_vocab (vllm/config/speculative.py, 0.34.0 wheel).
    found = Findings()
    subject = VllmSubject.of(resolve(QWEN2_1_5B), read_target(QWEN2_32B), version)
    check_draft_model_vocab(subject, found)
    (error,) = found.errors
    assert error.code is VOCAB_DIFFERS_FROM_TARGET
    dropped = since(version, DROPS_HETEROGENEOUS_VOCAB)
    assert ("use_heterogeneous_vocab" in (error.fix or "")) is not dropped
    assert ("draft_has_own_vocab" in (error.evidence or "")) is dropped
    same = VllmSubject.of(resolve(QWEN3_1_7B), read_target(QWEN3_32B), version)
    check_draft_model_vocab(same, found)
    assert len(found.errors) == 1


def test_a_pard_draft_is_a_draft_model_judged_on_its_vocabulary() -> None:
    # method draft_model with parallel_drafting: the same config-stage check
    assert check(PARD_QWEN2, engine=PARALLEL_SWITCH, check_tokenizer=False).mode == "pard"
    verdict = check(PARD_QWEN2, target=QWEN2_32B, check_tokenizer=False)
    assert [e.code for e in verdict.errors] == [VOCAB_DIFFERS_FROM_TARGET]


def test_a_drafter_fed_the_target_still_compares_hidden_sizes() -> None:
    eagle3 = {
        "architectures": ["LlamaForCausalLMEagle3"],
        "model_type": "llama",
        "hidden_size": 2048,
        "vocab_size": 151936,
        "num_hidden_layers": 1,
    }
    verdict = check(eagle3, target=QWEN3_32B, check_tokenizer=False)
    assert HIDDEN_SIZE_MISMATCH in {e.code for e in verdict.errors}


def test_the_draft_file_alone_still_says_a_plain_lm_takes_hidden_states() -> None:
    # the engine, not the file, knows the draft is served as a separate model
    assert read_draft(QWEN3_1_7B).takes_target_hidden_states


def _small_lm(**changes: Any) -> dict[str, Any]:
    return {
        **QWEN3_1_7B,
        "hidden_size": 64,
        "intermediate_size": 128,
        "num_hidden_layers": 1,
        "num_attention_heads": 1,
        "num_key_value_heads": 1,
        "head_dim": 64,
        "vocab_size": 1000,
        **changes,
    }


def _lm_tensors(prefix: str = "model.") -> dict[str, tuple[str, tuple[int, ...]]]:
    hidden = 64
    shapes: dict[str, tuple[str, tuple[int, ...]]] = {
        f"{prefix}embed_tokens.weight": ("BF16", (1000, hidden)),
        f"{prefix}norm.weight": ("BF16", (hidden,)),
    }
    layer = f"{prefix}layers.0."
    for name in ("q_proj", "k_proj", "v_proj", "o_proj"):
        shapes[f"{layer}self_attn.{name}.weight"] = ("BF16", (hidden, hidden))
    for name in ("q_norm", "k_norm"):
        shapes[f"{layer}self_attn.{name}.weight"] = ("BF16", (hidden,))
    shapes[f"{layer}mlp.gate_proj.weight"] = ("BF16", (128, hidden))
    shapes[f"{layer}mlp.up_proj.weight"] = ("BF16", (128, hidden))
    shapes[f"{layer}mlp.down_proj.weight"] = ("BF16", (hidden, 128))
    for name in ("input_layernorm", "post_attention_layernorm"):
        shapes[f"{layer}{name}.weight"] = ("BF16", (hidden,))
    return shapes


def _draft_dir(tmp_path: Path, config: dict[str, Any], tensors: Any) -> Path:
    folder = tmp_path / "draft"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(config))
    write_safetensors(folder / "model.safetensors", tensors)
    return folder


def test_a_draft_models_checkpoint_is_checked_as_its_causal_lm(tmp_path: Path) -> None:
    # Its own hidden states: the causal LM's loading rules, not "architecture unknown".
    draft = _draft_dir(tmp_path, _small_lm(), _lm_tensors())
    verdict = check(draft, target=QWEN3_32B | {"vocab_size": 1000}, check_tokenizer=False)
    assert verdict.errors == ()
    notes = {note.code for note in verdict.notes if isinstance(note, Note)}
    assert WEIGHTS_ARCHITECTURE_UNKNOWN not in notes


def test_an_eagle_head_checkpoint_under_a_plain_class_is_judged_as_an_eagle_head(
    tmp_path: Path,
) -> None:
    # An EAGLE-1 head published under its base class (vllm-project/vllm#24967): its config
    # says nothing, its checkpoint holds fc.weight and unprefixed layers. Served as EAGLE,
    # not as the causal LM draft_model would fail to load: EagleQwen3ForCausalLM, the
    # class EAGLEConfig renames it to, is registered by no release.
    tensors = _lm_tensors(prefix="")
    del tensors["embed_tokens.weight"]
    tensors["fc.weight"] = ("BF16", (64, 128))
    draft = _draft_dir(tmp_path, _small_lm(), tensors)
    verdict = check(draft, target=QWEN3_32B | {"vocab_size": 1000}, check_tokenizer=False)
    assert not verdict.ok
    codes_found = {getattr(e.code, "name", None) for e in verdict.errors}
    assert "renamed-architecture-unsupported" in codes_found
    assert not {e.code.step.value for e in verdict.errors if e.code is not None} & {"weights"}
