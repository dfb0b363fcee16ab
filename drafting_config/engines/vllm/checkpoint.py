"""A draft's checkpoint against its config, as vLLM 0.33.0's loader will see it.

A ``config.json`` can be right while the weights beside it disagree with it, and vLLM
finds out only after loading the target and the draft: at weight loading with a shape
error, or at the first forward pass ("DFlash drafter expects N concatenated aux hidden
features", "mask_hidden not found in weights").  :func:`check_checkpoint` compares the
tensors named in the safetensors headers (:mod:`drafting_config.files.safetensors_headers`)
with the config, by the rules of the model class vLLM's registry picks for the draft's
``architectures``.

Those rules are one table, :data:`~drafting_config.engines.vllm.architectures.ARCHITECTURES`, as
data (beside vLLM's other knowledge, in :mod:`drafting_config.engines.vllm`): each row says how the
loader renames tensors, how wide ``fc``'s input is, and whether a ``mask_hidden``
tensor is required, forbidden or ignored, and cites the vLLM code it follows.  An
architecture not in the table, or a quantized checkpoint whose shapes are packed, gets
a note saying what was not checked, never an error.

``mask_embedding.pt`` is read by :mod:`drafting_config.files.mask_embedding` (the only
module that imports torch to read a file) before the rules run;
:func:`mask_embedding_findings` judges what it holds.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Final

from drafting_config.engines.interface import WeightsFacts
from drafting_config.engines.vllm import codes as vllm_codes
from drafting_config.engines.vllm.architectures import (
    ARCHITECTURES,
    ArchitectureRow,
    FcWidth,
    MaskHidden,
    architecture_row,
)
from drafting_config.engines.vllm.load_path import serving_architectures
from drafting_config.engines.vllm.resolution import VllmSubject, aux_layers
from drafting_config.engines.vllm.runners import (
    RUNNER_EVIDENCE,
    Runner,
    dflash_uses_aux_hidden_states,
)
from drafting_config.files.safetensors_headers import (
    INDEX_FILE,
    CheckpointHeaders,
    TensorHeader,
    WeightsFileError,
    shape_text,
    tensor_name_text,
)
from drafting_config.values import codes
from drafting_config.values.errors import (
    ParallelDraftingConfigError,
    describe_value,
)
from drafting_config.values.fields import MISSING, FieldGetter, is_list, read_path
from drafting_config.values.findings import Findings, Note
from drafting_config.values.integers import positive_int32
from drafting_config.values.paths import display_path
from drafting_config.values.sources import EAGLE_CONFIG

__all__ = ["ARCHITECTURES", "ArchitectureRow", "FcWidth", "MaskHidden", "WeightsFacts"]

DFLASH_CONFIG: Final = "dflash_config"


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

_LOADER: Final = (
    "vllm/model_executor/model_loader/default_loader.py: DefaultModelLoader.load_weights"
)
"""Where vLLM loads the weights, and leaves what gets no tensor uninitialized."""

DROPPED_ROTARY_TENSORS: Final = (
    "rotary_pos_emb.inv_freq",
    "rotary_emb.inv_freq",
    "rotary_emb.cos_cached",
    "rotary_emb.sin_cached",
)
"""The tensors vLLM's loader drops by name, in every shipped release
(``vllm/model_executor/models/utils.py``:
``AutoWeightsLoader.REMOVE_UNUSED_ROTARY_EMBEDS_MAPPER``, applied in
``AutoWeightsLoader.load_weights``); any other tensor under ``rotary_emb.`` has no
parameter to go to (the engine's weights stage reads it:
``tests/real_configs/vllm_weight_runs.json``, ``dflash-qwen3-4b-extra-tensor``)."""

_NO_PARAMETER: Final = (
    "vllm/model_executor/models/utils.py: AutoWeightsLoader._load_module raises ValueError "
    '"There is no module or parameter named"'
)
_SHAPE_CHECK: Final = (
    "vllm/model_executor/model_loader/weight_utils.py: default_weight_loader asserts the "
    "tensor's size is the parameter's"
)
_VOCAB_LAYERS: Final = (
    "vllm/model_executor/layers/vocab_parallel_embedding.py: VocabParallelEmbedding and "
    "ParallelLMHead, sized from the config"
)
_FC_EVIDENCE: Final = {
    FcWidth.DFLASH: "vllm/model_executor/models/qwen3_dflash.py: _get_dflash_fc_input_size",
    FcWidth.EAGLE3: "vllm/model_executor/models/llama_eagle3.py: LlamaModel.__init__",
}
"""Where each model class sizes ``fc``'s input."""
_READ_MASK_EMBEDDING: Final = (
    "vllm/model_executor/models/qwen3_dflash.py: DFlashQwen3ForCausalLM._read_mask_embedding"
)

_LAYER: Final = re.compile(r"model\.layers\.(\d+)\.")
_MAX_SHOWN_LAYERS: Final = 8


