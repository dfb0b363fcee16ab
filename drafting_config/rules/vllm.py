"""vLLM 0.33.0's rules: the target layers a drafter taps, and its counts of target layers.

Every rule here follows the engine (vLLM 0.33.0), and each rule's docstring cites
the file and function it follows.  What vLLM reads:

* the layer list of the runner serving the draft's method, resolved by
  :mod:`drafting_config.engines.vllm`: its ids must be ints (not bools), each
  once, in increasing order, and name capture indices the target has
  (:func:`serving_list_errors`);
* the Qwen3-Omni DSpark validator's list, a second reader with its own order
  (:func:`omni_dspark_errors`);
* with no list at all, the target model's default layers, which a DFlash-style
  model may not be sized for (:func:`default_layers_finding`);
* ``num_target_layers``, only for vLLM's K3 DSpark config
  (:func:`layer_count_findings`).

Lists vLLM never reads get at most a note; ``num_target_layers`` elsewhere and
``target_num_hidden_layers`` at most a warning: trainers give them different
meanings (the target's depth, or the number of tapped layers), and vLLM reads
neither.  Without a target only what the draft alone can tell is checked.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise
from typing import TYPE_CHECKING, Final, cast

from drafting_config.draft.resolution import FieldStatus, Resolution
from drafting_config.draft.target import TargetFacts
from drafting_config.engines.vllm import (
    CONSTRUCTION_READS,
    DEEPSEEK_V41,
    DFLASH_FC_ARCHITECTURES,
    DFLASH_MODEL_ARCHITECTURES,
    DSPARK_ARCHITECTURES,
    EAGLE_CONFIG_METHODS,
    FC_METHODS,
    K3_DSPARK_MODEL_TYPE,
    MODEL_TYPE_FROM_ARCHITECTURE,
    NEWER_RUNNER_FIELDS,
    OLDER_RUNNER_FIELDS,
    QWEN3_OMNI_DSPARK,
    QWEN3_OMNI_MODEL_TYPE,
    QWEN3_OMNI_TARGETS,
    SAMPLE_FROM_ANCHOR,
    VERSION,
    VLLM_METHOD,
    ConstructionRead,
    Parse,
    Resolved,
    Runner,
    TappedLayers,
    default_layers,
    derived_max_model_len,
    dflash_uses_aux_hidden_states,
    dspark_architectures,
    eagle_config_architecture,
    needs_hidden_states,
    older_runner_layers,
    parse_model_type,
    resolve_architecture,
    rope_only_sizes_cache,
    rope_parameters,
    runner_of,
    runs_on_either_runner,
    tapped_layers,
    target_class,
)
from drafting_config.engines.vllm import (
    ENGINE as ENGINE,  # noqa: PLC0414 (re-exported: the engine these rules speak for)
)
from drafting_config.engines.vllm_data import vllm_tables
from drafting_config.files.tokenizer_files import TOKENIZER_JSON_NAME, TokenFacts
from drafting_config.rules.engine import Reading, Reads
from drafting_config.rules.subject import Rule, Subject
from drafting_config.rules.target import check_target_placeholders, check_target_sizes
from drafting_config.rules.tokenizer import check_tokenizer
from drafting_config.values.errors import (
    ParallelDraftingConfigError,
    ParallelDraftingConfigWarning,
    TargetLayersWarning,
    describe_value,
)
from drafting_config.values.fields import FieldGetter, is_list, read_path
from drafting_config.values.findings import Findings
from drafting_config.values.integers import exact_int
from drafting_config.values.paths import display_path

if TYPE_CHECKING:  # imported by _weights_facts, the one user: a --no-weights sweep never loads it
    from drafting_config.rules.checkpoint import WeightsFacts

OMNI_DSPARK_ORDER: Final = (
    "dflash_config.target_layer_ids",
    "dspark_target_layer_ids",
    "target_layer_ids",
)
"""The Qwen3-Omni DSpark validator's own order: the first field that is not null."""

NUM_TARGET_LAYERS_FIELDS: Final = ("num_target_layers", "dflash_config.num_target_layers")
"""Where drafts record a count of target layers (newer DFlash releases nest it)."""

TARGET_DEPTH_FIELD: Final = "target_num_hidden_layers"
"""TorchSpec's record of the target's depth; vLLM does not read it."""


def tapped_knowing_target(subject: Subject) -> TappedLayers | None:
    """What the chain of the runner serving the draft reads, knowing the target: the
    resolver's reading (:attr:`Resolution.tapped`), except that a ``deepseek_v41`` target's
    ``dspark_target_layer_ids`` are used as given (vLLM gives the draft the target's
    ``model_type``, ``config/speculative.py``); ``None`` for a drafter fed no hidden states
    (PARD).

    Raises:
        ParallelDraftingConfigError: a field of the draft cannot be read at all.
    """
    resolution, target = subject.resolution, subject.target
    runner = runner_of(resolution.algorithm)
    if runner is None:  # PARD: a complete LM, fed no hidden states
        return None
    model_type = DEEPSEEK_V41 if target is not None and target.model_type == DEEPSEEK_V41 else None
    taps = resolution.tapped  # the resolver's run, unless the target changes the input
    if taps is None or model_type is not None:
        taps = tapped_layers(subject.get, runner, model_type=model_type)
    return taps


def aux_layers(subject: Subject) -> tuple[tuple[int, ...] | None, str | None]:
    """The capture indices the serving runner taps knowing the target, and the field they
    came from as the draft's file names it (see :attr:`Resolution.aux_layer_ids`);
    ``(None, None)`` when it taps the target model's defaults, fails, or the drafter takes
    no hidden states.

    Raises:
        ParallelDraftingConfigError: a field of the draft cannot be read at all.
    """
    taps = tapped_knowing_target(subject)
    if taps is None or taps.ids is None or taps.field is None:
        return None, None
    return taps.ids, subject.resolution.file_field(taps.field)


