"""A checkpoint's tensors against its config, by the rules of vLLM's model classes."""

from __future__ import annotations

import copy
import io
import json
import os
import shutil
from collections.abc import Iterator, Mapping, Sequence
from contextlib import redirect_stdout
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from drafting_config import check, check_many, resolve
from drafting_config.cli.run import main
from drafting_config.engines.vllm import codes as vllm_codes
from drafting_config.engines.vllm.architectures import (
    ARCHITECTURES,
    FcWidth,
    MaskHidden,
    architecture_row,
)
from drafting_config.engines.vllm.checkpoint import (
    DROPPED_ROTARY_TENSORS,
    WeightsFacts,
    check_checkpoint,
    weights_facts,
)
from drafting_config.engines.vllm.codes import DRAFT_VOCAB_MAP_MISSING
from drafting_config.engines.vllm.resolution import VllmSubject
from drafting_config.engines.vllm.runners import TappedLayers
from drafting_config.engines.vllm.speculators import translate
from drafting_config.files.mask_embedding import MASK_EMBEDDING_FILE
from drafting_config.files.safetensors_headers import (
    CheckpointHeaders,
    TensorHeader,
    WeightsFileError,
)
from drafting_config.values.errors import ParallelDraftingConfigError
from drafting_config.values.fields import field_getter
from drafting_config.values.findings import Findings
from tests.checkpoint_factory import (
    FC_WIDTH_EXAMPLE,
    fc_width_example_tensors,
    header_bytes,
    mask_embedding_at,
    write_fc_width_example,
    write_safetensors,
    write_sharded,
)
from tests.conftest import EXAMPLES, load_json, only_error
from tests.engines.vllm import PARALLEL_SWITCH
from tests.fake_cache import use_cache, write_cached_repo
from tests.fake_hub import MAIN_COMMIT, FakeHub, FakeRepo, serve

HIDDEN = 64
VOCAB = 1000

