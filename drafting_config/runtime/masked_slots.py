"""Lay out masked-slot (parallel) drafting inputs in pure torch, on any device.

At every decoding step a parallel-drafting proposer expands each request's
inputs with one bonus token and masked slots that hold the parallel-drafting
token id. vLLM does this with Triton kernels; the functions here compute the
same layouts with plain torch operations, so a backend without Triton (CPU,
Apple MPS, XPU, TPU through torch-xla) gets the same answer, and a kernel
author gets an oracle to test against.

* :func:`expand_eagle_inputs`: the EAGLE-style layout (input ids, positions,
  masks, the rows to sample, where the target's hidden states go).
* :func:`expand_hidden_states`: the draft model's hidden-state input for that
  layout.
* :func:`expand_dflash_inputs`: the DFlash layout (query ids and positions,
  KV-cache slot mappings).

The functions run on the inputs' device, with no Python loop over requests
and no host synchronisation: every output size follows from input shapes
alone, so they trace under ``torch.compile(fullgraph=True)``, and nothing in
them waits for the device, as CUDA-graph capture requires. Shapes, dtypes and
scalars are validated up front; the checks that would read tensor values (and
so synchronise with the device) run only with ``check=True``. Without it, inconsistent values (a
``query_start_loc`` that is not a running sum, more rejected rows than a
request has) give unspecified results, or an indexing error from torch.

This module imports ``torch``; install the ``torch`` extra to use it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import torch

from drafting_config.values.errors import describe_value
from drafting_config.values.integers import exact_bool, exact_int, positive_int32

__all__ = [
    "DFlashInputs",
    "EagleInputs",
    "expand_dflash_inputs",
    "expand_eagle_inputs",
    "expand_hidden_states",
]

_INDEX_DTYPES: Final = (torch.int32, torch.int64)
"""The dtypes accepted for token ids, positions and index tensors."""


@dataclass(frozen=True, slots=True)
class EagleInputs:
    """The EAGLE-style parallel-drafting inputs, as laid out by :func:`expand_eagle_inputs`.

    With ``B`` requests, ``N`` input rows and ``K`` speculative tokens, the
    ``M = N + B * (K - 1)`` output rows (``N + B * K`` without the shift) hold,
    per request: its valid input tokens (shifted left by one when
    ``shift_input_ids``), the bonus token, ``K - 1`` masked slots, then one
    padding row per rejected input row.
    """

    input_ids: torch.Tensor
    """``(M,)``, the dtype of ``target_token_ids``: the draft model's input ids."""
    positions: torch.Tensor
    """``(M,)``, the dtype of ``target_positions``: output row ``j`` of a request is at
    the request's first input position plus ``j``; rejected rows are at 0."""
    is_rejected: torch.Tensor
    """``(M,)`` bool: the padding rows that stand for rejected input rows."""
    is_masked: torch.Tensor
    """``(M,)`` bool: the ``K - 1`` masked slots of each request."""
    token_indices_to_sample: torch.Tensor
    """``(B * K,)``, the dtype of ``query_start_loc``: per request, its bonus row and
    its masked rows, in order."""
    hidden_state_mapping: torch.Tensor
    """``(N,)``, the dtype of ``query_start_loc``: for each input row, the output row
    that receives its hidden state (``new_start[r] + (i - query_start_loc[r])``)."""
    query_start_loc: torch.Tensor
    """``(B + 1,)``, the dtype of ``query_start_loc``: where each request's output rows
    start; each request grows by ``K - 1`` rows (``K`` without the shift)."""


