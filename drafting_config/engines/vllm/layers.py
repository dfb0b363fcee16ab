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

from itertools import pairwise
from operator import ge
from typing import Final, cast

from drafting_config.draft.architectures import QWEN3_OMNI_DSPARK
from drafting_config.draft.target import TargetFacts
from drafting_config.engines.vllm import codes as vllm_codes
from drafting_config.engines.vllm.load_path import strings
from drafting_config.engines.vllm.names import (
    DFLASH_FC_ARCHITECTURES,
    FC_METHODS,
    K3_DSPARK_MODEL_TYPE,
    QWEN3_OMNI_MODEL_TYPE,
    QWEN3_OMNI_TARGETS,
)
from drafting_config.engines.vllm.resolution import Resolution, VllmSubject, tapped_knowing_target
from drafting_config.engines.vllm.runners import (
    NEWER_RUNNER_FIELDS,
    OLDER_RUNNER_FIELDS,
    RUNNER_EVIDENCE,
    Runner,
    TappedLayers,
    default_layers,
    dflash_uses_aux_hidden_states,
    is_set,
    older_runner_layers,
    runner_of,
    runs_on_either_runner,
)
from drafting_config.values import codes
from drafting_config.values.edits import ConfigEdit
from drafting_config.values.errors import (
    ParallelDraftingConfigError,
    ParallelDraftingConfigWarning,
    TargetLayersWarning,
    describe_value,
)
from drafting_config.values.fields import FieldGetter, is_list, read_field, read_path
from drafting_config.values.findings import Findings, Note
from drafting_config.values.integers import exact_int

OMNI_DSPARK_ORDER: Final = (
    "dflash_config.target_layer_ids",
    "dspark_target_layer_ids",
    "target_layer_ids",
)
"""The Qwen3-Omni DSpark validator's own order: the first field that is not null."""

CAPTURE_EVIDENCE: Final = (
    "vllm/model_executor/models/llama.py: LlamaModel.forward records capture index 0 (the "
    "first layer's input) and i + 1 (layer i's output)"
)

NOT_READ_EVIDENCE: Final = (
    "no vLLM file reads it but transformers_utils/configs/k3_dspark.py (model_type k3_dspark)"
)
"""Why vLLM ignores ``num_target_layers`` and ``target_num_hidden_layers`` elsewhere."""

NUM_TARGET_LAYERS_FIELDS: Final = ("num_target_layers", "dflash_config.num_target_layers")
"""Where drafts record a count of target layers (newer DFlash releases nest it)."""


def _split(paths: tuple[str, ...]) -> tuple[tuple[str, str | None, str], ...]:
    """Each of ``paths`` beside its section (``None`` at the top level) and key, as
    :func:`~drafting_config.values.fields.read_path` splits it: split once, read per draft."""
    return tuple(
        (path, section or None, key) for path in paths for section, _, key in [path.rpartition(".")]
    )


_NUM_TARGET_LAYERS: Final = _split(NUM_TARGET_LAYERS_FIELDS)
""":data:`NUM_TARGET_LAYERS_FIELDS`, split (:func:`_split`)."""

TARGET_DEPTH_FIELD: Final = "target_num_hidden_layers"
"""TorchSpec's record of the target's depth; vLLM does not read it."""


