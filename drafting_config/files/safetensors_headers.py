"""The tensors of a safetensors checkpoint, read from its headers alone.

A safetensors file starts with an 8-byte little-endian length N, then N bytes of
JSON mapping each tensor's name to its ``dtype``, ``shape`` and ``data_offsets``
(plus an optional ``__metadata__``); the weights follow.  A sharded checkpoint adds
``model.safetensors.index.json``, whose ``weight_map`` names the shard of each
tensor.  So a whole checkpoint's names and shapes come from a few hundred kilobytes:
this module reads the 8-byte length and exactly N bytes of each file, and never a
byte of weights.

Which files are read follows vLLM 0.33.0's loader
(``model_executor/model_loader/default_loader.py``, ``DefaultModelLoader._prepare_weights``,
and ``weight_utils.py``, ``filter_duplicate_safetensors_files``): every ``*.safetensors``
file directly in the model directory; when the index exists, only the shards it names
(a shard it names but that is missing fails the load; shards it does not name are
ignored).  Without any ``*.safetensors`` file vLLM falls back to ``*.bin`` files, which
are pickles and are not read here.

Everything here is plain Python: no torch, no ``safetensors`` library, no network.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, NamedTuple, TypeGuard

from drafting_config.files.json_files import ConfigFileError, read_json_object
from drafting_config.values.errors import describe_value

MAX_HEADER_BYTES: Final = 100_000_000
"""The safetensors format's own limit on a header's length; longer ones are refused unread."""

INDEX_FILE: Final = "model.safetensors.index.json"
"""The index of a sharded checkpoint: ``weight_map`` maps each tensor name to its shard."""

MAX_INDEX_BYTES: Final = 64 << 20
"""Larger index files are refused unread (real ones are tens to hundreds of kilobytes)."""

_SUFFIX: Final = ".safetensors"
_LENGTH_BYTES: Final = 8
_METADATA_KEY: Final = "__metadata__"
_LFS_START: Final = b"version https://git-lfs.github.com/spec/"
_LFS_POINTER_MAX: Final = 1024
_OPEN_FLAGS: Final = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


class WeightsFileError(ConfigFileError):
    """A weights file (a safetensors file or its index) is unusable; the message names it.

    The message is ``"<path>: <problem>"``, as for every
    :class:`~drafting_config.files.json_files.ConfigFileError`.
    """


class LfsPointerError(WeightsFileError):
    """A weights file is a Git LFS pointer: the weights were never fetched, nothing to check."""


class MissingShardError(WeightsFileError):
    """A shard the index names is not in the directory.

    vLLM fails loading a local directory so (``filter_duplicate_safetensors_files``), but
    a cache snapshot may simply not hold the shards yet: vLLM downloads them when it serves
    the repo id.
    """


class TensorHeader(NamedTuple):
    """One tensor as a safetensors header describes it."""

    dtype: str
    """The dtype's name in the file (``"BF16"``, ``"F32"``, ``"I64"``, ``"U8"``...)."""
    shape: tuple[int, ...]
    """The shape, outermost dimension first."""
    file: str
    """The name of the file that holds it (``"model-00001-of-00002.safetensors"``)."""


@dataclass(frozen=True)
class FileHeader:
    """What the header of one safetensors file says."""

    tensors: dict[str, TensorHeader]
    """Each tensor by name."""
    header_bytes: int
    """Bytes read: the 8-byte length plus the JSON header (0 for a header from the hub,
    whose length huggingface_hub does not report)."""


@dataclass(frozen=True)
class CheckpointHeaders:
    """Every tensor of a checkpoint, from its headers."""

    files: tuple[str, ...]
    """The safetensors files read, by name, in the order read."""
    tensors: dict[str, TensorHeader]
    """Each tensor by name, as vLLM's loader would iterate them."""
    bytes_read: int
    """Header bytes read in all (the index file not counted; 0 from the hub); never a byte
    of weights."""
    misplaced: tuple[tuple[str, str], ...] = ()
    """``(tensor, shard)`` for each tensor the index places in a shard whose header does not
    hold it.  Harmless to vLLM, which reads the index only to pick the shard files and then
    loads whatever each shard holds (``weight_utils.py``,
    ``filter_duplicate_safetensors_files``); a stale index, worth a note."""