DFLASH: dict[str, object] = {
    "architectures": ["DFlashDraftModel"],
    "model_type": "qwen3",
    "dflash_config": {"mask_token_id": 900, "target_layer_ids": [1, 5, 9]},
    "hidden_size": HIDDEN,
    "num_hidden_layers": 2,
    "vocab_size": VOCAB,
}
EAGLE3: dict[str, object] = {
    "architectures": ["LlamaForCausalLMEagle3"],
    "model_type": "llama",
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


_LINEARS = (
    *("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj"),
    *("mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"),
)
_NORMS = ("input_layernorm", "post_attention_layernorm")


def _layer(
    prefix: str, index: int | None, norms: tuple[str, ...] = ()
) -> dict[str, tuple[int, ...]]:
    """Every tensor vLLM's model class declares in one decoder layer (``midlayer`` when
    ``index`` is None), ``norms`` the class's extra RMSNorms in it."""
    layer = f"{prefix}midlayer" if index is None else f"{prefix}layers.{index}"
    shapes: dict[str, tuple[int, ...]] = {
        f"{layer}.{name}.weight": (HIDDEN, HIDDEN) for name in _LINEARS
    }
    shapes |= {f"{layer}.{name}.weight": (HIDDEN,) for name in (*_NORMS, *norms)}
    return shapes


def dflash_tensors(layers: int = 2, taps: int = 3) -> dict[str, tuple[int, ...]]:
    shapes: dict[str, tuple[int, ...]] = {
        "fc.weight": (HIDDEN, HIDDEN * taps),
        "hidden_norm.weight": (HIDDEN,),
        "norm.weight": (HIDDEN,),
    }
    for index in range(layers):
        shapes.update(_layer("", index, ("self_attn.q_norm", "self_attn.k_norm")))
    return shapes


def eagle3_tensors(fc_in: int = 3 * HIDDEN) -> dict[str, tuple[int, ...]]:
    return {
        **_layer("", None, ("hidden_norm",)),
        "fc.weight": (HIDDEN, fc_in),
        "midlayer.self_attn.q_proj.weight": (HIDDEN, 2 * HIDDEN),
        "norm.weight": (HIDDEN,),
        "lm_head.weight": (500, HIDDEN),
        "d2t": (500,),
        "t2d": (VOCAB,),
        "mask_hidden": (1, fc_in),
    }


def pard_tensors(layers: int = 2) -> dict[str, tuple[int, ...]]:
    shapes: dict[str, tuple[int, ...]] = {
        "model.embed_tokens.weight": (VOCAB, HIDDEN),
        "model.norm.weight": (HIDDEN,),
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
    """The checkpoint rule over ``shapes``, for ``config`` as resolved (on the newest release
    that drafts PTD and PARD drafts in parallel, reading their token); ``aux`` and
    ``aux_source`` stand for the layers vLLM's runner taps, when given."""
    tensors = {n: TensorHeader("BF16", tuple(s), "model.safetensors") for n, s in shapes.items()}
    resolution = resolve(dict(config))
    if aux is not None:
        resolution = replace(resolution, tapped=TappedLayers(aux, aux_source))
    subject = replace(
        VllmSubject.of(resolution, version=PARALLEL_SWITCH.removeprefix("vllm==")),
        checkpoint=CheckpointHeaders(("model.safetensors",), tensors, 100),
    )
    found = Findings()
    check_checkpoint(subject, found)
    facts = weights_facts(subject, ("model.safetensors",))
    assert facts is not None
    return Found(facts, tuple(found.errors), tuple(found.notes))


def field_and_message(found: Found) -> tuple[str | None, str]:
    error = only_error(found)
    return error.field, str(error)


def _without(tensors: dict[str, tuple[int, ...]], *names: str) -> dict[str, tuple[int, ...]]:
    return {name: shape for name, shape in tensors.items() if name not in names}


TAPPED = {"aux": (1, 2, 3), "aux_source": "x"}
"""The runner taps three layers, from a field named ``x``."""


@dataclass(frozen=True)
class Case:
    """A config, its checkpoint's tensors, the layers tapped, and the one error expected
    (``field`` ``None``: none at all)."""

    config: Mapping[str, object]
    tensors: Mapping[str, tuple[int, ...]]
    taps: Mapping[str, Any]
    field: str | None = None
    says: tuple[str, ...] = ()
    cites: tuple[str, ...] = ()
    """Texts of the error's evidence (the engine's file and function)."""


CASES = {
    "dflash fc width follows the tapped layers": Case(
        DFLASH,
        dflash_tensors(taps=5),
        {"aux": (2, 6, 10), "aux_source": "dflash_config.target_layer_ids"},
        "dflash_config.target_layer_ids",
        (
            f"`fc.weight` has input width {5 * HIDDEN} but vLLM builds fc for {3 * HIDDEN}",
            "= `hidden_size` 64 x 3 tapped layers, so loading the weights fails",
        ),
        ("qwen3_dflash.py: _get_dflash_fc_input_size",),
    ),
    "dflash target_hidden_size sets the fc width": Case(
        DFLASH | {"target_hidden_size": 32},
        dflash_tensors() | {"fc.weight": (HIDDEN, 96)},
        TAPPED,
    ),
    "a missing fc is an error": Case(
        DFLASH, _without(dflash_tensors(), "fc.weight"), TAPPED, "x", ("no `fc.weight`",)
    ),
    "dflash refuses mask_hidden": Case(
        DFLASH,
        dflash_tensors() | {"mask_hidden": (HIDDEN,)},
        TAPPED,
        "architectures",
        ("loader refuses",),
        ("asserts that no tensor is named mask_hidden",),
    ),
    "eagle3 requires mask_hidden": Case(
        EAGLE3,
        _without(eagle3_tensors(), "mask_hidden"),
        {},
        "ptd_token_id",
        ("makes the draft parallel, so vLLM's llama_eagle3 loader fails",),
        ("mask_hidden not found in weights",),
    ),
    "eagle3 mask_hidden has the fc width": Case(
        EAGLE3,
        eagle3_tensors() | {"mask_hidden": (HIDDEN,)},
        {},
        "eagle_config.eagle_aux_hidden_state_layer_ids",
        (f"'mask_hidden' holds {HIDDEN} values", f"{3 * HIDDEN}"),
    ),
    "a draft without a token id needs no mask_hidden": Case(
        {k: v for k, v in EAGLE3.items() if k != "ptd_token_id"},
        _without(eagle3_tensors(), "mask_hidden"),
        {},
    ),
    "eagle3 runner tapping another count than fc": Case(
        EAGLE3,
        eagle3_tensors(),
        {"aux": (2, 16, 29, 31), "aux_source": "eagle_aux_hidden_state_layer_ids"},
        "eagle_aux_hidden_state_layer_ids",
        ("`eagle_aux_hidden_state_layer_ids` taps 4 target layers", "fc for 3"),
        ("llama_eagle3.py: LlamaModel.__init__ reads eagle_config",),
    ),
    "d2t has draft_vocab_size entries": Case(
        EAGLE3,
        eagle3_tensors() | {"d2t": (499,)},
        {},
        "draft_vocab_size",
        ("`d2t` has shape [499] but `draft_vocab_size` = 500",),
    ),
    "a missing pard embedding": Case(
        PARD,
        _without(pard_tensors(), "model.embed_tokens.weight"),
        {},
        "vocab_size",
        ("no `model.embed_tokens.weight`",),
    ),
    "a broken size field is an error naming it, not a crash": Case(
        PARD | {"num_hidden_layers": "2"},
        pard_tensors(),
        {},
        "num_hidden_layers",
        ("must be a positive int below 2**31, got '2' (str)",),
    ),
}
"""The checkpoint rules as a table: each case one config and checkpoint, and what vLLM's
loader makes of them."""


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_the_checkpoint_rules_table(case: Case) -> None:
    found = run(case.config, case.tensors, **case.taps)
    if case.field is None:
        assert found.errors == ()
        return
    field, message = field_and_message(found)
    assert field == case.field
    for text in case.says:
        assert text in message
    evidence = only_error(found).evidence or ""
    for text in case.cites:
        assert text in evidence


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
    assert (
        "the checkpoint has no embed_tokens, so vLLM shares the target's embedding" in found.notes
    )
    found = run(EAGLE3, eagle3_tensors())
    assert found.errors == ()
    assert found.facts.layers == 1  # midlayer. is layers.0.
    found = run(PARD, pard_tensors())
    assert found.errors == ()
    assert found.facts.embedding_rows == VOCAB


def test_dflash_fc_width_without_tapped_layers_follows_num_hidden_layers() -> None:
    config = {k: v for k, v in DFLASH.items() if k != "dflash_config"} | {"mask_token_id": 900}
    assert run(config, dflash_tensors(taps=2)).errors == ()
    field, message = field_and_message(run(config, dflash_tensors(taps=3)))
    assert field == "num_hidden_layers"
    assert "= `hidden_size` 64 x 2 layers, from `num_hidden_layers`, so loading" in message


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


def test_eagle3_fc_width_reads_num_aux_hidden_states_then_eagle_config() -> None:
    assert run(EAGLE3 | {"num_aux_hidden_states": 2}, eagle3_tensors(2 * HIDDEN)).errors == ()
    with_list = EAGLE3 | {"eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 2, 3, 4]}}
    assert run(with_list, eagle3_tensors(4 * HIDDEN)).errors == ()
    field, message = field_and_message(
        run(with_list, eagle3_tensors(3 * HIDDEN) | {"mask_hidden": (4 * HIDDEN,)})
    )
    assert field == "eagle_config.eagle_aux_hidden_state_layer_ids"
    assert (
        "`hidden_size` 64 x 4 layers, from `eagle_config.eagle_aux_hidden_state_layer_ids`"
        in message
    )


def test_lm_head_rows_follow_draft_vocab_size_else_vocab_size() -> None:
    field, message = field_and_message(
        run(EAGLE3, eagle3_tensors() | {"lm_head.weight": (VOCAB, HIDDEN)})
    )
    assert field == "draft_vocab_size"
    assert f"`lm_head.weight` has {VOCAB} rows but `draft_vocab_size` = 500" in message
    config = {k: v for k, v in EAGLE3.items() if k != "draft_vocab_size"}
    tensors = eagle3_tensors() | {"lm_head.weight": (500, HIDDEN), "d2t": (VOCAB,)}
    field, message = field_and_message(run(config, tensors))
    assert field == "vocab_size"


def test_an_eagle3_head_without_lm_head_is_an_error_only_with_its_own_vocabulary() -> None:
    """vLLM shares the target's head and keeps its first draft_vocab_size columns, as the
    engine's weights stage shows (vllm_weight_runs.json: ptd-eagle3-llama3-8b-no-lm-head)."""
    no_head = _without(eagle3_tensors(), "lm_head.weight")
    (error,) = run(EAGLE3, no_head).errors
    assert error.code == vllm_codes.WEIGHTS_LM_HEAD_SHARED_DRAFT_VOCAB
    assert error.field == "draft_vocab_size"
    assert f"`draft_vocab_size` = 500 (target: {VOCAB})" in str(error)
    assert "llama_eagle3.py" in (error.evidence or "")
    # The target's vocabulary: the shared head is the right one.
    same = {**EAGLE3, "draft_vocab_size": VOCAB}
    assert run(same, no_head | {"d2t": (VOCAB,)}).errors == ()
    unset = {k: v for k, v in EAGLE3.items() if k != "draft_vocab_size"}
    assert run(unset, no_head | {"d2t": (VOCAB,)}).errors == ()
    # A DFlash draft's missing head is shared as before.
    assert run(DFLASH, dflash_tensors()).errors == ()


def test_the_layer_count_must_match_num_hidden_layers() -> None:
    field, message = field_and_message(run(PARD, pard_tensors(layers=3)))
    assert field == "num_hidden_layers"
    assert "The checkpoint holds 3 decoder layers (0, 1, 2) but `num_hidden_layers` = 2" in message
    tensors = {k: v for k, v in pard_tensors(layers=3).items() if ".1." not in k}
    field, message = field_and_message(run(PARD, tensors))
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
    field, message = field_and_message(
        run(PARD, pard_tensors() | {"model.embed_tokens.weight": (VOCAB, 32)})
    )
    assert field == "hidden_size"
    assert "has 32 columns but `hidden_size` = 64" in message


def test_pard_lm_head_unless_tied() -> None:
    tensors = pard_tensors()
    del tensors["lm_head.weight"]
    field, message = field_and_message(run(PARD, tensors))
    assert field == "tie_word_embeddings"
    assert "no `lm_head.weight` and `tie_word_embeddings` is false" in message
    assert run(PARD | {"tie_word_embeddings": True}, tensors).errors == ()
    unset = {k: v for k, v in PARD.items() if k != "tie_word_embeddings"}
    found = run(unset, tensors)
    assert found.errors == ()
    assert any("does not set tie_word_embeddings" in note for note in found.notes)
    field, _ = field_and_message(run(PARD, pard_tensors() | {"lm_head.weight": (999, HIDDEN)}))
    assert field == "vocab_size"


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


def test_speculators_types_use_the_architecture_vllm_writes() -> None:
    from tests.engines.vllm.test_speculators import CONFIGS, eagle3_config

    def row_of(config: dict[str, Any], **layer: object) -> tuple[str | None, str | None]:
        config["transformer_layer_config"].update(layer)
        row, name = architecture_row(
            field_getter(translate(config.get, parallel_only=False).hf_config, "")
        )
        return None if row is None else row.name, name

    assert row_of(CONFIGS["dflash"]()) == ("qwen3_dflash", "DFlashDraftModel")
    assert row_of(CONFIGS["peagle"](), model_type="llama")[0] == "llama_eagle3"
    assert row_of(eagle3_config()) == ("llama_eagle3", "Eagle3LlamaForCausalLM")
    assert row_of(CONFIGS["dspark"]()) == (None, "'Qwen3DSparkModel'")


def test_the_bundled_examples_configs_pass_with_checkpoints_that_fit_them() -> None:
    config = load_json(EXAMPLES / "dflash-qwen3-4b" / "config.json")
    tensors = {"fc.weight": (2560, 5 * 2560), "hidden_norm.weight": (2560,)}
    tensors["norm.weight"] = (2560,)
    for index in range(5):
        tensors |= _layer("", index, ("self_attn.q_norm", "self_attn.k_norm"))
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


# --- inputs real trainers and hostile files produce -----------------------------------------------


@pytest.mark.parametrize("kind", ["tensor", "float", "int"])
def test_a_mask_embedding_id_vllm_compares_equal_is_no_error(tmp_path: Path, kind: str) -> None:
    """vLLM compares with ``state.get("mask_token_id", id) != id`` (``_read_mask_embedding`` in
    ``qwen3_dflash.py``): a 0-d tensor or a float holding the id compare equal, and vLLM
    takes the file."""
    torch = pytest.importorskip("torch")
    stored = {"tensor": torch.tensor(900), "float": 900.0, "int": 900}[kind]
    _save(
        tmp_path / MASK_EMBEDDING_FILE, {"mask_token_id": stored, "embedding": torch.zeros(HIDDEN)}
    )
    assert mask_embedding_at(tmp_path, DFLASH) == (
        [],
        [],
    )


@pytest.mark.parametrize("kind", ["tensor", "float", "list", "string"])
def test_a_mask_embedding_id_vllm_finds_different_is_an_error(tmp_path: Path, kind: str) -> None:
    """A different id, or one vLLM cannot compare (a tensor of several values raises), is
    refused as vLLM refuses it."""
    torch = pytest.importorskip("torch")
    stored = {
        "tensor": torch.tensor([900, 900]),
        "float": 900.5,
        "list": [900],
        "string": "900",
    }[kind]
    _save(
        tmp_path / MASK_EMBEDDING_FILE, {"mask_token_id": stored, "embedding": torch.zeros(HIDDEN)}
    )
    errors, _ = mask_embedding_at(tmp_path, DFLASH)
    assert [error.field for error in errors] == ["dflash_config.mask_token_id"]
    assert "is for mask_token_id" in str(errors[0])


def test_a_tensor_name_with_control_characters_is_escaped_in_messages() -> None:
    """A tensor name is printed with repr: a name holding a newline or an escape sequence
    cannot forge an output line."""
    hostile = "mask_hidden\x1b[31m\nother/draft: OK"
    dflash = run(
        DFLASH,
        dflash_tensors() | {hostile: (1,)},
        aux=(2, 6, 10),
        aux_source="dflash_config.target_layer_ids",
    )
    without = {k: v for k, v in eagle3_tensors().items() if k != "mask_hidden"}
    eagle3 = run(EAGLE3, without | {hostile: (5,)})
    for found in (dflash, eagle3):
        [error] = found.errors
        assert "\n" not in str(error)
        assert "\x1b" not in str(error)
        assert repr(hostile) in str(error)


def test_a_stale_index_entry_is_a_note_not_an_error(tmp_path: Path) -> None:
    """A sharded DFlash draft whose index still names a tensor the trainer dropped from its
    shard (here ``mask_hidden``, which vLLM's DFlash loader forbids): vLLM picks the shard
    files from the index and loads what they hold, so it serves this draft."""
    import json

    from drafting_config import check
    from drafting_config.files.safetensors_headers import INDEX_FILE
    from tests.checkpoint_factory import write_sharded

    (tmp_path / "config.json").write_text(json.dumps(DFLASH))
    shapes = {n: ("BF16", s) for n, s in dflash_tensors().items()}
    names = sorted(shapes)
    paths = write_sharded(
        tmp_path, [{n: shapes[n] for n in names[:2]}, {n: shapes[n] for n in names[2:]}]
    )
    index = json.loads((tmp_path / INDEX_FILE).read_text())
    index["weight_map"]["mask_hidden"] = paths[0].name
    (tmp_path / INDEX_FILE).write_text(json.dumps(index))
    verdict = check(str(tmp_path), check_tokenizer=False)
    assert verdict.errors == ()
    assert verdict.weights is not None
    assert verdict.weights.layers == 2
    assert any(
        f"{INDEX_FILE} places tensor 'mask_hidden' in {paths[0].name}, whose header does not "
        "hold it" in note
        for note in verdict.notes
    ), verdict.notes


@pytest.mark.parametrize("section", [False, 0, 1, "dflash", [1]])
def test_check_never_raises_on_a_dflash_config_that_is_not_an_object(
    tmp_path: Path, section: object
) -> None:
    """A DFlash draft with weights beside it and ``dflash_config`` that is not an object:
    reading the model class's mask id for ``mask_embedding.pt`` raised out of ``check()``."""
    import json

    from drafting_config import check
    from tests.checkpoint_factory import write_safetensors

    (tmp_path / "config.json").write_text(json.dumps(DFLASH | {"dflash_config": section}))
    write_safetensors(
        tmp_path / "model.safetensors", {n: ("BF16", s) for n, s in dflash_tensors().items()}
    )
    verdict = check(str(tmp_path), check_tokenizer=False)
    assert not verdict.ok
    assert "dflash_config" in {error.field for error in verdict.errors}


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 2**40) | st.floats() | st.text(max_size=3),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
)
_FIELDS = (
    "architectures",
    "hidden_size",
    "num_hidden_layers",
    "vocab_size",
    "draft_vocab_size",
    "target_hidden_size",
    "num_aux_hidden_states",
    "eagle_config",
    "dflash_config",
    "tie_word_embeddings",
    "quantization_config",
    "eagle_aux_hidden_state_layer_ids",
    "mask_token_id",
)


@given(
    base=st.sampled_from([DFLASH, EAGLE3]),
    changes=st.dictionaries(st.sampled_from(_FIELDS), _JSON, min_size=1, max_size=3),
)
def test_check_with_weights_never_raises_whatever_the_config_holds(
    base: dict[str, object], changes: dict[str, object]
) -> None:
    """With a checkpoint and a ``mask_embedding.pt`` beside the draft, any value in the fields
    the checkpoint rules read gives a verdict, never an exception."""
    import json
    import tempfile

    from drafting_config import check
    from tests.checkpoint_factory import write_safetensors

    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory)
        (folder / "config.json").write_text(json.dumps(base | changes))
        shapes = dflash_tensors() | eagle3_tensors()
        write_safetensors(folder / "model.safetensors", {n: ("BF16", s) for n, s in shapes.items()})
        (folder / MASK_EMBEDDING_FILE).write_bytes(b"not a pickle")
        verdict = check(str(folder), check_tokenizer=False)
    assert verdict.resolution is not None


