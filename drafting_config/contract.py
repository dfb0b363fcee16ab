"""The draft/target contract of parallel drafting: the checks beyond the token id.

A draft model is fed the target's tokens, embeds its masked slots in the
target's embedding table, and (for all but PARD drafters) projects the
target's hidden states from the layers it taps.  :func:`contract_errors`
checks the draft's config against the target's:

* the token id is below the target's vocabulary size;
* ``draft_vocab_size`` is at most the target's vocabulary size;
* for drafters fed hidden states, ``target_hidden_size`` (else the draft's
  ``hidden_size``) equals the target's ``hidden_size``;
* every layer-id list names layers the target has
  (:func:`~drafting_config.layers.check_layer_ids`), and ``num_target_layers``
  agrees with the target.

Without a target only what the draft alone can tell is checked: the shape of
the layer lists, and layer ids against the draft's own ``num_target_layers``.
Every error's ``.field`` names the draft's field; its message gives that
field's value and the target's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from drafting_config.errors import (
    ParallelDraftingConfigError,
    ParallelDraftingConfigWarning,
    PlaceholderTokenIdWarning,
    TokenizerTokenIdWarning,
    describe_value,
)
from drafting_config.integers import positive_int32
from drafting_config.layers import check_layer_ids
from drafting_config.paths import display_path
from drafting_config.reading import FieldGetter, field_getter
from drafting_config.resolution import Resolution
from drafting_config.sources import TEXT_CONFIG
from drafting_config.tokenizer_files import TokenFacts, TokenizerFiles, TokenKind

__all__ = ["TargetFacts", "contract_errors", "read_target", "tokenizer_findings"]

HF_LAYER_ID_FIELDS = (
    "dflash_config.target_layer_ids",
    "target_layer_ids",
    "eagle_aux_hidden_state_layer_ids",
)
"""The HF-format fields that name target layers (0-based)."""

MASK_TOKEN_TEXT_FIELD = "dflash_config.mask_token"
"""Where a draft names its mask token's text (SGLang reads it beside the id)."""

PLACEHOLDER_ROLES = ("pad", "eos", "bos", "unk")
"""Tokenizer roles a mask token must not coincide with."""

NUM_TARGET_LAYERS_FIELDS = ("num_target_layers", "dflash_config.num_target_layers")
"""Where drafts record how many layers their target has (newer DFlash releases nest it)."""


@dataclass(frozen=True)
class TargetFacts:
    """What the contract needs to know of the target model (top level, else ``text_config``)."""

    vocab_size: int | None
    hidden_size: int | None
    num_layers: int | None
    """The target's ``num_hidden_layers``."""


def read_target(target_config: object) -> TargetFacts:
    """The sizes of a target model's config; multimodal targets fall back to ``text_config``.

    Raises:
        ParallelDraftingConfigError: a size is set but not a positive int32; the
            field is prefixed with ``target.``.
    """
    get = field_getter(target_config, "target")
    text = get(TEXT_CONFIG, None)
    text_get = None if text is None else field_getter(text, f"target.{TEXT_CONFIG}")

    def size(name: str) -> int | None:
        value, field = get(name, None), f"target.{name}"
        if value is None and text_get is not None:
            value, field = text_get(name, None), f"target.{TEXT_CONFIG}.{name}"
        return None if value is None else positive_int32(field, value)

    return TargetFacts(size("vocab_size"), size("hidden_size"), size("num_hidden_layers"))


