"""The verdict on each token-id field of a draft's config, and the rules of a valid token id.

:func:`token_id_error` is the one rule of a token id (an int in ``[0, vocab_size)``, nothing
coerced); :class:`FieldVerdict` what one field of the priority table contributed; the
placeholder helpers compare a token id with a config's special-token fields.  Names no
engine.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from drafting_config.values import codes
from drafting_config.values.edits import ConfigEdit, quoted_integer
from drafting_config.values.errors import (
    ParallelDraftingConfigError,
    ParallelDraftingConfigWarning,
    PlaceholderTokenIdWarning,
    bounded_repr,
    describe_value,
)
from drafting_config.values.fields import is_list
from drafting_config.values.integers import INT32_LIMIT, exact_int, int_fix
from drafting_config.values.sources import (
    PLACEHOLDER_FIELDS,
    PRIORITY_ORDER,
    TokenIdField,
    describe_order,
)


class FieldStatus(str, enum.Enum):
    """What one token-id field contributed to a resolution."""

    WINNER = "winner"
    """The first set field, and valid: its value is the token id."""
    SHADOWED = "shadowed"
    """Set and valid, but a higher-priority field won."""
    VALID = "valid"
    """Set and valid, but unused because a higher-priority field is invalid."""
    ABSENT = "absent"
    """Not in the config."""
    NULL = "null"
    """Set to null (``None``), which counts as absent."""
    INVALID = "invalid"
    """Set, but not a usable token id (or unreadable); :attr:`FieldVerdict.error` says why."""


@dataclass(frozen=True, init=False)
class FieldVerdict:
    """The verdict on one token-id field of a config."""

    source: TokenIdField
    """The field."""
    status: FieldStatus
    """What it contributed."""
    value: object
    """The raw value read from the config (:data:`~drafting_config.values.fields.MISSING`
    if absent)."""
    token_id: int | None = None
    """The value as a token id, for a winner, shadowed or valid field."""
    error: ParallelDraftingConfigError | None = None
    """Why the field is invalid, for an invalid field."""

    def __init__(
        self,
        source: TokenIdField,
        status: FieldStatus,
        value: object,
        token_id: int | None = None,
        error: ParallelDraftingConfigError | None = None,
    ) -> None:
        # The frozen dataclass's own __init__, in one write of the instance's dict rather than
        # an object.__setattr__ call per field: every field set in a draft gets one.  A test
        # holds the signature to the fields (names, order, defaults).
        vars(self).update(source=source, status=status, value=value, token_id=token_id, error=error)


def missing_token_id_message(order: Sequence[TokenIdField] = PRIORITY_ORDER) -> str:
    """The error text for a config that sets none of the token-id fields.

    It says nothing of ``null``: the engines differ there (vLLM reads a present ``null``
    in any field but the top-level ``mask_token_id``, SGLang skips it), and the engine's own
    finding says what it does, so that the headline never contradicts it."""
    return (
        "The draft model's config names no parallel drafting token id: set one of "
        f"{describe_order(order)} (checked in that order)."
    )


def token_id_error(
    field: str, value: object, vocab_size: int | None
) -> ParallelDraftingConfigError | int:
    """``value`` as a token id read from ``field``, or the error saying why it is not one.

    A token id is an int (see :mod:`drafting_config.values.integers`: nothing is coerced)
    in ``[0, vocab_size)``, or in ``[0, 2**31)`` when the vocabulary size is unknown.
    """
    token_id = exact_int(value)
    if token_id is None:
        quoted = quoted_integer(value)  # "151669": the one change of type an edit makes
        return ParallelDraftingConfigError(
            f"`{field}` must be an integer token id, got {describe_value(value)}; "
            f"expected {_expected_range(vocab_size)}.",
            field=field,
            code=codes.TOKEN_NOT_INT,
            fix=_token_fix(field, value),
            edit=ConfigEdit.set(field, quoted) if quoted is not None else None,
        )
    if not 0 <= token_id < (INT32_LIMIT if vocab_size is None else vocab_size):
        shown = describe_value(token_id).removesuffix(" (int)")
        return ParallelDraftingConfigError(
            f"`{field}` = {shown} is out of range: expected {_expected_range(vocab_size)}.",
            field=field,
            code=codes.TOKEN_OUT_OF_RANGE,
            fix=f"set `{field}` to the id of the draft's mask token, "
            + ("in [0, 2**31)" if vocab_size is None else f"below its vocab_size ({vocab_size})"),
        )
    return token_id


def special_token_fields(
    read: Callable[[str], tuple[object, str]],
) -> list[tuple[str, object]]:
    """Each set field of :data:`~drafting_config.values.sources.PLACEHOLDER_FIELDS` with its raw
    value, for a draft's config or a target's.

    Args:
        read: the config's reader of top-level fields, else ``text_config`` ones
            (:func:`~drafting_config.values.fields.top_or_text_config`).
    """
    found: list[tuple[str, object]] = []
    for name in PLACEHOLDER_FIELDS:
        value, field = read(name)
        if value is not None:
            found.append((field, value))
    return found


def names_token_id(value: object, token_id: int) -> bool:
    """Whether a special-token field (an id, or a list of ids such as a list of eos ids)
    holds ``token_id``.  Only ints are compared (see
    :func:`~drafting_config.values.integers.exact_int`)."""
    if type(value) is int:  # most fields: one id, exact_int's first case
        return value == token_id
    if is_list(value):
        return any(exact_int(item) == token_id for item in value)
    return exact_int(value) == token_id


def _token_fix(field: str, value: object) -> str:
    """How to write ``value``, which is not an int, as the token id of ``field``."""
    kind = type(value)
    if issubclass(kind, str):
        return f"write `{field}` as a number, without quotes: strings are not converted"
    if issubclass(kind, float):
        return (
            f"write `{field}` as an integer: floats, even whole ones such as 7.0, are not converted"
        )
    if issubclass(kind, bool):
        return f"set `{field}` to an integer token id: booleans are not token ids"
    return int_fix(value) or f"set `{field}` to the integer id of the draft's mask token"


def _expected_range(vocab_size: int | None) -> str:
    if vocab_size is None:
        return "an int in [0, 2**31), as engines feed token ids as int32"
    return f"an int in [0, {vocab_size}), below the draft's vocab_size"


def placeholder_warning(
    source: str,
    token_id: int,
    field: str,
    *,
    whose: str = "config's",
    text: str | None = None,
) -> PlaceholderTokenIdWarning:
    """The warning for a token id equal to a special-token field of the draft's config (or,
    with ``whose="target's"``, of the target's; with ``whose="tokenizer's"``, ``field`` is the
    tokenizer's role, ``"eos"``, and ``text`` its token's text).  The words are the same
    whether the field holds the id or a list holding it.

    A warning, not an error: a draft trained with that id as its mask runs as trained; one
    that was not fills its masked slots with a token the model gives a meaning, which may
    lower acceptance (published convention: trainers that fell back to the pad token as the
    mask degraded acceptance).  :func:`one_placeholder_warning` says the warnings of one id
    from several sources as one."""
    role = field.rpartition(".")[2].removesuffix("_token_id").removesuffix("_token")
    owner = whose.removesuffix("'s")
    if "." in field:  # a nested field: say which
        owner += f" `{field}`"
    if text is not None:
        owner += f" {bounded_repr(text)}"
    return _placeholder(source, token_id, ((role, owner),))


def _placeholder(
    source: str, token_id: int, seen: Sequence[tuple[str, str]]
) -> PlaceholderTokenIdWarning:
    roles = _and(dict.fromkeys(role for role, _ in seen))
    whose = ", ".join(dict.fromkeys(owner for _, owner in seen))
    warning = PlaceholderTokenIdWarning(
        f"`{source}` = {token_id} is also {'an' if roles[0] in 'aeiou' else 'a'} {roles} token id "
        f"({whose}): the masked slots may read as that token.",
        field=source,
        code=codes.TOKEN_PLACEHOLDER,
        fix=f"set `{source}` to a dedicated mask token id, not a special token's",
    )
    warning.token_id = token_id
    warning.seen = tuple(seen)
    return warning


def _and(words: Iterable[str]) -> str:
    items = list(words)
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def one_placeholder_warning(
    warnings: Iterable[ParallelDraftingConfigWarning],
) -> list[ParallelDraftingConfigWarning]:
    """``warnings`` with the placeholder warnings of each token field said once, where the
    first of them was, naming every source that holds the id (the config, the target, the
    tokenizer): one finding for one fact."""
    merged: list[ParallelDraftingConfigWarning] = []
    seen: dict[tuple[str, int], tuple[int, tuple[tuple[str, str], ...]]] = {}
    for warning in warnings:
        field, token_id = warning.field, getattr(warning, "token_id", None)
        if not isinstance(warning, PlaceholderTokenIdWarning) or field is None or token_id is None:
            merged.append(warning)
            continue
        at, before = seen.get((field, token_id), (len(merged), ()))
        both = tuple(dict.fromkeys((*before, *warning.seen)))
        seen[field, token_id] = (at, both)
        if at == len(merged):
            merged.append(warning)
        else:
            merged[at] = _placeholder(field, token_id, both)
    return merged


_WINNER: Final = FieldStatus.WINNER
_SHADOWED: Final = FieldStatus.SHADOWED
"""Members read as module globals: Python 3.11 reads an enum member as a class attribute
about ten times slower, and these are read several times per draft."""


def winner_of(fields: Sequence[FieldVerdict]) -> FieldVerdict | None:
    """The winning field of a config's verdicts, if the first set field is valid."""
    for verdict in fields:  # a loop, not next() over a generator: read per draft
        if verdict.status is _WINNER:
            return verdict
    return None


def shadowed_of(fields: Sequence[FieldVerdict]) -> tuple[FieldVerdict, ...]:
    """The fields that were set, valid, and lost to the winner, in priority order."""
    return tuple([f for f in fields if f.status is _SHADOWED])
