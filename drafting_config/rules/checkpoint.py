"""A draft's checkpoint against its config, as vLLM 0.33.0's loader will see it.

A ``config.json`` can be right while the weights beside it disagree with it, and vLLM
finds out only after loading the target and the draft: at weight loading with a shape
error, or at the first forward pass ("DFlash drafter expects N concatenated aux hidden
features", "mask_hidden not found in weights").  :func:`check_checkpoint` compares the
tensors named in the safetensors headers (:mod:`drafting_config.files.safetensors_headers`)
with the config, by the rules of the model class vLLM's registry picks for the draft's
``architectures``.

Those rules are one table, :data:`ARCHITECTURES`, as data: each row says how the
loader renames tensors, how wide ``fc``'s input is, and whether a ``mask_hidden``
tensor is required, forbidden or ignored, and cites the vLLM code it follows.  An
architecture not in the table, or a quantized checkpoint whose shapes are packed, gets
a note saying what was not checked, never an error.

torch is imported only to read ``mask_embedding.pt``, by
:mod:`drafting_config.files.mask_embedding`; :func:`mask_embedding_findings` judges what it
holds.
"""

from __future__ import annotations

import enum
import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final, cast

from drafting_config.draft.resolution import Resolution
from drafting_config.files.mask_embedding import (
    MASK_EMBEDDING_FILE,
    TorchUnavailableError,
    read_mask_embedding,
)
from drafting_config.files.safetensors_headers import (
    INDEX_FILE,
    CheckpointHeaders,
    DirectoryListings,
    TensorHeader,
    WeightsFileError,
    shape_text,
    tensor_name_text,
)
from drafting_config.rules.layers import dflash_uses_aux_hidden_states
from drafting_config.values.errors import (
    ParallelDraftingConfigError,
    describe_value,
)
from drafting_config.values.fields import MISSING, FieldGetter, field_getter, read_path
from drafting_config.values.integers import positive_int32
from drafting_config.values.paths import display_path
from drafting_config.values.sources import EAGLE_CONFIG

__all__ = [
    "ARCHITECTURES",
    "MASK_EMBEDDING_FILE",
    "ArchitectureRow",
    "CheckpointFindings",
    "FcWidth",
    "MaskHidden",
    "WeightsFacts",
    "check_checkpoint",
]

DFLASH_CONFIG: Final = "dflash_config"


class FcWidth(str, enum.Enum):
    """How a model class sizes the input of its ``fc`` projection of the target's hidden states."""

    DFLASH = "dflash"
    """``(target_hidden_size or hidden_size) * n``, ``n`` the number of tapped layers from the
    config (vLLM's runner chain), else the draft's ``num_hidden_layers``
    (``qwen3_dflash.py``, ``_get_dflash_fc_input_size``)."""
    EAGLE3 = "eagle3"
    """``target_hidden_size`` (else ``hidden_size``) times ``num_aux_hidden_states``, else the
    length of ``eagle_config.eagle_aux_hidden_state_layer_ids``, else 3
    (``llama_eagle3.py``, ``LlamaModel.__init__``)."""
    NONE = "none"
    """No ``fc``: a complete causal LM that takes no hidden states."""


class MaskHidden(str, enum.Enum):
    """What a model class's loader does with a ``mask_hidden`` tensor."""

    REQUIRED = "required"
    """With parallel drafting, the loader raises without one; it must hold fc-input many values."""
    FORBIDDEN = "forbidden"
    """The loader asserts that no tensor is named ``mask_hidden``."""
    IGNORED = "ignored"
    """The model class has no such tensor."""


@dataclass(frozen=True)
class ArchitectureRow:
    """The loading rules of one vLLM model class, for the architectures that select it."""

    name: str
    """The vLLM model module (``"qwen3_dflash"``)."""
    architectures: tuple[str, ...]
    """The ``architectures`` names vLLM's registry maps to it."""
    follows: str
    """The vLLM 0.33.0 code the row follows."""
    renames: tuple[tuple[str, str], ...]
    """Dotted-name parts the loader renames (``("midlayer", "layers.0")``), whole parts only."""
    adds_model_prefix: bool
    """The loader prefixes ``model.`` to every name but ``lm_head`` and ``d2t``."""
    fc_width: FcWidth
    """How ``fc``'s input width is computed."""
    mask_hidden: MaskHidden
    """Whether a ``mask_hidden`` tensor is required, forbidden or ignored."""
    draft_vocabulary: bool
    """``lm_head`` has ``draft_vocab_size`` rows (``vocab_size`` when unset) and ``d2t``
    ``draft_vocab_size`` entries; else ``lm_head`` has ``vocab_size`` rows."""
    shares_target_parts: bool
    """``embed_tokens`` and ``lm_head`` are optional: without them the target's are shared."""
    reads_mask_embedding: bool = False
    """The model class reads ``mask_embedding.pt`` beside the weights."""


