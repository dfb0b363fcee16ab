"""Per-request, pure-Python statements of the masked-slot layouts (tests and benchmarks only).

Each function walks the requests one by one and appends their output rows, in
the words of the layout rules, over plain lists. The tests check the
vectorized torch code in ``drafting_config.runtime.masked_slots`` against these on
random batches; the benchmark times them as the per-request baseline.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple


class EagleReference(NamedTuple):
    """The fields of ``EagleInputs``, as lists."""

    input_ids: list[int]
    positions: list[int]
    is_rejected: list[bool]
    is_masked: list[bool]
    token_indices_to_sample: list[int]
    hidden_state_mapping: list[int]
    query_start_loc: list[int]


class DFlashReference(NamedTuple):
    """The fields of ``DFlashInputs``, as lists."""

    input_ids: list[int]
    query_positions: list[int]
    context_positions: list[int]
    context_slot_mapping: list[int]
    query_slot_mapping: list[int]
    token_indices_to_sample: list[int]


def eagle_reference(
    token_ids: Sequence[int],
    positions: Sequence[int],
    next_token_ids: Sequence[int],
    query_start_loc: Sequence[int],
    num_rejected_tokens: Sequence[int],
    *,
    parallel_drafting_token_id: int,
    num_speculative_tokens: int,
    shift_input_ids: bool,
    padding_token_id: int = 0,
) -> EagleReference:
    """The EAGLE-style layout, one request at a time."""
    out = EagleReference([], [], [], [], [], [], [0])
    for request, next_token in enumerate(next_token_ids):
        start, end = query_start_loc[request], query_start_loc[request + 1]
        valid_end = end - num_rejected_tokens[request]
        # 1. the valid input tokens, shifted left by one for hidden-state drafters;
        # 2. the bonus token; 3. the masked slots; 4. one padding row per rejected row.
        rows = [(token_ids[row], "token") for row in range(start + shift_input_ids, valid_end)]
        rows.append((next_token, "bonus"))
        rows += [(parallel_drafting_token_id, "masked")] * (num_speculative_tokens - 1)
        rows += [(padding_token_id, "rejected")] * (end - valid_end)
        out_start = len(out.input_ids)
        for row_in_request, (token, kind) in enumerate(rows):
            if kind in ("bonus", "masked"):
                out.token_indices_to_sample.append(out_start + row_in_request)
            out.input_ids.append(token)
            out.positions.append(0 if kind == "rejected" else positions[start] + row_in_request)
            out.is_masked.append(kind == "masked")
            out.is_rejected.append(kind == "rejected")
        out.hidden_state_mapping.extend(out_start + row - start for row in range(start, end))
        out.query_start_loc.append(len(out.input_ids))
    return out


def hidden_states_reference(
    hidden_states: Sequence[Sequence[float]],
    layout: EagleReference,
    filler: Sequence[float],
) -> list[list[float]]:
    """Each input row's hidden state at its mapped row, the filler in every masked row,
    zeros elsewhere."""
    out = [[0.0] * len(filler) for _ in layout.input_ids]
    for row, target in enumerate(layout.hidden_state_mapping):
        out[target] = list(hidden_states[row])
    for row, masked in enumerate(layout.is_masked):
        if masked:
            out[row] = list(filler)
    return out


def dflash_reference(
    next_token_ids: Sequence[int],
    positions: Sequence[int],
    query_start_loc: Sequence[int],
    *,
    parallel_drafting_token_id: int,
    num_speculative_tokens: int,
    block_table: Sequence[Sequence[int]],
    kv_block_size: int,
    num_rejected_tokens: Sequence[int] | None = None,
) -> DFlashReference:
    """The DFlash layout, one request at a time."""
    out = DFlashReference([], [], list(positions), [], [], [])

    def slot(request: int, position: int) -> int:
        blocks = block_table[request]
        block = blocks[min(position // kv_block_size, len(blocks) - 1)]
        return block * kv_block_size + position % kv_block_size

    for request, next_token in enumerate(next_token_ids):
        start, end = query_start_loc[request], query_start_loc[request + 1]
        rejected = 0 if num_rejected_tokens is None else num_rejected_tokens[request]
        last_accepted = positions[end - 1 - rejected]
        query_start = len(out.input_ids)
        out.input_ids.extend([next_token] + [parallel_drafting_token_id] * num_speculative_tokens)
        query = [last_accepted + 1 + offset for offset in range(num_speculative_tokens + 1)]
        out.query_positions.extend(query)
        out.token_indices_to_sample.extend(
            query_start + 1 + offset for offset in range(num_speculative_tokens)
        )
        out.context_slot_mapping.extend(slot(request, positions[row]) for row in range(start, end))
        out.query_slot_mapping.extend(slot(request, position) for position in query)
    return out
