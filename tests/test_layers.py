"""The layer-id rule: layer lists and layer counts, against an oracle and hostile values."""

from __future__ import annotations

import pickle
from itertools import pairwise
from typing import Any
from unittest.mock import Mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drafting_config.errors import ParallelDraftingConfigError, describe_value
from drafting_config.layers import check_layer_ids
from tests.foreign import int_enum

FIELD = "dflash_config.target_layer_ids"


def oracle(value: object, offset: int, num_layers: int | None) -> tuple[int, ...] | None:
    """The rule written out plainly for plain values: the target layers, or None if invalid."""
    if type(value) not in (list, tuple):
        return None
    items = list(value)  # type: ignore[call-overload]
    if not items or any(type(item) is not int for item in items):
        return None
    if any(b <= a for a, b in pairwise(items)):
        return None
    layers = tuple(item - offset for item in items)
    upper = float("inf") if num_layers is None else num_layers - 1
    if any(not 0 <= layer <= upper for layer in layers):
        return None
    return layers


class LyingList(list[Any]):
    """A list whose own protocol methods lie: its real contents are what counts."""

    def __iter__(self) -> Any:
        raise RuntimeError("no iteration")

    def __len__(self) -> int:
        return 0

    def __getitem__(self, index: Any) -> Any:
        raise RuntimeError("no indexing")

    def __bool__(self) -> bool:
        return False


class LyingTuple(tuple[Any, ...]):
    def __iter__(self) -> Any:
        raise RuntimeError("no iteration")

    def __len__(self) -> int:
        return 0


# --- check_layer_ids ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "offset", "num_layers", "expected"),
    [
        ([1, 9, 17, 25, 33], 0, 36, (1, 9, 17, 25, 33)),
        ((1, 9, 17, 25, 33), 0, None, (1, 9, 17, 25, 33)),
        ([2, 10, 18, 26, 34], 1, 36, (1, 9, 17, 25, 33)),
        ([0], 0, 1, (0,)),
        ([1, 36], 1, 36, (0, 35)),
        ([35], 0, 36, (35,)),
        ([2, 18, 33], 0, None, (2, 18, 33)),
    ],
)
def test_valid_lists_give_the_target_layers(
    value: object, offset: int, num_layers: int | None, expected: tuple[int, ...]
) -> None:
    assert check_layer_ids(FIELD, value, offset=offset, num_layers=num_layers) == expected


@pytest.mark.parametrize(
    ("value", "offset", "num_layers", "phrase"),
    [
        ([], 0, None, "it is empty"),
        ((), 1, 36, "it is empty"),
        (None, 0, None, "got None: it is not an array"),
        ("1,9,17", 0, None, "got '1,9,17' (str): it is not an array"),
        ({"0": 1}, 0, None, "it is not an array"),
        ({1, 9}, 0, None, "it is not an array"),
        (range(3), 0, None, "it is not an array"),
        (5, 0, None, "it is not an array"),
        ([1, True], 0, None, "item 1 is True (bool)"),
        ([1.0, 2], 0, None, "item 0 is 1.0 (float)"),
        (["1"], 0, None, "item 0 is '1' (str)"),
        ([None], 0, None, "item 0 is None"),
        ([1, 1], 0, None, "item 1 is 1, after 1"),
        ([9, 1], 0, None, "item 1 is 1, after 9"),
        ([-1, 4], 0, None, "item 0 is -1"),
        ([0, 4], 1, None, "item 0 is 0, which taps target layer -1"),
        ([1, 36], 0, 36, "item 1 is 36"),
        ([2, 37], 1, 36, "item 1 is 37, which taps target layer 36"),
        ([0], 0, 0, "item 0 is 0"),
    ],
)
def test_invalid_lists_name_the_field_the_value_and_the_problem(
    value: object, offset: int, num_layers: int | None, phrase: str
) -> None:
    with pytest.raises(ParallelDraftingConfigError) as caught:
        check_layer_ids(FIELD, value, offset=offset, num_layers=num_layers)
    message = str(caught.value)
    assert caught.value.field == FIELD
    assert message.startswith(f"`{FIELD}` must be a non-empty JSON array of unique")
    assert phrase in message
    assert describe_value(value) in message


def test_the_upper_bound_error_gives_the_targets_layer_count_and_its_source() -> None:
    with pytest.raises(ParallelDraftingConfigError) as caught:
        check_layer_ids(
            "aux_hidden_state_layer_ids",
            [2, 10, 37],
            offset=1,
            num_layers=36,
            num_layers_source="the target's num_hidden_layers",
        )
    message = str(caught.value)
    assert "from 1 to 36 (the target has 36 layers: the target's num_hidden_layers = 36)" in message
    assert "item 2 is 37, which taps target layer 36" in message


