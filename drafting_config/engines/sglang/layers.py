"""The target layers SGLang 0.5.23 taps for a draft, and the target class's capture hook.

Layer ids are reported in *capture indices*, the convention of the whole package: index
0 is the input of the target's first layer, ``i + 1`` the output of layer ``i``.  A
DFlash id ``i`` names the output of layer ``i``; SGLang's usual target class stores
``i + 1`` and records the input of layer ``i + 1`` (the same hidden state).  An
``L``-layer target has capture indices 0 to ``L``, but the Qwen2/Qwen3/Llama-family loops
never reach index ``L``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from drafting_config.engines.sglang import codes as sglang_codes
from drafting_config.engines.sglang.config import (
    DFlashDraft,
    SglangDraft,
    _unsupported,
    draft_class,
    sglang_algorithm,
    sglang_draft,
)
from drafting_config.engines.sglang.names import (
    BUNDLED_DRAFT,
    MUSE_LAYER_OUTPUT_DRAFTS,
    Algorithm,
    SglangRefuses,
)
from drafting_config.engines.sglang.tables import Hook, LastLayer, TargetClass, target_class
from drafting_config.rules.subject import Subject
from drafting_config.values import codes
from drafting_config.values.errors import (
    ParallelDraftingConfigError,
    TargetLayersWarning,
    bounded_repr,
)
from drafting_config.values.fields import FieldGetter
from drafting_config.values.findings import Findings
from drafting_config.values.integers import exact_int

# --- the tapped layers -------------------------------------------------------------------------

_DFLASH_UTILS: Final = "srt/speculative/dflash_utils.py"
_DFLASH_CLASS: Final = "srt/models/dflash.py: DFlashDraftModel.__init__"
_NAME_THE_LAYERS: Final = (
    "name the target layers the draft was trained on in `dflash_config.target_layer_ids`"
)


def build_target_layer_ids(num_target_layers: int, num_draft_layers: int) -> tuple[int, ...]:
    """``build_target_layer_ids`` (``dflash_utils.py``): the DFlash layer ids SGLang taps
    when the draft names none, one per draft layer: the middle layer for one, else evenly
    from 1 to ``L - 3``.

    Raises:
        SglangRefuses: a count below 1, or several draft layers on a target of fewer
            than 4 layers.
    """
    if num_target_layers <= 0 or num_draft_layers <= 0:
        raise SglangRefuses(
            f"SGLang derives the tapped layers from {bounded_repr(num_target_layers)} target "
            f"layers and {bounded_repr(num_draft_layers)} draft layers, and refuses a count "
            "below 1 at start-up.",
            code=sglang_codes.DERIVED_LAYERS_INVALID,
            fix=_NAME_THE_LAYERS,
            evidence=f"{_DFLASH_UTILS}: build_target_layer_ids raises ValueError",
        )
    if num_draft_layers == 1:
        return (num_target_layers // 2,)
    start, end = 1, num_target_layers - 3
    if end < start:
        raise SglangRefuses(
            "No target layers are named, and SGLang refuses at start-up to derive "
            f"{bounded_repr(num_draft_layers)} from a target of {bounded_repr(num_target_layers)} "
            "layers: it needs 4.",
            field="dflash_config.target_layer_ids",
            code=sglang_codes.DERIVED_LAYERS_INVALID,
            fix=_NAME_THE_LAYERS,
            evidence=f"{_DFLASH_UTILS}: build_target_layer_ids raises ValueError",
        )
    span = end - start
    return tuple(
        round(start + (i * span) / (num_draft_layers - 1)) for i in range(num_draft_layers)
    )


MAX_DERIVED_LAYERS: Final = 4096
"""The most layer ids the checker derives for a draft naming none (one per draft layer, as
SGLang derives them): far above any published model's depth, so that no list the checker
builds grows with a count read from a config; above it the tapped layers are not judged."""


@dataclass(frozen=True)
class RuntimeLayers:
    """The DFlash layer ids SGLang's target worker taps (before the target class's hook)."""

    ids: tuple[int, ...] | None
    """The ids; ``None`` when a derived list would exceed :data:`MAX_DERIVED_LAYERS`."""
    field: str | None
    """The field they came from, as the draft's config names it; ``None`` when derived."""
    derived_from: int | None = None
    """The target depth they were derived from (:func:`build_target_layer_ids`)."""