@dataclass(frozen=True, slots=True)
class DFlashInputs:
    """The DFlash parallel-drafting inputs, as laid out by :func:`expand_dflash_inputs`.

    With ``B`` requests, ``N`` context rows and ``K`` speculative tokens, the
    query of each request is ``K + 1`` rows: the bonus token, then ``K`` masked
    slots.
    """

    input_ids: torch.Tensor
    """``(B * (K + 1),)``, the dtype of ``next_token_ids``: per request the bonus token,
    then ``K`` copies of the parallel-drafting token id."""
    query_positions: torch.Tensor
    """``(B * (K + 1),)``, the dtype of ``target_positions``: the request's last accepted
    position plus ``1 + offset``."""
    context_positions: torch.Tensor
    """``(N,)``: the context rows keep their positions; this is ``target_positions``
    itself, not a copy (clone it before writing into it)."""
    context_slot_mapping: torch.Tensor
    """``(N,)`` int64: the KV-cache slot of each context row."""
    query_slot_mapping: torch.Tensor
    """``(B * (K + 1),)`` int64: the KV-cache slot of each query row."""
    token_indices_to_sample: torch.Tensor
    """``(B * K,)``, the dtype of ``query_start_loc``: the query rows of the masked
    slots, ``K`` per request."""


def expand_eagle_inputs(
    target_token_ids: torch.Tensor,
    target_positions: torch.Tensor,
    next_token_ids: torch.Tensor,
    query_start_loc: torch.Tensor,
    num_rejected_tokens: torch.Tensor,
    *,
    parallel_drafting_token_id: int,
    num_speculative_tokens: int,
    shift_input_ids: bool,
    padding_token_id: int = 0,
    check: bool = False,
) -> EagleInputs:
    """Lay out the EAGLE-style parallel-drafting inputs of one decoding step.

    Request ``r`` owns input rows ``[query_start_loc[r], query_start_loc[r + 1])``,
    the last ``num_rejected_tokens[r]`` of which were rejected. Its output rows
    are, in order: the valid input tokens (shifted left by one when
    ``shift_input_ids``, as for drafters fed the target's hidden states), the
    bonus token ``next_token_ids[r]``, ``num_speculative_tokens - 1`` masked slots
    holding ``parallel_drafting_token_id``, and one row of ``padding_token_id`` at
    position 0 per rejected row. See :class:`EagleInputs` for the outputs.

    Args:
        target_token_ids: ``(N,)`` int32/int64, the target's input ids.
        target_positions: ``(N,)`` int32/int64, their positions.
        next_token_ids: ``(B,)``, the bonus token of each request; same dtype as
            ``target_token_ids``.
        query_start_loc: ``(B + 1,)`` int32/int64, the running sum of the
            requests' row counts, from 0 to ``N``.
        num_rejected_tokens: ``(B,)`` int32/int64, rejected rows per request,
            each from 0 to the request's row count minus one.
        parallel_drafting_token_id: the id placed in the masked slots.
        num_speculative_tokens: ``K >= 1``, the bonus row plus the masked slots.
        shift_input_ids: shift the valid tokens left by one (hidden-state drafters).
        padding_token_id: the id placed in the rejected rows.
        check: also check the tensors' values (``query_start_loc`` runs from 0
            to ``N`` without decreasing, every request has a row, rejected counts
            fit, the output positions stay within their dtype) and refuse a
            negative token id; this reads them on the host, so leave it off in a
            compiled or captured step.

    Raises:
        ValueError: a bad argument; the message names it, shows its value (a
            tensor's shape, dtype and device) and says what was expected.
    """
    k = _positive_int("num_speculative_tokens", num_speculative_tokens)
    shift = exact_bool("`shift_input_ids`", shift_input_ids, ValueError)
    do_check = exact_bool("`check`", check, ValueError)
    ids = _index_vector("target_token_ids", target_token_ids)
    positions = _index_vector("target_positions", target_positions)
    next_ids = _index_vector("next_token_ids", next_token_ids)
    starts = _index_vector("query_start_loc", query_start_loc)
    rejected = _index_vector("num_rejected_tokens", num_rejected_tokens)
    num_requests = _num_requests(starts)
    _same_length("target_positions", positions, ids.shape[0], "one per row of `target_token_ids`")
    _same_length("next_token_ids", next_ids, num_requests, "one per request")
    _same_length("num_rejected_tokens", rejected, num_requests, "one per request")
    _same_dtype("next_token_ids", next_ids, "target_token_ids", ids)
    _rows_for_requests("target_token_ids", ids, num_requests)
    _same_device(
        target_token_ids=ids,
        target_positions=positions,
        next_token_ids=next_ids,
        query_start_loc=starts,
        num_rejected_tokens=rejected,
    )
    mask_id = _token_id("parallel_drafting_token_id", parallel_drafting_token_id, ids.dtype)
    pad_id = _token_id("padding_token_id", padding_token_id, ids.dtype)
    if do_check:
        _host_readable(starts)
        _check_query_start_loc(starts, ids.shape[0])
        _check_rejected(rejected, starts)
        _check_not_negative("parallel_drafting_token_id", mask_id)
        _check_not_negative("padding_token_id", pad_id)
        # Output row j of request r sits at position positions[starts[r]] + j; its last
        # row before the rejected ones is j = length - rejected - shift + K - 1.
        last_row = starts.diff() - rejected - (1 if shift else 0) + (k - 1)
        _check_positions_fit(positions.index_select(0, starts[:-1]), last_row, positions.dtype)
    return _eagle_layout(
        ids, positions, next_ids, starts, rejected, k=k, shift=shift, mask_id=mask_id, pad_id=pad_id
    )