class _Payload:
    """Unpickled without ``weights_only``, this would create a file: a pickle bomb's stand-in."""

    def __init__(self, target: Path) -> None:
        self.target = target

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (open, (str(self.target), "w"))


@pytest.mark.filterwarnings("ignore:Detected pickle protocol")  # torch's, for protocol 4
@pytest.mark.parametrize("protocol", [2, 4])
def test_a_mask_embedding_pickle_bomb_is_refused_unrun_with_a_one_line_reason(
    tmp_path: Path, protocol: int
) -> None:
    """``mask_embedding.pt`` holding a pickle that calls a function: loaded with
    ``weights_only=True``, nothing runs, and the error says why in one line, without
    torch's advice to retry with ``weights_only=False``."""
    import pickle

    pytest.importorskip("torch")
    created = tmp_path / "created-by-the-pickle"
    (tmp_path / MASK_EMBEDDING_FILE).write_bytes(pickle.dumps(_Payload(created), protocol))
    errors, notes = mask_embedding_at(tmp_path, DFLASH)
    assert not created.exists()
    assert notes == []
    [error] = errors
    message = str(error)
    assert message.startswith(f"{tmp_path / MASK_EMBEDDING_FILE}: torch.load(weights_only=True)")
    assert "Unsupported" in message
    assert "\n" not in message
    assert "will likely succeed" not in message
    assert "vLLM" in message