def resolve_target_layer_ids(
    draft: DFlashDraft, target_num_layers: int, draft_num_layers: int
) -> RuntimeLayers:
    """``DFlashDraftConfig.resolve_target_layer_ids`` (``dflash_utils.py``): the named
    list, each id in ``[0, L)``, else the list derived from the depth ``L``.

    Raises:
        SglangRefuses: an id out of range, or no list and too shallow a depth.
    """
    if draft.target_layer_ids is None:
        distinct = target_num_layers - 3  # build_target_layer_ids spreads ids over [1, L - 3]
        if draft_num_layers > 1 and 1 <= distinct < draft_num_layers:
            raise SglangRefuses(
                f"`num_hidden_layers` = {bounded_repr(draft_num_layers)} with no layers named: "
                f"SGLang's ids over layers 1 to {bounded_repr(distinct)} of the target's "
                f"{bounded_repr(target_num_layers)} repeat, failing the first forward pass.",
                field="num_hidden_layers",
                code=sglang_codes.DERIVED_LAYERS_INVALID,
                fix=_NAME_THE_LAYERS,
                evidence=f"{_DFLASH_UTILS}: build_target_layer_ids; the target captures each "
                "layer once, so fc gets fewer features than it is sized for",
            )
        if draft_num_layers > MAX_DERIVED_LAYERS:
            return RuntimeLayers(None, None, target_num_layers)
        derived = build_target_layer_ids(target_num_layers, draft_num_layers)
        return RuntimeLayers(derived, None, target_num_layers)
    field = draft.target_layer_ids_field
    for layer_id in draft.target_layer_ids:
        if not 0 <= layer_id < target_num_layers:
            raise SglangRefuses(
                f"`{field}` names layer {bounded_repr(layer_id)}, outside "
                f"[0, {bounded_repr(target_num_layers - 1)}] of a {bounded_repr(target_num_layers)}"
                "-layer target: SGLang refuses the draft at start-up.",
                field=field,
                code=codes.LAYER_ID_OUT_OF_RANGE,
                fix=f"name only target layers 0 to {bounded_repr(target_num_layers - 1)} in "
                f"`{field}`, or check that the draft is for this target",
                evidence=f"{_DFLASH_UTILS}: DFlashDraftConfig.resolve_target_layer_ids raises "
                "ValueError",
            )
    return RuntimeLayers(draft.target_layer_ids, field)


def target_depth(num_hidden_layers: int, num_loops: object) -> int:
    """The depth SGLang's target worker uses: ``num_hidden_layers * num_loops`` for loop
    models (``_resolve_dflash_aux_hidden_state``; ``num_loops`` default 1)."""
    loops = num_loops if isinstance(num_loops, int) and not isinstance(num_loops, bool) else 1
    return num_hidden_layers * max(loops, 1)


def class_target_layers(draft: DFlashDraft) -> int:
    """The target depth SGLang's DFlash draft class sizes ``fc`` by
    (``srt/models/dflash.py: DFlashDraftModel.__init__``): ``num_target_layers``, else one
    past the highest named id, else the draft's own ``num_hidden_layers``."""
    if draft.num_target_layers is not None:
        return draft.num_target_layers
    if draft.target_layer_ids is not None:
        return max(draft.target_layer_ids) + 1
    return draft.num_hidden_layers or 1


EAGLE_LAYER_IDS_FIELD: Final = "eagle_config.eagle_aux_hidden_state_layer_ids"


def eagle_layer_ids(get: FieldGetter) -> tuple[bool, object]:
    """``_resolve_eagle_aux_hidden_state`` (``spec_aux_hidden_state.py``): whether the
    target captures aux hidden states (``eagle_config.use_aux_hidden_state``, default
    true), and ``eagle_config["eagle_aux_hidden_state_layer_ids"]`` as found (``None``
    when absent: any failure to read it gives ``None``).  The top level is never read."""
    section = get("eagle_config", None)
    if section is None:
        return True, None
    if not isinstance(section, dict):
        return True, None
    use = section.get("use_aux_hidden_state", True)
    return bool(use), section.get("eagle_aux_hidden_state_layer_ids")