ARCHITECTURES: Final[tuple[ArchitectureRow, ...]] = (
    ArchitectureRow(
        name="qwen3_dflash",
        architectures=(
            "DFlashDraftModel",
            "MuseGlimmerAssistantModel",
            "DFlashMuseGlimmerAssistantModel",
        ),
        follows=(
            "vllm/model_executor/models/qwen3_dflash.py: DFlashQwen3ForCausalLM.load_weights, "
            "DFlashQwen3Model.hf_to_vllm_mapper, _get_dflash_fc_input_size, "
            "DFlashQwen3ForCausalLM._read_mask_embedding"
        ),
        renames=(
            ("midlayer", "layers.0"),
            ("encoder.output_norm_enc", "hidden_norm"),
            ("encoder.fc", "fc"),
        ),
        adds_model_prefix=True,
        fc_width=FcWidth.DFLASH,
        mask_hidden=MaskHidden.FORBIDDEN,
        draft_vocabulary=True,
        shares_target_parts=True,
        reads_mask_embedding=True,
    ),
    ArchitectureRow(
        name="llama_eagle3",
        architectures=(
            "Eagle3LlamaForCausalLM",
            "LlamaForCausalLMEagle3",
            "PEagleDraftModel",
            "PeagleLlamaForCausalLM",
            "Eagle3MiniMaxM2ForCausalLM",
            "Eagle3Qwen2_5vlForCausalLM",
            "Eagle3Qwen3vlForCausalLM",
        ),
        follows=(
            "vllm/model_executor/models/llama_eagle3.py: Eagle3LlamaForCausalLM.load_weights, "
            "LlamaModel.__init__ (fc_input_size), LlamaModel.hf_to_vllm_mapper"
        ),
        renames=(("midlayer", "layers.0"),),
        adds_model_prefix=True,
        fc_width=FcWidth.EAGLE3,
        mask_hidden=MaskHidden.REQUIRED,
        draft_vocabulary=True,
        shares_target_parts=True,
    ),
    ArchitectureRow(
        name="causal_lm",
        architectures=(
            "LlamaForCausalLM",
            "Qwen2ForCausalLM",
            "Qwen3ForCausalLM",
            "MistralForCausalLM",
        ),
        follows=(
            "vllm/model_executor/models/llama.py and qwen2.py: LlamaForCausalLM/"
            "Qwen2ForCausalLM.__init__ (ParallelLMHead(vocab_size), tie_word_embeddings) "
            "and load_weights; vllm/model_executor/model_loader/default_loader.py: "
            "load_weights (weights not initialized from the checkpoint)"
        ),
        renames=(),
        adds_model_prefix=False,
        fc_width=FcWidth.NONE,
        mask_hidden=MaskHidden.IGNORED,
        draft_vocabulary=False,
        shares_target_parts=False,
    ),
)
"""The model classes whose checkpoints are checked, keyed by the architectures vLLM's
registry (``vllm/model_executor/models/registry.py``) maps to them."""

SPECULATORS_ARCHITECTURES: Final[Mapping[str, str]] = {
    "dflash": "DFlashDraftModel",
    "dflash2": "DFlash2DraftModel",
    "dspark": "Qwen3DSparkModel",
}
"""The ``architectures`` vLLM writes for a speculators draft of each type
(``vllm/transformers_utils/configs/speculators/algos.py``); ``peagle`` follows its
``model_type`` (:data:`PEAGLE_ARCHITECTURES`)."""

PEAGLE_ARCHITECTURES: Final[Mapping[str, str]] = {
    "llama": "PeagleLlamaForCausalLM",
    "qwen3": "PeagleQwen3ForCausalLM",
}
"""``update_peagle`` in ``speculators/algos.py``: the architecture by ``model_type``
(``llama`` when unset)."""

QUANTIZATION_FIELDS: Final = ("quantization_config", "compression_config")
"""Config fields that mean the checkpoint's linear weights may be packed."""

PACKED_SUFFIXES: Final = (
    ".qweight",
    ".qzeros",
    ".scales",
    ".g_idx",
    ".weight_packed",
    ".weight_scale",
    ".weight_scale_inv",
    ".input_scale",
)
"""Tensor names that only quantized checkpoints hold."""

_LAYER: Final = re.compile(r"model\.layers\.(\d+)\.")
_MAX_SHOWN_LAYERS: Final = 8


@dataclass(frozen=True)
class WeightsFacts:
    """What the checkpoint beside a draft holds, as :attr:`Verdict.weights` reports it."""

    files: tuple[str, ...]
    """The safetensors files read (paths, or hub file names), shown as by ``display_path``."""
    tensors: int
    """The number of tensors their headers list."""
    architecture: str | None
    """The row of :data:`ARCHITECTURES` used (``"qwen3_dflash"``), or ``None``: not checked."""
    embedding_rows: int | None
    """Rows of ``embed_tokens``, when the checkpoint ships it."""
    fc_input_width: int | None
    """The input width of ``fc.weight``, when shipped and not packed."""
    layers: int | None
    """Distinct decoder-layer indices after the loader's renaming (``None`` without a row)."""


