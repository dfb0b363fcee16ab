r"""Paths as arguments and paths in messages.

A path argument may be a ``str``, ``bytes`` or an :class:`os.PathLike`; all three
become the same ``str`` (bytes that are not UTF-8 are carried as the surrogate
escapes :func:`os.fsdecode` makes, so nothing is lost).

A path printed in a message, in text or in JSON, goes through
:func:`display_path`, which makes it one printable line that
:func:`parse_display_path` turns back into the exact bytes of the path:

- ``\\`` is one backslash;
- ``\n``, ``\t``, ``\r`` are a newline, a tab, a carriage return;
- ``\xNN`` (two hex digits) is the single byte ``NN``: another control
  character (``\x00`` to ``\x1f``, ``\x7f``), or a byte that is not part of
  valid UTF-8;
- ``\uNNNN`` (four hex digits) or ``\UNNNNNNNN`` (eight) is the character
  U+NNNN written in UTF-8: any other character that does not print (what
  :meth:`str.isprintable` refuses: C1 controls, line and paragraph
  separators, format characters such as bidirectional overrides, spaces
  other than the ASCII one);
- every other character stands for itself, in UTF-8.

So a path made only of printable characters and no backslash is shown
unchanged.  Written to a stream whose encoding lacks some of its characters (an
ASCII or Latin-1 terminal), the text is encoded with :func:`output_errors`, which
writes each such character as ``\uNNNN`` (``\UNNNNNNNN``), never as ``\xNN``: so
``é`` (U+00E9) prints as ``\u00e9``, the UTF-8 bytes of the path, and not as
``\xe9``, which the grammar above reads as one raw byte.  (A ``str`` holding a
lone surrogate that is no :func:`os.fsdecode` escape, which no POSIX path can, is
shown as ``\uNNNN`` and parses back to its ``surrogatepass`` bytes.)
"""

from __future__ import annotations

import codecs
import os
import sys
from typing import Final, cast

from drafting_config.values import codes
from drafting_config.values.errors import ParallelDraftingConfigError, describe_value

__all__ = ["display_path", "parse_display_path"]

PathArgument = str | bytes | os.PathLike[str] | os.PathLike[bytes]
"""What a path parameter accepts."""