def expand_hidden_states(
    target_hidden_states: torch.Tensor,
    eagle_inputs: EagleInputs,
    parallel_drafting_hidden_state_tensor: torch.Tensor | None,
) -> torch.Tensor:
    """The draft model's hidden-state input for the layout in ``eagle_inputs``.

    Input row ``i``'s hidden state goes to output row
    ``eagle_inputs.hidden_state_mapping[i]``; then every masked row gets
    ``parallel_drafting_hidden_state_tensor``. Rows that get neither are zero (the
    rejected rows past the mapped ones; without the shift, also the bonus rows).

    Args:
        target_hidden_states: ``(N, H)``, the target's hidden states, one row per
            input row of :func:`expand_eagle_inputs`.
        eagle_inputs: the layout from :func:`expand_eagle_inputs`.
        parallel_drafting_hidden_state_tensor: ``(H,)``, same dtype and device as
            ``target_hidden_states``; ``None`` when hidden states are not passed
            to the draft model, which is an error here.

    Returns:
        ``(M, H)``, the dtype and device of ``target_hidden_states``.

    Raises:
        ValueError: the tensor is ``None``, or a shape, dtype or device mismatch.
    """
    if type(eagle_inputs) is not EagleInputs:
        raise ValueError(
            "`eagle_inputs` must be the EagleInputs that expand_eagle_inputs(...) returned, "
            f"got {describe_value(eagle_inputs)}."
        )
    filler: object = parallel_drafting_hidden_state_tensor
    if filler is None:
        raise ValueError(
            "`parallel_drafting_hidden_state_tensor` is None: no hidden-state tensor was "
            "allocated because hidden states are not passed to the draft model "
            "(pass_hidden_states_to_model=False); only drafters fed the target's hidden "
            "states need expand_hidden_states."
        )
    hidden = _tensor("target_hidden_states", target_hidden_states, "an (N, H) floating tensor")
    mapping = eagle_inputs.hidden_state_mapping
    if hidden.dim() != 2 or not hidden.is_floating_point():
        raise ValueError(
            "`target_hidden_states` must be an (N, H) floating-point tensor, got "
            f"{_describe_tensor(hidden)}."
        )
    if hidden.shape[0] != mapping.shape[0]:
        raise ValueError(
            "`target_hidden_states` must have one row per input row of `eagle_inputs` "
            f"({mapping.shape[0]}), got {_describe_tensor(hidden)}."
        )
    tensor = _tensor(
        "parallel_drafting_hidden_state_tensor", filler, f"a ({hidden.shape[1]},) tensor"
    )
    if (
        tensor.shape != (hidden.shape[1],)
        or tensor.dtype != hidden.dtype
        or tensor.device != hidden.device
    ):
        raise ValueError(
            f"`parallel_drafting_hidden_state_tensor` must have shape ({hidden.shape[1]},), "
            f"dtype {hidden.dtype} and device {hidden.device}, like `target_hidden_states`; "
            f"got {_describe_tensor(tensor)}."
        )
    _same_device(target_hidden_states=hidden, eagle_inputs=mapping)
    num_out, num_rows, width = eagle_inputs.input_ids.shape[0], hidden.shape[0], hidden.shape[1]
    new_starts = eagle_inputs.query_start_loc
    num_requests = new_starts.shape[0] - 1
    out = hidden.new_empty((num_out, width))
    out.index_put_((mapping.long(),), hidden)
    if num_requests and num_out > num_rows:
        # No input row maps to the last `extra` rows of each request: zero them.
        extra = (num_out - num_rows) // num_requests
        tail = new_starts[1:, None] - torch.arange(extra, 0, -1, device=new_starts.device)
        out.index_fill_(0, tail.view(-1).long(), 0)
    sample = eagle_inputs.token_indices_to_sample
    if num_requests and sample.shape[0] > num_requests:
        masked = sample.view(num_requests, -1)[:, 1:].reshape(-1).long()
        out.index_put_((masked,), tensor)
    return out


