"""What a target model's config says: the facts the rules compare a draft with.

:func:`read_target` reads a target's sizes (top level, else ``text_config``, else a
Qwen3-Omni target's ``thinker_config.text_config``), its ``model_type`` and
``architectures``, and the special-token ids it sets, into a :class:`TargetFacts`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from drafting_config.draft.fields import special_token_fields
from drafting_config.values.errors import ParallelDraftingConfigError
from drafting_config.values.fields import FieldGetter, field_getter, is_list, top_or_text_config
from drafting_config.values.integers import positive_int32
from drafting_config.values.sources import TEXT_CONFIG


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
    readers: tuple[FieldGetter, ...] = field(default=(), compare=False, repr=False)
    """The readers of the target's config where its sizes are looked for, in that order: the
    top level, ``text_config``, ``thinker_config.text_config`` (an engine derives its own
    facts from them, such as vLLM's ``max_model_len``)."""
    special_tokens: tuple[tuple[str, object], ...] = ()
    """The target's ``pad_token_id``, ``bos_token_id`` and ``eos_token_id`` that are set
    (top level, else ``text_config``), as (field, raw value); ``eos_token_id`` may be a
    list."""
    padded_vocab_size: int | None = None
    """The target's ``padded_vocab_size`` (top level, else ``text_config``), which bounds
    SGLang's DSpark token id when set."""
    num_loops: int | None = None
    """The target's ``num_loops`` (loop models; top level, else ``text_config``): SGLang's
    runtime depth is ``num_hidden_layers * num_loops``."""


THINKER_TEXT_CONFIG: Final = f"thinker_config.{TEXT_CONFIG}"
"""Where a Qwen3-Omni target keeps its language model's sizes (vLLM's
``_get_qwen3_omni_text_config`` in ``vllm/config/speculative.py``)."""


def read_target(target_config: object) -> TargetFacts:
    """The facts of a target model's config; sizes fall back to ``text_config``, then to a
    Qwen3-Omni target's ``thinker_config.text_config``.

    ``padded_vocab_size`` and ``num_loops`` that are not positive int32s count as unset:
    no vLLM rule reads them (vLLM's ChatGLM classes size their embedding and lm_head by
    ``padded_vocab_size``, ``model_executor/models/chatglm.py``, rows past the
    ``vocab_size`` the token id is checked against), and SGLang's
    rules fall back as SGLang does (``num_loops`` 1, the ``vocab_size`` bound).

    Raises:
        ParallelDraftingConfigError: ``vocab_size``, ``hidden_size`` or
            ``num_hidden_layers`` is set but not a positive int32; the field is prefixed
            with ``target.``.
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

    def optional_size(name: str) -> int | None:
        # Read by some rules of one engine only (SGLang's depth and DSpark bound), never
        # a reason to fail the target: a value that is not a positive int32 counts as unset.
        try:
            return size(name)
        except ParallelDraftingConfigError:
            return None

    model_type = get("model_type", None)
    listed = get("architectures", None)
    architectures = listed if is_list(listed) else ()
    return TargetFacts(
        size("vocab_size"),
        size("hidden_size"),
        size("num_hidden_layers"),
        model_type=model_type if isinstance(model_type, str) else None,
        architectures=tuple(
            item
            for item in (architectures if is_list(architectures) else ())
            if isinstance(item, str)
        ),
        special_tokens=tuple(special_token_fields(top_or_text_config(get))),
        readers=tuple(reader for reader, _ in readers),
        padded_vocab_size=optional_size("padded_vocab_size"),
        num_loops=optional_size("num_loops"),
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
