"""Machine-applicable fixes: a :class:`ConfigEdit` is one change to a draft's ``config.json``,
carried by a finding next to its prose ``fix`` (``finding.edit``), and applied by
``drafting-config check --fix``.

Only certain fixes get an edit: those that use values already in the file (copy a nested
``markov_rank`` to the top level, delete a ``null`` field the engine reads, wrap a string
``architectures`` in a list).  Every other fix stays advice.  An edit never changes a
value's type, with one exception (:func:`quoted_integer`): a token id written as a JSON
string of decimal digits becomes that integer where the engine needs an integer token id.
The rule that finds the fault builds its edit (one rule, one home); :func:`plan_edits`
decides which edits of a draft's findings ``--fix`` applies (each once, none of those that
disagree), :func:`apply_edits` applies edits to a parsed JSON object, and
:mod:`drafting_config.files.config_writing` writes them into the file's text.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final, TypeAlias, TypeGuard

__all__ = ["ConfigEdit", "apply_edits"]

_DECIMAL_INTEGER: Final = re.compile("0|[1-9][0-9]*")
"""A JSON integer's digits: ASCII digits, no sign, no leading zero, no white space."""

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


def quoted_integer(value: object) -> int | None:
    """The integer a JSON string holds when it is exactly a decimal integer (ASCII digits,
    no sign, no leading zero, no white space: ``"151669"``), else ``None`` (``"0x10"``,
    ``" 5"``, ``"+5"``, ``"05"``, a non-ASCII digit, and anything not a string).

    This is the one exception to "an edit never changes a value's type": a rule that needs
    an integer token id may set the field to this integer."""
    if type(value) is not str or _DECIMAL_INTEGER.fullmatch(value) is None:
        return None
    return int(value)


def same_edit(first: ConfigEdit, second: ConfigEdit) -> bool:
    """Whether two edits make the same change, values compared as JSON writes them (so
    that ``1``, ``1.0`` and ``true`` are three values, not one)."""
    return (
        first.path == second.path
        and first.kind is second.kind
        and _json(first.value) == _json(second.value)
    )


def _overlaps(first: ConfigEdit, second: ConfigEdit) -> bool:
    """Whether one edit's path is the other's or lies inside it."""
    shorter = min(len(first.path), len(second.path))
    return first.path[:shorter] == second.path[:shorter]


@dataclass(frozen=True)
class PlannedEdit:
    """An edit a finding carries, with the code of the first finding that carried it."""

    code: str
    edit: ConfigEdit


@dataclass(frozen=True)
class EditPlan:
    """What ``--fix`` does with a draft's findings: the edits it applies, and those it
    leaves because they disagree."""

    edits: tuple[PlannedEdit, ...] = ()
    """The edits applied, each once, in the order found."""
    conflicts: tuple[tuple[PlannedEdit, ...], ...] = ()
    """Groups of edits that disagree (another value for one key, or a change inside a key
    another deletes or sets): none of a group is applied."""

    def fixes(self, finding: object) -> bool:
        """Whether ``--fix`` mends ``finding``: it carries an edit the plan applies."""
        edit = getattr(finding, "edit", None)
        return isinstance(edit, ConfigEdit) and any(same_edit(edit, p.edit) for p in self.edits)


_NO_EDITS: Final = EditPlan()
"""The plan of findings that carry no edit (frozen: one for every such draft)."""


def plan_edits(findings: Iterable[object]) -> EditPlan:
    """The plan for the findings of one draft (every engine's verdict of it): each distinct
    edit once; where edits of one key (or of a key and a key inside it) disagree, none of
    them."""
    distinct: list[PlannedEdit] = []
    for finding in findings:
        edit = getattr(finding, "edit", None)
        if isinstance(edit, ConfigEdit) and not any(same_edit(p.edit, edit) for p in distinct):
            distinct.append(PlannedEdit(str(getattr(finding, "code", None) or "fix"), edit))
    if not distinct:
        return _NO_EDITS  # most drafts: nothing to group
    groups: list[list[PlannedEdit]] = []
    for planned in distinct:
        touching = [
            group for group in groups if any(_overlaps(p.edit, planned.edit) for p in group)
        ]
        merged = [planned]
        for group in touching:
            groups.remove(group)
            merged = group + merged
        groups.append(merged)
    order = {id(planned): index for index, planned in enumerate(distinct)}
    applied = tuple(group[0] for group in groups if len(group) == 1)
    return EditPlan(
        edits=tuple(sorted(applied, key=lambda planned: order[id(planned)])),
        conflicts=tuple(
            tuple(sorted(group, key=lambda planned: order[id(planned)]))
            for group in groups
            if len(group) > 1
        ),
    )


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