@dataclass(frozen=True)
class CheckpointFindings:
    """What :func:`check_checkpoint` found: the facts, and the rules broken."""

    facts: WeightsFacts
    errors: tuple[ParallelDraftingConfigError, ...]
    notes: tuple[str, ...]


@dataclass(frozen=True)
class _Draft:
    """The config facts the rules need, read once."""

    get: FieldGetter
    file_field: Callable[[str], str]
    hidden_size: int | None
    vocab_size: int | None
    token_id: int | None
    token_field: str | None
    aux_layer_ids: tuple[int, ...] | None
    aux_layer_source: str | None


def architecture_row(
    config: FieldGetter, speculators_type: str | None = None, *, fed_hidden_states: bool = False
) -> tuple[ArchitectureRow | None, str | None]:
    """The row for a draft's ``architectures`` (the first listed that the table knows),
    and the name it was found by; ``(None, names)`` when none is known.

    A speculators draft's architecture is the one vLLM writes for its type.  A draft fed
    the target's hidden states is never a complete causal LM: served as EAGLE-3 or DFlash,
    vLLM renames ``LlamaForCausalLM`` to ``Eagle3LlamaForCausalLM`` or
    ``DFlashLlamaForCausalLM`` (``transformers_utils/configs/eagle.py``, ``EAGLEConfig``),
    so such a name finds no row here rather than the causal LM's.
    """
    if speculators_type is not None:
        if speculators_type == "peagle":
            model_type = config("model_type", None)
            names = [
                PEAGLE_ARCHITECTURES.get(model_type if type(model_type) is str else "llama", "")
            ]
        else:
            names = [SPECULATORS_ARCHITECTURES.get(speculators_type, "")]
    else:
        listed = config("architectures", None)
        if type(listed) is not list:
            return None, None if listed is None else describe_value(listed)
        names = [name for name in listed if type(name) is str]
    for name in names:
        for row in ARCHITECTURES:
            if name in row.architectures and not (
                fed_hidden_states and row.fc_width is FcWidth.NONE
            ):
                return row, name
    return None, ", ".join(repr(name) for name in names if name) or None


def check_checkpoint(
    checkpoint: CheckpointHeaders,
    draft_config: object,
    *,
    file_field: Callable[[str], str],
    speculators_type: str | None,
    hidden_size: int | None,
    vocab_size: int | None,
    token_id: int | None,
    token_field: str | None,
    aux_layer_ids: tuple[int, ...] | None,
    aux_layer_source: str | None,
    fed_hidden_states: bool,
    shown_files: tuple[str, ...],
) -> CheckpointFindings:
    """Compare a checkpoint's tensors with the draft's config, by its row of :data:`ARCHITECTURES`.

    Args:
        checkpoint: the tensors, from the headers.
        draft_config: the HF-shaped config vLLM reads (a speculators file's translation).
        file_field: where a field of ``draft_config`` sits in the draft's file, for messages.
        speculators_type: the ``speculators_model_type``, or ``None`` for an HF config.
        hidden_size, vocab_size: the draft's sizes, as the resolver read them.
        token_id, token_field: the resolved parallel-drafting token and its field, if any:
            a draft with one is served with parallel drafting.
        aux_layer_ids, aux_layer_source: the target layers vLLM's runner taps, and the
            field it read them from (``None`` when the config names none).
        fed_hidden_states: whether the drafter takes the target's hidden states (all but
            PARD): then no complete causal LM's rules apply (see :func:`architecture_row`).
        shown_files: the files read, as the verdict shows them.

    Every error's ``.field`` names the config field the tensor disagrees with, and its
    message gives both numbers.
    """
    get = field_getter(draft_config, "")
    draft = _Draft(
        get,
        file_field,
        hidden_size,
        vocab_size,
        token_id,
        token_field,
        aux_layer_ids,
        aux_layer_source,
    )
    row, found_as = architecture_row(get, speculators_type, fed_hidden_states=fed_hidden_states)
    tensors = checkpoint.tensors
    notes: list[str] = []
    if row is None:
        shown = f" ({found_as})" if found_as else ""
        notes.append(
            f"weights not checked against the config: the architecture{shown} is not one "
            "whose loading rules are known here (" + ", ".join(r.name for r in ARCHITECTURES) + ")"
        )
        facts = WeightsFacts(shown_files, len(tensors), None, None, None, None)
        return CheckpointFindings(facts, (), tuple(notes))

    mapped = _mapped_names(row, tensors)
    errors: list[ParallelDraftingConfigError] = []
    packed = _packed(get, tensors)
    if packed is not None:
        notes.append(
            f"weight shapes not checked: the checkpoint is quantized ({packed}), so its "
            "shapes are packed; layer count and d2t checked"
        )
    layers = _layer_indices(mapped)
    errors += _attempt(lambda: _layer_count_errors(draft, layers))
    embedding = mapped.get("model.embed_tokens.weight")
    fc_width: int | None = None
    if packed is None:
        errors += _attempt(lambda: _embedding_errors(row, draft, embedding, notes))
        errors += _attempt(lambda: _lm_head_errors(row, draft, mapped.get("lm_head.weight"), notes))
        fc = mapped.get("model.fc.weight")
        fc_width = fc.shape[1] if fc is not None and len(fc.shape) == 2 else None
        errors += _attempt(lambda: _fc_errors(row, draft, fc, tensors))
    if row.draft_vocabulary:
        errors += _attempt(lambda: _d2t_errors(draft, tensors.get("d2t")))
    errors += _attempt(lambda: _mask_hidden_errors(row, draft, tensors, packed is not None))
    facts = WeightsFacts(
        files=shown_files,
        tensors=len(tensors),
        architecture=row.name,
        embedding_rows=embedding.shape[0] if embedding is not None and embedding.shape else None,
        fc_input_width=fc_width,
        layers=len(layers),
    )
    return CheckpointFindings(facts, tuple(errors), tuple(notes))