def check_layers(subject: Subject, found: Findings) -> None:
    """Every layer rule for a draft, against the target when given (see the module docstring).

    Raises:
        ParallelDraftingConfigError: a field of the draft cannot be read at all.
    """
    resolution, target, get = subject.resolution, subject.target, subject.get
    taps = tapped_knowing_target(subject)
    if taps is None:
        return
    runner = runner_of(resolution.algorithm)
    assert runner is not None  # taps were read for it
    errors: list[ParallelDraftingConfigError] = []
    warnings: list[ParallelDraftingConfigWarning] = []
    errors += serving_list_errors(taps, runner, resolution, target)
    warnings += serving_list_warnings(taps, resolution)
    read = [taps]
    if runs_on_either_runner(resolution.algorithm, get):
        older = older_runner_layers(get)
        read.append(older)
        warning = _runners_disagree(taps, older, resolution)
        if warning is not None:
            warnings.append(warning)
    notes = _unread_list_notes(get, read, resolution)
    if target is not None:
        errors += omni_dspark_errors(get, resolution, target)
    finding = default_layers_finding(get, taps, resolution, target)
    if isinstance(finding, ParallelDraftingConfigError):
        errors.append(finding)
    elif finding is not None:
        warnings.append(finding)
    count_errors, count_warnings = layer_count_findings(get, taps, resolution, target)
    errors += count_errors
    warnings += count_warnings
    found.errors += errors
    found.warnings += warnings
    found.notes += notes


# --- the list the serving runner reads ---------------------------------------------------------


def serving_list_errors(
    taps: TappedLayers, runner: Runner, resolution: Resolution, target: TargetFacts | None
) -> list[ParallelDraftingConfigError]:
    """The rules for the layer list the serving runner reads.

    * The runner's function must return ints: where it would raise, or return values
      that are not ints, or stop at a value that is not a list (and tap the target's
      defaults instead), the field is an error (``get_eagle3_aux_layers_from_config``
      in ``vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py``;
      ``_get_eagle3_aux_layers_from_config`` in ``vllm/v1/worker/gpu_model_runner.py``).
    * Each id once, in increasing order: vLLM taps ``sorted(set(ids))``
      (``EagleModelMixin._set_aux_hidden_state_layers`` in
      ``vllm/model_executor/models/interfaces.py``) while DFlash-style models size
      ``fc`` for ``len(ids)`` (``_get_dflash_fc_input_size`` in ``qwen3_dflash.py``),
      so a repeat or a reordering feeds the drafter features it was not trained on.
    * Capture indices in ``[0, L]``: the target records index 0 (the input of its first
      layer) and ``i + 1`` (the output of layer ``i``) and nothing else
      (``LlamaModel.forward`` in ``vllm/model_executor/models/llama.py``).  Ids of a
      field vLLM shifts by one are layer indices, in ``[0, L - 1]``, or ``-1``, which it
      shifts to capture index 0 (a warning, :func:`serving_list_warnings`).
    """
    if taps.field is None:
        return []
    name = resolution.file_field(taps.field)
    reader = f"vLLM's {runner.value} model runner serves this draft"
    if taps.problem is not None:
        return [
            ParallelDraftingConfigError(
                f"`{name}` {taps.problem} ({reader} and reads this field).", field=name
            )
        ]
    if taps.ids is None:
        return []
    given = [layer_id - taps.shift for layer_id in taps.ids]  # the ids as the field has them
    for index, (previous, current) in enumerate(pairwise(given), start=1):
        if current <= previous:
            return [
                ParallelDraftingConfigError(
                    f"`{name}` = {describe_value(taps.value)} must name each target layer "
                    f"once, in increasing order: item {index} is {current}, after "
                    f"{previous}. vLLM taps the sorted, de-duplicated layers, so the drafter "
                    f"would not get the features it was trained on ({reader} and reads this "
                    "field).",
                    field=name,
                )
            ]
    top = None if target is None or target.num_layers is None else target.num_layers
    highest = None if top is None else top - taps.shift
    for index, layer_id in enumerate(given):
        if layer_id < -taps.shift or (highest is not None and layer_id > highest):
            return [
                _out_of_range(
                    name,
                    describe_value(taps.value),
                    index=index,
                    layer_id=layer_id,
                    shift=taps.shift,
                    top=top,
                    reader=reader,
                )
            ]
    return []


def serving_list_warnings(taps: TappedLayers, resolution: Resolution) -> list[TargetLayersWarning]:
    """What vLLM serves, but not as the list reads (issue 25, item 22):

    * whole-number floats (``[1.0, 9.0]``): the newer runner's
      ``get_eagle3_aux_layers_from_config`` (``eagle3_utils.py``) adds 1 and keeps floats,
      and the target's ``_maybe_add_hidden_state`` (``vllm/model_executor/models/
      interfaces.py``, ``EagleModelMixin``) tests ``layer_idx in aux_hidden_state_layers``,
      where ``10.0 == 10``: the same layers as the ints;
    * ``-1`` in a field vLLM shifts by one: capture index 0, the hidden state entering the
      target's first layer (``LlamaModel.forward`` records it before any layer runs).
    """
    if taps.field is None or taps.ids is None:
        return []
    name = resolution.file_field(taps.field)
    shown = describe_value(taps.value)
    warnings = []
    if taps.whole_floats:
        warnings.append(
            TargetLayersWarning(
                f"`{name}` = {shown} holds whole-number floats: vLLM 0.33 keeps them as floats "
                "and taps the same layers as the ints would (its models compare 9.0 == 9). "
                "Write them as ints."
            )
        )
    if taps.shift and -1 in [layer_id - taps.shift for layer_id in taps.ids]:
        warnings.append(
            TargetLayersWarning(
                f"`{name}` = {shown} holds -1: vLLM 0.33 adds 1 and taps capture index 0, the "
                "hidden state entering the target's first layer (its embeddings), not the "
                "output of a layer. It serves it; check that the drafter was trained on it."
            )
        )
    return warnings


def _out_of_range(
    name: str, shown: str, *, index: int, layer_id: int, shift: int, top: int | None, reader: str
) -> ParallelDraftingConfigError:
    kind = "layer indices" if shift else "capture indices"
    how = (
        "taps capture index id + 1, the output of layer id"
        if shift
        else "taps them as given: 0 is the input of the first layer, i the output of layer i - 1"
    )
    if top is None:
        bounds = (
            f"{kind} are never below -1 (-1 taps capture index 0, the input of the first layer)"
            if shift
            else f"{kind} are never negative"
        )
    else:
        bounds = (
            f"the target's num_hidden_layers is {top}, so its {kind} run from 0 to {top - shift}"
        )
    return ParallelDraftingConfigError(
        f"`{name}` = {shown}: item {index} is {layer_id}, but {bounds} ({reader} and {how}).",
        field=name,
    )


