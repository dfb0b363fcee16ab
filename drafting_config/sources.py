"""The five config fields that can name the parallel-drafting token, in priority order.

This module is the single place where the priority order is written down: the
declaration order of :class:`TokenIdSource` *is* the order in which the fields
are consulted.  Adding a sixth field is one line here; the resolver, the error
messages, the command-line ``explain`` table and the tests all follow.
"""

from __future__ import annotations

import enum
from typing import Final

__all__ = ["PRIORITY_ORDER", "TokenIdSource"]


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
