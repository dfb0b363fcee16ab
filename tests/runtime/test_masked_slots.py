"""The masked-slot layouts: vLLM's pins, a per-request reference, compile, errors."""

from __future__ import annotations

import random
from dataclasses import FrozenInstanceError, fields
from typing import Any
from unittest.mock import Mock

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from drafting_config.runtime.masked_slots import (
    DFlashInputs,
    EagleInputs,
    expand_dflash_inputs,
    expand_eagle_inputs,
    expand_hidden_states,
)
from tests.foreign import int_enum
from tests.masked_slots_reference import (
    DFlashReference,
    EagleReference,
    dflash_reference,
    eagle_reference,
    hidden_states_reference,
)
from tests.typing_checks import MypyResult, expected_errors, snippet

I32, I64 = torch.int32, torch.int64


def as_lists(result: EagleInputs | DFlashInputs) -> dict[str, list[Any]]:
    return {field.name: getattr(result, field.name).tolist() for field in fields(result)}


# --- vLLM's pin, as facts -------------------------------------------------------------------------


def pin_batch(dtype: torch.dtype = I32) -> tuple[torch.Tensor, ...]:
    """vLLM's test batch: request 0 = ids 10..13 at positions 5..8 with its last row
    rejected, request 1 = ids 20..23 at 10..13; bonus tokens 100 and 200."""
    return (
        torch.tensor([10, 11, 12, 13, 20, 21, 22, 23], dtype=dtype),
        torch.tensor([5, 6, 7, 8, 10, 11, 12, 13], dtype=I64),
        torch.tensor([100, 200], dtype=dtype),
        torch.tensor([0, 4, 8], dtype=dtype),
        torch.tensor([1, 0], dtype=dtype),
    )


def test_vllm_pin_with_shifted_ids() -> None:
    result = expand_eagle_inputs(
        *pin_batch(),
        parallel_drafting_token_id=-2,
        num_speculative_tokens=3,
        shift_input_ids=True,
    )
    assert result.input_ids.tolist() == [11, 12, 100, -2, -2, 0, 21, 22, 23, 200, -2, -2]
    assert result.positions.tolist() == [5, 6, 7, 8, 9, 0, 10, 11, 12, 13, 14, 15]
    assert result.is_masked.nonzero().flatten().tolist() == [3, 4, 10, 11]
    assert result.is_rejected.nonzero().flatten().tolist() == [5]
    assert result.token_indices_to_sample.tolist() == [2, 3, 4, 9, 10, 11]
    assert result.query_start_loc.tolist() == [0, 6, 12]
    # From the stated rule out_start[r] + (i - query_start_loc[r]), out_start = [0, 6].
    assert result.hidden_state_mapping.tolist() == [0, 1, 2, 3, 6, 7, 8, 9]


def test_pin_without_shift_follows_the_stated_rules() -> None:
    # Derived by hand from the rules: without the shift each request keeps its valid
    # tokens as they are and grows by K = 3 rows. Request 0: 10, 11, 12 at 5, 6, 7,
    # the bonus 100 at 8, masks at 9 and 10, one padding row at position 0.
    # Request 1: 20..23 at 10..13, bonus 200 at 14, masks at 15 and 16.
    result = expand_eagle_inputs(
        *pin_batch(I64),
        parallel_drafting_token_id=-2,
        num_speculative_tokens=3,
        shift_input_ids=False,
        padding_token_id=7,
    )
    assert as_lists(result) == {
        "input_ids": [10, 11, 12, 100, -2, -2, 7, 20, 21, 22, 23, 200, -2, -2],
        "positions": [5, 6, 7, 8, 9, 10, 0, 10, 11, 12, 13, 14, 15, 16],
        "is_rejected": [False] * 6 + [True] + [False] * 7,
        "is_masked": [False] * 4 + [True, True] + [False] * 6 + [True, True],
        "token_indices_to_sample": [3, 4, 5, 11, 12, 13],
        "hidden_state_mapping": [0, 1, 2, 3, 7, 8, 9, 10],
        "query_start_loc": [0, 7, 14],
    }


@pytest.mark.parametrize(
    ("ids_dtype", "positions_dtype", "index_dtype"),
    [(I32, I64, I32), (I64, I64, I64), (I32, I32, I64), (I64, I32, I32)],
)
def test_outputs_keep_the_input_dtypes(
    ids_dtype: torch.dtype, positions_dtype: torch.dtype, index_dtype: torch.dtype
) -> None:
    ids, positions, next_ids, starts, rejected = pin_batch(ids_dtype)
    result = expand_eagle_inputs(
        ids,
        positions.to(positions_dtype),
        next_ids,
        starts.to(index_dtype),
        rejected.to(I64),
        parallel_drafting_token_id=-2,
        num_speculative_tokens=3,
        shift_input_ids=True,
    )
    assert result.input_ids.dtype == ids_dtype
    assert result.positions.dtype == positions_dtype
    assert result.is_rejected.dtype == result.is_masked.dtype == torch.bool
    for name in ("token_indices_to_sample", "hidden_state_mapping", "query_start_loc"):
        assert getattr(result, name).dtype == index_dtype
    assert result.input_ids.tolist()[:6] == [11, 12, 100, -2, -2, 0]