def _runners_disagree(
    newer: TappedLayers, older: TappedLayers, resolution: Resolution
) -> TargetLayersWarning | None:
    """DFlash runs on either runner (``vllm/config/vllm.py``, ``use_v2_model_runner``); the
    two chains may read different fields.  The older runner taps its own chain's layers
    while the DFlash model sizes ``fc`` by the newer chain's (``_get_dflash_fc_input_size``
    in ``qwen3_dflash.py``)."""
    if (newer.ids, newer.problem) == (older.ids, older.problem):
        return None
    return TargetLayersWarning(
        "vLLM's two model runners read different target layers for this DFlash draft: the "
        f"newer one {_describe(newer, resolution)}, the older one "
        f"{_describe(older, resolution)}. vLLM serves DFlash with the older runner when "
        "VLLM_USE_V2_MODEL_RUNNER=0 or the newer one lacks a feature in use; make the "
        "fields agree."
    )


def _describe(taps: TappedLayers, resolution: Resolution) -> str:
    if taps.field is None:
        return "finds none and taps the target model's default layers"
    name = resolution.file_field(taps.field)
    if taps.ids is None:
        return f"fails on `{name}`"
    return f"taps capture indices {list(taps.ids)} (from `{name}`)"


_LAYER_FIELDS: Final = tuple(dict.fromkeys((*NEWER_RUNNER_FIELDS, *OLDER_RUNNER_FIELDS)))
"""Every field either runner's function reads, once each, in the functions' order."""


def _unread_list_notes(
    get: FieldGetter, read: list[TappedLayers], resolution: Resolution
) -> list[str]:
    """A layer list vLLM never reads for this draft is at most a note: it is dead data, but
    another engine or trainer may read it."""
    sources = {resolution.file_field(t.field) for t in read if t.field is not None}
    notes = []
    for path in _LAYER_FIELDS:
        if not _set(read_path(get, path, only_dicts=True)):
            continue
        name = resolution.file_field(path)
        if name in sources:
            continue
        whence = (
            f"it taps `{min(sources)}`"
            if sources
            else "it finds no layers and taps the target model's default layers"
        )
        notes.append(f"`{name}` is not read by vLLM for this draft ({whence})")
    return notes


# --- the second reader: the Qwen3-Omni DSpark validator ---------------------------------------


def omni_dspark_errors(
    get: FieldGetter, resolution: Resolution, target: TargetFacts
) -> list[ParallelDraftingConfigError]:
    """The layer rules of vLLM's Qwen3-Omni DSpark validator, for a DSpark draft of a
    Qwen3-Omni target (``_validate_qwen3_omni_dspark`` in ``vllm/config/speculative.py``).

    It reads the first field of :data:`OMNI_DSPARK_ORDER` that is not null, which must be
    a non-empty list of ints (not bools), unique and strictly increasing, each in
    ``[0, L - 1]`` for the target's thinker text config; vLLM refuses to start otherwise.
    """
    omni_draft = QWEN3_OMNI_DSPARK in _strings(get("architectures", None))
    if not (resolution.algorithm == "dspark" or omni_draft) or not _is_omni(target):
        return []
    name, value = OMNI_DSPARK_ORDER[-1], None
    for path in OMNI_DSPARK_ORDER:
        value = read_path(get, path, only_dicts=True)
        if value is not None:
            name = path
            break
    name = resolution.file_field(name)
    prefix = "vLLM's Qwen3-Omni DSpark validator"
    if not is_list(value) or not value:
        return [
            ParallelDraftingConfigError(
                f"`{name}` must be a non-empty list of target layer ids for a Qwen3-Omni "
                f"target; got {describe_value(value)} ({prefix} refuses it).",
                field=name,
            )
        ]
    items = list(value)
    ids = [exact_int(item) for item in items]
    problem = None
    if any(layer_id is None for layer_id in ids):
        problem = "must contain only ints (not bools)"
    elif ids != sorted(set(ids)):  # type: ignore[type-var]  # all ints here
        problem = "must be unique and strictly increasing"
    elif target.num_layers is not None and not all(
        0 <= cast("int", i) < target.num_layers for i in ids
    ):
        problem = f"must be layer indices in [0, {target.num_layers - 1}]"
    if problem is None:
        return []
    return [
        ParallelDraftingConfigError(
            f"`{name}` = {describe_value(value)} {problem} for a Qwen3-Omni target "
            f"({prefix} refuses it).",
            field=name,
        )
    ]


def _is_omni(target: TargetFacts) -> bool:
    return target.model_type == QWEN3_OMNI_MODEL_TYPE or bool(
        QWEN3_OMNI_TARGETS & set(target.architectures)
    )


# --- no layers named: the target model's defaults --------------------------------------------


def default_layers_finding(
    get: FieldGetter, taps: TappedLayers, resolution: Resolution, target: TargetFacts | None
) -> ParallelDraftingConfigError | TargetLayersWarning | None:
    """A DFlash-style draft that names no layers, sized for another number of them.

    vLLM then taps the target's default layers (:func:`default_layers`), while
    ``DFlashQwen3Model`` sizes ``fc`` for ``num_hidden_layers`` features
    (``_get_dflash_fc_input_size`` in ``vllm/model_executor/models/qwen3_dflash.py``),
    when ``use_aux_hidden_state`` (``eagle_config`` merged under ``dflash_config``, else
    top level, default true) holds.  When the counts differ, the first forward pass fails
    in ``combine_hidden_states`` ("DFlash drafter expects N concatenated aux hidden
    features").  An error with a target; without one, a warning, as the defaults depend
    on the target's depth (3 layers for any target of 7 or more).
    """
    if taps.field is not None or not _sizes_fc_by_draft_layers(get, resolution):
        return None
    draft_layers = exact_int(get("num_hidden_layers", None))
    if draft_layers is None or draft_layers <= 0:
        return None
    to_set = _field_to_set(get, resolution)
    trained = f"Set `{to_set}` to the {_layers(draft_layers)} the drafter was trained on."
    if target is None or target.num_layers is None:
        if draft_layers == len(default_layers(7)):
            return None
        return TargetLayersWarning(
            "The draft names no target layers, so vLLM taps the target model's default "
            "layers, (2, L // 2, L - 3): 3 for any target of 7 or more layers. Its DFlash "
            f"model sizes fc for num_hidden_layers = {draft_layers}, so the first forward "
            f"pass would fail. {trained}"
        )
    defaults = default_layers(target.num_layers)
    if len(defaults) == draft_layers:
        return None
    return ParallelDraftingConfigError(
        "The draft names no target layers, so vLLM taps the target model's default layers, "
        f"capture indices {list(defaults)} of its {target.num_layers} layers, but its DFlash "
        "model "
        f"sizes fc for num_hidden_layers = {draft_layers}: the first forward pass fails "
        f'("DFlash drafter expects {_features(get, None, draft_layers)} concatenated aux '
        f'hidden features but received {_features(get, target, len(defaults))}"). {trained}',
        field=to_set,
    )


