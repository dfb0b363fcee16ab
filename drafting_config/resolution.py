"""Resolving the parallel-drafting token id from a draft model's HF config.

:func:`resolve` applies the priority order of
:data:`~drafting_config.sources.PRIORITY_ORDER`, validates every field that is
set, and collects (without emitting) the warnings a suspicious config deserves.
It is the one implementation behind :class:`~drafting_config.ParallelDraftingConfig`,
:func:`~drafting_config.get_parallel_drafting_token_id` and the command line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from drafting_config.errors import (
    ConflictingTokenIdWarning,
    ParallelDraftingConfigError,
    ParallelDraftingConfigWarning,
    PlaceholderTokenIdWarning,
    describe_value,
)
from drafting_config.reading import MISSING, FieldReader, Missing, field_reader
from drafting_config.sources import PRIORITY_ORDER, TokenIdSource

__all__ = [
    "INT32_LIMIT",
    "PLACEHOLDER_FIELDS",
    "Resolution",
    "check_token_id",
    "missing_token_id_message",
    "read_token_id_fields",
    "resolve",
]

INT32_LIMIT: Final = 2**31
"""Engines feed token ids to the model as int32: every id must be below this."""

PLACEHOLDER_FIELDS: Final = ("pad_token_id", "bos_token_id", "eos_token_id")
"""Special-token fields that a parallel-drafting token must not coincide with."""

_TEXT_CONFIG: Final = "text_config"


@dataclass(frozen=True)
class Resolution:
    """The outcome of :func:`resolve`: validated fields plus the warnings to emit."""

    token_id: int
    source: TokenIdSource
    shadowed: tuple[tuple[TokenIdSource, int], ...]
    """Lower-priority fields that were also set, with their values, in priority order."""
    hidden_size: int | None
    vocab_size: int | None
    warnings: tuple[ParallelDraftingConfigWarning, ...]


def missing_token_id_message() -> str:
    """The error text for a config that sets none of the token-id fields."""
    *first, last = (f"`{source.value}`" for source in PRIORITY_ORDER)
    return (
        "The draft model's config names no parallel drafting token id: set one of "
        f"{', '.join(first)}, or {last} (checked in that order; a field set to null "
        "counts as unset)."
    )


def resolve(hf_config: object) -> Resolution:
    """Find, validate and explain the parallel-drafting token id of ``hf_config``.

    Raises:
        ParallelDraftingConfigError: for every kind of bad input; no other
            exception escapes.
    """
    read = field_reader(hf_config, path="")
    raw_values = read_token_id_fields(read)
    model = _ModelFields(read)
    vocab_size = model.positive_int("vocab_size")
    hidden_size = model.positive_int("hidden_size")

    found = [
        (source, check_token_id(source, value, vocab_size))
        for source, value in raw_values
        if value is not None and value is not MISSING
    ]
    if not found:
        raise ParallelDraftingConfigError(missing_token_id_message())

    (source, token_id), *shadowed = found
    warnings: list[ParallelDraftingConfigWarning] = [
        _conflict(hf_config, source, token_id, other, value)
        for other, value in shadowed
        if value != token_id
    ]
    warnings.extend(model.placeholder_warnings(source, token_id))
    return Resolution(
        token_id=token_id,
        source=source,
        shadowed=tuple(shadowed),
        hidden_size=hidden_size,
        vocab_size=vocab_size,
        warnings=tuple(warnings),
    )


def read_token_id_fields(read: FieldReader) -> list[tuple[TokenIdSource, object]]:
    """The raw value of each token-id field, in priority order (:data:`MISSING` if absent).

    Raises:
        ParallelDraftingConfigError: a section such as ``dflash_config`` is set
            to something that cannot hold fields.
    """
    sections: dict[str, FieldReader | None] = {}
    values: list[tuple[TokenIdSource, object]] = []
    for source in PRIORITY_ORDER:
        section = source.section
        if section is None:
            values.append((source, read(source.key)))
            continue
        if section not in sections:
            raw = read(section)
            sections[section] = (
                None if raw is None or raw is MISSING else field_reader(raw, path=section)
            )
        section_read = sections[section]
        values.append((source, MISSING if section_read is None else section_read(source.key)))
    return values


def check_token_id(source: TokenIdSource, value: object, vocab_size: int | None) -> int:
    """``value`` as a token id read from ``source``.

    Raises:
        ParallelDraftingConfigError: it is not an int (bools, strings and floats
            included) in ``[0, vocab_size)``, or ``[0, 2**31)`` if unknown.
    """
    if isinstance(value, bool) or not isinstance(value, int):
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


def _class_default(config_class: type, name: str) -> object:
    try:
        return getattr(config_class, name, MISSING)
    except Exception:  # a metaclass property that raises: no usable default
        return MISSING


class _ModelFields:
    """Reads model facts (sizes, special tokens) from the top level, else from ``text_config``."""

    def __init__(self, read: FieldReader) -> None:
        self._read = read
        self._text_read: FieldReader | Missing | None = MISSING  # not looked up yet

    def get(self, name: str) -> tuple[str, object]:
        """``(field path, value)``; the value is ``None`` when neither level sets it."""
        value = self._read(name)
        if value is not None and value is not MISSING:
            return name, value
        text_read = self._text_config()
        if text_read is None:
            return name, None
        value = text_read(name)
        return f"{_TEXT_CONFIG}.{name}", None if value is MISSING else value

    def positive_int(self, name: str) -> int | None:
        """The field as an int in ``[1, 2**31)``, ``None`` if unset.

        Raises:
            ParallelDraftingConfigError: it is set to anything else.
        """
        field, value = self.get(name)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < INT32_LIMIT:
            raise ParallelDraftingConfigError(
                f"`{field}` must be a positive int below 2**31, got {describe_value(value)}.",
                field=field,
            )
        return int(value)

    def placeholder_warnings(
        self, source: TokenIdSource, token_id: int
    ) -> list[PlaceholderTokenIdWarning]:
        """A warning for each special-token field whose id equals ``token_id``."""
        warnings = []
        for name in PLACEHOLDER_FIELDS:
            field, value = self.get(name)
            ids = value if isinstance(value, (list, tuple)) else (value,)
            if any(isinstance(i, int) and not isinstance(i, bool) and i == token_id for i in ids):
                warnings.append(
                    PlaceholderTokenIdWarning(
                        f"The parallel drafting token id {token_id} (from `{source.value}`) "
                        f"equals the config's `{field}` ({describe_value(value)}): a placeholder "
                        "copied from a special token makes every masked slot look like that "
                        "token and ruins acceptance rates. Use a dedicated mask token id."
                    )
                )
        return warnings

    def _text_config(self) -> FieldReader | None:
        if self._text_read is MISSING:
            raw = self._read(_TEXT_CONFIG)
            self._text_read = (
                None if raw is None or raw is MISSING else field_reader(raw, path=_TEXT_CONFIG)
            )
        return self._text_read
