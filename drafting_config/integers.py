"""The one rule for integers read from a config: what counts as an int, and sizes.

A config value counts as an integer only if its type is ``int`` or a subclass of
it other than ``bool``.  Nothing is coerced (``"7"``, ``7.0`` and ``True`` are not
7, 7 and 1), and no foreign method is ever called: an ``int`` subclass counts as
its own integer value, read with ``int.__int__``, so a lying or raising
``__int__``, ``__index__``, ``__eq__`` or ``__gt__`` changes nothing.  Anything
whose type is not an ``int`` subclass is refused however it disguises itself
(``unittest.mock.Mock(spec=int)``, a ``__class__`` property that lies).
"""

from __future__ import annotations

from typing import Final, TypeVar

from drafting_config.errors import ParallelDraftingConfigError, describe_value

_Error = TypeVar("_Error", bound=ValueError)

__all__ = ["INT32_LIMIT", "exact_bool", "exact_int", "positive_int32"]

INT32_LIMIT: Final = 2**31
"""Engines feed token ids and sizes to kernels as int32: every value must be below this."""


def exact_int(value: object) -> int | None:
    """``value`` as a plain ``int`` if its type is ``int`` or a subclass other than ``bool``.

    Returns ``None`` for everything else.  Never calls a method of ``value``'s own class.
    """
    kind = type(value)  # never value.__class__, which may lie
    if kind is int:
        return value  # type: ignore[return-value]  # type() narrowing is not understood
    if issubclass(kind, int) and not issubclass(kind, bool):
        return int.__int__(value)  # type: ignore[arg-type]  # the true value, not its __int__
    return None


def positive_int32(field: str, value: object) -> int:
    """``value`` as a size: an int (see :func:`exact_int`) in ``[1, 2**31)``.

    Raises:
        ParallelDraftingConfigError: naming ``field`` and showing the value.
    """
    number = exact_int(value)
    if number is None or not 0 < number < INT32_LIMIT:
        raise ParallelDraftingConfigError(
            f"`{field}` must be a positive int below 2**31, got {describe_value(value)}.",
            field=field,
        )
    return number


def exact_bool(
    what: str, value: object, error: type[ValueError] = ParallelDraftingConfigError
) -> bool:
    """``value`` if it is ``True`` or ``False``; nothing else counts (not ``"false"``, not 0).

    Args:
        what: how the flag is named in the message (```check_tokenizer```).
        value: what the caller passed, typed or not.
        error: the type raised; vLLM's drop-ins and the tensor helpers raise ``ValueError``.

    Raises:
        ValueError: ``error``, saying what was expected and what was got.
    """
    if type(value) is not bool:
        raise error(f"{what} must be True or False, got {describe_value(value)}.")
    return value
