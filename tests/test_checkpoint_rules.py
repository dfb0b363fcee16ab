"""A checkpoint's tensors against its config, by the rules of vLLM's model classes."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import pytest

from drafting_config import resolve
from drafting_config.engines.vllm import TappedLayers, architecture_row
from drafting_config.files.mask_embedding import MASK_EMBEDDING_FILE
from drafting_config.files.safetensors_headers import CheckpointHeaders, TensorHeader
from drafting_config.rules.checkpoint import (
    ARCHITECTURES,
    FcWidth,
    MaskHidden,
    WeightsFacts,
    check_checkpoint,
    weights_facts,
)
from drafting_config.rules.subject import Subject
from drafting_config.values.errors import ParallelDraftingConfigError
from drafting_config.values.fields import field_getter
from drafting_config.values.findings import Findings
from tests.checkpoint_factory import mask_embedding_at
from tests.conftest import EXAMPLES, load_json

HIDDEN = 64
VOCAB = 1000

DFLASH: dict[str, object] = {
    "architectures": ["DFlashDraftModel"],
    "dflash_config": {"mask_token_id": 900, "target_layer_ids": [1, 5, 9]},
    "hidden_size": HIDDEN,
    "num_hidden_layers": 2,
    "vocab_size": VOCAB,
}
EAGLE3: dict[str, object] = {
    "architectures": ["LlamaForCausalLMEagle3"],
    "ptd_token_id": 900,
    "draft_vocab_size": 500,
    "hidden_size": HIDDEN,
    "num_hidden_layers": 1,
    "vocab_size": VOCAB,
}
PARD: dict[str, object] = {
    "architectures": ["LlamaForCausalLM"],
    "pard_token": 900,
    "hidden_size": HIDDEN,
    "num_hidden_layers": 2,
    "vocab_size": VOCAB,
    "tie_word_embeddings": False,
}


def _layer(prefix: str, index: int) -> dict[str, tuple[int, ...]]:
    return {
        f"{prefix}layers.{index}.self_attn.q_proj.weight": (HIDDEN, HIDDEN),
        f"{prefix}layers.{index}.input_layernorm.weight": (HIDDEN,),
    }


def dflash_tensors(layers: int = 2, taps: int = 3) -> dict[str, tuple[int, ...]]:
    shapes: dict[str, tuple[int, ...]] = {
        "fc.weight": (HIDDEN, HIDDEN * taps),
        "norm.weight": (HIDDEN,),
    }
    for index in range(layers):
        shapes.update(_layer("", index))
    return shapes


def eagle3_tensors(fc_in: int = 3 * HIDDEN) -> dict[str, tuple[int, ...]]:
    return {
        "fc.weight": (HIDDEN, fc_in),
        "midlayer.self_attn.q_proj.weight": (HIDDEN, 2 * HIDDEN),
        "midlayer.hidden_norm.weight": (HIDDEN,),
        "lm_head.weight": (500, HIDDEN),
        "d2t": (500,),
        "t2d": (VOCAB,),
        "mask_hidden": (1, fc_in),
    }


def pard_tensors(layers: int = 2) -> dict[str, tuple[int, ...]]:
    shapes: dict[str, tuple[int, ...]] = {
        "model.embed_tokens.weight": (VOCAB, HIDDEN),
        "lm_head.weight": (VOCAB, HIDDEN),
    }
    for index in range(layers):
        shapes.update(_layer("model.", index))
    return shapes


class Found(NamedTuple):
    """What the checkpoint rule recorded, and the facts the verdict reports."""

    facts: WeightsFacts
    errors: tuple[ParallelDraftingConfigError, ...]
    notes: tuple[str, ...]


def run(
    config: Mapping[str, object],
    shapes: Mapping[str, Sequence[int]],
    *,
    aux: tuple[int, ...] | None = None,
    aux_source: str | None = None,
) -> Found:
    """The checkpoint rule over ``shapes``, for ``config`` as resolved; ``aux`` and
    ``aux_source`` stand for the layers vLLM's runner taps, when given."""
    tensors = {n: TensorHeader("BF16", tuple(s), "model.safetensors") for n, s in shapes.items()}
    resolution = resolve(dict(config))
    if aux is not None:
        resolution = replace(resolution, tapped=TappedLayers(aux, aux_source))
    subject = Subject(
        resolution,
        field_getter(resolution.hf_config(dict(config)), ""),
        dict(config),
        checkpoint=CheckpointHeaders(("model.safetensors",), tensors, 100),
    )
    found = Findings()
    check_checkpoint(subject, found)
    facts = weights_facts(subject, ("model.safetensors",))
    assert facts is not None
    return Found(facts, tuple(found.errors), tuple(found.notes))