def expand_dflash_inputs(
    next_token_ids: torch.Tensor,
    target_positions: torch.Tensor,
    query_start_loc: torch.Tensor,
    *,
    parallel_drafting_token_id: int,
    num_speculative_tokens: int,
    block_table: torch.Tensor,
    kv_block_size: int,
    num_rejected_tokens: torch.Tensor | None = None,
    check: bool = False,
) -> DFlashInputs:
    """Lay out the DFlash parallel-drafting inputs of one decoding step.

    The context rows (the target's input rows) keep their positions. Each
    request's query is ``K + 1`` rows, ``[next_token_ids[r], mask x K]``, at
    positions ``last + 1 + offset`` where ``last`` is the position of the
    request's last accepted row (its last row, before its
    ``num_rejected_tokens[r]`` rejected ones when given). The ``K`` masked rows
    are the ones to sample. A row of request ``r`` at position ``p`` goes to
    KV-cache slot ``block_table[r, min(p // kv_block_size, width - 1)] *
    kv_block_size + p % kv_block_size``. See :class:`DFlashInputs`.

    Args:
        next_token_ids: ``(B,)`` int32/int64, the bonus token of each request.
        target_positions: ``(N,)`` int32/int64, the context rows' positions.
        query_start_loc: ``(B + 1,)`` int32/int64, the running sum of the
            requests' row counts, from 0 to ``N``.
        parallel_drafting_token_id: the id placed in the masked slots.
        num_speculative_tokens: ``K >= 1``, the masked slots per request.
        block_table: ``(R, width)`` int32/int64 with ``R >= B``, each request's
            KV-cache blocks; rows past the first ``B`` (an engine's padding to
            ``max_num_reqs`` or a CUDA-graph batch size) are not read.
        kv_block_size: the KV cache's page size in tokens (not the DFlash draft
            block length).
        num_rejected_tokens: ``(B,)`` int32/int64 or ``None`` (nothing rejected).
        check: also check the tensors' values (``query_start_loc`` runs from 0
            to ``N`` without decreasing, every request has a row, rejected counts
            fit, positions are not negative and the query's stay within their
            dtype, the token id and the block ids read are not negative); this
            reads them on the host.

    Raises:
        ValueError: a bad argument; the message names it, shows its value and
            says what was expected.
    """
    k = _positive_int("num_speculative_tokens", num_speculative_tokens)
    block_size = _positive_int("kv_block_size", kv_block_size)
    do_check = exact_bool("`check`", check, ValueError)
    next_ids = _index_vector("next_token_ids", next_token_ids)
    positions = _index_vector("target_positions", target_positions)
    starts = _index_vector("query_start_loc", query_start_loc)
    num_requests = _num_requests(starts)
    table = _tensor("block_table", block_table, "a (B, width) int32 or int64 tensor")
    if table.dim() != 2 or table.dtype not in _INDEX_DTYPES or table.shape[1] == 0:
        raise ValueError(
            "`block_table` must be a (B, width) int32 or int64 tensor with width >= 1, got "
            f"{_describe_tensor(table)}."
        )
    if table.shape[0] < num_requests:  # engines pad it (to max_num_reqs, a graph batch size)
        raise ValueError(
            f"`block_table` must have at least one row per request ({num_requests}), got "
            f"{_describe_tensor(table)}."
        )
    _same_length("next_token_ids", next_ids, num_requests, "one per request")
    _rows_for_requests("target_positions", positions, num_requests)
    _same_device(
        next_token_ids=next_ids,
        target_positions=positions,
        query_start_loc=starts,
        block_table=table,
    )
    rejected: torch.Tensor | None = None
    if num_rejected_tokens is not None:
        rejected = _index_vector("num_rejected_tokens", num_rejected_tokens)
        _same_length("num_rejected_tokens", rejected, num_requests, "one per request")
        _same_device(target_positions=positions, num_rejected_tokens=rejected)
    mask_id = _token_id("parallel_drafting_token_id", parallel_drafting_token_id, next_ids.dtype)
    if do_check:
        _host_readable(starts)
        _check_query_start_loc(starts, positions.shape[0])
        if rejected is not None:
            _check_rejected(rejected, starts)
        if positions.numel() and bool((positions < 0).any()):
            raise ValueError(
                "`target_positions` must not be negative, got a negative position in "
                f"{_describe_tensor(positions)}."
            )
        _check_not_negative("parallel_drafting_token_id", mask_id)
        _check_block_ids(table[:num_requests])
        # The query of request r runs to its last accepted position plus K + 1.
        last_row = starts[1:] - 1 if rejected is None else starts[1:] - rejected - 1
        last = positions.index_select(0, last_row)
        _check_positions_fit(last, torch.full_like(last, k + 1), positions.dtype)
    return _dflash_layout(
        next_ids, positions, starts, rejected, table, block_size=block_size, k=k, mask_id=mask_id
    )