def _attempt(
    rule: Callable[[], list[ParallelDraftingConfigError]],
) -> list[ParallelDraftingConfigError]:
    """A rule's errors; a config field it needs that is itself broken is an error too."""
    try:
        return rule()
    except ParallelDraftingConfigError as error:
        return [error]


def _mapped_names(
    row: ArchitectureRow, tensors: Mapping[str, TensorHeader]
) -> dict[str, TensorHeader]:
    """The tensors under the names the loader gives them (``t2d``, ``d2t`` and ``mask_hidden``,
    which it handles apart, left out)."""
    mapped: dict[str, TensorHeader] = {}
    for name, tensor in tensors.items():
        if row.adds_model_prefix and ("t2d" in name or "d2t" in name or "mask_hidden" in name):
            continue
        new = name
        for old, replacement in row.renames:
            new = re.sub(rf"(?<![A-Za-z0-9_]){re.escape(old)}(?=\.|$)", replacement, new)
        if row.adds_model_prefix and "lm_head" not in new:
            new = "model." + new
        mapped[new] = tensor
    return mapped


def _packed(get: FieldGetter, tensors: Mapping[str, TensorHeader]) -> str | None:
    """Why the checkpoint's shapes may be packed, or ``None``."""
    for field in QUANTIZATION_FIELDS:
        if get(field, None) is not None:
            return f"`{field}` is set"
    packed = next((name for name in tensors if name.endswith(PACKED_SUFFIXES)), None)
    return None if packed is None else f"it holds {tensor_name_text(packed)}"


def _layer_indices(mapped: Mapping[str, TensorHeader]) -> set[int]:
    found = (_LAYER.match(name) for name in mapped)
    return {int(match.group(1)) for match in found if match is not None}


def _size(draft: _Draft, field: str) -> int | None:
    """A size field of the config, as an int; ``None`` when unset or null."""
    value = draft.get(field, None)
    return None if value is None else positive_int32(draft.file_field(field), value)


def _layer_count_errors(draft: _Draft, layers: set[int]) -> list[ParallelDraftingConfigError]:
    """The decoder-layer indices, after renaming, are exactly ``0 .. num_hidden_layers - 1``.

    vLLM builds ``num_hidden_layers`` layers: a checkpoint layer beyond them is a name the
    loader refuses ("There is no module or parameter named", ``models/utils.py``,
    ``AutoWeightsLoader._load_module``), and a layer missing from it is left uninitialized
    (``model_loader/default_loader.py``, ``load_weights``).
    """
    count = _size(draft, "num_hidden_layers")
    if count is None or layers == set(range(count)):
        return []
    field = draft.file_field("num_hidden_layers")
    shown = sorted(layers)
    listed = ", ".join(map(str, shown[:_MAX_SHOWN_LAYERS])) + (
        ", ..." if len(shown) > _MAX_SHOWN_LAYERS else ""
    )
    held = f"{len(layers)} decoder layers ({listed})" if layers else "no decoder layers"
    return [
        ParallelDraftingConfigError(
            f"the checkpoint holds {held} but `{field}` = {count}: vLLM builds layers 0 to "
            f"{count - 1} and the weights do not fit them.",
            field=field,
        )
    ]