def hook_for(cls: TargetClass, algorithm: Algorithm) -> Hook | None:
    """The hook ``configure_aux_hidden_state_capture`` calls: DSPARK's own when the class
    has one, else the DFlash hook; EAGLE3's hook for EAGLE3."""
    if algorithm is Algorithm.EAGLE3:
        return cls.eagle3
    if algorithm is Algorithm.DSPARK and cls.dspark is not None:
        return cls.dspark
    return cls.dflash


def capture_indices(
    hook: Hook | None, ids: tuple[int, ...], *, depth: int | None, muse_mapped: bool = False
) -> tuple[int, ...] | None:
    """The capture indices a hook records for layer ids (``None`` when unresolved): see
    :class:`Hook`.  Without a target class (``hook=None``) the common ``+1``."""
    if hook in (None, Hook.PLUS_ONE, Hook.AS_GIVEN):
        return tuple(i + 1 for i in ids)
    if hook is Hook.BEFORE or (hook is Hook.MUSE and not muse_mapped):
        return ids
    if hook is Hook.MUSE:
        return tuple(i + 1 for i in ids)
    if hook is Hook.FIRST_IS_ONE:
        return tuple(i + 1 for i in ids) if ids and ids[0] == 1 else ids
    if hook is Hook.MAX_IS_DEPTH and depth is not None:
        return ids if ids and max(ids) == depth else tuple(i + 1 for i in ids)
    return None