_SHORT_ESCAPES: Final = {"\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
_SHORT_UNESCAPES: Final = {"\\": b"\\", "n": b"\n", "t": b"\t", "r": b"\r"}
_HEX_WIDTH: Final = {"x": 2, "u": 4, "U": 8}
_SURROGATE_ESCAPES: Final = range(0xDC80, 0xDD00)


def as_path(value: object, *, argument: str = "path") -> str:
    """The ``str`` form of a path argument given as ``str``, ``bytes`` or ``os.PathLike``.

    Bytes are decoded as :func:`os.fsdecode` does, so a path that is not UTF-8
    still opens the same file.

    Raises:
        ParallelDraftingConfigError: ``value`` is of any other type, or its
            ``__fspath__`` fails or returns something that is not a path; the
            message names ``argument``.
    """
    if not issubclass(type(value), (str, bytes)):
        value = _fspath(value, argument)
    if isinstance(value, bytes):
        return os.fsdecode(value)
    assert isinstance(value, str)
    return value


def _fspath(value: object, argument: str) -> str | bytes:
    """``os.fspath(value)`` for an ``os.PathLike``; a clear error for anything else."""
    if not issubclass(type(value), os.PathLike):
        raise ParallelDraftingConfigError(
            f"`{argument}` must be a path (str, bytes or os.PathLike); "
            f"got {describe_value(value)}.",
            code=codes.PATH_ARGUMENT_INVALID,
            fix=f"pass `{argument}` as a str, bytes or os.PathLike path",
        )
    try:
        result: str | bytes = os.fspath(cast("os.PathLike[str]", value))  # str or bytes
        return result
    except Exception as error:  # an __fspath__ that fails, or returns a non-path
        raise ParallelDraftingConfigError(
            f"`{argument}` is not a usable path: its __fspath__() failed ({type(error).__name__}).",
            code=codes.PATH_ARGUMENT_INVALID,
            fix=f"pass `{argument}` as a str, bytes or pathlib.Path",
        ) from None


def display_path(path: str | bytes) -> str:
    """Render a path as one printable line that :func:`parse_display_path` reverses.

    ``path`` is a ``str`` (as made by :func:`os.fsdecode`, whose surrogate
    escapes stand for bytes that are not UTF-8) or the raw ``bytes``; both give
    the same text.  The escapes are listed in this module's documentation.
    Never raises.
    """
    text = path.decode("utf-8", "surrogateescape") if isinstance(path, bytes) else path
    if text.isprintable() and "\\" not in text:
        return text  # the common case: nothing to escape
    return "".join(map(_escape, text))


def printable(text: str) -> str:
    """``text`` as one printable line: each character :meth:`str.isprintable` refuses (a
    newline, a terminal escape, a NUL, a byte that is not UTF-8) written as the escape
    :func:`display_path` gives it; everything else, backslashes included, as it is.  For
    messages that quote a config's values, so that a value can neither forge another line
    of output nor send a terminal escape.  Never raises.

    The line is also made inert for a CI runner (:func:`runner_inert`): it can start no
    workflow command.
    """
    if not text.isprintable():
        text = "".join(char if char.isprintable() else _escape(char) for char in text)
    return runner_inert(text)


def printable_lines(lines: list[str]) -> list[str]:
    """:func:`printable` of each line: ``lines`` itself when no line needs it (every
    character printable, no workflow command anywhere), as one test of the whole block
    rather than one call per line.  Never raises."""
    joined = "".join(lines)
    if joined.isprintable() and RUNNER_COMMAND not in joined and RUNNER_COMMAND_START not in joined:
        return lines
    return [printable(line) for line in lines]


RUNNER_COMMAND: Final = "##["
"""What GitHub's Actions runner reads as a (legacy) workflow command anywhere in a line."""
RUNNER_COMMAND_START: Final = "::"
"""What it reads as a workflow command at a line's start, after leading white space."""


def runner_inert(line: str) -> str:
    r"""``line`` as no workflow command of GitHub's Actions runner: each ``##[`` written
    ``\x23#[`` and a leading ``::`` (after white space) ``\x3a:``, escapes
    :func:`parse_display_path` reads back as ``#`` and ``:``.  The runner parses every line a
    step prints, on standard output and standard error alike (``::warning ...``,
    ``##[stop-commands]...``), so a config value or a folder name printed as it is could
    forge an annotation or silence the real ones.  Everything else is left as it is (a
    ``--diff`` line keeps its tabs).  Never raises."""
    if RUNNER_COMMAND in line:
        line = line.replace(RUNNER_COMMAND, "\\x23#[")
    if line.lstrip().startswith(RUNNER_COMMAND_START):
        start = len(line) - len(line.lstrip())
        line = f"{line[:start]}\\x3a{line[start + 1 :]}"
    return line


def _escape(char: str) -> str:
    short = _SHORT_ESCAPES.get(char)
    if short is not None:
        return short
    code = ord(char)
    if code < 0x20 or code == 0x7F:
        return f"\\x{code:02x}"
    if code in _SURROGATE_ESCAPES:
        return f"\\x{code - 0xDC00:02x}"  # a byte that is not UTF-8
    if char.isprintable():
        return char
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


OUTPUT_ERRORS: Final = "drafting_config.escape"
"""The name of the codec error handler :func:`output_errors` registers."""


def output_errors() -> str:
    r"""The ``errors`` argument for writing displayed text to a stream of any encoding.

    Registers (once; registering again changes nothing) a codec error handler that writes
    each character the encoding lacks as ``\uNNNN`` or ``\UNNNNNNNN``, as
    :func:`display_path` escapes, so that :func:`parse_display_path` reads it back as that
    character.  (Python's ``backslashreplace`` writes U+0080 to U+00FF as ``\xNN``, a raw
    byte in this grammar.)
    """
    codecs.register_error(OUTPUT_ERRORS, _escape_unencodable)
    return OUTPUT_ERRORS


def _escape_unencodable(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    chars = error.object[error.start : error.end]
    return "".join(
        f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}" for c in chars
    ), error.end


def parse_display_path(text: str) -> bytes:
    """The exact bytes of the path that :func:`display_path` rendered as ``text``.

    ``os.fsdecode(parse_display_path(text))`` gives the ``str`` form.

    Characters that need no escape are taken as they are, so text whose
    unprintable characters were left raw still parses.

    Raises:
        ValueError: ``text`` has a backslash that starts no known escape, or
            a lone surrogate character.
    """
    out = bytearray()
    index = 0
    while index < len(text):
        char = text[index]
        if char != "\\":
            try:
                out += char.encode("utf-8")
            except UnicodeEncodeError:
                raise ValueError(
                    f"character {index} (U+{ord(char):04X}) is a lone surrogate, "
                    "which display_path always escapes"
                ) from None
            index += 1
            continue
        letter = text[index + 1 : index + 2]
        short = _SHORT_UNESCAPES.get(letter)
        if short is not None:
            out += short
            index += 2
            continue
        width = _HEX_WIDTH.get(letter)
        digits = text[index + 2 : index + 2 + width] if width else ""
        if width is None or len(digits) != width or not _is_hex(digits):
            raise ValueError(f"character {index}: {text[index : index + 10]!r} is not an escape")
        code = int(digits, 16)
        if letter == "x":
            out.append(code)
        elif code > sys.maxunicode:
            raise ValueError(f"character {index}: U+{code:X} is beyond Unicode")
        else:
            out += chr(code).encode("utf-8", "surrogatepass")
        index += 2 + width
    return bytes(out)


def _is_hex(digits: str) -> bool:
    return all(c in "0123456789abcdefABCDEF" for c in digits)
