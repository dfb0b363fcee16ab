"""The mode vLLM serves a draft in, and its ``--speculative-config`` switch.

vLLM drafts DFlash and DSpark in parallel always (``SpeculativeConfig.__post_init__`` in
``vllm/config/speculative.py``: ``if self.method in ("dflash", "dspark"):
self.parallel_drafting = True``); the ``eagle3`` and ``draft_model`` methods draft
sequentially unless the user sets ``"parallel_drafting": true``, which is when the
parallel-drafting token is read (PTD for EAGLE-3, PARD for a draft model; P-EAGLE's classes
are EAGLE-3 ones drafted in parallel).  A draft *asks* for parallel drafting when it names
any token-id field (even with a bad value), when its class exists only for parallel
drafting (DFlash, DFlash2, DSpark, P-EAGLE) or when its speculators algorithm is parallel;
otherwise it asks for the sequential mode of its class: EAGLE-3 for a class vLLM registers
from an ``*_eagle3`` module or for a causal LM whose config carries EAGLE-3 fields (an
EAGLE-3 head under its base class, or without ``architectures``), EAGLE-3 or EAGLE(-1) for
such a causal LM whose checkpoint's tensor names say it is an EAGLE head
(:func:`_eagle_head`), a plain draft model for any other causal LM vLLM serves.  A config
that names neither asks for nothing vLLM drafts with: it is judged as parallel drafting,
whose token it lacks.

From vLLM :data:`~.names.REFUSES_PARALLEL_SWITCH` (0.34.0) on, ``SpeculativeConfig._verify_args``
refuses ``"parallel_drafting": true`` for every method but ``dflash`` and ``dspark``: a PTD or
PARD draft is served in the sequential mode of its class, its token unused, and P-EAGLE is
refused (:func:`on_release`).
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Final

from drafting_config.draft.architectures import (
    PEAGLE_CLASSES,
    architecture_names,
    eagle3_head_fields,
)
from drafting_config.draft.fields import FieldStatus
from drafting_config.engines.vllm.names import REFUSES_PARALLEL_SWITCH, VERSION, since
from drafting_config.engines.vllm.resolution import Resolution
from drafting_config.engines.vllm.tables import vllm_tables
from drafting_config.values.errors import ParallelDraftingConfigError
from drafting_config.values.fields import is_list

DFLASH2_CLASSES: Final = frozenset({"DFlash2DraftModel", "DFlash2BeamDraftModel"})
"""The DFlash2 drafters of vLLM's ``_SPECULATIVE_DECODING_MODELS`` (served as ``dflash``)."""

_UNSET: Final = frozenset({FieldStatus.ABSENT, FieldStatus.NULL})


def names_token_field(resolution: Resolution) -> bool:
    """Whether the draft names any token-id field (set, even to a bad value; a ``null``
    counts as unset).  A loop: no generator resumed per field, for every draft."""
    for verdict in resolution.fields:  # noqa: SIM110
        if verdict.status not in _UNSET:
            return True
    return False


@dataclass(frozen=True)
class ServedMode:
    """How vLLM serves a draft: the mode's name, vLLM's ``method``, whether it drafts in
    parallel, and whether the draft asks for parallel drafting."""

    name: str
    """``dflash``, ``dflash2``, ``dspark``, ``pard``, ``eagle3``, ``eagle3-parallel``,
    ``peagle``, ``eagle`` (EAGLE-1) or ``draft-model``."""
    method: str
    """vLLM's ``--speculative-config`` ``method``."""
    parallel: bool
    """Whether the masked slots are drafted in one pass."""
    asks_parallel: bool
    """Whether the draft asks for parallel drafting (a token field, a parallel-only class,
    a parallel speculators algorithm)."""

    @property
    def needs_switch(self) -> bool:
        """Whether ``"parallel_drafting": true`` must be set (vLLM sets it itself for
        ``dflash`` and ``dspark``)."""
        return self.parallel and self.method not in ("dflash", "dspark")


_MODES: Final = {
    "dflash": ("dflash", "dflash"),
    "dflash2": ("dflash2", "dflash"),
    "dspark": ("dspark", "dspark"),
    "pard": ("pard", "draft_model"),
    "ptd": ("eagle3-parallel", "eagle3"),
    "peagle": ("peagle", "eagle3"),
    "eagle3": ("eagle3", "eagle3"),
    "eagle": ("eagle", "eagle"),
    "draft-model": ("draft-model", "draft_model"),
}


_SERVED: Final = {
    key: ServedMode(name, method, parallel, asks_parallel=parallel)
    for key, (name, method) in _MODES.items()
    for parallel in [key not in ("eagle3", "eagle", "draft-model")]
}
"""The mode a draft asking for each key of :data:`_MODES` is served in, made once (a mode
is immutable): the sequential ones (``eagle3``, ``eagle``, ``draft-model``) ask for no
parallel drafting."""


def _kind_of_class(names: AbstractSet[str], version: str) -> str | None:
    """The method a draft's registered class exists for: ``peagle``, ``dflash2``,
    ``dflash``, ``dspark`` or ``eagle3``, by the module vLLM registers it from
    (``_SPECULATIVE_DECODING_MODELS``, ``vllm/model_executor/models/registry.py``)."""
    return _kind_of_names(frozenset(names), version)