def eagle3_default_layers(num_layers: int) -> tuple[int, ...]:
    """The capture indices an EAGLE-3 hook records without ids: ``[2, L // 2, L - 3]``,
    unshifted (``srt/models/qwen3.py: Qwen3ForCausalLM.set_eagle3_layers_to_capture``)."""
    return (2, num_layers // 2, num_layers - 3)


# --- the tapped layers -------------------------------------------------------------------------


@dataclass(frozen=True)
class SglangLayers:
    """The capture indices SGLang taps, and where they came from."""

    ids: tuple[int, ...] | None
    source: str | None
    """The draft's field; for a derived list, ``"derived from the target's depth L"``."""


def _dspark_list(parsed: SglangDraft) -> bool:
    """Whether DSPARK replaces the DFlash list with ``dspark_target_layer_ids``."""
    dspark = parsed.dspark
    return dspark is not None and dspark.target_layer_ids_field == "dspark_target_layer_ids"


def sglang_layers(subject: Subject) -> SglangLayers:  # noqa: PLR0911
    """The capture indices SGLang's target class records for the draft (see
    :mod:`drafting_config.engines.sglang` for the convention), knowing the target when
    given; ``(None, None)`` when they cannot be known.

    Raises:
        SglangRefuses: SGLang refuses the list (a range check).
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    algorithm = sglang_algorithm(subject)
    if algorithm is Algorithm.EAGLE3 and _unsupported(subject) is None:
        return _eagle3_layers(subject)
    parsed = sglang_draft(subject)
    if parsed is None:
        return SglangLayers(None, None)
    target = subject.target
    depth = None if target is None or target.num_layers is None else target.num_layers
    cls = _target_hooks(subject)
    hook = None if cls is None else hook_for(cls, parsed.algorithm)
    if parsed.dspark is not None and _dspark_list(parsed):
        ids = parsed.dspark.target_layer_ids
        assert ids is not None
        return SglangLayers(capture_indices(hook, ids, depth=depth), "dspark_target_layer_ids")
    draft = parsed.dflash
    if depth is None:
        if draft.target_layer_ids is None:
            return SglangLayers(None, None)
        ids = capture_indices(hook, draft.target_layer_ids, depth=None)
        return SglangLayers(ids, draft.target_layer_ids_field)
    runtime_depth = target_depth(depth, target.num_loops if target is not None else None)
    layers = resolve_target_layer_ids(draft, runtime_depth, draft.num_hidden_layers or 1)
    mapped = (
        hook is Hook.MUSE
        and target is not None
        and target.model_type == "muse_glimmer"
        and draft_class(subject.get) in MUSE_LAYER_OUTPUT_DRAFTS
        and parsed.dspark is None
    )
    if layers.ids is None:
        return SglangLayers(None, None)
    ids = capture_indices(hook, layers.ids, depth=runtime_depth, muse_mapped=mapped)
    if layers.field is None:
        return SglangLayers(ids, f"derived from the target's depth {bounded_repr(runtime_depth)}")
    return SglangLayers(ids, layers.field)


def _eagle3_layers(subject: Subject) -> SglangLayers:
    use, raw = eagle_layer_ids(subject.get)
    target = subject.target
    depth = None if target is None else target.num_layers
    if not use:
        return SglangLayers(None, None)
    if raw is None:
        if depth is None:
            return SglangLayers(None, None)
        return SglangLayers(
            eagle3_default_layers(depth), f"the target's defaults (depth {bounded_repr(depth)})"
        )
    ids = _ints(raw)
    if ids is None:
        return SglangLayers(None, None)
    cls = _target_hooks(subject)
    hook = Hook.PLUS_ONE if cls is None else cls.eagle3
    return SglangLayers(capture_indices(hook, ids, depth=depth), EAGLE_LAYER_IDS_FIELD)


def _ints(value: object) -> tuple[int, ...] | None:
    if not isinstance(value, (list, tuple)):
        return None
    ids = [exact_int(item) for item in value]
    return None if any(i is None for i in ids) else tuple(i for i in ids if i is not None)


def _target_hooks(subject: Subject) -> TargetClass | None:
    target = subject.target
    if target is None:
        return None
    found = target_class(target.architectures)
    return None if found is None else found[1]


def check_sglang_layers(subject: Subject, found: Findings) -> None:
    """SGLang's layer rules, against the target when given.

    * The runtime list: the draft's (``dflash_config.target_layer_ids``, else
      ``target_layer_ids``), each id in ``[0, L)``, or derived from the target's depth
      ``L`` (``num_hidden_layers * num_loops``) when none is named
      (``DFlashDraftConfig.resolve_target_layer_ids``, ``build_target_layer_ids`` in
      ``srt/speculative/dflash_utils.py``; ``_resolve_dflash_aux_hidden_state``).
    * The draft class sizes ``fc`` by its own reading: ``num_target_layers`` as the
      target's depth, else one past the highest id, else its ``num_hidden_layers``
      (``srt/models/dflash.py: DFlashDraftModel.__init__``): an id at or above
      ``num_target_layers`` raises there, and a count that differs from the runtime
      list's fails the first forward pass ("DFLASH target_hidden feature dim mismatch").
    * The target class must have a capture hook for the algorithm
      (``attention_backend_setup.py: configure_aux_hidden_state_capture``); Qwen3-VL
      dense and Cosmos3 hooks fail with AttributeError.
    * Id ``L - 1`` on a class that never captures index ``L`` (Qwen2/Qwen3/Llama loops:
      one feature short), or whose setter raises on it (Qwen3-MoE, Qwen3-Next, Qwen3.5).
    * ``fc`` is ``len(ids) * hidden_size`` of the draft (``target_hidden_size`` is not
      read), so the draft's ``hidden_size`` must be the target's.
    * EAGLE-3 reads ``eagle_config.eagle_aux_hidden_state_layer_ids`` only
      (``_resolve_eagle_aux_hidden_state``): a top-level list is not read (a warning).

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    algorithm = sglang_algorithm(subject)
    if algorithm is None or _unsupported(subject) is not None:
        return
    target = subject.target
    if algorithm is Algorithm.EAGLE3:
        _eagle3_findings(subject, found)
    else:
        try:
            parsed = sglang_draft(subject)
        except SglangRefuses:
            return  # check_sglang_config reports it
        if parsed is None:
            return
        if parsed.algorithm is Algorithm.DFLASH:
            _class_derivation_findings(parsed.dflash, found)
        negative = _class_count_findings(parsed.dflash, subject, found)
        layers = SglangLayers(None, None)
        try:
            layers = sglang_layers(subject)
        except SglangRefuses as error:
            if not (negative and _runtime_refuses_first(parsed.dflash, subject, negative)):
                found.error(error)  # else the same negative id, reported just above
        if target is not None and target.num_layers is not None:
            _last_layer_findings(subject, parsed, found)
        if layers.ids is not None and negative is None:  # else refused before capturing
            _capture_order_findings(layers, found)
            _class_vs_runtime(
                parsed, layers, found, bundled=draft_class(subject.get) == BUNDLED_DRAFT
            )
    if target is None:
        return
    _hook_findings(subject, algorithm, found)
    hidden = exact_int(subject.get("hidden_size", None))
    if (
        algorithm is not Algorithm.EAGLE3
        and hidden is not None
        and target.hidden_size is not None
        and hidden != target.hidden_size
    ):
        found.error(
            ParallelDraftingConfigError(
                f"`hidden_size` = {bounded_repr(hidden)}, but the target's is "
                f"{bounded_repr(target.hidden_size)}: SGLang sizes fc by the draft's own, so the "
                "first forward pass fails.",
                field="hidden_size",
                code=codes.HIDDEN_SIZE_MISMATCH,
                evidence=f"{_DFLASH_CLASS} sizes fc by hidden_size (target_hidden_size is not "
                "read); the forward pass raises 'DFLASH target_hidden feature dim mismatch'",
            )
        )