def _embedding_errors(
    row: ArchitectureRow, draft: _Draft, embedding: TensorHeader | None, notes: list[str]
) -> list[ParallelDraftingConfigError]:
    """``embed_tokens``: ``vocab_size`` rows of ``hidden_size``, more rows than the token id.

    vLLM builds ``VocabParallelEmbedding(vocab_size, hidden_size)`` in every row's model
    class; a mask id past the draft's embedding rows fails as a device-side assert.  DFlash
    and EAGLE-3 drafts may leave it out and share the target's (``load_weights`` drops the
    name, ``process_eagle_weight`` in ``models/utils.py``).
    """
    if embedding is None:
        if row.shares_target_parts:
            notes.append("the checkpoint has no embed_tokens: vLLM shares the target's embedding")
            return []
        return [
            ParallelDraftingConfigError(
                "the checkpoint has no `model.embed_tokens.weight`: vLLM leaves the draft's "
                "embedding uninitialized.",
                field=draft.file_field("vocab_size"),
            )
        ]
    return _matrix_errors(
        "embed_tokens.weight", embedding, ("vocab_size", draft.vocab_size), draft, check_token=True
    )


def _lm_head_errors(
    row: ArchitectureRow, draft: _Draft, head: TensorHeader | None, notes: list[str]
) -> list[ParallelDraftingConfigError]:
    """``lm_head.weight``: ``draft_vocab_size`` rows (else ``vocab_size``) for DFlash and EAGLE-3
    (``ParallelLMHead(draft_vocab_size, hidden_size)``), ``vocab_size`` rows for a causal LM
    unless its embedding is tied (``tie_word_embeddings``: the head is the embedding)."""
    if row.draft_vocabulary:
        if head is None:
            return []  # the target's head is shared (process_eagle_weight)
        draft_vocab = _size(draft, "draft_vocab_size")
        rows = (
            ("draft_vocab_size", draft_vocab)
            if draft_vocab is not None
            else ("vocab_size", draft.vocab_size)
        )
        return _matrix_errors("lm_head.weight", head, rows, draft, check_token=False)
    tied = draft.get("tie_word_embeddings", None)
    if tied is True:
        return []  # the head is the embedding
    if head is None:
        if tied is False:
            return [
                ParallelDraftingConfigError(
                    "the checkpoint has no `lm_head.weight` and `tie_word_embeddings` is false: "
                    "vLLM leaves the draft's LM head uninitialized.",
                    field=draft.file_field("tie_word_embeddings"),
                )
            ]
        notes.append(
            "the checkpoint has no lm_head.weight and the config does not set "
            "tie_word_embeddings: fine only if the model class ties them by default"
        )
        return []
    return _matrix_errors(
        "lm_head.weight", head, ("vocab_size", draft.vocab_size), draft, check_token=False
    )


def _matrix_errors(
    tensor: str,
    header: TensorHeader,
    rows: tuple[str, int | None],
    draft: _Draft,
    *,
    check_token: bool,
) -> list[ParallelDraftingConfigError]:
    """A ``[rows, hidden_size]`` matrix: rows as the config says, ``hidden_size`` columns."""
    errors: list[ParallelDraftingConfigError] = []
    if len(header.shape) != 2:
        return [
            ParallelDraftingConfigError(
                f"`{tensor}` has shape {shape_text(header.shape)}: expected a matrix of "
                f"[{rows[0]}, hidden_size].",
                field=draft.file_field(rows[0]),
            )
        ]
    got_rows, got_columns = header.shape
    field, expected = rows
    if expected is not None and got_rows != expected:
        errors.append(_mismatch(tensor, "rows", got_rows, draft.file_field(field), expected))
    if draft.hidden_size is not None and got_columns != draft.hidden_size:
        errors.append(
            _mismatch(
                tensor, "columns", got_columns, draft.file_field("hidden_size"), draft.hidden_size
            )
        )
    if (
        check_token
        and draft.token_id is not None
        and draft.token_field is not None
        and draft.token_id >= got_rows
    ):
        errors.append(
            ParallelDraftingConfigError(
                f"`{draft.token_field}` = {draft.token_id} is past the {got_rows} rows of "
                f"`{tensor}`: embedding the masked slots fails as a device-side assert.",
                field=draft.token_field,
            )
        )
    return errors


def _mismatch(
    tensor: str, what: str, got: int, field: str, expected: int
) -> ParallelDraftingConfigError:
    return ParallelDraftingConfigError(
        f"`{tensor}` has {got} {what} but `{field}` = {expected}: vLLM sizes the tensor from "
        "the config and fails loading these weights.",
        field=field,
    )


def _drafter_section(draft: _Draft) -> dict[str, object]:
    """The keys of ``eagle_config`` that vLLM's EAGLE-3 model reads."""
    merged: dict[str, object] = {}
    for key in ("use_aux_hidden_state", "eagle_aux_hidden_state_layer_ids"):
        found = read_path(draft.get, f"{EAGLE_CONFIG}.{key}", MISSING)
        if found is not MISSING:
            merged[key] = found
    return merged


