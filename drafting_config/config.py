"""The typed, validated parallel-drafting config: :class:`ParallelDraftingConfig`."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Mapping
from typing import Annotated, Final, TypeVar

from pydantic import BaseModel, ConfigDict, Field, Strict, model_validator
from typing_extensions import Self

from drafting_config.errors import (
    ParallelDraftingConfigError,
    ParallelDraftingConfigWarning,
    caller_stacklevel,
)
from drafting_config.loading import load_config_json
from drafting_config.resolution import INT32_LIMIT, ResolvedFields, resolve
from drafting_config.sources import PRIORITY_ORDER, TokenIdSource

__all__ = ["ParallelDraftingConfig", "ShadowedTokenId", "get_parallel_drafting_token_id"]

TokenId = Annotated[int, Strict(), Field(ge=0, lt=INT32_LIMIT)]
"""A token id as engines feed it to the model: an int32 that is not negative."""

ModelSize = Annotated[int, Strict(), Field(gt=0, lt=INT32_LIMIT)]
"""A vocabulary or hidden size: a positive int32."""


class ShadowedTokenId(BaseModel):
    """A lower-priority token-id field that was set too, and lost to the winner."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    source: TokenIdSource
    """The field that was set."""

    token_id: TokenId
    """Its value."""


class ParallelDraftingConfig(BaseModel):
    """The token that fills a parallel-drafting draft model's masked slots, resolved and validated.

    Build it from a draft model's Hugging Face config with :meth:`from_hf_config`
    (or, equivalently, :meth:`model_validate`).  The config may be a
    ``transformers`` ``PreTrainedConfig``, a mapping such as a parsed
    ``config.json``, or any object with attributes.  The token id is read from
    the first of these fields that is set (not absent and not null)::

        dflash_config.mask_token_id > mask_token_id > dspark_noise_token_id
            > pard_token > ptd_token_id

    Every field that is set must hold an ``int`` in ``[0, 2**31)``, and below
    ``vocab_size`` when the config gives one; nothing is coerced.  Failures raise
    :class:`~drafting_config.ParallelDraftingConfigError`.  Two set fields that
    disagree, or a token id equal to the pad, bos or eos token id, emit a
    :class:`~drafting_config.ParallelDraftingConfigWarning`.

    The model is frozen, hashable, picklable, and round-trips through
    :meth:`model_dump_json` / :meth:`model_validate_json`.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    token_id: TokenId
    """The token id that fills the draft model's masked slots."""

    source: TokenIdSource
    """The config field the token id was read from."""

    shadowed: tuple[ShadowedTokenId, ...] = ()
    """Lower-priority token-id fields that were also set, in priority order."""

    hidden_size: ModelSize | None = None
    """The draft model's hidden size (top-level, else ``text_config.hidden_size``)."""

    vocab_size: ModelSize | None = None
    """The draft model's vocabulary size (top-level, else ``text_config.vocab_size``)."""

    @classmethod
    def from_hf_config(cls, hf_config: object) -> Self:
        """Resolve and validate the parallel-drafting token of a draft model's config.

        Args:
            hf_config: a ``transformers`` ``PreTrainedConfig`` (any subclass), a
                mapping such as a parsed ``config.json``, or any object with
                attributes, such as ``types.SimpleNamespace``.

        Raises:
            ParallelDraftingConfigError: no token-id field is set, a set field
                is not a valid token id, or ``hf_config`` is not a config at all.
        """
        fields, pending = resolve(hf_config)
        if pending:
            _emit(pending)
        if fields["shadowed"]:
            return cls._from_fields(fields)
        return _construct(cls, fields)  # _from_fields' common case, inlined for speed

    @classmethod
    def from_pretrained(cls, path: str | os.PathLike[str]) -> Self:
        """Read and resolve a local ``config.json``, or the one in a model directory.

        Only JSON is parsed: ``transformers`` is not imported, no hub is
        contacted, and no code named by the config (``auto_map``) is run.

        Raises:
            ConfigFileError: the file cannot be read or is not a JSON object.
            ParallelDraftingConfigError: the config is invalid; the message
                starts with the path.
        """
        hf_config = load_config_json(path)
        try:
            fields, pending = resolve(hf_config)
        except ParallelDraftingConfigError as error:
            raise ParallelDraftingConfigError(
                f"{os.fspath(path)}: {error}", field=error.field
            ) from None
        _emit(pending)
        return cls._from_fields(fields)

    @classmethod
    def _from_fields(cls, fields: ResolvedFields) -> Self:
        """Build from fields that ``resolve`` has validated, without validating again."""
        if fields["shadowed"]:
            shadowed = tuple(
                _construct(ShadowedTokenId, {"source": source, "token_id": token_id})
                for source, token_id in fields["shadowed"]
            )
            return _construct(cls, {**fields, "shadowed": shadowed})
        return _construct(cls, fields)  # the dict becomes the instance's __dict__

    @model_validator(mode="before")
    @classmethod
    def _resolve_hf_config(cls, data: object) -> object:
        """Let ``model_validate`` accept an HF config as well as this model's own fields.

        A mapping with a ``token_id`` key is this model's serialized form and is
        validated field by field; anything else is treated as an HF config.
        """
        if isinstance(data, Mapping) and "token_id" in data:
            return data
        fields, pending = resolve(data)
        _emit(pending)
        return dict(cls._from_fields(fields))

    @model_validator(mode="after")
    def _check_consistency(self) -> Self:
        """Cross-field rules for configs built from their own fields (e.g. deserialized)."""
        if self.vocab_size is not None and self.token_id >= self.vocab_size:
            raise ParallelDraftingConfigError(
                f"`token_id` = {self.token_id} is out of range: expected an int in "
                f"[0, {self.vocab_size}) (vocab_size is {self.vocab_size}).",
                field="token_id",
            )
        rank = PRIORITY_ORDER.index
        ranks = [rank(self.source), *(rank(item.source) for item in self.shadowed)]
        if ranks != sorted(set(ranks)):
            raise ParallelDraftingConfigError(
                "`shadowed` must list fields of lower priority than `source`, each once, "
                f"in priority order; got source={self.source.value!r}, shadowed="
                f"{[item.source.value for item in self.shadowed]}.",
                field="shadowed",
            )
        return self


