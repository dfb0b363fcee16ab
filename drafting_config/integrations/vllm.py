"""Drop-ins for vLLM's two model runners, typed structurally: vLLM need not be installed.

Newer runner: replace its ``get_parallel_drafting_token_id`` with this module's.
Older runner: make ``_init_parallel_drafting_params`` call
:func:`init_parallel_drafting_params` with the proposer.

``torch`` is imported only when :func:`init_parallel_drafting_params` runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from drafting_config.config import ParallelDraftingConfig, get_parallel_drafting_token_id

if TYPE_CHECKING:
    import torch

__all__ = [
    "DraftModelConfigLike",
    "ParallelDraftingProposerLike",
    "get_parallel_drafting_token_id",
    "init_parallel_drafting_params",
]


class DraftModelConfigLike(Protocol):
    """vLLM's ``ModelConfig`` as far as parallel drafting reads it."""

    @property
    def hf_config(self) -> object:
        """The draft model's Hugging Face config."""
        ...


class ParallelDraftingProposerLike(Protocol):
    """vLLM's speculative-decoding proposer as far as ``_init_parallel_drafting_params`` uses it."""

    @property
    def draft_model_config(self) -> DraftModelConfigLike:
        """The draft model's config."""
        ...

    @property
    def pass_hidden_states_to_model(self) -> bool:
        """Whether the draft model takes hidden states (EAGLE-style drafters)."""
        ...

    @property
    def hidden_size(self) -> int:
        """The hidden size of the states the draft model takes."""
        ...

    @property
    def dtype(self) -> torch.dtype:
        """The model dtype."""
        ...

    @property
    def device(self) -> torch.device:
        """The device the proposer runs on."""
        ...

    parallel_drafting_token_id: int
    """Set to the token id that fills the masked slots."""

    parallel_drafting_hidden_state_tensor: torch.Tensor | None
    """Set to the masked slots' hidden-state tensor when hidden states are passed."""


def init_parallel_drafting_params(proposer: ParallelDraftingProposerLike) -> None:
    """The body of vLLM's ``_init_parallel_drafting_params``, typed and validated.

    Resolves the token id from ``proposer.draft_model_config.hf_config`` and
    sets ``proposer.parallel_drafting_token_id``; when
    ``proposer.pass_hidden_states_to_model`` is true, also sets
    ``proposer.parallel_drafting_hidden_state_tensor`` to
    ``torch.empty(proposer.hidden_size, dtype=proposer.dtype, device=proposer.device)``.
    Otherwise the tensor attribute is left as it is, as vLLM's method does.

    Raises:
        ParallelDraftingConfigError: the draft model's config names no valid token id.
        ValueError: the proposer's hidden size, dtype or device is unusable.
    """
    from drafting_config.proposer import ParallelDraftingParams  # noqa: PLC0415 (torch)

    config = ParallelDraftingConfig.from_hf_config(proposer.draft_model_config.hf_config)
    parallel = ParallelDraftingParams(
        config,
        dtype=proposer.dtype,
        device=proposer.device,
        pass_hidden_states_to_model=proposer.pass_hidden_states_to_model,
        hidden_size=proposer.hidden_size,
    )
    proposer.parallel_drafting_token_id = parallel.parallel_drafting_token_id
    if parallel.parallel_drafting_hidden_state_tensor is not None:
        proposer.parallel_drafting_hidden_state_tensor = (
            parallel.parallel_drafting_hidden_state_tensor
        )
