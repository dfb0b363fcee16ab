"""Where a JSON object's members are in the text: the spans ``check --fix`` edits in place,
and the line and column ``--format github`` puts on an annotation.

Only the objects on the path asked for are walked, member by member; every other value is
skipped with the standard library's own scanner (:meth:`json.JSONDecoder.raw_decode`), so
that a member's span is exact however the file is written (inline arrays, ``1E400``,
``\\u`` escapes, a byte-order mark).  Positions are indices into the text (characters, not
bytes): an edit of the text between them leaves every other byte as it was once the text
is encoded back to UTF-8.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

_WHITESPACE: Final = " \t\n\r"
"""What JSON (and :mod:`json`) skips between tokens."""

_DECODER: Final = json.JSONDecoder()


class JsonSpanError(ValueError):
    """The text is not JSON where the path runs (the message says where), or a key on the
    path appears twice in its object (which of them a reader takes is not certain)."""


@dataclass(frozen=True)
class JsonMember:
    """One ``"key": value`` of an object: indices into the text."""

    key: str
    start: int
    """The key's opening quote."""
    key_end: int
    """Just after the key's closing quote."""
    value_start: int
    """The value's first character."""
    end: int
    """Just after the value's last character."""


@dataclass(frozen=True)
class JsonObject:
    """An object's braces and members, in the order written."""

    start: int
    """The ``{``."""
    end: int
    """Just after the ``}``."""
    members: tuple[JsonMember, ...]

    def member(self, key: str) -> JsonMember | None:
        """The member ``key``, or ``None``.

        Raises:
            JsonSpanError: ``key`` appears more than once in the object.
        """
        found = [member for member in self.members if member.key == key]
        if len(found) > 1:
            raise JsonSpanError(f"the key {key!r} appears twice in one object")
        return found[0] if found else None


def member_path(text: str, path: Sequence[str]) -> list[tuple[JsonObject, JsonMember | None]]:
    """The objects from the root along ``path`` (keys from the root), each with the member
    of its key: the last pair's member is ``None`` when the last key is absent; the list
    stops early (shorter than ``path``) at a key absent or whose value is not an object.

    ``text`` may start with a byte-order mark.

    Raises:
        JsonSpanError: the root is not an object, the text on the path is not JSON, or a key
            on the path appears twice in its object.
    """
    result: list[tuple[JsonObject, JsonMember | None]] = []
    current = root_object(text)
    for depth, key in enumerate(path):
        member = current.member(key)
        result.append((current, member))
        if member is None or depth == len(path) - 1:
            break
        if not text.startswith("{", member.value_start):
            break
        current = _object(text, member.value_start)
    return result


def root_object(text: str) -> JsonObject:
    """The object at the root of ``text`` (which may start with a byte-order mark).

    Raises:
        JsonSpanError: the root is not an object, or its members are not JSON.
    """
    return _object(text, _skip(text, 1 if text.startswith("\ufeff") else 0))


def position(text: str, index: int) -> tuple[int, int]:
    """The 1-based line and column of ``text[index]`` (a column counts characters; a
    byte-order mark is not one)."""
    line_start = text.rfind("\n", 0, index) + 1
    column = index - line_start + 1
    if line_start == 0 and text.startswith("\ufeff"):
        column -= 1
    return text.count("\n", 0, index) + 1, column


def field_position(text: str, field: str) -> tuple[int, int] | None:
    """The line and column of the key of ``field`` (a dotted path as findings name it:
    ``"dflash_config.mask_token_id"``) in ``text``, or ``None`` when the file does not hold
    it or cannot be read that far."""
    path = field.split(".")
    try:
        found = member_path(text, path)
    except JsonSpanError:
        return None
    if len(found) != len(path) or found[-1][1] is None:
        return None
    member = found[-1][1]
    return position(text, member.start)


def _skip(text: str, index: int) -> int:
    while index < len(text) and text[index] in _WHITESPACE:
        index += 1
    return index


def _object(text: str, start: int) -> JsonObject:
    """The object whose ``{`` is at ``start``."""
    if not text.startswith("{", start):
        raise JsonSpanError(_where(text, start, "expected an object"))
    members: list[JsonMember] = []
    index = _skip(text, start + 1)
    if text.startswith("}", index):
        return JsonObject(start, index + 1, ())
    while True:
        if not text.startswith('"', index):
            raise JsonSpanError(_where(text, index, "expected a key"))
        try:
            key, key_end = json.decoder.scanstring(text, index + 1, True)  # type: ignore[attr-defined]
        except ValueError as error:
            raise JsonSpanError(_where(text, index, f"bad key ({error})")) from None
        colon = _skip(text, key_end)
        if not text.startswith(":", colon):
            raise JsonSpanError(_where(text, colon, "expected ':'"))
        value_start = _skip(text, colon + 1)
        try:
            _, end = _DECODER.raw_decode(text, value_start)
        except (ValueError, RecursionError) as error:
            raise JsonSpanError(_where(text, value_start, f"bad value ({error})")) from None
        members.append(JsonMember(str(key), index, int(key_end), value_start, end))
        index = _skip(text, end)
        if text.startswith("}", index):
            return JsonObject(start, index + 1, tuple(members))
        if not text.startswith(",", index):
            raise JsonSpanError(_where(text, index, "expected ',' or '}'"))
        index = _skip(text, index + 1)


def _where(text: str, index: int, what: str) -> str:
    line, column = position(text, index)
    return f"{what} at line {line}, column {column}"