def check_layers(subject: VllmSubject, found: Findings) -> None:
    """Every layer rule for a draft, against the target when given (see the module docstring).

    Raises:
        ParallelDraftingConfigError: a field of the draft cannot be read at all.
    """
    resolution, target, get = subject.resolution, subject.target, subject.draft.get
    taps = tapped_knowing_target(subject)
    if taps is None:
        return
    runner = runner_of(resolution.algorithm, subject.version)
    assert runner is not None  # taps were read for it
    errors: list[ParallelDraftingConfigError] = []
    warnings: list[ParallelDraftingConfigWarning] = []
    errors += serving_list_errors(taps, runner, resolution, target)
    warnings += serving_list_warnings(taps, resolution)
    read, runners = [taps], [runner]
    if runs_on_either_runner(resolution.algorithm, get, subject.version):
        older = older_runner_layers(get)
        read.append(older)
        runners.append(Runner.OLDER)
        warning = _runners_disagree(taps, older, resolution)
        if warning is not None:
            warnings.append(warning)
    notes = _unread_list_notes(get, read, runners, resolution)
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
    # The field's name is asked for only to word an error (most lists have none).
    reader = RUNNER_EVIDENCE[runner]
    if taps.problem is not None:
        name = resolution.file_field(taps.field)
        return [
            ParallelDraftingConfigError(
                f"`{name}` {taps.problem}.",
                field=name,
                code=codes.LAYER_IDS_INVALID,
                fix=f"write `{name}` as a list of int layer ids",
                evidence=reader,
            )
        ]
    ids, shift = taps.ids, taps.shift
    if ids is None:
        return []
    # Most lists increase and lie in range: told by ge over the pairs (a shift keeps the
    # order) and by the first and last ids, with no step per id and no shifted copy.
    unordered = any(map(ge, ids, ids[1:]))
    given = [layer_id - shift for layer_id in ids] if unordered else ()  # as the field has them
    for index, (previous, current) in enumerate(pairwise(given), start=1):
        if current <= previous:
            name = resolution.file_field(taps.field)
            return [
                ParallelDraftingConfigError(
                    f"`{name}` item {index} = {current} follows {previous}, but vLLM taps layers "
                    "sorted and once each, not as the drafter was trained.",
                    field=name,
                    code=vllm_codes.LAYER_IDS_UNORDERED,
                    fix="list each target layer once, in increasing order",
                    evidence="vllm/model_executor/models/interfaces.py: "
                    f"EagleModelMixin._set_aux_hidden_state_layers; {reader}",
                )
            ]
    top = None if target is None or target.num_layers is None else target.num_layers
    highest = None if top is None else top - shift
    if ids and (ids[0] < 0 or (top is not None and ids[-1] > top)):  # increasing: they bound
        for index, layer_id in enumerate(layer_id - shift for layer_id in ids):
            if layer_id < -shift or (highest is not None and layer_id > highest):
                return [
                    _out_of_range(
                        resolution.file_field(taps.field),
                        index=index,
                        layer_id=layer_id,
                        shift=shift,
                        top=top,
                        reader=reader,
                    )
                ]
    return []


