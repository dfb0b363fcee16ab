"""The method vLLM 0.33.0 guesses for a draft, the GPU model runner serving each method, and
the two runners' chains that read the target layers a drafter taps, each function citing
the vLLM code it follows (read for facts, never copied).

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
from dataclasses import dataclass
from typing import Final

from drafting_config.draft.architectures import (
    DSPARK_DRAFT,
    GEMMA4_DSPARK,
    MUSE_SPARK_DSPARK,
    QWEN3_DSPARK,
    QWEN3_OMNI_DSPARK,
)
from drafting_config.engines.vllm.names import (
    CANDIDATE_HEAD_ARCHITECTURES,
    DEEPSEEK_V41,
    MUSE_GLIMMER,
    ONE_MODEL_RUNNER,
    since,
)
from drafting_config.values.errors import describe_value
from drafting_config.values.fields import (
    MISSING,
    FieldGetter,
    is_kind,
    is_list,
    read_field,
    read_path,
)
from drafting_config.values.integers import exact_int

# --- the method, and the runner serving it ----------------------------------------------------

DSPARK_PROJECTOR_FIELD: Final = "dflash_config.projector_type"
"""Where SpecForge's DSpark drafters, in DFlash's layout, say they are DSpark."""


_GUESSED_DSPARK: Final = frozenset(
    {QWEN3_DSPARK, QWEN3_OMNI_DSPARK, MUSE_SPARK_DSPARK, GEMMA4_DSPARK}
)
"""The architectures vLLM guesses ``dspark`` from whatever the ``model_type``."""


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
        if not names.isdisjoint(_GUESSED_DSPARK):
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
    """One of the GPU model runners of vLLM 0.32 and 0.33 (0.34 keeps the newer only)."""

    NEWER = "newer"
    """Model Runner V2 (``vllm/v1/worker/gpu/``), vLLM's default where it supports the
    draft's method."""

    OLDER = "older"
    """Model Runner V1 (``vllm/v1/worker/gpu_model_runner.py``)."""


RUNNER_EVIDENCE: Final = {
    Runner.NEWER: "vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py: "
    "get_eagle3_aux_layers_from_config, in the newer model runner",
    Runner.OLDER: "vllm/v1/worker/gpu_model_runner.py: "
    "GPUModelRunner._get_eagle3_aux_layers_from_config, in the older model runner",
}
"""The function of each runner that reads the tapped layers, as a finding's evidence."""


def runner_of(method: str | None, version: str | None = None) -> Runner | None:
    """The runner serving ``method`` (the resolver's ``algorithm``) on vLLM ``version``,
    ``None`` for PARD, whose drafter takes no hidden states.

    From ``vllm/config/vllm.py`` of the releases with two runners
    (``_get_v2_model_runner_unsupported_features``,
    ``_get_v1_model_runner_unsupported_features``): the newer runner lacks "parallel
    drafting for EAGLE speculative decoding" (PTD, P-EAGLE) and the older one "dspark
    speculative decoding"; DFlash2's candidate heads exist only in the newer one.  Any
    other method (``None`` included) is served by the newer runner, vLLM's default.  From
    :data:`~.names.ONE_MODEL_RUNNER` on, the newer runner is the only one; ``version``
    ``None`` means the releases with parallel drafting for EAGLE-3 (up to 0.33.0), as
    :func:`~drafting_config.resolve` reads a draft.
    """
    if method == "pard":
        return None
    if method in ("ptd", "peagle") and (version is None or not since(version, ONE_MODEL_RUNNER)):
        return Runner.OLDER
    return Runner.NEWER


def runs_on_either_runner(method: str | None, get: FieldGetter, version: str) -> bool:
    """Whether vLLM ``version`` may serve the draft with either runner
    (``VLLM_USE_V2_MODEL_RUNNER=0``, or a feature the newer one lacks, selects the older),
    so both chains matter: DFlash, unless the draft is one the older runner refuses
    (:func:`newer_runner_only`), on a release before :data:`~.names.ONE_MODEL_RUNNER`.

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all (a property that raises).
    """
    if since(version, ONE_MODEL_RUNNER):
        return False
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