@pytest.mark.parametrize(
    "metadata",
    [None, {}, {"format": "pt"}, {"total_size": 10}, {"format": None}, [1], "pt", 5],
)
def test_metadata_is_refused_exactly_when_the_safetensors_library_refuses_it(
    tmp_path: Path, metadata: object
) -> None:
    """vLLM opens every file with the safetensors library, which refuses a header whose
    ``__metadata__`` is neither null nor an object of strings: the load fails."""
    import json

    pytest.importorskip("torch")
    from safetensors import SafetensorError, safe_open

    from drafting_config.files.safetensors_headers import WeightsFileError, read_file_header

    data = json.dumps(
        {"__metadata__": metadata, "x": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}
    ).encode()
    path = tmp_path / "model.safetensors"
    path.write_bytes(len(data).to_bytes(8, "little") + data + bytes(4))
    try:
        with safe_open(str(path), "pt"):
            library_refuses = False
    except SafetensorError:
        library_refuses = True
    if library_refuses:
        with pytest.raises(WeightsFileError) as caught:
            read_file_header(str(path))
        assert "`__metadata__` must be" in str(caught.value)
    else:
        assert set(read_file_header(str(path)).tensors) == {"x"}


def test_a_local_directory_missing_a_shard_stays_an_error(tmp_path: Path) -> None:
    """Given a directory, vLLM loads it as it is: a shard the index names but the directory
    lacks fails the load (``filter_duplicate_safetensors_files``)."""
    import json

    from drafting_config import check
    from tests.checkpoint_factory import write_sharded

    (tmp_path / "config.json").write_text(json.dumps(DFLASH))
    shapes = {n: ("BF16", s) for n, s in dflash_tensors().items()}
    names = sorted(shapes)
    paths = write_sharded(
        tmp_path, [{n: shapes[n] for n in names[:2]}, {n: shapes[n] for n in names[2:]}]
    )
    paths[1].unlink()
    verdict = check(tmp_path, check_tokenizer=False)
    [error] = verdict.errors
    assert str(error).startswith(f"{paths[1]}: named in model.safetensors.index.json but missing")