def contract_errors(
    draft_config: object, resolution: Resolution, target: TargetFacts | None
) -> list[ParallelDraftingConfigError]:
    """Every broken rule of the draft/target contract (see the module docstring).

    Args:
        draft_config: the draft's config as given (a speculators file is read
            through the HF config vLLM derives from it).
        resolution: the draft's token-id resolution.
        target: the target's facts, or ``None`` to check the draft alone.
    """
    errors: list[ParallelDraftingConfigError] = []
    read = _path_reader(draft_config, resolution)

    num_layers, num_layers_source = None, None
    if target is not None and target.num_layers is not None:
        num_layers, num_layers_source = target.num_layers, "the target's num_hidden_layers"
    for read_field in NUM_TARGET_LAYERS_FIELDS:
        value = read(read_field)
        if value is None:
            continue
        field = resolution.file_field(read_field)
        try:
            count = positive_int32(field, value)
        except ParallelDraftingConfigError as error:
            errors.append(error)
            continue
        if num_layers is None:
            num_layers, num_layers_source = count, f"the draft's {field}"
        elif count != num_layers:  # the target's layer count, or the draft's other field
            errors.append(
                ParallelDraftingConfigError(
                    f"`{field}` = {count} does not match {num_layers_source} ({num_layers}): "
                    "the drafter's layer ids index the target's layers, so the counts must "
                    "agree. Is this the draft's intended target?",
                    field=field,
                )
            )

    layer_lists: list[tuple[str, object, int]]
    speculators = resolution.speculators
    if speculators is not None and speculators.layer_ids_field is not None:
        layer_lists = [(speculators.layer_ids_field, list(speculators.layer_ids), 1)]
    else:
        layer_lists = [(resolution.file_field(f), read(f), 0) for f in HF_LAYER_ID_FIELDS]
    for field, value, offset in layer_lists:
        if value is None:
            continue
        try:
            check_layer_ids(
                field,
                value,
                offset=offset,
                num_layers=num_layers,
                num_layers_source=num_layers_source,
            )
        except ParallelDraftingConfigError as error:
            errors.append(error)
    if target is not None:
        errors.extend(_target_size_errors(read, resolution, target))
    return errors


def _target_size_errors(
    read: _PathReader, resolution: Resolution, target: TargetFacts
) -> list[ParallelDraftingConfigError]:
    errors: list[ParallelDraftingConfigError] = []
    winner = resolution.winner
    if (
        winner is not None
        and winner.token_id is not None
        and target.vocab_size is not None
        and winner.token_id >= target.vocab_size
    ):
        field = resolution.file_field(winner.source.value)
        errors.append(
            ParallelDraftingConfigError(
                f"`{field}` = {winner.token_id} is outside the target's "
                f"vocabulary: the target's vocab_size is {target.vocab_size}, so the masked "
                "slots would index past its embedding table.",
                field=field,
            )
        )
    draft_vocab = read("draft_vocab_size")
    if draft_vocab is not None:
        field = resolution.file_field("draft_vocab_size")
        size = _size_or_error(errors, field, draft_vocab)
        if size is not None and target.vocab_size is not None and size > target.vocab_size:
            errors.append(
                ParallelDraftingConfigError(
                    f"`{field}` = {size} is larger than the target's vocab_size "
                    f"({target.vocab_size}); a reduced draft vocabulary must fit in it.",
                    field=field,
                )
            )
    if resolution.takes_target_hidden_states and target.hidden_size is not None:
        field = "target_hidden_size"
        value = read(field)
        if value is None:
            field, value = "hidden_size", resolution.hidden_size
        field = resolution.file_field(field)
        size_or_none = None if value is None else _size_or_error(errors, field, value)
        if size_or_none is not None and size_or_none != target.hidden_size:
            errors.append(_mismatch(field, size_or_none, "hidden_size", target.hidden_size))
    return errors


def _size_or_error(
    errors: list[ParallelDraftingConfigError], field: str, value: object
) -> int | None:
    try:
        return positive_int32(field, value)
    except ParallelDraftingConfigError as error:
        errors.append(error)
        return None


def _mismatch(
    field: str, value: int, target_field: str, target_value: int | None
) -> ParallelDraftingConfigError:
    return ParallelDraftingConfigError(
        f"`{field}` = {value} does not match the target's {target_field} ({target_value}): "
        "this drafter is fed the target's hidden states, so the two must agree. Is this the "
        "draft's intended target?",
        field=field,
    )


