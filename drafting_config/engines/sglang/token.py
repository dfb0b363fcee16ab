"""The token id SGLang 0.5.23 feeds the masked slots: ``DFlashWorkerV2._resolve_mask_token_id``
(the configured id, else the served tokenizer's ``<|MASK|>``, added when missing), its
rules, and ``mask_embedding.pt`` as SGLang's DFlash worker reads it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Final

from drafting_config.draft.fields import names_token_id, placeholder_warning
from drafting_config.engines.interface import TokenField
from drafting_config.engines.sglang import codes as sglang_codes
from drafting_config.engines.sglang.config import (
    DEFAULT_MASK_TOKEN,
    DFLASH_TOKEN_ORDER,
    DSPARK_TOKEN_ORDER,
    sglang_algorithm,
    sglang_draft,
)
from drafting_config.engines.sglang.names import Algorithm, SglangRefuses
from drafting_config.files.mask_embedding import MaskEmbedding
from drafting_config.files.tokenizer_files import TokenizerFiles
from drafting_config.rules.subject import Subject
from drafting_config.values import codes
from drafting_config.values.errors import (
    ParallelDraftingConfigError,
    TokenizerTokenIdWarning,
    bounded_repr,
)
from drafting_config.values.fields import MISSING
from drafting_config.values.findings import Findings
from drafting_config.values.integers import exact_int
from drafting_config.values.paths import display_path

# --- the token id (srt/speculative/dflash_worker_v2.py) -----------------------------------------

_RESOLVE: Final = "srt/speculative/dflash_worker_v2.py: DFlashWorkerV2._resolve_mask_token_id"
_MERGE: Final = (
    "srt/speculative/dflash_worker_v2.py: DFlashWorkerV2._maybe_merge_trained_mask_embedding"
)
_NAME_THE_ID: Final = "name the mask token's id in `dflash_config.mask_token_id`"


class MaskSource(str, enum.Enum):
    """Where SGLang's DFlash worker takes the token id from."""

    CONFIG = "config"
    """The draft's configured id."""
    TOKENIZER_MASK = "tokenizer mask_token"
    """The served tokenizer's ``mask_token``, when it is the draft's mask string."""
    TOKENIZER_VOCAB = "tokenizer vocabulary"
    """The id of the mask string in the served tokenizer's vocabulary."""
    ADDED = "added to the tokenizer"
    """Not in the tokenizer: SGLang adds the mask string as a special token, at
    ``len(tokenizer)``."""


@dataclass(frozen=True)
class MaskTokenId:
    """The id ``DFlashWorkerV2._resolve_mask_token_id`` settles on, and how."""

    token_id: int
    source: MaskSource


def resolve_mask_token_id(
    mask_token: str,
    mask_token_id: int | None,
    *,
    vocab_size: int | None,
    tokenizer: TokenizerFiles | None,
) -> MaskTokenId | None:
    """``DFlashWorkerV2._resolve_mask_token_id``: the configured id, below the target's
    ``vocab_size`` and not contradicted by the mask string's id in the served tokenizer;
    without one, the tokenizer's ``mask_token`` when it is the mask string, else the
    string's id in its vocabulary, else the id SGLang gives it by adding it
    (``len(tokenizer)``).  ``None`` when the answer needs a tokenizer that was not read
    (``tokenizer=None``), or a tokenizer whose length is unknown.

    Raises:
        SglangRefuses: the id is at or past ``vocab_size``, or the tokenizer holds the
            mask string at another id.
    """
    if mask_token_id is not None:
        _below_vocab(mask_token_id, vocab_size, mask_token)
        found = None if tokenizer is None else tokenizer.id_of(mask_token)
        if found is not None and found != mask_token_id:
            raise SglangRefuses(
                f"The draft's mask token id is {bounded_repr(mask_token_id)}, but the served "
                f"tokenizer holds its mask token {bounded_repr(mask_token)} at id "
                f"{bounded_repr(found)}: SGLang refuses to start.",
                field="dflash_config.mask_token",
                code=codes.TOKEN_MASK_ELSEWHERE,
                fix="make the draft's mask token id and the tokenizer's id of its mask token agree",
                evidence=f"{_RESOLVE} raises ValueError ('DFLASH config mismatch')",
            )
        return MaskTokenId(mask_token_id, MaskSource.CONFIG)
    if tokenizer is None:
        return None
    mask = tokenizer.special_tokens.get("mask")
    resolved: MaskTokenId | None = None
    if mask is not None and mask.text == mask_token and mask.id is not None:
        resolved = MaskTokenId(mask.id, MaskSource.TOKENIZER_MASK)
    if resolved is None:
        found = tokenizer.id_of(mask_token)
        if found is not None:
            resolved = MaskTokenId(found, MaskSource.TOKENIZER_VOCAB)
    if resolved is None:
        if tokenizer.length is None:
            return None
        resolved = MaskTokenId(tokenizer.length, MaskSource.ADDED)
    _below_vocab(resolved.token_id, vocab_size, mask_token)
    return resolved


