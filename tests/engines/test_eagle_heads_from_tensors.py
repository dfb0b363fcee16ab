"""EAGLE heads published under their base class whose config says nothing of EAGLE, told by
their checkpoint's tensor names (``draft/eagle_tensors.py``): an EAGLE-1 head
(``yuhuili/EAGLE-LLaMA3-Instruct-8B``: ``LlamaForCausalLM``, one layer, ``fc.weight`` of
twice the hidden size beside unprefixed ``layers.0.*``) and an EAGLE-3 head without
``draft_vocab_size`` (``midlayer.*``, ``d2t``).

vLLM serves them as ``eagle`` / ``eagle3``, its ``EAGLEConfig`` renaming the class
(``EagleLlamaForCausalLM`` is registered, ``EagleQwen2ForCausalLM`` not:
vllm-project/vllm#24967); SGLang loads the plain class, which loads none of an EAGLE-1 head's
tensors and lacks what its EAGLE3 worker reads.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drafting_config import check
from drafting_config.draft.eagle_tensors import eagle_head_tensors
from drafting_config.engines import RELEASES, Engine
from drafting_config.files.safetensors_headers import TensorHeader
from drafting_config.values.findings import Note
from tests.checkpoint_factory import write_safetensors
from tests.serve_commands import sglang_algorithm, vllm_switch

HIDDEN = 64
LLAMA_HEAD: dict[str, Any] = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": HIDDEN,
    "intermediate_size": 128,
    "num_attention_heads": 1,
    "num_key_value_heads": 1,
    "num_hidden_layers": 1,
    "vocab_size": 1000,
    "tie_word_embeddings": False,
}
LLAMA_TARGET = LLAMA_HEAD | {"num_hidden_layers": 4}
VLLM = [release for release in RELEASES if release.startswith("vllm")]
SGLANG = [release for release in RELEASES if release.startswith("sglang")]

Shapes = dict[str, tuple[str, tuple[int, ...]]]


def _layer(prefix: str) -> Shapes:
    shapes: Shapes = {}
    for name in ("q_proj", "k_proj", "v_proj", "o_proj"):
        shapes[f"{prefix}self_attn.{name}.weight"] = ("BF16", (HIDDEN, HIDDEN))
    shapes[f"{prefix}mlp.gate_proj.weight"] = ("BF16", (128, HIDDEN))
    shapes[f"{prefix}mlp.up_proj.weight"] = ("BF16", (128, HIDDEN))
    shapes[f"{prefix}mlp.down_proj.weight"] = ("BF16", (HIDDEN, 128))
    for norm in ("input_layernorm", "post_attention_layernorm"):
        shapes[f"{prefix}{norm}.weight"] = ("BF16", (HIDDEN,))
    return shapes


def eagle1_tensors() -> Shapes:
    """An EAGLE-1 head's checkpoint (EAGLE's cnets.py): unprefixed, fc of 2 * hidden."""
    return {
        "embed_tokens.weight": ("BF16", (1000, HIDDEN)),
        "fc.weight": ("BF16", (HIDDEN, 2 * HIDDEN)),
        "fc.bias": ("BF16", (HIDDEN,)),
        **_layer("layers.0."),
    }


def eagle3_tensors() -> Shapes:
    """An original EAGLE-3 head's checkpoint: midlayer.*, fc of 3 * hidden, d2t and t2d."""
    return {
        "fc.weight": ("BF16", (HIDDEN, 3 * HIDDEN)),
        "norm.weight": ("BF16", (HIDDEN,)),
        "lm_head.weight": ("BF16", (1000, HIDDEN)),
        "d2t": ("I64", (1000,)),
        "t2d": ("U8", (1000,)),
        "midlayer.hidden_norm.weight": ("BF16", (HIDDEN,)),
        **_layer("midlayer."),
    }


def causal_lm_tensors() -> Shapes:
    return {
        "model.embed_tokens.weight": ("BF16", (1000, HIDDEN)),
        "model.norm.weight": ("BF16", (HIDDEN,)),
        "lm_head.weight": ("BF16", (1000, HIDDEN)),
        **_layer("model.layers.0."),
    }


