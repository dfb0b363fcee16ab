"""drafting_config: the parallel-drafting token id of a draft model, typed and validated.

Speculative decoding with parallel drafting (DFlash, DSpark, PARD, parallel
token drafting for EAGLE) fills K-1 masked slots with one token whose id lives
in the draft model's Hugging Face config under one of five names.  This package
resolves it once, by one priority order, and fails loudly when it cannot::

    from drafting_config import ParallelDraftingConfig

    config = ParallelDraftingConfig.from_hf_config(hf_config)
    config.token_id, config.source

Importing this package imports neither ``torch`` nor ``transformers``.
"""

from drafting_config.config import (
    ParallelDraftingConfig,
    ShadowedTokenId,
    get_parallel_drafting_token_id,
)
from drafting_config.errors import (
    ConflictingTokenIdWarning,
    ParallelDraftingConfigError,
    ParallelDraftingConfigWarning,
    PlaceholderTokenIdWarning,
)
from drafting_config.sources import PRIORITY_ORDER, TokenIdSource

__all__ = [
    "PRIORITY_ORDER",
    "ConflictingTokenIdWarning",
    "ParallelDraftingConfig",
    "ParallelDraftingConfigError",
    "ParallelDraftingConfigWarning",
    "PlaceholderTokenIdWarning",
    "ShadowedTokenId",
    "TokenIdSource",
    "get_parallel_drafting_token_id",
]

__version__ = "0.1.0"
