"""Reading JSON files from local disk, safely and quickly: a model's ``config.json`` and others.

Only JSON is parsed: nothing here imports ``transformers``, contacts a hub or
runs code that a config names (``auto_map``, ``trust_remote_code``).  Every
file is read with a size limit, and every problem with it becomes a
:class:`ConfigFileError` that names the path and says what is wrong.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from typing import ClassVar, Final

from drafting_config.values import codes
from drafting_config.values.codes import Code
from drafting_config.values.errors import ParallelDraftingConfigError
from drafting_config.values.paths import PathArgument, as_path, display_path

CONFIG_NAME: Final = "config.json"
"""The file looked for inside a model directory."""

MAX_CONFIG_BYTES: Final = 1 << 20
"""Larger configs are refused unread: real configs are a few KB, weights are GBs."""

_JSON_KINDS: Final[dict[type, str]] = {
    list: "an array",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "a boolean",
    type(None): "null",
}

_UTF8_BOM: Final = b"\xef\xbb\xbf"

# A JSON string, or a number: used only to find an over-long integer in a file
# that ``json`` has already refused for it.
_STRING_OR_NUMBER: Final = re.compile(r'"(?:[^"\\]|\\.)*"|-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?')

READ_FLAGS: Final = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
"""How every file is opened to be read here: never blocking (a FIFO), in binary (Windows)."""


class ConfigFileError(ParallelDraftingConfigError):
    """A JSON file could not be read or parsed; the message names the path.

    The message is ``"<path>: <problem>"``, with the path shown by
    :func:`drafting_config.values.paths.display_path` so that it is one printable line.

    Attributes:
        path: the file (or directory) that was asked for, as given.
        problem: what is wrong with it, without the path: one sentence.
        fix: what to do about it, when one change is known (``"fix the JSON at line 3,
            column 5"``).
        unavailable: ``True`` when the file could not be had at all (missing, unopenable,
            a directory or FIFO where a file belongs): the check could not be made;
            ``False`` when it was read and is wrong (malformed JSON, not UTF-8, ...).
    """

    path: str
    problem: str
    default_code: ClassVar[Code] = codes.FILE_MALFORMED
    """The code of an error of this class about a file that was read: a subclass's own."""

    def __init__(
        self,
        path: str,
        problem: str,
        *,
        unavailable: bool = False,
        code: Code | None = None,
        fix: str | None = None,
        evidence: str | None = None,
    ) -> None:
        if code is None:
            code = codes.FILE_UNAVAILABLE if unavailable else self.default_code
        super().__init__(f"{display_path(path)}: {problem}", code=code, fix=fix, evidence=evidence)
        self.path = path
        self.problem = problem
        self.unavailable = unavailable


def load_config_json(path: PathArgument) -> dict[str, object]:
    """Parse a ``config.json`` file, or the one inside a model directory.

    ``path`` may be a ``str``, ``bytes`` (UTF-8 or not) or ``os.PathLike``.

    Raises:
        ConfigFileError: the file is missing, unreadable, not a regular file,
            empty, over :data:`MAX_CONFIG_BYTES`, binary, UTF-16 or otherwise
            not UTF-8, not valid JSON, nested too deeply, or its root is not a
            JSON object.
        ParallelDraftingConfigError: ``path`` is not a path at all.
    """
    return read_config_json(path)[0]


def read_config_json(path: PathArgument) -> tuple[dict[str, object], bool]:
    """:func:`load_config_json`, and whether ``path`` was the file itself (``False``: a
    directory holding it), which the read learnt without another system call.

    Raises:
        ConfigFileError: as :func:`load_config_json`.
        ParallelDraftingConfigError: ``path`` is not a path at all.
    """
    given = as_path(path)
    name, data = _read_file(given, max_bytes=MAX_CONFIG_BYTES, what=CONFIG_NAME, inner=CONFIG_NAME)
    return _parse_object(name, data, CONFIG_NAME), name == given


def read_json_object(path: PathArgument, *, max_bytes: int, what: str) -> dict[str, object]:
    """Read and parse a JSON file whose root must be an object, refusing it over ``max_bytes``.

    Args:
        path: the file (``str``, ``bytes`` or ``os.PathLike``).
        max_bytes: files larger than this are refused; a file of exactly this
            size is read.  Never more than ``max_bytes + 1`` bytes are held.
        what: the kind of file, for messages (``"tokenizer.json"``).

    Raises:
        ConfigFileError: as :func:`load_config_json`, except that a directory
            is refused rather than looked into.
        ParallelDraftingConfigError: ``path`` is not a path at all.
    """
    name, data = _read_file(as_path(path), max_bytes=max_bytes, what=what, inner=None)
    return _parse_object(name, data, what)


def _parse_object(name: str, data: bytes, what: str) -> dict[str, object]:
    """Decode and parse the bytes of ``name``; its root must be a JSON object."""
    if not data or data.isspace():  # not data.strip(), which copies the file
        raise ConfigFileError(
            name, "the file is empty, not a JSON object.", fix=f"write the {what} as a JSON object"
        )
    if b"\0" in data:  # JSON in UTF-16 or UTF-32 always has NULs: tell it from binary
        other_encoding = _other_unicode_encoding(data)
        if other_encoding is not None:
            raise ConfigFileError(
                name,
                f"the file is {other_encoding} text, not UTF-8.",
                fix=f"save the {what} as UTF-8",
            )
        raise ConfigFileError(
            name,
            f"this is a binary file, not a {what} (a weights file, perhaps?).",
            fix=f"point at the model's {what}, not at another file",
        )
    if data.startswith(_UTF8_BOM):  # tolerated, as editors on Windows add it
        data = data[len(_UTF8_BOM) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigFileError(
            name, f"not valid UTF-8 (byte {error.start}).", fix=f"save the {what} as UTF-8 JSON"
        ) from None
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigFileError(
            name,
            f"not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}.",
            fix=f"fix the JSON at line {error.lineno}, column {error.colno}",
        ) from None
    except RecursionError:
        raise ConfigFileError(
            name,
            f"the JSON is nested too deeply to be a {what}.",
            fix=f"point at the model's {what}, not at another file",
        ) from None
    except ValueError:  # Python refuses to convert integer literals over its digit limit
        raise ConfigFileError(
            name, huge_integer_problem(text), fix="write the integer with fewer digits"
        ) from None
    if not isinstance(parsed, dict):
        raise ConfigFileError(
            name,
            f"the JSON root is {_JSON_KINDS[type(parsed)]}; expected an object.",
            fix=f"write the {what} as one JSON object of fields",
        )
    return parsed


def _other_unicode_encoding(data: bytes) -> str | None:
    """``"UTF-16 (little-endian)"`` and so on when ``data`` is text in UTF-16 or UTF-32, as
    :func:`json.detect_encoding` tells them apart (by the mark, else by the NUL bytes)."""
    encoding = json.detect_encoding(data)
    if encoding.startswith("utf-8"):
        return None
    try:
        data.decode(encoding)
    except UnicodeDecodeError:  # NUL bytes, but not such text: binary
        return None
    width, _, order = encoding.upper().partition("-")[2].partition("-")
    if not order:  # a byte-order mark, which the codec reads: FF FE is little-endian
        order = "LE" if data.startswith(b"\xff\xfe") else "BE"
    return f"UTF-{width} ({'little' if order == 'LE' else 'big'}-endian)"


def huge_integer_problem(text: str) -> str:
    """Say where the integer literal is that is too long for Python to convert (``json``
    raises a plain ``ValueError`` for it): ``"an integer literal with N digits at line L,
    column C; ..."``."""
    limit: int = getattr(sys, "get_int_max_str_digits", lambda: 4300)()
    for match in _STRING_OR_NUMBER.finditer(text):
        literal = match.group()
        if literal[0] == '"' or match.group(1) or match.group(2):
            continue  # strings and non-integers are never refused
        digits = len(literal.lstrip("-"))
        if digits > limit:
            start = match.start()
            line = text.count("\n", 0, start) + 1
            column = start - text.rfind("\n", 0, start)
            return (
                f"an integer literal with {digits:,} digits at line {line}, column {column}; "
                f"integers longer than {limit:,} digits cannot be read (no id or size is "
                "that long)."
            )
    return f"an integer literal has more than {limit:,} digits, too long to be read."


def _read_file(name: str, *, max_bytes: int, what: str, inner: str | None) -> tuple[str, bytes]:
    """Read at most ``max_bytes`` from ``name``, or from ``name``/``inner`` when a directory.

    Returns the path that was read (``name``, or the inner file's) and its bytes.
    """
    try:
        fd = os.open(name, READ_FLAGS)
    except FileNotFoundError:
        raise ConfigFileError(
            name,
            "no such file or directory (not found locally).",
            unavailable=True,
            fix="check the path, or pass a repo id (ORG/NAME) with --download",
        ) from None
    except OSError as error:
        if inner is not None and isinstance(error, PermissionError) and os.path.isdir(name):
            # Searchable but not readable (chmod 111): its files open by name, as for vLLM.
            return _read_inner_file(name, inner, max_bytes=max_bytes, what=what)
        raise ConfigFileError(
            name,
            f"cannot open: {error.strerror or error}.",
            unavailable=True,
            fix="check the path and its permissions",
        ) from None
    except ValueError:  # a NUL byte in the path
        raise ConfigFileError(
            name,
            "not a valid path (it contains a NUL byte).",
            unavailable=True,
            fix="pass the path without the NUL byte",
        ) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            if inner is None:
                raise ConfigFileError(
                    name,
                    f"this is a directory; expected a {what} file.",
                    unavailable=True,
                    fix=f"point at the {what} file itself",
                )
            return _read_inner_file(name, inner, max_bytes=max_bytes, what=what)
        if not stat.S_ISREG(info.st_mode):
            raise ConfigFileError(
                name,
                f"not a regular file; expected a {what} file.",
                unavailable=True,
                fix=f"point at a regular {what} file",
            )
        if info.st_size > max_bytes:
            problem, fix = _too_large(info.st_size, max_bytes, what)
            raise ConfigFileError(name, problem, fix=fix)
        return name, _read_bounded(fd, name, info.st_size, max_bytes=max_bytes, what=what)
    except OSError as error:
        raise ConfigFileError(
            name,
            f"cannot read: {error.strerror or error}.",
            unavailable=True,
            fix="check the file and its permissions",
        ) from None
    finally:
        os.close(fd)


def _read_inner_file(directory: str, inner: str, *, max_bytes: int, what: str) -> tuple[str, bytes]:
    path = os.path.join(directory, inner)
    try:
        os.lstat(path)
    except FileNotFoundError:
        raise ConfigFileError(
            directory,
            f"this directory has no {inner}.",
            unavailable=True,
            fix=f"point at a model directory, one that holds its {inner}",
        ) from None
    except OSError as error:  # readable but not searchable (chmod 444): nothing inside opens
        raise ConfigFileError(
            directory,
            f"cannot reach its {inner}: {error.strerror or error} (the directory is not "
            "searchable: it lacks the x permission).",
            unavailable=True,
            fix="give the directory the x permission (chmod +x)",
        ) from None
    return _read_file(path, max_bytes=max_bytes, what=what, inner=None)


def _read_bounded(fd: int, name: str, size: int, *, max_bytes: int, what: str) -> bytes:
    """Read the file, never holding more than ``max_bytes`` + 1 bytes.

    One ``read`` of one byte more than ``fstat`` reported (``size``) reads nearly every
    file whole.  A file that gave more (it grew since, or reports no size, as procfs
    files do) is read on, through a buffered reader, up to one byte over the limit.
    """
    data = os.read(fd, min(size, max_bytes) + 1)
    if len(data) > size:
        with os.fdopen(fd, "rb", closefd=False) as file:  # reads until the count or the end
            data += file.read(max_bytes + 1 - len(data))
    if len(data) > max_bytes:
        problem, fix = _too_large(None, max_bytes, what)
        raise ConfigFileError(name, problem, fix=fix)
    return data


def _too_large(size: int | None, max_bytes: int, what: str) -> tuple[str, str]:
    """The problem of a file over the limit, and its fix."""
    subject = "the file" if size is None else f"the file ({size:,} bytes)"
    return (
        f"{subject} is over the {max_bytes:,}-byte limit for a {what}, so it is likely a "
        "weights file.",
        f"point at the model's {what}, not at its weights",
    )