# --- the layouts ---------------------------------------------------------------------------


def _eagle_layout(
    ids: torch.Tensor,
    positions: torch.Tensor,
    next_ids: torch.Tensor,
    starts: torch.Tensor,
    rejected: torch.Tensor,
    *,
    k: int,
    shift: bool,
    mask_id: int,
    pad_id: int,
) -> EagleInputs:
    """Every output row copies one entry of a source table: ``[input ids | per request
    the bonus token and K - 1 mask ids | a run of padding ids]``. A request's output
    rows fall in three segments (its valid tokens, its bonus and masked rows, its
    rejected rows); within a segment the source index is the row's index plus a
    per-segment offset, and the position is the row's index plus a per-request offset
    (zeroed on the rejected rows afterwards). One running sum builds both."""
    device = starts.device
    num_requests = next_ids.shape[0]
    num_rows = ids.shape[0]
    sh = 1 if shift else 0
    extra = k - sh  # output rows added per request
    num_out = num_rows + num_requests * extra
    special = num_rows + num_requests * k  # the source index of the first padding id

    request = torch.arange(num_requests + 1, device=device)
    out_start = torch.add(starts, request, alpha=extra)  # the new query_start_loc, int64
    first_out = out_start[:-1]
    bonus = out_start[1:] - rejected - k  # each request's bonus row
    sample = bonus[:, None] + torch.arange(k, device=device)
    # Per request and segment: the source index minus the output row.
    source_offsets = torch.stack(
        (
            torch.mul(request[:-1], -extra).add_(sh),  # valid tokens: input row + sh
            torch.mul(request[:-1], k).add_(num_rows).sub_(bonus),  # its bonus/mask block
            (special - k) - bonus,  # rejected rows: the padding run
        ),
        1,
    )
    position_offsets = positions.index_select(0, starts[:-1]) - first_out
    offsets = torch.stack((source_offsets, position_offsets[:, None].expand(-1, 3)))
    segment_starts = torch.stack((first_out, bonus, bonus + k), 1)
    source, position = _ramps(segment_starts.view(-1), offsets.view(2, -1), num_out)

    bonus_and_masks = torch.full((num_requests, k), mask_id, dtype=ids.dtype, device=device)
    bonus_and_masks[:, 0] = next_ids
    # A request keeps at least one row, so it has at most num_rows - num_requests rejected.
    padding = ids.new_full((num_rows - num_requests,), pad_id)
    input_ids = torch.cat((ids, bonus_and_masks.view(-1), padding)).index_select(0, source)
    is_rejected = source >= special
    out_positions = _as(torch.where(is_rejected, 0, position), positions.dtype)
    is_masked = torch.zeros(num_out, dtype=torch.bool, device=device)
    is_masked.index_fill_(0, sample.view(-1), True).index_fill_(0, bonus, False)
    # Input row i of request r goes to output row i + extra * r.
    request_of_row = torch.repeat_interleave(starts.diff(), output_size=num_rows)
    mapping = torch.arange(num_rows, device=device, dtype=starts.dtype)
    mapping.add_(request_of_row, alpha=extra)
    return EagleInputs(
        input_ids=input_ids,
        positions=out_positions,
        is_rejected=is_rejected,
        is_masked=is_masked,
        token_indices_to_sample=_as(sample.view(-1), starts.dtype),
        hidden_state_mapping=mapping,
        query_start_loc=_as(out_start, starts.dtype),
    )


