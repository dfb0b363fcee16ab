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
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, NamedTuple, TypeGuard, cast

from drafting_config.files.json_files import (
    READ_FLAGS,
    ConfigFileError,
    huge_integer_problem,
    read_json_object,
)
from drafting_config.values import codes
from drafting_config.values.errors import MAX_VALUE_CHARS, describe_value

MAX_HEADER_BYTES: Final = 100_000_000
"""The safetensors format's own limit on a header's length; longer ones are refused unread."""

INDEX_FILE: Final = "model.safetensors.index.json"
"""The index of a sharded checkpoint: ``weight_map`` maps each tensor name to its shard."""

MAX_INDEX_BYTES: Final = 64 << 20
"""Larger index files are refused unread (real ones are tens to hundreds of kilobytes)."""

MAX_TENSORS: Final = 250_000
"""Headers that list more tensors are refused before they are parsed.

A draft's checkpoint holds tens to hundreds of tensors.  The largest published
checkpoints hold about 90,000 (DeepSeek-V3: 256 experts in 58 layers, each weight with
its FP8 scale) to about 210,000 (Kimi-K2 in packed int4: 384 experts in 60 layers, each
weight with a scale and a shape), in all, spread over dozens of shards of a few thousand
tensors each.  A single file listing more than 250,000 is no model anyone serves; the
format's 100 MB header limit would allow about 1.6 million, which take seconds and a
gigabyte or more to parse.  Counted cheaply as the ``"data_offsets"`` keys in the header's
bytes, before the JSON is parsed."""

DTYPE_BITS: Final[Mapping[str, int]] = {
    "BOOL": 8,
    "F4": 4,
    "F6_E2M3": 6,
    "F6_E3M2": 6,
    "U8": 8,
    "I8": 8,
    "F8_E5M2": 8,
    "F8_E4M3": 8,
    "F8_E8M0": 8,
    "F8_E4M3FNUZ": 8,
    "F8_E5M2FNUZ": 8,
    "I16": 16,
    "U16": 16,
    "F16": 16,
    "BF16": 16,
    "I32": 32,
    "U32": 32,
    "F32": 32,
    "C64": 64,
    "F64": 64,
    "I64": 64,
    "U64": 64,
}
"""The dtypes the safetensors library (0.8, which vLLM 0.33.0 loads shards with through
``safe_open``) knows, and the bits of one element of each; any other name fails the load."""

_USIZE_MAX: Final = (1 << 64) - 1
"""The largest size the safetensors library computes with (a 64-bit ``usize``)."""

_SUFFIX: Final = ".safetensors"
_LENGTH_BYTES: Final = 8
_METADATA_KEY: Final = "__metadata__"
_LFS_START: Final = b"version https://git-lfs.github.com/spec/"
_LFS_POINTER_MAX: Final = 1024
_JSON_SPACE: Final = re.compile(rb"[ \t\r\n]*")
_OFFSETS_KEY: Final = b'"data_offsets"'


_SAFE_OPEN: Final = "safetensors: safe_open refuses the file"
_RESAVE: Final = "re-save the checkpoint with the safetensors library"
_WEIGHT_UTILS: Final = "vllm/model_executor/model_loader/weight_utils.py"


class WeightsFileError(ConfigFileError):
    """A weights file (a safetensors file or its index) is unusable; the message names it.

    The message is ``"<path>: <problem>"``, as for every
    :class:`~drafting_config.files.json_files.ConfigFileError`.
    """

    default_code = codes.WEIGHTS_FILE_MALFORMED


class LfsPointerError(WeightsFileError):
    """A weights file is a Git LFS pointer: the weights were never fetched, nothing to check."""

    default_code = codes.WEIGHTS_LFS_POINTER


class MissingShardError(WeightsFileError):
    """A weights file vLLM would load is not there: a shard the index names is not in the
    directory, or a ``*.safetensors`` entry is a broken link.

    vLLM fails loading a local directory so (``filter_duplicate_safetensors_files``,
    ``safe_open``), but a cache snapshot may simply not hold the weights yet: vLLM
    downloads them when it serves the repo id.
    """

    default_code = codes.WEIGHTS_SHARD_MISSING