@lru_cache(maxsize=256)
def _kind_of_names(names: frozenset[str], version: str) -> str | None:
    """:func:`_kind_of_class`, a pure function of the class names and the release's tables:
    made once per set of names and release (every draft of a sweep names one of a few)."""
    if not PEAGLE_CLASSES.isdisjoint(names):
        return "peagle"
    if not DFLASH2_CLASSES.isdisjoint(names):
        return "dflash2"
    kinds = _module_kinds(version)
    told = {kinds[name] for name in names if name in kinds}
    for kind in _MODULE_KINDS:
        if kind in told:
            return kind
    return None


_MODULE_KINDS: Final = ("dflash", "dspark", "eagle3")
"""The kinds a registered module tells, in the order :func:`_kind_of_class` tests them."""


@cache
def _module_kinds(version: str) -> dict[str, str]:
    """Each name of ``version``'s ``_SPECULATIVE_DECODING_MODELS`` whose module tells a kind,
    to the first it tells (:data:`_MODULE_KINDS`: a module named with ``dflash``, with
    ``dspark``, ending ``_eagle3``), once per release."""
    kinds: dict[str, str] = {}
    for name, (module, _) in vllm_tables(version).registry["_SPECULATIVE_DECODING_MODELS"].items():
        leaf = module.rpartition(".")[2]
        tells = ("dflash" in leaf, "dspark" in leaf, leaf.endswith("_eagle3"))
        for kind, told in zip(_MODULE_KINDS, tells, strict=True):
            if told:
                kinds[name] = kind
                break
    return kinds


def _causal_lm(names: set[str], version: str) -> bool:
    """Whether ``architectures`` name a causal LM vLLM serves as a plain draft model
    (``draft_model``): a name of its ``_TEXT_GENERATION_MODELS``, or a ``...ForCausalLM``
    class transformers exports (the Transformers backend)."""
    tables = vllm_tables(version)
    text_models = tables.registry["_TEXT_GENERATION_MODELS"]
    return any(
        name in text_models or (name.endswith("ForCausalLM") and name in tables.model_classes)
        for name in names
    )


def _eagle_head(resolution: Resolution) -> str | None:
    """The EAGLE method of a plain causal LM that is an EAGLE head published under its base
    class, or ``None``: ``eagle3`` when its config carries EAGLE-3 fields
    (:data:`~drafting_config.draft.architectures.EAGLE3_HEAD_FIELDS`: ``LlamaForCausalLM``,
    one layer, ``draft_vocab_size``), else the kind its checkpoint's tensor names say
    (:attr:`~drafting_config.draft.file.DraftFile.eagle_head`: ``fc.weight`` with
    ``midlayer.*`` or ``d2t`` for ``eagle3``, ``fc.weight`` of twice the hidden size beside
    ``layers.0.*`` for ``eagle``, an EAGLE-1 head such as ``yuhuili/EAGLE-LLaMA3-Instruct-8B``,
    whose config says nothing).  Users serve them with ``method: eagle3`` / ``eagle``
    (vLLM also picks the method from an ``eagle3`` / ``eagle-`` in the model's name:
    ``v1/worker/gpu/spec_decode/eagle/config.py``, ``Eagle3SpeculatorConfig.matches``);
    ``EAGLEConfig`` then renames the class to ``Eagle3{arch}`` / ``Eagle{arch}``
    (``transformers_utils/configs/eagle.py``), which must be registered
    (``check_architecture_registered``: ``EagleLlamaForCausalLM`` and
    ``Eagle3LlamaForCausalLM`` are, ``EagleQwen2ForCausalLM`` is not, as
    vllm-project/vllm#24967 reports).  A field that cannot be read counts as unset (the
    architecture rules report it)."""
    try:
        if eagle3_head_fields(resolution.draft.get):
            return "eagle3"
    except ParallelDraftingConfigError:
        return None
    head = resolution.draft.eagle_head
    return None if head is None else head.kind


def _unlisted(resolution: Resolution) -> bool:
    """Whether a Hugging Face config with a ``model_type`` lists no ``architectures`` (absent,
    ``null`` or ``[]``): vLLM fills them from the model type (``get_config`` in
    ``transformers_utils/config.py``), then renames them for the method.  A field that
    cannot be read counts as listed (the architecture rules report it)."""
    get = resolution.draft.get
    try:
        listed = get("architectures", None)
        typed = isinstance(get("model_type", None), str)
    except ParallelDraftingConfigError:
        return False
    empty = listed is None or (is_list(listed) and len(listed) == 0)
    return resolution.format == "hf" and typed and empty