def only_error(found: Found) -> tuple[str | None, str]:
    assert len(found.errors) == 1, [str(e) for e in found.errors]
    return found.errors[0].field, str(found.errors[0])


def test_the_table_is_data_each_row_citing_vllm_and_each_architecture_in_one_row() -> None:
    names = [name for row in ARCHITECTURES for name in row.architectures]
    assert len(names) == len(set(names))
    for row in ARCHITECTURES:
        assert row.follows.startswith("vllm/model_executor/")
    by_name = {row.name: row for row in ARCHITECTURES}
    assert by_name["qwen3_dflash"].mask_hidden is MaskHidden.FORBIDDEN
    assert by_name["llama_eagle3"].mask_hidden is MaskHidden.REQUIRED
    assert by_name["causal_lm"].mask_hidden is MaskHidden.IGNORED
    assert by_name["qwen3_dflash"].fc_width is FcWidth.DFLASH
    for name in ("Eagle3LlamaForCausalLM", "LlamaForCausalLMEagle3", "PEagleDraftModel"):
        assert name in by_name["llama_eagle3"].architectures


def test_correct_checkpoints_of_each_row_pass() -> None:
    found = run(
        DFLASH, dflash_tensors(), aux=(2, 6, 10), aux_source="dflash_config.target_layer_ids"
    )
    assert found.errors == ()
    assert found.facts.architecture == "qwen3_dflash"
    assert (found.facts.fc_input_width, found.facts.layers) == (3 * HIDDEN, 2)
    assert "the checkpoint has no embed_tokens: vLLM shares the target's embedding" in found.notes
    found = run(EAGLE3, eagle3_tensors())
    assert found.errors == ()
    assert found.facts.layers == 1  # midlayer. is layers.0.
    found = run(PARD, pard_tensors())
    assert found.errors == ()
    assert found.facts.embedding_rows == VOCAB


def test_dflash_fc_width_follows_the_tapped_layers() -> None:
    field, message = only_error(
        run(
            DFLASH,
            dflash_tensors(taps=5),
            aux=(2, 6, 10),
            aux_source="dflash_config.target_layer_ids",
        )
    )
    assert field == "dflash_config.target_layer_ids"
    assert (
        f"`fc.weight` has input width {5 * HIDDEN} but vLLM builds fc for {3 * HIDDEN}" in message
    )
    assert (
        "= `hidden_size` 64 x 3 layers tapped by `dflash_config.target_layer_ids`, so loading"
        in message
    )


def test_dflash_fc_width_without_tapped_layers_follows_num_hidden_layers() -> None:
    config = {k: v for k, v in DFLASH.items() if k != "dflash_config"} | {"mask_token_id": 900}
    assert run(config, dflash_tensors(taps=2)).errors == ()
    field, message = only_error(run(config, dflash_tensors(taps=3)))
    assert field == "num_hidden_layers"
    assert "x 2 from `num_hidden_layers`, as the config names no tapped layers" in message


def test_dflash_target_hidden_size_sets_the_fc_width() -> None:
    config = DFLASH | {"target_hidden_size": 32}
    tensors = dflash_tensors() | {"fc.weight": (HIDDEN, 96)}
    assert run(config, tensors, aux=(1, 2, 3), aux_source="x").errors == ()


@pytest.mark.parametrize("off", [False, 0, None, ""])
@pytest.mark.parametrize("where", ["dflash_config", "eagle_config", "top level"])
def test_dflash_without_aux_hidden_states_has_no_fc_to_check(off: object, where: str) -> None:
    # DFlashQwen3Model tests the flag's truth value; eagle_config is updated with
    # dflash_config, and the top level is read when neither section sets it.
    config = copy.deepcopy(DFLASH)
    if where == "top level":
        config["use_aux_hidden_state"] = off
    elif where == "eagle_config":
        config["eagle_config"] = {"use_aux_hidden_state": off}
    else:
        config["dflash_config"]["use_aux_hidden_state"] = off  # type: ignore[index]
    tensors = dflash_tensors()
    del tensors["fc.weight"]
    assert run(config, tensors, aux=(1, 2, 3), aux_source="x").errors == ()