def parse_header(data: bytes, *, name: str, path: str, file_size: int | None) -> FileHeader:
    """The tensors of one safetensors header, given its JSON bytes.

    Args:
        data: the N bytes after the 8-byte length.
        name: the file's name, recorded in each :class:`TensorHeader`.
        path: the file's path (or URL), for errors.
        file_size: the file's size when known: a tensor whose data ends past it is an
            error.  ``None`` (a header from the hub) skips that check.

    Raises:
        WeightsFileError: the header is not UTF-8 JSON, not an object, or a tensor entry
            is malformed or runs past the end of the file.
    """
    try:
        parsed: object = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        detail = error.msg if isinstance(error, json.JSONDecodeError) else type(error).__name__
        raise WeightsFileError(
            path, f"the safetensors header is not JSON ({detail}); the file is corrupt."
        ) from None
    return header_from_json(
        parsed, name=name, path=path, header_bytes=_LENGTH_BYTES + len(data), file_size=file_size
    )


def header_from_json(
    parsed: object, *, name: str, path: str, header_bytes: int, file_size: int | None
) -> FileHeader:
    """The tensors of one safetensors header already parsed from JSON (see :func:`parse_header`).

    Args:
        header_bytes: the 8-byte length plus the header's length, where the data starts.

    Raises:
        WeightsFileError: as :func:`parse_header`, for everything but the JSON itself; also
            a ``__metadata__`` that is neither null nor an object of strings, which the
            safetensors library (and so vLLM's loader) refuses.
    """
    if type(parsed) is not dict:
        raise WeightsFileError(
            path, f"the safetensors header is {describe_value(parsed)}, not a JSON object."
        )
    tensors = {}
    end_limit = float("inf") if file_size is None else file_size - header_bytes
    for tensor_name, entry in parsed.items():
        if tensor_name == _METADATA_KEY:
            if entry is not None and not (
                type(entry) is dict and {*map(type, entry.values())} <= {str}
            ):
                raise WeightsFileError(
                    path,
                    "`__metadata__` must be null or an object of strings, got "
                    f"{describe_value(entry)}: the safetensors library refuses the header, "
                    "so vLLM cannot load the file.",
                )
            continue
        # The common case in one pass (a checkpoint has a thousand entries or more); anything
        # unusual falls through to _entry_problem, which says what is wrong.
        try:
            dtype, shape, (begin, end) = entry["dtype"], entry["shape"], entry["data_offsets"]
        except (TypeError, KeyError, ValueError):
            pass
        else:
            if (
                type(dtype) is str
                and type(shape) is list
                and type(begin) is int
                and type(end) is int
                and 0 <= begin <= end <= end_limit
            ):
                for dim in shape:  # _naturals(shape), inline: this loop is the hot path
                    if type(dim) is not int or dim < 0:
                        break
                else:
                    tensors[tensor_name] = TensorHeader(dtype, tuple(shape), name)
                    continue
        problem = _entry_problem(entry, header_bytes, file_size)
        raise WeightsFileError(path, f"tensor {tensor_name!r} in the header: {problem}")
    return FileHeader(tensors, header_bytes)


def _entry_problem(entry: object, data_start: int, file_size: int | None) -> str:
    """What is wrong with a header entry that the common case refused."""
    if type(entry) is not dict:
        return (
            f"expected an object with dtype, shape and data_offsets, got {describe_value(entry)}."
        )
    dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
    if type(dtype) is not str:
        return f"`dtype` must be a string, got {describe_value(dtype)}."
    if not _naturals(shape):
        return f"`shape` must be an array of non-negative ints, got {describe_value(shape)}."
    if not _naturals(offsets) or len(offsets) != 2 or offsets[0] > offsets[1]:
        return (
            "`data_offsets` must be [begin, end] with 0 <= begin <= end, got "
            f"{describe_value(offsets)}."
        )
    return (
        f"its data runs to byte {data_start + offsets[1]:,}, past the end of the file "
        f"({file_size:,} bytes); the file is truncated or corrupt."
    )


def _naturals(value: object) -> TypeGuard[list[int]]:
    """Whether ``value`` is a JSON array of non-negative ints (bools refused)."""
    if type(value) is not list:
        return False
    for item in value:  # noqa: SIM110 (a plain loop: twice as fast as all() over a generator)
        if type(item) is not int or item < 0:
            return False
    return True


