"""Machine-applicable fixes: a :class:`ConfigEdit` is one change to a draft's ``config.json``,
carried by a finding next to its prose ``fix`` (``finding.edit``), and applied by
``drafting-config check --fix``.

Only certain fixes get an edit: those that use values already in the file (copy a nested
``markov_rank`` to the top level, delete a ``null`` field the engine reads, wrap a string
``architectures`` in a list).  Every other fix stays advice.  The rule that finds the fault
builds its edit (one rule, one home); :func:`apply_edits` applies edits to a parsed JSON
object, and :mod:`drafting_config.files.config_writing` writes the file back.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TypeAlias, TypeGuard

__all__ = ["ConfigEdit", "apply_edits"]

JsonValue: TypeAlias = "bool | int | float | str | list[JsonValue] | dict[str, JsonValue] | None"
"""A value JSON can hold, as :func:`json.loads` gives it."""


class EditKind(str, enum.Enum):
    """What a :class:`ConfigEdit` does to its path."""

    SET = "set"
    """Set the key to :attr:`ConfigEdit.value`: in place if present, else last in its object."""
    DELETE = "delete"
    """Delete the key."""


class EditError(ValueError):
    """An edit does not fit the document: a section on its path is missing or not an object,
    or the key it deletes is absent (the file changed since it was checked)."""


@dataclass(frozen=True)
class ConfigEdit:
    """One change to a draft's ``config.json``: set or delete the key at :attr:`path`."""

    path: tuple[str, ...]
    """The keys from the root to the key changed: ``("dflash_config", "mask_token_id")``."""
    kind: EditKind
    """Set or delete."""
    value: JsonValue = None
    """The value set (``None``, JSON's ``null``, for a delete)."""

    @classmethod
    def set(cls, field: str, value: JsonValue) -> ConfigEdit:
        """Set ``field``, a dotted path as findings name it (``"markov_rank"``), to ``value``."""
        return cls(_path(field), EditKind.SET, value)

    @classmethod
    def delete(cls, field: str) -> ConfigEdit:
        """Delete ``field``, a dotted path as findings name it (``"dflash_config"``)."""
        return cls(_path(field), EditKind.DELETE)

    @property
    def field(self) -> str:
        """The path as findings name it: the keys joined by ``.``."""
        return ".".join(self.path)

    def __str__(self) -> str:
        """What the edit does, for a line of output: ``set `markov_rank` to 256``."""
        if self.kind is EditKind.DELETE:
            return f"deleted `{self.field}`"
        return f"set `{self.field}` to {_json(self.value)}"


def is_json_value(value: object) -> TypeGuard[JsonValue]:
    """Whether ``value`` is what :func:`json.loads` can give (a config object's field may be
    anything): a rule copies a value into an edit only then."""
    if value is None or type(value) in (bool, int, float, str):
        return True
    if type(value) is list:
        return all(is_json_value(item) for item in value)
    if type(value) is dict:
        return all(type(key) is str and is_json_value(item) for key, item in value.items())
    return False


def apply_edits(document: Mapping[str, object], edits: Iterable[ConfigEdit]) -> dict[str, object]:
    """``document`` with ``edits`` applied in order, as a new object; ``document`` is left
    as it is.  Keys keep their order: a key set in place stays where it was, a new key comes
    last in its object, a deleted key leaves the others in order.

    Raises:
        EditError: an edit does not fit the document (see :class:`EditError`).
    """
    result = dict(document)
    for edit in edits:
        _apply(result, edit)
    return result


def _apply(root: dict[str, object], edit: ConfigEdit) -> None:
    container = root
    for depth, key in enumerate(edit.path[:-1]):
        inner = container.get(key)
        if not isinstance(inner, dict):
            where = ".".join(edit.path[: depth + 1])
            raise EditError(f"`{where}` is not an object in the file: `{edit.field}` cannot be set")
        inner = dict(inner)  # copied on the way down: the caller's document stays as it was
        container[key] = inner
        container = inner
    last = edit.path[-1]
    if edit.kind is EditKind.DELETE:
        if last not in container:
            raise EditError(f"`{edit.field}` is not in the file")
        del container[last]
    else:
        container[last] = edit.value


def _path(field: str) -> tuple[str, ...]:
    keys = tuple(field.split("."))
    if not all(keys):
        raise ValueError(f"an edit's field is keys joined by '.', not {field!r}")
    return keys


def _json(value: JsonValue) -> str:
    return json.dumps(value, ensure_ascii=False)
