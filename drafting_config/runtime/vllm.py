"""Drop-ins for vLLM's model runners, typed structurally: vLLM need not be installed.

Newer runner (Model Runner V2, every shipped release, 0.32.0 to 0.34.0, whose
``get_parallel_drafting_token_id`` in ``vllm/v1/worker/gpu/spec_decode/utils.py`` is
byte-identical): replace its ``get_parallel_drafting_token_id`` with this module's.
Older runner (up to 0.33.0; 0.34.0 deletes it, ``vllm/v1/spec_decode/llm_base_proposer.py``
included): make ``_init_parallel_drafting_params`` call
:func:`init_parallel_drafting_params` with the proposer.  The ``engine_wheels`` tests
(``tests/engines/vllm/test_wheel_releases.py``) run both against each shipped release's own
functions, those that exist in it.

``torch`` is imported only when :func:`init_parallel_drafting_params` allocates
a hidden-state tensor, i.e. when the proposer passes hidden states to its model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Protocol, cast

from drafting_config.config import ParallelDraftingConfig, get_parallel_drafting_token_id
from drafting_config.values.integers import exact_bool

if TYPE_CHECKING:
    import torch

__all__ = [
    "DraftModelConfigLike",
    "ParallelDraftingProposerLike",
    "TokenOnlyProposerLike",
    "get_parallel_drafting_token_id",
    "init_parallel_drafting_params",
]


class DraftModelConfigLike(Protocol):
    """vLLM's ``ModelConfig`` as far as parallel drafting reads it."""

    @property
    def hf_config(self) -> object:
        """The draft model's Hugging Face config."""
        ...


class TokenOnlyProposerLike(Protocol):
    """A proposer that passes no hidden states to its model, as far as
    ``_init_parallel_drafting_params`` uses it: it reads these two attributes
    and sets the token id, nothing else.

    vLLM's own unit tests build such proposers bare (``object.__new__`` plus
    ``draft_model_config`` and ``pass_hidden_states_to_model``).
    """

    @property
    def draft_model_config(self) -> DraftModelConfigLike:
        """The draft model's config."""
        ...

    @property
    def pass_hidden_states_to_model(self) -> Literal[False]:
        """False: the draft model takes no hidden states."""
        ...

    parallel_drafting_token_id: int
    """Set to the token id that fills the masked slots."""


class ParallelDraftingProposerLike(Protocol):
    """vLLM's speculative-decoding proposer as far as ``_init_parallel_drafting_params`` uses it.

    ``hidden_size``, ``dtype`` and ``device`` are read, and
    ``parallel_drafting_hidden_state_tensor`` set, only when
    ``pass_hidden_states_to_model`` is true; a proposer whose flag is typed
    ``Literal[False]`` need not have them (see :class:`TokenOnlyProposerLike`).
    """

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
        """The hidden size of the states the draft model takes (read only when they are passed)."""
        ...

    @property
    def dtype(self) -> torch.dtype:
        """The model dtype (read only when hidden states are passed)."""
        ...

    @property
    def device(self) -> torch.device:
        """The device the proposer runs on (read only when hidden states are passed)."""
        ...

    parallel_drafting_token_id: int
    """Set to the token id that fills the masked slots."""

    parallel_drafting_hidden_state_tensor: torch.Tensor | None
    """Set to the masked slots' hidden-state tensor when hidden states are passed."""


def init_parallel_drafting_params(
    proposer: ParallelDraftingProposerLike | TokenOnlyProposerLike,
) -> None:
    """The body of vLLM's ``_init_parallel_drafting_params`` (the older runner's, in vLLM
    0.32.0 and 0.33.0), typed and validated.

    Reads ``proposer.draft_model_config.hf_config`` and
    ``proposer.pass_hidden_states_to_model``, resolves the token id and sets
    ``proposer.parallel_drafting_token_id``. Only when
    ``pass_hidden_states_to_model`` is true does it also read
    ``proposer.hidden_size``, ``proposer.dtype`` and ``proposer.device`` and set
    ``proposer.parallel_drafting_hidden_state_tensor`` to
    ``torch.empty(hidden_size, dtype=dtype, device=device)``; otherwise it
    touches none of them, exactly as vLLM's method does.

    Unlike vLLM's method it sets nothing when it raises: every value is checked
    before the first attribute is written.

    Raises:
        ParallelDraftingConfigError: the draft model's config names no valid token id.
        ValueError: ``pass_hidden_states_to_model`` is not a bool, or (when it is
            true) the proposer's hidden size, dtype or device is unusable.
    """
    config = ParallelDraftingConfig.from_hf_config(proposer.draft_model_config.hf_config)
    flag = exact_bool(
        "The proposer's `pass_hidden_states_to_model`",
        proposer.pass_hidden_states_to_model,
        ValueError,
    )
    if not flag:
        proposer.parallel_drafting_token_id = config.token_id
        return

    from drafting_config.runtime.proposer import ParallelDraftingParams  # noqa: PLC0415 (torch)

    # The flag is true, so this is not a TokenOnlyProposerLike (whose flag is always False).
    full = cast("ParallelDraftingProposerLike", proposer)
    hidden_size, dtype, device = full.hidden_size, full.dtype, full.device  # vLLM's read order
    params = ParallelDraftingParams(
        config,
        dtype=dtype,
        device=device,
        pass_hidden_states_to_model=True,
        hidden_size=hidden_size,
    )
    full.parallel_drafting_token_id = params.parallel_drafting_token_id
    full.parallel_drafting_hidden_state_tensor = params.parallel_drafting_hidden_state_tensor