_ModelT = TypeVar("_ModelT", bound=BaseModel)

# What pydantic's model_construct sets on an instance of a model without private
# attributes, extra fields or post-init hooks: the four slots BaseModel declares.
# Setting them through their slot descriptors is ~8x faster than model_construct
# (benchmarks/RESULTS.md); tests/test_model.py checks the instances are identical.
_INSTANCE_SLOTS: Final = (
    "__dict__",
    "__pydantic_fields_set__",
    "__pydantic_extra__",
    "__pydantic_private__",
)
_SLOTS_AS_EXPECTED: Final = BaseModel.__slots__ == _INSTANCE_SLOTS


def _slot_setter(name: str) -> Callable[[object, object], None]:
    """The ``__set__`` of BaseModel's slot ``name``, or a plain setattr if it has none."""
    descriptor = BaseModel.__dict__.get(name)
    if descriptor is None:
        return lambda instance, value: object.__setattr__(instance, name, value)
    setter: Callable[[object, object], None] = descriptor.__set__
    return setter


_set_dict, _set_fields_set, _set_extra, _set_private = map(_slot_setter, _INSTANCE_SLOTS)
_new_instance = object.__new__


def _construct(cls: type[_ModelT], fields: Mapping[str, object]) -> _ModelT:
    """``cls.model_construct(**fields)`` for a model whose every field is in ``fields``.

    ``fields`` must be a fresh ``dict``: it becomes the instance's ``__dict__``.
    """
    if cls not in _PLAIN_MODELS:  # a subclass, or a pydantic whose instances differ
        return cls.model_construct(None, **fields)
    instance = _new_instance(cls)
    _set_dict(instance, fields)
    _set_fields_set(instance, set(fields))
    _set_extra(instance, None)
    _set_private(instance, None)
    return instance


_PLAIN_MODELS: Final = frozenset(
    model
    for model in (ParallelDraftingConfig, ShadowedTokenId)
    if _SLOTS_AS_EXPECTED
    and model.__pydantic_post_init__ is None
    and not model.__private_attributes__
)
"""Models that :func:`_construct` may build directly."""


def _emit(pending: list[ParallelDraftingConfigWarning]) -> None:
    for warning in pending:
        warnings.warn(warning, stacklevel=caller_stacklevel())


def get_parallel_drafting_token_id(hf_config: object) -> int:
    """Return the parallel-drafting token id of a draft model's HF config.

    A drop-in for the function of the same name in vLLM's model runner, with the
    same priority order but without its silent ``int()`` coercion: see
    :class:`ParallelDraftingConfig` for the rules.

    Raises:
        ParallelDraftingConfigError: a :class:`ValueError`, as vLLM documents.
    """
    return ParallelDraftingConfig.from_hf_config(hf_config).token_id
