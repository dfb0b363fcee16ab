"""Resolving the parallel-drafting token id from a draft model's HF config.

:func:`resolve` applies the priority order of
:data:`~drafting_config.sources.PRIORITY_ORDER`, validates every field that is
set, and collects (without emitting) the warnings a suspicious config deserves.
It is the one implementation behind :class:`~drafting_config.ParallelDraftingConfig`,
:func:`~drafting_config.get_parallel_drafting_token_id` and the command line.

It is written to be cheap: engines call it at load time in place of a bare
``getattr`` chain (see ``benchmarks/``), so the common path does dictionary
reads and few function calls.
"""

from __future__ import annotations

from typing import Final, TypedDict

from drafting_config.errors import (
    ConflictingTokenIdWarning,
    ParallelDraftingConfigError,
    ParallelDraftingConfigWarning,
    PlaceholderTokenIdWarning,
    describe_value,
)
from drafting_config.reading import MISSING, FieldGetter, field_getter
from drafting_config.sources import (
    PLACEHOLDER_FIELDS,
    PRIORITY_ORDER,
    TEXT_CONFIG,
    TokenIdSource,
)

__all__ = [
    "INT32_LIMIT",
    "Resolution",
    "ResolvedFields",
    "check_token_id",
    "missing_token_id_message",
    "read_token_id_fields",
    "resolve",
]

INT32_LIMIT: Final = 2**31
"""Engines feed token ids to the model as int32: every id must be below this."""

# The priority table unpacked once: (source, section or None, key).
_LOOKUPS: Final = tuple((source, source.section, source.key) for source in PRIORITY_ORDER)


class ResolvedFields(TypedDict):
    """The validated fields, keyed like :class:`~drafting_config.ParallelDraftingConfig`'s."""

    token_id: int
    source: TokenIdSource
    shadowed: tuple[tuple[TokenIdSource, int], ...]
    """Lower-priority fields that were also set, with their values, in priority order."""
    hidden_size: int | None
    vocab_size: int | None


Resolution = tuple[ResolvedFields, list[ParallelDraftingConfigWarning]]
"""What :func:`resolve` returns: the fields, and the warnings to emit (not yet emitted)."""


def missing_token_id_message() -> str:
    """The error text for a config that sets none of the token-id fields."""
    *first, last = (f"`{source.value}`" for source in PRIORITY_ORDER)
    return (
        "The draft model's config names no parallel drafting token id: set one of "
        f"{', '.join(first)}, or {last} (checked in that order; a field set to null "
        "counts as unset)."
    )


def read_token_id_fields(get: FieldGetter) -> list[tuple[TokenIdSource, object]]:
    """The raw value of each token-id field, in priority order (:data:`MISSING` if absent).

    Raises:
        ParallelDraftingConfigError: a section such as ``dflash_config`` is set
            to something that cannot hold fields.
    """
    return [
        (
            source,
            get(key, MISSING) if section is None else _section_value(get, section, key, MISSING),
        )
        for source, section, key in _LOOKUPS
    ]


def resolve(hf_config: object) -> Resolution:
    """Find, validate and explain the parallel-drafting token id of ``hf_config``.

    Raises:
        ParallelDraftingConfigError: for every kind of bad input; no other
            exception escapes.
    """
    get = field_getter(hf_config, "")
    text_config = get(TEXT_CONFIG, None)
    text_get = None if text_config is None else field_getter(text_config, TEXT_CONFIG)
    # Each check is written twice: an inline test for the common valid case,
    # then the full function (text_config fallback, error messages) otherwise.
    vocab_size = get("vocab_size", None)
    if not (type(vocab_size) is int and 0 < vocab_size < INT32_LIMIT):
        vocab_size = _model_size(get, text_get, "vocab_size")
    hidden_size = get("hidden_size", None)
    if not (type(hidden_size) is int and 0 < hidden_size < INT32_LIMIT):
        hidden_size = _model_size(get, text_get, "hidden_size")

    bound = INT32_LIMIT if vocab_size is None else vocab_size
    found: list[tuple[TokenIdSource, int]] = []  # the set fields, in priority order
    for source, section, key in _LOOKUPS:
        if section is None:
            value = get(key, None)
        else:  # _section_value, inlined: this loop is the hot path
            container = get(section, None)
            value = None if container is None else field_getter(container, section)(key, None)
        if value is not None:
            if not (type(value) is int and 0 <= value < bound):
                value = check_token_id(source, value, vocab_size)
            found.append((source, value))
    if not found:
        raise ParallelDraftingConfigError(missing_token_id_message())
    source, token_id = found[0]
    shadowed = tuple(found[1:])

    warnings: list[ParallelDraftingConfigWarning] = (
        [
            _conflict(hf_config, source, token_id, other, value)
            for other, value in shadowed
            if value != token_id
        ]
        if shadowed
        else []
    )
    _add_placeholder_warnings(warnings, get, text_get, source, token_id)
    fields: ResolvedFields = {
        "token_id": token_id,
        "source": source,
        "shadowed": shadowed,
        "hidden_size": hidden_size,
        "vocab_size": vocab_size,
    }
    return fields, warnings