def read_file_header(path: str) -> FileHeader:
    """Read the header of one safetensors file: its 8-byte length, then exactly that many bytes.

    Raises:
        WeightsFileError: the file is missing, not a regular file, unreadable, shorter
            than its header says, has a header over :data:`MAX_HEADER_BYTES`, or a
            header that :func:`parse_header` refuses.
    """
    name = os.path.basename(path)
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except FileNotFoundError:
        raise WeightsFileError(path, "no such file (a broken link?).") from None
    except (OSError, ValueError) as error:
        reason = error.strerror if isinstance(error, OSError) else "not a valid path"
        raise WeightsFileError(path, f"cannot open: {reason or error}.") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise WeightsFileError(path, "not a regular file; expected a safetensors file.")
        prefix = _read_exactly(fd, _LENGTH_BYTES)
        if len(prefix) < _LENGTH_BYTES:
            raise WeightsFileError(
                path,
                f"truncated: the file has {len(prefix)} bytes, fewer than the 8-byte header "
                "length every safetensors file starts with.",
            )
        if prefix == _LFS_START[:_LENGTH_BYTES] and _is_lfs_pointer(fd, info.st_size):
            raise LfsPointerError(
                path,
                "a Git LFS pointer, not the weights (the repository was cloned without "
                "`git lfs pull`).",
            )
        length = int.from_bytes(prefix, "little")
        if length > MAX_HEADER_BYTES:
            raise WeightsFileError(
                path,
                f"the header length is {length:,} bytes, over the safetensors limit of "
                f"{MAX_HEADER_BYTES:,}; this is not a safetensors file, or it is corrupt.",
            )
        if _LENGTH_BYTES + length > info.st_size:
            raise WeightsFileError(
                path,
                f"truncated: the header is {length:,} bytes long but the file has only "
                f"{info.st_size - _LENGTH_BYTES:,} bytes after the length.",
            )
        data = _read_exactly(fd, length)
        if len(data) < length:  # the file shrank while read
            raise WeightsFileError(path, "truncated while reading its header.")
    except OSError as error:
        raise WeightsFileError(path, f"cannot read: {error.strerror or error}.") from None
    finally:
        os.close(fd)
    return parse_header(data, name=name, path=path, file_size=info.st_size)


def _is_lfs_pointer(fd: int, size: int) -> bool:
    """Whether the file (read from its 9th byte on) is a Git LFS pointer: a small text file
    that starts ``version https://git-lfs.github.com/spec/``."""
    return (
        size <= _LFS_POINTER_MAX
        and _read_exactly(fd, len(_LFS_START) - _LENGTH_BYTES) == (_LFS_START[_LENGTH_BYTES:])
    )


def _read_exactly(fd: int, count: int) -> bytes:
    """Up to ``count`` bytes from ``fd``, fewer only at the end of the file."""
    chunks: list[bytes] = []
    remaining = count
    while remaining > 0:
        chunk = os.read(fd, min(remaining, 1 << 24))
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


@dataclass(frozen=True)
class WeightFiles:
    """The weight files of a model directory that vLLM's loader would use."""

    safetensors: tuple[str, ...]
    """Names of the safetensors files to read (the index's shards when it exists)."""
    weight_map: dict[str, str] | None
    """The index's ``weight_map`` (tensor name -> shard name), or ``None`` without an index."""
    bin_only: bool
    """No ``*.safetensors`` file, but ``*.bin`` files, which vLLM loads instead."""


