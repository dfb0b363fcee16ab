"""The typed, validated parallel-drafting config: :class:`ParallelDraftingConfig`."""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Mapping
from typing import Annotated, cast

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    Strict,
    StrictInt,
    ValidationError,
    model_validator,
)
from typing_extensions import Self

from drafting_config.draft.fields import token_id_error
from drafting_config.draft.file import ConfigFormat
from drafting_config.engines.vllm.resolution import Resolution, resolve
from drafting_config.files.repo_ids import DEFAULT_REVISION
from drafting_config.values import codes
from drafting_config.values.errors import (
    ParallelDraftingConfigError,
    ParallelDraftingConfigWarning,
    caller_stacklevel,
    foreign_error,
)
from drafting_config.values.fields import is_kind
from drafting_config.values.integers import INT32_LIMIT
from drafting_config.values.paths import as_path
from drafting_config.values.sources import PRIORITY_ORDER, TokenIdSource
from drafting_config.verdicts import ModelArgument, Verdict, check, load

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
    or :meth:`model_validate`, which run the same validator.  The config may be a
    ``transformers`` ``PreTrainedConfig``, a mapping such as a parsed
    ``config.json``, or any object with attributes.  The token id is read from
    the first field of :data:`~drafting_config.PRIORITY_ORDER` that is set (not
    absent and not null).

    Every field that is set must hold an ``int`` in ``[0, 2**31)``, and below
    ``vocab_size`` when the config gives one; nothing is coerced.  Two set
    fields that disagree, or a token id equal to the pad, bos or eos token id,
    emit a :class:`~drafting_config.ParallelDraftingConfigWarning`.

    What each entry point raises for an unusable config:

    * :meth:`from_hf_config` and :meth:`from_pretrained` raise
      :class:`~drafting_config.ParallelDraftingConfigError` itself;
    * :meth:`model_validate` (and the constructor) raise pydantic's
      ``ValidationError``; for a rule of ours, its error's ``ctx["error"]``
      is the original :class:`~drafting_config.ParallelDraftingConfigError`,
      ``.field`` included.  Both are ``ValueError`` subclasses.

    The model's own form (a mapping with a ``token_id`` key, as
    :meth:`model_dump` writes it) is validated as strictly as an HF config.
    A subclass validates the same way; an HF config does not fill a
    subclass's extra fields, so a required extra field is an error there.

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

    format: ConfigFormat = "hf"
    """The layout of the draft's ``config.json``: Hugging Face's or the speculators library's."""

    algorithm: str | None = None
    """The drafting method: the speculators type for a speculators file, else the winning
    field's method (``"dflash"``, ``"dspark"``, ``"pard"``, ``"ptd"``), or ``None`` for the
    generic ``mask_token_id``."""

    aux_layer_ids: tuple[StrictInt, ...] | None = None
    """The target layers the drafter taps, as capture indices (0: the input of the target's
    first layer; ``i + 1``: the output of layer ``i``), exactly as the chain of the vLLM
    model runner serving the draft's method returns them; vLLM sorts and de-duplicates
    them later.  ``None`` when the config names none (vLLM then taps the target model's
    default layers) or the drafter takes no hidden states.  Not checked here: the layer
    rules belong to :func:`drafting_config.check`."""

    aux_layer_source: str | None = None
    """The field :attr:`aux_layer_ids` came from, as the draft's file names it
    (``"dflash_config.target_layer_ids"``, ``"aux_hidden_state_layer_ids"``)."""

    @classmethod
    def from_hf_config(
        cls,
        hf_config: object,
        *,
        target: ModelArgument | None = None,
        tokenizer: str | os.PathLike[str] | None = None,
    ) -> Self:
        """Resolve and validate the parallel-drafting token of a draft model's config.

        Without ``target`` and ``tokenizer`` this is :meth:`model_validate`, raising
        our own error.  With either, the whole contract is checked first
        (:func:`drafting_config.check`) and its first failure raised; the facts
        about the target and the tokenizer stay in that verdict.

        Args:
            hf_config: a ``transformers`` ``PreTrainedConfig`` (any subclass), a
                mapping such as a parsed ``config.json``, or any object with
                attributes, such as ``types.SimpleNamespace``.
            target: the target model: an HF config, a mapping, a local path or
                a repo id in the local Hugging Face cache.
            tokenizer: a directory of tokenizer files (default: the target's).

        Raises:
            ParallelDraftingConfigError: no token-id field is set, a set field
                is not a valid token id, ``hf_config`` is not a config at all,
                or a check against the target or tokenizer fails.
        """
        if target is None and tokenizer is None:
            try:
                return cls.model_validate(hf_config)
            except ValidationError as error:
                raise _our_error(error) from None
        return cls._from_verdict(check(hf_config, target=target, tokenizer=tokenizer))

    @classmethod
    def from_pretrained(
        cls,
        path: str | bytes | os.PathLike[str] | os.PathLike[bytes],
        *,
        revision: str = DEFAULT_REVISION,
        target: ModelArgument | None = None,
        target_revision: str = DEFAULT_REVISION,
        tokenizer: str | os.PathLike[str] | None = None,
        download: bool = False,
    ) -> Self:
        """Read and resolve a draft's ``config.json``: a file, a model directory, or a repo id.

        A local path that exists wins; ``ORG/NAME`` is otherwise looked up in the
        local Hugging Face cache at ``revision`` (needs the ``hub`` extra), and
        fetched (``config.json`` and tokenizer files only) only with
        ``download=True``.  Only JSON is parsed: ``transformers`` is not
        imported and no code named by the config (``auto_map``) is run.

        With ``target`` or ``tokenizer``, the whole contract is checked as in
        :meth:`from_hf_config`; the tokenizer files are then looked for in
        ``tokenizer``, else beside the draft, else beside the target.

        Raises:
            ConfigFileError: the file cannot be read or is not a JSON object.
            ParallelDraftingConfigError: the config is invalid (the message
                starts with the path), the repo id is not cached, or a check
                against the target or tokenizer fails.
        """
        if target is None and tokenizer is None:
            as_path(path)  # a path or a repo id, never a config object: raises for one
            located = load(path, revision=revision, download=download)
            try:
                return cls.from_hf_config(located.config)
            except ParallelDraftingConfigError as error:
                raise ParallelDraftingConfigError(
                    f"{located.shown}: {error}",
                    field=error.field,
                    code=error.code,
                    fix=error.fix,
                    evidence=error.evidence,
                ) from None
        verdict = check(
            path,
            target=target,
            tokenizer=tokenizer,
            revision=revision,
            target_revision=target_revision,
            download=download,
        )
        return cls._from_verdict(verdict)

    @classmethod
    def _from_verdict(cls, verdict: Verdict) -> Self:
        """The model of a checked draft, raising the verdict's first error and emitting its
        warnings."""
        verdict.raise_first()
        emit_warnings(verdict.warnings)
        if verdict.resolution is None:  # unreachable: a verdict without one has an error
            raise ParallelDraftingConfigError(
                "the draft could not be read", code=codes.FILE_MALFORMED
            )
        fields = _model_fields(verdict.resolution)
        # The layers as the verdict reads them, knowing the target.
        fields.update(
            aux_layer_ids=verdict.aux_layer_ids, aux_layer_source=verdict.aux_layer_source
        )
        try:
            return cls.model_validate(fields)
        except ValidationError as error:
            raise _our_error(error) from None

    @model_validator(mode="before")
    @classmethod
    def _resolve_hf_config(cls, data: object) -> object:
        """Resolve an HF config into this model's fields, by the priority order.

        A mapping with a ``token_id`` key is this model's own form and is
        validated field by field; a :class:`~drafting_config.Resolution`
        is used as it is (its warnings are the caller's to emit); anything else
        is treated as an HF config.
        """
        if type(data) is Resolution:
            return _model_fields(data)
        own_form = _own_form(data)
        if own_form is not None:
            return own_form
        resolution = resolve(data)
        # The token id and the sizes only: the layer rules belong to check(), which needs
        # the target to judge them.
        resolution.raise_first()
        emit_warnings(resolution.warnings)
        return _model_fields(resolution)

    @model_validator(mode="after")
    def _check_consistency(self) -> Self:
        """Cross-field rules: every id below ``vocab_size``, shadowed fields in priority order."""
        ids = [("token_id", self.token_id)]
        ids += [(f"shadowed[{i}].token_id", s.token_id) for i, s in enumerate(self.shadowed)]
        for field, token_id in ids:
            checked = token_id_error(field, token_id, self.vocab_size)
            if isinstance(checked, ParallelDraftingConfigError):
                raise checked
        rank = PRIORITY_ORDER.index
        ranks = [rank(self.source), *(rank(item.source) for item in self.shadowed)]
        if ranks != sorted(set(ranks)):
            raise ParallelDraftingConfigError(
                "`shadowed` must list fields of lower priority than `source`, each once, "
                f"in priority order; got source={self.source.value!r}, shadowed="
                f"{[item.source.value for item in self.shadowed]}.",
                field="shadowed",
                code=codes.MODEL_FIELD_INVALID,
                fix="list in `shadowed` only fields below `source` in PRIORITY_ORDER, in that "
                "order",
            )
        return self


