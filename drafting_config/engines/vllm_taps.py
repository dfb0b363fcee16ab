"""Which target layers a drafter taps, resolved as vLLM 0.33's model runners resolve them.

A drafter fed the target's hidden states (DFlash, DSpark, EAGLE-3 with parallel
drafting) names the target layers it taps in one of several fields.  vLLM
reads them through a priority chain as hand-written as the token-id chain, and
its two model runners read different chains:

* the newer runner: ``get_eagle3_aux_layers_from_config`` in
  ``vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py``
  (:data:`NEWER_RUNNER_CHAIN`);
* the older runner: ``GPUModelRunner._get_eagle3_aux_layers_from_config`` in
  ``vllm/v1/worker/gpu_model_runner.py`` (:data:`OLDER_RUNNER_CHAIN`).

Each chain is written once, here, as data: a tuple of :class:`TapStep` rows,
and :func:`tapped_layers` is the one interpreter of both.  Which runner serves
a draft depends on its method (``vllm/config/vllm.py``,
``_get_v2_model_runner_unsupported_features`` and
``_get_v1_model_runner_unsupported_features``): the newer runner has no parallel
drafting for EAGLE (P-EAGLE, PTD) and the older one no DSpark; DFlash runs on
either (:data:`RUNNER_OF_METHOD`).

The result is in *capture indices*: vLLM's decoder models record a hidden state
at index 0 (the input of the first layer) and at ``i + 1`` (the output of layer
``i``), so an L-layer target has capture indices 0 to L
(``vllm/model_executor/models/llama.py``, ``LlamaModel.forward``).  Fields in
DFlash's layer-index convention are shifted by one on the way
(:attr:`TapStep.adds_one`).  vLLM sorts and de-duplicates the result only later
(``EagleModelMixin._set_aux_hidden_state_layers`` in
``vllm/model_executor/models/interfaces.py``); this module does neither.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType
from typing import Final, cast

from drafting_config.values.errors import describe_value
from drafting_config.values.fields import FieldGetter, field_getter
from drafting_config.values.integers import exact_int

__all__ = [
    "NEWER_RUNNER_CHAIN",
    "NEWER_RUNNER_ONLY_ARCHITECTURES",
    "OLDER_RUNNER_CHAIN",
    "RUNNER_OF_METHOD",
    "RUNS_ON_EITHER_RUNNER",
    "Runner",
    "TapStep",
    "TappedLayers",
    "chain_of",
    "newer_runner_only",
    "runner_of",
    "tapped_layers",
]


class Runner(str, enum.Enum):
    """One of vLLM 0.33's two GPU model runners."""

    NEWER = "newer"
    """Model Runner V2 (``vllm/v1/worker/gpu/``), vLLM's default where it supports the
    draft's method."""

    OLDER = "older"
    """Model Runner V1 (``vllm/v1/worker/gpu_model_runner.py``)."""


@dataclass(frozen=True)
class TapStep:
    """One step of a runner's chain: a field that can name the tapped layers."""

    field: str
    """The field's path in the draft's HF config: a top-level key, or ``section.key``
    where vLLM reads ``key`` only when ``section`` is a non-empty ``dict``."""

    adds_one: bool
    """vLLM adds 1 to each id (the field holds layer indices, 0 to L - 1); otherwise the
    ids are capture indices used as given (0 to L)."""

    as_given_for_model_type: str | None = None
    """When the draft's ``model_type`` is this, the ids are used as given after all
    (``dspark_target_layer_ids`` of a DeepSeek-V4.1 target)."""

    overrides: bool = False
    """The older runner's last step: it runs whenever the chain's first step found
    nothing, and replaces whatever the steps since found, even with a missing value.
    Every other step runs only while the value found so far is empty or falsy."""

    @cached_property  # read for every step of every chain run: split the path once
    def section(self) -> str | None:
        """The nested section holding the field, or ``None`` at top level."""
        section, _, _ = self.field.rpartition(".")
        return section or None

    @cached_property
    def key(self) -> str:
        """The field's own name inside its section."""
        return self.field.rpartition(".")[2]