def _below_vocab(token_id: int, vocab_size: int | None, mask_token: str) -> None:
    if vocab_size is not None and token_id >= vocab_size:
        raise SglangRefuses(
            f"The mask token id {bounded_repr(token_id)} ({bounded_repr(mask_token)}) is outside "
            f"the target's vocabulary of {bounded_repr(vocab_size)}, so SGLang refuses to start.",
            field="dflash_config.mask_token_id",
            code=codes.TOKEN_OUTSIDE_TARGET_VOCAB,
            fix="set `dflash_config.mask_token_id` to the mask token's id in the target's "
            "vocabulary",
            evidence=f"{_RESOLVE} raises ValueError (SGLang does not resize the target's "
            "embeddings)",
        )


# --- the token id ----------------------------------------------------------------------------


@dataclass(frozen=True)
class SglangToken:
    """The token id SGLang feeds the masked slots, and where it comes from."""

    token_id: int | None
    source: str | None
    """The draft's field, or ``"tokenizer"``."""
    added: bool = False
    """SGLang adds the mask token to the served tokenizer."""
    text: str | None = None
    """The mask token's text (DFlash)."""


def sglang_token(subject: Subject) -> SglangToken:
    """The id SGLang settles on for the draft, with the served tokenizer
    ``subject.tokenizer`` when read: DSpark's parsed id, DFlash's configured id or the
    tokenizer's (:func:`resolve_mask_token_id`).

    Raises:
        SglangRefuses: SGLang refuses the id (its vocabulary bound, the tokenizer).
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    parsed = sglang_draft(subject)
    if parsed is None:
        return SglangToken(None, None)
    if parsed.dspark is not None:
        return SglangToken(parsed.dspark.mask_token_id, parsed.dspark.mask_token_id_field)
    draft = parsed.dflash
    target = subject.target
    resolved: MaskTokenId | None = resolve_mask_token_id(
        draft.mask_token,
        draft.mask_token_id,
        vocab_size=None if target is None else target.vocab_size,
        tokenizer=subject.tokenizer,
    )
    if resolved is None:
        return SglangToken(None, None, text=draft.mask_token)
    if resolved.source is MaskSource.CONFIG:
        return SglangToken(resolved.token_id, draft.mask_token_id_field, text=draft.mask_token)
    added = resolved.source is MaskSource.ADDED
    return SglangToken(resolved.token_id, "tokenizer", added=added, text=draft.mask_token)


def check_sglang_token(subject: Subject, found: Findings) -> None:
    """SGLang's token-id rules for a DFlash draft (``DFlashWorkerV2._resolve_mask_token_id``
    in ``srt/speculative/dflash_worker_v2.py``), with the served tokenizer when read:

    * the id (configured or the tokenizer's) must be below the target's ``vocab_size``;
    * the served tokenizer must not hold the mask string at another id;
    * no configured id: the tokenizer's ``<|MASK|>``; when SGLang adds it (a warning,
      with its text: it changes the served tokenizer); when no tokenizer was read, a
      warning that the served tokenizer picks the id at start-up (SGLang fails only with
      ``--skip-tokenizer-init``);
    * the id equal to a special-token field of the draft's config: a warning.

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    try:
        token = sglang_token(subject)
    except SglangRefuses as error:
        found.error(error)
        return
    if token.text is None:  # DSpark (checked with the parse) or no DFlash-family draft
        return
    if token.token_id is None:
        found.warn(
            TokenizerTokenIdWarning(
                f"No mask token id is named: SGLang takes {bounded_repr(token.text)} from the "
                "served tokenizer at start-up, which was not read here.",
                field="dflash_config.mask_token_id",
                code=sglang_codes.TOKEN_NOT_NAMED,
                fix=f"{_NAME_THE_ID}, or pass --tokenizer to check the served one",
                evidence=f"{_RESOLVE} adds the token when missing, and raises RuntimeError "
                "only with --skip-tokenizer-init",
            )
        )
        return
    if token.added:
        found.warn(
            TokenizerTokenIdWarning(
                "No mask token id is named and the served tokenizer lacks "
                f"{bounded_repr(token.text)}, so SGLang adds it as a special token at id "
                f"{bounded_repr(token.token_id)}.",
                field="dflash_config.mask_token_id",
                code=sglang_codes.TOKEN_ADDED_TO_TOKENIZER,
                fix=_NAME_THE_ID,
                evidence=f"{_RESOLVE} adds the mask token to the served tokenizer",
            )
        )
    if token.source == "tokenizer":
        found.note(
            f"SGLang takes token id {bounded_repr(token.token_id)} ({bounded_repr(token.text)}) "
            "from the tokenizer",
            code=sglang_codes.TOKEN_FROM_TOKENIZER,
            evidence=_RESOLVE,
        )