def _class_derivation_findings(draft: DFlashDraft, found: Findings) -> None:
    """A DFlash draft naming neither layers nor ``num_target_layers``: the draft class
    sizes ``fc`` by ``resolve_target_layer_ids(target_num_layers=num_layers,
    draft_num_layers=num_layers)`` (``srt/models/dflash.py: DFlashDraftModel.__init__``),
    that is ``build_target_layer_ids(n, n)`` (``srt/speculative/dflash_utils.py``), which
    raises ValueError for 2 or 3 draft layers (it needs a depth of at least 4), whatever
    the target."""
    layers = draft.num_hidden_layers
    if draft.target_layer_ids is not None or draft.num_target_layers is not None:
        return
    if layers is None or layers not in (2, 3):
        return
    found.error(
        ParallelDraftingConfigError(
            "Neither layers nor `num_target_layers` is named: SGLang's draft class derives layers "
            f"from its own depth, {layers}, and refuses it at start-up.",
            field="num_target_layers",
            code=sglang_codes.DFLASH_CLASS_DERIVES_LAYERS,
            fix="set `dflash_config.target_layer_ids` to the layers the draft was trained on, "
            "or `num_target_layers` to the target's num_hidden_layers",
            evidence=f"{_DFLASH_CLASS} calls build_target_layer_ids({layers}, {layers}), "
            "which raises ValueError below a depth of 4",
        )
    )


def _class_count_findings(draft: DFlashDraft, subject: Subject, found: Findings) -> int | None:
    """The draft class's own range check, against ``num_target_layers`` or its stand-ins
    (``srt/models/dflash.py: DFlashDraftModel.__init__`` raises ValueError).  A negative id
    is the list's fault, not the depth's: it is blamed on the layer-id field, and returned
    (else ``None``)."""
    depth = class_target_layers(draft)
    if draft.target_layer_ids is None:
        return None
    for layer_id in draft.target_layer_ids:
        if layer_id < 0:
            ids_field = draft.target_layer_ids_field or "dflash_config.target_layer_ids"
            counted = depth + layer_id if draft.num_target_layers is not None else None
            fix = (
                f"replace {layer_id} with {counted}, the same layer counted from 0"
                if counted is not None and counted >= 0
                else "name each target layer by its index counted from 0"
            )
            found.error(
                ParallelDraftingConfigError(
                    f"`{ids_field}` holds the negative layer id {bounded_repr(layer_id)}, which "
                    "SGLang refuses at start-up: it counts layers from 0, never from the end.",
                    field=ids_field,
                    code=codes.LAYER_ID_OUT_OF_RANGE,
                    fix=fix,
                    evidence=f"{_DFLASH_CLASS} raises ValueError",
                )
            )
            return layer_id
        if layer_id >= depth:
            field = draft.num_target_layers_field or "num_target_layers"
            found.error(
                ParallelDraftingConfigError(
                    f"`{field}` = {bounded_repr(depth)} is read by SGLang's draft class as the "
                    f"target's depth, so it refuses layer id {bounded_repr(layer_id)} at start-up.",
                    field=field,
                    code=codes.LAYER_ID_OUT_OF_RANGE,
                    fix="set `num_target_layers` to the target's num_hidden_layers, or remove it",
                    evidence=f"{_DFLASH_CLASS} raises ValueError",
                )
            )
            return None
    return None