def _layers(count: int) -> str:
    return "1 target layer" if count == 1 else f"{count} target layers"


def _features(get: FieldGetter, target: TargetFacts | None, layers: int) -> str:
    """``layers`` hidden states' worth of features: of the target's hidden size as the
    runner delivers them, or (``target=None``) as the draft's fc expects them
    (``target_hidden_size``, else ``hidden_size``)."""
    hidden = None if target is None else target.hidden_size
    if hidden is None:
        hidden = exact_int(get("target_hidden_size", None)) or exact_int(get("hidden_size", None))
    return f"{layers} * hidden_size" if hidden is None else str(layers * hidden)


def _sizes_fc_by_draft_layers(get: FieldGetter, resolution: Resolution) -> bool:
    architectures = _strings(get("architectures", None))
    if architectures:
        if not DFLASH_FC_ARCHITECTURES & set(architectures):
            return False
    elif resolution.algorithm not in FC_METHODS:
        return False
    return dflash_uses_aux_hidden_states(get)


def _field_to_set(get: FieldGetter, resolution: Resolution) -> str:
    if resolution.speculators is not None:
        return resolution.file_field("eagle_aux_hidden_state_layer_ids")
    if type(get("dflash_config", None)) is dict:
        return "dflash_config.target_layer_ids"
    return "target_layer_ids"


# --- counts of target layers -----------------------------------------------------------------


def layer_count_findings(
    get: FieldGetter, taps: TappedLayers, resolution: Resolution, target: TargetFacts | None
) -> tuple[list[ParallelDraftingConfigError], list[ParallelDraftingConfigWarning]]:
    """``num_target_layers`` and ``target_num_hidden_layers``, which vLLM does not read.

    * ``num_target_layers`` means the target's depth to z-lab's DFlash code and SGLang
      (used only to derive layer ids when none are given) and the number of tapped
      layers to TorchSpec.  It is a warning only when it fits neither reading.
    * vLLM's K3 DSpark config (``model_type`` ``k3_dspark``) requires a non-empty
      ``target_layer_ids`` and ``num_target_layers == len(target_layer_ids)``, and raises
      ``ValueError`` otherwise (``K3DSparkConfig.__init__`` in
      ``vllm/transformers_utils/configs/k3_dspark.py``): an error there.
    * ``target_num_hidden_layers`` (TorchSpec) that is not the target's depth: a warning.
    """
    errors: list[ParallelDraftingConfigError] = []
    warnings: list[ParallelDraftingConfigWarning] = []
    if get("model_type", None) == K3_DSPARK_MODEL_TYPE and resolution.speculators is None:
        error = _k3_dspark_error(get)
        if error is not None:
            errors.append(error)
        return errors, warnings  # vLLM reads num_target_layers here: no trainer's reading
    depth = None if target is None else target.num_layers
    ids = taps.ids
    for path in NUM_TARGET_LAYERS_FIELDS:
        value = read_path(get, path, only_dicts=True)
        if value is None:
            continue
        name = resolution.file_field(path)
        count = exact_int(value)
        if count is None or count <= 0:
            warnings.append(
                TargetLayersWarning(
                    f"`{name}` = {describe_value(value)} is not a count of layers. vLLM does "
                    "not read it, but trainers and other engines do."
                )
            )
            continue
        highest_layer = None if not ids else max(ids) - 1  # as a layer index
        as_depth = (
            count == depth
            if depth is not None
            else (highest_layer is None or highest_layer < count)
        )
        as_count = ids is not None and count == len(ids)
        if not as_depth and not as_count:
            warnings.append(_count_fits_neither(name, count, depth, ids))
    value = get(TARGET_DEPTH_FIELD, None)
    if value is not None and depth is not None and exact_int(value) != depth:
        warnings.append(
            TargetLayersWarning(
                f"`{resolution.file_field(TARGET_DEPTH_FIELD)}` = {describe_value(value)}, "
                f"but the target's num_hidden_layers is {depth}. vLLM does not read it; is "
                "this the draft's intended target?"
            )
        )
    return errors, warnings


def _count_fits_neither(
    name: str, count: int, depth: int | None, ids: tuple[int, ...] | None
) -> TargetLayersWarning:
    depth_part = (
        f"the target's num_hidden_layers ({depth})"
        if depth is not None
        else "the target's depth (a layer id is at or above it)"
    )
    ids_part = "" if ids is None else f" nor the number of tapped layers ({len(ids)})"
    return TargetLayersWarning(
        f"`{name}` = {count} is neither {depth_part}{ids_part}. vLLM does not read it, "
        "but z-lab's DFlash code and SGLang derive layer ids from it as the target's depth, "
        "and TorchSpec reads it as the number of tapped layers."
    )


def _k3_dspark_error(get: FieldGetter) -> ParallelDraftingConfigError | None:
    """``K3DSparkConfig.__init__`` (``vllm/transformers_utils/configs/k3_dspark.py``) compares
    ``num_target_layers != len(target_layer_ids)``, which a whole-number float passes; then
    ``K3DSparkModel.__init__`` (``vllm/models/kimi_k3/nvidia/dspark_mla.py``) sizes
    ``context_proj``, a linear layer, ``target_hidden_size * num_target_layers`` wide, and a
    float size fails there (issue 25, item 21)."""
    ids = get("target_layer_ids", None)
    count = get("num_target_layers", None)
    if is_list(ids) and ids and exact_int(count) == len(ids):
        return None
    if is_list(ids) and ids and type(count) is float and count == len(ids):
        return ParallelDraftingConfigError(
            f"`num_target_layers` = {count!r} is a float: vLLM's K3DSparkConfig accepts it "
            f"({count!r} == {len(ids)}, the length of target_layer_ids), but "
            "K3DSparkModel.__init__ sizes its context_proj linear layer "
            "target_hidden_size * num_target_layers wide, and a float size fails there "
            "(vllm/models/kimi_k3/nvidia/dspark_mla.py). Fix: write "
            f'`"num_target_layers": {len(ids)}`.',
            field="num_target_layers",
        )
    return ParallelDraftingConfigError(
        f"A K3 DSpark draft (model_type {K3_DSPARK_MODEL_TYPE!r}) must set a non-empty "
        "`target_layer_ids` and `num_target_layers` equal to its length; got "
        f"target_layer_ids = {describe_value(ids)}, num_target_layers = "
        f"{describe_value(count)}. vLLM's K3DSparkConfig raises ValueError otherwise.",
        field="num_target_layers",
    )


# --- reading -------------------------------------------------------------------------------