def _row_of(subject: VllmSubject) -> tuple[ArchitectureRow | None, str | None]:
    """:func:`architecture_row` for the subject's draft, fed hidden states or not (a separate
    draft model never is: its causal LM's row), by the class vLLM builds
    (:func:`~.load_path.serving_architectures`: an EAGLE-3 head under ``LlamaForCausalLM``,
    told by its config or its tensors, is ``Eagle3LlamaForCausalLM``, ``llama_eagle3.py``'s
    row), else by the names as given."""
    resolution = subject.resolution
    fed = resolution.takes_target_hidden_states and not subject.separate_model
    get = subject.get
    try:
        served = list(serving_architectures(subject))
    except ParallelDraftingConfigError:  # the architecture rules report it
        served = []
    given = get("architectures", None)
    if served and is_list(given) and served != list(given):

        def renamed(name: str, default: object) -> object:
            return [*served, *given] if name == "architectures" else get(name, default)

        row = architecture_row(renamed, fed_hidden_states=fed)
        if row[0] is not None:
            return row
    return architecture_row(get, fed_hidden_states=fed)


def check_checkpoint(subject: VllmSubject, found: Findings) -> None:
    """Compare the checkpoint's tensors (``subject.checkpoint``) with the draft's config, by
    its row of :data:`ARCHITECTURES`, and check the ``mask_embedding.pt`` beside a local
    draft (:func:`mask_embedding_findings`).

    Every error's ``.field`` names the config field the tensor disagrees with, and its
    message gives both numbers.  An architecture the table does not know, or a quantized
    checkpoint, gets a note.
    """
    checkpoint = subject.checkpoint
    if checkpoint is not None:
        _check_tensors(subject, checkpoint, found)
        if checkpoint.misplaced:
            tensor, shard = checkpoint.misplaced[0]
            more = len(checkpoint.misplaced) - 1
            found.note(
                f"{INDEX_FILE} places tensor {tensor_name_text(tensor)} in "
                f"{display_path(shard)}, whose header does not hold it"
                + (f" (and {more} more such tensors)" if more else "")
                + ", a stale index that vLLM reads only to pick the shard files",
                code=vllm_codes.INDEX_NAMES_ABSENT_TENSOR,
                fix=f"regenerate {INDEX_FILE} from the shards",
                evidence="vllm/model_executor/model_loader/weight_utils.py: "
                "filter_duplicate_safetensors_files",
            )
    if subject.mask_embedding is not None:
        row, _ = architecture_row(subject.get)
        if row is not None and row.reads_mask_embedding:
            mask_embedding_findings(subject, found)


def weights_facts(subject: VllmSubject, shown_files: tuple[str, ...]) -> WeightsFacts | None:
    """What the checkpoint (``subject.checkpoint``) holds, as :attr:`Verdict.weights` reports
    it; ``None`` without a checkpoint.

    Args:
        shown_files: the files read, as the verdict shows them.
    """
    checkpoint = subject.checkpoint
    if checkpoint is None:
        return None
    tensors = checkpoint.tensors
    row, _ = _row_of(subject)
    if row is None:
        return WeightsFacts(shown_files, len(tensors), None, None, None, None)
    mapped = _mapped_names(row, tensors)
    embedding = mapped.get("model.embed_tokens.weight")
    fc = mapped.get("model.fc.weight")
    packed = _attempt_packed(subject, tensors)
    return WeightsFacts(
        files=shown_files,
        tensors=len(tensors),
        architecture=row.name,
        embedding_rows=embedding.shape[0] if embedding is not None and embedding.shape else None,
        fc_input_width=fc.shape[1]
        if packed is None and fc is not None and len(fc.shape) == 2
        else None,
        layers=len(_layer_indices(mapped)),
    )


def _attempt_packed(subject: VllmSubject, tensors: Mapping[str, TensorHeader]) -> str | None:
    try:
        return _packed(subject.get, tensors)
    except ParallelDraftingConfigError:
        return None


def _check_tensors(subject: VllmSubject, checkpoint: CheckpointHeaders, found: Findings) -> None:
    """The rules of the checkpoint's row of :data:`ARCHITECTURES`."""
    row, found_as = _row_of(subject)
    tensors = checkpoint.tensors
    if row is None:
        shown = f" ({found_as})" if found_as else ""
        found.note(
            f"weights not checked against the config: the architecture{shown} is not one "
            "whose loading rules are known here (" + ", ".join(r.name for r in ARCHITECTURES) + ")",
            code=vllm_codes.WEIGHTS_ARCHITECTURE_UNKNOWN,
        )
        return
    mapped = _mapped_names(row, tensors)
    packed = _packed(subject.get, tensors)
    if packed is not None:
        found.note(
            f"weight shapes not checked: the checkpoint is quantized ({packed}), so its "
            "shapes are packed; layer count and d2t checked",
            code=vllm_codes.WEIGHTS_QUANTIZED,
        )
    with found.collect():
        found.errors += _layer_count_errors(subject, _layer_indices(mapped))
    if packed is None:
        with found.collect():
            found.errors += _embedding_errors(
                row, subject, mapped.get("model.embed_tokens.weight"), found.notes
            )
        with found.collect():
            found.errors += _lm_head_errors(row, subject, mapped.get("lm_head.weight"), found.notes)
        with found.collect():
            found.errors += _fc_errors(row, subject, mapped.get("model.fc.weight"))
        with found.collect():
            _parameter_findings(row, subject, mapped, found)
    if row.draft_vocabulary:
        with found.collect():
            found.errors += _d2t_errors(subject, tensors.get("d2t"))
    if row.fc_width is FcWidth.EAGLE3 and "d2t" not in tensors:
        with found.collect():
            found.errors += _d2t_missing_errors(subject)
    with found.collect():
        found.errors += _mask_hidden_errors(row, subject, tensors, packed is not None)