NEWER_RUNNER_CHAIN: Final = (
    TapStep("eagle_aux_hidden_state_layer_ids", adds_one=False),
    TapStep("dflash_config.target_layer_ids", adds_one=True),
    TapStep("dspark_target_layer_ids", adds_one=True, as_given_for_model_type="deepseek_v41"),
    TapStep("target_layer_ids", adds_one=True),
    TapStep("dflash_config.layer_ids", adds_one=False),
    TapStep("eagle_config.layer_ids", adds_one=False),
)
"""The newer runner's chain, highest priority first (``get_eagle3_aux_layers_from_config``
in ``vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py``).  The first step whose
value is truthy ends it."""

OLDER_RUNNER_CHAIN: Final = (
    TapStep("eagle_aux_hidden_state_layer_ids", adds_one=False),
    TapStep("dflash_config.target_layer_ids", adds_one=True),
    TapStep("eagle_config.eagle_aux_hidden_state_layer_ids", adds_one=False, overrides=True),
)
"""The older runner's chain (``_get_eagle3_aux_layers_from_config`` in
``vllm/v1/worker/gpu_model_runner.py``): the last step replaces the second's result
whenever ``eagle_config`` is a non-empty dict."""

_CHAINS: Final = MappingProxyType(
    {Runner.NEWER: NEWER_RUNNER_CHAIN, Runner.OLDER: OLDER_RUNNER_CHAIN}
)

RUNNER_OF_METHOD: Final[Mapping[str, Runner | None]] = MappingProxyType(
    {
        "dflash": Runner.NEWER,
        "dflash2": Runner.NEWER,
        "dspark": Runner.NEWER,
        "ptd": Runner.OLDER,
        "peagle": Runner.OLDER,
        "pard": None,
    }
)
"""The runner that serves each drafting method (the resolver's ``algorithm`` labels;
``None``: the drafter takes no hidden states).  From ``vllm/config/vllm.py``: the newer
runner lacks "parallel drafting for EAGLE speculative decoding" (PTD, P-EAGLE) and the
older one "dspark speculative decoding"; DFlash2's candidate heads exist only in the
newer one.  A method not listed (``None`` included) is served by the newer runner,
vLLM's default."""

RUNS_ON_EITHER_RUNNER: Final = frozenset({"dflash"})
"""Methods vLLM serves with either runner (``VLLM_USE_V2_MODEL_RUNNER=0``, or a feature
the newer one lacks, selects the older), so both chains matter, unless the draft is one
the older runner refuses (:func:`newer_runner_only`)."""

NEWER_RUNNER_ONLY_ARCHITECTURES: Final = frozenset(
    {"DFlash2DraftModel", "DFlash2BeamDraftModel", "LiLiCorrDraftModel"}
)
"""DFlash drafts with a candidate head, which the older runner refuses ("DFlash
candidate-head drafts", ``_is_dflash_candidate_draft`` in ``vllm/config/vllm.py``)."""


SLIDING_ATTENTION: Final = "sliding_attention"
"""The ``layer_types`` entry of a sliding-window layer."""


def newer_runner_only(get: FieldGetter) -> bool:
    """Whether vLLM serves this DFlash draft with the newer runner only, so the older
    runner's chain never applies (``_get_v1_model_runner_unsupported_features`` in
    ``vllm/config/vllm.py``):

    * a candidate-head architecture (:data:`NEWER_RUNNER_ONLY_ARCHITECTURES`,
      ``_is_dflash_candidate_draft``);
    * ``layer_types`` mixing sliding-window and full attention, which needs several KV
      cache groups (``_dflash_needs_multi_kv_group``: some but not all entries are
      ``"sliding_attention"``).  Only a list is read: vLLM counts a string's characters
      and a dict's keys, none of which is ``"sliding_attention"``.

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all (a property that raises).
    """
    architectures = get("architectures", None)
    if issubclass(type(architectures), (list, tuple)) and any(
        type(name) is str and name in NEWER_RUNNER_ONLY_ARCHITECTURES
        for name in cast("list[object] | tuple[object, ...]", architectures)
    ):
        return True
    layer_types = get("layer_types", None)
    if not issubclass(type(layer_types), (list, tuple)):
        return False
    kinds = cast("list[object] | tuple[object, ...]", layer_types)
    sliding = sum(1 for kind in kinds if type(kind) is str and kind == SLIDING_ATTENTION)
    return 0 < sliding < len(kinds)