def _set(value: object) -> bool:
    """Whether a layer field is set, as vLLM's chains test it (its truth value)."""
    try:
        return bool(value)
    except Exception:  # a value whose truth value raises: set, and broken
        return True


def _strings(value: object) -> list[str]:
    if not is_list(value):
        return []
    return [item for item in value if isinstance(item, str)]


# --- the load path: from config.json to the first forward pass (issue 22) -----------------------

_VLLM = f"vLLM {VERSION}"
_SERVED_RANGE = "transformers 5.16.1 to 5.20.2, the versions vLLM 0.33.0 accepts"


def _auto_map_keys(get: FieldGetter) -> list[str]:
    auto_map = get("auto_map", None)
    if not isinstance(auto_map, dict):
        return []
    return [key for key in auto_map if isinstance(key, str)]


def _architecture_names(get: FieldGetter) -> tuple[str, ...]:
    return tuple(_strings(get("architectures", None)))


def _vllm_method(subject: Subject) -> str | None:
    algorithm = subject.resolution.algorithm
    return None if algorithm is None else VLLM_METHOD.get(algorithm, algorithm)


def check_config_parses(subject: Subject, found: Findings) -> None:
    """The draft's ``config.json`` must parse: ``HFConfigParser.parse`` in
    ``vllm/transformers_utils/config.py`` looks the ``model_type`` up in vLLM's
    ``_CONFIG_REGISTRY``, else hands it to transformers' ``AutoConfig.from_pretrained``,
    which raises ``ValueError`` for a type no transformers version of the range knows unless
    ``auto_map.AutoConfig`` names remote code (loaded only with ``--trust-remote-code``).
    A file with neither ``model_type`` nor ``speculators_config`` fails the same way
    ("Should have a `model_type` key"), unless its first architecture is one vLLM derives a
    type from (``_ARCHITECTURE_TO_MODEL_TYPE``): an error when the config lists
    ``architectures`` (a whole config); a fragment with neither (how callers pass a draft's
    token and layer fields alone) is not judged for its load path.  A type only later
    versions of the range know is a warning naming them.  Speculators files are parsed by vLLM's own
    ``SpeculatorsConfig`` and are not judged here.
    """
    if subject.resolution.speculators is not None:
        return
    get = subject.get
    model_type = get("model_type", None)
    names = _architecture_names(get)
    if model_type is None and names:
        model_type = MODEL_TYPE_FROM_ARCHITECTURE.get(names[0])
    if model_type is not None and not isinstance(model_type, str):
        found.error(
            ParallelDraftingConfigError(
                f"`model_type` = {describe_value(model_type)} is not a string: vLLM cannot "
                "parse the draft's config (vllm/transformers_utils/config.py, "
                "HFConfigParser.parse). Fix: set `model_type` to the type of the draft's "
                'layers, such as "qwen3".',
                field="model_type",
            )
        )
        return
    parsed = parse_model_type(model_type, "AutoConfig" in _auto_map_keys(get))
    where = (
        "vllm/transformers_utils/config.py, HFConfigParser.parse, through transformers' "
        "AutoConfig.from_pretrained"
    )
    shown = "no `model_type`" if model_type is None else f"`model_type` {model_type!r}"
    if parsed is Parse.UNKNOWN and model_type is None and not names:
        return  # a fragment (token and layer fields alone): the load path is not judged
    if parsed is Parse.UNKNOWN:
        cause = (
            "and is no speculators file (no `speculators_config`)"
            if model_type is None
            else f"known neither to vLLM's _CONFIG_REGISTRY nor to {_SERVED_RANGE}"
        )
        found.error(
            ParallelDraftingConfigError(
                f"The draft's config has {shown}, {cause}, and `auto_map` names no "
                f"AutoConfig: {_VLLM} fails parsing it with ValueError ({where}). Fix: set "
                '`model_type` to the type of the draft\'s layers, such as "qwen3".',
                field="model_type",
            )
        )
    elif parsed is Parse.REMOTE_CODE:
        found.warn(
            ParallelDraftingConfigWarning(
                f"The draft's config has {shown}, known neither to vLLM nor to "
                f"{_SERVED_RANGE}: {_VLLM} parses it only through `auto_map.AutoConfig`'s "
                "remote code, with --trust-remote-code (the draft gets the target's "
                f"trust_remote_code; {where})."
            )
        )
    elif parsed is Parse.SOME_VERSIONS:
        assert model_type is not None
        first = vllm_tables().model_types[model_type]
        found.warn(
            ParallelDraftingConfigWarning(
                f"`model_type` {model_type!r} is known to transformers {first} and later "
                f"only: {_VLLM} accepts transformers {vllm_tables().transformers_range}, and "
                f"with an older version it fails parsing the draft's config ({where})."
            )
        )


_REGISTRY = "vllm/model_executor/models/registry.py"


def _unresolved_names(names: tuple[str, ...], has_auto_model: bool) -> Resolved:
    """How the registry fares with a list: the first registered name wins
    (``_ModelRegistry.inspect_model_cls``), else the Transformers-backend fallback on the
    first name."""
    outcomes = [resolve_architecture(name, has_auto_model) for name in names]
    if Resolved.REGISTERED in outcomes:
        return Resolved.REGISTERED
    return outcomes[0] if outcomes else Resolved.UNSUPPORTED


def _refusal(names: tuple[str, ...], when: str, function: str, fix: str) -> str:
    tables = vllm_tables()
    extra = ""
    for name in names:
        if name in tables.previously_supported:
            extra = f" ({name} was served until vLLM {tables.previously_supported[name]})"
        elif name in tables.out_of_tree:
            extra = f" ({name} is served by a plugin now: {tables.out_of_tree[name]})"
    return (
        f"{when} {list(names)!r}: no name is in {_VLLM}'s model registry ({_REGISTRY}), none "
        f"is a model class of transformers, and `auto_map` names no AutoModel{extra}. vLLM "
        f'raises ValueError "Model architectures {list(names)!r} are not supported for '
        f'now" ({_REGISTRY}, _ModelRegistry._raise_for_unsupported, from {function}). '
        f"Fix: {fix}"
    )


def _registry_warning(names: tuple[str, ...], outcome: Resolved, when: str) -> str:
    if outcome is Resolved.REMOTE_CODE:
        how = (
            "`auto_map`'s AutoModel remote code, loaded only with --trust-remote-code, and "
            "served as vLLM's generic TransformersForCausalLM, which is no drafter class"
        )
    else:
        how = (
            "vLLM's Transformers backend, if the transformers class passes its compatibility "
            "test, as a generic TransformersForCausalLM"
        )
    return (
        f"{when} {list(names)!r}: no name is in {_VLLM}'s model registry ({_REGISTRY}); it "
        f"resolves only through {how} (_ModelRegistry._try_resolve_transformers)."
    )