_MAX_MISSING: Final = 8


def _parameter_findings(
    row: ArchitectureRow, subject: VllmSubject, mapped: Mapping[str, TensorHeader], found: Findings
) -> None:
    """Every parameter the model class declares gets a tensor, and every tensor of a decoder
    layer has a parameter.

    * Missing: for the DFlash and EAGLE-3 classes ``load_weights`` returns ``None``
      (``qwen3_dflash.py``, ``llama_eagle3.py``), so ``DefaultModelLoader.load_weights``
      (``model_loader/default_loader.py``) never checks what was loaded; for the causal LMs
      its check counts linear and embedding parameters as loaded.  The parameter keeps the
      memory it was allocated with: the draft runs wrong, an error naming it.  The row's
      :attr:`~ArchitectureRow.no_tensor` lists the ones that legitimately get none;
      ``embed_tokens``, ``lm_head`` and ``fc`` have rules of their own (shapes, sharing).
    * Unplaceable: a decoder-layer tensor the class has no parameter for makes
      ``AutoWeightsLoader._load_module`` (``models/utils.py``) raise "There is no module or
      parameter named" (an error), except a ``.bias``, which it ignores (a note).
    """
    try:
        count = _size(subject, "num_hidden_layers")
    except ParallelDraftingConfigError:
        return  # the layer-count rule reports the field
    if count is None or not row.layer_parameters:
        return
    # Only the layers the checkpoint holds, never range(count): a config's count is unbounded.
    layers = sorted(index for index in _layer_indices(mapped) if 0 <= index < count)
    missing = [
        f"model.layers.{index}.{parameter}"
        for index in layers
        for parameter in row.layer_parameters
        if f"model.layers.{index}.{parameter}" not in mapped
    ]
    missing += [name for name in row.top_parameters if name not in mapped]
    why = (
        "its load_weights returns nothing, so the loader never checks what was loaded"
        if row.adds_model_prefix
        else "the loader counts linear and embedding parameters as loaded"
    )
    evidence = f"{row.follows}; {_LOADER}: {why}"
    for name in missing[:_MAX_MISSING]:
        found.error(
            ParallelDraftingConfigError(
                f"The checkpoint has no tensor for `{name}`, which vLLM's {row.name} class "
                "declares, so the draft runs on uninitialized memory.",
                code=vllm_codes.WEIGHTS_PARAMETER_MISSING,
                fix="export the checkpoint with this tensor",
                evidence=evidence,
            )
        )
    if len(missing) > _MAX_MISSING:
        found.error(
            ParallelDraftingConfigError(
                f"The checkpoint has no tensor for {len(missing) - _MAX_MISSING} more "
                f"parameters of vLLM's {row.name} class, so the draft runs on uninitialized "
                "memory.",
                code=vllm_codes.WEIGHTS_PARAMETER_MISSING,
                fix="export the checkpoint with these tensors",
                evidence=evidence,
            )
        )
    known = set(row.layer_parameters) | set(row.layer_extras)
    for name in mapped:
        match = _LAYER.match(name)
        if match is None or int(match.group(1)) >= count:
            continue
        rest = name[match.end() :]
        if rest in known or any(dropped in rest for dropped in DROPPED_ROTARY_TENSORS):
            continue
        if rest.endswith(".bias"):
            found.note(
                f"tensor `{name}` has no parameter, and vLLM's loader ignores it as a .bias",
                code=vllm_codes.WEIGHTS_BIAS_IGNORED,
                evidence="vllm/model_executor/models/utils.py: AutoWeightsLoader._load_module",
            )
            continue
        found.error(
            ParallelDraftingConfigError(
                f"The checkpoint's tensor `{name}` has no parameter in vLLM's {row.name} "
                "class, so loading the weights fails.",
                code=vllm_codes.WEIGHTS_TENSOR_UNEXPECTED,
                fix="drop the tensor, or serve the draft with the architecture it was trained as",
                evidence=_NO_PARAMETER,
            )
        )


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


def _size(subject: VllmSubject, field: str) -> int | None:
    """A size field of the config, as an int; ``None`` when unset or null."""
    value = subject.get(field, None)
    return None if value is None else positive_int32(subject.file_field(field), value)