_PathReader = Callable[[str], object]
"""Reads a dotted path of the draft's config: ``None`` when it or its section is absent or null."""


def _path_reader(draft_config: object, resolution: Resolution) -> _PathReader:
    """A reader of the draft's fields by dotted path, reading each section once.

    A speculators file is read through the HF config vLLM derives from it.
    """
    speculators = resolution.speculators
    get = field_getter(draft_config if speculators is None else speculators.hf_config, "")
    sections: dict[str, FieldGetter | None] = {}

    def read(path: str) -> object:
        section, _, key = path.rpartition(".")
        if not section:
            return get(key, None)
        if section not in sections:
            container = get(section, None)
            sections[section] = None if container is None else field_getter(container, section)
        section_get = sections[section]
        return None if section_get is None else section_get(key, None)

    return read


def tokenizer_findings(
    tokenizer: TokenizerFiles, draft_config: object, resolution: Resolution
) -> tuple[
    TokenFacts | None, list[ParallelDraftingConfigError], list[ParallelDraftingConfigWarning]
]:
    """What the tokenizer says of the token id, and the rules it breaks.

    * an ordinary base-vocabulary token: a warning quoting its text (every
      masked slot would read as that text);
    * the tokenizer's pad, eos, bos or unk token: a warning (a placeholder);
    * the draft names its mask token string (``dflash_config.mask_token``, as
      SGLang reads it) and the tokenizer has that string at another id: an error;
    * the tokenizer's own ``mask_token`` sits at another id: a warning.
    """
    winner = resolution.winner
    if winner is None or winner.token_id is None:
        return None, [], []
    token_id, field = winner.token_id, resolution.file_field(winner.source.value)
    errors: list[ParallelDraftingConfigError] = []
    warnings: list[ParallelDraftingConfigWarning] = []
    facts = tokenizer.describe(token_id)
    if facts is not None and facts.kind is TokenKind.ORDINARY:
        warnings.append(
            TokenizerTokenIdWarning(
                f"`{field}` = {token_id} is an ordinary token of the tokenizer in "
                f"{display_path(tokenizer.directory)}, {facts.text!r}: every masked slot will "
                "read as that text. Use an unused embedding row or a dedicated special token."
            )
        )
    for role in PLACEHOLDER_ROLES:
        special = tokenizer.special_tokens.get(role)
        if special is not None and special.id == token_id:
            warnings.append(
                PlaceholderTokenIdWarning(
                    f"`{field}` = {token_id} is the tokenizer's {role} token "
                    f"({special.text!r}): a placeholder copied from a special token makes "
                    "every masked slot look like it and ruins acceptance rates."
                )
            )
    mask = tokenizer.special_tokens.get("mask")
    if mask is not None and mask.id is not None and mask.id != token_id:
        warnings.append(
            TokenizerTokenIdWarning(
                f"`{field}` = {token_id}, but the tokenizer's mask_token {mask.text!r} is id "
                f"{mask.id}; engines that look the mask token up by name will use {mask.id}."
            )
        )
    named = _path_reader(draft_config, resolution)(MASK_TOKEN_TEXT_FIELD)
    text_field = resolution.file_field(MASK_TOKEN_TEXT_FIELD)
    if named is not None:
        if not issubclass(type(named), str):
            errors.append(
                ParallelDraftingConfigError(
                    f"`{text_field}` must be the mask token's text, got {describe_value(named)}.",
                    field=text_field,
                )
            )
        else:
            text = str.__str__(named)
            named_id = tokenizer.id_of(text)
            if named_id is not None and named_id != token_id:
                errors.append(
                    ParallelDraftingConfigError(
                        f"`{text_field}` = {text!r} is id {named_id} in the tokenizer, "
                        f"but `{field}` = {token_id}: SGLang refuses to start on this mismatch "
                        "and other engines feed one id while the model expects the other.",
                        field=text_field,
                    )
                )
    return facts, errors, warnings