def check_architecture_registered(subject: Subject, found: Findings) -> None:
    """The draft's ``architectures`` must resolve in vLLM's registry, twice: as given, in
    ``ModelConfig.__post_init__`` (``vllm/config/model.py``), and after vLLM renames them for
    the method it serves (``SpeculativeConfig.__post_init__`` and ``update_arch_`` in
    ``vllm/config/speculative.py``): ``EAGLEConfig.__init__``
    (``vllm/transformers_utils/configs/eagle.py``) prefixes ``DFlash``/``Eagle3`` for
    ``dflash``/``eagle3``, and the DSpark rewrite turns ``DSparkDraftModel`` of a ``qwen3``
    draft into ``Qwen3DSparkModel``.  Every table of ``registry.py`` counts, and the
    Transformers-backend fallback (``_try_resolve_transformers``) for a class transformers
    exports or an ``auto_map.AutoModel`` class (a warning: it needs the class to pass
    vLLM's compatibility test, or --trust-remote-code).  An error only when nothing
    resolves the name.  Stock vLLM: plugins may register more names.
    """
    if subject.resolution.speculators is not None:
        return  # vLLM writes the architecture itself (speculators/algos.py)
    get = subject.get
    names = _architecture_names(get)
    if not names:
        return  # vLLM fills them from transformers' MODEL_MAPPING_NAMES, or fails later
    has_auto_model = any(key.startswith("AutoModel") for key in _auto_map_keys(get))
    outcome = _unresolved_names(names, has_auto_model)
    given = "The draft's `architectures` ="
    if outcome is Resolved.UNSUPPORTED:
        found.error(
            ParallelDraftingConfigError(
                _refusal(
                    names,
                    given,
                    "ModelConfig.__post_init__, vllm/config/model.py",
                    "name an architecture vLLM registers for the draft's method (such as "
                    "DFlashDraftModel or DSparkDraftModel).",
                ),
                field="architectures",
            )
        )
        return
    if outcome is not Resolved.REGISTERED:
        found.warn(ParallelDraftingConfigWarning(_registry_warning(names, outcome, given)))
        return
    method = _vllm_method(subject)
    renamed: tuple[str, ...] | None = None
    if method in EAGLE_CONFIG_METHODS and get("model_type", None) != "eagle":
        renamed = tuple(eagle_config_architecture(method, name) for name in names)
        how = f"vllm/transformers_utils/configs/eagle.py, EAGLEConfig.__init__, for {method}"
    elif method == "dspark":
        renamed = dspark_architectures(names, get("model_type", None))
        how = "vllm/config/speculative.py, SpeculativeConfig.__post_init__, for dspark"
        if renamed is None:
            found.warn(
                ParallelDraftingConfigWarning(
                    f"Served as dspark, `architectures` = {list(names)!r} names no DSpark "
                    f"architecture vLLM keeps ({', '.join(sorted(DSPARK_ARCHITECTURES))}, or "
                    "DSparkDraftModel with model_type 'qwen3'): vLLM replaces it with "
                    "DeepSeek-V4's bundled DSpark draft, re-typed deepseek_v4 "
                    "(vllm/config/speculative.py, SpeculativeConfig.__post_init__)."
                )
            )
            return
    if renamed is None or renamed == names:
        return
    outcome = _unresolved_names(renamed, has_auto_model)
    when = f"{_VLLM} renames `architectures` {list(names)!r} ({how}) to"
    if outcome is Resolved.UNSUPPORTED:
        found.error(
            ParallelDraftingConfigError(
                _refusal(
                    renamed,
                    when,
                    "SpeculativeConfig.__post_init__ and update_arch_, vllm/config/speculative.py",
                    f"name an architecture vLLM registers for {method} drafts"
                    + (" (such as DFlashDraftModel)." if method == "dflash" else "."),
                ),
                field="architectures",
            )
        )
    elif outcome is not Resolved.REGISTERED:
        found.warn(ParallelDraftingConfigWarning(_registry_warning(renamed, outcome, when)))


def serving_architectures(subject: Subject) -> tuple[str, ...]:
    """The draft's ``architectures`` as vLLM builds the draft: renamed for its method
    (:func:`check_architecture_registered` says how)."""
    get = subject.get
    names = _architecture_names(get)
    method = _vllm_method(subject)
    if method in EAGLE_CONFIG_METHODS and get("model_type", None) != "eagle":
        return tuple(eagle_config_architecture(method, name) for name in names)
    if method == "dspark":
        return dspark_architectures(names, get("model_type", None)) or ()
    return names


def check_construction(subject: Subject, found: Findings) -> None:
    """Every config attribute the constructor of the draft's class reads that neither the
    file nor the config class of its ``model_type`` provides (:data:`CONSTRUCTION_READS`,
    each row citing its file); first among them ``markov_rank``, which
    ``Qwen3DSparkModel.__init__`` (``vllm/model_executor/models/qwen3_dspark.py``) reads at
    the top level of a ``Qwen3Config``.  Also the sections ``DFlashQwen3Model.__init__``
    (``qwen3_dflash.py``) reads with ``getattr(config, ..., {})``: present as ``null``,
    they fail there.  Speculators files are left out (their config is vLLM's own).
    """
    if subject.resolution.speculators is not None:
        return
    get = subject.get
    serving = set(serving_architectures(subject))
    missing: dict[str, ConstructionRead] = {}
    for row in CONSTRUCTION_READS:
        if row.architectures & serving and read_path(get, row.field, only_dicts=True) is None:
            missing.setdefault(row.field, row)
    for field, row in missing.items():
        nested = read_path(get, f"dflash_config.{field}", only_dicts=True)
        where = (
            f"; it is only in `dflash_config`, where vLLM does not read it (= {nested!r})"
            if "." not in field and nested is not None
            else ""
        )
        value = (
            f' (e.g. `"{field}": {nested!r}` at the top level)'
            if "." not in field and nested is not None
            else ""
        )
        found.error(
            ParallelDraftingConfigError(
                f"`{field}` is not set{where}: {_VLLM} builds this draft as "
                f"{' / '.join(sorted(row.architectures & serving))}, whose constructor reads "
                f"it, and fails with {row.failure} ({row.follows}). Fix: set `{field}`"
                f"{value}.",
                field=field,
            )
        )
    _check_markov_rank_type(get, serving, missing, found)
    if serving & DFLASH_MODEL_ARCHITECTURES:
        for section in ("eagle_config", "dflash_config"):
            if get(section, MISSING_SECTION) is None:
                found.error(
                    ParallelDraftingConfigError(
                        f"`{section}` is null: {_VLLM}'s DFlashQwen3Model.__init__ "
                        "(vllm/model_executor/models/qwen3_dflash.py) reads it with "
                        f"getattr(config, {section!r}, {{}}), gets None and fails "
                        f"({'AttributeError' if section == 'eagle_config' else 'TypeError'}). "
                        f"Fix: delete the `{section}` key, or make it an object.",
                        field=section,
                    )
                )