def _headers(shapes: Shapes) -> dict[str, TensorHeader]:
    return {name: TensorHeader(dtype, shape, "f") for name, (dtype, shape) in shapes.items()}


def _draft(tmp_path: Path, config: dict[str, Any], tensors: Shapes) -> Path:
    (tmp_path / "config.json").write_text(json.dumps(config))
    write_safetensors(tmp_path / "model.safetensors", tensors)
    return tmp_path


# --- the recogniser ---------------------------------------------------------------------------


def test_an_eagle1_checkpoint_is_told_by_fc_beside_unprefixed_layers() -> None:
    head = eagle_head_tensors(_headers(eagle1_tensors()), HIDDEN)
    assert head is not None
    assert head.kind == "eagle"
    assert head.evidence == "fc.weight, layers.0.*"


def test_an_eagle3_checkpoint_is_told_by_midlayer_or_its_vocabulary_maps() -> None:
    head = eagle_head_tensors(_headers(eagle3_tensors()), HIDDEN)
    assert head is not None
    assert head.kind == "eagle3"
    assert head.evidence == "fc.weight, d2t"
    only_layers = {
        name.replace("midlayer.", "layers.0."): shape
        for name, shape in eagle3_tensors().items()
        if name not in ("d2t", "t2d")
    }
    head = eagle_head_tensors(_headers(only_layers), HIDDEN)  # fc of three target layers
    assert head is not None
    assert head.kind == "eagle3"


@pytest.mark.parametrize(
    "tensors",
    [
        causal_lm_tensors(),
        {**causal_lm_tensors(), "fc.weight": ("BF16", (HIDDEN, 2 * HIDDEN))},  # model.layers
        {**eagle1_tensors(), "fc.weight": ("BF16", (HIDDEN, 5 * HIDDEN))},  # another width
        {name: s for name, s in eagle1_tensors().items() if not name.startswith("fc.")},
    ],
    ids=["causal-lm", "prefixed-layers", "fc-of-another-width", "no-fc"],
)
def test_no_eagle_head_without_its_marks(tensors: Shapes) -> None:
    assert eagle_head_tensors(_headers(tensors), HIDDEN) is None


def test_without_a_hidden_size_an_fc_tells_nothing() -> None:
    assert eagle_head_tensors(_headers(eagle1_tensors()), None) is None


@given(
    st.dictionaries(
        st.text(max_size=20),
        st.tuples(st.just("BF16"), st.lists(st.integers(0, 10), max_size=3).map(tuple)),
        max_size=8,
    ),
    st.one_of(st.none(), st.integers(0, 10)),
)
def test_the_recogniser_never_raises_and_never_calls_a_causal_lm_an_eagle_head(
    tensors: dict[str, tuple[str, tuple[int, ...]]], hidden: int | None
) -> None:
    head = eagle_head_tensors(_headers(tensors), hidden)
    if head is not None:
        assert "fc.weight" in tensors or any(
            name in ("d2t", "t2d") or name.startswith("midlayer.") for name in tensors
        )


# --- vLLM -------------------------------------------------------------------------------------


@pytest.mark.parametrize("release", VLLM)
def test_vllm_serves_an_eagle1_llama_head_under_its_base_class_as_eagle(
    tmp_path: Path, release: Engine
) -> None:
    draft = _draft(tmp_path, LLAMA_HEAD, eagle1_tensors())
    verdict = check(draft, target=LLAMA_TARGET, engine=release, check_tokenizer=False)
    assert verdict.ok, verdict.errors
    assert verdict.mode == "eagle"
    assert vllm_switch(verdict.serve_with) == {"method": "eagle"}
    assert any("fc.weight, layers.0.*" in note for note in verdict.notes)