def runner_of(method: str | None) -> Runner | None:
    """The runner serving ``method`` (see :data:`RUNNER_OF_METHOD`); ``None`` for PARD."""
    if method is None:
        return Runner.NEWER
    return RUNNER_OF_METHOD.get(method, Runner.NEWER)


def chain_of(runner: Runner) -> tuple[TapStep, ...]:
    """The chain ``runner`` reads."""
    return _CHAINS[runner]


@dataclass(frozen=True)
class TappedLayers:
    """What one runner's chain makes of a draft's config."""

    ids: tuple[int, ...] | None
    """The capture indices exactly as the runner's function returns them (unsorted,
    repeats kept), or ``None`` when it returns ``None`` (no field names layers: vLLM
    then taps the target model's default layers) or when :attr:`problem` is set."""

    step: TapStep | None
    """The step the runner took its value from, or ``None`` when no field was set."""

    value: object = None
    """The raw value of :attr:`step`'s field."""

    shift: int = 0
    """What vLLM added to each id of :attr:`step`'s field (``1`` for layer indices)."""

    problem: str | None = None
    """Why :attr:`ids` is ``None`` although a field was set: vLLM's function would raise,
    return values that are not ints, or stop at a value that is not a list (and then tap
    the target's default layers).  A sentence about the value, without the field's name."""

    @property
    def field(self) -> str | None:
        """The field the ids came from (or that broke the chain), as vLLM read it."""
        return None if self.step is None else self.step.field


class _Raises(Exception):
    """vLLM's function raises here: ``problem`` says why."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


@dataclass(frozen=True)
class _NotAnInt:
    """An item vLLM shifts without raising although it is no int (a bool, a float)."""

    item: object


def tapped_layers(
    get: FieldGetter, chain: tuple[TapStep, ...], *, model_type: object = None
) -> TappedLayers:
    """Run ``chain`` over a draft's config the way the runner's function does.

    Args:
        get: the config's field reader (see :func:`drafting_config.values.fields.field_getter`);
            for a speculators file, the reader of the HF config vLLM derives from it.
        chain: :data:`NEWER_RUNNER_CHAIN` or :data:`OLDER_RUNNER_CHAIN`.
        model_type: the ``model_type`` vLLM sees on the draft (see
            :attr:`TapStep.as_given_for_model_type`); the config's own by default.

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all (a property that raises).
    """
    if model_type is None:
        model_type = get("model_type", None)
    found: object = None  # the value vLLM holds so far
    taken: TapStep | None = None
    taken_raw: object = None
    shift = 0
    first_step_found = False
    for position, step in enumerate(chain):
        if first_step_found if step.overrides else _truthy(found):
            continue
        applies, raw = _read(get, step)
        if not applies:
            continue  # vLLM skips a section that is not a non-empty dict
        as_given = (
            step.as_given_for_model_type is not None and model_type == step.as_given_for_model_type
        )
        step_shift = int(step.adds_one and not as_given)
        try:
            if step.overrides:  # replaces the value so far, even with a missing one
                found, taken, taken_raw, shift = raw, step, raw, 0
            elif _truthy(raw):  # an empty or falsy value counts as absent
                found = _value_of(step, raw, step_shift)
                taken, taken_raw, shift = step, raw, step_shift
                first_step_found = position == 0
        except _Raises as raised:
            return TappedLayers(None, step, raw, step_shift, raised.problem)
    try:
        if taken is None or not _truthy(found):
            return TappedLayers(None, None)
    except _Raises as raised:  # an overriding value whose truth value raises
        return TappedLayers(None, taken, taken_raw, shift, raised.problem)
    return _as_ints(found, taken, taken_raw, shift)


def _value_of(step: TapStep, raw: object, shift: int) -> object:
    """The value vLLM holds after reading ``raw``, a truthy value of ``step``'s field.

    Raises:
        _Raises: where vLLM's function raises.
    """
    if shift:
        return _shifted(raw)
    if step.as_given_for_model_type is not None:
        return _listed(raw)
    return raw


def _as_ints(found: object, taken: TapStep, raw: object, shift: int) -> TappedLayers:
    """The runner's result for the truthy value ``found`` it took from ``taken``."""
    if not issubclass(type(found), (list, tuple)):
        return TappedLayers(
            None,
            taken,
            raw,
            shift,
            f"is {describe_value(raw)}, not a list: vLLM stops looking for layers at "
            "this field, finds no list and taps the target model's default layers instead",
        )
    ids: list[int] = []
    for index, item in enumerate(cast("list[object] | tuple[object, ...]", found)):
        number = None if isinstance(item, _NotAnInt) else exact_int(item)
        if number is None:
            shown = item.item if isinstance(item, _NotAnInt) else item
            return TappedLayers(
                None,
                taken,
                raw,
                shift,
                f"has item {index} = {describe_value(shown)}: layer ids must be ints "
                "(not bools, floats or strings)",
            )
        ids.append(number)
    return TappedLayers(tuple(ids), taken, raw, shift)