def _check_markov_rank_type(
    get: FieldGetter, serving: set[str], missing: dict[str, ConstructionRead], found: Findings
) -> None:
    """A top-level ``markov_rank`` the DSpark constructors read must be a non-negative int:
    ``Qwen3DSparkModel.__init__`` (``vllm/model_executor/models/qwen3_dspark.py``) passes it
    as is to ``nn.Embedding(vocab_size, markov_rank)``, which refuses a string, a float or a
    list (``TypeError``) and a negative size (``RuntimeError``).  A bool is left alone
    (torch takes it as 0 or 1)."""
    reads_it = any(
        row.field == "markov_rank" and row.architectures & serving for row in CONSTRUCTION_READS
    )
    value = get("markov_rank", None)
    if not reads_it or "markov_rank" in missing or value is None or isinstance(value, bool):
        return
    rank = exact_int(value)
    if rank is None or rank < 0:
        found.error(
            ParallelDraftingConfigError(
                f"`markov_rank` = {describe_value(value)}: {_VLLM}'s Qwen3DSparkModel.__init__ "
                "(vllm/model_executor/models/qwen3_dspark.py) passes it to "
                "nn.Embedding(vocab_size, markov_rank), which needs a non-negative integer "
                "and fails. Fix: set `markov_rank` to the Markov head's rank, an integer such "
                "as 256.",
                field="markov_rank",
            )
        )


MISSING_SECTION: Final = object()
"""A default no config value is (a present ``null`` reads as ``None``)."""


def check_sample_from_anchor(subject: Subject, found: Findings) -> None:
    """A truthy ``dflash_config.sample_from_anchor`` on a DFlash or DSpark draft (after the
    speculators translation, which writes it for a speculators DFlash file) is refused by
    the newer runner: ``DFlashSpeculator.__init__``
    (``vllm/v1/worker/gpu/spec_decode/dflash/speculator.py``) raises ``ValueError``
    ("sample_from_anchor=True is not supported for DFlash"), and DSpark's speculator calls
    it first.  The newer runner is vLLM 0.33's default, and DSpark's only one; the older
    runner's DFlash proposer ignores the field (a note says so).
    """
    method = _vllm_method(subject)
    if method not in ("dflash", "dspark"):
        return
    value = read_path(subject.get, SAMPLE_FROM_ANCHOR, only_dicts=True)
    if not _set(value) or value is None:
        return
    name = subject.file_field(SAMPLE_FROM_ANCHOR)
    found.error(
        ParallelDraftingConfigError(
            f"`{name}` = {describe_value(value)}: {_VLLM}'s newer model runner, its default"
            f"{' and the only one serving DSpark' if method == 'dspark' else ''}, raises "
            'ValueError "sample_from_anchor=True is not supported for DFlash" '
            "(vllm/v1/worker/gpu/spec_decode/dflash/speculator.py, DFlashSpeculator.__init__"
            f"{', which DSparkSpeculator.__init__ calls' if method == 'dspark' else ''}). "
            f"Fix: delete `{name}` or set it to false.",
            field=name,
        )
    )
    if method == "dflash":
        found.note(
            f"`{name}`: vLLM 0.33.0's older model runner (VLLM_USE_V2_MODEL_RUNNER=0) "
            "ignores it (vllm/v1/spec_decode/dflash.py, DFlashProposer)."
        )


def check_target_tapped(subject: Subject, found: Findings) -> None:
    """A drafter fed the target's hidden states (:func:`needs_hidden_states`) needs a target
    class implementing ``SupportsEagle3``: ``set_eagle3_aux_hidden_state_layers``
    (``vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py``; the older runner's
    ``_setup_eagle3_aux_hidden_state_outputs``, ``vllm/v1/worker/gpu_model_runner.py``)
    raises ``RuntimeError("Model does not support EAGLE3 interface")`` otherwise.  The
    implementing classes are data derived from vLLM's registry and class bases.  A target
    architecture vLLM does not register is served, if at all, by the Transformers backend,
    which implements the interface: a warning.
    """
    target = subject.target
    if target is None or not target.architectures:
        return
    if not needs_hidden_states(_vllm_method(subject), subject.get):
        return
    name = target_class(target.architectures)
    if name is None:
        found.warn(
            ParallelDraftingConfigWarning(
                f"The target's `architectures` {list(target.architectures)!r} are not in "
                f"{_VLLM}'s model registry ({_REGISTRY}): vLLM serves it, if at all, through "
                "its Transformers backend, which can be tapped for the drafter's hidden "
                "states; that it serves this target is not checked."
            )
        )
        return
    if name in vllm_tables().supports_eagle3:
        return
    module, class_name = vllm_tables().registered(name) or ("", "")
    found.error(
        ParallelDraftingConfigError(
            f"The target's architecture {name!r} (vLLM's {class_name} in {module}) does not "
            f"implement SupportsEagle3, and this drafter takes the target's hidden states: "
            f'{_VLLM} raises RuntimeError "Model does not support EAGLE3 interface" when it '
            "loads the target (vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py, "
            "set_eagle3_aux_hidden_state_layers). Fix: none in the draft; vLLM 0.33.0 cannot "
            "serve this drafter with this target.",
            field="target.architectures",
        )
    )