def find_weight_files(directory: str) -> WeightFiles:
    """Which weight files of ``directory`` vLLM would load (see the module docstring).

    Raises:
        MissingShardError: the index names a shard that is not a ``*.safetensors`` file
            directly in the directory.
        WeightsFileError: the index is unreadable or malformed.
    """
    try:
        names = sorted(entry.name for entry in os.scandir(directory))
    except OSError:
        names = []
    on_disk = [n for n in names if n.endswith(_SUFFIX) and not n.startswith(".")]
    bin_only = not on_disk and any(n.endswith(".bin") for n in names)
    index_path = os.path.join(directory, INDEX_FILE)
    if not os.path.isfile(index_path) or bin_only:
        return WeightFiles(tuple(on_disk), None, bin_only)
    weight_map = read_weight_map(index_path)
    shards = sorted(set(weight_map.values()))
    missing = [shard for shard in shards if shard not in on_disk]
    if missing:
        others = f" (and {len(missing) - 1} more shards)" if len(missing) > 1 else ""
        raise MissingShardError(
            os.path.join(directory, missing[0]),
            f"named in {INDEX_FILE} but missing{others}: vLLM fails loading the checkpoint "
            "(every shard must be a .safetensors file beside the index).",
        )
    return WeightFiles(tuple(shards), weight_map, False)


def read_weight_map(index_path: str) -> dict[str, str]:
    """The ``weight_map`` of an index file: tensor name -> shard file name.

    Raises:
        WeightsFileError: the file is not a JSON object, or ``weight_map`` is not an
            object of strings.
    """
    try:
        index = read_json_object(index_path, max_bytes=MAX_INDEX_BYTES, what=INDEX_FILE)
    except ConfigFileError as error:
        raise WeightsFileError(error.path, error.problem) from None
    return weight_map_of(index, index_path)


def weight_map_of(index: Mapping[str, object], index_path: str) -> dict[str, str]:
    """The ``weight_map`` of a parsed index, checked: an object of strings."""
    weight_map = index.get("weight_map")
    if type(weight_map) is not dict or not {*map(type, weight_map.values())} <= {str}:
        raise WeightsFileError(
            index_path,
            "`weight_map` must be an object mapping tensor names to shard file names, got "
            f"{describe_value(weight_map)}.",
        )
    return weight_map


def checkpoint_from_headers(
    headers: Mapping[str, FileHeader],
    weight_map: Mapping[str, str] | None,
) -> CheckpointHeaders:
    """Merge the headers of a checkpoint's files, checking them against its index.

    Args:
        headers: each file's header, by file name, in the order read.
        weight_map: the index's ``weight_map``, or ``None`` without an index.

    A tensor the index places in a shard whose header lacks it is recorded in
    :attr:`CheckpointHeaders.misplaced`, not refused: vLLM never reads the placements.
    """
    tensors: dict[str, TensorHeader] = {}
    for header in headers.values():
        tensors.update(header.tensors)  # a name in two files: the last, as vLLM loads it last
    misplaced: tuple[tuple[str, str], ...] = ()
    if weight_map is not None:
        held: dict[str, str] = {}  # tensor name -> the file that holds it
        for name, header in headers.items():
            held.update(dict.fromkeys(header.tensors, name))
        if not weight_map.items() <= held.items():  # the common case, at C speed
            misplaced = _misplaced(headers, weight_map)
    return CheckpointHeaders(
        files=tuple(headers),
        tensors=tensors,
        bytes_read=sum(header.header_bytes for header in headers.values()),
        misplaced=misplaced,
    )


def _misplaced(
    headers: Mapping[str, FileHeader], weight_map: Mapping[str, str]
) -> tuple[tuple[str, str], ...]:
    """Each tensor the index places in a shard whose header lacks it, with that shard."""
    return tuple(
        (tensor_name, shard)
        for tensor_name, shard in weight_map.items()
        if (header := headers.get(shard)) is not None and tensor_name not in header.tensors
    )


def read_checkpoint_headers(directory: str) -> CheckpointHeaders | None:
    """Every tensor of the safetensors checkpoint in ``directory``, from its headers alone.

    Returns:
        ``None`` when the directory holds no safetensors checkpoint.

    Raises:
        WeightsFileError: see :func:`find_weight_files` and :func:`read_file_header`.
    """
    return read_weight_files(directory, find_weight_files(directory))


def read_weight_files(directory: str, files: WeightFiles) -> CheckpointHeaders | None:
    """The headers of ``files`` (as :func:`find_weight_files` found them in ``directory``).

    Returns:
        ``None`` when there is no safetensors file to read.

    Raises:
        WeightsFileError: see :func:`read_file_header`.
    """
    if not files.safetensors:
        return None
    headers = {name: read_file_header(os.path.join(directory, name)) for name in files.safetensors}
    return checkpoint_from_headers(headers, files.weight_map)