def test_a_missing_fc_is_an_error() -> None:
    tensors = dflash_tensors()
    del tensors["fc.weight"]
    field, message = only_error(run(DFLASH, tensors, aux=(1, 2, 3), aux_source="x"))
    assert field == "x"
    assert "no `fc.weight`" in message


def test_dflash_refuses_mask_hidden() -> None:
    field, message = only_error(
        run(DFLASH, dflash_tensors() | {"mask_hidden": (HIDDEN,)}, aux=(1, 2, 3), aux_source="x")
    )
    assert field == "architectures"
    assert "asserts that no tensor is named mask_hidden" in message


def test_eagle3_requires_mask_hidden_of_the_fc_width() -> None:
    tensors = eagle3_tensors()
    del tensors["mask_hidden"]
    field, message = only_error(run(EAGLE3, tensors))
    assert field == "ptd_token_id"
    assert "mask_hidden not found in weights" in message
    field, message = only_error(run(EAGLE3, eagle3_tensors() | {"mask_hidden": (HIDDEN,)}))
    assert field == "eagle_config.eagle_aux_hidden_state_layer_ids"
    assert f"'mask_hidden' holds {HIDDEN} values" in message
    assert f"{3 * HIDDEN}" in message


def test_a_draft_without_a_token_id_needs_no_mask_hidden() -> None:
    config = {k: v for k, v in EAGLE3.items() if k != "ptd_token_id"}
    tensors = eagle3_tensors()
    del tensors["mask_hidden"]
    assert run(config, tensors).errors == ()


