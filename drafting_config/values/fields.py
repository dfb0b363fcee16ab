"""Reading named fields from the many shapes an HF config comes in.

A draft model's config reaches us as a ``transformers`` ``PreTrainedConfig``
(any subclass), as a parsed ``config.json`` (a mapping), or as any object with
attributes (``types.SimpleNamespace``, a dataclass, a nested config).  This
module turns each into a :data:`FieldGetter`, called like ``dict.get``:
``get(name, default)`` is ``mapping.get(name, default)`` for a mapping and
``getattr(config, name, default)`` for anything else, nothing more.

Getters never let a foreign exception escape: a property that raises, a
mapping whose ``get`` misbehaves or an object that recurses forever all become
a :class:`~drafting_config.values.errors.ParallelDraftingConfigError` naming the field.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Callable, Mapping
from typing import Final, TypeGuard, cast

from drafting_config.values import codes
from drafting_config.values.errors import ParallelDraftingConfigError, describe_value, foreign_error
from drafting_config.values.sources import TEXT_CONFIG


class Missing(enum.Enum):
    """Type of :data:`MISSING`, the marker for a field that is not in the config."""

    MISSING = enum.auto()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = Missing.MISSING
"""A default to pass to a :data:`FieldGetter` to tell an absent field from a null one."""

FieldGetter = Callable[[str, object], object]
"""Reads one field like ``dict.get``: ``get(name, default)``."""

# Values that cannot hold named fields.  An object of any other type is read by
# attribute; ``str`` and ``bytes`` are listed although they have attributes,
# because a string where a config section belongs is always a mistake.
_NOT_A_CONFIG: Final = (
    str,
    bytes,
    bytearray,
    int,
    float,
    complex,
    list,
    tuple,
    set,
    frozenset,
    type(None),
)

_EXPECTED: Final = (
    "a transformers PreTrainedConfig, a mapping such as a parsed config.json, "
    "or an object with attributes"
)


def is_kind(value: object, kinds: type | tuple[type, ...]) -> bool:
    """``issubclass(type(value), kinds)``: what ``value`` is, not what it claims to be.

    Unlike ``isinstance``, this does not believe ``__class__``, so a
    ``Mock(spec=dict)`` is read as the attribute object it is, not as a mapping.
    """
    return issubclass(type(value), kinds)


def is_list(value: object) -> TypeGuard[list[object] | tuple[object, ...]]:
    """Whether ``value`` is a list (a JSON array) or a tuple, by its type (:func:`is_kind`):
    the one test of "is it a list" for every field that should hold one."""
    return issubclass(type(value), (list, tuple))


def join_path(path: str, name: str) -> str:
    """``name`` inside the section at ``path`` (``""`` for the top level), dotted."""
    return f"{path}.{name}" if path else name


def field_getter(config: object, path: str) -> FieldGetter:
    """Return a ``get(name, default)`` reader for the fields of ``config``.

    Args:
        config: the config, or a nested section of it.
        path: where ``config`` sits, for error messages: ``""`` for the whole
            config, ``"dflash_config"`` for a section.

    Raises:
        ParallelDraftingConfigError: ``config`` is a number, string, sequence,
            path or ``None``, none of which holds named fields.
    """
    kind = type(config)  # not config.__class__, which a Mock(spec=dict) fakes
    if kind is dict:  # a parsed config.json: its own get cannot raise for a str key
        return cast("dict[str, object]", config).get
    if issubclass(kind, _NOT_A_CONFIG):
        raise ParallelDraftingConfigError(
            f"{_where(path)} must be {_EXPECTED}; got {describe_value(config)}.",
            field=path or None,
            code=codes.CONFIG_NOT_OBJECT,
            fix=_NOT_OBJECT_FIX
            if path
            else "pass the parsed config.json (a dict) or the transformers config object",
        )
    if issubclass(kind, os.PathLike):
        raise ParallelDraftingConfigError(
            f"Got a path ({describe_value(config)}) where a config object was expected.",
            field=path or None,
            code=codes.CONFIG_IS_A_PATH,
            fix="read a config.json file with ParallelDraftingConfig.from_pretrained(path)",
        )

    mapping = issubclass(kind, Mapping)

    def read(name: str, default: object) -> object:
        # The one guard around reading: a property or mapping that raises (or recurses)
        # becomes our error naming the field.
        try:
            if mapping:
                return cast("Mapping[str, object]", config).get(name, default)
            return getattr(config, name, default)
        except Exception as error:
            raise _unreadable(path, name, error) from None

    return read


def read_path(
    get: FieldGetter, path: str, default: object = None, *, only_dicts: bool = False
) -> object:
    """The field at ``path``, a ``key`` or ``section.key`` of the config ``get`` reads;
    ``default`` when it or its section is absent or null: the one reader of a dotted path.

    Args:
        only_dicts: a section that is not a ``dict`` counts as absent, as vLLM's readers
            skip it (``isinstance(section, dict)``); otherwise it must be a config section.

    Raises:
        ParallelDraftingConfigError: the section is not a config section (without
            ``only_dicts``), or a read raises.
    """
    section, _, key = path.rpartition(".")
    if not section:  # a top-level field: read_field's first case, without the call
        return get(key, default)
    return read_field(get, section, key, default, only_dicts=only_dicts)


def read_field(
    get: FieldGetter,
    section: str | None,
    key: str,
    default: object = None,
    *,
    only_dicts: bool = False,
) -> object:
    """:func:`read_path` of ``section.key`` (``key`` at the top level when ``section`` is
    ``None``), for callers that hold the two parts already (a priority table's rows)."""
    if section is None:
        return get(key, default)
    container = get(section, None)
    if type(container) is dict:  # a parsed config.json's section: field_getter's dict.get
        return container.get(key, default)
    if container is None or (only_dicts and not is_kind(container, dict)):
        return default
    return field_getter(container, section)(key, default)


def top_or_text_config(get: FieldGetter, path: str = "") -> Callable[[str], tuple[object, str]]:
    """A reader of fields at the top level of a config, else in its nested ``text_config``
    (multimodal configs): ``read(name)`` gives the value (``None`` when neither sets it)
    and the path of the field it came from, under ``path`` (where the config sits).

    Raises:
        ParallelDraftingConfigError: ``text_config`` is set but not a config section.
    """
    text_path = join_path(path, TEXT_CONFIG)
    text = get(TEXT_CONFIG, None)
    if text is None and not path:  # most configs: a top-level field is its own path

        def read_top(name: str) -> tuple[object, str]:
            return get(name, None), name

        return read_top
    text_get = None if text is None else field_getter(text, text_path)

    def read(name: str) -> tuple[object, str]:
        value = get(name, None)
        if value is None and text_get is not None:
            return text_get(name, None), join_path(text_path, name)
        return value, join_path(path, name)

    return read


_NOT_OBJECT_FIX: Final = "write the section as a JSON object of fields"


def _where(path: str) -> str:
    return f"`{path}`" if path else "The draft model's config"


def _unreadable(path: str, name: str, error: Exception) -> ParallelDraftingConfigError:
    field = join_path(path, name)
    return foreign_error(
        f"Could not read `{field}` from the draft model's config", error, field=field
    )