def _layer_count_errors(
    subject: VllmSubject, layers: set[int]
) -> list[ParallelDraftingConfigError]:
    """The decoder-layer indices, after renaming, are exactly ``0 .. num_hidden_layers - 1``.

    vLLM builds ``num_hidden_layers`` layers: a checkpoint layer beyond them is a name the
    loader refuses ("There is no module or parameter named", ``models/utils.py``,
    ``AutoWeightsLoader._load_module``), and a layer missing from it is left uninitialized
    (``model_loader/default_loader.py``, ``load_weights``).
    """
    count = _size(subject, "num_hidden_layers")
    if count is None or (len(layers) == count and all(0 <= i < count for i in layers)):
        return []
    field = subject.file_field("num_hidden_layers")
    shown = sorted(layers)
    listed = ", ".join(map(str, shown[:_MAX_SHOWN_LAYERS])) + (
        ", ..." if len(shown) > _MAX_SHOWN_LAYERS else ""
    )
    held = f"{len(layers)} decoder layers ({listed})" if layers else "no decoder layers"
    return [
        ParallelDraftingConfigError(
            f"The checkpoint holds {held} but `{field}` = {count}, so the layers 0 to "
            f"{count - 1} vLLM builds do not fit the weights.",
            field=field,
            code=vllm_codes.WEIGHTS_LAYER_COUNT,
            fix=f"set `{field}` to the checkpoint's layer count, or export the missing layers",
            evidence=f"{_NO_PARAMETER} for a layer beyond them; {_LOADER} leaves a missing "
            "one uninitialized",
        )
    ]


def _embedding_errors(
    row: ArchitectureRow, subject: VllmSubject, embedding: TensorHeader | None, notes: list[str]
) -> list[ParallelDraftingConfigError]:
    """``embed_tokens``: ``vocab_size`` rows of ``hidden_size``, more rows than the token id.

    vLLM builds ``VocabParallelEmbedding(vocab_size, hidden_size)`` in every row's model
    class; a mask id past the draft's embedding rows fails as a device-side assert.  DFlash
    and EAGLE-3 drafts may leave it out and share the target's (``load_weights`` drops the
    name, ``process_eagle_weight`` in ``models/utils.py``).
    """
    if embedding is None:
        if row.shares_target_parts:
            notes.append(
                Note(
                    "the checkpoint has no embed_tokens, so vLLM shares the target's embedding",
                    code=vllm_codes.WEIGHTS_EMBEDDING_SHARED,
                    evidence="vllm/v1/worker/gpu/spec_decode/eagle/utils.py: "
                    "maybe_share_target_embed",
                )
            )
            return []
        return [
            ParallelDraftingConfigError(
                "The checkpoint has no `model.embed_tokens.weight`, so vLLM leaves the "
                "draft's embedding uninitialized.",
                field=subject.file_field("vocab_size"),
                code=vllm_codes.WEIGHTS_EMBEDDING_MISSING,
                fix="export the checkpoint with its embedding",
                evidence=_LOADER,
            )
        ]
    return _matrix_errors(
        "embed_tokens.weight",
        embedding,
        ("vocab_size", subject.resolution.vocab_size),
        subject,
        check_token=True,
    )


def _lm_head_errors(
    row: ArchitectureRow, subject: VllmSubject, head: TensorHeader | None, notes: list[str]
) -> list[ParallelDraftingConfigError]:
    """``lm_head.weight``: ``draft_vocab_size`` rows (else ``vocab_size``) for DFlash and EAGLE-3
    (``ParallelLMHead(draft_vocab_size, hidden_size)``), ``vocab_size`` rows for a causal LM
    unless its embedding is tied (``tie_word_embeddings``: the head is the embedding)."""
    if row.draft_vocabulary:
        if head is None:
            return _shared_head_errors(row, subject)  # the target's head is shared
        draft_vocab = _size(subject, "draft_vocab_size")
        rows = (
            ("draft_vocab_size", draft_vocab)
            if draft_vocab is not None
            else ("vocab_size", subject.resolution.vocab_size)
        )
        return _matrix_errors("lm_head.weight", head, rows, subject, check_token=False)
    tied = subject.get("tie_word_embeddings", None)
    if tied is True:
        return []  # the head is the embedding
    if head is None:
        if tied is False:
            return [
                ParallelDraftingConfigError(
                    "The checkpoint has no `lm_head.weight` and `tie_word_embeddings` is false, "
                    "so vLLM leaves the draft's LM head uninitialized.",
                    field=subject.file_field("tie_word_embeddings"),
                    code=codes.WEIGHTS_LM_HEAD_MISSING,
                    fix="export the checkpoint with `lm_head.weight`, or set "
                    "`tie_word_embeddings` to true if the head is the embedding",
                    evidence=f"vllm/model_executor/models/llama.py: LlamaForCausalLM.__init__; "
                    f"{_LOADER}",
                )
            ]
        notes.append(
            Note(
                "the checkpoint has no lm_head.weight and the config does not set "
                "tie_word_embeddings, fine only if the model class ties them by default",
                code=vllm_codes.WEIGHTS_LM_HEAD_TIED_BY_DEFAULT,
                fix="set `tie_word_embeddings` to say whether the head is the embedding",
                evidence="vllm/model_executor/models/llama.py: LlamaForCausalLM.__init__",
            )
        )
        return []
    return _matrix_errors(
        "lm_head.weight",
        head,
        ("vocab_size", subject.resolution.vocab_size),
        subject,
        check_token=False,
    )