def _own_form(data: object) -> dict[object, object] | None:
    """This model's serialized form (a mapping with a ``token_id`` key) as a plain dict,
    or ``None`` when ``data`` is anything else (an HF config).

    Raises:
        ParallelDraftingConfigError: the mapping's own methods raise.
    """
    if not is_kind(data, Mapping):
        return None
    mapping = cast("Mapping[object, object]", data)
    try:
        return dict(mapping.items()) if "token_id" in mapping else None
    except Exception as error:  # a mapping whose __contains__ or items raises
        raise foreign_error("Could not read the draft model's config", error, field=None) from None


def _model_fields(resolution: Resolution) -> dict[str, object]:
    """The model's fields from a resolution whose first set field won."""
    winner = resolution.winner
    if winner is None:  # only a failed resolution has none, and those raise first
        resolution.raise_first()
        raise ParallelDraftingConfigError(
            "no parallel drafting token id was resolved", code=codes.TOKEN_MISSING
        )
    return {
        "token_id": winner.token_id,
        "source": winner.source,
        "shadowed": [{"source": f.source, "token_id": f.token_id} for f in resolution.shadowed],
        "hidden_size": resolution.hidden_size,
        "vocab_size": resolution.vocab_size,
        "format": resolution.format,
        "algorithm": resolution.algorithm,
        "aux_layer_ids": resolution.aux_layer_ids,
        "aux_layer_source": resolution.aux_layer_source,
    }


def _our_error(error: ValidationError) -> ParallelDraftingConfigError:
    """The error a rule of ours raised inside validation, or one built from pydantic's first."""
    details = error.errors()
    for detail in details:
        original = detail.get("ctx", {}).get("error")
        if isinstance(original, ParallelDraftingConfigError):
            return original
    first = details[0]
    field = ".".join(str(part) for part in first["loc"]) or None
    return ParallelDraftingConfigError(
        f"`{field}`: {first['msg']}.", field=field, code=codes.MODEL_FIELD_INVALID
    )


def emit_warnings(pending: Iterable[ParallelDraftingConfigWarning]) -> None:
    """Emit collected warnings, each pointing at the user's call site."""
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
