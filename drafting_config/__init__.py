"""drafting_config: the parallel-drafting token id of a draft model, typed and validated.

Speculative decoding with parallel drafting (DFlash, DSpark, PARD, parallel
token drafting for EAGLE) fills K-1 masked slots with one token whose id lives
in the draft model's Hugging Face config under one of several names.  This package
resolves it once, by one priority order, and fails loudly when it cannot::

    from drafting_config import ParallelDraftingConfig

    config = ParallelDraftingConfig.from_hf_config(hf_config)
    config.token_id, config.source

Importing this package imports neither ``torch`` nor ``transformers``, and the
pydantic model is only built when first used, so ``import drafting_config`` and
the ``drafting-config check`` command start fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from drafting_config.checking import Verdict, check, check_many
from drafting_config.errors import (
    ConflictingTokenIdWarning,
    ParallelDraftingConfigError,
    ParallelDraftingConfigWarning,
    PlaceholderTokenIdWarning,
)
from drafting_config.loading import ConfigFileError
from drafting_config.resolution import FieldStatus, FieldVerdict, Resolution, resolve
from drafting_config.sources import PRIORITY_ORDER, TokenIdField, TokenIdSource

if TYPE_CHECKING:
    from drafting_config.config import (
        ParallelDraftingConfig,
        ShadowedTokenId,
        get_parallel_drafting_token_id,
    )

__all__ = [
    "PRIORITY_ORDER",
    "ConfigFileError",
    "ConflictingTokenIdWarning",
    "FieldStatus",
    "FieldVerdict",
    "ParallelDraftingConfig",
    "ParallelDraftingConfigError",
    "ParallelDraftingConfigWarning",
    "PlaceholderTokenIdWarning",
    "Resolution",
    "ShadowedTokenId",
    "TokenIdField",
    "TokenIdSource",
    "Verdict",
    "check",
    "check_many",
    "get_parallel_drafting_token_id",
    "resolve",
]

__version__ = "0.2.0"

# Names whose module imports pydantic's model machinery (~100 ms): loaded on first use.
_LAZY = {
    "ParallelDraftingConfig": "drafting_config.config",
    "ShadowedTokenId": "drafting_config.config",
    "get_parallel_drafting_token_id": "drafting_config.config",
}


if not TYPE_CHECKING:  # hidden from type checkers, so that misspelt names stay errors

    def __getattr__(name: str) -> object:
        module = _LAZY.get(name)
        if module is None:
            raise AttributeError(f"module 'drafting_config' has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
