"""vLLM 0.33.0's checkpoint table: how the loader of each model class maps, sizes and
requires tensors (:data:`ARCHITECTURES`), keyed by the architectures its registry maps to it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Final

from drafting_config.draft.architectures import (
    PEAGLE_DRAFT,
    PEAGLE_LLAMA,
)
from drafting_config.engines.vllm.names import (
    DFLASH_DRAFT,
    DFLASH_MUSE_GLIMMER,
    MUSE_GLIMMER,
)
from drafting_config.values.errors import describe_value
from drafting_config.values.fields import FieldGetter, is_list

# --- the checkpoint table ---------------------------------------------------------------------


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
    layer_parameters: tuple[str, ...] = ()
    """The parameters every decoder layer ``model.layers.{i}`` declares whatever the config
    (names after the loader's renames; a stacked one as its checkpoint parts, see
    :data:`STACKED_PARAMETERS`): each must get a tensor."""
    layer_extras: tuple[str, ...] = ()
    """Parameters a decoder layer declares only under some config (biases, sinks): a tensor
    for them is placed, none is required."""
    top_parameters: tuple[str, ...] = ()
    """The parameters outside the decoder layers that must get a tensor (``embed_tokens``,
    ``lm_head`` and ``fc`` are judged apart, with their shapes)."""
    no_tensor: tuple[tuple[str, str], ...] = ()
    """The parameters that legitimately get no tensor, each with why (citing the file)."""


STACKED_PARAMETERS: Final = (
    (".q_proj", ".qkv_proj"),
    (".k_proj", ".qkv_proj"),
    (".v_proj", ".qkv_proj"),
    (".gate_proj", ".gate_up_proj"),
    (".up_proj", ".gate_up_proj"),
)
"""The loaders' stacked-parameter mapping (``hf_to_vllm_mapper`` of ``qwen3_dflash.py``,
``llama_eagle3.py``, ``llama.py``, ``qwen2.py``): each checkpoint part fills a shard of one
vLLM parameter, so each part is a tensor of its own that must be there."""

_ATTENTION: Final = (
    "self_attn.q_proj.weight",
    "self_attn.k_proj.weight",
    "self_attn.v_proj.weight",
    "self_attn.o_proj.weight",
)
_MLP: Final = ("mlp.gate_proj.weight", "mlp.up_proj.weight", "mlp.down_proj.weight")
_LAYER_NORMS: Final = ("input_layernorm.weight", "post_attention_layernorm.weight")
_BIASES: Final = (
    "self_attn.q_proj.bias",
    "self_attn.k_proj.bias",
    "self_attn.v_proj.bias",
    "self_attn.o_proj.bias",
    "mlp.gate_proj.bias",
    "mlp.up_proj.bias",
    "mlp.down_proj.bias",
)

_EMBEDDING_SHARED: Final = (
    "model.embed_tokens.weight",
    "shared from the target when the checkpoint has none "
    "(vllm/v1/worker/gpu/spec_decode/eagle/utils.py, maybe_share_target_embed)",
)
"""The embedding the DFlash and EAGLE-3 drafters take from the target when they ship none."""

ARCHITECTURES: Final[tuple[ArchitectureRow, ...]] = (
    ArchitectureRow(
        name="qwen3_dflash",
        architectures=(
            DFLASH_DRAFT,
            MUSE_GLIMMER,
            DFLASH_MUSE_GLIMMER,
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
        layer_parameters=(
            *_ATTENTION,
            "self_attn.q_norm.weight",
            "self_attn.k_norm.weight",
            *_MLP,
            *_LAYER_NORMS,
        ),
        layer_extras=(*_BIASES, "self_attn.attention_sink_bias"),
        top_parameters=("model.hidden_norm.weight", "model.norm.weight"),
        no_tensor=(
            _EMBEDDING_SHARED,
            (
                "lm_head.weight",
                "the target's, aliased when the checkpoint has none "
                "(vllm/v1/worker/gpu/spec_decode/dflash/utils.py, load_dflash_model)",
            ),
            (
                "model.mask_embedding",
                "read from mask_embedding.pt, else unused (qwen3_dflash.py, "
                "DFlashQwen3ForCausalLM._read_mask_embedding)",
            ),
            ("model.fc.weight", "not declared when use_aux_hidden_state is false"),
            (
                "draft_id_to_target_id",
                "zeros (an identity offset) without d2t; not declared when the vocabularies "
                "match (qwen3_dflash.py, DFlashQwen3ForCausalLM.__init__)",
            ),
        ),
    ),
    ArchitectureRow(
        name="llama_eagle3",
        architectures=(
            "Eagle3LlamaForCausalLM",
            "LlamaForCausalLMEagle3",
            PEAGLE_DRAFT,
            PEAGLE_LLAMA,
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
        layer_parameters=(*_ATTENTION, *_MLP, *_LAYER_NORMS, "hidden_norm.weight"),
        layer_extras=_BIASES,
        top_parameters=("model.norm.weight",),
        no_tensor=(
            _EMBEDDING_SHARED,
            (
                "lm_head.weight",
                "the target's, aliased when the checkpoint has none "
                "(vllm/v1/worker/gpu/spec_decode/eagle/utils.py, load_eagle_model)",
            ),
            ("model.fc.weight", "not declared without aux hidden states (llama_eagle3.py)"),
            (
                "draft_id_to_target_id",
                "zeros without d2t (llama_eagle3.py, Eagle3LlamaForCausalLM.__init__)",
            ),
        ),
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
        layer_parameters=(*_ATTENTION, *_MLP, *_LAYER_NORMS),
        layer_extras=(*_BIASES, "self_attn.q_norm.weight", "self_attn.k_norm.weight"),
        top_parameters=("model.norm.weight",),
        no_tensor=(
            (
                "lm_head.weight",
                "tied to model.embed_tokens with tie_word_embeddings (llama.py, "
                "LlamaForCausalLM.__init__)",
            ),
        ),
    ),
)
"""The model classes whose checkpoints are checked, keyed by the architectures vLLM's
registry (``vllm/model_executor/models/registry.py``) maps to them."""


def architecture_row(
    config: FieldGetter, *, fed_hidden_states: bool = False
) -> tuple[ArchitectureRow | None, str | None]:
    """The row for a draft's ``architectures`` (the first listed that the table knows),
    and the name it was found by; ``(None, names)`` when none is known.

    A speculators draft's ``config`` is vLLM's translation of it, which holds the
    architecture vLLM's updater writes for its type (:func:`.speculators.translate`).  A draft fed
    the target's hidden states is never a complete causal LM: served as EAGLE-3 or DFlash,
    vLLM renames ``LlamaForCausalLM`` to ``Eagle3LlamaForCausalLM`` or
    ``DFlashLlamaForCausalLM`` (``transformers_utils/configs/eagle.py``, ``EAGLEConfig``),
    so such a name finds no row here rather than the causal LM's.
    """
    listed = config("architectures", None)
    if not is_list(listed):
        return None, None if listed is None else describe_value(listed)
    names = [name for name in listed if type(name) is str]
    for name in names:
        for row in ARCHITECTURES:
            if name in row.architectures and not (
                fed_hidden_states and row.fc_width is FcWidth.NONE
            ):
                return row, name
    return None, ", ".join(repr(name) for name in names if name) or None
