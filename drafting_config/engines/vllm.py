"""What vLLM 0.33.0 does with a draft, as plain functions and tables: one module, each
name spelled once, each function citing the vLLM code it follows (the source is read
for facts, never copied).

* **Names.** The draft architectures and model types vLLM's code tests for.
* **The method and its runner.** The method vLLM guesses from a draft's
  ``architectures`` (:func:`serving_method`), and which of its two GPU model runners
  serves each method (:func:`runner_of`, :func:`newer_runner_only`).
* **The tapped layers.** The two runners' functions that read the target layers a
  drafter taps, :func:`newer_runner_layers` and :func:`older_runner_layers`, written
  as those functions read, and the target model's defaults (:func:`default_layers`).
* **The checkpoint table.** How the loader of each model class maps, sizes and
  requires tensors (:data:`ARCHITECTURES`).

The tapped layers are in *capture indices*: vLLM's decoder models record a hidden state
at index 0 (the input of the first layer) and at ``i + 1`` (the output of layer ``i``),
so an L-layer target has capture indices 0 to L (``vllm/model_executor/models/llama.py``,
``LlamaModel.forward``).  Fields in DFlash's layer-index convention are shifted by one on
the way.  vLLM sorts and de-duplicates the result only later
(``EagleModelMixin._set_aux_hidden_state_layers`` in
``vllm/model_executor/models/interfaces.py``); this module does neither.

The method is guessed from the architectures only, never from the model *name* vLLM also
tests (``"eagle-"``, ``"eagle3"``, ``"dflash"``, ``"dspark"`` in the string the user
passes, ``SpeculativeConfig.__post_init__`` in ``vllm/config/speculative.py``): a
``config.json`` path is not that string.  vLLM's two rewrites of the config around the
guess change neither chain's result (a ``muse_glimmer_assistant`` draft gains
``dflash_config = {"causal": False}``, which holds no layer field; a ``Gemma4DSparkModel``
draft's ``target_layer_ids`` is copied to an unset ``dspark_target_layer_ids``, which the
newer chain reads just before, adding 1 as it does there), so the chains read the draft's
own config.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from drafting_config.engines.vllm_data import vllm_tables
from drafting_config.values.errors import describe_value
from drafting_config.values.fields import MISSING, FieldGetter, is_kind, is_list, read_path
from drafting_config.values.integers import exact_int

VERSION: Final = "0.33.0"
"""The vLLM release this module reads."""

ENGINE: Final = f"vllm {VERSION}"
"""How a verdict names the engine it speaks for."""

# --- names ------------------------------------------------------------------------------------

DFLASH_DRAFT: Final = "DFlashDraftModel"
DFLASH2_DRAFT: Final = "DFlash2DraftModel"
DFLASH2_BEAM_DRAFT: Final = "DFlash2BeamDraftModel"
LILICORR_DRAFT: Final = "LiLiCorrDraftModel"
MUSE_GLIMMER: Final = "MuseGlimmerAssistantModel"
DFLASH_MUSE_GLIMMER: Final = "DFlashMuseGlimmerAssistantModel"
QWEN3_DSPARK: Final = "Qwen3DSparkModel"
QWEN3_OMNI_DSPARK: Final = "Qwen3OmniDSparkModel"
"""The draft architecture vLLM serves as DSpark for a Qwen3-Omni target."""
MUSE_SPARK_DSPARK: Final = "MuseSparkDSparkModel"
GEMMA4_DSPARK: Final = "Gemma4DSparkModel"
DSPARK_DRAFT: Final = "DSparkDraftModel"
"""SpecForge's DSpark drafts; vLLM renames it ``Qwen3DSparkModel`` for ``model_type``
``qwen3`` (``config/speculative.py``)."""
PEAGLE_LLAMA: Final = "PeagleLlamaForCausalLM"
PEAGLE_QWEN3: Final = "PeagleQwen3ForCausalLM"
PEAGLE_DRAFT: Final = "PEagleDraftModel"

QWEN3_OMNI_TARGETS: Final = frozenset(
    {"Qwen3OmniMoeForConditionalGeneration", "Qwen3OmniMoeThinkerForConditionalGeneration"}
)
"""A target is Qwen3-Omni by these architectures or :data:`QWEN3_OMNI_MODEL_TYPE`
(``_is_qwen3_omni_target`` in ``vllm/config/speculative.py``)."""
QWEN3_OMNI_MODEL_TYPE: Final = "qwen3_omni_moe"
DEEPSEEK_V41: Final = "deepseek_v41"
"""A target ``model_type`` whose DSpark drafts give ``dspark_target_layer_ids`` as capture
indices: vLLM gives the draft the target's ``model_type`` (``config/speculative.py``)."""
K3_DSPARK_MODEL_TYPE: Final = "k3_dspark"
"""The ``model_type`` of vLLM's K3 DSpark config, the one reader of ``num_target_layers``."""