def serving_list_warnings(taps: TappedLayers, resolution: Resolution) -> list[TargetLayersWarning]:
    """What vLLM serves, but not as the list reads (whole-number floats):

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
    minus_one = bool(taps.shift) and taps.shift - 1 in taps.ids  # an id the shift makes -1
    if not (taps.whole_floats or minus_one):
        return []  # the common case: nothing to say, so the list is never described
    name = resolution.file_field(taps.field)
    shown = describe_value(taps.value)
    warnings = []
    if taps.whole_floats:
        warnings.append(
            TargetLayersWarning(
                f"`{name}` = {shown} holds whole-number floats, which vLLM keeps as floats and "
                "taps as the same layers as the ints.",
                field=name,
                code=vllm_codes.LAYER_IDS_FLOATS,
                edit=ConfigEdit.set(name, [layer_id - taps.shift for layer_id in taps.ids]),
                fix="write the layer ids as ints",
                evidence="vllm/model_executor/models/interfaces.py: "
                "EagleModelMixin._maybe_add_hidden_state compares 9.0 == 9",
            )
        )
    if minus_one:
        warnings.append(
            TargetLayersWarning(
                f"`{name}` = {shown} holds -1, which vLLM taps as capture index 0, the "
                "target's embeddings rather than a layer's output.",
                field=name,
                code=vllm_codes.LAYER_ID_MINUS_ONE,
                evidence=CAPTURE_EVIDENCE,
            )
        )
    return warnings


def _out_of_range(
    name: str, *, index: int, layer_id: int, shift: int, top: int | None, reader: str
) -> ParallelDraftingConfigError:
    kind = "layer indices" if shift else "capture indices"
    lowest = -shift
    if top is None:
        where = f"below {lowest}, the lowest of the {kind}"  # no target: no upper bound
        fix = f"name {kind} from {lowest} up"
    else:
        where = f"outside the target's {kind} {lowest} to {top - shift}"
        fix = f"name {kind} of the target, {lowest} to {top - shift}"
    return ParallelDraftingConfigError(
        f"`{name}` item {index} = {layer_id} is {where}, so vLLM never captures it.",
        field=name,
        code=codes.LAYER_ID_OUT_OF_RANGE,
        fix=fix,
        evidence=f"{CAPTURE_EVIDENCE}; {reader}",
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
    blamed = newer.field if newer.field is not None else older.field
    return TargetLayersWarning(
        f"vLLM's newer runner taps {_describe(newer, resolution)} and its older one, which may "
        f"serve it too, {_describe(older, resolution)}.",
        field=None if blamed is None else resolution.file_field(blamed),
        code=vllm_codes.RUNNERS_DISAGREE_ON_LAYERS,
        fix="name the layers in the top-level `eagle_aux_hidden_state_layer_ids`, as "
        "capture indices, which both runners read first",
        evidence="vllm/config/vllm.py: the older runner serves DFlash with "
        "VLLM_USE_V2_MODEL_RUNNER=0 or a feature the newer lacks; "
        f"{RUNNER_EVIDENCE[Runner.NEWER]}; {RUNNER_EVIDENCE[Runner.OLDER]}",
    )


def _describe(taps: TappedLayers, resolution: Resolution) -> str:
    if taps.field is None:
        return "the target's defaults"
    name = resolution.file_field(taps.field)
    if taps.ids is None:
        return f"none, failing on `{name}`"
    return f"{list(taps.ids)} from `{name}`"


_LAYER_FIELDS: Final = _split(tuple(dict.fromkeys((*NEWER_RUNNER_FIELDS, *OLDER_RUNNER_FIELDS))))
"""Every field either runner's function reads, once each, in the functions' order (split,
:func:`_split`)."""


def _unread_list_notes(
    get: FieldGetter, read: list[TappedLayers], runners: list[Runner], resolution: Resolution
) -> list[str]:
    """A layer list vLLM never reads for this draft is at most a note: it is dead data, but
    another engine or trainer may read it."""
    sources: set[str] | None = None  # made for the first list set: most drafts set one
    notes: list[str] = []
    for path, section, key in _LAYER_FIELDS:
        value = (
            get(key, None) if section is None else read_field(get, section, key, only_dicts=True)
        )
        if value is None or not is_set(value):  # None first: most drafts set few of them
            continue
        if sources is None:
            sources = {resolution.file_field(t.field) for t in read if t.field is not None}
        name = resolution.file_field(path)
        if name in sources:
            continue
        whence = (
            f"which taps `{min(sources)}`"
            if sources
            else "which taps the target model's default layers"
        )
        notes.append(
            Note(
                f"`{name}` is not read by vLLM for this draft, {whence}.",
                code=vllm_codes.LAYER_NOT_READ,
                field=name,
                evidence="; ".join(RUNNER_EVIDENCE[runner] for runner in runners),
            )
        )
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
    omni_draft = QWEN3_OMNI_DSPARK in strings(get("architectures", None))
    if not (resolution.algorithm == "dspark" or omni_draft) or not _is_omni(target):
        return []
    name, value = OMNI_DSPARK_ORDER[-1], None
    for path in OMNI_DSPARK_ORDER:
        value = read_path(get, path, only_dicts=True)
        if value is not None:
            name = path
            break
    name = resolution.file_field(name)
    refused = "so vLLM refuses it for a Qwen3-Omni target"
    fix = "list target layer ids, each once, in increasing order"
    if target.num_layers is not None:
        fix += f", from 0 to {target.num_layers - 1}"
    evidence = "vllm/config/speculative.py: _validate_qwen3_omni_dspark raises ValueError"
    if not is_list(value) or not value:
        return [
            ParallelDraftingConfigError(
                f"`{name}` = {describe_value(value)} is not a non-empty list of layer ids, "
                f"{refused}.",
                field=name,
                code=vllm_codes.OMNI_LAYER_IDS_INVALID,
                fix=fix,
                evidence=evidence,
            )
        ]
    items = list(value)
    ids = [exact_int(item) for item in items]
    problem = None
    if any(layer_id is None for layer_id in ids):
        problem = "holds an id that is not an int"
    elif ids != sorted(set(ids)):  # type: ignore[type-var]  # all ints here
        problem = "is not unique and strictly increasing"
    elif target.num_layers is not None and not all(
        0 <= cast("int", i) < target.num_layers for i in ids
    ):
        problem = f"holds an id outside layers 0 to {target.num_layers - 1}"
    if problem is None:
        return []
    return [
        ParallelDraftingConfigError(
            f"`{name}` = {describe_value(value)} {problem}, {refused}.",
            field=name,
            code=vllm_codes.OMNI_LAYER_IDS_INVALID,
            fix=fix,
            evidence=evidence,
        )
    ]


def _is_omni(target: TargetFacts) -> bool:
    return target.model_type == QWEN3_OMNI_MODEL_TYPE or bool(
        QWEN3_OMNI_TARGETS & set(target.architectures)
    )


def is_omni_target(target: TargetFacts) -> bool:
    """Whether ``target`` is Qwen3-Omni (``_is_qwen3_omni_target`` in
    ``vllm/config/speculative.py``), for the launch rules (:mod:`.launch`)."""
    return _is_omni(target)


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
    fix = f"set `{to_set}` to the {_layers(draft_layers)} the drafter was trained on"
    evidence = (
        "vllm/model_executor/models/interfaces.py: "
        "SupportsEagle3.get_eagle3_default_aux_hidden_state_layers; "
        "vllm/model_executor/models/qwen3_dflash.py: _get_dflash_fc_input_size sizes fc for "
        "num_hidden_layers"
    )
    if target is None or target.num_layers is None:
        if draft_layers == len(default_layers(7)):
            return None
        return TargetLayersWarning(
            "No target layers are named, so vLLM taps 3 default layers of a target of 7 or more, "
            f"while fc is sized for `num_hidden_layers` = {draft_layers}.",
            field=to_set,
            code=vllm_codes.DEFAULT_LAYERS_MISMATCH,
            fix=fix,
            evidence=evidence,
        )
    defaults = default_layers(target.num_layers)
    if len(defaults) == draft_layers:
        return None
    expects = _features(get, None, draft_layers)
    received = _features(get, target, len(defaults))
    return ParallelDraftingConfigError(
        f"No target layers are named, so vLLM taps the defaults {list(defaults)} while fc is "
        f"sized for {draft_layers} layers, and fails at the first forward pass.",
        field=to_set,
        code=vllm_codes.DEFAULT_LAYERS_MISMATCH,
        fix=fix,
        evidence=f'{evidence}; combine_hidden_states raises "DFlash drafter expects {expects} '
        f'concatenated aux hidden features but received {received}"',
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
    architectures = strings(get("architectures", None))
    if architectures:
        if DFLASH_FC_ARCHITECTURES.isdisjoint(architectures):
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
    for path, section, key in _NUM_TARGET_LAYERS:
        value = (
            get(key, None) if section is None else read_field(get, section, key, only_dicts=True)
        )
        if value is None:
            continue
        name = resolution.file_field(path)
        count = exact_int(value)
        if count is None or count <= 0:
            warnings.append(
                TargetLayersWarning(
                    f"`{name}` = {describe_value(value)} is not a count of layers, which vLLM "
                    "ignores but trainers and other engines read.",
                    field=name,
                    code=vllm_codes.NUM_TARGET_LAYERS_NOT_COUNT,
                    fix=f"set `{name}` to a positive int, or remove it",
                    evidence=NOT_READ_EVIDENCE,
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
        name = resolution.file_field(TARGET_DEPTH_FIELD)
        warnings.append(
            TargetLayersWarning(
                f"`{name}` = {describe_value(value)} but the target has {depth} layers, so "
                "the draft may be for another target, though vLLM ignores the field.",
                field=name,
                code=vllm_codes.NUM_TARGET_LAYERS_NOT_DEPTH,
                fix="pair the draft with the target it was trained for",
                evidence=NOT_READ_EVIDENCE,
            )
        )
    return errors, warnings


def _count_fits_neither(
    name: str, count: int, depth: int | None, ids: tuple[int, ...] | None
) -> TargetLayersWarning:
    parts = [
        f"the target's depth, {depth}"
        if depth is not None
        else "the target's depth, as a layer id is at or above it"
    ]
    if ids is not None:
        parts.append(f"the tapped layer count, {len(ids)}")
    fits = f"neither {parts[0]}, nor {parts[1]}" if len(parts) == 2 else f"not {parts[0]}"
    return TargetLayersWarning(
        f"`{name}` = {count} is {fits}, which vLLM ignores but trainers and SGLang read.",
        field=name,
        code=vllm_codes.NUM_TARGET_LAYERS_UNEXPLAINED,
        fix=f"set `{name}` to the target's depth (z-lab's DFlash, SGLang) or the number of "
        "tapped layers (TorchSpec)",
        evidence=f"{NOT_READ_EVIDENCE}; z-lab's DFlash code and SGLang derive layer ids from "
        "it as the target's depth, TorchSpec reads it as the number of tapped layers",
    )


def _k3_dspark_error(get: FieldGetter) -> ParallelDraftingConfigError | None:
    """``K3DSparkConfig.__init__`` (``vllm/transformers_utils/configs/k3_dspark.py``) compares
    ``num_target_layers != len(target_layer_ids)``, which a whole-number float passes; then
    ``K3DSparkModel.__init__`` (``vllm/models/kimi_k3/nvidia/dspark_mla.py``) sizes
    ``context_proj``, a linear layer, ``target_hidden_size * num_target_layers`` wide, and a
    float size fails there."""
    ids = get("target_layer_ids", None)
    count = get("num_target_layers", None)
    if is_list(ids) and ids and exact_int(count) == len(ids):
        return None
    if is_list(ids) and ids and type(count) is float and count == len(ids):
        return ParallelDraftingConfigError(
            f"`num_target_layers` = {count!r} is a float, so vLLM's K3 DSpark model fails "
            "sizing its context projection at construction.",
            field="num_target_layers",
            code=vllm_codes.K3_NUM_TARGET_LAYERS_FLOAT,
            edit=ConfigEdit.set("num_target_layers", len(ids)),
            fix=f"set `num_target_layers` to the int {len(ids)}",
            evidence="vllm/models/kimi_k3/nvidia/dspark_mla.py: K3DSparkModel.__init__ sizes "
            "context_proj target_hidden_size * num_target_layers wide; "
            "vllm/transformers_utils/configs/k3_dspark.py: K3DSparkConfig.__init__ accepts "
            f"{count!r} == {len(ids)}",
        )
    return ParallelDraftingConfigError(
        f"`num_target_layers` = {describe_value(count)} is not the length of `target_layer_ids`"
        f" = {describe_value(ids)}, so vLLM refuses the K3 DSpark draft.",
        field="num_target_layers",
        code=vllm_codes.K3_LAYER_FIELDS_INVALID,
        fix="set `target_layer_ids` to the tapped layers and `num_target_layers` to their count",
        evidence="vllm/transformers_utils/configs/k3_dspark.py: K3DSparkConfig.__init__ raises "
        "ValueError",
    )
