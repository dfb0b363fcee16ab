"""The config fields drafting_config reads: first those that can name the
parallel-drafting token, in priority order, then the model facts checked beside them.

This module is the single place where the priority order is written down: the
declaration order of :class:`TokenIdSource` *is* the order in which the fields
are consulted, and each member carries the facts later checks need about the
drafters that use it.  Adding a field is one line here; the resolver, the error
messages, the command-line ``explain`` table and the tests all follow.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:  # typing_extensions costs ~4 ms to import; only the checker needs it
    from typing_extensions import Self


class TokenIdField(str, enum.Enum):
    """A row of a priority table: a config field that can name the token, and its facts.

    :class:`TokenIdSource` is the table in force.  This member-less base lets
    tests build another table (for instance with one more row) and run the
    generic resolver over it.  A member's value is the field's path in
    ``config.json``; the other two columns are attributes.
    """

    _value_: str

    algorithm: str | None
    """The drafting method the field belongs to (``"dflash"``, ``"pard"``...), or ``None``
    when several methods use it."""

    takes_target_hidden_states: bool
    """Whether drafters that use the field are fed the target model's hidden states, so
    their hidden size must match the target's."""

    section: str | None
    """The nested section holding the field (``"dflash_config"``), or ``None`` at top level."""

    key: str
    """The field's own name inside its section (``"mask_token_id"``)."""

    def __new__(
        cls, path: str, algorithm: str | None = None, takes_target_hidden_states: bool = True
    ) -> Self:
        # Every row gives all three columns; the defaults only let ``TokenIdSource(path)``,
        # a lookup by value, type-check.
        member = str.__new__(cls, path)
        member._value_ = path
        member.algorithm = algorithm
        member.takes_target_hidden_states = takes_target_hidden_states
        prefix, _, member.key = path.rpartition(".")
        member.section = prefix or None
        return member

    @property
    def value(self) -> str:  # typed: mypy cannot infer it from the tuple-valued members
        """The field's path in ``config.json``, such as ``"dflash_config.mask_token_id"``."""
        return self._value_

    def __str__(self) -> str:
        return self.value


class TokenIdSource(TokenIdField):
    """Where in a draft model's config the parallel-drafting token id was found.

    Members are declared from highest to lowest priority.  A value is the
    field's path in ``config.json``: a dotted value such as
    ``"dflash_config.mask_token_id"`` names a key inside a nested section.
    """

    # member =              (path, algorithm, fed the target's hidden states)
    DFLASH_MASK_TOKEN_ID = ("dflash_config.mask_token_id", "dflash", True)
    """DFlash drafters: ``mask_token_id`` inside the nested ``dflash_config`` section."""

    MASK_TOKEN_ID = ("mask_token_id", None, True)
    """Top-level ``mask_token_id``: DSpark checkpoints in some formats, P-EAGLE style drafters."""

    DSPARK_NOISE_TOKEN_ID = ("dspark_noise_token_id", "dspark", True)
    """DSpark drafters: the noise token that fills the masked slots."""

    PARD_TOKEN = ("pard_token", "pard", False)
    """PARD drafters: an unused id of the target tokenizer appended K-1 times; a complete
    small LM that takes no hidden states."""

    PTD_TOKEN_ID = ("ptd_token_id", "ptd", True)
    """Parallel token drafting for EAGLE3."""


PRIORITY_ORDER: Final[tuple[TokenIdSource, ...]] = tuple(TokenIdSource)
"""All sources, highest priority first (the declaration order of :class:`TokenIdSource`)."""

TEXT_CONFIG: Final = "text_config"
"""The nested section that sizes and special tokens fall back to (multimodal configs)."""

EAGLE_CONFIG: Final = "eagle_config"
"""A nested section some DFlash/DSpark model classes merge under ``dflash_config``; its
``mask_token_id`` is checked beside the priority table, never used as a source."""

PLACEHOLDER_FIELDS: Final = ("pad_token_id", "bos_token_id", "eos_token_id")
"""Special-token fields that a parallel-drafting token must not coincide with."""


def describe_order(order: Sequence[TokenIdField] = PRIORITY_ORDER) -> str:
    """The fields of ``order`` as prose: ```a`, `b`, or `c```, highest priority first."""
    *first, last = (f"`{source.value}`" for source in order)
    return f"{', '.join(first)}, or {last}" if first else last
