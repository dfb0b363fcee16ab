"""Reading ``mask_embedding.pt`` (files/mask_embedding.py): bounded, and every failure said."""

from __future__ import annotations

import io
import os
import pickle
import zipfile
from pathlib import Path

import pytest

from drafting_config.files.mask_embedding import (
    MASK_EMBEDDING_FILE,
    MAX_MASK_EMBEDDING_BYTES,
    read_mask_embedding,
)
from drafting_config.files.safetensors_headers import WeightsFileError
from drafting_config.values.fields import MISSING


def _torch_archive(state: object) -> bytes:
    torch = pytest.importorskip("torch")
    buffer = io.BytesIO()
    torch.save(state, buffer)
    return buffer.getvalue()


def test_a_tensor_and_a_dict_are_read_as_vllm_reads_them(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    path = tmp_path / MASK_EMBEDDING_FILE
    path.write_bytes(_torch_archive(torch.zeros(1, 8)))
    found = read_mask_embedding(str(path))
    assert (found.stored_token_id, found.shape) == (MISSING, (1, 8))
    path.write_bytes(_torch_archive({"mask_token_id": 7, "embedding": torch.zeros(8)}))
    found = read_mask_embedding(str(path))
    assert (found.stored_token_id, found.shape) == (7, (8,))


def test_a_deflated_record_that_would_inflate_past_the_limit_is_refused_unloaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 2 MB file once took 2.3 GB: torch.load inflates every record in full."""
    torch = pytest.importorskip("torch")
    archive = zipfile.ZipFile(io.BytesIO(_torch_archive(torch.zeros(8))))
    path = tmp_path / MASK_EMBEDDING_FILE
    with zipfile.ZipFile(path, "w") as bomb:
        for record in archive.infolist():
            bomb.writestr(record.filename, archive.read(record), zipfile.ZIP_STORED)
        bomb.writestr(
            "archive/data/1", b"\0" * (MAX_MASK_EMBEDDING_BYTES + 1), zipfile.ZIP_DEFLATED
        )
    assert path.stat().st_size < 1 << 20

    def no_load(*args: object, **kwargs: object) -> object:
        raise AssertionError("loaded")

    monkeypatch.setattr(torch, "load", no_load)
    with pytest.raises(
        WeightsFileError, match=r"its records inflate to 67,1\d\d,\d\d\d bytes, over 67,108,864"
    ):
        read_mask_embedding(str(path))


class _Payload:
    def __reduce__(self) -> tuple[object, ...]:
        return (os.system, ("true",))


def test_the_reason_torch_refuses_a_pickle_is_kept(tmp_path: Path) -> None:
    """torch 2.13 words it "Trying to load unsupported GLOBAL posix.system whose module posix
    is blocked", on its own line between two paragraphs of advice."""
    torch = pytest.importorskip("torch")
    archive = zipfile.ZipFile(io.BytesIO(_torch_archive(torch.zeros(8))))
    path = tmp_path / MASK_EMBEDDING_FILE
    with zipfile.ZipFile(path, "w") as evil:
        for record in archive.infolist():
            data = archive.read(record)
            if record.filename.endswith("data.pkl"):
                data = pickle.dumps(_Payload(), protocol=2)
            evil.writestr(record, data)
    with pytest.raises(WeightsFileError) as caught:
        read_mask_embedding(str(path))
    message = caught.value.problem
    assert "(UnpicklingError: " in message
    assert "GLOBAL posix.system" in message
    assert "\n" not in message
    assert "Weights only load failed" not in message
    assert "will likely succeed" not in message


def test_an_unreadable_file_says_so_as_for_shards(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / MASK_EMBEDDING_FILE
    path.write_bytes(b"x")
    path.chmod(0)
    if os.geteuid() == 0:  # root reads any file: refuse it as the kernel would refuse others
        real_open = os.open

        def refusing_open(name: str, *args: object, **kwargs: object) -> int:
            if name == str(path):
                raise PermissionError(13, "Permission denied", name)
            return real_open(name, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(os, "open", refusing_open)
    with pytest.raises(WeightsFileError) as caught:
        read_mask_embedding(str(path))
    assert caught.value.problem == "cannot open: Permission denied."


def test_a_file_over_the_limit_on_disk_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / MASK_EMBEDDING_FILE
    with path.open("wb") as file:
        file.truncate(MAX_MASK_EMBEDDING_BYTES + 1)  # sparse: no byte written
    with pytest.raises(WeightsFileError) as caught:
        read_mask_embedding(str(path))
    assert caught.value.problem.startswith(f"over {MAX_MASK_EMBEDDING_BYTES:,} bytes")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_not_read(tmp_path: Path) -> None:
    path = tmp_path / MASK_EMBEDDING_FILE
    os.mkfifo(path)
    with pytest.raises(WeightsFileError) as caught:
        read_mask_embedding(str(path))
    assert caught.value.problem == "not a regular file; expected a torch file."


def test_a_broken_zip_archive_is_refused_saying_so(tmp_path: Path) -> None:
    # An end-of-archive record (zipfile.is_zipfile says yes) over a directory that is not.
    path = tmp_path / MASK_EMBEDDING_FILE
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("archive/data.pkl", b"x")
    data = bytearray(buffer.getvalue())
    directory = data.rfind(b"PK\x01\x02")
    data[directory : directory + 4] = b"XXXX"
    path.write_bytes(bytes(data))
    assert zipfile.is_zipfile(path)
    with pytest.raises(WeightsFileError) as caught:
        read_mask_embedding(str(path))
    assert caught.value.problem.startswith("not a readable torch archive (BadZipFile")
