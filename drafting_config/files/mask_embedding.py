"""Reading ``mask_embedding.pt``, the mask embedding some DFlash drafts ship, bounded.

vLLM 0.33.0 reads it with ``torch.load(path, map_location="cpu", weights_only=True)``
(``model_executor/models/qwen3_dflash.py``, ``DFlashQwen3ForCausalLM._read_mask_embedding``):
a tensor, or a dict with ``embedding`` and optionally ``mask_token_id``.  This module reads
the file the same way, and only what it holds: what it must hold is judged by
:func:`drafting_config.engines.vllm.checkpoint.mask_embedding_findings`.

Before torch sees a byte, the file is opened like every other file here (a regular file,
never blocking), refused over :data:`MAX_MASK_EMBEDDING_BYTES` on disk, and, as a torch
archive is a zip file whose records ``torch.load`` inflates in full, refused when its
records would inflate past that limit (``torch.save`` never compresses: a deflated record
in such a file is someone else's doing).  torch is imported only here, and only then.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from typing import BinaryIO, Final

from drafting_config.files.safetensors_headers import (
    DirectoryListings,
    WeightsFileError,
    open_weights_file,
)
from drafting_config.values.errors import exception_text
from drafting_config.values.fields import MISSING
from drafting_config.values.paths import display_path

MASK_EMBEDDING_FILE: Final = "mask_embedding.pt"
"""The separately trained mask embedding some DFlash drafts ship beside their weights."""

MAX_MASK_EMBEDDING_BYTES: Final = 64 << 20
"""Larger ``mask_embedding.pt`` files are refused unread, on disk or inflated (real ones hold
one row: kilobytes)."""

_ADVICE_START: Final = "Weights only load failed"
_MARKER: Final = "WeightsUnpickler error:"


class TorchUnavailableError(Exception):
    """torch cannot be imported (not installed, or its import fails), so the file is not read.

    Attributes:
        reason: why, for a note (``"reading it needs torch"``, ``"torch failed to import
            (OSError: libcudart.so.12: cannot open shared object file)"``).
    """

    reason: str

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class MaskEmbedding:
    """What ``mask_embedding.pt`` holds, as vLLM reads it."""

    stored_token_id: object
    """The dict's ``mask_token_id`` (as loaded: an int, a tensor...), or ``MISSING``."""
    embedding: object
    """The embedding: the file's object itself, or the dict's ``embedding`` (``None``
    when the dict has none)."""
    shape: tuple[int, ...] | None
    """The embedding's shape when it is a tensor, else ``None``."""
    is_dict: bool = False
    """Whether the file holds a dict (``{"embedding": ..., "mask_token_id": ...}``) rather
    than a bare tensor."""
    per_position: object = MISSING
    """The dict's ``per_position`` (SpecForge's flag for one mask embedding per masked
    slot), or ``MISSING``."""


@dataclass(frozen=True)
class MaskEmbeddingFile:
    """The ``mask_embedding.pt`` beside a local draft: what it holds, or why it could not be
    read.  Exactly one of :attr:`contents`, :attr:`problem` and :attr:`unavailable` is set."""

    path: str
    contents: MaskEmbedding | None = None
    """What the file holds, as ``torch.load(..., weights_only=True)`` gives it."""
    problem: WeightsFileError | None = None
    """Why the file cannot be read (or is refused), as an error naming it."""
    unavailable: str | None = None
    """Why torch could not read it (:attr:`TorchUnavailableError.reason`)."""


def read_mask_embedding_beside(
    directory: str, listings: DirectoryListings
) -> MaskEmbeddingFile | None:
    """The ``mask_embedding.pt`` in ``directory``, read, or ``None`` when there is none
    (or the directory cannot be listed: the weights check says so).  Never raises."""
    try:
        names = listings.names(directory)
    except WeightsFileError:
        return None
    if MASK_EMBEDDING_FILE not in names:
        return None
    path = os.path.join(directory, MASK_EMBEDDING_FILE)
    try:
        return MaskEmbeddingFile(path, contents=read_mask_embedding(path))
    except TorchUnavailableError as error:
        return MaskEmbeddingFile(path, unavailable=error.reason)
    except WeightsFileError as error:
        return MaskEmbeddingFile(path, problem=error)


def read_mask_embedding(path: str) -> MaskEmbedding:
    """Load ``mask_embedding.pt`` as vLLM does, within :data:`MAX_MASK_EMBEDDING_BYTES`.

    Raises:
        WeightsFileError: the file cannot be opened or read, is not a regular file, is over
            the limit on disk or inflated, or ``torch.load(..., weights_only=True)`` refuses
            it; the message says why in one line.
        TorchUnavailableError: torch is not installed, or its import raised.
    """
    fd = open_weights_file(path)
    with os.fdopen(fd, "rb") as file:
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise WeightsFileError(path, "not a regular file; expected a torch file.")
            if info.st_size > MAX_MASK_EMBEDDING_BYTES:
                raise WeightsFileError(
                    path, f"over {MAX_MASK_EMBEDDING_BYTES:,} bytes; one embedding row is KBs."
                )
            _check_inflated_size(file, path)
            file.seek(0)
        except OSError as error:
            raise WeightsFileError(path, f"cannot read: {error.strerror or error}.") from None
        try:
            import torch  # noqa: PLC0415 (only this file needs torch)
        except ImportError:
            raise TorchUnavailableError("reading it needs torch") from None
        except Exception as error:  # a missing CUDA library (OSError), a broken build...
            raise TorchUnavailableError(
                f"torch failed to import ({display_path(exception_text(error, kind=True))})"
            ) from None
        try:
            state: object = torch.load(file, weights_only=True, map_location="cpu")
        except Exception as error:  # a corrupt file, or a pickle weights_only refuses
            raise WeightsFileError(
                path,
                f"torch.load(weights_only=True) refuses it ({load_failure(error)}), and vLLM "
                "loads it the same way and fails.",
                fix="replace the file with one torch.save wrote of tensors only; do not load "
                "it with weights_only=False",
                evidence="torch: torch.load(weights_only=True)",
            ) from None
    stored: object = MISSING
    per_position: object = MISSING
    is_dict = isinstance(state, dict)  # weights_only loads plain dicts only
    if isinstance(state, dict):
        stored = state.get("mask_token_id", MISSING)
        per_position = state.get("per_position", MISSING)
        state = state.get("embedding")
    shape = tuple(state.shape) if isinstance(state, torch.Tensor) else None
    return MaskEmbedding(stored, state, shape, is_dict, per_position)


def _check_inflated_size(file: BinaryIO, path: str) -> None:
    """Refuse a zip archive whose records would inflate past the limit, from its directory."""
    import zipfile  # noqa: PLC0415 - here: a check that reads no mask embedding never pays for it

    if not zipfile.is_zipfile(file):
        return  # torch's legacy format: a plain pickle, never compressed
    try:
        with zipfile.ZipFile(file) as archive:
            inflated = sum(record.file_size for record in archive.infolist())
    except (zipfile.BadZipFile, ValueError, EOFError) as error:
        raise WeightsFileError(
            path, f"not a readable torch archive ({exception_text(error, kind=True)})."
        ) from None
    if inflated > MAX_MASK_EMBEDDING_BYTES:
        raise WeightsFileError(
            path,
            f"its records inflate to {inflated:,} bytes, over {MAX_MASK_EMBEDDING_BYTES:,}; "
            "one embedding row is KBs (and torch.save never compresses).",
        )


def load_failure(error: Exception) -> str:
    """Why ``torch.load(..., weights_only=True)`` failed, in one escaped line.

    torch's message for a refused pickle is a paragraph of advice (including to retry with
    ``weights_only=False``) around the reason: after ``WeightsUnpickler error:`` up to torch
    2.9 (``Unsupported global: GLOBAL posix.system was not an allowed global by default. ...``),
    on a line of its own since (``Trying to load unsupported GLOBAL posix.system whose module
    posix is blocked.``).  That reason's first sentence is what is kept.
    """
    try:
        text = str(error)
    except Exception:
        text = ""
    if not text.startswith(_ADVICE_START):
        return display_path(exception_text(error, kind=True))
    _, marker, rest = text.partition(_MARKER)
    lines = [line.strip() for line in (rest if marker else text).splitlines()]
    reasons = [line for line in lines if line and (marker or not _is_advice(line))]
    reason = reasons[0].partition(". ")[0].rstrip(".") if reasons else ""
    if not reason:
        return display_path(exception_text(error, kind=True))
    return display_path(f"{type(error).__name__}: {reason[:160]}")


def _is_advice(line: str) -> bool:
    """Whether a line of torch's message is its advice, not the reason."""
    return line.startswith((_ADVICE_START, "Check the documentation", "(")) or (
        "weights_only" in line
    )