def check_sglang_placeholders(subject: Subject, found: Findings) -> None:
    """A warning for each special-token field of the draft's config equal to SGLang's id
    (the resolver's placeholder warnings, for the id SGLang uses)."""
    token_id, source = subject.token_id, subject.token_field
    if token_id is None or source is None:
        return
    for field in ("pad_token_id", "bos_token_id", "eos_token_id"):
        value = subject.get(field, None)
        if value is not None and names_token_id(value, token_id):
            found.warn(placeholder_warning(source, token_id, field))


# --- mask_embedding.pt (srt/speculative/dflash_worker_v2.py) ------------------------------------


def check_sglang_mask_embedding(subject: Subject, found: Findings) -> None:
    """The ``mask_embedding.pt`` beside a local DFlash draft, as SGLang reads it
    (``DFlashWorkerV2._maybe_merge_trained_mask_embedding``): ``torch.load(...,
    weights_only=True)``, then ``saved["embedding"]`` and ``int(saved["mask_token_id"])``,
    which must equal the id SGLang resolved.  A bare tensor, a dict without either key, a
    different id, or a file torch refuses: SGLang fails at start-up.  Then a truthy
    ``saved.get("per_position")`` raises ``NotImplementedError`` ("per-position mask
    embeddings are not supported in inference yet"), and the embedding is copied into the
    target's embedding row for the id (``embed_module.weight[token_id].copy_(...)``), which
    takes a tensor broadcastable to ``hidden_size`` values: another shape raises
    ``RuntimeError``, and one value (shape ``()`` or ``(1,)``) fills the whole row with it,
    silently (:func:`_embedding_row_findings`).
    """
    read = subject.mask_embedding
    if read is None or sglang_algorithm(subject) is not Algorithm.DFLASH:
        return
    shown = display_path(read.path)  # a path from the disk: printed escaped
    if read.unavailable is not None:
        found.note(
            f"{shown} not checked for SGLang: {read.unavailable}",
            code=codes.MASK_EMBEDDING_NOT_CHECKED,
        )
        return
    if read.problem is not None:
        found.error(read.problem)
        return
    contents = read.contents
    assert contents is not None
    why = None
    fix = "save it as {'embedding': tensor, 'mask_token_id': id}"
    if not contents.is_dict:
        why = "holds a bare tensor, but SGLang reads saved['embedding'] from a dict"
    elif contents.embedding is None:
        why = "is a dict without 'embedding'"
    elif contents.stored_token_id is MISSING:
        why = "is a dict without 'mask_token_id', which SGLang reads with int()"
    else:
        stored = exact_int(contents.stored_token_id)
        token_id = subject.token_id
        if stored is not None and token_id is not None and stored != token_id:
            why = (
                f"was trained for mask_token_id {bounded_repr(stored)}, but SGLang's id is "
                f"{bounded_repr(token_id)}"
            )
            fix = "make the draft's mask token id and the file's mask_token_id agree"
    if why is not None:
        found.error(
            ParallelDraftingConfigError(
                f"{shown} {why}: SGLang's DFlash worker fails at start-up.",
                code=sglang_codes.MASK_EMBEDDING_INVALID,
                fix=fix,
                evidence=f"{_MERGE} reads saved['embedding'] and int(saved['mask_token_id'])",
            )
        )
    if why is None:
        _embedding_row_findings(subject, contents, found)


# --- where the token id is looked for, for `explain` ---------------------------------------------