def test_hidden_states_of_the_pin() -> None:
    layout = expand_eagle_inputs(
        *pin_batch(), parallel_drafting_token_id=-2, num_speculative_tokens=3, shift_input_ids=True
    )
    hidden = torch.arange(1.0, 9.0)[:, None].repeat(1, 2)  # input row i holds i + 1
    filler = torch.tensor([-1.0, -1.0])
    out = expand_hidden_states(hidden, layout, filler)
    # Rows 0..3 take input rows 0..3 (row 3 is masked, so the filler wins); row 5 is a
    # rejected row no input maps to: zero. Rows 6..9 take input rows 4..7.
    assert out[:, 0].tolist() == [1, 2, 3, -1, -1, 0, 5, 6, 7, 8, -1, -1]
    assert out.shape == (12, 2)
    assert out.dtype == hidden.dtype


def test_dflash_example_derived_by_hand() -> None:
    # K = 2, KV pages of 4 tokens, block table rows [3, 8, 2] and [5, 1, 6].
    # Request 0: context positions 5, 6, 7 with 1 rejected, so its last accepted
    # position is 6 and its query [100, -2, -2] sits at 7, 8, 9.
    # Request 1: context 9, 10, nothing rejected: query [200, -2, -2] at 11, 12, 13.
    # Slots, block_table[r, min(p // 4, 2)] * 4 + p % 4:
    #   context 5, 6, 7 -> block 8 -> 33, 34, 35; context 9, 10 -> block 6 -> 25, 26;
    #   query 7 -> 35; 8, 9 -> page 2, block 2 -> 8, 9;
    #   query 11 -> page 2, block 6 -> 27; 12, 13 -> page 3 clamped to column 2 -> 24, 25.
    # The masked rows are sampled: query rows 1, 2 and 4, 5.
    result = expand_dflash_inputs(
        torch.tensor([100, 200], dtype=I32),
        torch.tensor([5, 6, 7, 9, 10]),
        torch.tensor([0, 3, 5], dtype=I32),
        parallel_drafting_token_id=-2,
        num_speculative_tokens=2,
        block_table=torch.tensor([[3, 8, 2], [5, 1, 6]], dtype=I32),
        kv_block_size=4,
        num_rejected_tokens=torch.tensor([1, 0], dtype=I32),
    )
    assert as_lists(result) == {
        "input_ids": [100, -2, -2, 200, -2, -2],
        "query_positions": [7, 8, 9, 11, 12, 13],
        "context_positions": [5, 6, 7, 9, 10],
        "context_slot_mapping": [33, 34, 35, 25, 26],
        "query_slot_mapping": [35, 8, 9, 27, 24, 25],
        "token_indices_to_sample": [1, 2, 4, 5],
    }
    assert result.input_ids.dtype == I32
    assert result.query_positions.dtype == I64
    assert result.context_slot_mapping.dtype == result.query_slot_mapping.dtype == I64
    assert result.token_indices_to_sample.dtype == I32


def test_dflash_without_rejected_counts_uses_each_last_row() -> None:
    result = expand_dflash_inputs(
        torch.tensor([100, 200]),
        torch.tensor([5, 6, 7, 9, 10]),
        torch.tensor([0, 3, 5]),
        parallel_drafting_token_id=-2,
        num_speculative_tokens=1,
        block_table=torch.tensor([[3, 8, 2], [5, 1, 6]]),
        kv_block_size=4,
    )
    assert result.query_positions.tolist() == [8, 9, 11, 12]
    assert result.token_indices_to_sample.tolist() == [1, 3]


# --- the vectorized code against the per-request reference ----------------------------------------


@st.composite
def eagle_batches(draw: st.DrawFn) -> dict[str, Any]:
    """Random batches: lengths 1..hundreds, K 1..16, both shift modes, rejected counts
    0..length-1, int32 and int64 tensors, positions that need not be consecutive.

    Hypothesis draws the structure (and shrinks it); the bulk values come from a seed.
    """
    lengths = draw(st.lists(st.integers(1, 300), max_size=6))
    values = random.Random(draw(st.integers(0, 2**32)))
    rows = sum(lengths)
    return {
        "lengths": lengths,
        "ids": [values.randrange(2**31) for _ in range(rows)],
        "positions": [values.randrange(10**6) for _ in range(rows)],
        "next": [values.randrange(2**31) for _ in lengths],
        "rejected": [draw(st.integers(0, length - 1)) for length in lengths],
        "k": draw(st.integers(1, 16)),
        "shift": draw(st.booleans()),
        "token": draw(st.integers(-(2**31), 2**31 - 1)),
        "pad": draw(st.integers(-(2**31), 2**31 - 1)),
        "dtypes": draw(st.tuples(*[st.sampled_from([I32, I64])] * 4)),
    }


def running_sum(lengths: list[int]) -> list[int]:
    starts = [0]
    for length in lengths:
        starts.append(starts[-1] + length)
    return starts