DFLASH_FC_ARCHITECTURES: Final = frozenset(
    {
        DFLASH_DRAFT,
        DFLASH2_DRAFT,
        MUSE_GLIMMER,
        DFLASH_MUSE_GLIMMER,
        QWEN3_DSPARK,
        QWEN3_OMNI_DSPARK,
        DSPARK_DRAFT,
    }
)
"""Draft architectures whose vLLM model sizes ``fc`` for the draft's ``num_hidden_layers``
features when the config names no layers: ``DFlashQwen3Model`` and its subclasses
(``vllm/model_executor/models/registry.py``; ``qwen3_dflash.py``, ``qwen3_dflash2.py``,
``qwen3_dspark.py``)."""

FC_METHODS: Final = frozenset({"dflash", "dflash2", "dspark"})
"""Methods served by those models when the config names no architecture (speculators
files, whose architectures vLLM sets itself)."""

CANDIDATE_HEAD_ARCHITECTURES: Final = frozenset({DFLASH2_DRAFT, DFLASH2_BEAM_DRAFT, LILICORR_DRAFT})
"""DFlash drafts with a candidate head, which the older runner refuses ("DFlash
candidate-head drafts", ``_is_dflash_candidate_draft`` in ``vllm/config/vllm.py``)."""

# --- the method, and the runner serving it ----------------------------------------------------

DSPARK_PROJECTOR_FIELD: Final = "dflash_config.projector_type"
"""Where SpecForge's DSpark drafters, in DFlash's layout, say they are DSpark."""


def serving_method(get: FieldGetter, method: str | None) -> str | None:
    """The method vLLM serves a draft with, given the ``method`` its token field names
    (``None`` when the field is shared by several methods).

    * No method: vLLM's guess from ``architectures`` (``SpeculativeConfig.__post_init__``
      in ``vllm/config/speculative.py``, "Automatically detect the method"): the
      ``dflash`` test (``MuseGlimmerAssistantModel``) before the ``dspark`` one.  Only a
      list of strings is read; other architectures give no method.
    * ``dflash`` (a mask id in ``dflash_config``) is ``dspark`` when
      ``dflash_config.projector_type`` is ``"dspark"`` (SpecForge's DSpark drafts in DFlash's
      layout) or when the architectures are ones vLLM guesses ``dspark`` from
      (``DSparkDraftModel`` of ``model_type`` ``qwen3``, ``Qwen3DSparkModel``...): served as
      ``dflash``, ``EAGLEConfig`` would rename them to unregistered ``DFlash...`` names.

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all (a property that raises).
    """
    if method is None:
        listed = get("architectures", None)
        names = {name for name in listed if isinstance(name, str)} if is_list(listed) else set()
        if MUSE_GLIMMER in names:
            return "dflash"
        if names & {QWEN3_DSPARK, QWEN3_OMNI_DSPARK, MUSE_SPARK_DSPARK, GEMMA4_DSPARK}:
            return "dspark"
        if DSPARK_DRAFT in names and get("model_type", None) == "qwen3":
            return "dspark"
        return None
    if method == "dflash":
        projector = read_path(get, DSPARK_PROJECTOR_FIELD)
        dspark_projector = isinstance(projector, str) and projector == "dspark"
        if dspark_projector or serving_method(get, None) == "dspark":
            return "dspark"
    return method


class Runner(str, enum.Enum):
    """One of vLLM 0.33's two GPU model runners."""

    NEWER = "newer"
    """Model Runner V2 (``vllm/v1/worker/gpu/``), vLLM's default where it supports the
    draft's method."""

    OLDER = "older"
    """Model Runner V1 (``vllm/v1/worker/gpu_model_runner.py``)."""


def runner_of(method: str | None) -> Runner | None:
    """The runner serving ``method`` (the resolver's ``algorithm``), ``None`` for PARD, whose
    drafter takes no hidden states.

    From ``vllm/config/vllm.py`` (``_get_v2_model_runner_unsupported_features``,
    ``_get_v1_model_runner_unsupported_features``): the newer runner lacks "parallel
    drafting for EAGLE speculative decoding" (PTD, P-EAGLE) and the older one "dspark
    speculative decoding"; DFlash2's candidate heads exist only in the newer one.  Any
    other method (``None`` included) is served by the newer runner, vLLM's default.
    """
    if method == "pard":
        return None
    if method in ("ptd", "peagle"):
        return Runner.OLDER
    return Runner.NEWER