def _fc_expected(row: ArchitectureRow, draft: _Draft) -> tuple[int, int, str] | None:
    """The fc input width the model class builds, the number of hidden states it expects,
    and how (for messages); ``None``: no fc."""
    if row.fc_width is FcWidth.NONE:
        return None
    section = _drafter_section(draft)
    if row.fc_width is FcWidth.DFLASH:
        uses_aux: object = dflash_uses_aux_hidden_states(draft.get)
    else:  # LlamaModel.__init__ in llama_eagle3.py: eagle_config alone, default true
        uses_aux = section.get("use_aux_hidden_state", True)
    if uses_aux is False or uses_aux is None:
        return None
    target_hidden = _size(draft, "target_hidden_size")
    width_field = "target_hidden_size" if target_hidden is not None else "hidden_size"
    width = target_hidden if target_hidden is not None else draft.hidden_size
    if width is None:
        return None
    if row.fc_width is FcWidth.DFLASH:
        if draft.aux_layer_ids:
            count = len(draft.aux_layer_ids)
            source = f"layers tapped by `{draft.aux_layer_source}`"
        else:
            layers = _size(draft, "num_hidden_layers")
            if layers is None:
                return None
            count = layers
            source = (
                f"from `{draft.file_field('num_hidden_layers')}`, as the config names no "
                "tapped layers"
            )
    else:
        count, source = _eagle3_count(draft, section)
    return width * count, count, f"`{draft.file_field(width_field)}` {width} x {count} {source}"


def _eagle3_count(draft: _Draft, section: Mapping[str, object]) -> tuple[int, str]:
    """``num_aux_hidden_states``, else ``len(eagle_config.eagle_aux_hidden_state_layer_ids)``,
    else 3, as ``LlamaModel.__init__`` in ``llama_eagle3.py`` reads them."""
    explicit = _size(draft, "num_aux_hidden_states")
    if explicit is not None:
        return explicit, f"from `{draft.file_field('num_aux_hidden_states')}`"
    listed = section.get("eagle_aux_hidden_state_layer_ids")
    if type(listed) is list and listed:
        field = draft.file_field(f"{EAGLE_CONFIG}.eagle_aux_hidden_state_layer_ids")
        return len(cast("list[object]", listed)), f"from the length of `{field}`"
    return 3, "by vLLM's default (no num_aux_hidden_states, no eagle_config layer ids)"


def _fc_errors(
    row: ArchitectureRow,
    draft: _Draft,
    fc: TensorHeader | None,
    tensors: Mapping[str, TensorHeader],
) -> list[ParallelDraftingConfigError]:
    """``fc.weight`` is ``[hidden_size, fc input]``, fc input as the row computes it; for
    EAGLE-3, the runner also taps as many layers as ``fc`` expects."""
    expected = _fc_expected(row, draft)
    errors: list[ParallelDraftingConfigError] = []
    if expected is None:
        return errors
    width, count, how = expected
    field = _fc_field(row, draft)
    taps = draft.aux_layer_ids
    if row.fc_width is FcWidth.EAGLE3 and taps and draft.aux_layer_source and len(taps) != count:
        errors.append(
            ParallelDraftingConfigError(
                f"vLLM's runner taps {len(taps)} target layers (from "
                f"`{draft.aux_layer_source}`), but the model class sizes fc for {count}: "
                f"{width} = {how}; the model class reads eagle_config while the runner "
                "reads the top-level list first, so the first forward pass fails.",
                field=draft.aux_layer_source,
            )
        )
    if fc is None:
        errors.append(
            ParallelDraftingConfigError(
                f"the checkpoint has no `fc.weight`, but the model class builds fc with input "
                f"width {width} = {how}, and leaves it uninitialized.",
                field=field,
            )
        )
        return errors
    if len(fc.shape) != 2:
        errors.append(
            ParallelDraftingConfigError(
                f"`fc.weight` has shape {shape_text(fc.shape)}: expected [hidden_size, {width}].",
                field=field,
            )
        )
        return errors
    rows, columns = fc.shape
    if columns != width:
        errors.append(
            ParallelDraftingConfigError(
                f"`fc.weight` has input width {columns} but vLLM builds fc for {width} = "
                f"{how}, so loading these weights fails: the checkpoint was trained for "
                "other tapped layers, or the config names the wrong ones.",
                field=field,
            )
        )
    if draft.hidden_size is not None and rows != draft.hidden_size:
        errors.append(
            _mismatch("fc.weight", "rows", rows, draft.file_field("hidden_size"), draft.hidden_size)
        )
    return errors


def _fc_field(row: ArchitectureRow, draft: _Draft) -> str:
    """The config field an fc width error is about: the one that sets the layer count."""
    if row.fc_width is FcWidth.DFLASH:
        if draft.aux_layer_ids and draft.aux_layer_source:
            return draft.aux_layer_source
        return draft.file_field("num_hidden_layers")
    if draft.get("num_aux_hidden_states", None) is not None:
        return draft.file_field("num_aux_hidden_states")
    return draft.file_field(f"{EAGLE_CONFIG}.eagle_aux_hidden_state_layer_ids")