_DFLASH_TARGET_LAYER_IDS: Final = tuple(DFLASH_TARGET_LAYER_IDS.split("."))
_NESTED_LAST: Final = tuple(
    (field, tuple(field.split("."))) for field in (DFLASH_LAYER_IDS, EAGLE_CONFIG_LAYER_IDS)
)
"""The nested fields :func:`newer_runner_layers` reads, as section and key, split once."""

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
    the target's default layers).  A clause about the value and what vLLM does, to follow
    the field's name (``"is 5 (int), not a list, so vLLM ..."``)."""

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
    # None first in each test: most drafts leave most of these fields unset
    layer_ids = get(EAGLE_LAYER_IDS, None)
    if layer_ids is not None and is_set(layer_ids):
        return _taken(EAGLE_LAYER_IDS, layer_ids)
    layer_ids = read_field(get, *_DFLASH_TARGET_LAYER_IDS, only_dicts=True)
    if layer_ids is not None and is_set(layer_ids):  # DFlash's layer indices: vLLM adds 1
        return _taken(DFLASH_TARGET_LAYER_IDS, layer_ids, shift=1)
    layer_ids = get(DSPARK_TARGET_LAYER_IDS, None)
    if layer_ids is not None and is_set(layer_ids):
        if model_type == DEEPSEEK_V41:  # capture indices already: list(ids)
            return _taken(DSPARK_TARGET_LAYER_IDS, layer_ids, listed=True)
        return _taken(DSPARK_TARGET_LAYER_IDS, layer_ids, shift=1)
    layer_ids = get(TARGET_LAYER_IDS, None)
    if layer_ids is not None and is_set(layer_ids):  # dense DSpark (Qwen3): layer indices too
        return _taken(TARGET_LAYER_IDS, layer_ids, shift=1)
    for field, (section, key) in _NESTED_LAST:
        layer_ids = read_field(get, section, key, only_dicts=True)
        if layer_ids is not None and is_set(layer_ids):
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
    if is_set(layer_ids):
        return _taken(EAGLE_LAYER_IDS, layer_ids)
    found = NO_LAYERS
    dflash_ids = read_path(get, DFLASH_TARGET_LAYER_IDS, only_dicts=True)
    if is_set(dflash_ids):
        found = _taken(DFLASH_TARGET_LAYER_IDS, dflash_ids, shift=1)
        if found.problem is not None and _raises(dflash_ids, 1) is not None:
            return found  # vLLM raises here, before it reads eagle_config
    eagle_config = get("eagle_config", None)
    if is_kind(eagle_config, dict) and is_set(eagle_config):
        field = EAGLE_CONFIG_EAGLE_LAYER_IDS
        found = _taken(field, read_path(get, field, only_dicts=True))
    return found


def tapped_layers(get: FieldGetter, runner: Runner, *, model_type: object = None) -> TappedLayers:
    """What ``runner``'s function reads (see :func:`newer_runner_layers`,
    :func:`older_runner_layers`)."""
    if runner is Runner.OLDER:
        return older_runner_layers(get)
    return newer_runner_layers(get, model_type=model_type)


def is_set(value: object) -> bool:
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
            f"is {describe_value(value)}, whose truth value raises {type(error).__name__}, "
            "so vLLM fails reading it"
        )
    if not shift:
        return None
    if not is_list(value):
        return f"is {describe_value(value)}, not a list, so vLLM fails adding 1 to each id"
    for index, item in enumerate(value):
        if exact_int(item) is None and not issubclass(type(item), (bool, float)):
            return f"has item {index} = {describe_value(item)}, so vLLM fails adding 1 to each id"
    return None  # bools and floats are shifted without a complaint, but are no ints


def _taken(field: str, value: object, *, shift: int = 0, listed: bool = False) -> TappedLayers:
    """The runner's result for the value it took from ``field``: the ids, or why vLLM
    raises on it (:func:`_raises`) or returns something that is not a list of ints.  One
    pass over a list of ints, the common value; :func:`_raises` is asked only of a value
    that is not one."""
    try:
        truth = bool(value)
    except Exception:  # vLLM fails reading it
        return TappedLayers(None, field, value, shift, _raises(value, shift))
    if shift and not is_list(value):  # vLLM fails adding 1 to each id, even of an empty one
        return TappedLayers(None, field, value, shift, _raises(value, shift))
    if not truth:
        return NO_LAYERS
    if not is_list(value):
        if listed:
            problem = (
                f"is {describe_value(value)}, not a list of layer ids, so vLLM fails tapping it"
            )
        else:
            problem = (
                f"is {describe_value(value)}, not a list, so vLLM stops looking for layers "
                "here and taps the target model's default layers instead"
            )
        return TappedLayers(None, field, value, shift, problem)
    ids: list[int] = []
    whole_floats = False
    for index, item in enumerate(value):
        number = exact_int(item)
        if number is None and type(item) is float and item.is_integer():
            number, whole_floats = int(item), True
        if number is None:  # vLLM may fail adding 1 to a later item before it returns
            problem = _raises(value, shift) or (
                f"has item {index} = {describe_value(item)}, not an int layer id, so vLLM "
                "taps other layers than it names"
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