@given(eagle_batches())
def test_eagle_matches_the_reference(batch: dict[str, Any]) -> None:
    ids_dtype, positions_dtype, starts_dtype, rejected_dtype = batch["dtypes"]
    starts = running_sum(batch["lengths"])
    kwargs = {
        "parallel_drafting_token_id": batch["token"],
        "num_speculative_tokens": batch["k"],
        "shift_input_ids": batch["shift"],
        "padding_token_id": batch["pad"],
    }
    result = expand_eagle_inputs(
        torch.tensor(batch["ids"], dtype=ids_dtype),
        torch.tensor(batch["positions"], dtype=positions_dtype),
        torch.tensor(batch["next"], dtype=ids_dtype),
        torch.tensor(starts, dtype=starts_dtype),
        torch.tensor(batch["rejected"], dtype=rejected_dtype),
        check=batch["token"] >= 0 and batch["pad"] >= 0,  # check=True refuses negative ids
        **kwargs,
    )
    expected = eagle_reference(
        batch["ids"], batch["positions"], batch["next"], starts, batch["rejected"], **kwargs
    )
    assert as_lists(result) == expected._asdict()
    assert [field.name for field in fields(result)] == list(EagleReference._fields)

    hidden = torch.randn(len(batch["ids"]), 3, dtype=torch.float64)
    filler = torch.randn(3, dtype=torch.float64)
    out = expand_hidden_states(hidden, result, filler)
    assert out.tolist() == hidden_states_reference(hidden.tolist(), expected, filler.tolist())


@st.composite
def dflash_batches(draw: st.DrawFn) -> dict[str, Any]:
    """Random batches as for EAGLE, with positions small enough to run past the block
    table (the last column is then used) and rejected counts given or not."""
    lengths = draw(st.lists(st.integers(1, 300), max_size=6))
    values = random.Random(draw(st.integers(0, 2**32)))
    width = draw(st.integers(1, 8))
    return {
        "lengths": lengths,
        "positions": [values.randrange(400) for _ in range(sum(lengths))],
        "next": [values.randrange(2**31) for _ in lengths],
        "rejected": draw(
            st.none() | st.just([draw(st.integers(0, length - 1)) for length in lengths])
        ),
        "table": [[values.randrange(10**6) for _ in range(width)] for _ in lengths],
        "block_size": draw(st.integers(1, 32)),
        "k": draw(st.integers(1, 16)),
        "token": draw(st.integers(-(2**31), 2**31 - 1)),
        "dtypes": draw(st.tuples(*[st.sampled_from([I32, I64])] * 5)),
    }


@given(dflash_batches())
def test_dflash_matches_the_reference(batch: dict[str, Any]) -> None:
    ids_dtype, positions_dtype, starts_dtype, table_dtype, rejected_dtype = batch["dtypes"]
    starts = running_sum(batch["lengths"])
    rejected = batch["rejected"]
    width = len(batch["table"][0]) if batch["table"] else 1  # an empty batch: (0, 1)
    result = expand_dflash_inputs(
        torch.tensor(batch["next"], dtype=ids_dtype),
        torch.tensor(batch["positions"], dtype=positions_dtype),
        torch.tensor(starts, dtype=starts_dtype),
        parallel_drafting_token_id=batch["token"],
        num_speculative_tokens=batch["k"],
        block_table=torch.tensor(batch["table"], dtype=table_dtype).reshape(-1, width),
        kv_block_size=batch["block_size"],
        num_rejected_tokens=None
        if rejected is None
        else torch.tensor(rejected, dtype=rejected_dtype),
        check=batch["token"] >= 0,  # check=True refuses a negative id
    )
    expected = dflash_reference(
        batch["next"],
        batch["positions"],
        starts,
        parallel_drafting_token_id=batch["token"],
        num_speculative_tokens=batch["k"],
        block_table=batch["table"],
        kv_block_size=batch["block_size"],
        num_rejected_tokens=rejected,
    )
    assert as_lists(result) == expected._asdict()
    assert [field.name for field in fields(result)] == list(DFlashReference._fields)


def test_a_strided_block_table_gives_the_same_slots() -> None:
    table = torch.arange(40, dtype=I32).reshape(4, 10)
    kwargs: dict[str, Any] = {
        "parallel_drafting_token_id": 5,
        "num_speculative_tokens": 3,
        "kv_block_size": 2,
    }
    args = (torch.tensor([1, 2]), torch.tensor([0, 1, 2, 7, 30]), torch.tensor([0, 3, 5]))
    strided = expand_dflash_inputs(*args, block_table=table[::2, 1:8:2], **kwargs)
    copied = expand_dflash_inputs(*args, block_table=table[::2, 1:8:2].clone(), **kwargs)
    assert as_lists(strided) == as_lists(copied)
    # The strided table is [[1, 3, 5, 7], [21, 23, 25, 27]]: positions 0, 1, 2 of request 0
    # fall in blocks 1, 1, 3; positions 7 and 30 of request 1 in page 3 and page 15, which
    # is clamped to the last column: block 27 for both.
    assert strided.context_slot_mapping.tolist() == [2, 3, 6, 55, 54]


# --- devices, compile, results --------------------------------------------------------------------


def test_meta_tensors_with_check_are_refused_and_told_to_pass_check_false() -> None:
    meta = torch.device("meta")
    with pytest.raises(ValueError, match="tensors on the meta device have none; pass check=False"):
        expand_eagle_inputs(
            torch.empty(100, dtype=I32, device=meta),
            torch.empty(100, dtype=I64, device=meta),
            torch.empty(7, dtype=I32, device=meta),
            torch.empty(8, dtype=I32, device=meta),
            torch.empty(7, dtype=I32, device=meta),
            parallel_drafting_token_id=2,
            num_speculative_tokens=4,
            shift_input_ids=True,
            check=True,
        )


