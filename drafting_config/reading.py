"""Reading named fields from the many shapes an HF config comes in.

A draft model's config reaches us as a ``transformers`` ``PreTrainedConfig``
(any subclass), as a parsed ``config.json`` (a mapping), or as any object with
attributes (``types.SimpleNamespace``, a dataclass, a nested config).  This
module turns each of them into a :data:`FieldReader`: a function from a field
name to the field's value, or :data:`MISSING` when the field is not there.

Readers never let a foreign exception escape: a property that raises, a
mapping whose ``get`` misbehaves or an object that recurses forever all become
a :class:`~drafting_config.errors.ParallelDraftingConfigError` naming the field.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Callable, Mapping
from typing import Final

from drafting_config.errors import ParallelDraftingConfigError, describe_value

__all__ = ["MISSING", "FieldReader", "Missing", "field_reader"]


class Missing(enum.Enum):
    """Type of :data:`MISSING`, the marker for a field that is not in the config."""

    MISSING = enum.auto()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = Missing.MISSING
"""Returned by a :data:`FieldReader` for a field the config does not have."""

FieldReader = Callable[[str], object]
"""Reads one field by name: its value, or :data:`MISSING` when absent."""

# Values that cannot hold named fields.  An object of any other type is read by
# attribute; ``str`` and ``bytes`` are listed although they have attributes,
# because a string where a config section belongs is always a mistake.
_NOT_A_CONFIG: Final = (str, bytes, bytearray, int, float, complex, list, tuple, set, frozenset)

_EXPECTED: Final = (
    "a transformers PreTrainedConfig, a mapping such as a parsed config.json, "
    "or an object with attributes"
)


def field_reader(config: object, *, path: str) -> FieldReader:
    """Return a reader for the fields of ``config``.

    Args:
        config: the config, or a nested section of it.
        path: where ``config`` sits, for error messages: ``""`` for the whole
            config, ``"dflash_config"`` for a section.

    Raises:
        ParallelDraftingConfigError: ``config`` is a number, string, sequence,
            path or ``None``, none of which holds named fields.
    """
    if isinstance(config, Mapping):
        return _mapping_reader(config, path)
    if config is None or isinstance(config, _NOT_A_CONFIG):
        where = f"`{path}`" if path else "The draft model's config"
        raise ParallelDraftingConfigError(
            f"{where} must be {_EXPECTED}; got {describe_value(config)}.",
            field=path or None,
        )
    if isinstance(config, os.PathLike):
        raise ParallelDraftingConfigError(
            f"Got a path ({os.fspath(config)!r}) where a config object was expected; "
            "use ParallelDraftingConfig.from_pretrained(path) to read a config.json file.",
            field=path or None,
        )
    return _attribute_reader(config, path)


def _mapping_reader(config: Mapping[object, object], path: str) -> FieldReader:
    get = config.get

    def read(name: str) -> object:
        try:
            return get(name, MISSING)
        except Exception as error:
            raise _unreadable(path, name, error) from None

    return read


def _attribute_reader(config: object, path: str) -> FieldReader:
    def read(name: str) -> object:
        try:
            return getattr(config, name, MISSING)
        except Exception as error:
            raise _unreadable(path, name, error) from None

    return read


def _unreadable(path: str, name: str, error: Exception) -> ParallelDraftingConfigError:
    field = f"{path}.{name}" if path else name
    try:
        detail = str(error)[:200]
    except Exception:  # an exception whose __str__ raises too
        detail = "<unprintable>"
    return ParallelDraftingConfigError(
        f"Could not read `{field}` from the draft model's config: {type(error).__name__}: {detail}",
        field=field,
    )