@pytest.mark.parametrize("release", VLLM)
def test_vllm_refuses_an_eagle1_qwen2_head_at_the_registry(tmp_path: Path, release: Engine) -> None:
    config = LLAMA_HEAD | {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2"}
    draft = _draft(tmp_path, config, eagle1_tensors())
    verdict = check(draft, target=LLAMA_TARGET, engine=release, check_tokenizer=False)
    [error] = verdict.errors
    assert getattr(error.code, "name", None) == "renamed-architecture-unsupported"
    assert "EagleQwen2ForCausalLM" in str(error)


@pytest.mark.parametrize("release", VLLM)
def test_vllm_serves_an_eagle3_head_told_by_its_tensors_as_eagle3(
    tmp_path: Path, release: Engine
) -> None:
    draft = _draft(tmp_path, LLAMA_HEAD, eagle3_tensors())
    verdict = check(draft, target=LLAMA_TARGET, engine=release, check_tokenizer=False)
    assert verdict.mode == "eagle3"
    assert vllm_switch(verdict.serve_with) == {"method": "eagle3"}


@pytest.mark.parametrize("release", VLLM)
def test_an_eagle3_head_under_its_base_class_is_loaded_as_vllms_eagle3_class(
    tmp_path: Path, release: Engine
) -> None:
    # Renamed Eagle3LlamaForCausalLM, its checkpoint is checked by llama_eagle3.py's loader:
    # a pruned vocabulary (draft_vocab_size) without d2t maps draft id i to target id i.
    tensors = {name: s for name, s in eagle3_tensors().items() if name not in ("d2t", "t2d")}
    tensors["lm_head.weight"] = ("BF16", (500, HIDDEN))
    draft = _draft(tmp_path, LLAMA_HEAD | {"draft_vocab_size": 500}, tensors)
    verdict = check(draft, target=LLAMA_TARGET, engine=release, check_tokenizer=False)
    assert [getattr(e.code, "name", None) for e in verdict.errors] == ["draft-vocab-map-missing"]
    assert verdict.weights is not None
    assert verdict.weights.architecture == "llama_eagle3"


@pytest.mark.parametrize("release", VLLM)
def test_a_causal_lm_checkpoint_stays_a_draft_model(tmp_path: Path, release: Engine) -> None:
    draft = _draft(tmp_path, LLAMA_HEAD, causal_lm_tensors())
    verdict = check(draft, target=LLAMA_TARGET, engine=release, check_tokenizer=False)
    assert verdict.mode == "draft-model"


def test_without_the_weights_check_the_tensors_are_not_read(tmp_path: Path) -> None:
    draft = _draft(tmp_path, LLAMA_HEAD, eagle1_tensors())
    verdict = check(draft, target=LLAMA_TARGET, check_tokenizer=False, check_weights=False)
    assert verdict.mode == "draft-model"


def test_the_peeked_checkpoint_records_its_findings_once(tmp_path: Path) -> None:
    # .bin weights only: the note of the weights step, once, as before the peek
    (tmp_path / "config.json").write_text(json.dumps(LLAMA_HEAD))
    (tmp_path / "pytorch_model.bin").write_bytes(b"\0" * 16)
    verdict = check(tmp_path, target=LLAMA_TARGET, check_tokenizer=False)
    codes = [note.code for note in verdict.notes if isinstance(note, Note)]
    bin_only = [code for code in codes if getattr(code, "name", None) == "weights-bin-only"]
    assert len(bin_only) == 1
    assert verdict.mode == "draft-model"


# --- SGLang -----------------------------------------------------------------------------------


@pytest.mark.parametrize("release", SGLANG)
def test_sglang_loads_none_of_an_eagle1_heads_tensors_under_its_base_class(
    tmp_path: Path, release: Engine
) -> None:
    draft = _draft(tmp_path, LLAMA_HEAD, eagle1_tensors())
    verdict = check(draft, target=LLAMA_TARGET, engine=release, check_tokenizer=False)
    [error] = verdict.errors
    assert getattr(error.code, "name", None) == "architecture-not-drafter"
    assert "fc.weight, layers.0.*" in str(error)
    assert "LlamaForCausalLMEagle" in (error.fix or "")


@pytest.mark.parametrize("release", SGLANG)
def test_sglang_refuses_an_eagle3_head_told_by_its_tensors(tmp_path: Path, release: Engine) -> None:
    draft = _draft(tmp_path, LLAMA_HEAD, eagle3_tensors())
    verdict = check(draft, target=LLAMA_TARGET, engine=release, check_tokenizer=False)
    assert "architecture-not-drafter" in {getattr(e.code, "name", None) for e in verdict.errors}
    assert any("tensors fc.weight, d2t" in str(e) for e in verdict.errors)


@pytest.mark.parametrize("release", SGLANG)
def test_sglang_serves_a_causal_lm_checkpoint_as_standalone(
    tmp_path: Path, release: Engine
) -> None:
    draft = _draft(tmp_path, LLAMA_HEAD, causal_lm_tensors())
    verdict = check(draft, target=LLAMA_TARGET, engine=release, check_tokenizer=False)
    assert verdict.mode == "standalone"


@pytest.mark.parametrize("release", VLLM)
def test_an_eagle1_head_without_architectures_fails_at_vllms_registry(
    tmp_path: Path, release: Engine
) -> None:
    # get_config fills LlamaModel, EAGLEConfig renames it EagleLlamaModel (vllm#30987's words)
    config = {key: value for key, value in LLAMA_HEAD.items() if key != "architectures"}
    draft = _draft(tmp_path, config, eagle1_tensors())
    verdict = check(draft, target=LLAMA_TARGET, engine=release, check_tokenizer=False)
    assert "renamed-architecture-unsupported" in {
        getattr(e.code, "name", None) for e in verdict.errors
    }


# --- the finding contract of the new findings -------------------------------------------------


@pytest.mark.parametrize(
    ("tensors", "architecture"),
    [(eagle1_tensors(), "Qwen2ForCausalLM"), (eagle3_tensors(), "LlamaForCausalLM")],
    ids=["eagle", "eagle3"],
)
def test_the_findings_on_a_head_told_by_its_tensors_follow_the_contract(
    tmp_path: Path, tensors: Shapes, architecture: str
) -> None:
    draft = _draft(tmp_path, LLAMA_HEAD | {"architectures": [architecture]}, tensors)
    for release in RELEASES:
        verdict = check(draft, target=LLAMA_TARGET, engine=release, check_tokenizer=False)
        for error in verdict.errors:
            message = str(error)
            assert error.code is not None
            assert len(message) <= 140, message
            assert ".py" not in message
            assert ".py" in (error.evidence or "")
            assert error.fix is not None
            assert error.fix[0].islower()
            assert not error.fix.endswith(".")


def test_an_unlisted_head_whose_model_type_vllm_rewrites_is_renamed_from_the_rewrite(
    tmp_path: Path,
) -> None:
    # get_config fills DeepseekV3Model, hf_config_override makes it DeepSeekMTPModel: as
    # eagle, EagleDeepSeekMTPModel is registered (deepseek_eagle.py); as eagle3,
    # Eagle3DeepSeekMTPModel is not.
    config = {key: value for key, value in LLAMA_HEAD.items() if key != "architectures"}
    config["model_type"] = "deepseek_v3"
    (tmp_path / "eagle").mkdir()
    (tmp_path / "eagle3").mkdir()
    eagle = _draft(tmp_path / "eagle", config, eagle1_tensors())
    eagle3 = _draft(tmp_path / "eagle3", config | {"draft_vocab_size": 1000}, eagle3_tensors())
    for release in VLLM:
        codes_of = [
            {getattr(e.code, "name", None) for e in check(draft, engine=release).errors}
            for draft in (eagle, eagle3)
        ]
        assert "renamed-architecture-unsupported" not in codes_of[0]
        assert "renamed-architecture-unsupported" in codes_of[1]


@pytest.mark.parametrize("release", SGLANG)
@pytest.mark.parametrize("architecture", ["LlamaForCausalLMEagle", "Qwen2ForCausalLMEagle"])
def test_sglang_serves_its_own_eagle_classes_as_eagle(release: Engine, architecture: str) -> None:
    # lmsys/sglang-EAGLE-llama2-chat-7B names LlamaForCausalLMEagle (srt/models/llama_eagle.py);
    # the class the error above tells a plain-class head to name is served
    config = LLAMA_HEAD | {"architectures": [architecture]}
    verdict = check(config, target=LLAMA_TARGET, engine=release, check_tokenizer=False)
    assert verdict.ok, verdict.errors
    assert (verdict.mode, sglang_algorithm(verdict.serve_with)) == ("eagle", "EAGLE")
