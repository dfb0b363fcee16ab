"""How many tokens a draft's own file says to draft a step: the ``N`` of a serve command.

A DFlash draft is trained on blocks of ``block_size`` positions: the anchor (the last
accepted token) and ``block_size - 1`` masked slots, each predicting one token, so it drafts
``block_size - 1`` tokens a step.  A speculators file names the number outright
(``speculators_config.proposal_methods[0].speculative_tokens``), and a multi-token predictor
its heads (``n_predict``).  Anything else (an EAGLE-3 head, a plain causal LM) says nothing,
and the user chooses.  Names no engine: an engine's serve command takes the number where the
draft gives one.
"""

from __future__ import annotations

from typing import Final

from drafting_config.draft.file import SPECULATORS_CONFIG_FIELD, DraftFile
from drafting_config.values.errors import ParallelDraftingConfigError
from drafting_config.values.fields import read_field
from drafting_config.values.integers import exact_int

_BLOCK_FIELDS: Final = (("dflash_config", "block_size"), (None, "block_size"))
"""Where a DFlash draft names its trained block, as section (``None``: the top level) and
key: the section first, as the DFlash readers look (a key in the section stops the
search)."""


def draft_speculative_tokens(draft: DraftFile) -> int | None:
    """The number of tokens ``draft`` says to draft a step, or ``None`` when its file says
    none (or says it unreadably: not a positive JSON integer).

    In this order: a speculators file's ``speculative_tokens`` (its first proposal method);
    a DFlash draft's ``block_size - 1`` (``dflash_config.block_size``, else the top-level
    ``block_size``; the anchor plus ``N`` masked slots fill the trained block); the
    top-level ``n_predict``.
    """
    if draft.format == "speculators":
        return _positive(_proposal_tokens(draft))
    block = _positive(_first_set(draft, _BLOCK_FIELDS))
    if block is not None and draft.named_method == "dflash":  # the method only when it counts
        return block - 1 if block > 1 else None
    return _positive(_read(draft, None, "n_predict"))


def _proposal_tokens(draft: DraftFile) -> object:
    """``speculators_config.proposal_methods[0].speculative_tokens``, or ``None``."""
    methods = _read(draft, SPECULATORS_CONFIG_FIELD, "proposal_methods")
    if not isinstance(methods, list) or not methods or not isinstance(methods[0], dict):
        return None
    return methods[0].get("speculative_tokens")


def _first_set(draft: DraftFile, paths: tuple[tuple[str | None, str], ...]) -> object:
    """The first of ``paths`` (section and key) the file sets (a null counts as unset)."""
    for section, key in paths:
        value = _read(draft, section, key)
        if value is not None:
            return value
    return None


def _read(draft: DraftFile, section: str | None, key: str) -> object:
    """The field ``key`` of ``section`` (``None``: the top level), ``None`` when absent, null
    or unreadable (a section that is no section: the draft's own rules report it)."""
    try:
        if section is None:  # read_field's first case, without the call
            return draft.get(key, None)
        return read_field(draft.get, section, key, only_dicts=True)
    except ParallelDraftingConfigError:
        return None


def _positive(value: object) -> int | None:
    """``value`` as a positive ``int`` (never a bool, a float or a string), else ``None``."""
    number = exact_int(value)
    return number if number is not None and number > 0 else None