def _add_placeholder_warnings(
    warnings: list[ParallelDraftingConfigWarning],
    get: FieldGetter,
    text_get: FieldGetter | None,
    source: TokenIdSource,
    token_id: int,
) -> None:
    """Warn for each special-token field (top level, else text_config) equal to ``token_id``."""
    for name in PLACEHOLDER_FIELDS:
        value, field = get(name, None), name
        if value is None and text_get is not None:
            value, field = text_get(name, None), f"{TEXT_CONFIG}.{name}"
        if type(value) is int:
            hit = value == token_id
        else:  # None, a list of ids, or junk: no foreign __eq__ is called
            hit = value is not None and _names_id(value, token_id)
        if hit:
            warnings.append(_placeholder(source, token_id, field, value))


def _section_value(get: FieldGetter, section: str, key: str, absent: object) -> object:
    """``key`` inside the nested ``section`` (e.g. ``dflash_config``), or ``absent``."""
    container = get(section, None)
    if container is None:
        return absent
    return field_getter(container, section)(key, absent)


def check_token_id(source: TokenIdSource, value: object, vocab_size: int | None) -> int:
    """``value`` as a token id read from ``source``.

    Raises:
        ParallelDraftingConfigError: it is not an int (bools, strings and floats
            included) in ``[0, vocab_size)``, or ``[0, 2**31)`` if unknown.
    """
    if type(value) is not int and (isinstance(value, bool) or not isinstance(value, int)):
        raise ParallelDraftingConfigError(
            f"`{source.value}` must be an integer token id, got {describe_value(value)}. "
            f"Expected {_expected_range(vocab_size)}.{_type_hint(value)}",
            field=source.value,
        )
    token_id = int(value)  # an int subclass such as IntEnum becomes a plain int
    if not 0 <= token_id < (INT32_LIMIT if vocab_size is None else vocab_size):
        shown = describe_value(token_id).removesuffix(" (int)")
        raise ParallelDraftingConfigError(
            f"`{source.value}` = {shown} is out of range: expected {_expected_range(vocab_size)}.",
            field=source.value,
        )
    return token_id


def _model_size(get: FieldGetter, text_get: FieldGetter | None, name: str) -> int | None:
    """A size field as an int in ``[1, 2**31)``, from the top level else ``text_config``."""
    value = get(name, None)
    field = name
    if value is None and text_get is not None:
        value, field = text_get(name, None), f"{TEXT_CONFIG}.{name}"
    if value is None:
        return None
    if (
        type(value) is not int and (isinstance(value, bool) or not isinstance(value, int))
    ) or not 0 < value < INT32_LIMIT:
        raise ParallelDraftingConfigError(
            f"`{field}` must be a positive int below 2**31, got {describe_value(value)}.",
            field=field,
        )
    return int(value)


def _names_id(value: object, token_id: int) -> bool:
    """Whether a special-token field that is a list of ids holds ``token_id``.

    Only real ints are compared: a foreign object's ``__eq__`` is never called.
    """
    if not isinstance(value, (list, tuple)):
        return False
    return any(type(i) is int and i == token_id for i in value)


def _expected_range(vocab_size: int | None) -> str:
    if vocab_size is None:
        return "an int in [0, 2**31) (engines feed token ids as int32)"
    return f"an int in [0, {vocab_size}) (the draft model's vocab_size is {vocab_size})"


def _type_hint(value: object) -> str:
    if isinstance(value, str):
        return " Strings are not converted: write the number without quotes."
    if isinstance(value, float):
        return " Floats are not converted, not even whole ones such as 7.0."
    if isinstance(value, bool):
        return " Booleans are not token ids."
    return ""


def _conflict(
    hf_config: object, winner: TokenIdSource, token_id: int, other: TokenIdSource, value: int
) -> ConflictingTokenIdWarning:
    message = (
        f"`{winner.value}` = {token_id} and `{other.value}` = {value} disagree; "
        f"`{winner.value}` wins because it has higher priority. "
        f"Remove `{other.value}` or set it to {token_id}."
    )
    # Some transformers model classes give `mask_token_id` a class default, which
    # an object reports like any other value although config.json never set it.
    config_class = type(hf_config)
    if winner.section is None and _class_default(config_class, winner.key) == token_id:
        message += (
            f" Note: {token_id} is also the class default of {config_class.__name__}."
            f"{winner.key}, so it may not come from config.json at all."
        )
    return ConflictingTokenIdWarning(message)


def _placeholder(
    source: TokenIdSource, token_id: int, field: str, value: object
) -> PlaceholderTokenIdWarning:
    return PlaceholderTokenIdWarning(
        f"The parallel drafting token id {token_id} (from `{source.value}`) equals the "
        f"config's `{field}` ({describe_value(value)}): a placeholder copied from a special "
        "token makes every masked slot look like that token and ruins acceptance rates. "
        "Use a dedicated mask token id."
    )


def _class_default(config_class: type, name: str) -> int | None:
    """The class-level int default of ``name``, if the class has one."""
    try:
        default = getattr(config_class, name, None)
    except Exception:  # a metaclass property that raises: no usable default
        return None
    return default if type(default) is int else None