def _runtime_refuses_first(draft: DFlashDraft, subject: Subject, negative: int) -> bool:
    """Whether the target worker's range check (:func:`resolve_target_layer_ids`) refuses
    ``negative`` first, the id the draft class's check reported: the same fact."""
    target = subject.target
    if draft.target_layer_ids is None or target is None or target.num_layers is None:
        return False
    depth = target_depth(target.num_layers, target.num_loops)
    first = next((i for i in draft.target_layer_ids if not 0 <= i < depth), None)
    return first == negative


def _capture_order_findings(layers: SglangLayers, found: Findings) -> None:
    """Repeated or decreasing ids: SGLang's target models capture inside their layer loop
    (``srt/models/qwen2.py`` and the others: ``capture_output=... if i in
    self.layers_to_capture``), so each layer once, in layer order.  A repeat gives fc
    fewer features than it is sized for (the first forward pass fails); a decreasing list
    feeds them in another order than the draft was trained on (silently wrong drafts)."""
    ids = layers.ids
    if ids is None or (len(set(ids)) == len(ids) and list(ids) == sorted(ids)):
        return
    repeated = len(set(ids)) != len(ids)
    what = (
        "repeats a layer: fc gets too few features and the first forward pass fails"
        if repeated
        else "is not increasing: fc gets the features in layer order, not the draft's"
    )
    source = layers.source
    derived = f" ({source})" if source is not None and source.startswith("derived") else ""
    found.error(
        ParallelDraftingConfigError(
            f"SGLang's tapped list {bounded_repr(list(ids))}{derived} {what}.",
            field=source if source is not None and not source.startswith("derived") else None,
            code=sglang_codes.LAYERS_CAPTURED_IN_ORDER,
            fix="name each target layer once, in increasing order, as the draft was trained",
            evidence="srt/models/qwen2.py and the other target models: the layer loop captures "
            "each layer once, `if i in self.layers_to_capture`",
        )
    )


def _class_vs_runtime(
    parsed: SglangDraft, layers: SglangLayers, found: Findings, *, bundled: bool
) -> None:
    """The draft class sizes ``fc`` for one count (``srt/models/dflash.py:
    DFlashDraftModel.__init__``, which SGLang's DSpark classes extend; DeepSeek-V4's bundled
    head, ``DeepseekV4ForCausalLMDSpark``, sizes by DSpark's list); the target worker taps
    another."""
    draft = parsed.dflash
    if parsed.dspark is not None and bundled:
        # srt/models/deepseek_v4_dspark.py: DeepseekV4ForCausalLMDSpark.__init__ sizes its
        # main_proj by DSpark's own list (the dspark_-prefixed one first), else by
        # num_target_layers, else by num_hidden_layers.
        ids = parsed.dspark.target_layer_ids
        if ids is not None:
            class_count = len(ids)
        else:
            class_count = draft.num_target_layers or draft.num_hidden_layers or 1
    elif draft.target_layer_ids is not None:
        class_count = len(draft.target_layer_ids)
    else:
        class_count = draft.num_hidden_layers or 1
    assert layers.ids is not None
    if len(layers.ids) != class_count:
        field = layers.source if layers.source in ("dspark_target_layer_ids",) else None
        found.error(
            ParallelDraftingConfigError(
                f"SGLang taps {bounded_repr(len(layers.ids))} target layers ({layers.source}) but "
                f"its draft class sizes fc for {bounded_repr(class_count)}: the first forward "
                "pass fails.",
                field=field,
                code=codes.TAPPED_WIDTH_MISMATCH,
                fix=None
                if field is None
                else f"name {bounded_repr(class_count)} layers in `{field}`, as fc is sized for",
                evidence=f"{_DFLASH_CLASS} sizes fc; the forward pass raises 'DFLASH "
                "target_hidden feature dim mismatch'",
            )
        )


