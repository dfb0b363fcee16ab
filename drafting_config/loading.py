"""Reading a draft model's ``config.json`` from local disk, safely and quickly.

Only JSON is parsed: nothing here imports ``transformers``, contacts a hub or
runs code that a config names (``auto_map``, ``trust_remote_code``).  Every
problem with the file becomes a :class:`ConfigFileError` that names the path
and says what is wrong.
"""

from __future__ import annotations

import json
import os
import stat
from typing import Final

from drafting_config.errors import ParallelDraftingConfigError

__all__ = ["CONFIG_NAME", "MAX_CONFIG_BYTES", "ConfigFileError", "load_config_json"]

CONFIG_NAME: Final = "config.json"
"""The file looked for inside a model directory."""

MAX_CONFIG_BYTES: Final = 1 << 20
"""Larger files are refused unread: real configs are a few KB, weights are GBs."""

_JSON_KINDS: Final[dict[type, str]] = {
    list: "an array",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "a boolean",
    type(None): "null",
}

_CHUNK_BYTES: Final = 1 << 16
_BOM: Final = b"\xef\xbb\xbf"

_OPEN_FLAGS: Final = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


class ConfigFileError(ParallelDraftingConfigError):
    """A ``config.json`` could not be read or parsed; the message names the path.

    Attributes:
        path: the file (or directory) that was asked for.
        problem: what is wrong with it, without the path.
    """

    path: str
    problem: str

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.path, self.problem))


def load_config_json(path: str | os.PathLike[str]) -> dict[str, object]:
    """Parse a ``config.json`` file, or the one inside a model directory.

    Raises:
        ConfigFileError: the file is missing, unreadable, not a regular file,
            empty, over :data:`MAX_CONFIG_BYTES`, binary, not UTF-8, not valid
            JSON, nested too deeply, or its root is not a JSON object.
    """
    name = os.fspath(path)
    data = _read_bytes(name)
    if not data.strip():
        raise ConfigFileError(name, "the file is empty; expected a JSON object.")
    if b"\0" in data:
        raise ConfigFileError(
            name, "this is a binary file, not a config.json (a weights file, perhaps?)."
        )
    if data.startswith(_BOM):  # tolerated, as editors on Windows add it
        data = data[len(_BOM) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigFileError(
            name, f"not valid UTF-8 (byte {error.start}); save the config as UTF-8 JSON."
        ) from None
    try:
        parsed: object = json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigFileError(
            name, f"not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}."
        ) from None
    except RecursionError:
        raise ConfigFileError(name, "the JSON is nested too deeply to be a config.") from None
    except ValueError as error:  # e.g. an integer literal longer than 4300 digits
        raise ConfigFileError(name, f"not valid JSON: {error}.") from None
    if not isinstance(parsed, dict):
        raise ConfigFileError(
            name, f"the JSON root is {_JSON_KINDS[type(parsed)]}; expected an object."
        )
    return parsed


def _read_bytes(name: str, *, directory_allowed: bool = True) -> bytes:
    """Read at most :data:`MAX_CONFIG_BYTES` from ``name`` (or ``name``/config.json)."""
    try:
        fd = os.open(name, _OPEN_FLAGS)
    except FileNotFoundError:
        raise ConfigFileError(
            name,
            "no such file or directory (only local paths are read; nothing is downloaded).",
        ) from None
    except OSError as error:
        raise ConfigFileError(name, f"cannot open: {error.strerror or error}.") from None
    except ValueError:  # a NUL byte in the path
        raise ConfigFileError(repr(name), "not a valid path (it contains a NUL byte).") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode) and directory_allowed:
            return _read_bytes_in_directory(name)
        if not stat.S_ISREG(info.st_mode):
            raise ConfigFileError(name, "not a regular file; expected a config.json file.")
        if info.st_size > MAX_CONFIG_BYTES:
            raise ConfigFileError(name, _too_large(info.st_size))
        return _read_bounded(fd, name, info.st_size)
    except OSError as error:
        raise ConfigFileError(name, f"cannot read: {error.strerror or error}.") from None
    finally:
        os.close(fd)


def _read_bounded(fd: int, name: str, expected_size: int) -> bytes:
    """Read the file, never holding more than :data:`MAX_CONFIG_BYTES` + 1 bytes.

    The first read asks for one byte more than ``fstat`` reported, so a file
    that is as large as it says is read in one call; files that grow while
    read, or report no size (procfs), are read in further bounded chunks.
    """
    chunks: list[bytes] = []
    total = 0
    request = min(expected_size, MAX_CONFIG_BYTES) + 1
    while chunk := os.read(fd, request):
        chunks.append(chunk)
        total += len(chunk)
        if total > MAX_CONFIG_BYTES:
            raise ConfigFileError(name, _too_large(None))
        if total == expected_size and len(chunks) == 1:
            break  # a short first read at the reported size: the end of the file
        request = min(MAX_CONFIG_BYTES + 1 - total, _CHUNK_BYTES)
    return b"".join(chunks)


def _read_bytes_in_directory(directory: str) -> bytes:
    inner = os.path.join(directory, CONFIG_NAME)
    if not os.path.lexists(inner):
        raise ConfigFileError(
            directory, f"this directory has no {CONFIG_NAME}; point at a model directory."
        )
    return _read_bytes(inner, directory_allowed=False)


def _too_large(size: int | None) -> str:
    what = "the file" if size is None else f"the file ({size:,} bytes)"
    return (
        f"{what} is over the {MAX_CONFIG_BYTES:,}-byte limit for a config.json; "
        "is this a weights file?"
    )