def runs_on_either_runner(method: str | None, get: FieldGetter) -> bool:
    """Whether vLLM may serve the draft with either runner (``VLLM_USE_V2_MODEL_RUNNER=0``,
    or a feature the newer one lacks, selects the older), so both chains matter: DFlash,
    unless the draft is one the older runner refuses (:func:`newer_runner_only`).

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all (a property that raises).
    """
    return method == "dflash" and not newer_runner_only(get)


def newer_runner_only(get: FieldGetter) -> bool:
    """Whether vLLM serves this DFlash draft with the newer runner only
    (``_get_v1_model_runner_unsupported_features`` in ``vllm/config/vllm.py``):

    * a candidate-head architecture (:data:`CANDIDATE_HEAD_ARCHITECTURES`,
      ``_is_dflash_candidate_draft``);
    * ``layer_types`` mixing sliding-window and full attention, which needs several KV
      cache groups (``_dflash_needs_multi_kv_group``: some but not all entries are
      ``"sliding_attention"``).  Only a list is read: vLLM counts a string's characters
      and a dict's keys, none of which is ``"sliding_attention"``.

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all (a property that raises).
    """
    architectures = get("architectures", None)
    if is_list(architectures) and any(
        type(name) is str and name in CANDIDATE_HEAD_ARCHITECTURES for name in architectures
    ):
        return True
    kinds = get("layer_types", None)
    if not is_list(kinds):
        return False
    sliding = sum(1 for kind in kinds if type(kind) is str and kind == "sliding_attention")
    return 0 < sliding < len(kinds)


# --- the tapped layers ------------------------------------------------------------------------

EAGLE_LAYER_IDS: Final = "eagle_aux_hidden_state_layer_ids"
DFLASH_TARGET_LAYER_IDS: Final = "dflash_config.target_layer_ids"
DSPARK_TARGET_LAYER_IDS: Final = "dspark_target_layer_ids"
TARGET_LAYER_IDS: Final = "target_layer_ids"
DFLASH_LAYER_IDS: Final = "dflash_config.layer_ids"
EAGLE_CONFIG_LAYER_IDS: Final = "eagle_config.layer_ids"
EAGLE_CONFIG_EAGLE_LAYER_IDS: Final = "eagle_config.eagle_aux_hidden_state_layer_ids"

NEWER_RUNNER_FIELDS: Final = (
    EAGLE_LAYER_IDS,
    DFLASH_TARGET_LAYER_IDS,
    DSPARK_TARGET_LAYER_IDS,
    TARGET_LAYER_IDS,
    DFLASH_LAYER_IDS,
    EAGLE_CONFIG_LAYER_IDS,
)
"""The fields :func:`newer_runner_layers` reads, in its order."""

OLDER_RUNNER_FIELDS: Final = (
    EAGLE_LAYER_IDS,
    DFLASH_TARGET_LAYER_IDS,
    EAGLE_CONFIG_EAGLE_LAYER_IDS,
)
"""The fields :func:`older_runner_layers` reads, in its order."""


@dataclass(frozen=True)
class TappedLayers:
    """What one runner's function makes of a draft's config."""

    ids: tuple[int, ...] | None
    """The capture indices exactly as the runner's function returns them (unsorted,
    repeats kept), or ``None`` when it returns ``None`` (no field names layers: vLLM
    then taps the target model's default layers) or when :attr:`problem` is set."""

    field: str | None
    """The field the ids came from (or that broke the function), as vLLM read it:
    ``key`` or ``section.key``; ``None`` when no field was set."""

    value: object = None
    """The raw value of :attr:`field`."""

    shift: int = 0
    """What vLLM added to each id of :attr:`field` (``1`` for layer indices)."""

    problem: str | None = None
    """Why :attr:`ids` is ``None`` although a field was set: vLLM's function would raise,
    return values that are not ints, or stop at a value that is not a list (and then tap
    the target's default layers).  A sentence about the value, without the field's name."""

    whole_floats: bool = False
    """Some ids are whole-number floats (``9.0``): vLLM keeps them as floats, and its models
    compare them with their int layer indices (``9.0 == 9``), so they tap the same layers
    (:attr:`ids` holds them as ints)."""


NO_LAYERS: Final = TappedLayers(None, None)
"""No field names layers: vLLM taps the target model's default layers."""


