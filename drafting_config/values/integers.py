"""The one rule for values read from a config or passed as flags: ints, sizes and bools.

A config value counts as an integer only if its type is ``int`` or a subclass of
it other than ``bool``; an ``int`` subclass (an ``IntEnum``) counts as its int
value.  Nothing is coerced: ``"7"``, ``7.0`` and ``True`` are not 7, 7 and 1.
The type is tested with ``type()``, so ``unittest.mock.Mock(spec=int)``, which
claims to be an int, is refused, and so are numpy integers, which are not
``int`` subclasses (the message says to convert them with ``int(x)``).
"""

from __future__ import annotations

from typing import Final, cast

from drafting_config.values import codes
from drafting_config.values.errors import ParallelDraftingConfigError, describe_value

INT32_LIMIT: Final = 2**31
"""Engines feed token ids and sizes to kernels as int32: every value must be below this."""


def exact_int(value: object) -> int | None:
    """``value`` as a plain ``int`` if its type is ``int`` or a subclass other than ``bool``.

    Returns ``None`` for everything else.
    """
    kind = type(value)  # not isinstance, which Mock(spec=int) passes
    if kind is int:
        return value  # type: ignore[return-value]  # type() narrowing is not understood
    if issubclass(kind, int) and kind is not bool:
        return int(cast("int", value))  # an IntEnum as its int value
    return None


def int_fix(value: object) -> str | None:
    """For an error about ``value``, which is not an int: how to convert it, if it is a
    numpy integer (``"convert the int64 to a Python int with int(x)"``), else ``None``."""
    kind = type(value)
    if kind.__module__ == "numpy" and hasattr(kind, "__index__"):
        return f"convert the {kind.__name__} to a Python int with int(x)"
    return None


def positive_int32(field: str, value: object) -> int:
    """``value`` as a size: an int (see :func:`exact_int`) in ``[1, 2**31)``.

    Raises:
        ParallelDraftingConfigError: naming ``field`` and showing the value; its ``fix``
            says how to write the size.
    """
    number = exact_int(value)
    if number is None or not 0 < number < INT32_LIMIT:
        fix = (int_fix(value) if number is None else None) or (
            f"write `{field}` as a positive JSON integer below 2**31, without quotes or a "
            "decimal point"
        )
        raise ParallelDraftingConfigError(
            f"`{field}` must be a positive int below 2**31, got {describe_value(value)}.",
            field=field,
            code=codes.INT_FIELD_INVALID,
            fix=fix,
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