def tensor_name_text(name: str) -> str:
    """A tensor's name as messages show it: quoted, and at most about
    :data:`~drafting_config.values.errors.MAX_VALUE_CHARS` characters (a name is file
    content, and may be megabytes long)."""
    if len(name) <= MAX_VALUE_CHARS:
        return repr(name)
    return repr(name[: MAX_VALUE_CHARS - 3]) + f"... ({len(name):,} characters)"


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
        WeightsFileError: the header is not UTF-8 JSON, not an object, lists more than
            :data:`MAX_TENSORS` tensors, or a tensor entry is malformed, or the tensors'
            data does not cover the rest of the file exactly (see :func:`header_from_json`).
    """
    _first_look(data, path)
    try:
        text = data.decode("utf-8")
        parsed: object = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        detail = error.msg if isinstance(error, json.JSONDecodeError) else type(error).__name__
        raise WeightsFileError(
            path, f"the safetensors header is not JSON ({detail}); the file is corrupt."
        ) from None
    except ValueError:  # Python refuses to convert integer literals over its digit limit
        raise WeightsFileError(
            path, f"the safetensors header cannot be read: {huge_integer_problem(text)}"
        ) from None
    return header_from_json(
        parsed, name=name, path=path, header_bytes=_LENGTH_BYTES + len(data), file_size=file_size
    )


def _first_look(data: bytes, path: str) -> None:
    """Refuse, before parsing, a header that cannot be a safetensors header: one that is not
    a JSON object, or lists more than :data:`MAX_TENSORS` tensors.  Nothing of the bytes
    is shown (the file may be anything a link points at)."""
    space = _JSON_SPACE.match(data)
    start = 0 if space is None else space.end()
    if data[start : start + 1] != b"{":
        raise WeightsFileError(
            path,
            "the safetensors header is not a JSON object; this is not a safetensors file, "
            "or it is corrupt.",
        )
    if data.count(_OFFSETS_KEY) > MAX_TENSORS:
        raise WeightsFileError(
            path,
            f"the header lists more than {MAX_TENSORS:,} tensors, far more than any model's "
            "checkpoint file; refused unparsed.",
        )


def header_from_json(
    parsed: object, *, name: str, path: str, header_bytes: int, file_size: int | None
) -> FileHeader:
    """The tensors of one safetensors header already parsed from JSON (see :func:`parse_header`).

    Args:
        header_bytes: the 8-byte length plus the header's length, where the data starts.

    Raises:
        WeightsFileError: as :func:`parse_header`, for everything but the JSON itself; also
            what the safetensors library's ``safe_open`` refuses, and so vLLM's loader
            (``weight_utils.py``, ``safetensors_weights_iterator``): a ``__metadata__``
            that is neither null nor an object of strings, a dtype it does not know
            (:data:`DTYPE_BITS`), offsets that overlap or leave a gap, offsets that do not
            span the shape times the dtype's size, a size over 64 bits, and (when
            ``file_size`` is known) bytes after the last tensor's data.
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
                    fix="write `__metadata__` as an object of strings, or null",
                    evidence=_SAFE_OPEN,
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
                and dtype in DTYPE_BITS
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
        raise WeightsFileError(
            path, f"tensor {tensor_name_text(tensor_name)} in the header: {problem}"
        )
    _check_layout(
        cast("dict[str, dict[str, object]]", parsed), tensors, path, header_bytes, file_size
    )
    return FileHeader(tensors, header_bytes)