def test_meta_device_gives_shapes_from_input_shapes_alone() -> None:
    meta = torch.device("meta")
    result = expand_eagle_inputs(
        torch.empty(100, dtype=I32, device=meta),
        torch.empty(100, dtype=I64, device=meta),
        torch.empty(7, dtype=I32, device=meta),
        torch.empty(8, dtype=I32, device=meta),
        torch.empty(7, dtype=I32, device=meta),
        parallel_drafting_token_id=-2,
        num_speculative_tokens=4,
        shift_input_ids=True,
    )
    shapes = {name: (tuple(value.shape), value.dtype) for name, value in as_items(result)}
    assert shapes == {
        "input_ids": ((121,), I32),
        "positions": ((121,), I64),
        "is_rejected": ((121,), torch.bool),
        "is_masked": ((121,), torch.bool),
        "token_indices_to_sample": ((28,), I32),
        "hidden_state_mapping": ((100,), I32),
        "query_start_loc": ((8,), I32),
    }
    assert all(value.device == meta for _, value in as_items(result))
    hidden = expand_hidden_states(
        torch.empty(100, 16, dtype=torch.bfloat16, device=meta),
        result,
        torch.empty(16, dtype=torch.bfloat16, device=meta),
    )
    assert (hidden.shape, hidden.dtype, hidden.device) == ((121, 16), torch.bfloat16, meta)

    dflash = expand_dflash_inputs(
        torch.empty(7, dtype=I32, device=meta),
        torch.empty(100, dtype=I64, device=meta),
        torch.empty(8, dtype=I32, device=meta),
        parallel_drafting_token_id=-2,
        num_speculative_tokens=4,
        block_table=torch.empty(7, 12, dtype=I32, device=meta),
        kv_block_size=16,
        num_rejected_tokens=torch.empty(7, dtype=I32, device=meta),
    )
    assert {name: tuple(value.shape) for name, value in as_items(dflash)} == {
        "input_ids": (35,),
        "query_positions": (35,),
        "context_positions": (100,),
        "context_slot_mapping": (100,),
        "query_slot_mapping": (35,),
        "token_indices_to_sample": (28,),
    }


def as_items(result: EagleInputs | DFlashInputs) -> list[tuple[str, torch.Tensor]]:
    return [(field.name, getattr(result, field.name)) for field in fields(result)]


def test_results_are_frozen() -> None:
    result = expand_eagle_inputs(
        *pin_batch(), parallel_drafting_token_id=-2, num_speculative_tokens=3, shift_input_ids=True
    )
    with pytest.raises(FrozenInstanceError):
        result.input_ids = torch.zeros(1)  # type: ignore[misc]


@pytest.mark.slow
@pytest.mark.parametrize("dynamic", [False, True])
def test_layouts_trace_without_graph_breaks(dynamic: bool) -> None:
    torch._dynamo.reset()

    def step(
        batch: tuple[torch.Tensor, ...], hidden: torch.Tensor, filler: torch.Tensor
    ) -> tuple[EagleInputs, torch.Tensor, DFlashInputs]:
        ids, positions, next_ids, starts, rejected = batch
        table = torch.arange(6, dtype=I32).reshape(2, 3)
        eagle = expand_eagle_inputs(
            ids,
            positions,
            next_ids,
            starts,
            rejected,
            parallel_drafting_token_id=-2,
            num_speculative_tokens=3,
            shift_input_ids=True,
        )
        dflash = expand_dflash_inputs(
            next_ids,
            positions,
            starts,
            parallel_drafting_token_id=-2,
            num_speculative_tokens=3,
            block_table=table,
            kv_block_size=4,
            num_rejected_tokens=rejected,
        )
        return eagle, expand_hidden_states(hidden, eagle, filler), dflash

    compiled = torch.compile(step, fullgraph=True, backend="eager", dynamic=dynamic)
    for batch in (pin_batch(), pin_batch(I64)):
        args = (batch, torch.randn(8, 4), torch.randn(4))
        eager_eagle, eager_hidden, eager_dflash = step(*args)
        eagle, hidden, dflash = compiled(*args)
        assert as_lists(eagle) == as_lists(eager_eagle)
        assert torch.equal(hidden, eager_hidden)
        assert as_lists(dflash) == as_lists(eager_dflash)
        assert eagle.input_ids.tolist() == [11, 12, 100, -2, -2, 0, 21, 22, 23, 200, -2, -2]


# --- errors ---------------------------------------------------------------------------------------

CPU_I32 = "dtype=torch.int32, device=cpu)"


class PosingAsTensor:
    """Not a tensor, whose ``__class__`` claims it is one."""

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        return torch.Tensor