def newer_runner_layers(  # noqa: PLR0911 (one return per field, as vLLM's function reads)
    get: FieldGetter, *, model_type: object = None
) -> TappedLayers:
    """``get_eagle3_aux_layers_from_config`` of the newer runner
    (``vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py``): the first field that is set
    (truthy) ends the search.

    Args:
        get: the reader of the draft's HF config (for a speculators file, of the HF config
            vLLM derives from it).
        model_type: the ``model_type`` vLLM sees on the draft, the config's own by default
            (vLLM gives a DSpark draft of a DeepSeek-V4.1 target the target's).

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all (a property that raises).
    """
    if model_type is None:
        model_type = get("model_type", None)
    layer_ids = get(EAGLE_LAYER_IDS, None)
    if _set(layer_ids):
        return _taken(EAGLE_LAYER_IDS, layer_ids)
    layer_ids = read_path(get, DFLASH_TARGET_LAYER_IDS, only_dicts=True)
    if _set(layer_ids):  # DFlash's layer indices: vLLM adds 1
        return _taken(DFLASH_TARGET_LAYER_IDS, layer_ids, shift=1)
    layer_ids = get(DSPARK_TARGET_LAYER_IDS, None)
    if _set(layer_ids):
        if model_type == DEEPSEEK_V41:  # capture indices already: list(ids)
            return _taken(DSPARK_TARGET_LAYER_IDS, layer_ids, listed=True)
        return _taken(DSPARK_TARGET_LAYER_IDS, layer_ids, shift=1)
    layer_ids = get(TARGET_LAYER_IDS, None)
    if _set(layer_ids):  # dense DSpark (Qwen3): layer indices too
        return _taken(TARGET_LAYER_IDS, layer_ids, shift=1)
    for field in (DFLASH_LAYER_IDS, EAGLE_CONFIG_LAYER_IDS):
        layer_ids = read_path(get, field, only_dicts=True)
        if _set(layer_ids):
            return _taken(field, layer_ids)
    return NO_LAYERS


def older_runner_layers(get: FieldGetter) -> TappedLayers:
    """``GPUModelRunner._get_eagle3_aux_layers_from_config`` of the older runner
    (``vllm/v1/worker/gpu_model_runner.py``): when the top-level list is not set, a
    non-empty ``eagle_config`` replaces whatever ``dflash_config`` gave, even with nothing.

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all (a property that raises).
    """
    layer_ids = get(EAGLE_LAYER_IDS, None)
    if _set(layer_ids):
        return _taken(EAGLE_LAYER_IDS, layer_ids)
    found = NO_LAYERS
    dflash_ids = read_path(get, DFLASH_TARGET_LAYER_IDS, only_dicts=True)
    if _set(dflash_ids):
        found = _taken(DFLASH_TARGET_LAYER_IDS, dflash_ids, shift=1)
        if found.problem is not None and _raises(dflash_ids, 1) is not None:
            return found  # vLLM raises here, before it reads eagle_config
    eagle_config = get("eagle_config", None)
    if is_kind(eagle_config, dict) and _set(eagle_config):
        field = EAGLE_CONFIG_EAGLE_LAYER_IDS
        found = _taken(field, read_path(get, field, only_dicts=True))
    return found


def tapped_layers(get: FieldGetter, runner: Runner, *, model_type: object = None) -> TappedLayers:
    """What ``runner``'s function reads (see :func:`newer_runner_layers`,
    :func:`older_runner_layers`)."""
    if runner is Runner.OLDER:
        return older_runner_layers(get)
    return newer_runner_layers(get, model_type=model_type)


def _set(value: object) -> bool:
    """Whether vLLM takes the value as set: its truth value (a value whose truth value
    raises is set, and broken: :func:`_taken` says how)."""
    try:
        return bool(value)
    except Exception:
        return True


def _raises(value: object, shift: int) -> str | None:
    """Why vLLM's function raises on a value it reads (its truth value, or, with ``shift``,
    ``[i + 1 for i in value]``), or ``None``."""
    try:
        bool(value)
    except Exception as error:
        return (
            f"is {describe_value(value)}, whose truth value raises {type(error).__name__}: "
            "vLLM fails on it"
        )
    if not shift:
        return None
    if not is_list(value):
        return f"is {describe_value(value)}, not a list: vLLM adds 1 to each id and fails on it"
    for index, item in enumerate(value):
        if exact_int(item) is None and not issubclass(type(item), (bool, float)):
            return (
                f"has item {index} = {describe_value(item)}: vLLM adds 1 to each id and "
                "fails on it (layer ids must be ints)"
            )
    return None  # bools and floats are shifted without a complaint, but are no ints