def _as(tensor: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return tensor if tensor.dtype == dtype else tensor.to(dtype)


def _ramps(segment_starts: torch.Tensor, offsets: torch.Tensor, size: int) -> torch.Tensor:
    """``(R, size)`` int64 whose row ``q`` is ``i + offsets[q, s]`` at each index ``i`` of
    segment ``s``. The segments are given in order by their starts, the first at 0, each
    running to the next one's start (empty ones allowed).

    The running sum of ones with a jump at each segment's start: one scatter of the
    jumps between consecutive offsets, one cumulative sum. A start at ``size`` (an
    empty last segment) lands in a spare last column.
    """
    jumps = offsets.diff(dim=1, prepend=offsets.new_ones(offsets.shape[0], 1))
    steps = torch.ones((offsets.shape[0], size + 1), dtype=torch.int64, device=offsets.device)
    steps.index_add_(1, segment_starts, jumps)
    return steps.cumsum_(1)[:, :size]


def _dflash_layout(
    next_ids: torch.Tensor,
    positions: torch.Tensor,
    starts: torch.Tensor,
    rejected: torch.Tensor | None,
    table: torch.Tensor,
    *,
    block_size: int,
    k: int,
    mask_id: int,
) -> DFlashInputs:
    device = starts.device
    num_requests = next_ids.shape[0]
    num_rows = positions.shape[0]
    width = table.shape[1]

    input_ids = torch.full((num_requests, k + 1), mask_id, dtype=next_ids.dtype, device=device)
    input_ids[:, 0] = next_ids
    last_row = starts[1:] - 1 if rejected is None else starts[1:] - rejected - 1
    last_position = positions.index_select(0, last_row)
    query_positions = last_position[:, None] + torch.arange(
        1, k + 2, device=device, dtype=positions.dtype
    )
    request = torch.arange(num_requests, device=device)
    sample = request[:, None] * (k + 1) + torch.arange(1, k + 1, device=device)

    flat_table = table.reshape(-1)  # a view, unless the table is a strided slice
    query_slots = _slots(query_positions, flat_table, block_size, width, request[:, None] * width)
    row_request = torch.repeat_interleave(starts.diff(), output_size=num_rows)
    context_slots = _slots(positions, flat_table, block_size, width, row_request * width)
    return DFlashInputs(
        input_ids=input_ids.view(-1),
        query_positions=query_positions.view(-1),
        context_positions=positions,
        context_slot_mapping=context_slots,
        query_slot_mapping=query_slots.view(-1),
        token_indices_to_sample=_as(sample.view(-1), starts.dtype),
    )


def _slots(
    positions: torch.Tensor,
    flat_table: torch.Tensor,
    block_size: int,
    width: int,
    row_offsets: torch.Tensor,
) -> torch.Tensor:
    """int64 KV-cache slots of ``positions``, whose requests' block-table rows start at
    ``row_offsets`` in ``flat_table`` (broadcast against ``positions``):
    ``table[row, min(p // block_size, width - 1)] * block_size + p % block_size``."""
    positions = positions.long()
    if block_size & (block_size - 1) == 0:  # a power of two: shift and mask, as // and %
        page = positions >> (block_size.bit_length() - 1)
        offset = positions & (block_size - 1)
    else:
        page = torch.div(positions, block_size, rounding_mode="floor")
        offset = positions - page * block_size
    index = torch.add(row_offsets, page.clamp_max_(width - 1))
    blocks = flat_table.index_select(0, index.view(-1)).view(positions.shape)
    return torch.add(offset, blocks, alpha=block_size)


# --- validation ----------------------------------------------------------------------------


def _describe_tensor(tensor: torch.Tensor) -> str:
    return f"tensor(shape={tuple(tensor.shape)}, dtype={tensor.dtype}, device={tensor.device})"


def _tensor(name: str, value: object, expected: str) -> torch.Tensor:
    if not issubclass(type(value), torch.Tensor):  # type(): a Mock(spec=Tensor) is refused
        raise ValueError(f"`{name}` must be {expected}, got {describe_value(value)}.")
    return value  # type: ignore[return-value]  # type() narrowing is not understood


def _index_vector(name: str, value: object) -> torch.Tensor:
    tensor = _tensor(name, value, "a 1-D int32 or int64 tensor")
    if tensor.dim() != 1 or tensor.dtype not in _INDEX_DTYPES:
        raise ValueError(
            f"`{name}` must be a 1-D int32 or int64 tensor, got {_describe_tensor(tensor)}."
        )
    return tensor


def _same_length(name: str, tensor: torch.Tensor, length: int, what: str) -> None:
    if tensor.shape[0] != length:
        raise ValueError(
            f"`{name}` must have {length} entries ({what}), got {_describe_tensor(tensor)}."
        )


def _same_dtype(name: str, tensor: torch.Tensor, other: str, reference: torch.Tensor) -> None:
    if tensor.dtype != reference.dtype:
        raise ValueError(
            f"`{name}` must have the dtype of `{other}` ({reference.dtype}), got "
            f"{_describe_tensor(tensor)}; cast one of them."
        )


def _same_device(**tensors: torch.Tensor) -> None:
    (first_name, first), *others = tensors.items()
    for name, tensor in others:
        if tensor.device != first.device:
            raise ValueError(
                f"`{name}` must be on the device of `{first_name}` ({first.device}), got "
                f"{_describe_tensor(tensor)}."
            )


def _num_requests(starts: torch.Tensor) -> int:
    if starts.shape[0] == 0:
        raise ValueError(
            "`query_start_loc` must have B + 1 entries (at least [0]), got "
            f"{_describe_tensor(starts)}."
        )
    return starts.shape[0] - 1


def _rows_for_requests(name: str, tensor: torch.Tensor, num_requests: int) -> None:
    if tensor.shape[0] < num_requests:
        raise ValueError(
            f"`{name}` must have at least one row per request ({num_requests}), got "
            f"{_describe_tensor(tensor)}."
        )


def _exact_int(name: str, value: object, expected: str) -> int:
    """``value`` by the package's int rule (:func:`~drafting_config.values.integers.exact_int`)."""
    number = exact_int(value)
    if number is None:
        raise ValueError(f"`{name}` must be {expected}, got {describe_value(value)}.")
    return number


def _positive_int(name: str, value: object) -> int:
    return positive_int32(name, value)  # the package's size rule: a positive int32


def _token_id(name: str, value: object, dtype: torch.dtype) -> int:
    info = torch.iinfo(dtype)
    expected = f"an int that fits the token ids' dtype {dtype} ({info.min} to {info.max})"
    number = _exact_int(name, value, expected)
    if not info.min <= number <= info.max:
        raise ValueError(f"`{name}` must be {expected}, got {describe_value(number)}.")
    return number


def _host_readable(tensor: torch.Tensor) -> None:
    if tensor.device.type == "meta":
        raise ValueError(
            "`check=True` reads the inputs' values on the host, and tensors on the meta "
            "device have none; pass check=False."
        )


def _check_query_start_loc(starts: torch.Tensor, num_rows: int) -> None:
    """The value checks of ``query_start_loc`` (they read it on the host)."""
    first, last = int(starts[0]), int(starts[-1])
    if first != 0 or last != num_rows:
        raise ValueError(
            f"`query_start_loc` must run from 0 to {num_rows} (the number of input rows), "
            f"got {_describe_tensor(starts)} running from {first} to {last}."
        )
    lengths = starts[1:] - starts[:-1]
    empty = torch.nonzero(lengths < 1).flatten()
    if empty.numel():
        request = int(empty[0])
        raise ValueError(
            "`query_start_loc` must increase at every request (each has at least one row), "
            f"got query_start_loc[{request}] = {int(starts[request])} and "
            f"query_start_loc[{request + 1}] = {int(starts[request + 1])}."
        )


def _check_not_negative(name: str, token_id: int) -> None:
    """With ``check=True``, a token id must index the embedding table.

    vLLM's own test of this layout pins the id -2 (restated in this project's
    ``test_vllm_pin_with_shifted_ids``), so plain calls keep accepting any id that fits
    the dtype; a checked call does not.
    """
    if token_id < 0:
        raise ValueError(
            f"`{name}` must not be negative with check=True (it indexes the draft model's "
            f"embedding table), got {token_id}."
        )


def _check_block_ids(table: torch.Tensor) -> None:
    """The rows of the block table that are read hold no negative block id (a negative
    KV-cache slot)."""
    bad = torch.nonzero(table < 0)
    if bad.numel():
        row, column = (int(i) for i in bad[0])
        raise ValueError(
            "`block_table` must not hold negative block ids (they give negative KV-cache "
            f"slots), got block_table[{row}, {column}] = {int(table[row, column])}."
        )


def _check_positions_fit(first: torch.Tensor, offsets: torch.Tensor, dtype: torch.dtype) -> None:
    """Each request's highest output position, ``first[r] + offsets[r]``, fits ``dtype``
    (compared as ``first[r] > max - offsets[r]``, which cannot overflow itself)."""
    limit = torch.iinfo(dtype).max
    bad = torch.nonzero(first.long() > limit - offsets.long()).flatten()
    if bad.numel():
        request = int(bad[0])
        raise ValueError(
            f"`target_positions` must leave room for the drafted rows in {dtype}: request "
            f"{request} would reach position {int(first[request]) + int(offsets[request])}, "
            f"past {limit}."
        )


def _check_rejected(rejected: torch.Tensor, starts: torch.Tensor) -> None:
    """Each request keeps at least one row: ``0 <= num_rejected_tokens[r] < length[r]``."""
    lengths = starts[1:].long() - starts[:-1].long()
    bad = torch.nonzero((rejected < 0) | (rejected >= lengths)).flatten()
    if bad.numel():
        request = int(bad[0])
        length = int(lengths[request])
        raise ValueError(
            f"`num_rejected_tokens[{request}]` must be from 0 to {length - 1} (request "
            f"{request} has {length} rows and keeps at least one), got {int(rejected[request])}."
        )