def test_int_subclasses_count_as_their_real_value() -> None:
    lying = expand_eagle_inputs(
        *pin_batch(),
        parallel_drafting_token_id=int_enum(-2),
        num_speculative_tokens=int_enum(3),
        shift_input_ids=True,
        padding_token_id=int_enum(0),
    )
    plain = expand_eagle_inputs(
        *pin_batch(), parallel_drafting_token_id=-2, num_speculative_tokens=3, shift_input_ids=True
    )
    assert as_lists(lying) == as_lists(plain)


def eagle_call(**changes: Any) -> EagleInputs:
    ids, positions, next_ids, starts, rejected = pin_batch()
    kwargs: dict[str, Any] = {
        "target_token_ids": ids,
        "target_positions": positions,
        "next_token_ids": next_ids,
        "query_start_loc": starts,
        "num_rejected_tokens": rejected,
        "parallel_drafting_token_id": -2,
        "num_speculative_tokens": 3,
        "shift_input_ids": True,
        **changes,
    }
    return expand_eagle_inputs(**kwargs)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"num_speculative_tokens": 0},
            "`num_speculative_tokens` must be a positive int below 2**31, got 0 (int).",
        ),
        (
            {"num_speculative_tokens": -3},
            "`num_speculative_tokens` must be a positive int below 2**31, got -3 (int).",
        ),
        (
            {"num_speculative_tokens": True},
            "`num_speculative_tokens` must be a positive int below 2**31, got True (bool).",
        ),
        (
            {"num_speculative_tokens": 3.0},
            "`num_speculative_tokens` must be a positive int below 2**31, got 3.0 (float).",
        ),
        (
            {"num_speculative_tokens": Mock(spec=int)},
            "`num_speculative_tokens` must be a positive int below 2**31, got <",
        ),
        ({"shift_input_ids": 1}, "`shift_input_ids` must be True or False, got 1 (int)."),
        ({"check": "yes"}, "`check` must be True or False, got 'yes' (str)."),
        (
            {"parallel_drafting_token_id": "7"},
            "`parallel_drafting_token_id` must be an int that fits the token ids' dtype "
            "torch.int32 (-2147483648 to 2147483647), got '7' (str).",
        ),
        (
            {"parallel_drafting_token_id": 2**31},
            "`parallel_drafting_token_id` must be an int that fits the token ids' dtype "
            "torch.int32 (-2147483648 to 2147483647), got 2147483648 (int).",
        ),
        ({"padding_token_id": -(2**31) - 1}, "`padding_token_id` must be an int that fits"),
        (
            {"target_token_ids": [10, 11]},
            "`target_token_ids` must be a 1-D int32 or int64 tensor, got [10, 11] (list).",
        ),
        (
            {"target_token_ids": PosingAsTensor()},
            "`target_token_ids` must be a 1-D int32 or int64 tensor, got <",
        ),
        (
            {"target_token_ids": torch.zeros(8)},
            "`target_token_ids` must be a 1-D int32 or int64 tensor, got "
            "tensor(shape=(8,), dtype=torch.float32, device=cpu).",
        ),
        (
            {"target_positions": torch.zeros(2, 4, dtype=I64)},
            "`target_positions` must be a 1-D int32 or int64 tensor, got tensor(shape=(2, 4), ",
        ),
        (
            {"query_start_loc": torch.tensor([0, 4, 8], dtype=torch.int16)},
            "`query_start_loc` must be a 1-D int32 or int64 tensor, got "
            "tensor(shape=(3,), dtype=torch.int16, device=cpu).",
        ),
        (
            {"target_positions": torch.arange(7)},
            "`target_positions` must have 8 entries (one per row of `target_token_ids`), got "
            "tensor(shape=(7,), dtype=torch.int64, device=cpu).",
        ),
        (
            {"next_token_ids": torch.tensor([1], dtype=I32)},
            "`next_token_ids` must have 2 entries (one per request), got "
            f"tensor(shape=(1,), {CPU_I32}.",
        ),
        (
            {"num_rejected_tokens": torch.zeros(3, dtype=I32)},
            "`num_rejected_tokens` must have 2 entries (one per request), got "
            f"tensor(shape=(3,), {CPU_I32}.",
        ),
        (
            {"next_token_ids": torch.tensor([1, 2])},
            "`next_token_ids` must have the dtype of `target_token_ids` (torch.int32), got "
            "tensor(shape=(2,), dtype=torch.int64, device=cpu); cast one of them.",
        ),
        (
            {"query_start_loc": torch.tensor([], dtype=I32)},
            "`query_start_loc` must have B + 1 entries (at least [0]), got "
            f"tensor(shape=(0,), {CPU_I32}.",
        ),
        (
            {
                "query_start_loc": torch.tensor([0] * 10, dtype=I32),
                "next_token_ids": torch.arange(9, dtype=I32),
                "num_rejected_tokens": torch.zeros(9, dtype=I32),
            },
            "`target_token_ids` must have at least one row per request (9), got "
            f"tensor(shape=(8,), {CPU_I32}.",
        ),
        (
            {"target_positions": torch.arange(8, device="meta")},
            "`target_positions` must be on the device of `target_token_ids` (cpu), got "
            "tensor(shape=(8,), dtype=torch.int64, device=meta).",
        ),
    ],
)
def test_bad_eagle_arguments_are_named(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match="must") as error:
        eagle_call(**changes)
    assert str(error.value).startswith(message)


