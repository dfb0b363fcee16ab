"""The target's side of the contract: the draft's sizes and token id against the target's.

A draft model is fed the target's tokens, embeds its masked slots in the
target's embedding table, and (for all but PARD drafters) projects the
target's hidden states from the layers it taps.  :func:`check_target_sizes`
checks the draft's config against the target's:

* the token id is below the target's vocabulary size;
* ``draft_vocab_size`` is at most the target's vocabulary size;
* for drafters fed hidden states, ``target_hidden_size`` (else the draft's
  ``hidden_size``) equals the target's ``hidden_size``; a separate draft model
  (:attr:`~drafting_config.rules.subject.Subject.separate_model`: vLLM's ``draft_model``,
  SGLang's ``STANDALONE``) runs on its own hidden states and is compared on vocabularies
  instead, by each engine's rule.

:func:`check_target_placeholders` warns when the token id is one the target's
config gives a role (pad, bos, eos).  The target layers a drafter taps are vLLM's
rules (:mod:`drafting_config.engines.vllm.layers`), and the tokenizer's rules have their own
module, :mod:`drafting_config.rules.tokenizer`.  Every error's ``.field`` names the
draft's field; its message gives that field's value and the target's.
"""

from __future__ import annotations

from drafting_config.draft.fields import names_token_id, placeholder_warning
from drafting_config.rules.subject import Subject
from drafting_config.values import codes
from drafting_config.values.errors import ParallelDraftingConfigError
from drafting_config.values.fields import read_path
from drafting_config.values.findings import Findings
from drafting_config.values.integers import positive_int32


def check_target_sizes(subject: Subject, found: Findings) -> None:
    """Every broken size rule of the draft/target contract (see the module docstring);
    nothing without a target."""
    target, draft = subject.target, subject.draft
    if target is None:
        return
    token_id = subject.token_id
    if token_id is not None and target.vocab_size is not None and token_id >= target.vocab_size:
        field = subject.token_field
        found.error(
            ParallelDraftingConfigError(
                f"`{field}` = {token_id} is outside the target's vocabulary: the target's "
                f"vocab_size is {target.vocab_size}, so the masked slots would index past its "
                "embedding table.",
                field=field,
                code=codes.TOKEN_OUTSIDE_TARGET_VOCAB,
                fix=f"set `{field}` to a mask token id below the target's vocab_size "
                f"({target.vocab_size})",
            )
        )
    draft_vocab = read_path(subject.get, "draft_vocab_size")
    if draft_vocab is not None:
        field = draft.file_field("draft_vocab_size")
        size = _size_or_error(found, field, draft_vocab)
        if size is not None and target.vocab_size is not None and size > target.vocab_size:
            found.error(
                ParallelDraftingConfigError(
                    f"`{field}` = {size} is larger than the target's vocab_size "
                    f"({target.vocab_size}), so the reduced draft vocabulary cannot map into it.",
                    field=field,
                    code=codes.VOCAB_LARGER_THAN_TARGET,
                    fix=f"check that this is the draft's target, or set `{field}` to at most "
                    f"{target.vocab_size}",
                )
            )
    if subject.takes_target_hidden_states and target.hidden_size is not None:
        field = "target_hidden_size"
        value = read_path(subject.get, field)
        if value is None:
            field, value = "hidden_size", draft.hidden_size
        field = draft.file_field(field)
        size = None if value is None else _size_or_error(found, field, value)
        if size is not None and size != target.hidden_size:
            found.error(
                ParallelDraftingConfigError(
                    f"`{field}` = {size} does not match the target's hidden_size "
                    f"({target.hidden_size}), though this drafter is fed the target's hidden "
                    "states.",
                    field=field,
                    code=codes.HIDDEN_SIZE_MISMATCH,
                    fix="check that this is the draft's intended target: the draft was "
                    f"trained on a target of hidden_size {size}",
                )
            )


def check_target_placeholders(subject: Subject, found: Findings) -> None:
    """A warning for each of the target's ``pad_token_id``, ``bos_token_id`` and
    ``eos_token_id`` (any of a list) equal to the token id: the draft then fills its masked
    slots with a token the target gives a meaning, a placeholder copied from the target's
    config (published convention: trainers that fell back to the pad token as the mask
    degraded acceptance; see ``draft-target-contract.md``)."""
    token_id, source = subject.token_id, subject.token_field
    if subject.target is None or token_id is None or source is None:
        return
    for field, value in subject.target.special_tokens:
        if names_token_id(value, token_id):
            found.warn(placeholder_warning(source, token_id, field, whose="target's"))


def _size_or_error(found: Findings, field: str, value: object) -> int | None:
    try:
        return positive_int32(field, value)
    except ParallelDraftingConfigError as error:
        found.error(error)
        return None
