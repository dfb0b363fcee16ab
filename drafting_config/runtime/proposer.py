"""A proposer's parallel-drafting parameters, built from a typed config (needs torch).

It imports ``torch`` when imported (install the ``torch`` extra to use it), as
:mod:`drafting_config.runtime.masked_slots` does, and :mod:`drafting_config.runtime.vllm`
when it allocates: :mod:`drafting_config.runtime` is the package's torch code for engines.
The rest of the package imports no torch, except to read ``mask_embedding.pt`` with
``torch.load`` inside the one function that reads it (import-linter holds this, see
``pyproject.toml``).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Final, cast

import torch

from drafting_config.config import ParallelDraftingConfig
from drafting_config.runtime import masked_slots
from drafting_config.runtime.masked_slots import DFlashInputs, EagleInputs
from drafting_config.values.errors import describe_value, exception_text
from drafting_config.values.fields import is_kind
from drafting_config.values.integers import exact_bool, positive_int32

if TYPE_CHECKING:
    from typing_extensions import deprecated

__all__ = [
    "DTYPE_NAMES",
    "ParallelDraftingParams",
    "parse_device",
    "parse_dtype",
    "parse_hidden_size",
]

DTYPE_NAMES: Final[Mapping[str, torch.dtype]] = MappingProxyType(
    {
        "bfloat16": torch.bfloat16,
        "bf16": torch.bfloat16,
        "float16": torch.float16,
        "half": torch.float16,
        "float32": torch.float32,
        "float": torch.float32,
    }
)
"""The dtype names accepted for hidden states, as vLLM and HF spell them."""


def parse_dtype(dtype: torch.dtype | str) -> torch.dtype:
    """``dtype`` as a floating-point ``torch.dtype``; names come from :data:`DTYPE_NAMES`.

    Raises:
        ValueError: an unknown name, a dtype that is not floating point, or
            another type; the message names ``dtype``.
    """
    value: object = dtype  # callers without type checking pass anything
    if type(value) is torch.dtype:
        if not value.is_floating_point:
            raise ValueError(
                f"`dtype` must be a floating-point dtype such as torch.bfloat16 for hidden "
                f"states, got {value}."
            )
        return value
    if is_kind(value, str) and value in DTYPE_NAMES:  # type(): a Mock(spec=str) is refused
        return DTYPE_NAMES[cast("str", value)]
    raise ValueError(
        f"`dtype` must be a torch.dtype or one of {', '.join(map(repr, DTYPE_NAMES))}, "
        f"got {describe_value(value)}."
    )


def parse_device(device: torch.device | str) -> torch.device:
    """``device`` as a ``torch.device``.

    Only the spelling is checked here; whether torch can allocate there is
    found out when a tensor is allocated (see :class:`ParallelDraftingParams`).

    Raises:
        ValueError: a string torch does not recognise as a device, or another
            type; the message names ``device``.
    """
    value: object = device
    if type(value) is torch.device:
        return value
    if is_kind(value, str):
        name = cast("str", value)
        try:
            return torch.device(name)
        except (RuntimeError, Warning) as error:  # a Warning when warnings are errors
            raise ValueError(
                f"`device` must name a torch device such as 'cpu', 'cuda', 'cuda:1' or "
                f"'meta', got {describe_value(name)}: {exception_text(error)}."
            ) from None
    raise ValueError(f"`device` must be a torch.device or a str, got {describe_value(value)}.")


def parse_hidden_size(hidden_size: int) -> int:
    """``hidden_size`` as a plain ``int``, positive and below 2**31 (the bound a config's own has).

    The rule is :func:`~drafting_config.values.integers.positive_int32`'s: an ``int``
    subclass counts as its int value.

    Raises:
        ValueError: a bool, a value that is not an int, or one out of range;
            the message names ``hidden_size``.
    """
    return positive_int32("hidden_size", hidden_size)


class ParallelDraftingParams:
    """A proposer's parallel-drafting parameters, built from a :class:`ParallelDraftingConfig`.

    Named after vLLM's ``_init_parallel_drafting_params``, whose two results it
    holds: the token id that fills the masked slots and, for drafters that take
    hidden states, a tensor for those slots' hidden states.

    Args:
        config: the draft model's resolved config.
        dtype: the hidden-state dtype, as a ``torch.dtype`` or a name in :data:`DTYPE_NAMES`.
        device: where to allocate, as a ``torch.device`` or a string such as ``"cuda:0"``.
        pass_hidden_states_to_model: whether the draft model takes hidden states
            (EAGLE-style); only then is a hidden-state tensor allocated. A real
            ``bool``: ``"false"`` or ``0`` is an error, not a flag.
        hidden_size: overrides ``config.hidden_size`` (vLLM multiplies it for
            some drafters); a positive int below 2**31, like the config's own.

    Raises:
        ValueError: an unknown dtype name, a bad device, a flag that is not a
            bool, a hidden size out of range, or (when hidden states are
            passed) a missing hidden size or a device whose backend torch
            cannot load; the message names the parameter and shows the value.
            Errors of the allocation itself, such as running out of memory,
            propagate from torch unchanged.
    """

    config: Final[ParallelDraftingConfig]
    dtype: Final[torch.dtype]
    device: Final[torch.device]
    hidden_size: Final[int | None]
    parallel_drafting_token_id: Final[int]
    """The token id that fills the masked slots."""
    parallel_drafting_hidden_state_tensor: Final[torch.Tensor | None]
    """An uninitialised ``(hidden_size,)`` tensor for the masked slots' hidden
    states when hidden states are passed to the model, else ``None``."""

    def __init__(
        self,
        config: ParallelDraftingConfig,
        *,
        dtype: torch.dtype | str,
        device: torch.device | str,
        pass_hidden_states_to_model: bool,
        hidden_size: int | None = None,
    ) -> None:
        if not isinstance(config, ParallelDraftingConfig):
            raise ValueError(
                f"`config` must be a ParallelDraftingConfig, got {type(config).__name__}; "
                "build one with ParallelDraftingConfig.from_hf_config(hf_config)."
            )
        self.config = config
        self.dtype = parse_dtype(dtype)
        self.device = parse_device(device)
        self.hidden_size = (
            config.hidden_size if hidden_size is None else parse_hidden_size(hidden_size)
        )
        self.parallel_drafting_token_id = config.token_id
        self.parallel_drafting_hidden_state_tensor = (
            self._allocate()
            if exact_bool("`pass_hidden_states_to_model`", pass_hidden_states_to_model, ValueError)
            else None
        )

    def _allocate(self) -> torch.Tensor:
        if self.hidden_size is None:
            raise ValueError(
                "`hidden_size` is needed because hidden states are passed to the model, "
                "and the draft model's config has none: pass hidden_size=..."
            )
        try:
            return torch.empty(self.hidden_size, dtype=self.dtype, device=self.device)
        except Exception:
            # An empty tensor needs no memory: if even that fails, the device is at fault.
            self._check_device_loads()
            raise  # the device works; this is the allocation's own error (memory)

    def _check_device_loads(self) -> None:
        try:
            torch.empty(0, dtype=self.dtype, device=self.device)
        except Exception as error:  # torch raises many types for this
            raise ValueError(
                f"`device` {str(self.device)!r} cannot be used here: torch cannot allocate "
                f"{self.dtype} tensors there ({exception_text(error, kind=True)})."
            ) from None

    def expand_eagle_inputs(
        self,
        target_token_ids: torch.Tensor,
        target_positions: torch.Tensor,
        next_token_ids: torch.Tensor,
        query_start_loc: torch.Tensor,
        num_rejected_tokens: torch.Tensor,
        *,
        num_speculative_tokens: int,
        shift_input_ids: bool,
        padding_token_id: int = 0,
        check: bool = False,
    ) -> EagleInputs:
        """:func:`~drafting_config.runtime.masked_slots.expand_eagle_inputs` with this draft
        model's :attr:`parallel_drafting_token_id` in the masked slots."""
        return masked_slots.expand_eagle_inputs(
            target_token_ids,
            target_positions,
            next_token_ids,
            query_start_loc,
            num_rejected_tokens,
            parallel_drafting_token_id=self.parallel_drafting_token_id,
            num_speculative_tokens=num_speculative_tokens,
            shift_input_ids=shift_input_ids,
            padding_token_id=padding_token_id,
            check=check,
        )

    def expand_hidden_states(
        self, target_hidden_states: torch.Tensor, eagle_inputs: EagleInputs
    ) -> torch.Tensor:
        """:func:`~drafting_config.runtime.masked_slots.expand_hidden_states` with
        :attr:`parallel_drafting_hidden_state_tensor` in the masked rows; a
        ``ValueError`` when it was not allocated (hidden states not passed)."""
        return masked_slots.expand_hidden_states(
            target_hidden_states, eagle_inputs, self.parallel_drafting_hidden_state_tensor
        )

    def expand_dflash_inputs(
        self,
        next_token_ids: torch.Tensor,
        target_positions: torch.Tensor,
        query_start_loc: torch.Tensor,
        *,
        num_speculative_tokens: int,
        block_table: torch.Tensor,
        kv_block_size: int,
        num_rejected_tokens: torch.Tensor | None = None,
        check: bool = False,
    ) -> DFlashInputs:
        """:func:`~drafting_config.runtime.masked_slots.expand_dflash_inputs` with this draft
        model's :attr:`parallel_drafting_token_id` in the masked slots."""
        return masked_slots.expand_dflash_inputs(
            next_token_ids,
            target_positions,
            query_start_loc,
            parallel_drafting_token_id=self.parallel_drafting_token_id,
            num_speculative_tokens=num_speculative_tokens,
            block_table=block_table,
            kv_block_size=kv_block_size,
            num_rejected_tokens=num_rejected_tokens,
            check=check,
        )

    def __repr__(self) -> str:
        tensor = self.parallel_drafting_hidden_state_tensor
        return (
            f"{type(self).__name__}(token_id={self.parallel_drafting_token_id}, "
            f"source={self.config.source.value!r}, dtype={self.dtype}, "
            f"device={str(self.device)!r}, hidden_size={self.hidden_size}, "
            f"hidden_state_tensor={'None' if tensor is None else tuple(tensor.shape)})"
        )


if TYPE_CHECKING:

    @deprecated("Renamed ParallelDraftingParams; this name goes in the next release.")
    class ParallelDraftingProposer(ParallelDraftingParams):
        """Deprecated: the old name of :class:`ParallelDraftingParams`."""

else:

    def __getattr__(name: str) -> object:
        """The deprecated ``ParallelDraftingProposer``, with a warning at the caller."""
        if name == "ParallelDraftingProposer":
            warnings.warn(
                "drafting_config.proposer.ParallelDraftingProposer is deprecated and will be "
                "removed in the next release: it is now ParallelDraftingParams (same "
                "constructor, same attributes).",
                DeprecationWarning,
                stacklevel=2,
            )
            return ParallelDraftingParams
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