def test_no_weights_does_not_read_mask_embedding_either(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's promise: ``--no-weights`` touches no weight file, ``mask_embedding.pt``
    included (it is loaded with ``torch.load``, not through the header reader)."""
    import json

    torch = pytest.importorskip("torch")
    from drafting_config import check
    from tests.checkpoint_factory import write_safetensors

    (tmp_path / "config.json").write_text(json.dumps(DFLASH))
    write_safetensors(
        tmp_path / "model.safetensors", {n: ("BF16", s) for n, s in dflash_tensors().items()}
    )
    _save(tmp_path / MASK_EMBEDDING_FILE, torch.zeros(HIDDEN))
    loaded: list[object] = []
    real_load = torch.load

    def watching_load(path: object, *args: object, **kwargs: object) -> object:
        loaded.append(path)
        return real_load(path, *args, **kwargs)

    monkeypatch.setattr(torch, "load", watching_load)
    check(str(tmp_path), check_tokenizer=False, check_weights=False)
    assert loaded == []
    check(str(tmp_path), check_tokenizer=False)
    assert len(loaded) == 1  # the watch works


# --- check() and the command line read the checkpoint beside a draft: locally, from the cache, ----


REPO_ID = "acme/dflash-draft"
FIXED_FC = {**fc_width_example_tensors(), "fc.weight": ("BF16", (16, 48))}


@pytest.fixture
def draft(tmp_path: Path) -> Path:
    """A copy of the fc-width example: config.json and model.safetensors."""
    directory = tmp_path / "draft"
    shutil.copytree(FC_WIDTH_EXAMPLE, directory)
    return directory


def test_the_committed_example_checkpoint_is_what_the_factory_writes(tmp_path: Path) -> None:
    written = write_fc_width_example(tmp_path)
    assert written.read_bytes() == (FC_WIDTH_EXAMPLE / "model.safetensors").read_bytes()


def test_the_weights_beside_a_draft_are_checked_by_default(draft: Path) -> None:
    verdict = check(draft)
    assert [e.field for e in verdict.errors] == ["dflash_config.target_layer_ids"]
    assert "`fc.weight` has input width 80 but vLLM builds fc for 48" in str(verdict.errors[0])
    assert verdict.weights == WeightsFacts(
        files=(str(draft / "model.safetensors"),),
        tensors=25,
        architecture="qwen3_dflash",
        embedding_rows=None,
        fc_input_width=80,
        layers=2,
    )
    assert (
        "the checkpoint has no embed_tokens, so vLLM shares the target's embedding" in verdict.notes
    )
    assert check(draft / "config.json").weights == verdict.weights  # the file's directory


def test_a_checkpoint_that_fits_passes(draft: Path) -> None:
    write_safetensors(draft / "model.safetensors", FIXED_FC)
    verdict = check(draft)
    assert verdict.ok
    assert verdict.weights is not None
    assert verdict.weights.fc_input_width == 48


def test_no_weights_is_no_check_and_no_note(draft: Path) -> None:
    (draft / "model.safetensors").unlink()
    verdict = check(draft)
    assert verdict.ok
    assert verdict.weights is None
    assert not any("weights" in note or "checkpoint" in note for note in verdict.notes)


def test_bin_only_weights_get_a_note(draft: Path) -> None:
    (draft / "model.safetensors").unlink()
    (draft / "pytorch_model.bin").write_bytes(b"\x80\x02 a pickle")
    verdict = check(draft)
    assert verdict.ok
    assert verdict.weights is None
    assert any(
        note.startswith("weights not checked: the draft ships .bin") for note in verdict.notes
    )


def test_a_broken_checkpoint_is_an_error_naming_the_file(draft: Path) -> None:
    (draft / "model.safetensors").write_bytes(b"\x01\x00")
    verdict = check(draft)
    assert [type(e) for e in verdict.errors] == [WeightsFileError]
    assert str(verdict.errors[0]).startswith(f"{draft / 'model.safetensors'}: truncated")
    assert verdict.weights is None


def test_a_config_object_has_no_weights_to_check() -> None:
    config = json.loads((FC_WIDTH_EXAMPLE / "config.json").read_text())
    assert check(config).weights is None
    assert check(config).ok


def test_no_weights_touches_no_weight_file(draft: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_sharded(draft, [{"a": ("F32", (2,))}])
    touched: list[str] = []
    real_open, real_scandir = os.open, os.scandir

    def watching_open(path: str, *args: object, **kwargs: object) -> int:
        touched.append(os.fspath(path))
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    def watching_scandir(path: str) -> Iterator[os.DirEntry[str]]:
        touched.append(os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "open", watching_open)
    monkeypatch.setattr(os, "scandir", watching_scandir)
    verdict = check(draft, check_weights=False)
    assert verdict.ok
    assert verdict.weights is None
    assert touched  # the watch works
    assert all(Path(path).name in ("draft", "config.json") for path in touched)
    touched.clear()
    check(draft)
    assert any(path.endswith(".safetensors") for path in touched)


def test_check_many_takes_check_weights_too(draft: Path) -> None:
    verdicts = check_many([draft, draft], check_weights=False)
    assert [v.weights for v in verdicts] == [None, None]
    assert all(v.ok for v in verdicts)
    assert [v.ok for v in check_many([draft])] == [False]


def test_a_cached_snapshot_with_weights_is_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = use_cache(tmp_path / "hf-cache", monkeypatch)
    files = {
        name: (FC_WIDTH_EXAMPLE / name).read_bytes()
        for name in ("config.json", "model.safetensors")
    }
    snapshot = write_cached_repo(cache, REPO_ID, files)
    verdict = check(REPO_ID)
    assert [e.field for e in verdict.errors] == ["dflash_config.target_layer_ids"]
    assert verdict.weights is not None
    assert verdict.weights.files == (str(snapshot / "model.safetensors"),)


def _cli(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        status = main(list(args))
    return status, out.getvalue()


def test_the_cli_shows_the_weights_and_no_weights_skips_them(draft: Path) -> None:
    status, text = _cli("check", str(draft))
    assert status == 1
    shown = f"25 tensors in {draft / 'model.safetensors'} (qwen3_dflash: 2 layers, fc input 80)"
    assert f"    weights: {shown}" in text
    status, text = _cli("check", "--no-weights", str(draft))
    assert status == 0
    assert "    weights:" not in text
    status, text = _cli("check", "--json", str(draft))
    (item,) = json.loads(text)
    assert item["weights"] == {
        "files": [str(draft / "model.safetensors")],
        "tensors": 25,
        "architecture": "qwen3_dflash",
        "embedding_rows": None,
        "fc_input_width": 80,
        "layers": 2,
    }
    status, text = _cli("check", "--json", "--no-weights", str(draft))
    assert json.loads(text)[0]["weights"] is None


# -- from the hub, by range requests ---------------------------------------------------------


def _safetensors(tensors: dict[str, tuple[str, tuple[int, ...]]], tmp_path: Path) -> bytes:
    path = write_safetensors(tmp_path / "staged.safetensors", tensors)
    return path.read_bytes()


@pytest.fixture
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    """A fake hub serving the fc-width example with its checkpoint, set as the endpoint."""
    from huggingface_hub import constants

    use_cache(tmp_path / "hf-cache", monkeypatch)
    registry = tmp_path / "agent_harnesses.json"  # keeps huggingface_hub 2 offline
    registry.write_text('{"standardEnvVars": [], "harnesses": {}}')
    if hasattr(constants, "AGENT_HARNESSES_PATH"):
        monkeypatch.setattr(constants, "AGENT_HARNESSES_PATH", str(registry))
    config = (FC_WIDTH_EXAMPLE / "config.json").read_bytes()
    single = {
        "config.json": config,
        "model.safetensors": (FC_WIDTH_EXAMPLE / "model.safetensors").read_bytes(),
    }
    halves = list(FIXED_FC.items())
    first, second = dict(halves[:10]), dict(halves[10:])
    staged = tmp_path / "staged"
    staged.mkdir()
    write_sharded(staged, [first, second])
    sharded = {"config.json": config}
    sharded.update({p.name: p.read_bytes() for p in staged.iterdir()})
    repos = {
        REPO_ID: FakeRepo(commits={MAIN_COMMIT: single}, refs={"main": MAIN_COMMIT}),
        "acme/sharded-draft": FakeRepo(commits={MAIN_COMMIT: sharded}, refs={"main": MAIN_COMMIT}),
        "acme/no-weights": FakeRepo(
            commits={MAIN_COMMIT: {"config.json": config}}, refs={"main": MAIN_COMMIT}
        ),
    }
    with serve(repos) as running:
        monkeypatch.setattr(constants, "ENDPOINT", running.url)
        template = running.url + "/{repo_id}/resolve/{revision}/{filename}"
        monkeypatch.setattr(constants, "HUGGINGFACE_CO_URL_TEMPLATE", template)
        yield running


def _only_headers_were_served(hub: FakeHub) -> None:
    gets = [
        r
        for r in hub.resolve_requests()
        if r.method == "GET" and r.filename.endswith(".safetensors")
    ]
    assert gets, "no safetensors header was asked for"
    assert all(r.range is not None and r.range.startswith("bytes=") for r in gets)
    assert len(hub.served_ranges) == len(gets)
    for _, _, last, header_end in hub.served_ranges:
        assert last < header_end  # not one weight byte


def test_download_reads_the_headers_from_the_hub_by_range_requests(hub: FakeHub) -> None:
    verdict = check(REPO_ID, download=True)
    assert [e.field for e in verdict.errors] == ["dflash_config.target_layer_ids"]
    assert verdict.weights is not None
    assert verdict.weights.files == (f"{REPO_ID}/model.safetensors",)
    assert verdict.weights.fc_input_width == 80
    _only_headers_were_served(hub)


def test_download_reads_a_sharded_checkpoint_s_headers_and_index(hub: FakeHub) -> None:
    verdict = check("acme/sharded-draft", download=True)
    assert verdict.ok, verdict.errors
    assert verdict.weights is not None
    assert len(verdict.weights.files) == 2
    assert verdict.weights.tensors == len(FIXED_FC)
    _only_headers_were_served(hub)
    assert "model.safetensors.index.json" in hub.files_requested()


def test_a_hub_repo_without_safetensors_gets_a_note(hub: FakeHub) -> None:
    verdict = check("acme/no-weights", download=True)
    assert verdict.ok
    assert verdict.weights is None
    assert any("neither model.safetensors nor" in note for note in verdict.notes)


def test_without_download_the_hub_is_never_contacted(hub: FakeHub) -> None:
    verdict = check(REPO_ID)
    assert verdict.weights is None
    assert hub.requests == []


def test_download_with_no_weights_asks_the_hub_for_no_weights(hub: FakeHub) -> None:
    check(REPO_ID, download=True, check_weights=False)
    assert not any(r.filename.endswith(".safetensors") for r in hub.resolve_requests())


def test_the_fake_hub_refuses_a_whole_weights_file(hub: FakeHub) -> None:
    import urllib.error
    import urllib.request

    url = f"{hub.url}/{REPO_ID}/resolve/main/model.safetensors"
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(url, timeout=5)
    assert caught.value.code == 400
    caught.value.close()
    request = urllib.request.Request(url, headers={"Range": "bytes=0-1000000"})
    with urllib.request.urlopen(request, timeout=5) as answer:
        body = answer.read()
        assert answer.status == 206
    assert len(body) == 8 + len(header_bytes(fc_width_example_tensors()))


def test_a_git_lfs_pointer_is_a_note_not_an_error(draft: Path) -> None:
    pointer = (
        "version https://git-lfs.github.com/spec/v1\n"
        "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
        "size 14534\n"
    )
    (draft / "model.safetensors").write_text(pointer)
    verdict = check(draft)
    assert verdict.ok
    assert verdict.weights is None
    assert f"weights not checked: {draft / 'model.safetensors'}: a Git LFS pointer" in "\n".join(
        verdict.notes
    )


def test_a_second_check_without_download_is_not_failed_by_the_index_the_first_cached(
    hub: FakeHub,
) -> None:
    """``--download`` leaves the sharded checkpoint's index in the cache snapshot beside
    ``config.json``, never the shards.  A later check without ``--download`` must not read
    that partial snapshot as a checkpoint whose shards are missing: the draft is fine."""
    first = check("acme/sharded-draft", download=True)
    assert first.ok, first.errors
    second = check("acme/sharded-draft")
    assert second.ok, second.errors
    assert second.weights is None
    assert any(
        "weights not checked: the cache does not hold every weights file" in note
        and "named in model.safetensors.index.json but missing" in note
        for note in second.notes
    )


# Hostile checkpoints: shapes, names and indexes the loader refuses or misreads.


@pytest.fixture(scope="module")
def hostile_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("hostile")
    shutil.copy(FC_WIDTH_EXAMPLE / "config.json", directory / "config.json")
    return directory


def _with_header(directory: Path, header: bytes) -> Path:
    (directory / "model.safetensors").write_bytes(len(header).to_bytes(8, "little") + header)
    return directory


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
_ENTRY = st.fixed_dictionaries(
    {"dtype": st.sampled_from(["BF16", "F32", "Q4"]) | _JSON, "shape": _JSON, "data_offsets": _JSON}
)


@given(
    st.one_of(
        st.binary(max_size=200),
        _JSON.map(lambda value: json.dumps(value).encode()),
        st.dictionaries(
            st.sampled_from(["fc.weight", "mask_hidden", "d2t", "layers.0.x", "__metadata__"])
            | st.text(max_size=6),
            _ENTRY | _JSON,
            max_size=5,
        ).map(lambda value: json.dumps(value).encode()),
    )
)
@example(
    b'{"fc.weight": {"dtype": "BF16", "shape": [' + b"9" * 5000 + b'], "data_offsets": [0, 0]}}'
)
@example(b'{"mask_hidden": {"dtype": "BF16", "shape": [4294967296, 4294967296, 0]}}')
def test_check_never_raises_for_anything_a_header_holds(hostile_dir: Path, header: bytes) -> None:
    verdict = check(_with_header(hostile_dir, header), check_tokenizer=False)
    assert verdict.resolution is not None


@pytest.mark.parametrize("where", ["shape", "data_offsets", "__metadata__"])
def test_a_huge_integer_in_a_header_is_that_drafts_error_and_the_sweep_goes_on(
    tmp_path: Path, where: str
) -> None:
    huge = "9" * 5000
    header = {
        "shape": '{"fc.weight": {"dtype": "BF16", "shape": [%s], "data_offsets": [0, 0]}}',
        "data_offsets": '{"fc.weight": {"dtype": "BF16", "shape": [0], "data_offsets": [0, %s]}}',
        "__metadata__": '{"__metadata__": {"n": %s}}',
    }[where] % huge
    bad = tmp_path / "bad"
    shutil.copytree(FC_WIDTH_EXAMPLE, bad)
    _with_header(bad, header.encode())
    good = tmp_path / "good"
    shutil.copytree(FC_WIDTH_EXAMPLE, good)
    write_safetensors(good / "model.safetensors", FIXED_FC)
    bad_verdict, good_verdict = check_many([bad, good], check_tokenizer=False)
    assert good_verdict.ok
    [error] = bad_verdict.errors
    assert str(error).startswith(f"{bad / 'model.safetensors'}: the safetensors header cannot be")
    assert "an integer literal with 5,000 digits" in str(error)


def test_weights_are_checked_only_for_a_model_directory_or_a_config_json(draft: Path) -> None:
    """vLLM pairs weights with a model directory; ``drafts/a.json`` has none."""
    other = draft / "a.json"
    shutil.copy(draft / "config.json", other)
    verdict = check(other)
    assert verdict.ok, verdict.errors
    assert verdict.weights is None
    assert check(draft / "config.json").weights is not None
    assert check(draft).weights is not None


def test_a_sweep_lists_a_folder_once(draft: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    listed: list[object] = []
    real_scandir = os.scandir

    def counting_scandir(path: str) -> object:
        listed.append(path)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", counting_scandir)
    verdicts = check_many([draft, draft / "config.json", str(draft)] * 3, check_tokenizer=False)
    assert all(v.weights is not None for v in verdicts)
    assert listed.count(str(draft)) == 1


def test_a_cache_snapshot_with_a_broken_weights_link_gets_a_note_as_missing_shards_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """vLLM downloads the weights again in both cases, so neither is INVALID."""
    cache = use_cache(tmp_path / "hf-cache", monkeypatch)
    files: dict[str, str | bytes] = {
        "config.json": (FC_WIDTH_EXAMPLE / "config.json").read_text(),
        "model.safetensors": b"x",
    }
    snapshot = write_cached_repo(cache, REPO_ID, files)
    (snapshot / "model.safetensors").resolve().unlink()  # the blob gone, the link broken
    verdict = check(REPO_ID, check_tokenizer=False)
    assert verdict.ok, verdict.errors
    assert verdict.weights is None
    assert any(
        "weights not checked: the cache does not hold every weights file" in note
        and "no such file" in note
        for note in verdict.notes
    )
    local = tmp_path / "local"
    shutil.copytree(snapshot, local, symlinks=True)
    assert not check(local, check_tokenizer=False).ok  # a local directory: vLLM fails


@pytest.mark.parametrize(
    "failure", [OSError("libcudart.so.12: cannot open shared object file"), RuntimeError("boom")]
)
def test_a_torch_whose_import_fails_gets_a_note_and_everything_else_is_checked(
    draft: Path, monkeypatch: pytest.MonkeyPatch, failure: Exception
) -> None:
    import builtins
    import sys

    from drafting_config.files.mask_embedding import MASK_EMBEDDING_FILE

    (draft / MASK_EMBEDDING_FILE).write_bytes(b"anything")
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    real_import = builtins.__import__

    def failing_import(name: str, *args: object, **kwargs: object) -> object:
        if name == "torch":
            raise failure
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", failing_import)
    verdict = check(draft, check_tokenizer=False)
    assert [e.field for e in verdict.errors] == ["dflash_config.target_layer_ids"]  # fc checked
    note = f"{draft / MASK_EMBEDDING_FILE} not checked: torch failed to import "
    note += f"({type(failure).__name__}: {failure})"
    assert note in verdict.notes
    out = io.StringIO()
    with redirect_stdout(out):
        status = main(["check", "--no-tokenizer", str(draft)])
    assert status == 1
    assert "INVALID" in out.getvalue()
    assert "torch failed to import" in out.getvalue()


def test_a_draft_directory_that_cannot_be_listed_is_an_error_naming_it(
    draft: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """chmod 111: config.json opens by name, but vLLM finds weights by listing the directory
    (glob), finds none, and fails.  (Simulated: the tests may run as root.)"""
    real_scandir = os.scandir

    def refusing_scandir(path: str) -> object:
        if os.fspath(path) == str(draft):
            raise PermissionError(13, "Permission denied", str(draft))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", refusing_scandir)
    verdict = check(draft, check_tokenizer=False)
    assert [str(e) for e in verdict.errors] == [
        f"{draft}: cannot list the directory: Permission denied (it lacks the r permission); "
        'vLLM finds the weights by listing it, finds none, and fails with "Cannot find any '
        'model weights".'
    ]
    assert check(draft, check_tokenizer=False, check_weights=False).ok


# --- every parameter gets a tensor ----------------------------------------------------------------


def test_a_parameter_without_a_tensor_is_an_error_naming_it() -> None:
    """vLLM's DFlash loader returns nothing from load_weights, so a missing down_proj loads
    and the draft runs on uninitialized memory."""
    shapes = dflash_tensors()
    del shapes["layers.1.mlp.down_proj.weight"]
    (error,) = run(DFLASH, shapes).errors
    assert "no tensor for `model.layers.1.mlp.down_proj.weight`" in str(error)
    assert "load_weights returns nothing" in (error.evidence or "")
    assert "runs on uninitialized memory" in str(error)


@pytest.mark.parametrize("name", ["hidden_norm.weight", "layers.0.self_attn.k_proj.weight"])
def test_each_declared_dflash_parameter_is_required(name: str) -> None:
    shapes = dflash_tensors()
    del shapes[name]
    (error,) = run(DFLASH, shapes).errors
    assert f"`model.{name}`" in str(error)


def test_the_parameters_that_legitimately_get_no_tensor_are_not_required() -> None:
    # No embed_tokens, lm_head, mask_embedding or d2t: shared from the target, read from
    # mask_embedding.pt, or an identity map; no fc without aux hidden states.
    assert run(DFLASH, dflash_tensors()).errors == ()
    no_aux = {**DFLASH, "dflash_config": {"mask_token_id": 900, "use_aux_hidden_state": False}}
    shapes = {k: v for k, v in dflash_tensors().items() if k != "fc.weight"}
    assert run(no_aux, shapes).errors == ()


def test_a_tensor_the_loader_cannot_place_is_an_error_and_a_bias_a_note() -> None:
    """A Qwen3-style q_norm on vLLM's Llama EAGLE-3 class: AutoWeightsLoader raises."""
    shapes = eagle3_tensors() | {"midlayer.self_attn.q_norm.weight": (8,)}
    (error,) = run(EAGLE3, shapes).errors
    assert "`model.layers.0.self_attn.q_norm.weight` has no parameter" in str(error)
    assert "There is no module or parameter named" in (error.evidence or "")
    found = run(EAGLE3, eagle3_tensors() | {"midlayer.input_layernorm.bias": (HIDDEN,)})
    assert found.errors == ()
    assert any("ignores it as a .bias" in note for note in found.notes)


@pytest.mark.parametrize("dropped", DROPPED_ROTARY_TENSORS)
def test_only_the_rotary_tensors_the_loader_drops_by_name_are_no_error(dropped: str) -> None:
    """AutoWeightsLoader drops four names; any other rotary_emb tensor has nowhere to go, as
    the engine's weights stage shows (vllm_weight_runs.json: dflash-qwen3-4b-extra-tensor)."""
    attention = "midlayer.self_attn." if dropped.startswith("rotary_emb") else "midlayer."
    assert run(EAGLE3, eagle3_tensors() | {f"{attention}{dropped}": (8,)}).errors == ()
    shapes = eagle3_tensors() | {"midlayer.self_attn.rotary_emb.extra.weight": (8,)}
    (error,) = run(EAGLE3, shapes).errors
    assert error.code == vllm_codes.WEIGHTS_TENSOR_UNEXPECTED
    assert "`model.layers.0.self_attn.rotary_emb.extra.weight` has no parameter" in str(error)


def test_every_row_lists_why_each_untensored_parameter_gets_none() -> None:
    for row in ARCHITECTURES:
        assert row.layer_parameters, row.name
        for name, why in row.no_tensor:
            assert name, row.name
            assert ".py" in why or "not declared" in why, (row.name, name)


def test_a_pruned_eagle3_vocabulary_without_its_d2t_map_is_an_error() -> None:
    # draft_vocab_size 500 of a 1000-token vocabulary: without d2t vLLM keeps
    # draft_id_to_target_id at zeros and maps draft id i to target id i (llama_eagle3.py).
    (error,) = run(EAGLE3, _without(eagle3_tensors(), "d2t")).errors
    assert (error.code, error.field) == (DRAFT_VOCAB_MAP_MISSING, "draft_vocab_size")
    assert "`draft_vocab_size` = 500 prunes a vocabulary of 1000" in str(error)
    assert "compute_logits" in (error.evidence or "")
    assert run(EAGLE3, eagle3_tensors()).errors == ()  # the map shipped


def test_a_full_eagle3_vocabulary_needs_no_d2t_map() -> None:
    config = {**EAGLE3, "draft_vocab_size": VOCAB}
    tensors = _without(eagle3_tensors(), "d2t") | {"lm_head.weight": (VOCAB, HIDDEN)}
    assert run(config, tensors).errors == ()
    unset = {k: v for k, v in EAGLE3.items() if k != "draft_vocab_size"}
    assert run(unset, tensors).errors == ()


def test_a_layer_beyond_the_count_is_only_the_layer_count_error() -> None:
    # Layer 2 of a 2-layer draft: vLLM builds no such layer, so neither its missing
    # parameters nor its unknown tensors are judged, only the count.
    tensors = pard_tensors(layers=3)
    del tensors["model.layers.2.mlp.up_proj.weight"]
    tensors["model.layers.2.mlp.extra_proj.weight"] = (HIDDEN, HIDDEN)
    found = run(PARD, tensors)
    (error,) = found.errors
    assert error.field == "num_hidden_layers"
    assert "The checkpoint holds 3 decoder layers (0, 1, 2)" in str(error)
    assert not [note for note in found.notes if "layers.2" in note]
    # The same tensors inside the count are judged: one missing, one unplaceable.
    found = run({**PARD, "num_hidden_layers": 3}, tensors)
    said = " ".join(map(str, found.errors))
    assert "`model.layers.2.mlp.up_proj.weight`" in said
    assert "model.layers.2.mlp.extra_proj.weight" in said


@pytest.mark.parametrize(("misplaced", "more"), [(1, ""), (3, " (and 2 more such tensors)")])
def test_a_stale_index_is_one_note_counting_the_tensors_it_misplaces(
    misplaced: int, more: str
) -> None:
    tensors = {
        name: TensorHeader("BF16", shape, "model.safetensors")
        for name, shape in pard_tensors().items()
    }
    stale = tuple(
        (f"model.layers.9.extra_{index}.weight", "model-2.safetensors")
        for index in range(misplaced)
    )
    subject = replace(
        VllmSubject.of(resolve(dict(PARD))),
        checkpoint=CheckpointHeaders(("model.safetensors",), tensors, 100, stale),
    )
    found = Findings()
    check_checkpoint(subject, found)
    (note,) = [
        n for n in found.notes if getattr(n, "code", None) is vllm_codes.INDEX_NAMES_ABSENT_TENSOR
    ]
    assert "model.layers.9.extra_0.weight" in note
    assert "model-2.safetensors" in note
    assert note.endswith(f"{more}, a stale index that vLLM reads only to pick the shard files")


def test_missing_parameters_past_eight_are_counted_in_one_error() -> None:
    # Two layers without their 7 linear weights: 14 missing, 8 named and one error for 6 more.
    tensors = {k: v for k, v in pard_tensors().items() if not k.endswith("proj.weight")}
    found = run(PARD, tensors)
    missing = [str(e) for e in found.errors if "has no tensor for" in str(e)]
    assert len(missing) == 9
    assert missing[-1].startswith("The checkpoint has no tensor for 6 more parameters of")
    assert missing[-1].endswith("class, so the draft runs on uninitialized memory.")