def test_without_a_source_the_count_alone_is_given() -> None:
    with pytest.raises(
        ParallelDraftingConfigError, match=r"from 0 to 31 \(the target has 32 layers\)"
    ):
        check_layer_ids("target_layer_ids", [1, 32], num_layers=32)


def test_offset_one_explains_that_speculators_ids_are_one_based() -> None:
    with pytest.raises(ParallelDraftingConfigError) as caught:
        check_layer_ids("aux_hidden_state_layer_ids", [0, 10], offset=1)
    assert "each at least 1" in str(caught.value)
    assert "Speculators-format ids are 1-based" in str(caught.value)
    with pytest.raises(ParallelDraftingConfigError) as plain:
        check_layer_ids("target_layer_ids", [-1, 10])
    assert "1-based" not in str(plain.value)


def test_a_lower_bound_failure_without_a_target_does_not_invent_one() -> None:
    with pytest.raises(ParallelDraftingConfigError) as caught:
        check_layer_ids("target_layer_ids", [-3])
    assert "the target has" not in str(caught.value)


@given(
    value=st.one_of(
        st.lists(st.integers(min_value=-3, max_value=70), max_size=8),
        st.lists(st.integers(min_value=-3, max_value=70), max_size=8).map(tuple),
        st.lists(st.one_of(st.integers(0, 40), st.booleans(), st.floats(0, 40)), max_size=5),
    ),
    offset=st.sampled_from([0, 1]),
    num_layers=st.one_of(st.none(), st.integers(min_value=0, max_value=64)),
)
def test_random_lists_agree_with_the_oracle(
    value: object, offset: int, num_layers: int | None
) -> None:
    expected = oracle(value, offset, num_layers)
    if expected is None:
        with pytest.raises(ParallelDraftingConfigError) as caught:
            check_layer_ids(FIELD, value, offset=offset, num_layers=num_layers)
        assert caught.value.field == FIELD
    else:
        assert check_layer_ids(FIELD, value, offset=offset, num_layers=num_layers) == expected


@given(
    plain=st.lists(st.integers(min_value=0, max_value=70), min_size=1, max_size=8),
    hostile=st.lists(st.booleans(), min_size=8, max_size=8),
    as_tuple=st.booleans(),
)
def test_hostile_ints_count_as_their_real_value(
    plain: list[int], hostile: list[bool], as_tuple: bool
) -> None:
    items: list[int] = [int_enum(v) if lie else v for v, lie in zip(plain, hostile, strict=False)]
    value: object = tuple(items) if as_tuple else items
    expected = oracle(plain, 0, 36)
    if expected is None:
        with pytest.raises(ParallelDraftingConfigError):
            check_layer_ids(FIELD, value, num_layers=36)
    else:
        layers = check_layer_ids(FIELD, value, num_layers=36)
        assert layers == expected
        assert all(type(layer) is int for layer in layers)


def test_huge_ints_give_a_bounded_message() -> None:
    with pytest.raises(ParallelDraftingConfigError) as caught:
        check_layer_ids(FIELD, [10**5000, 3])
    assert "<int of 16610 bits>" in str(caught.value)
    assert len(str(caught.value)) < 500
    with pytest.raises(ParallelDraftingConfigError, match="item 0 is <int of"):
        check_layer_ids(FIELD, [int_enum(10**5000)], num_layers=36)


def test_an_object_pretending_to_be_an_int_is_refused() -> None:
    fake = Mock(spec=int)
    assert isinstance(fake, int)  # the lie this test is about
    with pytest.raises(ParallelDraftingConfigError, match="item 0 is"):
        check_layer_ids(FIELD, [fake])


def test_list_and_tuple_subclasses_are_read_by_their_real_contents() -> None:
    assert check_layer_ids(FIELD, LyingList([1, 9]), num_layers=36) == (1, 9)
    assert check_layer_ids(FIELD, LyingTuple((2, 10)), offset=1) == (1, 9)
    with pytest.raises(ParallelDraftingConfigError, match="it is empty"):
        check_layer_ids(FIELD, LyingList())


def test_the_error_survives_pickling_with_its_field() -> None:
    with pytest.raises(ParallelDraftingConfigError) as caught:
        check_layer_ids(FIELD, [3, 1])
    copy = pickle.loads(pickle.dumps(caught.value))
    assert (copy.field, str(copy)) == (FIELD, str(caught.value))