@pytest.mark.parametrize(
    ("starts", "rejected", "message"),
    [
        (
            [1, 4, 8],
            [0, 0],
            "`query_start_loc` must run from 0 to 8 (the number of input rows), got "
            f"tensor(shape=(3,), {CPU_I32} running from 1 to 8.",
        ),
        ([0, 4, 7], [0, 0], "`query_start_loc` must run from 0 to 8 (the number of input rows)"),
        (
            [0, 8, 8],
            [0, 0],
            "`query_start_loc` must increase at every request (each has at least one row), "
            "got query_start_loc[1] = 8 and query_start_loc[2] = 8.",
        ),
        (
            [0, 5, 8],
            [5, 0],
            "`num_rejected_tokens[0]` must be from 0 to 4 (request 0 has 5 rows and keeps at "
            "least one), got 5.",
        ),
        ([0, 5, 8], [0, -1], "`num_rejected_tokens[1]` must be from 0 to 2 (request 1 has 3 rows"),
    ],
)
def test_check_reads_the_values(starts: list[int], rejected: list[int], message: str) -> None:
    with pytest.raises(ValueError, match="must") as error:
        eagle_call(
            query_start_loc=torch.tensor(starts, dtype=I32),
            num_rejected_tokens=torch.tensor(rejected, dtype=I32),
            check=True,
        )
    assert str(error.value).startswith(message)


def test_decreasing_query_start_loc_is_caught_by_check() -> None:
    with pytest.raises(
        ValueError, match=r"got query_start_loc\[1\] = 6 and query_start_loc\[2\] = 2"
    ):
        eagle_call(
            query_start_loc=torch.tensor([0, 6, 2, 8], dtype=I32),
            next_token_ids=torch.tensor([1, 2, 3], dtype=I32),
            num_rejected_tokens=torch.zeros(3, dtype=I32),
            check=True,
        )


def test_hidden_states_without_the_tensor_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="is None") as error:
        expand_hidden_states(torch.zeros(8, 4), eagle_call(), None)
    assert str(error.value).startswith(
        "`parallel_drafting_hidden_state_tensor` is None: no hidden-state tensor was allocated "
        "because hidden states are not passed to the draft model"
    )


@pytest.mark.parametrize(
    ("hidden", "filler", "message"),
    [
        (
            torch.zeros(8),
            torch.zeros(4),
            "`target_hidden_states` must be an (N, H) floating-point tensor, got "
            "tensor(shape=(8,), dtype=torch.float32, device=cpu).",
        ),
        (torch.zeros(8, 4, dtype=I64), torch.zeros(4), "`target_hidden_states` must be an (N, H)"),
        (
            torch.zeros(9, 4),
            torch.zeros(4),
            "`target_hidden_states` must have one row per input row of `eagle_inputs` (8), got "
            "tensor(shape=(9, 4), ",
        ),
        (
            torch.zeros(8, 4),
            torch.zeros(5),
            "`parallel_drafting_hidden_state_tensor` must have shape (4,), dtype torch.float32 "
            "and device cpu, like `target_hidden_states`; got tensor(shape=(5,), ",
        ),
        (
            torch.zeros(8, 4),
            torch.zeros(4, dtype=torch.float16),
            "`parallel_drafting_hidden_state_tensor` must have shape (4,), dtype torch.float32",
        ),
        (
            torch.zeros(8, 4, device="meta"),
            torch.zeros(4, device="meta"),
            "`eagle_inputs` must be on the device of `target_hidden_states` (meta), got ",
        ),
        (
            torch.zeros(8, 4),
            [0.0] * 4,
            "`parallel_drafting_hidden_state_tensor` must be a (4,) tensor, got "
            "[0.0, 0.0, 0.0, 0.0] (list).",
        ),
        (
            "hidden",
            torch.zeros(4),
            "`target_hidden_states` must be an (N, H) floating tensor, got 'hidden' (str).",
        ),
    ],
)
def test_bad_hidden_state_arguments_are_named(hidden: Any, filler: Any, message: str) -> None:
    with pytest.raises(ValueError, match="must") as error:
        expand_hidden_states(hidden, eagle_call(), filler)
    assert str(error.value).startswith(message)


def test_hidden_states_need_an_eagle_layout() -> None:
    with pytest.raises(ValueError, match="must") as error:
        expand_hidden_states(torch.zeros(8, 4), object(), torch.zeros(4))  # type: ignore[arg-type]
    assert str(error.value).startswith(
        "`eagle_inputs` must be the EagleInputs that expand_eagle_inputs(...) returned, got <"
    )