def _read(get: FieldGetter, step: TapStep) -> tuple[bool, object]:
    """(whether vLLM reads the step at all, the field's value or ``None``)."""
    section = step.section
    if section is None:
        return True, get(step.key, None)
    container = get(section, None)
    if type(container) is not dict or not container:  # vLLM: isinstance(..., dict)
        return False, None
    return True, field_getter(container, section)(step.key, None)


def _truthy(value: object) -> bool:
    """``bool(value)``, as vLLM tests each value.

    Raises:
        _Raises: the value's truth value raises (vLLM's function would raise too).
    """
    try:
        return bool(value)
    except Exception as error:
        raise _Raises(
            f"is {describe_value(value)}, whose truth value raises {type(error).__name__}: "
            "vLLM fails on it"
        ) from None


def _listed(value: object) -> list[object]:
    """``list(value)`` as vLLM computes it for a truthy JSON value.

    Raises:
        _Raises: for a value that is not a list (vLLM raises on a number and turns a
            string into its characters).
    """
    if not issubclass(type(value), (list, tuple)):
        raise _Raises(f"is {describe_value(value)}, not a list of layer ids")
    return list(cast("list[object] | tuple[object, ...]", value))


def _shifted(value: object) -> list[object]:
    """``[i + 1 for i in value]`` as vLLM computes it, for a truthy JSON value.

    Raises:
        _Raises: where vLLM's comprehension raises (a value that is not a list, an item
            that is not a number); bools and floats, which vLLM shifts, become
            :class:`_NotAnInt`.
    """
    if not issubclass(type(value), (list, tuple)):
        raise _Raises(
            f"is {describe_value(value)}, not a list: vLLM adds 1 to each id and fails on it"
        )
    shifted: list[object] = []
    for index, item in enumerate(cast("list[object] | tuple[object, ...]", value)):
        number = exact_int(item)
        if number is not None:
            shifted.append(number + 1)
        elif issubclass(type(item), (bool, float)):
            shifted.append(_NotAnInt(item))
        else:
            raise _Raises(
                f"has item {index} = {describe_value(item)}: vLLM adds 1 to each id and "
                "fails on it (layer ids must be ints)"
            )
    return shifted
