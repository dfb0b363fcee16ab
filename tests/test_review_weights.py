"""An adversarial review of the checkpoint check: inputs real trainers and hostile files produce."""

from __future__ import annotations

from pathlib import Path

import pytest

from drafting_config.weights import MASK_EMBEDDING_FILE, mask_embedding_findings
from tests.test_weights import DFLASH, EAGLE3, HIDDEN, dflash_tensors, eagle3_tensors, run


def _save(path: Path, state: object) -> None:
    import torch

    torch.save(state, path)


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
    assert mask_embedding_findings(str(tmp_path), DFLASH, file_field=str, hidden_size=HIDDEN) == (
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
    errors, _ = mask_embedding_findings(str(tmp_path), DFLASH, file_field=str, hidden_size=HIDDEN)
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
    from drafting_config.safetensors_headers import INDEX_FILE
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