def sglang_token_fields(subject: Subject, token: SglangToken | None) -> tuple[TokenField, ...]:
    """Where SGLang looks for the draft's token id, in its order, each field with its raw
    value and status: DFLASH's fields (:data:`~.config.DFLASH_TOKEN_ORDER`), then the
    served tokenizer's mask token; DSPARK's (:data:`~.config.DSPARK_TOKEN_ORDER`), which
    has no fallback; none for EAGLE3, which reads no token.  ``token`` is the id SGLang
    settled on (:func:`sglang_token`), ``None`` when it refused one.

    The search stops at the first field present (even null; a null
    ``dspark_noise_token_id`` is skipped): that field is the ``winner``, ``null`` or
    ``invalid``, the fields below it ``not read``.

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    algorithm = sglang_algorithm(subject)
    order: tuple[str, ...]
    if algorithm is Algorithm.DSPARK:
        order = DSPARK_TOKEN_ORDER
    elif algorithm is Algorithm.DFLASH:
        order = DFLASH_TOKEN_ORDER
    else:
        return ()
    refused: ParallelDraftingConfigError | None = None
    try:
        parsed = sglang_draft(subject)
    except ParallelDraftingConfigError as error:
        parsed, refused = None, error
    if parsed is None and refused is None:  # a draft SGLang does not parse (its format)
        return ()
    values = {field: _raw(subject, field) for field in order}
    present = [
        field
        for field, value in values.items()
        if value is not MISSING and not (field == "dspark_noise_token_id" and value is None)
    ]
    stop = present[0] if present else None
    rows: list[TokenField] = []
    reached = True
    for field, value in values.items():
        if field == stop:
            reached = False
            if refused is not None and refused.field == field:
                rows.append(TokenField(field, value, "invalid", str(refused)))
            else:
                rows.append(TokenField(field, value, "null" if value is None else "winner"))
        elif value is MISSING:
            rows.append(TokenField(field, value, "absent"))
        else:
            rows.append(TokenField(field, value, "null" if reached else "not read"))
    if algorithm is Algorithm.DFLASH:
        rows.append(
            _tokenizer_row(
                subject, token, configured=stop is not None and (values[stop] is not None)
            )
        )
    return tuple(rows)


def _tokenizer_row(subject: Subject, token: SglangToken | None, *, configured: bool) -> TokenField:
    """The served tokenizer's mask token, SGLang's DFLASH fallback."""
    text = DEFAULT_MASK_TOKEN if token is None or token.text is None else token.text
    name = f"tokenizer {text!r}"
    if configured:
        return TokenField(name, MISSING, "not read")
    if token is None or token.source != "tokenizer" or token.token_id is None:
        status = "not checked" if subject.tokenizer is None else "invalid"
        return TokenField(name, MISSING, status)
    return TokenField(name, token.token_id, "added" if token.added else "winner")


def _raw(subject: Subject, field: str) -> object:
    """A field of the draft's config by its dotted path, :data:`MISSING` when absent."""
    section_name, dot, key = field.partition(".")
    if not dot:
        return subject.get(field, MISSING)
    section = subject.get(section_name, None)
    if isinstance(section, dict):
        return section.get(key, MISSING)
    return MISSING if section is None else getattr(section, key, MISSING)


def _embedding_row_findings(subject: Subject, contents: MaskEmbedding, found: Findings) -> None:
    """See :func:`check_sglang_mask_embedding`: ``per_position``, then the row's width: the
    target's ``hidden_size`` when the target is given, else the draft's (SGLang's DFlash
    draft must share it)."""
    if contents.per_position not in (MISSING, None) and bool(contents.per_position):
        found.error(
            ParallelDraftingConfigError(
                "`mask_embedding.pt` sets per_position, one mask embedding per slot, which "
                "SGLang does not implement: it refuses the draft at start-up.",
                code=sglang_codes.MASK_EMBEDDING_INVALID,
                fix="export a single mask embedding (per_position false), or serve with vLLM",
                evidence=f"{_MERGE} raises NotImplementedError",
            )
        )
        return
    target = subject.target
    hidden = None if target is None else target.hidden_size
    field = "target.hidden_size"
    if hidden is None:
        hidden, field = exact_int(subject.get("hidden_size", None)), "hidden_size"
    if hidden is None:
        return
    shape = contents.shape
    if shape is None:
        found.error(
            ParallelDraftingConfigError(
                "`mask_embedding.pt` holds an `embedding` that is no tensor, so SGLang fails "
                "copying it into the target's embedding row at start-up.",
                code=sglang_codes.MASK_EMBEDDING_INVALID,
                fix="save the embedding as a tensor of hidden_size values",
                evidence=f"{_MERGE}: Tensor.copy_",
            )
        )
        return
    if shape == (hidden,):
        return
    scalar = shape in ((), (1,))
    what = (
        "so SGLang silently fills the mask token's row with that one value"
        if scalar
        else "so SGLang fails copying it into the target's embedding row at start-up"
    )
    found.error(
        ParallelDraftingConfigError(
            f"`mask_embedding.pt` holds an embedding of shape {list(shape)}, not [{hidden}], "
            f"{what}.",
            field=field,
            code=codes.MASK_EMBEDDING_SIZE,
            fix=f"save the trained mask embedding as one row of {hidden} values",
            evidence=f"{_MERGE}: embed_module.weight[token_id].copy_"
            + ("" if scalar else " raises RuntimeError"),
        )
    )
