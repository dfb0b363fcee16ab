"""The integer rule (integers.py): exact ints only, their true value, sizes below 2**31."""

from __future__ import annotations

from unittest.mock import Mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drafting_config.values.errors import ParallelDraftingConfigError, describe_value
from drafting_config.values.integers import INT32_LIMIT, exact_int, positive_int32
from tests.foreign import int_enum


@given(st.integers(min_value=-(2**40), max_value=2**40))
def test_counts_are_positive_int32s(value: int) -> None:
    if 1 <= value <= INT32_LIMIT - 1:
        assert positive_int32("num_target_layers", value) == value
    else:
        with pytest.raises(ParallelDraftingConfigError) as caught:
            positive_int32("num_target_layers", value)
        assert caught.value.field == "num_target_layers"
        assert describe_value(value) in str(caught.value)


@pytest.mark.parametrize(
    "value",
    [True, False, 36.0, "36", None, [36], Mock(spec=int), 0, -36, 2**31, 10**5000],
    ids=describe_value,
)
def test_counts_refuse_everything_else(value: object) -> None:
    with pytest.raises(
        ParallelDraftingConfigError, match=r"^`num_target_layers` must be a positive"
    ):
        positive_int32("num_target_layers", value)


def test_a_hostile_int_count_counts_as_its_real_value() -> None:
    count = positive_int32("num_target_layers", int_enum(36))
    assert count == 36
    assert type(count) is int


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (5, 5),
        (-5, -5),
        (int_enum(36), 36),
        (True, None),
        (False, None),
        (5.0, None),
        ("5", None),
        (None, None),
        (Mock(spec=int), None),
    ],
    ids=lambda value: f"{type(value).__name__}",
)
def test_exact_int_is_the_projects_int_rule(value: object, expected: int | None) -> None:
    result = exact_int(value)
    assert result == expected
    assert result is None or type(result) is int