def _check_layout(
    entries: Mapping[str, Mapping[str, object]],
    tensors: Mapping[str, TensorHeader],
    path: str,
    header_bytes: int,
    file_size: int | None,
) -> None:
    """The tensors' data, by offset, must tile the data part of the file: each begins where
    the one before ends, spans its shape times its dtype's size, and the last ends at the end
    of the file, as the safetensors library's ``Metadata::validate`` requires (it sorts the
    tensors by ``data_offsets`` first).  Raises :class:`WeightsFileError` naming the tensor."""
    spans = sorted((cast("list[int]", entries[name]["data_offsets"]), name) for name in tensors)
    end = 0
    for (begin, stop), tensor_name in spans:
        shown = tensor_name_text(tensor_name)
        if begin != end:
            how = (
                "overlaps the data before it"
                if begin < end
                else "leaves a gap after the data before it"
            )
            raise WeightsFileError(
                path,
                f"tensor {shown} in the header: its data_offsets [{begin:,}, {stop:,}] "
                f"{how} (which ends at {end:,}); the safetensors library refuses the file, "
                "so vLLM cannot load it.",
                fix=_RESAVE,
                evidence=_SAFE_OPEN,
            )
        tensor = tensors[tensor_name]
        size = _byte_size(tensor)
        if size is None or stop > _USIZE_MAX:
            raise WeightsFileError(
                path,
                f"tensor {shown} in the header: shape {shape_text(tensor.shape)} of "
                f"{tensor.dtype} overflows a 64-bit size; the safetensors library refuses the "
                "file, so vLLM cannot load it.",
                fix=_RESAVE,
                evidence=_SAFE_OPEN,
            )
        if size != stop - begin:
            needs = "a whole number of bytes" if size < 0 else f"{size:,} bytes"
            raise WeightsFileError(
                path,
                f"tensor {shown} in the header: its data_offsets span {stop - begin:,} bytes "
                f"but shape {shape_text(tensor.shape)} of {tensor.dtype} needs {needs}; the "
                "safetensors library refuses the file, so vLLM cannot load it.",
                fix=_RESAVE,
                evidence=_SAFE_OPEN,
            )
        end = stop
    if file_size is not None and header_bytes + end != file_size:
        raise WeightsFileError(
            path,
            f"{file_size - header_bytes - end:,} bytes follow the last tensor's data, which "
            "ends before the end of the file; the safetensors library refuses the file, so "
            "vLLM cannot load it.",
            fix=_RESAVE,
            evidence=_SAFE_OPEN,
        )


def _byte_size(tensor: TensorHeader) -> int | None:
    """The bytes of a tensor's data as the safetensors library computes them: ``None`` when a
    product overflows 64 bits, ``-1`` when sub-byte elements do not end on a byte."""
    count = 1
    for dim in tensor.shape:
        count *= dim
        if count > _USIZE_MAX or dim > _USIZE_MAX:
            return None
    bits = count * DTYPE_BITS[tensor.dtype]
    if bits > _USIZE_MAX:
        return None
    return -1 if bits % 8 else bits // 8


def shape_text(shape: tuple[int, ...]) -> str:
    """A shape as messages show it (``[4, 8]``), bounded as every value is (a header may give
    a tensor thousands of dimensions)."""
    return describe_value(list(shape)).rpartition(" (")[0]


def _entry_problem(entry: object, data_start: int, file_size: int | None) -> str:
    """What is wrong with a header entry that the common case refused."""
    if type(entry) is not dict:
        return (
            f"expected an object with dtype, shape and data_offsets, got {describe_value(entry)}."
        )
    dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
    if type(dtype) is not str:
        return f"`dtype` must be a string, got {describe_value(dtype)}."
    if dtype not in DTYPE_BITS:
        return (
            f"`dtype` {describe_value(dtype)} is none of the safetensors library's "
            f"({', '.join(DTYPE_BITS)}); the safetensors library refuses the file, so vLLM "
            "cannot load it."
        )
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


def open_weights_file(path: str, *, missing: type[WeightsFileError] = WeightsFileError) -> int:
    """Open a weights file (safetensors, ``mask_embedding.pt``) to read, never blocking.

    Raises:
        WeightsFileError: of the class ``missing`` when there is no such file (a broken
            link); a :class:`WeightsFileError` when it cannot be opened.
    """
    try:
        return os.open(path, READ_FLAGS)
    except FileNotFoundError:
        raise missing(path, "no such file (a broken link?).") from None
    except (OSError, ValueError) as error:
        reason = error.strerror if isinstance(error, OSError) else "not a valid path"
        raise WeightsFileError(path, f"cannot open: {reason or error}.") from None


