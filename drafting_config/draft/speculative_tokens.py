"""The number of tokens a draft says it drafts per step, from its own file (no engine).

One function, :func:`draft_speculative_tokens`: a DFlash draft's ``block_size - 1`` (the
anchor plus ``block_size - 1`` masked slots fill the block it was trained on), a speculators
file's ``speculators_config.proposal_methods[0].speculative_tokens``, an ``n_predict``; else
``None``: the file does not say.
"""

from __future__ import annotations

from drafting_config.draft.file import DraftFile
from drafting_config.values.errors import ParallelDraftingConfigError
from drafting_config.values.fields import is_kind, is_list, read_path
from drafting_config.values.integers import exact_int


def draft_speculative_tokens(draft: DraftFile) -> int | None:
    """The tokens the draft's file says it drafts per step (see the module), or ``None``.
    A field that cannot be read, or is not a positive int, says nothing."""
    try:
        if draft.format == "speculators":
            methods = read_path(draft.get, "speculators_config.proposal_methods")
            if is_list(methods) and methods and is_kind(methods[0], dict):
                first: dict[object, object] = methods[0]  # type: ignore[assignment]
                return _positive(first.get("speculative_tokens"))
        if draft.named_method == "dflash":
            block = _positive(read_path(draft.get, "dflash_config.block_size"))
            if block is None:
                block = _positive(draft.get("block_size", None))
            if block is not None and block > 1:
                return block - 1
        return _positive(draft.get("n_predict", None))
    except ParallelDraftingConfigError:
        return None


def _positive(value: object) -> int | None:
    number = exact_int(value)
    return number if number is not None and number > 0 else None