def _d2t_errors(draft: _Draft, d2t: TensorHeader | None) -> list[ParallelDraftingConfigError]:
    """``d2t`` has ``draft_vocab_size`` entries (``vocab_size`` when unset): vLLM loads it into
    a ``draft_id_to_target_id`` parameter of that size (``load_weights`` of both rows)."""
    if d2t is None:
        return []
    draft_vocab = _size(draft, "draft_vocab_size")
    field = "draft_vocab_size" if draft_vocab is not None else "vocab_size"
    expected = draft_vocab if draft_vocab is not None else draft.vocab_size
    if expected is None or d2t.shape == (expected,):
        return []
    return [
        ParallelDraftingConfigError(
            f"`d2t` has shape {shape_text(d2t.shape)} but `{draft.file_field(field)}` = "
            f"{expected}: the draft-to-target map needs one entry per draft token, [{expected}].",
            field=draft.file_field(field),
        )
    ]


def _mask_hidden_errors(
    row: ArchitectureRow, draft: _Draft, tensors: Mapping[str, TensorHeader], packed: bool
) -> list[ParallelDraftingConfigError]:
    """``mask_hidden`` as the row wants it.

    qwen3_dflash's ``load_weights`` asserts that no tensor is named ``mask_hidden``;
    llama_eagle3's raises "mask_hidden not found in weights but model is configured for
    parallel drafting" without one, and copies it into a ``(1, fc input)`` buffer.
    """
    names = [name for name in tensors if "mask_hidden" in name]
    architectures = draft.file_field("architectures")
    if row.mask_hidden is MaskHidden.FORBIDDEN and names:
        return [
            ParallelDraftingConfigError(
                f"the checkpoint holds {tensor_name_text(names[0])}, but vLLM's {row.name} "
                "loader asserts that no tensor is named mask_hidden (DFlash embeds masked "
                "slots through the mask token id).",
                field=architectures,
            )
        ]
    if row.mask_hidden is not MaskHidden.REQUIRED or draft.token_id is None:
        return []
    if not names:
        return [
            ParallelDraftingConfigError(
                f"the checkpoint has no `mask_hidden` tensor, but `{draft.token_field}` makes it "
                f"a parallel-drafting draft: vLLM's {row.name} loader raises \"mask_hidden not "
                'found in weights but model is configured for parallel drafting".',
                field=draft.token_field,
            )
        ]
    expected = None if packed else _fc_expected(row, draft)
    tensor = tensors[names[0]]
    values = 1
    for dim in tensor.shape:
        values *= dim
    if expected is None or values == expected[0]:
        return []
    return [
        ParallelDraftingConfigError(
            f"{tensor_name_text(names[0])} holds {values} values (shape "
            f"{shape_text(tensor.shape)}) but vLLM copies it into a buffer of the fc input "
            f"width, {expected[0]} = {expected[2]}.",
            field=_fc_field(row, draft),
        )
    ]


def mask_token_of_model_class(config: FieldGetter) -> tuple[object, str]:
    """The mask id vLLM's Qwen3 DFlash model class reads, and its field: ``mask_token_id`` of
    ``eagle_config`` merged with ``dflash_config`` (``dflash_config`` wins), else the top level
    (``DFlashQwen3Model.__init__``)."""
    for section in (DFLASH_CONFIG, EAGLE_CONFIG):
        found = read_path(config, f"{section}.mask_token_id", MISSING)
        if found is not MISSING:
            return found, f"{section}.mask_token_id"
    return config("mask_token_id", None), "mask_token_id"


def mask_embedding_findings(
    directory: str,
    draft_config: object,
    *,
    file_field: Callable[[str], str],
    hidden_size: int | None,
    listings: DirectoryListings | None = None,
) -> tuple[list[ParallelDraftingConfigError], list[str]]:
    """Check ``mask_embedding.pt`` beside a Qwen3 DFlash draft, as vLLM reads it.

    vLLM reads the file only when the model class's own mask id is set
    (:func:`mask_token_of_model_class`), with ``torch.load(..., weights_only=True)``: a
    tensor, or a dict with ``embedding`` and optionally ``mask_token_id``, which must equal
    that id (``DFlashQwen3ForCausalLM._read_mask_embedding``).  The embedding then fills a
    ``hidden_size`` parameter.  The file is read by
    :func:`~drafting_config.files.mask_embedding.read_mask_embedding`; without torch (or
    with a torch whose import fails) a note says the file was not checked, and why.  Never
    raises: a drafter section that cannot be read is returned as an error.

    Args:
        listings: the sweep's directory listings (``directory`` is listed once).
    """
    path = os.path.join(directory, MASK_EMBEDDING_FILE)
    try:
        mask_id, mask_field = mask_token_of_model_class(field_getter(draft_config, ""))
    except ParallelDraftingConfigError as error:  # a drafter section that is not an object
        return [error], []
    try:
        names = (listings or DirectoryListings()).names(directory)
    except WeightsFileError:  # said by the weights check, which lists it first
        return [], []
    if mask_id is None or MASK_EMBEDDING_FILE not in names:
        return [], []
    shown = display_path(path)
    try:
        found = read_mask_embedding(path)
    except TorchUnavailableError as error:
        return [], [f"{shown} not checked: {error.reason}"]
    except WeightsFileError as error:
        return [error], []
    field = file_field(mask_field)
    errors: list[ParallelDraftingConfigError] = []
    if found.stored_token_id is not MISSING and _differs(found.stored_token_id, mask_id):
        errors.append(
            ParallelDraftingConfigError(
                f"{shown} is for mask_token_id {describe_value(found.stored_token_id)} but "
                f"`{field}` = {describe_value(mask_id)}: vLLM refuses it (ValueError).",
                field=field,
            )
        )
    if found.shape is None:
        errors.append(
            WeightsFileError(
                path,
                "expected a tensor, or a dict with an `embedding` tensor; got "
                f"{describe_value(found.embedding)}.",
            )
        )
    else:
        values = math.prod(found.shape)
        if hidden_size is not None and values != hidden_size:
            errors.append(
                ParallelDraftingConfigError(
                    f"{shown} holds {values} values (shape {shape_text(found.shape)}) but "
                    f"`{file_field('hidden_size')}` = {hidden_size}: vLLM loads it into one "
                    "embedding row of hidden_size values and fails.",
                    field=file_field("hidden_size"),
                )
            )
    return errors, []