def read_file_header(path: str) -> FileHeader:
    """Read the header of one safetensors file: its 8-byte length, then exactly that many bytes.

    No byte of a file that turns out not to be a safetensors file is ever shown in a
    message (a ``*.safetensors`` link may point at any file).

    Raises:
        MissingShardError: the file is missing (a broken link).
        WeightsFileError: the file is not a regular file, unreadable, shorter than its
            header says, has a header over :data:`MAX_HEADER_BYTES`, or a header that
            :func:`parse_header` refuses.
    """
    name = os.path.basename(path)
    fd = open_weights_file(path, missing=MissingShardError)
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
                fix="run `git lfs pull` in the repository to fetch the weights",
            )
        length = int.from_bytes(prefix, "little")
        if length > MAX_HEADER_BYTES:
            raise WeightsFileError(
                path,
                f"its first 8 bytes, read as a header length, are over the safetensors limit "
                f"of {MAX_HEADER_BYTES:,} bytes; this is not a safetensors file, or it is "
                "corrupt.",
            )
        if _LENGTH_BYTES + length > info.st_size:
            raise WeightsFileError(
                path,
                "truncated: the header length in its first 8 bytes runs past the end of the "
                f"file ({info.st_size:,} bytes); this is not a safetensors file, or it is "
                "corrupt.",
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


class DirectoryListings:
    """The names in each directory, listed at most once: one per sweep (a thousand drafts
    beside one checkpoint list its directory once).  Files are assumed not to change while
    it is used."""

    def __init__(self) -> None:
        self._names: dict[str, tuple[str, ...] | WeightsFileError] = {}

    def names(self, directory: str) -> tuple[str, ...]:
        """The entries of ``directory``, sorted; none when it does not exist.

        Raises:
            WeightsFileError: the directory exists but cannot be listed (not readable):
                vLLM finds weights by listing it (``glob``), finds none, and fails with
                "Cannot find any model weights".
        """
        found = self._names.get(directory)
        if found is None:
            try:
                found = tuple(sorted(entry.name for entry in os.scandir(directory)))
            except (FileNotFoundError, NotADirectoryError):
                found = ()
            except OSError as error:
                found = WeightsFileError(
                    directory,
                    f"cannot list the directory: {error.strerror or error} (it lacks the r "
                    "permission); vLLM finds the weights by listing it, finds none, and fails "
                    'with "Cannot find any model weights".',
                    fix="give the directory the r permission (chmod +r)",
                )
            self._names[directory] = found
        if isinstance(found, WeightsFileError):
            raise found.with_traceback(None)
        return found


def find_weight_files(directory: str, listings: DirectoryListings | None = None) -> WeightFiles:
    """Which weight files of ``directory`` vLLM would load (see the module docstring).

    Args:
        listings: the listings of a sweep, so that a directory is listed once; a fresh one
            by default.

    Raises:
        MissingShardError: the index names a shard that is not a ``*.safetensors`` file
            directly in the directory.
        WeightsFileError: the directory cannot be listed (see
            :meth:`DirectoryListings.names`), the index is unreadable or malformed, or its
            ``weight_map`` is
            empty while the directory holds safetensors files (vLLM then finds no weights:
            ``default_loader.py``, ``_prepare_weights``, "Cannot find any model weights").
    """
    names = (listings or DirectoryListings()).names(directory)
    on_disk = [n for n in names if n.endswith(_SUFFIX) and not n.startswith(".")]
    bin_only = not on_disk and any(n.endswith(".bin") for n in names)
    index_path = os.path.join(directory, INDEX_FILE)
    if INDEX_FILE not in names or bin_only or not os.path.isfile(index_path):
        return WeightFiles(tuple(on_disk), None, bin_only)
    weight_map = read_weight_map(index_path)
    if not weight_map and on_disk:
        raise WeightsFileError(
            index_path,
            "`weight_map` is empty, so vLLM keeps none of the .safetensors files beside it "
            'and fails with "Cannot find any model weights".',
            fix="list every tensor and its file in `weight_map`",
            evidence=f"{_WEIGHT_UTILS}: filter_duplicate_safetensors_files",
        )
    shards = sorted(set(weight_map.values()))
    missing = [shard for shard in shards if shard not in on_disk]
    if missing:
        others = f" (and {len(missing) - 1} more shards)" if len(missing) > 1 else ""
        raise MissingShardError(
            os.path.join(directory, missing[0]),
            f"named in {INDEX_FILE} but missing{others}, so vLLM fails loading the checkpoint.",
            fix=f"put every shard {INDEX_FILE} names beside it",
            evidence=f"{_WEIGHT_UTILS}: filter_duplicate_safetensors_files",
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
        raise WeightsFileError(error.path, error.problem, fix=error.fix) from None
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


def read_checkpoint_headers(
    directory: str, listings: DirectoryListings | None = None
) -> CheckpointHeaders | None:
    """Every tensor of the safetensors checkpoint in ``directory``, from its headers alone.

    Returns:
        ``None`` when the directory holds no safetensors checkpoint.

    Raises:
        WeightsFileError: see :func:`find_weight_files` and :func:`read_file_header`.
    """
    return read_weight_files(directory, find_weight_files(directory, listings))


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
