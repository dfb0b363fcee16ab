"""Set up parallel drafting for a proposer from a typed config (needs torch).

This is the only module of the package that imports ``torch``; install the
``torch`` extra to use it.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

import torch

from drafting_config.config import ParallelDraftingConfig

__all__ = ["DTYPE_NAMES", "ParallelDraftingProposer", "parse_device", "parse_dtype"]

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
        ValueError: an unknown name, or a dtype that is not floating point.
    """
    value: object = dtype  # callers without type checking pass anything
    if isinstance(value, torch.dtype):
        if not value.is_floating_point:
            raise ValueError(
                f"dtype={value} is not a floating-point dtype; hidden states need one "
                "such as torch.bfloat16."
            )
        return value
    if isinstance(value, str) and value in DTYPE_NAMES:
        return DTYPE_NAMES[value]
    raise ValueError(
        f"dtype={dtype!r} is not a known dtype; expected a torch.dtype or one of "
        f"{', '.join(map(repr, DTYPE_NAMES))}."
    )


def parse_device(device: torch.device | str) -> torch.device:
    """``device`` as a ``torch.device``.

    Raises:
        ValueError: a string torch does not recognise as a device, or another type.
    """
    if isinstance(device, torch.device):
        return device
    if isinstance(device, str):
        try:
            return torch.device(device)
        except RuntimeError as error:
            raise ValueError(
                f"device={device!r} is not a valid device ({error}); "
                "expected e.g. 'cpu', 'cuda', 'cuda:1' or 'meta'."
            ) from None
    raise ValueError(f"device={device!r} is not a valid device; expected a torch.device or a str.")


class ParallelDraftingProposer:
    """What a proposer needs for parallel drafting, built from a :class:`ParallelDraftingConfig`.

    Args:
        config: the draft model's resolved config.
        dtype: the hidden-state dtype, as a ``torch.dtype`` or a name in :data:`DTYPE_NAMES`.
        device: where to allocate, as a ``torch.device`` or a string such as ``"cuda:0"``.
        pass_hidden_states_to_model: whether the draft model takes hidden states
            (EAGLE-style); only then is a hidden-state tensor allocated.
        hidden_size: overrides ``config.hidden_size`` (vLLM multiplies it for
            some drafters).

    Raises:
        ValueError: an unknown dtype name, a bad device, or (when hidden states
            are passed) a missing or non-positive hidden size; the message
            names the parameter and the value.
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
                f"config must be a ParallelDraftingConfig, got {type(config).__name__}; "
                "build one with ParallelDraftingConfig.from_hf_config(hf_config)."
            )
        self.config = config
        self.dtype = parse_dtype(dtype)
        self.device = parse_device(device)
        self.hidden_size = _checked_hidden_size(hidden_size, config)
        self.parallel_drafting_token_id = config.token_id
        self.parallel_drafting_hidden_state_tensor = (
            self._allocate() if pass_hidden_states_to_model else None
        )

    def _allocate(self) -> torch.Tensor:
        if self.hidden_size is None:
            raise ValueError(
                "hidden_size=None: hidden states are passed to the model, so a hidden size "
                "is needed; the draft model's config has none, pass hidden_size=..."
            )
        try:
            return torch.empty(self.hidden_size, dtype=self.dtype, device=self.device)
        except torch.OutOfMemoryError:
            raise
        except (RuntimeError, AssertionError) as error:  # e.g. torch built without CUDA
            raise ValueError(f"device={str(self.device)!r} cannot be used here: {error}") from None

    def __repr__(self) -> str:
        tensor = self.parallel_drafting_hidden_state_tensor
        return (
            f"{type(self).__name__}(token_id={self.parallel_drafting_token_id}, "
            f"source={self.config.source.value!r}, dtype={self.dtype}, "
            f"device={str(self.device)!r}, hidden_size={self.hidden_size}, "
            f"hidden_state_tensor={'None' if tensor is None else tuple(tensor.shape)})"
        )


def _checked_hidden_size(override: object, config: ParallelDraftingConfig) -> int | None:
    if override is None:
        return config.hidden_size
    if isinstance(override, bool) or not isinstance(override, int) or override <= 0:
        raise ValueError(f"hidden_size={override!r} is not a positive int.")
    return override