def _shared_head_errors(
    row: ArchitectureRow, subject: VllmSubject
) -> list[ParallelDraftingConfigError]:
    """An EAGLE-3 head without ``lm_head.weight`` whose ``draft_vocab_size`` is not the
    target's vocabulary: ``Eagle3LlamaForCausalLM.load_weights``
    (``model_executor/models/llama_eagle3.py``) sets ``has_own_lm_head`` only from an
    ``lm_head`` tensor (``process_eagle_weight``), so the speculator shares the target's head;
    ``compute_logits`` keeps ``LogitsProcessor``'s first ``draft_vocab_size`` columns
    (``layers/logits_processor.py``: ``_get_logits``), the target's first tokens, and
    scatters them through ``draft_id_to_target_id`` as if they were the pruned vocabulary.
    The engine's weights stage reads it (``tests/real_configs/vllm_weight_runs.json``:
    ``ptd-eagle3-llama3-8b-no-lm-head``: ``lm_head`` from the target, a 32000-entry map)."""
    if row.fc_width is not FcWidth.EAGLE3:
        return []
    draft_vocab = _size(subject, "draft_vocab_size")
    target = subject.target
    vocab = target.vocab_size if target is not None else None
    if vocab is None:
        vocab = subject.resolution.vocab_size
    if draft_vocab is None or vocab is None or draft_vocab == vocab:
        return []
    field = subject.file_field("draft_vocab_size")
    return [
        ParallelDraftingConfigError(
            f"No `lm_head.weight` yet `{field}` = {draft_vocab} (target: {vocab}): vLLM uses "
            f"the target's head, whose first {draft_vocab} rows are other tokens.",
            field=field,
            code=vllm_codes.WEIGHTS_LM_HEAD_SHARED_DRAFT_VOCAB,
            fix="ship the head's own `lm_head.weight`, or drop `draft_vocab_size` if it was "
            "trained on the target's vocabulary",
            evidence="vllm/model_executor/models/llama_eagle3.py: Eagle3LlamaForCausalLM."
            "load_weights (has_own_lm_head only from lm_head), compute_logits; "
            "vllm/model_executor/layers/logits_processor.py: LogitsProcessor._get_logits",
        )
    ]


def _matrix_errors(
    tensor: str,
    header: TensorHeader,
    rows: tuple[str, int | None],
    subject: VllmSubject,
    *,
    check_token: bool,
) -> list[ParallelDraftingConfigError]:
    """A ``[rows, hidden_size]`` matrix: rows as the config says, ``hidden_size`` columns."""
    errors: list[ParallelDraftingConfigError] = []
    if len(header.shape) != 2:
        return [
            ParallelDraftingConfigError(
                f"`{tensor}` has shape {shape_text(header.shape)}, not a [{rows[0]}, "
                "hidden_size] matrix, so vLLM fails loading it.",
                field=subject.file_field(rows[0]),
                code=vllm_codes.WEIGHTS_SHAPE_INVALID,
                fix=f"export `{tensor}` as a [{rows[0]}, hidden_size] matrix",
                evidence=f"{_VOCAB_LAYERS}; {_SHAPE_CHECK}",
            )
        ]
    got_rows, got_columns = header.shape
    field, expected = rows
    if expected is not None and got_rows != expected:
        errors.append(_mismatch(tensor, "rows", got_rows, subject.file_field(field), expected))
    if subject.resolution.hidden_size is not None and got_columns != subject.resolution.hidden_size:
        errors.append(
            _mismatch(
                tensor,
                "columns",
                got_columns,
                subject.file_field("hidden_size"),
                subject.resolution.hidden_size,
            )
        )
    if (
        check_token
        and subject.token_id is not None
        and subject.token_field is not None
        and subject.token_id >= got_rows
    ):
        errors.append(
            ParallelDraftingConfigError(
                f"`{subject.token_field}` = {subject.token_id} is past the {got_rows} rows of "
                f"`{tensor}`, so vLLM fails embedding the masked slots with a device-side "
                "assert.",
                field=subject.token_field,
                code=vllm_codes.TOKEN_PAST_EMBEDDING_ROWS,
                fix="set the token id to a row of the checkpoint's embedding",
                evidence=_VOCAB_LAYERS,
            )
        )
    return errors


def _mismatch(
    tensor: str, what: str, got: int, field: str, expected: int
) -> ParallelDraftingConfigError:
    return ParallelDraftingConfigError(
        f"`{tensor}` has {got} {what} but `{field}` = {expected}, so vLLM, sizing the tensor "
        "from the config, fails loading it.",
        field=field,
        code=vllm_codes.WEIGHTS_SIZE_MISMATCH,
        fix=f"set `{field}` to {got} if the checkpoint is right, else re-export `{tensor}`",
        evidence=_SHAPE_CHECK,
    )


