"""The tokenizer's side of the contract: what a model's tokenizer files say of the token id.

The token id fills every masked slot, so it must not be real text, a placeholder
the tokenizer gives a role, or a different token than the one the draft names
by its text.  :func:`check_tokenizer` reads what
:mod:`drafting_config.files.tokenizer_files` found and records the broken rules.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final, cast

from drafting_config.draft.fields import placeholder_warning
from drafting_config.files.tokenizer_files import TokenKind
from drafting_config.rules.subject import Subject
from drafting_config.values import codes
from drafting_config.values.errors import (
    ParallelDraftingConfigError,
    TokenizerTokenIdWarning,
    describe_value,
)
from drafting_config.values.fields import read_path
from drafting_config.values.findings import Findings
from drafting_config.values.paths import display_path

MASK_TOKEN_TEXT_FIELD = "dflash_config.mask_token"
"""Where a draft names its mask token's text (SGLang reads it beside the id)."""

TEXT_KINDS: Final = MappingProxyType(
    {
        TokenKind.ORDINARY: "an ordinary token",
        TokenKind.ADDED: "an added token not marked special",
    }
)
"""Kinds of token that real text contains (Qwen3's ``<think>`` is an added token that is
not special), so a mask id of these kinds makes masked slots read as text."""

PLACEHOLDER_ROLES = ("pad", "eos", "bos", "unk")
"""Tokenizer roles a mask token must not coincide with."""


def check_tokenizer(subject: Subject, found: Findings) -> None:
    """The rules the tokenizer's files (``subject.tokenizer``) break for the token id: those of
    :func:`check_token_in_tokenizer`, then the mask text the draft names (an error when
    the tokenizer holds it at another id)."""
    if subject.tokenizer is None or subject.token_id is None:
        return
    named = read_path(subject.get, MASK_TOKEN_TEXT_FIELD)  # first: it may raise
    check_token_in_tokenizer(subject, found)
    _check_mask_text(subject, found, named)


def check_token_in_tokenizer(subject: Subject, found: Findings) -> None:
    """What the tokenizer's files say of the token id itself.

    * an ordinary base-vocabulary token, or an added token not marked special
      (Qwen3's ``<think>``): a warning quoting its text (every masked slot would
      read as that text);
    * the tokenizer's pad, eos, bos or unk token: a warning (a placeholder);
    * the tokenizer's own ``mask_token`` sits at another id: a warning.
    """
    tokenizer, token_id, field = subject.tokenizer, subject.token_id, subject.token_field
    if tokenizer is None or token_id is None:
        return
    facts = tokenizer.describe(token_id)
    if facts is not None and facts.kind in TEXT_KINDS:
        what = TEXT_KINDS[facts.kind]
        found.warn(
            TokenizerTokenIdWarning(
                f"`{field}` = {token_id} is {what} of the tokenizer in "
                f"{display_path(tokenizer.directory)}, {facts.text!r}, so every masked slot "
                "reads as that text.",
                field=field,
                code=codes.TOKEN_IS_ORDINARY,
                fix=f"set `{field}` to a dedicated special token or an unused embedding row",
            )
        )
    for role in PLACEHOLDER_ROLES:
        special = tokenizer.special_tokens.get(role)
        if special is not None and special.id == token_id:
            found.warn(
                placeholder_warning(
                    str(field), token_id, role, whose="tokenizer's", text=special.text
                )
            )
    mask = tokenizer.special_tokens.get("mask")
    if mask is not None and mask.id is not None and mask.id != token_id:
        found.warn(
            TokenizerTokenIdWarning(
                f"`{field}` = {token_id}, but the tokenizer's mask_token {mask.text!r} is id "
                f"{mask.id}, which engines that look the mask token up by name use.",
                field=field,
                code=codes.TOKEN_MASK_ELSEWHERE,
                fix=f"set `{field}` to {mask.id}, if the draft was trained with the tokenizer's "
                "mask token",
            )
        )


def _check_mask_text(subject: Subject, found: Findings, named: object) -> None:
    """The draft names its mask token's text (``named``, from ``dflash_config.mask_token``, as
    SGLang reads it): it must be a string, and the tokenizer must not hold it at another id
    than the token id (an error)."""
    tokenizer, token_id, field = subject.tokenizer, subject.token_id, subject.token_field
    if tokenizer is None or token_id is None:
        return
    text_field = subject.file_field(MASK_TOKEN_TEXT_FIELD)
    if named is None:
        return
    if not issubclass(type(named), str):
        found.error(
            ParallelDraftingConfigError(
                f"`{text_field}` must be the mask token's text, got {describe_value(named)}.",
                field=text_field,
                code=codes.MASK_TOKEN_TEXT_INVALID,
                fix=f"write `{text_field}` as the mask token's text, a JSON string",
            )
        )
        return
    text = cast("str", named)
    named_id = tokenizer.id_of(text)
    if named_id is not None and named_id != token_id:
        found.error(
            ParallelDraftingConfigError(
                f"`{text_field}` = {text!r} is id {named_id} in the tokenizer but `{field}` = "
                f"{token_id}, so SGLang refuses to start and other engines feed the wrong id.",
                field=text_field,
                code=codes.MASK_TOKEN_TEXT_DISAGREES,
                fix=f"make `{field}` and `{text_field}` name the same token",
                evidence="srt/speculative/dflash_worker_v2.py: "
                "DFlashWorkerV2._resolve_mask_token_id raises ValueError",
            )
        )