def dflash_call(**changes: Any) -> DFlashInputs:
    kwargs: dict[str, Any] = {
        "next_token_ids": torch.tensor([100, 200]),
        "target_positions": torch.tensor([5, 6, 7, 9, 10]),
        "query_start_loc": torch.tensor([0, 3, 5]),
        "parallel_drafting_token_id": -2,
        "num_speculative_tokens": 2,
        "block_table": torch.tensor([[3, 8, 2], [5, 1, 6]]),
        "kv_block_size": 4,
        **changes,
    }
    return expand_dflash_inputs(**kwargs)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"kv_block_size": 0}, "`kv_block_size` must be a positive int below 2**31, got 0 (int)."),
        (
            {"kv_block_size": 16.0},
            "`kv_block_size` must be a positive int below 2**31, got 16.0 (float).",
        ),
        (
            {"num_speculative_tokens": 0},
            "`num_speculative_tokens` must be a positive int below 2**31, got 0 (int).",
        ),
        (
            {"block_table": torch.tensor([3, 8])},
            "`block_table` must be a (B, width) int32 or int64 tensor with width >= 1, got "
            "tensor(shape=(2,), dtype=torch.int64, device=cpu).",
        ),
        ({"block_table": torch.zeros(2, 0, dtype=I32)}, "`block_table` must be a (B, width) int32"),
        ({"block_table": torch.zeros(2, 3)}, "`block_table` must be a (B, width) int32 or int64"),
        (
            {"block_table": torch.zeros(1, 3, dtype=I32)},
            "`block_table` must have at least one row per request (2), got "
            f"tensor(shape=(1, 3), {CPU_I32}.",
        ),
        (
            {"block_table": [[1]]},
            "`block_table` must be a (B, width) int32 or int64 tensor, got [[1]] (list).",
        ),
        (
            {"num_rejected_tokens": torch.zeros(3, dtype=I32)},
            "`num_rejected_tokens` must have 2 entries (one per request), got tensor(shape=(3,)",
        ),
        (
            {"num_rejected_tokens": torch.zeros(2)},
            "`num_rejected_tokens` must be a 1-D int32 or int64",
        ),
        (
            {"next_token_ids": torch.tensor([1])},
            "`next_token_ids` must have 2 entries (one per request)",
        ),
        (
            {"target_positions": torch.tensor([1])},
            "`target_positions` must have at least one row per request (2), got tensor(shape=(1,)",
        ),
        (
            {"parallel_drafting_token_id": 2**63},
            "`parallel_drafting_token_id` must be an int that fits the token ids' dtype "
            "torch.int64",
        ),
        (
            {"block_table": torch.zeros(2, 3, dtype=I32, device="meta")},
            "`block_table` must be on the device of `next_token_ids` (cpu), got ",
        ),
        (
            {"num_rejected_tokens": torch.zeros(2, dtype=I32, device="meta")},
            "`num_rejected_tokens` must be on the device of `target_positions` (cpu), got ",
        ),
    ],
)
def test_bad_dflash_arguments_are_named(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match="must") as error:
        dflash_call(**changes)
    assert str(error.value).startswith(message)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"target_positions": torch.tensor([5, -6, 7, 9, 10])},
            "`target_positions` must not be negative, got a negative position in tensor(shape=(5,)",
        ),
        (
            {"num_rejected_tokens": torch.tensor([0, 2])},
            "`num_rejected_tokens[1]` must be from 0 to 1",
        ),
        ({"query_start_loc": torch.tensor([0, 3, 4])}, "`query_start_loc` must run from 0 to 5"),
    ],
)
def test_dflash_check_reads_the_values(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match="must") as error:
        dflash_call(check=True, **changes)
    assert str(error.value).startswith(message)


@pytest.mark.parametrize("padding", [1, 6])
def test_dflash_reads_the_first_rows_of_a_padded_block_table(padding: int) -> None:
    # Engines pass block tables padded to max_num_reqs or a CUDA-graph batch size;
    # vLLM's kernel reads them by stride, so only the first B rows count.
    table = torch.tensor([[3, 8, 2], [5, 1, 6]])
    padded = torch.cat((table, torch.full((padding, 3), -1)))
    for check in (False, True):
        assert as_lists(
            dflash_call(block_table=padded, parallel_drafting_token_id=7, check=check)
        ) == as_lists(dflash_call(block_table=table, parallel_drafting_token_id=7))
    assert dflash_call(block_table=padded).context_slot_mapping.tolist() == [33, 34, 35, 25, 26]


def test_negative_ids_are_accepted_plainly_and_refused_with_check() -> None:
    # vLLM's pin uses -2, so a plain call takes it; check=True refuses it, naming it.
    assert dflash_call(parallel_drafting_token_id=-2).input_ids.tolist()[:3] == [100, -2, -2]
    with pytest.raises(ValueError, match="must not be negative") as error:
        dflash_call(parallel_drafting_token_id=-2, check=True)
    assert str(error.value) == (
        "`parallel_drafting_token_id` must not be negative with check=True (it indexes the "
        "draft model's embedding table), got -2."
    )
    eagle_call(parallel_drafting_token_id=-2, padding_token_id=-1)
    for name, value in (("parallel_drafting_token_id", -2), ("padding_token_id", -1)):
        changes = {"parallel_drafting_token_id": 5, "padding_token_id": 0, name: value}
        with pytest.raises(ValueError, match=f"^`{name}` must not be negative with check=True"):
            eagle_call(check=True, **changes)
    eagle_call(parallel_drafting_token_id=5, check=True)


def test_check_refuses_negative_block_ids_in_the_rows_read() -> None:
    table = torch.tensor([[3, 8, 2], [5, -1, 6]])
    assert dflash_call(block_table=table, parallel_drafting_token_id=7).query_slot_mapping.numel()
    with pytest.raises(ValueError, match="negative block ids") as error:
        dflash_call(block_table=table, parallel_drafting_token_id=7, check=True)
    assert str(error.value) == (
        "`block_table` must not hold negative block ids (they give negative KV-cache slots), "
        "got block_table[1, 1] = -1."
    )


