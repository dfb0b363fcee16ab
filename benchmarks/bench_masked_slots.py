"""masked slots: the pure-torch EAGLE layout against a per-request reference and a memory copy.

Single thread (``torch.set_num_threads(1)``), CPU, the dtypes vLLM uses (int32
ids and indices, int64 positions), K = 4 speculative tokens, shifted ids.
Three targets, each measured against its baseline in the same run:

* 1,024 decode-like requests (2 to 5 rows each): at least 10x faster than the
  per-request Python reference (``tests/masked_slots_reference.py``, on lists
  prepared in advance) building all the outputs;
* 4,096 requests of about 136k rows: within 30x of cloning a byte tensor as
  large as the inputs read plus the outputs written (the memory-bandwidth floor);
* 64 -> 1,024 decode-like requests: at most 4x the time.

    python -m benchmarks.bench_masked_slots
"""

from __future__ import annotations

import random
from dataclasses import dataclass, fields
from functools import partial

import torch

from benchmarks.timing import per_call_rounds, report
from drafting_config.runtime.masked_slots import (
    DFlashInputs,
    EagleInputs,
    expand_dflash_inputs,
    expand_eagle_inputs,
    expand_hidden_states,
)
from tests.masked_slots_reference import EagleReference, eagle_reference

K = 4
TOKEN_ID = 151669


@dataclass(frozen=True)
class Batch:
    """One decoding step's target inputs, as tensors and as lists for the reference."""

    lengths: list[int]
    token_ids: list[int]
    positions: list[int]
    next_token_ids: list[int]
    query_start_loc: list[int]
    num_rejected_tokens: list[int]

    def tensors(self) -> tuple[torch.Tensor, ...]:
        """The tensors in ``expand_eagle_inputs``'s argument order, with vLLM's dtypes."""
        return (
            torch.tensor(self.token_ids, dtype=torch.int32),
            torch.tensor(self.positions, dtype=torch.int64),
            torch.tensor(self.next_token_ids, dtype=torch.int32),
            torch.tensor(self.query_start_loc, dtype=torch.int32),
            torch.tensor(self.num_rejected_tokens, dtype=torch.int32),
        )


def make_batch(num_requests: int, min_rows: int, max_rows: int, seed: int) -> Batch:
    """Requests of ``min_rows..max_rows`` rows at consecutive positions after a random
    context length, with 0 to ``min(rows - 1, K)`` rejected rows each."""
    rng = random.Random(seed)
    lengths = [rng.randint(min_rows, max_rows) for _ in range(num_requests)]
    starts = [0]
    positions: list[int] = []
    for length in lengths:
        starts.append(starts[-1] + length)
        first = rng.randrange(8192)
        positions.extend(range(first, first + length))
    return Batch(
        lengths=lengths,
        token_ids=[rng.randrange(151936) for _ in positions],
        positions=positions,
        next_token_ids=[rng.randrange(151936) for _ in lengths],
        query_start_loc=starts,
        num_rejected_tokens=[rng.randint(0, min(length - 1, K)) for length in lengths],
    )


def layout(tensors: tuple[torch.Tensor, ...]) -> EagleInputs:
    return expand_eagle_inputs(
        *tensors,
        parallel_drafting_token_id=TOKEN_ID,
        num_speculative_tokens=K,
        shift_input_ids=True,
    )


def reference(batch: Batch) -> EagleReference:
    return eagle_reference(
        batch.token_ids,
        batch.positions,
        batch.next_token_ids,
        batch.query_start_loc,
        batch.num_rejected_tokens,
        parallel_drafting_token_id=TOKEN_ID,
        num_speculative_tokens=K,
        shift_input_ids=True,
    )


def bytes_moved(tensors: tuple[torch.Tensor, ...], result: EagleInputs | DFlashInputs) -> int:
    """The inputs read plus the outputs written (a field that is an input is not counted
    twice)."""
    outputs = [getattr(result, field.name) for field in fields(result)]
    unique = {id(t): t for t in (*tensors, *outputs)}.values()
    return sum(t.numel() * t.element_size() for t in unique)


def main() -> list[bool]:
    torch.set_num_threads(1)
    results = []

    decode = make_batch(1024, 2, 5, seed=1)
    tensors = decode.tensors()
    assert {
        field.name: getattr(layout(tensors), field.name).tolist() for field in fields(EagleInputs)
    } == reference(decode)._asdict()
    small = make_batch(64, 2, 5, seed=3).tensors()
    decode_timed = per_call_rounds(
        [partial(reference, decode), partial(layout, tensors), partial(layout, small)]
    )
    python, vectorized, few = decode_timed.medians()
    ratio = decode_timed.ratio(0, 1)
    results.append(ratio >= 10)
    print(
        report(
            "slots, 1,024 decode requests",
            ratio,
            ">= 10x",
            ratio >= 10,
            f"reference {python * 1e3:.2f} ms, torch {vectorized * 1e6:.0f} us (medians)",
        )
    )

    big = make_batch(4096, 2, 64, seed=2).tensors()
    size = bytes_moved(big, layout(big))
    floor = torch.empty(size, dtype=torch.uint8)
    timed = per_call_rounds([floor.clone, partial(layout, big)])
    copy, expand = timed.medians()
    ratio = timed.ratio(1, 0)
    results.append(ratio <= 30)
    print(
        report(
            f"slots, 4,096 req, {big[0].numel() // 1000}k rows",
            ratio,
            "<= 30x copy",
            ratio <= 30,
            f"copy of {size / 1e6:.2f} MB {copy * 1e6:.0f} us, torch {expand * 1e3:.2f} ms",
        )
    )

    ratio = decode_timed.ratio(1, 2)
    results.append(ratio <= 4)
    print(
        report(
            "slots, 64 -> 1,024 requests",
            ratio,
            "<= 4x",
            ratio <= 4,
            f"64: {few * 1e6:.0f} us, 1,024: {vectorized * 1e6:.0f} us",
        )
    )

    _, positions, next_ids, starts, rejected = big
    dflash = partial(
        expand_dflash_inputs,
        next_ids,
        positions,
        starts,
        parallel_drafting_token_id=TOKEN_ID,
        num_speculative_tokens=K,
        block_table=torch.arange(4096 * 64, dtype=torch.int32).reshape(4096, 64),
        kv_block_size=16,
        num_rejected_tokens=rejected,
    )
    size = bytes_moved((next_ids, positions, starts, rejected), dflash())
    floor = torch.empty(size, dtype=torch.uint8)
    copy, expand = per_call_rounds([floor.clone, dflash]).medians()
    print(
        f"{'for information: DFlash':<28} {expand / copy:8.2f}x  of a {size / 1e6:.2f} MB copy "
        f"({copy * 1e6:.0f} us), torch {expand * 1e3:.2f} ms, same 4,096 requests"
    )

    eagle = layout(tensors)
    hidden = torch.randn(tensors[0].numel(), 2048, dtype=torch.bfloat16)
    filler = torch.randn(2048, dtype=torch.bfloat16)
    out = expand_hidden_states(hidden, eagle, filler)
    timed = per_call_rounds([out.clone, partial(expand_hidden_states, hidden, eagle, filler)])
    copy, expand = timed.medians()
    print(
        f"{'for information: hidden':<28} {expand / copy:8.2f}x  of cloning the output "
        f"({out.nbytes / 1e6:.1f} MB, {copy * 1e3:.2f} ms), torch {expand * 1e3:.2f} ms, "
        "1,024 requests, H = 2048"
    )
    return results


if __name__ == "__main__":
    main()
