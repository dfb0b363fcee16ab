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
from typing import Final

from drafting_config.errors import describe_value
from drafting_config.integers import exact_int
from drafting_config.loading import ConfigFileError, read_json_object

__all__ = [
    "INDEX_FILE",
    "MAX_HEADER_BYTES",
    "MAX_INDEX_BYTES",
    "CheckpointHeaders",
    "FileHeader",
    "TensorHeader",
    "WeightFiles",
    "WeightsFileError",
    "checkpoint_from_headers",
    "find_weight_files",
    "parse_header",
    "read_checkpoint_headers",
    "read_file_header",
    "read_weight_map",
    "weight_map_of",
]

MAX_HEADER_BYTES: Final = 100_000_000
"""The safetensors format's own limit on a header's length; longer ones are refused unread."""

INDEX_FILE: Final = "model.safetensors.index.json"
"""The index of a sharded checkpoint: ``weight_map`` maps each tensor name to its shard."""

MAX_INDEX_BYTES: Final = 64 << 20
"""Larger index files are refused unread (real ones are tens to hundreds of kilobytes)."""

_SUFFIX: Final = ".safetensors"
_LENGTH_BYTES: Final = 8
_METADATA_KEY: Final = "__metadata__"
_OPEN_FLAGS: Final = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


class WeightsFileError(ConfigFileError):
    """A weights file (a safetensors file or its index) is unusable; the message names it.

    The message is ``"<path>: <problem>"``, as for every
    :class:`~drafting_config.loading.ConfigFileError`.
    """


@dataclass(frozen=True)
class TensorHeader:
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
    """Bytes read: the 8-byte length plus the JSON header."""


@dataclass(frozen=True)
class CheckpointHeaders:
    """Every tensor of a checkpoint, from its headers."""

    files: tuple[str, ...]
    """The safetensors files read, by name, in the order read."""
    tensors: dict[str, TensorHeader]
    """Each tensor by name, as vLLM's loader would iterate them."""
    bytes_read: int
    """Header bytes read in all (the index file not counted); never a byte of weights."""


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
    if type(parsed) is not dict:
        raise WeightsFileError(
            path, f"the safetensors header is {describe_value(parsed)}, not a JSON object."
        )
    data_start = _LENGTH_BYTES + len(data)
    tensors = {}
    for tensor_name, entry in parsed.items():
        if tensor_name == _METADATA_KEY:
            continue
        tensors[tensor_name] = _tensor(
            tensor_name, entry, name=name, path=path, data_start=data_start, file_size=file_size
        )
    return FileHeader(tensors, data_start)


def _tensor(
    tensor_name: str, entry: object, *, name: str, path: str, data_start: int, file_size: int | None
) -> TensorHeader:
    """One header entry as a :class:`TensorHeader`, or the error naming what is wrong."""

    def bad(problem: str) -> WeightsFileError:
        return WeightsFileError(path, f"tensor {tensor_name!r} in the header: {problem}")

    if type(entry) is not dict:
        raise bad(
            f"expected an object with dtype, shape and data_offsets, got {describe_value(entry)}."
        )
    dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
    if type(dtype) is not str:
        raise bad(f"`dtype` must be a string, got {describe_value(dtype)}.")
    sizes = _naturals(shape)
    if sizes is None:
        raise bad(f"`shape` must be an array of non-negative ints, got {describe_value(shape)}.")
    bounds = _naturals(offsets)
    if bounds is None or len(bounds) != 2 or bounds[0] > bounds[1]:
        raise bad(
            "`data_offsets` must be [begin, end] with 0 <= begin <= end, got "
            f"{describe_value(offsets)}."
        )
    if file_size is not None and data_start + bounds[1] > file_size:
        raise bad(
            f"its data runs to byte {data_start + bounds[1]:,}, past the end of the file "
            f"({file_size:,} bytes); the file is truncated or corrupt."
        )
    return TensorHeader(dtype, sizes, name)


def _naturals(value: object) -> tuple[int, ...] | None:
    """A JSON array of non-negative ints (bools refused) as a tuple, else ``None``."""
    if type(value) is not list:
        return None
    numbers = [exact_int(item) for item in value]
    if any(number is None or number < 0 for number in numbers):
        return None
    return tuple(n for n in numbers if n is not None)


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
        WeightsFileError: the index is unreadable or malformed, or names a shard that is
            not a ``*.safetensors`` file directly in the directory.
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
        raise WeightsFileError(
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
    if type(weight_map) is not dict or not all(type(shard) is str for shard in weight_map.values()):
        raise WeightsFileError(
            index_path,
            "`weight_map` must be an object mapping tensor names to shard file names, got "
            f"{describe_value(weight_map)}.",
        )
    return weight_map


def checkpoint_from_headers(
    headers: Mapping[str, FileHeader],
    weight_map: Mapping[str, str] | None,
    *,
    where: str,
) -> CheckpointHeaders:
    """Merge the headers of a checkpoint's files, checking them against its index.

    Args:
        headers: each file's header, by file name, in the order read.
        weight_map: the index's ``weight_map``, or ``None`` without an index.
        where: the directory (or repo) holding the files, for errors.

    Raises:
        WeightsFileError: the index places a tensor in a shard whose header does not
            hold it.
    """
    if weight_map is not None:
        for tensor_name, shard in weight_map.items():
            header = headers.get(shard)
            if header is not None and tensor_name not in header.tensors:
                raise WeightsFileError(
                    os.path.join(where, shard),
                    f"{INDEX_FILE} places tensor {tensor_name!r} in this shard, but its "
                    "header does not hold it.",
                )
    tensors: dict[str, TensorHeader] = {}
    for header in headers.values():
        for tensor_name, tensor in header.tensors.items():
            tensors.setdefault(tensor_name, tensor)
    return CheckpointHeaders(
        files=tuple(headers),
        tensors=tensors,
        bytes_read=sum(header.header_bytes for header in headers.values()),
    )


def read_checkpoint_headers(directory: str) -> CheckpointHeaders | None:
    """Every tensor of the safetensors checkpoint in ``directory``, from its headers alone.

    Returns:
        ``None`` when the directory holds no safetensors checkpoint.

    Raises:
        WeightsFileError: see :func:`find_weight_files`, :func:`read_file_header` and
            :func:`checkpoint_from_headers`.
    """
    found = find_weight_files(directory)
    if not found.safetensors:
        return None
    headers = {name: read_file_header(os.path.join(directory, name)) for name in found.safetensors}
    return checkpoint_from_headers(headers, found.weight_map, where=directory)
