"""An adversarial review of the checkpoint check: inputs real trainers and hostile files produce."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drafting_config.files.mask_embedding import MASK_EMBEDDING_FILE
from tests.checkpoint_factory import mask_embedding_at
from tests.test_checkpoint_rules import DFLASH, EAGLE3, HIDDEN, dflash_tensors, eagle3_tensors, run


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