def check_null_token_fields(subject: Subject, found: Findings) -> None:
    """A token-id field present as ``null`` above the field that wins (or with no winner):
    vLLM 0.33 reads the ``null``.  The newer runner's ``get_parallel_drafting_token_id``
    (``vllm/v1/worker/gpu/spec_decode/utils.py``) tests ``"mask_token_id" in
    dflash_config`` and ``hasattr`` for the other fields, then calls ``int(None)``:
    ``TypeError``; the older runner's ``_init_parallel_drafting_params``
    (``vllm/v1/spec_decode/llm_base_proposer.py``) stores ``None`` as the token id.  Only
    a top-level ``mask_token_id: null`` is skipped by both.  The library's own entry points
    (``ParallelDraftingConfig``, the drop-ins) treat every ``null`` as unset, by design;
    this rule is for ``check()`` verdicts only.
    """
    if subject.resolution.speculators is not None:
        return
    for verdict in subject.resolution.fields:
        if verdict.status is FieldStatus.WINNER:
            return
        if verdict.status is not FieldStatus.NULL or verdict.source.value == "mask_token_id":
            continue
        name = subject.file_field(verdict.source.value)
        found.error(
            ParallelDraftingConfigError(
                f"`{name}` is present and null: {_VLLM} reads it before any field below it. "
                "The newer model runner raises TypeError (int(None), "
                "vllm/v1/worker/gpu/spec_decode/utils.py, get_parallel_drafting_token_id); "
                "the older one stores None as the token id "
                "(vllm/v1/spec_decode/llm_base_proposer.py, _init_parallel_drafting_params). "
                f"Fix: delete the `{name}` key (only a top-level `mask_token_id: null` is "
                "skipped).",
                field=name,
            )
        )
        return


def check_served_context(subject: Subject, found: Findings) -> None:
    """Given a target, whether vLLM 0.33 lowers the server's ``max_model_len`` to a DFlash or
    DSpark draft's: its newer runner does (``_limit_max_model_len_to_draft`` in
    ``vllm/config/vllm.py``) unless the draft shares the target's positions, i.e. every RoPE
    type of the draft is cache-only (``draft_shares_target_positions`` and
    ``_CACHE_ONLY_ROPE_TYPES`` in ``vllm/config/speculative.py``), in which case vLLM
    stretches the draft's rotary cache instead.  Both lengths are derived as vLLM derives
    them (:func:`~drafting_config.engines.vllm.derived_max_model_len`); the RoPE type comes
    from ``rope_parameters`` or the legacy ``rope_scaling``.  A warning: the server runs,
    with a shorter context than the target's.
    """
    target = subject.target
    if target is None or target.max_model_len is None:
        return
    if _vllm_method(subject) not in ("dflash", "dspark"):
        return
    get = subject.get
    if rope_only_sizes_cache(get):
        return
    draft_len = derived_max_model_len(get)
    if draft_len is None or draft_len >= target.max_model_len:
        return
    kinds = sorted({str(entry["rope_type"]) for entry in rope_parameters(get)})
    found.warn(
        ParallelDraftingConfigWarning(
            f"vLLM 0.33's newer model runner lowers the server's max_model_len from the "
            f"target's {target.max_model_len} to the draft's {draft_len}: the draft's RoPE "
            f"type ({', '.join(kinds)}) cannot stretch its rotary cache to the target's "
            "length (vllm/config/vllm.py, _limit_max_model_len_to_draft; "
            "vllm/config/speculative.py, _CACHE_ONLY_ROPE_TYPES). Serve with "
            f"--max-model-len {draft_len} or less, or give the draft a longer "
            "max_position_embeddings if it was trained for one."
        )
    )


# --- the entry point ----------------------------------------------------------------------------

RULES: Final[tuple[Rule, ...]] = (
    check_config_parses,
    check_architecture_registered,
    check_null_token_fields,
    check_sample_from_anchor,
    check_construction,
    check_target_sizes,
    check_target_placeholders,
    check_target_tapped,
    check_served_context,
    check_layers,
)
"""The rules of the draft against its target, in the order their findings are listed; the
first field that cannot be read at all stops them (it is the draft's error)."""


def resolver_findings(resolution: Resolution) -> Findings:
    """Every error and warning of :func:`~drafting_config.resolve`: its token-id chain is
    vLLM's."""
    return Findings(list(resolution.errors), list(resolution.warnings))


def judge(subject: Subject, found: Findings, reads: Reads) -> Reading:
    """vLLM 0.33.0's verdict on the draft (see :mod:`drafting_config.rules.engine`): the
    rules of :data:`RULES`, then the tokenizer beside the draft that knows the token id
    (:func:`~drafting_config.rules.tokenizer.check_tokenizer`), then the checkpoint
    (:func:`~drafting_config.rules.checkpoint.check_checkpoint`); the token id is the
    resolver's winner, the tapped layers the serving runner's, knowing the target."""
    resolution, facts = subject.resolution, subject.target
    if facts is not None and facts.vocab_size is facts.hidden_size is facts.num_layers is None:
        found.note(
            "target compared on nothing: it gives no vocab_size, hidden_size or "
            "num_hidden_layers (nor in text_config)"
        )
    aux = resolution.aux_layer_ids, resolution.aux_layer_source
    token = weights = None
    if resolution.fields:
        with found.collect():
            for rule in RULES:
                rule(subject, found)
            aux = aux_layers(subject)  # the layers as vLLM resolves them knowing the target
        if resolution.winner is not None:
            token = _tokenizer_facts(subject, found, reads)
        weights = _weights_facts(subject, found, reads)
    winner = resolution.winner
    return Reading(
        algorithm=resolution.algorithm,
        token_id=None if winner is None else winner.token_id,
        token_source=None if winner is None else winner.source.value,
        aux_layer_ids=aux[0],
        aux_layer_source=aux[1],
        token=token,
        weights=weights,
    )


def _tokenizer_facts(subject: Subject, found: Findings, reads: Reads) -> TokenFacts | None:
    """Check the token id against the tokenizer files that know it; a note says when the
    files cannot classify the id."""
    token_id = subject.token_id
    if token_id is None:
        return None
    try:
        files = reads.tokenizer_knowing(token_id, found)
        if files is None:
            return None
        check_tokenizer(replace(subject, tokenizer=files), found)
    except ParallelDraftingConfigError as error:
        found.error(error)
        return None
    token = files.describe(token_id)
    if token is None:
        found.note(
            f"tokenizer cannot classify token id {token_id}: the tokenizer files found "
            f"({display_path(files.directory)}: {', '.join(files.files)}) have no "
            f"{TOKENIZER_JSON_NAME} and do not list it as an added token"
        )
    return token


def _weights_facts(subject: Subject, found: Findings, reads: Reads) -> WeightsFacts | None:
    """Check the checkpoint beside the draft against its config
    (:mod:`drafting_config.rules.checkpoint`)."""
    files = reads.checkpoint(found)
    if files is None:
        return None
    # Imported here: a --no-weights sweep never loads the checkpoint rules.
    from drafting_config.rules.checkpoint import check_checkpoint, weights_facts  # noqa: PLC0415

    subject = replace(subject, checkpoint=files.headers, mask_embedding=files.mask_embedding)
    with found.collect():
        check_checkpoint(subject, found)
    try:
        return weights_facts(subject, files.shown)
    except ParallelDraftingConfigError:  # a field that cannot be read: an error above
        return None