def _drafter_section(subject: VllmSubject) -> dict[str, object]:
    """The keys of ``eagle_config`` that vLLM's EAGLE-3 model reads."""
    merged: dict[str, object] = {}
    for key in ("use_aux_hidden_state", "eagle_aux_hidden_state_layer_ids"):
        found = read_path(subject.get, f"{EAGLE_CONFIG}.{key}", MISSING)
        if found is not MISSING:
            merged[key] = found
    return merged


def _fc_expected(row: ArchitectureRow, subject: VllmSubject) -> tuple[int, int, str] | None:
    """The fc input width the model class builds, the number of hidden states it expects,
    and how (for messages); ``None``: no fc."""
    if row.fc_width is FcWidth.NONE:
        return None
    section = _drafter_section(subject)
    if row.fc_width is FcWidth.DFLASH:
        uses_aux: object = dflash_uses_aux_hidden_states(subject.get)
    else:  # LlamaModel.__init__ in llama_eagle3.py: eagle_config alone, default true
        uses_aux = section.get("use_aux_hidden_state", True)
    if uses_aux is False or uses_aux is None:
        return None
    target_hidden = _size(subject, "target_hidden_size")
    width_field = "target_hidden_size" if target_hidden is not None else "hidden_size"
    width = target_hidden if target_hidden is not None else subject.resolution.hidden_size
    if width is None:
        return None
    if row.fc_width is FcWidth.DFLASH:
        aux_ids, _ = aux_layers(subject)
        if aux_ids:
            count = len(aux_ids)
            source = "tapped layers"
        else:
            layers = _size(subject, "num_hidden_layers")
            if layers is None:
                return None
            count = layers
            source = f"layers, from `{subject.file_field('num_hidden_layers')}`"
    else:
        count, source = _eagle3_count(subject, section)
    return (
        width * count,
        count,
        f"`{subject.file_field(width_field)}` {width} x {count} {source}",
    )


def _eagle3_count(subject: VllmSubject, section: Mapping[str, object]) -> tuple[int, str]:
    """``num_aux_hidden_states``, else ``len(eagle_config.eagle_aux_hidden_state_layer_ids)``,
    else 3, as ``LlamaModel.__init__`` in ``llama_eagle3.py`` reads them."""
    explicit = _size(subject, "num_aux_hidden_states")
    if explicit is not None:
        return explicit, f"layers, from `{subject.file_field('num_aux_hidden_states')}`"
    listed = section.get("eagle_aux_hidden_state_layer_ids")
    if is_list(listed) and listed:
        field = subject.file_field(f"{EAGLE_CONFIG}.eagle_aux_hidden_state_layer_ids")
        return len(listed), f"layers, from `{field}`"
    return 3, "layers, vLLM's default"


def _fc_errors(
    row: ArchitectureRow,
    subject: VllmSubject,
    fc: TensorHeader | None,
) -> list[ParallelDraftingConfigError]:
    """``fc.weight`` is ``[hidden_size, fc input]``, fc input as the row computes it; for
    EAGLE-3, the runner also taps as many layers as ``fc`` expects."""
    expected = _fc_expected(row, subject)
    errors: list[ParallelDraftingConfigError] = []
    if expected is None:
        return errors
    width, count, how = expected
    field = _fc_field(row, subject)
    sized_by = _FC_EVIDENCE[row.fc_width]
    taps, source = aux_layers(subject)
    if row.fc_width is FcWidth.EAGLE3 and taps and source and len(taps) != count:
        errors.append(
            ParallelDraftingConfigError(
                f"`{source}` taps {len(taps)} target layers but vLLM sizes the draft's fc for "
                f"{count} ({how}), so the first forward pass fails.",
                field=source,
                code=codes.TAPPED_WIDTH_MISMATCH,
                fix=f"set `num_aux_hidden_states` to {len(taps)}, or tap {count} layers",
                evidence=f"{sized_by} reads eagle_config; {RUNNER_EVIDENCE[Runner.NEWER]} "
                "reads the top-level list first",
            )
        )
    if fc is None:
        errors.append(
            ParallelDraftingConfigError(
                f"The checkpoint has no `fc.weight`, so vLLM leaves the draft's fc, {width} "
                f"= {how} wide, uninitialized.",
                field=field,
                code=vllm_codes.WEIGHTS_FC_MISSING,
                fix="export the checkpoint with its `fc.weight`",
                evidence=f"{sized_by}; {_LOADER}",
            )
        )
        return errors
    if len(fc.shape) != 2:
        errors.append(
            ParallelDraftingConfigError(
                f"`fc.weight` has shape {shape_text(fc.shape)}, not a [hidden_size, {width}] "
                "matrix, so vLLM fails loading it.",
                field=field,
                code=vllm_codes.WEIGHTS_SHAPE_INVALID,
                fix=f"export `fc.weight` as a [hidden_size, {width}] matrix",
                evidence=f"{sized_by}; {_SHAPE_CHECK}",
            )
        )
        return errors
    rows, columns = fc.shape
    if columns != width:
        errors.append(
            ParallelDraftingConfigError(
                f"`fc.weight` has input width {columns} but vLLM builds fc for {width} = "
                f"{how}, so loading the weights fails.",
                field=field,
                code=vllm_codes.FC_WEIGHT_WIDTH_MISMATCH,
                fix="name the target layers the checkpoint was trained on, or export a "
                "checkpoint trained on these",
                evidence=f"{sized_by}; {_SHAPE_CHECK}",
            )
        )
    if subject.resolution.hidden_size is not None and rows != subject.resolution.hidden_size:
        errors.append(
            _mismatch(
                "fc.weight",
                "rows",
                rows,
                subject.file_field("hidden_size"),
                subject.resolution.hidden_size,
            )
        )
    return errors


