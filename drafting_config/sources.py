"""The config fields drafting_config reads: first the five that can name the
parallel-drafting token, in priority order, then the model facts checked beside it.

This module is the single place where the priority order is written down: the
declaration order of :class:`TokenIdSource` *is* the order in which the fields
are consulted.  Adding a sixth field is one line here; the resolver, the fast
config reader, the error messages, the command-line ``explain`` table and the
tests all follow.
"""

from __future__ import annotations

import enum
from typing import Final

__all__ = [
    "FIELD_NAMES",
    "PLACEHOLDER_FIELDS",
    "PRIORITY_ORDER",
    "SIZE_FIELDS",
    "TEXT_CONFIG",
    "TokenIdSource",
]


class TokenIdSource(str, enum.Enum):
    """Where in a draft model's config the parallel-drafting token id was found.

    Members are declared from highest to lowest priority.  A value is the
    field's path in ``config.json``: a dotted value such as
    ``"dflash_config.mask_token_id"`` names a key inside a nested section.
    """

    DFLASH_MASK_TOKEN_ID = "dflash_config.mask_token_id"
    """DFlash drafters: ``mask_token_id`` inside the nested ``dflash_config`` section."""

    MASK_TOKEN_ID = "mask_token_id"
    """Top-level ``mask_token_id``: DSpark checkpoints in some formats, P-EAGLE style drafters."""

    DSPARK_NOISE_TOKEN_ID = "dspark_noise_token_id"
    """DSpark drafters: the noise token that fills the masked slots."""

    PARD_TOKEN = "pard_token"
    """PARD drafters: an unused id of the target tokenizer appended K-1 times."""

    PTD_TOKEN_ID = "ptd_token_id"
    """Parallel token drafting for EAGLE3."""

    @property
    def section(self) -> str | None:
        """The nested section holding the field (``"dflash_config"``), or ``None`` at top level."""
        return self.value.rpartition(".")[0] or None

    @property
    def key(self) -> str:
        """The field's own name inside its section (``"mask_token_id"``)."""
        return self.value.rpartition(".")[2]

    def __str__(self) -> str:
        return self.value


PRIORITY_ORDER: Final[tuple[TokenIdSource, ...]] = tuple(TokenIdSource)
"""All sources, highest priority first (the declaration order of :class:`TokenIdSource`)."""

TEXT_CONFIG: Final = "text_config"
"""The nested section that sizes and special tokens fall back to (multimodal configs)."""

SIZE_FIELDS: Final = ("hidden_size", "vocab_size")
"""The draft model's sizes, kept on the resolved config and checked to be int32s."""

PLACEHOLDER_FIELDS: Final = ("pad_token_id", "bos_token_id", "eos_token_id")
"""Special-token fields that a parallel-drafting token must not coincide with."""

FIELD_NAMES: Final = frozenset(
    {source.section or source.key for source in PRIORITY_ORDER}
    | {TEXT_CONFIG, *SIZE_FIELDS, *PLACEHOLDER_FIELDS}
)
"""Every top-level field the resolver reads (a section counts by its own name)."""