def _taken(field: str, value: object, *, shift: int = 0, listed: bool = False) -> TappedLayers:
    """The runner's result for the value it took from ``field``: the ids, or why vLLM
    raises on it or returns something that is not a list of ints."""
    problem = _raises(value, shift)
    if problem is not None:
        return TappedLayers(None, field, value, shift, problem)
    if not _set(value):
        return NO_LAYERS
    if not is_list(value):
        problem = (
            f"is {describe_value(value)}, not a list of layer ids"
            if listed
            else f"is {describe_value(value)}, not a list: vLLM stops looking for layers at "
            "this field, finds no list and taps the target model's default layers instead"
        )
        return TappedLayers(None, field, value, shift, problem)
    ids: list[int] = []
    whole_floats = False
    for index, item in enumerate(value):
        number = exact_int(item)
        if number is None and type(item) is float and item.is_integer():
            number, whole_floats = int(item), True
        if number is None:
            problem = (
                f"has item {index} = {describe_value(item)}: layer ids must be ints "
                "(not bools, fractional floats or strings)"
            )
            return TappedLayers(None, field, value, shift, problem)
        ids.append(number + shift)
    return TappedLayers(tuple(ids), field, value, shift, whole_floats=whole_floats)


def default_layers(num_layers: int) -> tuple[int, ...]:
    """The capture indices vLLM taps when the config names none: ``(2, L // 2, L - 3)``,
    sorted and de-duplicated (``SupportsEagle3.get_eagle3_default_aux_hidden_state_layers``
    in ``vllm/model_executor/models/interfaces.py``; no model class of vLLM 0.33
    overrides it with other layers, ``mllama4.py`` only delegates to its language model)."""
    return tuple(sorted({2, num_layers // 2, num_layers - 3}))


def dflash_uses_aux_hidden_states(get: FieldGetter) -> bool:
    """Whether vLLM's DFlash model feeds ``fc`` the target's hidden states.

    ``DFlashQwen3Model.__init__`` (``vllm/model_executor/models/qwen3_dflash.py``) takes
    ``use_aux_hidden_state`` from ``eagle_config`` updated with ``dflash_config`` (which
    wins), else from the top level, default true, and tests its truth value.
    """
    flag: object = MISSING
    for section in ("dflash_config", "eagle_config"):  # dflash_config wins
        flag = read_path(get, f"{section}.use_aux_hidden_state", MISSING, only_dicts=True)
        if flag is not MISSING:
            break
    if flag is MISSING:
        flag = get("use_aux_hidden_state", True)
    try:
        return bool(flag)
    except Exception:  # a value vLLM's test would fail on: not a clean "off"
        return True


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

SPECULATORS_ARCHITECTURES: Final[Mapping[str, str]] = {
    "dflash": DFLASH_DRAFT,
    "dflash2": DFLASH2_DRAFT,
    "dspark": QWEN3_DSPARK,
}
"""The ``architectures`` vLLM writes for a speculators draft of each type
(``vllm/transformers_utils/configs/speculators/algos.py``); ``peagle`` follows its
``model_type`` (:data:`PEAGLE_ARCHITECTURES`)."""

PEAGLE_ARCHITECTURES: Final[Mapping[str, str]] = MappingProxyType(
    {"llama": PEAGLE_LLAMA, "qwen3": PEAGLE_QWEN3}
)
"""``update_peagle`` in ``speculators/algos.py``: the architecture by ``model_type``
(``llama`` when unset)."""


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


# --- the load path: parsing, the registry, the rewrites, construction -------------------------

VLLM_METHOD: Final[Mapping[str, str]] = MappingProxyType(
    {
        "dflash": "dflash",
        "dspark": "dspark",
        "eagle3": "eagle3",
        "ptd": "eagle3",
        "peagle": "eagle3",
        "pard": "draft_model",
    }
)
"""vLLM's ``method`` for each drafting method the resolver names (its ``algorithm``): PTD and
P-EAGLE are ``eagle3`` with ``parallel_drafting``, PARD is ``draft_model`` with it
(``vllm/config/speculative.py``, ``SpeculativeConfig``)."""

MODEL_TYPE_FROM_ARCHITECTURE: Final[Mapping[str, str]] = MappingProxyType(
    {
        "LongcatFlashForCausalLM": "longcat_flash",
        "LongcatFlashNgramForCausalLM": "longcat_flash",
    }
)
"""``_ARCHITECTURE_TO_MODEL_TYPE`` (``vllm/transformers_utils/config.py``): the model type
``HFConfigParser.parse`` gives a config without one, by its first architecture."""


class Parse(str, enum.Enum):
    """How ``HFConfigParser.parse`` (``vllm/transformers_utils/config.py``) fares with a
    draft's ``model_type``."""

    KNOWN = "known"
    """vLLM's ``_CONFIG_REGISTRY`` or every transformers version vLLM accepts knows it."""
    SOME_VERSIONS = "some versions"
    """Only the later transformers versions of the range know it."""
    REMOTE_CODE = "remote code"
    """Unknown, but ``auto_map.AutoConfig`` names a config class: it loads only with
    ``--trust-remote-code`` (vLLM passes the target's ``trust_remote_code`` to the draft)."""
    UNKNOWN = "unknown"
    """Unknown, and no ``auto_map.AutoConfig``: transformers' ``AutoConfig.from_pretrained``
    raises ``ValueError`` ("does not recognize this architecture", or "Should have a
    `model_type` key")."""


def parse_model_type(model_type: str | None, has_auto_config: bool) -> Parse:
    """How vLLM parses a draft's config with this ``model_type`` (``None``: none in the file
    nor derived from the architecture): ``_CONFIG_REGISTRY`` first, else transformers'
    ``CONFIG_MAPPING`` (through ``AutoConfig.from_pretrained``), else remote code."""
    tables = vllm_tables()
    if model_type is not None and model_type in tables.config_registry:
        return Parse.KNOWN
    first = None if model_type is None else tables.model_types.get(model_type)
    if first == tables.transformers_versions[0]:
        return Parse.KNOWN
    if first is not None:
        return Parse.SOME_VERSIONS
    return Parse.REMOTE_CODE if has_auto_config else Parse.UNKNOWN


class Resolved(str, enum.Enum):
    """How vLLM's registry resolves one architecture name
    (``_ModelRegistry.inspect_model_cls`` in ``vllm/model_executor/models/registry.py``)."""

    REGISTERED = "registered"
    """A name of one of the registry's tables."""
    TRANSFORMERS = "transformers"
    """Not registered, but a model class transformers exports: the Transformers-backend
    fallback (``_try_resolve_transformers``) serves it if the class passes its
    compatibility test."""
    REMOTE_CODE = "remote code"
    """Not registered, not a transformers class, but ``auto_map`` names an ``AutoModel``
    class: the fallback loads it only with ``--trust-remote-code``."""
    UNSUPPORTED = "unsupported"
    """None of these: ``_raise_for_unsupported`` raises ``ValueError``."""


def resolve_architecture(name: str, has_auto_model: bool) -> Resolved:
    """How vLLM's registry resolves ``name`` (stock vLLM, no plugins)."""
    tables = vllm_tables()
    if tables.registered(name) is not None:
        return Resolved.REGISTERED
    if name in tables.model_classes:
        return Resolved.TRANSFORMERS
    return Resolved.REMOTE_CODE if has_auto_model else Resolved.UNSUPPORTED


def eagle_config_architecture(method: str, name: str) -> str:
    """The name ``EAGLEConfig.__init__`` (``vllm/transformers_utils/configs/eagle.py``) gives
    an architecture of a draft served as ``eagle``, ``eagle3`` or ``dflash``: the prefix of
    the method, unless the name already has it."""
    if method == "eagle":
        return name if name.startswith("Eagle") else f"Eagle{name}"
    if method == "eagle3":
        return name if name.startswith("Eagle3") or name.endswith("Eagle3") else f"Eagle3{name}"
    keep = name.startswith("DFlash") or name.endswith("DFlash") or name == LILICORR_DRAFT
    return name if keep else f"DFlash{name}"


EAGLE_CONFIG_METHODS: Final = frozenset({"eagle", "eagle3", "dflash"})
"""The methods whose drafts vLLM wraps in ``EAGLEConfig`` (``SpeculativeConfig.__post_init__``)
unless the config is already an ``EAGLEConfig`` or a speculators config."""

K3_DSPARK: Final = "K3DSparkModel"
DSPARK_ARCHITECTURES: Final = frozenset(
    {QWEN3_DSPARK, QWEN3_OMNI_DSPARK, MUSE_SPARK_DSPARK, GEMMA4_DSPARK, K3_DSPARK}
)
"""The DSpark architectures vLLM keeps under method ``dspark``; any other list is re-typed
as DeepSeek-V4's bundled DSpark draft (``SpeculativeConfig.__post_init__``)."""


def dspark_architectures(names: tuple[str, ...], model_type: object) -> tuple[str, ...] | None:
    """The ``architectures`` vLLM serves a ``dspark`` draft with
    (``SpeculativeConfig.__post_init__`` in ``vllm/config/speculative.py``):
    ``DSparkDraftModel`` of ``model_type`` ``qwen3`` becomes ``Qwen3DSparkModel``; a list
    with a DSpark architecture is kept; ``None`` for any other list, which vLLM replaces
    with DeepSeek-V4's bundled DSpark draft (re-typed ``deepseek_v4``, the target's
    quantization)."""
    if DSPARK_DRAFT in names and model_type == "qwen3":
        return (QWEN3_DSPARK,)
    if DSPARK_ARCHITECTURES & set(names):
        return names
    return None


@dataclass(frozen=True)
class ConstructionRead:
    """A config attribute a model class's constructor reads unguarded, which the config
    classes vLLM builds it from (their ``model_type``'s) do not default."""

    architectures: frozenset[str]
    """The architectures (after vLLM's rewrites) whose class reads it."""
    field: str
    """The attribute (``section.key`` for a key read out of a section)."""
    follows: str
    """The vLLM 0.33.0 file and function that read it."""
    failure: str
    """What vLLM raises without it."""


_DFLASH2 = frozenset({DFLASH2_DRAFT})
CONSTRUCTION_READS: Final[tuple[ConstructionRead, ...]] = (
    *(
        ConstructionRead(
            frozenset({QWEN3_DSPARK, QWEN3_OMNI_DSPARK}),
            "markov_rank",
            "vllm/model_executor/models/qwen3_dspark.py: Qwen3DSparkModel.__init__ "
            "(config.markov_rank; Qwen3Config has no such field)",
            "AttributeError",
        ),
        ConstructionRead(
            frozenset({GEMMA4_DSPARK}),
            "markov_rank",
            "vllm/model_executor/models/gemma4_dspark.py: Gemma4DSparkModel.__init__",
            "AttributeError",
        ),
        ConstructionRead(
            frozenset({K3_DSPARK}),
            "markov_rank",
            "vllm/models/kimi_k3/nvidia/dspark_mla.py: K3DSparkModel.__init__ "
            "(K3DSparkConfig, a DeepseekV3Config, has no such field)",
            "AttributeError",
        ),
        ConstructionRead(
            frozenset({K3_DSPARK}),
            "target_hidden_size",
            "vllm/models/kimi_k3/nvidia/dspark_mla.py: K3DSparkModel.__init__ (context_proj)",
            "AttributeError",
        ),
    ),
    *(
        ConstructionRead(
            frozenset({MUSE_SPARK_DSPARK}),
            field,
            "vllm/models/muse_spark/common/dspark.py: MuseSparkDSparkModel.__init__ "
            "(MuseSparkDSparkConfig has no default for it)",
            "AttributeError",
        )
        for field in (
            "target_layer_ids",
            "mask_token_id",
            "target_hidden_size",
            "markov_rank",
            "enable_confidence_head",
        )
    ),
    *(
        ConstructionRead(
            _DFLASH2,
            f"dflash_config.{key}",
            f"vllm/model_executor/models/qwen3_dflash2.py: {where}",
            "KeyError",
        )
        for key, where in (
            ("conv_kernel_size", "DFlash2Qwen3DecoderLayer.__init__"),
            ("conv_group_size", "DFlash2Qwen3DecoderLayer.__init__"),
            ("selector_rank", "DFlash2Qwen3Model.__init__"),
            ("selector_top_k", "DFlash2Qwen3Model.__init__"),
        )
    ),
)
"""The construction table: per model class, the attributes its constructor reads that no
config class it is built from provides (vLLM 0.33.0 with transformers 5.16.1 to 5.20.2).  A
``dspark`` draft is built from its own config class (``Qwen3Config`` for ``qwen3``), not
wrapped in ``EAGLEConfig``; nothing in vLLM copies ``dflash_config.markov_rank`` to the top
level (only a speculators file's top-level ``markov_rank`` is copied,
``speculators/algos.py``, ``update_dspark``)."""

DFLASH_MODEL_ARCHITECTURES: Final = frozenset(
    {
        DFLASH_DRAFT,
        DFLASH2_DRAFT,
        MUSE_GLIMMER,
        DFLASH_MUSE_GLIMMER,
        QWEN3_DSPARK,
        QWEN3_OMNI_DSPARK,
    }
)
"""Architectures whose class builds a ``DFlashQwen3Model`` (``qwen3_dflash.py``), whose
``__init__`` reads ``getattr(config, "eagle_config", {})`` and updates it with
``getattr(config, "dflash_config", {})``: a section present as ``null`` fails there
(``None.update``: ``AttributeError``; ``update(None)``: ``TypeError``)."""

SAMPLE_FROM_ANCHOR: Final = "dflash_config.sample_from_anchor"
"""The field the newer runner's DFlash speculator refuses when truthy
(``DFlashSpeculator.__init__`` in ``vllm/v1/worker/gpu/spec_decode/dflash/speculator.py``;
DSpark's speculator calls it first)."""


def needs_hidden_states(method: str | None, get: FieldGetter) -> bool:
    """Whether the target must be tapped (``requires_aux_hidden_states`` in
    ``vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py``): DFlash and DSpark always; an
    EAGLE-3 draft unless ``eagle_config.use_aux_hidden_state`` is false."""
    if method in ("dflash", "dspark"):
        return True
    if method != "eagle3":
        return False
    eagle_config = get("eagle_config", None)
    if not is_kind(eagle_config, dict):
        return True
    flag = read_path(get, "eagle_config.use_aux_hidden_state", True, only_dicts=True)
    try:
        return bool(flag)
    except Exception:
        return True


def target_class(architectures: tuple[str, ...]) -> str | None:
    """The target architecture vLLM's registry resolves first (``inspect_model_cls`` takes the
    first registered name), or ``None`` when none is registered."""
    tables = vllm_tables()
    for name in architectures:
        if tables.registered(name) is not None:
            return name
    return None


# --- the served context: max_model_len --------------------------------------------------------

CACHE_ONLY_ROPE_TYPES: Final = frozenset({"default", "linear", "llama3", "ntk", "proportional"})
"""``_CACHE_ONLY_ROPE_TYPES`` (``vllm/config/speculative.py``): RoPE types whose rotary cache
vLLM may stretch to the target's length, so that the draft shares the target's positions."""

UNSCALED_ROPE_TYPES: Final = frozenset(
    {"su", "longrope", "llama3", "yarn", "deepseek_yarn", "deepseek_llama_scaling"}
)
"""RoPE types whose ``factor`` does not multiply the derived length
(``_get_and_verify_max_len`` in ``vllm/config/model.py``)."""

LENGTH_KEYS: Final = (
    "max_position_embeddings",
    "n_positions",
    "max_seq_len",
    "seq_length",
    "model_max_length",
    "max_target_positions",
    "max_sequence_length",
    "max_seq_length",
    "seq_len",
)
"""The keys vLLM derives a model's length from, the smallest set one winning unless
``model_max_length`` is set (``derive_max_model_len_and_key`` in
``vllm/transformers_utils/model_arch_config_convertor.py``)."""


def rope_parameters(get: FieldGetter) -> list[dict[str, object]]:
    """The RoPE parameter dicts vLLM iterates (``iter_rope_parameters`` in
    ``vllm/transformers_utils/config.py``), after transformers' and vLLM's normalisation: a
    truthy legacy ``rope_scaling`` wins over ``rope_parameters``
    (``convert_rope_params_to_dict``), a legacy ``type`` is the ``rope_type``, ``default``
    when unset; a dict of dicts (one per layer type) gives each."""
    legacy = get("rope_scaling", None)
    params = legacy if isinstance(legacy, dict) and legacy else get("rope_parameters", None)
    if not isinstance(params, dict) or not params:
        return []
    values = list(params.values())
    entries: list[dict[str, object]] = (
        [value for value in values if value]
        if all(isinstance(value, dict) for value in values)
        else [params]
    )
    return [
        {**entry, "rope_type": entry.get("rope_type", entry.get("type", "default"))}
        for entry in entries
    ]


def rope_only_sizes_cache(get: FieldGetter) -> bool:
    """``_rope_only_sizes_cache`` (``vllm/config/speculative.py``): every RoPE type of the
    config is cache-only (true with no RoPE parameters at all)."""
    return all(_rope_type_in(entry, CACHE_ONLY_ROPE_TYPES) for entry in rope_parameters(get))


def _rope_type_in(entry: Mapping[str, object], types: AbstractSet[str]) -> bool:
    """Whether an entry's ``rope_type`` is one of ``types`` (a type that is no string, which
    no transformers class accepts, is none of them)."""
    rope_type = entry["rope_type"]
    return isinstance(rope_type, str) and rope_type in types


def derived_max_model_len(get: FieldGetter) -> int | None:
    """The ``max_model_len`` vLLM derives from a config (``_get_and_verify_max_len`` in
    ``vllm/config/model.py``): the smallest of :data:`LENGTH_KEYS` (``model_max_length``
    overriding), times the RoPE ``factor`` for types not in :data:`UNSCALED_ROPE_TYPES`;
    ``None`` when no key holds a positive int."""
    lengths = {key: exact_int(get(key, None)) for key in LENGTH_KEYS}
    found = [n for n in lengths.values() if n is not None and n > 0]
    if not found:
        return None
    derived: float = min(found)
    override = lengths["model_max_length"]
    if override is not None and override > 0:
        derived = override
    for entry in rope_parameters(get):
        factor = entry.get("factor")
        if _rope_type_in(entry, UNSCALED_ROPE_TYPES) or isinstance(factor, bool):
            continue
        if isinstance(factor, (int, float)) and factor > 0:
            derived *= factor
    # A factor of inf (or one that overflows) leaves no length to compare: vLLM's own int()
    # would raise on it, and the rule that compares lengths says nothing.
    return int(derived) if math.isfinite(derived) else None