def served_mode(resolution: Resolution, version: str = VERSION) -> ServedMode:
    """The mode the draft asks for, by vLLM ``version``'s registry (see the module's
    docstring); :func:`on_release` says how that release serves it."""
    try:
        names = architecture_names(resolution.draft.get)
    except ParallelDraftingConfigError:  # reported by the architecture rules
        names = set()
    token_named = names_token_field(resolution)
    kind = _kind_of_names(frozenset(names), version)  # _kind_of_class, without its call
    algorithm = resolution.algorithm
    if resolution.speculators is None and resolution.format == "speculators":
        # refused before its token id was read: an eagle3 file asks for EAGLE-3
        key = algorithm or "eagle3"
        if key == "eagle3" and kind == "peagle":
            key = "peagle"
    elif algorithm == "dflash" and kind == "dflash2":
        key = "dflash2"
    elif algorithm in _MODES:
        key = algorithm
    elif kind == "peagle":
        key = "peagle"
    elif kind in ("dflash", "dflash2", "dspark"):
        key = kind
    elif kind == "eagle3":
        key = "ptd" if token_named else "eagle3"
    elif not token_named and _unlisted(resolution) and _eagle_head(resolution):
        key = str(_eagle_head(resolution))  # no architectures: filled and renamed (refused)
    elif token_named or not _causal_lm(names, version):
        key = "pard"  # a token on a plain LM; or nothing vLLM would draft with at all
    elif _eagle_head(resolution):
        key = str(_eagle_head(resolution))  # an EAGLE head under its base class: renamed
    else:
        key = "draft-model"
    return _SERVED[key]


def tensors_decide(resolution: Resolution, mode: ServedMode) -> bool:
    """Whether the checkpoint's tensor names may change the mode ``mode`` (the draft's
    :func:`served_mode` without them): a Hugging Face config naming no token field and no
    EAGLE-3 field, served as a plain draft model, or listing no ``architectures``."""
    if resolution.format != "hf" or resolution.speculators is not None:
        return False
    if names_token_field(resolution):
        return False
    return mode.name == "draft-model" or (_unlisted(resolution) and not _eagle_head(resolution))


def on_release(mode: ServedMode, version: str) -> ServedMode:
    """``mode`` as vLLM ``version`` serves it: from :data:`~.names.REFUSES_PARALLEL_SWITCH` on,
    a mode that needs ``"parallel_drafting": true`` (PTD, PARD, P-EAGLE) drafts sequentially,
    as EAGLE-3 or as a draft model (``SpeculativeConfig._verify_args`` in
    ``vllm/config/speculative.py`` refuses the switch for any method but ``dflash`` and
    ``dspark``), still asking for parallel drafting; its ``serve_with`` carries no switch.
    P-EAGLE keeps its name, without the switch: that release refuses it
    (``load_path.check_peagle``)."""
    if not mode.needs_switch or not since(version, REFUSES_PARALLEL_SWITCH):
        return mode
    return _without_switch(mode.name, mode.method, mode.asks_parallel)


@lru_cache(maxsize=64)
def _without_switch(name: str, method: str, asks_parallel: bool) -> ServedMode:
    """:func:`on_release` of a mode that needs the switch (``parallel``) on a release that
    refuses it, made once per mode: a mode is immutable, and every PTD, PARD or P-EAGLE
    draft of a sweep asks for one of a few."""
    if name == "peagle":
        return ServedMode(name, method, parallel=False, asks_parallel=asks_parallel)
    name = "eagle3" if method == "eagle3" else "draft-model"
    return ServedMode(name, method, parallel=False, asks_parallel=True)


PARALLEL_SWITCH_EVIDENCE: Final = "vllm/config/speculative.py: SpeculativeConfig.parallel_drafting"
"""Where vLLM reads the switch that drafts an EAGLE-3 draft or a draft model in parallel."""


_SEQUENTIAL_KINDS: Final = {"eagle3": "EAGLE-3", "eagle": "EAGLE"}


def _sequential_kind(mode: ServedMode) -> str:
    return _SEQUENTIAL_KINDS.get(mode.method, "a draft model")


def sequential_note(mode: ServedMode, tensors: str | None = None) -> str:
    """The note on a draft vLLM serves sequentially: what it is served as, and why; for an
    EAGLE head told by its checkpoint, the ``tensors`` that tell."""
    served = (
        f"vLLM serves the draft sequentially, as {_sequential_kind(mode)} (method {mode.method!r})"
    )
    if tensors is not None and mode.method in _SEQUENTIAL_KINDS:
        return f"{served}: tensors {tensors} mark an EAGLE head under its base class."
    return f"{served}, since it asks for no parallel drafting."


def sequential_refused(mode: ServedMode) -> str:
    """The error on a draft vLLM serves sequentially when parallel drafting is required."""
    return (
        "The draft names no parallel-drafting token id, so vLLM serves it sequentially, as "
        f"{_sequential_kind(mode)}, which --require-parallel refuses."
    )


def parallel_fix(mode: ServedMode) -> str:
    """What turns parallel drafting on for a draft vLLM serves sequentially (an EAGLE-1 head
    has no parallel mode)."""
    if mode.method == "eagle":
        return "train a DFlash or DSpark drafter to draft in parallel"
    token = "ptd_token_id" if mode.method == "eagle3" else "pard_token"
    return (
        f"set `{token}` in the draft's config and serve it with "
        '"parallel_drafting": true in --speculative-config to draft in parallel'
    )
