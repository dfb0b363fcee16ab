"""Reading named fields from the many shapes an HF config comes in.

A draft model's config reaches us as a ``transformers`` ``PreTrainedConfig``
(any subclass), as a parsed ``config.json`` (a mapping), or as any object with
attributes (``types.SimpleNamespace``, a dataclass, a nested config).  This
module turns each into a :data:`FieldGetter`, called like ``dict.get``:
``get(name, default)`` returns the field's value, or ``default`` when the
config has no such field.  Values are exactly what ``getattr`` (for objects)
or ``mapping.get`` (for mappings) would return.

Getters never let a foreign exception escape: a property that raises, a
mapping whose ``get`` misbehaves or an object that recurses forever all become
a :class:`~drafting_config.errors.ParallelDraftingConfigError` naming the field.

Speed: on ``transformers`` v5 configs every attribute read runs two
Python-level ``__getattribute__`` methods (about 1 us each).  When reading the
instance ``__dict__`` is provably equivalent to ``getattr`` (see
:func:`_instance_dict_plan`), the getter is the instance dict's own ``get``.
"""

from __future__ import annotations

import enum
import os
import sys
from collections.abc import Callable, Mapping
from typing import Final, cast

from drafting_config.errors import ParallelDraftingConfigError, describe_value
from drafting_config.sources import FIELD_NAMES

__all__ = ["MISSING", "FieldGetter", "Missing", "field_getter"]


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

_object_getattribute: Final = object.__getattribute__

_EXPECTED: Final = (
    "a transformers PreTrainedConfig, a mapping such as a parsed config.json, "
    "or an object with attributes"
)


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
    if type(config) is dict:  # never config.__class__: that goes through __getattribute__
        return config.get
    cls = type(config)
    plan = _PLANS.get(cls)
    if plan is None:
        plan = _PLANS[cls] = _plan_for(cls)
    if type(plan) is _InstanceDictPlan:
        # Inlined: this is the hot path for transformers configs.
        try:
            instance_dict: dict[str, object] = _object_getattribute(config, "__dict__")
        except AttributeError:  # __slots__ without __dict__
            return _attribute_getter(config, path)
        if (not plan.defaulted or instance_dict.keys() >= plan.defaulted) and not (
            plan.transformers
            and (
                "attribute_map" in instance_dict
                or instance_dict.get("_heterogeneity_spec") is not None
            )
        ):
            return instance_dict.get
    elif plan is _MAPPING:
        return _mapping_getter(cast("Mapping[object, object]", config), path)
    elif plan is _NOT_A_CONFIG_PLAN:
        where = f"`{path}`" if path else "The draft model's config"
        raise ParallelDraftingConfigError(
            f"{where} must be {_EXPECTED}; got {describe_value(config)}.", field=path or None
        )
    elif plan is _PATH:
        raise ParallelDraftingConfigError(
            f"Got a path ({os.fspath(cast('os.PathLike[str]', config))!r}) where a config "
            "object was expected; use ParallelDraftingConfig.from_pretrained(path) to read "
            "a config.json file.",
            field=path or None,
        )
    return _attribute_getter(config, path)


class _Plan(enum.Enum):
    MAPPING = enum.auto()
    NOT_A_CONFIG = enum.auto()
    PATH = enum.auto()
    ATTRIBUTES = enum.auto()
    """Read with getattr, always."""


# Enum member access is a descriptor call on Python 3.11+; bind them once.
_MAPPING: Final = _Plan.MAPPING
_NOT_A_CONFIG_PLAN: Final = _Plan.NOT_A_CONFIG
_PATH: Final = _Plan.PATH
_ATTRIBUTES: Final = _Plan.ATTRIBUTES


class _InstanceDictPlan:
    """Reading the instance ``__dict__`` equals ``getattr`` for a class, given per-call checks."""

    __slots__ = ("defaulted", "transformers")

    def __init__(self, defaulted: frozenset[str], transformers: bool) -> None:
        self.defaulted = defaulted
        """Fields with a plain class-level default: equivalent only while the instance has them."""
        self.transformers = transformers
        """The class reads through PreTrainedConfig.__getattribute__, which also honours an
        ``attribute_map`` set on the instance and guards heterogeneous configs: either makes
        the instance dict unusable."""


_PLANS: Final[dict[type, _Plan | _InstanceDictPlan]] = {}
"""One plan per class, computed on first sight (classes are not expected to change later)."""


def _plan_for(cls: type) -> _Plan | _InstanceDictPlan:
    if issubclass(cls, Mapping):
        return _MAPPING
    if issubclass(cls, _NOT_A_CONFIG):
        return _NOT_A_CONFIG_PLAN
    if issubclass(cls, os.PathLike):
        return _PATH
    return _instance_dict_plan(cls) or _ATTRIBUTES


def _instance_dict_plan(cls: type) -> _InstanceDictPlan | None:
    """When may instances of ``cls`` be read through their ``__dict__`` instead of ``getattr``?

    When attribute lookup is the default one (``object.__getattribute__``, or
    transformers' ``PreTrainedConfig.__getattribute__``, which only adds
    ``attribute_map`` aliases and a guard for heterogeneous configs), there is
    no ``__getattr__``, no field is aliased, and no field is a descriptor on
    the class.  Fields with a plain class default are noted: an instance that
    lacks them is read with ``getattr`` instead.
    """
    getattribute: object = cls.__getattribute__
    is_transformers = getattribute is _pretrained_config_getattribute()
    if getattribute is not object.__getattribute__ and not is_transformers:
        return None
    if hasattr(cls, "__getattr__"):
        return None
    if is_transformers:
        aliases = getattr(cls, "attribute_map", None)
        if not isinstance(aliases, dict) or not FIELD_NAMES.isdisjoint(aliases):
            return None
    defaulted = set()
    for name in FIELD_NAMES:
        for klass in cls.__mro__:
            if name in klass.__dict__:
                if hasattr(type(klass.__dict__[name]), "__get__"):
                    return None  # a property or other descriptor: only getattr is exact
                defaulted.add(name)
                break
    return _InstanceDictPlan(frozenset(defaulted), is_transformers)


def _pretrained_config_getattribute() -> object:
    """``PreTrainedConfig.__getattribute__`` if transformers is loaded (never imported here)."""
    module = sys.modules.get("transformers.configuration_utils")
    base = getattr(module, "PreTrainedConfig", None)
    return getattr(base, "__getattribute__", None)


def _mapping_getter(config: Mapping[object, object], path: str) -> FieldGetter:
    get = config.get

    def read(name: str, default: object) -> object:
        try:
            return get(name, default)
        except Exception as error:
            raise _unreadable(path, name, error) from None

    return read


def _attribute_getter(config: object, path: str) -> FieldGetter:
    def read(name: str, default: object) -> object:
        try:
            return getattr(config, name, default)
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