def _differs(stored: object, mask_id: object) -> bool:
    """Whether vLLM finds the id stored in ``mask_embedding.pt`` different from the config's.

    vLLM compares with ``!=`` (``DFlashQwen3ForCausalLM._read_mask_embedding``): a 0-d
    tensor or a float holding the id compares equal, and a comparison that raises (a tensor
    of several values) fails the load.  ``stored`` comes from ``torch.load(...,
    weights_only=True)``: tensors, numbers, strings and containers only.
    """
    try:
        return bool(stored != mask_id)
    except Exception:  # vLLM raises too: the file is refused either way
        return True


def check_draft_weights(
    checkpoint: CheckpointHeaders | None,
    draft_config: object,
    resolution: Resolution,
    *,
    directory: str | None,
    shown_files: tuple[str, ...],
    listings: DirectoryListings | None = None,
) -> tuple[WeightsFacts | None, list[ParallelDraftingConfigError], list[str]]:
    """:func:`check_checkpoint` and :func:`mask_embedding_findings` for a resolved draft.

    Args:
        checkpoint: the draft's tensors, or ``None`` when it ships no safetensors.
        draft_config: the draft's config as given (a speculators file is read through the
            HF config vLLM derives from it).
        resolution: the draft's resolution: sizes, token id, tapped layers.
        directory: the local directory beside the config (for ``mask_embedding.pt``), or
            ``None`` for headers from the hub.
        shown_files: the files read, as the verdict shows them.
        listings: the sweep's directory listings, so that ``directory`` is listed once.

    Returns:
        The facts (``None`` without a checkpoint), the errors and the notes.
    """
    speculators = resolution.speculators
    hf_config = draft_config if speculators is None else speculators.hf_config
    winner = resolution.winner
    token_id = None if winner is None else winner.token_id
    token_field = None if winner is None else resolution.file_field(winner.source.value)
    facts: WeightsFacts | None = None
    errors: list[ParallelDraftingConfigError] = []
    notes: list[str] = []
    if checkpoint is not None:
        found = check_checkpoint(
            checkpoint,
            hf_config,
            file_field=resolution.file_field,
            speculators_type=None if speculators is None else speculators.algorithm,
            hidden_size=resolution.hidden_size,
            vocab_size=resolution.vocab_size,
            token_id=token_id,
            token_field=token_field,
            aux_layer_ids=resolution.aux_layer_ids,
            aux_layer_source=resolution.aux_layer_source,
            fed_hidden_states=resolution.takes_target_hidden_states,
            shown_files=shown_files,
        )
        facts = found.facts
        errors += found.errors
        notes += found.notes
        if checkpoint.misplaced:
            tensor, shard = checkpoint.misplaced[0]
            more = len(checkpoint.misplaced) - 1
            notes.append(
                f"{INDEX_FILE} places tensor {tensor_name_text(tensor)} in "
                f"{display_path(shard)}, whose header does not hold it"
                + (f" (and {more} more such tensors)" if more else "")
                + ": a stale index; vLLM reads the index only to pick the shard files, and "
                "loads what they hold"
            )
    if directory is not None:
        get = field_getter(hf_config, "")
        row, _ = architecture_row(get, None if speculators is None else speculators.algorithm)
        if row is not None and row.reads_mask_embedding:
            more_errors, more_notes = mask_embedding_findings(
                directory,
                hf_config,
                file_field=resolution.file_field,
                hidden_size=resolution.hidden_size,
                listings=listings,
            )
            errors += more_errors
            notes += more_notes
    return facts, errors, notes