def _fc_field(row: ArchitectureRow, subject: VllmSubject) -> str:
    """The config field an fc width error is about: the one that sets the layer count."""
    if row.fc_width is FcWidth.DFLASH:
        aux_ids, aux_source = aux_layers(subject)
        if aux_ids and aux_source:
            return aux_source
        return subject.file_field("num_hidden_layers")
    if subject.get("num_aux_hidden_states", None) is not None:
        return subject.file_field("num_aux_hidden_states")
    return subject.file_field(f"{EAGLE_CONFIG}.eagle_aux_hidden_state_layer_ids")


def _d2t_errors(
    subject: VllmSubject, d2t: TensorHeader | None
) -> list[ParallelDraftingConfigError]:
    """``d2t`` has ``draft_vocab_size`` entries (``vocab_size`` when unset): vLLM loads it into
    a ``draft_id_to_target_id`` parameter of that size (``load_weights`` of both rows)."""
    if d2t is None:
        return []
    draft_vocab = _size(subject, "draft_vocab_size")
    field = "draft_vocab_size" if draft_vocab is not None else "vocab_size"
    expected = draft_vocab if draft_vocab is not None else subject.resolution.vocab_size
    if expected is None or d2t.shape == (expected,):
        return []
    return [
        ParallelDraftingConfigError(
            f"`d2t` has shape {shape_text(d2t.shape)} but `{subject.file_field(field)}` = "
            f"{expected}, so vLLM fails loading the draft-to-target map into [{expected}].",
            field=subject.file_field(field),
            code=vllm_codes.WEIGHTS_SIZE_MISMATCH,
            fix=f"set `{subject.file_field(field)}` to the draft vocabulary d2t maps, or "
            "re-export d2t",
            evidence=f"load_weights of llama_eagle3.py and qwen3_dflash.py: d2t fills "
            f"draft_id_to_target_id; {_SHAPE_CHECK}",
        )
    ]


def _d2t_missing_errors(subject: VllmSubject) -> list[ParallelDraftingConfigError]:
    """An EAGLE-3 head whose ``draft_vocab_size`` is below the target's vocabulary (the
    head's own ``vocab_size`` without a target) and whose checkpoint has no ``d2t``: vLLM's
    ``Eagle3LlamaForCausalLM.__init__`` (``model_executor/models/llama_eagle3.py``) builds
    ``draft_id_to_target_id`` as zeros whenever ``draft_vocab_size`` differs from the
    target's vocabulary, ``load_weights`` fills it only from ``d2t``, and ``compute_logits``
    scatters draft id ``i`` to target id ``i + draft_id_to_target_id[i]``: without the map,
    to target id ``i``, wrong for every pruned vocabulary whose kept tokens are not the
    first ids (EAGLE-3 trainers keep the most frequent tokens: SafeAILab/EAGLE#222 asks how
    d2t is built, the official heads ship it)."""
    draft_vocab = _size(subject, "draft_vocab_size")
    target = subject.target
    vocab = target.vocab_size if target is not None else None
    if vocab is None:
        vocab = subject.resolution.vocab_size
    if draft_vocab is None or vocab is None or draft_vocab >= vocab:
        return []
    field = subject.file_field("draft_vocab_size")
    return [
        ParallelDraftingConfigError(
            f"`{field}` = {draft_vocab} prunes a vocabulary of {vocab}, yet no d2t map ships: "
            "vLLM maps draft id i to target id i.",
            field=field,
            code=vllm_codes.DRAFT_VOCAB_MAP_MISSING,
            fix="ship the d2t tensor the trainer wrote beside the head's weights",
            evidence="vllm/model_executor/models/llama_eagle3.py: Eagle3LlamaForCausalLM."
            "__init__ (draft_id_to_target_id zeros), load_weights (filled from d2t only), "
            "compute_logits",
        )
    ]