def _last_layer_findings(subject: Subject, parsed: SglangDraft, found: Findings) -> None:
    target = subject.target
    assert target is not None
    assert target.num_layers is not None
    cls = _target_hooks(subject)
    draft = parsed.dflash
    if cls is None or draft.target_layer_ids is None:
        return
    if (
        parsed.dspark is not None
        and parsed.dspark.target_layer_ids_field == "dspark_target_layer_ids"
    ):
        return
    last = target.num_layers - 1
    if last not in draft.target_layer_ids:
        return
    name = target.architectures[0]
    field = draft.target_layer_ids_field
    if cls.last_layer is LastLayer.NEVER:
        found.error(
            ParallelDraftingConfigError(
                f"`{field}` names the last layer, {bounded_repr(last)}, which SGLang's {name} "
                "never captures: the forward pass fails.",
                field=field,
                code=sglang_codes.LAST_LAYER_NEVER_CAPTURED,
                fix=_SERVE_WITH_VLLM,
                evidence=f"srt/models/: {name} adds 1 and captures before layer "
                f"{bounded_repr(last + 1)}, inside its layer loop only, which never reaches it",
            )
        )
    elif cls.last_layer in (LastLayer.INDEX_ERROR, LastLayer.VALUE_ERROR):
        found.error(
            ParallelDraftingConfigError(
                f"`{field}` names the target's last layer, {bounded_repr(last)}, which SGLang's "
                f"{name} refuses at start-up.",
                field=field,
                code=sglang_codes.LAST_LAYER_REFUSED,
                fix=_SERVE_WITH_VLLM,
                evidence=f"srt/models/: {name}.set_dflash_layers_to_capture raises "
                f"{cls.last_layer.value}",
            )
        )


_SERVE_WITH_VLLM: Final = "serve it with vLLM, which captures the target's last layer"
_CAPTURE_SETUP: Final = (
    "srt/model_executor/model_runner_components/attention_backend_setup.py: "
    "configure_aux_hidden_state_capture"
)


def _hook_findings(subject: Subject, algorithm: Algorithm, found: Findings) -> None:
    target = subject.target
    assert target is not None
    found_class = target_class(target.architectures)
    if found_class is None:
        return
    name, cls = found_class
    hook = None if cls is None else hook_for(cls, algorithm)
    if hook is None:
        found.error(
            ParallelDraftingConfigError(
                f"The target's class {name} has no {algorithm.value} capture hook in SGLang, "
                "which refuses it at start-up.",
                field="target.architectures",
                code=codes.TARGET_NOT_TAPPABLE,
                evidence=f"{_CAPTURE_SETUP} raises: {name} has no "
                f"set_{'eagle3' if algorithm is Algorithm.EAGLE3 else 'dflash'}"
                "_layers_to_capture",
            )
        )
    elif hook is Hook.BROKEN:
        found.error(
            ParallelDraftingConfigError(
                f"The target's class {name} has a broken DFlash hook in SGLang, which raises "
                "AttributeError at start-up.",
                field="target.architectures",
                code=sglang_codes.TARGET_HOOK_BROKEN,
                evidence=f"srt/models/: {name}.set_dflash_layers_to_capture calls a method its "
                "language model lacks (AttributeError)",
            )
        )


def _eagle3_findings(subject: Subject, found: Findings) -> None:
    get = subject.get
    top = get("eagle_aux_hidden_state_layer_ids", None)
    _, nested = eagle_layer_ids(get)
    if top is not None and nested is None:
        found.warn(
            TargetLayersWarning(
                "`eagle_aux_hidden_state_layer_ids` is set at the top level, where SGLang does "
                "not read it, so it taps the target's defaults.",
                field="eagle_aux_hidden_state_layer_ids",
                code=sglang_codes.EAGLE_LAYER_IDS_MISPLACED,
                fix=f"copy the list into `{EAGLE_LAYER_IDS_FIELD}` (SGLang's target classes "
                "add 1 to each id)",
                evidence="srt/model_executor/model_runner_components/spec_aux_hidden_state.py: "
                "_resolve_eagle_aux_hidden_state reads eagle_config only",
            )
        )