def test_eagle3_fc_width_reads_num_aux_hidden_states_then_eagle_config() -> None:
    assert run(EAGLE3 | {"num_aux_hidden_states": 2}, eagle3_tensors(2 * HIDDEN)).errors == ()
    with_list = EAGLE3 | {"eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 2, 3, 4]}}
    assert run(with_list, eagle3_tensors(4 * HIDDEN)).errors == ()
    field, message = only_error(
        run(with_list, eagle3_tensors(3 * HIDDEN) | {"mask_hidden": (4 * HIDDEN,)})
    )
    assert field == "eagle_config.eagle_aux_hidden_state_layer_ids"
    assert (
        "`hidden_size` 64 x 4 from the length of `eagle_config.eagle_aux_hidden_state_layer_ids`"
        in message
    )


def test_eagle3_runner_tapping_another_count_than_fc_is_an_error() -> None:
    field, message = only_error(
        run(
            EAGLE3,
            eagle3_tensors(),
            aux=(2, 16, 29, 31),
            aux_source="eagle_aux_hidden_state_layer_ids",
        )
    )
    assert field == "eagle_aux_hidden_state_layer_ids"
    assert "vLLM's runner taps 4 target layers" in message
    assert "sizes fc for 3" in message


def test_lm_head_rows_follow_draft_vocab_size_else_vocab_size() -> None:
    field, message = only_error(run(EAGLE3, eagle3_tensors() | {"lm_head.weight": (VOCAB, HIDDEN)}))
    assert field == "draft_vocab_size"
    assert f"`lm_head.weight` has {VOCAB} rows but `draft_vocab_size` = 500" in message
    config = {k: v for k, v in EAGLE3.items() if k != "draft_vocab_size"}
    tensors = eagle3_tensors() | {"lm_head.weight": (500, HIDDEN), "d2t": (VOCAB,)}
    field, message = only_error(run(config, tensors))
    assert field == "vocab_size"


def test_d2t_has_draft_vocab_size_entries() -> None:
    field, message = only_error(run(EAGLE3, eagle3_tensors() | {"d2t": (499,)}))
    assert field == "draft_vocab_size"
    assert "`d2t` has shape [499] but `draft_vocab_size` = 500" in message


def test_the_layer_count_must_match_num_hidden_layers() -> None:
    field, message = only_error(run(PARD, pard_tensors(layers=3)))
    assert field == "num_hidden_layers"
    assert "the checkpoint holds 3 decoder layers (0, 1, 2) but `num_hidden_layers` = 2" in message
    tensors = {k: v for k, v in pard_tensors(layers=3).items() if ".1." not in k}
    field, message = only_error(run(PARD, tensors))
    assert "2 decoder layers (0, 2)" in message


def test_a_dflash_checkpoint_already_prefixed_with_model_has_no_layers_vllm_can_place() -> None:
    tensors = {f"model.{k}": v for k, v in dflash_tensors().items()}
    found = run(DFLASH, tensors, aux=(1, 2, 3), aux_source="x")
    assert any("no decoder layers" in str(e) for e in found.errors)


def test_pard_embedding_rows_vocab_size_columns_hidden_size_and_the_token_below_them() -> None:
    tensors = pard_tensors() | {"model.embed_tokens.weight": (800, HIDDEN)}
    found = run(PARD | {"vocab_size": VOCAB}, tensors)
    fields = [e.field for e in found.errors]
    assert fields == ["vocab_size", "pard_token"]
    assert "`embed_tokens.weight` has 800 rows but `vocab_size` = 1000" in str(found.errors[0])
    assert "`pard_token` = 900 is past the 800 rows of `embed_tokens.weight`" in str(
        found.errors[1]
    )
    field, message = only_error(
        run(PARD, pard_tensors() | {"model.embed_tokens.weight": (VOCAB, 32)})
    )
    assert field == "hidden_size"
    assert "has 32 columns but `hidden_size` = 64" in message


def test_pard_lm_head_unless_tied() -> None:
    tensors = pard_tensors()
    del tensors["lm_head.weight"]
    field, message = only_error(run(PARD, tensors))
    assert field == "tie_word_embeddings"
    assert "no `lm_head.weight` and `tie_word_embeddings` is false" in message
    assert run(PARD | {"tie_word_embeddings": True}, tensors).errors == ()
    unset = {k: v for k, v in PARD.items() if k != "tie_word_embeddings"}
    found = run(unset, tensors)
    assert found.errors == ()
    assert any("does not set tie_word_embeddings" in note for note in found.notes)
    field, _ = only_error(run(PARD, pard_tensors() | {"lm_head.weight": (999, HIDDEN)}))
    assert field == "vocab_size"


def test_a_missing_pard_embedding_is_an_error() -> None:
    tensors = pard_tensors()
    del tensors["model.embed_tokens.weight"]
    field, message = only_error(run(PARD, tensors))
    assert field == "vocab_size"
    assert "no `model.embed_tokens.weight`" in message


def test_an_unknown_architecture_is_a_note_never_an_error() -> None:
    found = run(PARD | {"architectures": ["Qwen3DSparkModel"]}, {"x": (1,)})
    assert found.errors == ()
    assert found.facts.architecture is None
    assert "'Qwen3DSparkModel'" in found.notes[0]
    assert "weights not checked against the config" in found.notes[0]
    found = run({k: v for k, v in PARD.items() if k != "architectures"}, {"x": (1,)})
    assert found.errors == ()


def test_a_quantized_checkpoint_gets_a_note_not_shape_errors() -> None:
    tensors = dflash_tensors(taps=1) | {"fc.weight_scale": (HIDDEN,)}
    found = run(DFLASH, tensors, aux=(1, 2, 3), aux_source="x")
    assert found.errors == ()
    assert "quantized" in found.notes[0]
    found = run(
        DFLASH | {"quantization_config": {"quant_method": "fp8"}},
        dflash_tensors(taps=1),
        aux=(1, 2, 3),
        aux_source="x",
    )
    assert found.errors == ()
    assert "`quantization_config` is set" in found.notes[0]


def test_a_broken_size_field_is_an_error_naming_it_not_a_crash() -> None:
    field, message = only_error(run(PARD | {"num_hidden_layers": "2"}, pard_tensors()))
    assert field == "num_hidden_layers"
    assert "must be a positive int below 2**31, got '2' (str)" in message


def test_speculators_types_use_the_architecture_vllm_writes() -> None:
    row, name = architecture_row(lambda key, default: default, "dflash")
    assert row is not None
    assert (row.name, name) == ("qwen3_dflash", "DFlashDraftModel")
    row, name = architecture_row(
        lambda key, default: "llama" if key == "model_type" else default, "peagle"
    )
    assert row is not None
    assert row.name == "llama_eagle3"
    row, name = architecture_row(lambda key, default: default, "dspark")
    assert row is None
    assert name == "'Qwen3DSparkModel'"


def test_the_bundled_examples_configs_pass_with_checkpoints_that_fit_them() -> None:
    config = load_json(EXAMPLES / "dflash-qwen3-4b" / "config.json")
    tensors = {"fc.weight": (2560, 5 * 2560)}
    for index in range(5):
        tensors[f"layers.{index}.mlp.down_proj.weight"] = (2560, 9728)
    found = run(
        config, tensors, aux=(2, 10, 18, 26, 34), aux_source="dflash_config.target_layer_ids"
    )
    assert found.errors == ()


def _save(path: Path, state: object) -> None:
    import torch

    torch.save(state, path)


def test_mask_embedding_is_read_only_when_the_model_class_has_a_mask_id(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    (tmp_path / MASK_EMBEDDING_FILE).write_bytes(b"not a pickle")
    no_id = {k: v for k, v in DFLASH.items() if k != "dflash_config"}
    assert mask_embedding_at(tmp_path, no_id) == (
        [],
        [],
    )
    errors, _ = mask_embedding_at(tmp_path, DFLASH)
    assert "torch.load(weights_only=True) refuses it" in str(errors[0])
    _save(tmp_path / MASK_EMBEDDING_FILE, torch.zeros(HIDDEN))
    assert mask_embedding_at(tmp_path, DFLASH) == (
        [],
        [],
    )
    _save(
        tmp_path / MASK_EMBEDDING_FILE, {"mask_token_id": 900, "embedding": torch.zeros(1, HIDDEN)}
    )
    assert mask_embedding_at(tmp_path, DFLASH) == (
        [],
        [],
    )


def test_mask_embedding_with_another_id_or_size_is_an_error(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    _save(tmp_path / MASK_EMBEDDING_FILE, {"mask_token_id": 7, "embedding": torch.zeros(HIDDEN)})
    errors, _ = mask_embedding_at(tmp_path, DFLASH)
    assert [e.field for e in errors] == ["dflash_config.mask_token_id"]
    assert "is for mask_token_id 7 (int) but `dflash_config.mask_token_id` = 900 (int)" in str(
        errors[0]
    )
    _save(tmp_path / MASK_EMBEDDING_FILE, torch.zeros(HIDDEN + 1))
    errors, _ = mask_embedding_at(tmp_path, DFLASH)
    assert [e.field for e in errors] == ["hidden_size"]
    assert f"holds {HIDDEN + 1} values" in str(errors[0])
    top_level = {k: v for k, v in DFLASH.items() if k != "dflash_config"} | {"mask_token_id": 5}
    _save(tmp_path / MASK_EMBEDDING_FILE, {"mask_token_id": 900, "embedding": torch.zeros(HIDDEN)})
    errors, _ = mask_embedding_at(tmp_path, top_level)
    assert [e.field for e in errors] == ["mask_token_id"]


def test_mask_embedding_without_torch_is_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    (tmp_path / MASK_EMBEDDING_FILE).write_bytes(b"x")
    monkeypatch.setitem(sys.modules, "torch", None)
    errors, notes = mask_embedding_at(tmp_path, DFLASH)
    assert errors == []
    assert notes == [f"{tmp_path / MASK_EMBEDDING_FILE} not checked: reading it needs torch"]


def test_the_mask_id_of_the_model_class_lets_dflash_config_win_over_eagle_config(
    tmp_path: Path,
) -> None:
    torch = pytest.importorskip("torch")
    _save(tmp_path / MASK_EMBEDDING_FILE, {"mask_token_id": 900, "embedding": torch.zeros(HIDDEN)})
    config = DFLASH | {"eagle_config": {"mask_token_id": 5}}
    assert mask_embedding_at(tmp_path, config) == (
        [],
        [],
    )
    config = {k: v for k, v in DFLASH.items() if k != "dflash_config"} | {
        "eagle_config": {"mask_token_id": 5}
    }
    errors, _ = mask_embedding_at(tmp_path, config)
    assert [e.field for e in errors] == ["eagle_config.mask_token_id"]
    json.dumps(config)  # plain data


def test_a_causal_lm_architecture_fed_hidden_states_is_not_checked_as_a_causal_lm() -> None:
    config = DFLASH | {"architectures": ["Qwen3ForCausalLM"]}
    found = run(config, dflash_tensors(), aux=(1, 2, 3), aux_source="x")
    assert found.errors == ()
    assert found.facts.architecture is None
    assert "'Qwen3ForCausalLM'" in found.notes[0]