@pytest.mark.parametrize("dtype", [I32, I64])
def test_check_refuses_positions_that_would_overflow_their_dtype(dtype: torch.dtype) -> None:
    top = torch.iinfo(dtype).max
    # DFlash: the query of request 1 runs to its last position plus K + 1 = 3.
    fits = torch.tensor([5, 6, 7, top - 4, top - 3], dtype=dtype)
    assert (
        dflash_call(
            target_positions=fits, parallel_drafting_token_id=7, check=True
        ).query_positions.tolist()[-1]
        == top
    )
    with pytest.raises(ValueError, match="must leave room") as error:
        dflash_call(
            target_positions=fits + torch.tensor([0, 0, 0, 1, 1], dtype=dtype),
            parallel_drafting_token_id=7,
            check=True,
        )
    assert str(error.value) == (
        f"`target_positions` must leave room for the drafted rows in {dtype}: request 1 "
        f"would reach position {top + 1}, past {top}."
    )
    # With rejected rows, the query runs from the last accepted row: request 1's last row is
    # rejected, so its row 3 at top - 2 reaches top + 1.
    rejected = torch.tensor([0, 1], dtype=I32)
    with pytest.raises(ValueError, match=f"request 1 would reach position {top + 1}, past"):
        dflash_call(
            target_positions=torch.tensor([5, 6, 7, top - 2, top - 1], dtype=dtype),
            num_rejected_tokens=rejected,
            parallel_drafting_token_id=7,
            check=True,
        )
    # EAGLE (shifted, K = 3): request 1 (4 rows, none rejected) ends at its first
    # position plus 4 - 0 - 1 + 2 = 5.
    positions = pin_batch()[1]
    for first, ok in ((top - 5, True), (top - 4, False)):
        moved = positions.to(dtype).clone()
        moved[4:] = torch.tensor([first + row for row in range(4)], dtype=dtype)
        call = {"target_positions": moved, "parallel_drafting_token_id": 5, "check": True}
        if ok:
            assert eagle_call(**call).positions.max().item() == top
        else:
            with pytest.raises(ValueError, match="request 1 would reach position"):
                eagle_call(**call)


# --- static typing --------------------------------------------------------------------------------

CORRECT_USE = """
import torch
from drafting_config.runtime.masked_slots import (
    DFlashInputs, EagleInputs, expand_dflash_inputs, expand_eagle_inputs, expand_hidden_states,
)

t = torch.zeros(4, dtype=torch.int64)
eagle: EagleInputs = expand_eagle_inputs(
    t, t, t[:2], t[:3], t[:2],
    parallel_drafting_token_id=7, num_speculative_tokens=3, shift_input_ids=True,
)
ids: torch.Tensor = eagle.input_ids
hidden: torch.Tensor = expand_hidden_states(torch.zeros(4, 8), eagle, None)
dflash: DFlashInputs = expand_dflash_inputs(
    t[:2], t, t[:3], parallel_drafting_token_id=7, num_speculative_tokens=3,
    block_table=t.reshape(2, 2), kv_block_size=16,
)
slots: torch.Tensor = dflash.query_slot_mapping
"""
MISUSE = (
    CORRECT_USE
    + """
eagle.input_ids = t  # E: misc
count: int = eagle.positions  # E: assignment
eagle.slot_mapping  # E: attr-defined
expand_eagle_inputs(t, t, t, t, t, num_speculative_tokens=3, shift_input_ids=True)  # E: call-arg
expand_dflash_inputs(t, t, t, 7, 3, block_table=t, kv_block_size=1)  # E: call-arg
expand_hidden_states(t, dflash, t)  # E: arg-type
"""
)


MISUSE_CHECK = snippet("masked_slots_misuse", MISUSE)
CORRECT_USE_CHECK = snippet("masked_slots_correct_use", CORRECT_USE, no_any=True)


@pytest.mark.slow
def test_mypy_types_the_results(mypy_results: dict[str, MypyResult]) -> None:
    errors, report = mypy_results[MISUSE_CHECK]
    assert errors == expected_errors(MISUSE), report


@pytest.mark.slow
def test_results_leak_no_any(mypy_results: dict[str, MypyResult]) -> None:
    errors, report = mypy_results[CORRECT_USE_CHECK]
    assert errors == set(), report


def test_counts_beyond_int32_and_checks_on_meta_are_value_errors() -> None:
    ids, positions, next_ids, starts, rejected = pin_batch()
    with pytest.raises(ValueError, match=r"`num_speculative_tokens` must be a positive int below"):
        expand_eagle_inputs(
            ids,
            positions,
            next_ids,
            starts,
            rejected,
            parallel_drafting_token_id=-2,
            num_speculative_tokens=2**40,
            shift_input_ids=True,
        )
    meta = [t.to("meta") for t in (ids, positions, next_ids, starts, rejected)]
    with pytest.raises(ValueError, match="meta device"):
        expand_eagle_inputs(
            *meta,
            parallel_drafting_token_id=-2,
            num_speculative_tokens=3,
            shift_input_ids=True,
            check=True,
        )
