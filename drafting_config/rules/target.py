"""The target's side of the contract: the draft's sizes and token id against the target's.

A draft model is fed the target's tokens, embeds its masked slots in the
target's embedding table, and (for all but PARD drafters) projects the
target's hidden states from the layers it taps.  :func:`contract_errors`
checks the draft's config against the target's:

* the token id is below the target's vocabulary size;
* ``draft_vocab_size`` is at most the target's vocabulary size;
* for drafters fed hidden states, ``target_hidden_size`` (else the draft's
  ``hidden_size``) equals the target's ``hidden_size``.

:func:`target_placeholder_warnings` warns when the token id is one the target's
config gives a role (pad, bos, eos).  The target layers a drafter taps have their
own module, :mod:`drafting_config.rules.layers`, and the tokenizer's rules theirs,
:mod:`drafting_config.rules.tokenizer`.  Every error's ``.field`` names the draft's
field; its message gives that field's value and the target's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from drafting_config.draft.resolution import (
    Resolution,
    names_token_id,
    placeholder_warning,
    special_token_fields,
)
from drafting_config.values.errors import (
    ParallelDraftingConfigError,
    ParallelDraftingConfigWarning,
)
from drafting_config.values.fields import FieldGetter, field_getter, read_path, top_or_text_config
from drafting_config.values.integers import positive_int32
from drafting_config.values.sources import TEXT_CONFIG

__all__ = ["TargetFacts", "contract_errors", "read_target", "target_placeholder_warnings"]


@dataclass(frozen=True)
class TargetFacts:
    """What the contract needs to know of the target model (its sizes from the top level,
    else ``text_config``, else ``thinker_config.text_config``)."""

    vocab_size: int | None
    hidden_size: int | None
    num_layers: int | None
    """The target's ``num_hidden_layers``."""
    model_type: str | None = None
    """The target's ``model_type`` (some layer rules of vLLM depend on it)."""
    architectures: tuple[str, ...] = ()
    """The target's ``architectures`` (the strings among them)."""
    special_tokens: tuple[tuple[str, object], ...] = ()
    """The target's ``pad_token_id``, ``bos_token_id`` and ``eos_token_id`` that are set
    (top level, else ``text_config``), as (field, raw value); ``eos_token_id`` may be a
    list."""


THINKER_TEXT_CONFIG: Final = f"thinker_config.{TEXT_CONFIG}"
"""Where a Qwen3-Omni target keeps its language model's sizes (vLLM's
``_get_qwen3_omni_text_config`` in ``vllm/config/speculative.py``)."""


def read_target(target_config: object) -> TargetFacts:
    """The facts of a target model's config; sizes fall back to ``text_config``, then to a
    Qwen3-Omni target's ``thinker_config.text_config``.

    Raises:
        ParallelDraftingConfigError: a size is set but not a positive int32; the
            field is prefixed with ``target.``.
    """
    get = field_getter(target_config, "target")
    readers = [(get, "target")]
    for path in (TEXT_CONFIG, THINKER_TEXT_CONFIG):
        nested = _nested(get, "target", path)
        if nested is not None:
            readers.append(nested)

    def size(name: str) -> int | None:
        for reader, where in readers:
            value = reader(name, None)
            if value is not None:
                return positive_int32(f"{where}.{name}", value)
        return None

    model_type = get("model_type", None)
    architectures = get("architectures", None)
    if not isinstance(architectures, (list, tuple)):
        architectures = ()
    return TargetFacts(
        size("vocab_size"),
        size("hidden_size"),
        size("num_hidden_layers"),
        model_type=model_type if isinstance(model_type, str) else None,
        architectures=tuple(item for item in architectures if isinstance(item, str)),
        special_tokens=tuple(special_token_fields(top_or_text_config(get))),
    )


def _nested(get: FieldGetter, where: str, path: str) -> tuple[FieldGetter, str] | None:
    """The reader of the section at dotted ``path``, and its full name; ``None`` when a
    section on the way is absent or null."""
    for name in path.split("."):
        section = get(name, None)
        if section is None:
            return None
        where = f"{where}.{name}"
        get = field_getter(section, where)
    return get, where


def contract_errors(
    draft_config: object, resolution: Resolution, target: TargetFacts | None
) -> list[ParallelDraftingConfigError]:
    """Every broken rule of the draft/target contract (see the module docstring).

    Args:
        draft_config: the draft's config as given (a speculators file is read
            through the HF config vLLM derives from it).
        resolution: the draft's token-id resolution.
        target: the target's facts; ``None`` checks nothing (every rule here needs it).
    """
    if target is None:
        return []
    read = _path_reader(draft_config, resolution)
    return _target_size_errors(read, resolution, target)


def target_placeholder_warnings(
    resolution: Resolution, target: TargetFacts
) -> list[ParallelDraftingConfigWarning]:
    """A warning for each of the target's ``pad_token_id``, ``bos_token_id`` and
    ``eos_token_id`` (any of a list) equal to the token id: the draft then fills its masked
    slots with a token the target gives a meaning, a placeholder copied from the target's
    config (published convention: trainers that fell back to the pad token as the mask
    degraded acceptance; see ``draft-target-contract.md``)."""
    winner = resolution.winner
    if winner is None or winner.token_id is None:
        return []
    source = resolution.file_field(winner.source.value)
    return [
        placeholder_warning(source, winner.token_id, field, value, whose="target's")
        for field, value in target.special_tokens
        if names_token_id(value, winner.token_id)
    ]


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
    """A reader of the draft's fields by dotted path
    (:func:`~drafting_config.values.fields.read_path`).

    A speculators file is read through the HF config vLLM derives from it.
    """
    get = field_getter(resolution.hf_config(draft_config), "")
    return lambda path: read_path(get, path)