def _mask_hidden_errors(
    row: ArchitectureRow, subject: VllmSubject, tensors: Mapping[str, TensorHeader], packed: bool
) -> list[ParallelDraftingConfigError]:
    """``mask_hidden`` as the row wants it.

    qwen3_dflash's ``load_weights`` asserts that no tensor is named ``mask_hidden``;
    llama_eagle3's raises "mask_hidden not found in weights but model is configured for
    parallel drafting" without one, and copies it into a ``(1, fc input)`` buffer.
    """
    names = [name for name in tensors if "mask_hidden" in name]
    architectures = subject.file_field("architectures")
    if row.mask_hidden is MaskHidden.FORBIDDEN and names:
        return [
            ParallelDraftingConfigError(
                f"The checkpoint holds {tensor_name_text(names[0])}, which vLLM's {row.name} "
                "loader refuses, since DFlash embeds the masked slots through the mask token.",
                field=architectures,
                code=vllm_codes.MASK_HIDDEN_UNEXPECTED,
                fix="drop the mask_hidden tensor from the checkpoint",
                evidence="vllm/model_executor/models/qwen3_dflash.py: "
                "DFlashQwen3ForCausalLM.load_weights asserts that no tensor is named mask_hidden",
            )
        ]
    if row.mask_hidden is not MaskHidden.REQUIRED or subject.token_id is None:
        return []
    if not names:
        return [
            ParallelDraftingConfigError(
                f"The checkpoint has no `mask_hidden` tensor, but `{subject.token_field}` makes "
                f"the draft parallel, so vLLM's {row.name} loader fails.",
                field=subject.token_field,
                code=vllm_codes.MASK_HIDDEN_MISSING,
                fix="export the checkpoint with the `mask_hidden` it was trained with",
                evidence="vllm/model_executor/models/llama_eagle3.py: "
                'Eagle3LlamaForCausalLM.load_weights raises "mask_hidden not found in weights '
                'but model is configured for parallel drafting"',
            )
        ]
    expected = None if packed else _fc_expected(row, subject)
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
            f"width, {expected[0]} = {expected[2]}, and fails.",
            field=_fc_field(row, subject),
            code=vllm_codes.MASK_HIDDEN_SIZE,
            fix=f"export mask_hidden with {expected[0]} values, the fc input width",
            evidence="vllm/model_executor/models/llama_eagle3.py: "
            "Eagle3LlamaForCausalLM.load_weights copies mask_hidden into a (1, fc input) buffer",
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


def mask_embedding_findings(subject: VllmSubject, found: Findings) -> None:
    """Judge ``mask_embedding.pt`` beside a Qwen3 DFlash draft (``subject.mask_embedding``,
    read by :func:`~drafting_config.files.mask_embedding.read_mask_embedding_beside`), as
    vLLM reads it.

    vLLM reads the file only when the model class's own mask id is set
    (:func:`mask_token_of_model_class`), with ``torch.load(..., weights_only=True)``: a
    tensor, or a dict with ``embedding`` and optionally ``mask_token_id``, which must equal
    that id (``DFlashQwen3ForCausalLM._read_mask_embedding``).  The embedding then fills a
    ``hidden_size`` parameter.  Without torch (or with a torch whose import fails) a note
    says the file was not checked, and why.

    Raises:
        ParallelDraftingConfigError: a drafter section that cannot be read.
    """
    file = subject.mask_embedding
    if file is None:
        return
    mask_id, mask_field = mask_token_of_model_class(subject.get)
    if mask_id is None:
        return
    shown = display_path(file.path)
    if file.unavailable is not None:
        found.note(
            f"{shown} not checked: {file.unavailable}", code=codes.MASK_EMBEDDING_NOT_CHECKED
        )
        return
    if file.problem is not None:
        found.error(file.problem)
        return
    contents = file.contents
    if contents is None:
        return
    field = subject.file_field(mask_field)
    if contents.stored_token_id is not MISSING and _differs(contents.stored_token_id, mask_id):
        found.error(
            ParallelDraftingConfigError(
                f"{shown} is for mask_token_id {describe_value(contents.stored_token_id)} but "
                f"`{field}` = {describe_value(mask_id)}, so vLLM refuses the file.",
                field=field,
                code=vllm_codes.MASK_EMBEDDING_TOKEN_MISMATCH,
                fix=f"regenerate the file for the mask token id `{field}` names",
                evidence=f"{_READ_MASK_EMBEDDING} raises ValueError",
            )
        )
    if contents.shape is None:
        found.error(
            WeightsFileError(
                file.path,
                "expected a tensor, or a dict with an `embedding` tensor; got "
                f"{describe_value(contents.embedding)}.",
            )
        )
        return
    values = math.prod(contents.shape)
    hidden_size = subject.resolution.hidden_size
    if hidden_size is not None and values != hidden_size:
        hidden_field = subject.file_field("hidden_size")
        found.error(
            ParallelDraftingConfigError(
                f"{shown} holds {values} values (shape {shape_text(contents.shape)}) but "
                f"`{hidden_field}` = {hidden_size}, so vLLM fails loading it into one "
                "embedding row.",
                field=hidden_field,
                code=codes.MASK_EMBEDDING_SIZE,
                fix=f"regenerate the file with {hidden_size} values, one embedding row",
                evidence=_READ_MASK_EMBEDDING,
            )
        )


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
