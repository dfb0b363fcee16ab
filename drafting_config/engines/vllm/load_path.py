"""vLLM 0.33.0's load path, from ``config.json`` to the first forward pass: how it parses the
draft's config, resolves its architectures in the registry, rewrites them, constructs the
model class and derives the served context; the engine's functions first, then the rules
that judge a draft by them.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Final, NamedTuple, cast

from drafting_config.draft.architectures import (
    DSPARK_DRAFT,
    GEMMA4_DSPARK,
    MUSE_SPARK_DSPARK,
    PEAGLE_CLASSES,
    QWEN3_DSPARK,
    QWEN3_OMNI_DSPARK,
)
from drafting_config.draft.fields import FieldStatus
from drafting_config.draft.file import TRANSFORMER_LAYER_CONFIG_FIELD as TRANSFORMER_LAYER_CONFIG
from drafting_config.draft.target import TargetFacts
from drafting_config.engines.vllm import codes as vllm_codes
from drafting_config.engines.vllm.modes import served_mode
from drafting_config.engines.vllm.names import (
    CHECKS_DECLARED_SPECULATOR,
    DECLARED_METHODS,
    DEEPSEEK_V41,
    DFLASH2_DRAFT,
    DFLASH_MODEL_ARCHITECTURES,
    HONOURS_USE_AUX_HIDDEN_STATE,
    LILICORR_DRAFT,
    LOWERS_MAX_MODEL_LEN,
    ONE_MODEL_RUNNER,
    REFUSES_PEAGLE,
    VERSION,
    XPRESS_ARCHITECTURES,
    last_before,
    since,
)
from drafting_config.engines.vllm.resolution import VllmSubject
from drafting_config.engines.vllm.runners import is_set
from drafting_config.engines.vllm.tables import vllm_tables
from drafting_config.values import codes
from drafting_config.values.edits import ConfigEdit, is_json_value
from drafting_config.values.errors import (
    ParallelDraftingConfigError,
    ParallelDraftingConfigWarning,
    describe_value,
)
from drafting_config.values.fields import FieldGetter, is_kind, is_list, read_field, read_path
from drafting_config.values.findings import Findings
from drafting_config.values.integers import exact_int

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


@lru_cache(maxsize=256)
def parse_model_type(
    model_type: str | None, has_auto_config: bool, version: str = VERSION
) -> Parse:
    """How vLLM parses a draft's config with this ``model_type`` (``None``: none in the file
    nor derived from the architecture): ``_CONFIG_REGISTRY`` first, else transformers'
    ``CONFIG_MAPPING`` (through ``AutoConfig.from_pretrained``), else remote code; in vLLM
    ``version``, whose tables and transformers range these are.  A pure function of its
    arguments and the release's tables: made once per model type and release."""
    tables = vllm_tables(version)
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


def resolve_architecture(name: str, has_auto_model: bool, version: str = VERSION) -> Resolved:
    """How vLLM ``version``'s registry resolves ``name`` (stock vLLM, no plugins)."""
    tables = vllm_tables(version)
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


@lru_cache(maxsize=256)
def _eagle_config_architectures(method: str, names: tuple[str, ...]) -> tuple[str, ...]:
    """:func:`eagle_config_architecture` of each of ``names``, made once per method and list."""
    return tuple(eagle_config_architecture(method, name) for name in names)


EAGLE_CONFIG_METHODS: Final = frozenset({"eagle", "eagle3", "dflash"})
"""The methods whose drafts vLLM wraps in ``EAGLEConfig`` (``SpeculativeConfig.__post_init__``)
unless the config is already an ``EAGLEConfig`` or a speculators config."""

K3_DSPARK: Final = "K3DSparkModel"
DSPARK_ARCHITECTURES: Final = frozenset(
    {QWEN3_DSPARK, QWEN3_OMNI_DSPARK, MUSE_SPARK_DSPARK, GEMMA4_DSPARK, K3_DSPARK}
)
"""The DSpark architectures vLLM keeps under method ``dspark``; any other list is re-typed
as DeepSeek-V4's bundled DSpark draft (``SpeculativeConfig.__post_init__``)."""


DEEPSEEK_V4_TYPES: Final = frozenset({"deepseek_v4", DEEPSEEK_V41})
"""The ``model_type`` of a DeepSeek-V4(.1) checkpoint, whose DSpark draft ships inside the
target checkpoint: served with ``method: dspark`` and no draft model, vLLM takes the target
checkpoint as the draft (``SpeculativeConfig.__post_init__``) and replaces its
architectures with the bundled draft's."""


def dspark_replacement(target_model_type: object) -> str:
    """The architecture vLLM replaces an unlisted DSpark draft's with
    (``SpeculativeConfig.__post_init__`` in ``vllm/config/speculative.py``):
    ``DSparkV41DraftModel`` when the target's ``model_type`` is ``deepseek_v41``, else
    ``DSparkDraftModel`` (DeepSeek-V4's bundled draft)."""
    return "DSparkV41DraftModel" if target_model_type == DEEPSEEK_V41 else "DSparkDraftModel"


def dspark_architectures(names: tuple[str, ...], model_type: object) -> tuple[str, ...] | None:
    """The ``architectures`` vLLM serves a ``dspark`` draft with
    (``SpeculativeConfig.__post_init__`` in ``vllm/config/speculative.py``):
    ``DSparkDraftModel`` of ``model_type`` ``qwen3`` becomes ``Qwen3DSparkModel``; a list
    with a DSpark architecture is kept; ``None`` for any other list, which vLLM replaces
    with DeepSeek-V4's bundled DSpark draft (re-typed ``deepseek_v4``, the target's
    quantization)."""
    if DSPARK_DRAFT in names and model_type == "qwen3":
        return (QWEN3_DSPARK,)
    if not DSPARK_ARCHITECTURES.isdisjoint(names):
        return names
    return None


class _Overridden(NamedTuple):
    """A draft's config part-way through ``hf_config_override``: what its rewrites read and
    set (a named tuple: made once per draft and release, rewritten with ``_replace``)."""

    model_type: object
    names: tuple[str, ...]
    first: str
    """``architectures[0]`` as given (``initial_architecture``)."""
    get: FieldGetter
    version: str


_Rewrite = Callable[[_Overridden], "_Overridden | None"]


@dataclass(frozen=True)
class _ByModelType:
    """A rewrite of ``hf_config_override`` keyed on the ``model_type`` as the rewrites before
    it left it: a new model type, and a new class (``None``: the class kept)."""

    types: frozenset[str]
    model_type: str
    name: str | None = None

    def __call__(self, state: _Overridden) -> _Overridden:
        if not isinstance(state.model_type, str) or state.model_type not in self.types:
            return state
        names = state.names if self.name is None else (self.name,)
        return state._replace(model_type=self.model_type, names=names)


def _by_type(types: str, model_type: str, name: str | None = None) -> _ByModelType:
    return _ByModelType(frozenset(types.split()), model_type, name)


_MTP_BY_ARCHITECTURE: Final[Mapping[str, tuple[str, str]]] = MappingProxyType(
    {
        "MiMoForCausalLM": ("mimo_mtp", "MiMoMTPModel"),
        "MiMoV2ForCausalLM": ("mimo_v2_mtp", "MiMoV2MTPModel"),
        "MiMoV2OmniForCausalLM": ("mimo_v2_mtp", "MiMoV2OmniMTPModel"),
        "MiMoV2FlashForCausalLM": ("mimo_v2_mtp", "MiMoV2MTPModel"),
        "Glm4MoeForCausalLM": ("glm4_moe_mtp", "Glm4MoeMTPModel"),
        "Glm4MoeLiteForCausalLM": ("glm4_moe_lite_mtp", "Glm4MoeLiteMTPModel"),
        "GlmOcrForConditionalGeneration": ("glm_ocr_mtp", "GlmOcrMTPModel"),
    }
)
"""The first-architecture rewrites of ``hf_config_override`` (each tests the list as the
earlier ones left it), in its order: ``architectures[0]`` -> (model type, class)."""


def _deepseek(state: _Overridden) -> _Overridden:
    """DeepSeek's MLA targets (and GLM-5's DSA one) become their MTP head."""
    model_type, names = state.model_type, state.names
    v32 = model_type in ("deepseek_v32", "glm_moe_dsa")
    if model_type in ("deepseek_v3", "deepseek_v32", "glm_moe_dsa"):
        model_type = "deepseek_mtp"
    if model_type == "deepseek_mtp":
        names = ("DeepseekV32MTPModel" if v32 else "DeepSeekMTPModel",)
    if model_type in ("deepseek_v4", DEEPSEEK_V41):
        names = ("DeepSeekV4MTPModel",) if model_type == "deepseek_v4" else names
        model_type = "deepseek_mtp"
    if isinstance(model_type, str) and model_type in "pangu_ultra_moe":  # a substring test
        model_type = "pangu_ultra_moe_mtp"
    if model_type is state.model_type and names is state.names:
        return state  # none of them
    return state._replace(model_type=model_type, names=names)


def _by_architecture(state: _Overridden) -> _Overridden:
    if state.names[0] not in _MTP_BY_ARCHITECTURE:
        return state  # no row matches
    for old, (model_type, name) in _MTP_BY_ARCHITECTURE.items():
        if state.names[0] == old:
            state = state._replace(model_type=model_type, names=(name,))
    return state


def _text_promoted(state: _Overridden) -> _Overridden | None:
    """A Nemotron Omni's ``text_config`` replaces the config: not followed.  From 0.34.0 a
    Nemotron 3.5 Transcribe becomes its MTP head."""
    if state.names[0] in ("NemotronH_Super_Omni_Reasoning_V3", "NemotronH_Omni_Reasoning_V3"):
        return None
    if since(state.version, "0.34.0") and state.names[0] == (
        "Nemotron3_5TranscribeForConditionalGeneration"
    ):
        return state._replace(
            model_type="nemotron3_5_transcribe_mtp",
            names=("Nemotron3_5TranscribeMTPModel",),
        )
    return state


def _nemotron_h(state: _Overridden) -> _Overridden:
    if state.model_type not in ("nemotron_h", "nemotron_h_puzzle"):
        return state  # the model type first, as vLLM tests it: no field read for others
    nextn = exact_int(state.get("num_nextn_predict_layers", None))
    if nextn and nextn > 0:
        return state._replace(model_type="nemotron_h_mtp")
    return state


def _bailing(state: _Overridden) -> _Overridden:
    if state.first in ("BailingMoeV3ForCausalLM", "BailingMoeV3VLForConditionalGeneration"):
        return state._replace(model_type="bailing_hybrid_v3_mtp")
    if state.model_type == "bailing_hybrid" or "BailingMoeV2_5ForCausalLM" in state.names:
        return state._replace(model_type="bailing_hybrid_mtp")
    return state


def _exaone4_5(state: _Overridden) -> _Overridden:
    if isinstance(state.model_type, str) and "exaone4_5" in state.model_type:
        return state._replace(model_type="exaone4_5_mtp", names=("Exaone4_5_MTP",))
    return state


def _qwen3_5(state: _Overridden) -> _Overridden:
    model_type = state.model_type
    if model_type in ("qwen3_5", "qwen3_5_moe", "qwen3_5_text", "qwen3_5_moe_text"):
        moe = model_type in ("qwen3_5_moe", "qwen3_5_moe_text")
        return state._replace(
            model_type="qwen3_5_mtp", names=("Qwen3_5MoeMTP" if moe else "Qwen3_5MTP",)
        )
    if model_type in ("intern_s2_preview", "interns2_mobius"):
        mobius = model_type == "interns2_mobius"
        moe = mobius or read_path(state.get, "text_config.model_type") == "qwen3_5_moe_text"
        name = "InternS2MobiusMTP" if mobius else "Qwen3_5MoeMTP" if moe else "Qwen3_5MTP"
        return state._replace(model_type="qwen3_5_mtp", names=(name,))
    return state


_STEP5_CLASSES: Final = frozenset({"Step5ForCausalLM", "Step5ForConditionalGeneration"})


def _step(state: _Overridden) -> _Overridden:
    if state.model_type in ("step3p5", "step3p7") or state.names[0] in (
        "Step3p5ForCausalLM",
        "Step3p7ForConditionalGeneration",
    ):
        state = state._replace(model_type="step3p5_mtp", names=("Step3p5MTP",))
    if since(state.version, "0.33.0") and (
        state.model_type in ("step5", "step5_vl") or not _STEP5_CLASSES.isdisjoint(state.names)
    ):
        state = state._replace(model_type="step5_mtp", names=("Step5MTP",))
    if state.first == "MistralLarge3ForCausalLM":
        state = state._replace(names=("EagleMistralLarge3ForCausalLM",))
    return state


def _minimax(state: _Overridden) -> _Overridden:
    if since(state.version, "0.34.0") and state.first == "DSparkMiniMaxDraftModel":
        return state._replace(model_type="minimax_m3_dspark", names=("DSparkMiniMaxDraftModel",))
    if state.model_type == "minimax_m3_vl" or state.first == (
        "MiniMaxM3SparseForConditionalGeneration"
    ):
        return state._replace(model_type="minimax_m3_mtp", names=("MiniMaxM3MTP",))
    if state.model_type == "minimax_m3_mtp" or state.first == "MiniMaxM3MTP":
        return state._replace(names=("MiniMaxM3MTP",))
    return state


_REWRITES: Final[tuple[_Rewrite, ...]] = (
    _by_type("dots3_note", "dots3_note_mtp", "Dots3NoteMTPModel"),
    _deepseek,
    _by_type("pangu_ultra_moe_mtp", "pangu_ultra_moe_mtp", "OpenPanguMTPModel"),
    _by_type("kimi_k3", "kimi_k3_mtp", "KimiK3MTPModel"),
    _by_architecture,
    _by_type("ernie4_5_moe", "ernie_mtp"),
    _by_type("ernie_mtp", "ernie_mtp", "ErnieMTPModel"),
    _text_promoted,
    _nemotron_h,
    _by_type("nemotron_h_mtp", "nemotron_h_mtp", "NemotronHMTPModel"),
    _by_type("qwen3_next", "qwen3_next_mtp"),
    _by_type("qwen3_next_mtp", "qwen3_next_mtp", "Qwen3NextMTP"),
    _by_type("qwen4_exp qwen4_exp_text", "qwen4_exp_mtp"),
    _by_type("qwen4_exp_mtp", "qwen4_exp_mtp", "Qwen4ExpMTP"),
    _bailing,
    _by_type("bailing_hybrid_mtp", "bailing_hybrid_mtp", "BailingMoeV25MTPModel"),
    _by_type("bailing_hybrid_v3_mtp", "bailing_hybrid_v3_mtp", "BailingMoeV3MTPModel"),
    _by_type("exaone_moe", "exaone_moe_mtp"),
    _by_type("exaone_moe_mtp", "exaone_moe_mtp", "ExaoneMoeMTP"),
    _exaone4_5,
    _qwen3_5,
    _by_type("longcat_flash", "longcat_flash_mtp", "LongCatFlashMTPModel"),
    _step,
    _by_type("hy_v3", "hy_v3_mtp", "HYV3MTPModel"),
    _by_type("hy_v4", "hy_v4_mtp", "HYV4MTPModel"),
    _by_type("inkling_mm_model inkling_model", "inkling_mtp", "InklingMTPModel"),
    _by_type("gemma4_assistant gemma4_unified_assistant", "gemma4_mtp", "Gemma4MTPModel"),
    _minimax,
    _by_type("glm5_next", "glm5_next_mtp", "Glm5NextMTPModel"),
)
"""The rewrites of ``hf_config_override`` after its early returns, in its order (each reads
the model type and class the ones before it left)."""


def _early_return(
    model_type: object, names: tuple[str, ...], get: FieldGetter, version: str
) -> tuple[object, tuple[str, ...]] | bool | None:
    """The rewrites of ``hf_config_override`` that return at once (of a config whose
    ``model_type`` and ``architectures`` are these): their result, ``None`` for one not
    followed, ``False`` for none of them."""
    first, newest = names[0], since(version, "0.34.0")
    if newest and first == DSPARK_DRAFT and model_type == "qwen3":
        return model_type, (QWEN3_DSPARK,)
    if newest and first == DFLASH2_DRAFT and _truthy(get("no_rope_layers", None)):
        return model_type, ("DFlash2RicursiveDraftModel",)
    if newest and first == GEMMA4_DSPARK:
        return model_type, names
    if (
        since(version, "0.33.0")
        and first == "RadioMBartPrefixForCausalLM"
        and _truthy(read_path(get, "decoder.causal_vision_prefix"))
    ):
        return "mtp", ("ParseAuxMTPModel",)
    prefix = "" if get("text_config", None) is None else "text_config."  # the text config
    if (
        newest
        and (read_path(get, f"{prefix}model_type") if prefix else model_type) == "mistral_large_4"
        and _truthy(read_path(get, f"{prefix}mtp_config"))
    ):
        return None
    return False


def hf_config_override(
    get: FieldGetter, version: str = VERSION
) -> tuple[object, tuple[str, ...]] | None:
    """The ``model_type`` and ``architectures`` of a draft's config after
    ``SpeculativeConfig.hf_config_override`` (``vllm/config/speculative.py``), which vLLM
    ``version`` applies to every draft's config as it builds the draft's ``ModelConfig``
    (``compose_draft_hf_overrides``), before its registry resolves the class and before
    ``EAGLEConfig`` renames it: a target's class or model type becomes its MTP head's
    (``deepseek_v3`` -> ``DeepSeekMTPModel``, ``deepseek_v32`` and ``glm_moe_dsa`` ->
    ``DeepseekV32MTPModel``, the MLA targets; ``Glm4MoeForCausalLM`` -> ``Glm4MoeMTPModel``;
    ``qwen3_5`` -> ``Qwen3_5MTP``...), and from 0.34.0 a ``qwen3`` ``DSparkDraftModel``
    becomes ``Qwen3DSparkModel`` and a ``DFlash2DraftModel`` with ``no_rope_layers``
    ``DFlash2RicursiveDraftModel``: each rewrite in that function's order
    (:data:`_REWRITES`), gated on the release that has it.  ``None`` where it returns another
    config that this mirror does not follow (a Nemotron Omni's ``text_config``, a Mistral
    Large 4 DSpark config) or the draft lists no architectures (vLLM fills them first).
    ``tests/engines/vllm/test_wheel_config_override.py`` runs each release's function on
    every model type and class a rewrite tests and compares.  SpecForge's DeepSeek-V2-Lite
    DFlash draft (``model_type`` ``deepseek_v3``) is thereby ``DeepSeekMTPModel``, renamed
    ``DFlashDeepSeekMTPModel``, the name the real vLLM 0.33.0 and 0.34.0 refuse.

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    return _hf_config_override(get, _architecture_names(get), version)


def _hf_config_override(
    get: FieldGetter, names: tuple[str, ...], version: str
) -> tuple[object, tuple[str, ...]] | None:
    """:func:`hf_config_override` of a draft whose ``architectures`` are ``names``."""
    if not names:
        return None
    model_type = get("model_type", None)
    early = _early_return(model_type, names, get, version)
    if early is not False:
        return early if isinstance(early, tuple) else None
    if model_type is None or type(model_type) is str:
        known = _rewritten_by_class(model_type, names, version)
        if known is not _READS_CONFIG:
            return cast("tuple[object, tuple[str, ...]] | None", known)
    return _rewritten(_Overridden(model_type, names, names[0], get, version))


def _rewritten(state: _Overridden) -> tuple[object, tuple[str, ...]] | None:
    """:data:`_REWRITES` applied to ``state`` in order (``None``: one returns another config
    that this mirror does not follow)."""
    keyed = _type_key(state.model_type)
    for rewrite, types in _REWRITE_KEYS:
        if types is not None and keyed not in types:
            continue  # keyed on another model type: it keeps the state (_ByModelType)
        rewritten = rewrite(state)
        if rewritten is None:
            return None
        if rewritten is not state:
            state = rewritten
            keyed = _type_key(state.model_type)
    return state.model_type, state.names


class _ReadsConfig(Exception):
    """Raised by :func:`_no_config` when a rewrite reads a field beyond the model type and
    class (:func:`_rewritten_by_class`)."""


def _no_config(name: str, default: object = None) -> object:
    raise _ReadsConfig(name)


_READS_CONFIG: Final = object()
"""What :func:`_rewritten_by_class` gives where a rewrite reads the config itself."""


@lru_cache(maxsize=256)
def _rewritten_by_class(model_type: str | None, names: tuple[str, ...], version: str) -> object:
    """:func:`_rewritten` of a config whose ``model_type`` and ``architectures`` are these,
    on ``version``, where no rewrite reads any other field (only a Nemotron-H's and an
    Intern-S2's do), else :data:`_READS_CONFIG`: a pure function of its arguments, made once
    per model type, class list and release (every draft of a sweep names one of a few)."""
    try:
        return _rewritten(_Overridden(model_type, names, names[0], _no_config, version))
    except _ReadsConfig:
        return _READS_CONFIG


_REWRITE_KEYS: Final = tuple(
    (rewrite, rewrite.types if isinstance(rewrite, _ByModelType) else None) for rewrite in _REWRITES
)
""":data:`_REWRITES`, each beside the model types it acts on when it is keyed on them
(:class:`_ByModelType`), else ``None``: the loop skips a keyed rewrite whose types do not
hold the model type without calling it."""


def _type_key(model_type: object) -> str | None:
    """``model_type`` when it is a string (the only kind a keyed rewrite matches)."""
    return model_type if isinstance(model_type, str) else None


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


_DFLASH_LAYER: Final = "DFlashQwen3DecoderLayer.__init__"
_EAGLE3_LAYER: Final = "LlamaDecoderLayer.__init__"
SPECULATORS_LAYER_READS: Final[Mapping[str, tuple[tuple[str, str], ...]]] = MappingProxyType(
    {
        "qwen3_dflash": (
            ("max_position_embeddings", _DFLASH_LAYER),
            ("rms_norm_eps", _DFLASH_LAYER),
        ),
        "qwen3_dflash2": (
            ("max_position_embeddings", _DFLASH_LAYER),
            ("rms_norm_eps", _DFLASH_LAYER),
        ),
        "qwen3_dspark": (
            ("max_position_embeddings", _DFLASH_LAYER),
            ("rms_norm_eps", _DFLASH_LAYER),
        ),
        "llama_eagle3": (("rms_norm_eps", _EAGLE3_LAYER),),
        "qwen3_eagle3": (("rms_norm_eps", "Qwen3DecoderLayer.__init__"),),
    }
)
"""Per module of ``vllm/model_executor/models/`` serving a speculators draft, the config
attributes its constructor reads unguarded, in the order it reads them, with the function
that reads them: a speculators draft's config is ``SpeculatorsConfig``, a bare
``PreTrainedConfig`` built from ``transformer_layer_config``
(``vllm/transformers_utils/configs/speculators/base.py``), which defaults none of them.
``qwen3_dflash.py``'s ``DFlashQwen3DecoderLayer`` (DFlash2's and DSpark's layers are
subclasses or reuse it) reads ``config.max_position_embeddings`` then
``config.rms_norm_eps``; the EAGLE-3 layers read ``config.rms_norm_eps`` (their rotary size
has a default).  The real engine, vLLM 0.33.0, raised "'SpeculatorsConfig' object has no
attribute 'max_position_embeddings'" (DFlash, DSpark) and "... 'rms_norm_eps'" (DFlash,
EAGLE-3) while building the draft; vLLM 0.32.0's files read the same."""

_LAYER_EXAMPLES: Final = {"max_position_embeddings": "40960", "rms_norm_eps": "1e-06"}


def check_speculators_layer_config(subject: VllmSubject, found: Findings) -> None:
    """A speculators draft's ``transformer_layer_config`` must hold every attribute its
    class's constructor reads (:data:`SPECULATORS_LAYER_READS`, by the module vLLM's
    registry serves the class its updater writes from): without one, building the draft
    raises ``AttributeError``.  Only a missing key: a present ``null`` is read as ``None``,
    whose fate is the layer's."""
    if subject.resolution.speculators is None:
        return
    tables = vllm_tables(subject.version)
    for name in serving_architectures(subject):
        row = tables.registered(name)
        if row is None:
            continue  # the registry rule's finding
        module, class_name = row
        for field, reader in SPECULATORS_LAYER_READS.get(module.rpartition(".")[2], ()):
            if subject.draft.get(field, MISSING_SECTION) is not MISSING_SECTION:
                continue
            shown = f"{TRANSFORMER_LAYER_CONFIG}.{field}"
            found.error(
                ParallelDraftingConfigError(
                    f"`{shown}` is not set, and vLLM's {class_name} reads it from the draft's "
                    "config, which has no default for it, so building the draft raises "
                    "AttributeError.",
                    field=shown,
                    code=vllm_codes.CONSTRUCTOR_FIELD_MISSING,
                    fix=f"set `{shown}` to the value the draft was trained with, such as "
                    f"{_LAYER_EXAMPLES[field]}",
                    evidence=f"vllm/model_executor/models/{module.rpartition('.')[2]}.py: "
                    f"{reader} raises AttributeError ('SpeculatorsConfig' object has no "
                    f"attribute '{field}')",
                )
            )
        return


SAMPLE_FROM_ANCHOR: Final = "dflash_config.sample_from_anchor"
"""The field the newer runner's DFlash speculator refuses when truthy
(``DFlashSpeculator.__init__`` in ``vllm/v1/worker/gpu/spec_decode/dflash/speculator.py``;
DSpark's speculator calls it first)."""

_SAMPLE_FROM_ANCHOR_PARTS: Final = ("dflash_config", "sample_from_anchor")
""":data:`SAMPLE_FROM_ANCHOR`'s section and key (read with ``read_field``: no split per draft)."""


def needs_hidden_states(method: str | None, get: FieldGetter, version: str = VERSION) -> bool:
    """Whether the target must be tapped (``requires_aux_hidden_states`` in
    ``vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py``): DFlash and DSpark always; an
    EAGLE-3 draft unless ``eagle_config.use_aux_hidden_state`` is false, from vLLM
    :data:`~.names.HONOURS_USE_AUX_HIDDEN_STATE` (before it, the newer runner's
    ``model_runner.py`` taps the target for every ``eagle3`` draft)."""
    if method in ("dflash", "dspark"):
        return True
    if method != "eagle3":
        return False
    if not since(version, HONOURS_USE_AUX_HIDDEN_STATE):
        return True
    eagle_config = get("eagle_config", None)
    if not is_kind(eagle_config, dict):
        return True
    flag = read_path(get, "eagle_config.use_aux_hidden_state", True, only_dicts=True)
    try:
        return bool(flag)
    except Exception:
        return True


def target_class(architectures: tuple[str, ...], version: str = VERSION) -> str | None:
    """The target architecture vLLM's registry resolves first (``inspect_model_cls`` takes the
    first registered name), or ``None`` when none is registered."""
    tables = vllm_tables(version)
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
    overriding), times the RoPE scaling factor (:func:`rope_scaling_factor`); ``None`` when no
    key holds a positive int, or when the factor leaves no length to compare (not a positive
    number, infinite, or a product beyond float range: vLLM's own ``int()`` or comparison
    would raise on it, and the rule that compares lengths says nothing)."""
    lengths = {key: exact_int(get(key, None)) for key in LENGTH_KEYS}
    found = [n for n in lengths.values() if n is not None and n > 0]
    if not found:
        return None
    derived = min(found)
    override = lengths["model_max_length"]
    if override is not None and override > 0:
        derived = override
    factor = rope_scaling_factor(get)
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not factor > 0:
        return None
    try:
        scaled = derived * factor
        return int(scaled) if math.isfinite(scaled) else None
    except OverflowError:  # an int factor, or a product, beyond float range
        return None


def rope_scaling_factor(get: FieldGetter) -> object:
    """The factor ``_get_and_verify_max_len`` (``vllm/config/model.py``) multiplies the
    derived length by, as vLLM 0.33 computes it: ``1.0``, then for each RoPE entry
    (:func:`rope_parameters`) whose type is not in :data:`UNSCALED_ROPE_TYPES`, that entry's
    ``factor`` when it has one (the last such entry wins; an entry without one keeps the
    previous); a ``null`` factor becomes ``1.0`` (vLLM warns); the whole step is skipped,
    ``1.0``, when ``"gemma3"`` is in the ``model_type`` (Gemma 3's length is already
    scaled).  Returned as written in the config: the caller judges whether it is a number."""
    model_type = get("model_type", None)
    if isinstance(model_type, str) and "gemma3" in model_type:
        return 1.0
    factor: object = 1.0
    for entry in rope_parameters(get):
        if not _rope_type_in(entry, UNSCALED_ROPE_TYPES):
            factor = entry.get("factor", factor)
    return 1.0 if factor is None else factor


def target_max_model_len(target: TargetFacts) -> int | None:
    """The ``max_model_len`` vLLM derives for the target: from its top level, else
    ``text_config``, else ``thinker_config.text_config`` (:func:`derived_max_model_len`)."""
    for reader in target.readers:
        length = derived_max_model_len(reader)
        if length is not None:
            return length
    return None


def strings(value: object) -> list[str]:
    if not is_list(value):
        return []
    return [item for item in value if isinstance(item, str)]


# --- the load path: from config.json to the first forward pass ----------------------------------


def _served_range(version: str) -> str:
    versions = vllm_tables(version).transformers_versions
    return f"the transformers it accepts ({versions[0]} to {versions[-1]})"


def _auto_map_keys(get: FieldGetter) -> list[str]:
    auto_map = get("auto_map", None)
    if not isinstance(auto_map, dict):
        return []
    return [key for key in auto_map if isinstance(key, str)]


def _architecture_names(get: FieldGetter) -> tuple[str, ...]:
    return tuple(strings(get("architectures", None)))


def _vllm_method(subject: VllmSubject) -> str | None:
    algorithm = subject.resolution.algorithm
    return None if algorithm is None else VLLM_METHOD.get(algorithm, algorithm)


def _target_model_type(subject: VllmSubject) -> object:
    """The target's ``model_type``, else the draft's (a DeepSeek-V4 checkpoint checked as
    its own draft is the target too)."""
    target = subject.target
    if target is not None and target.model_type is not None:
        return target.model_type
    return subject.draft.get("model_type", None)


def check_config_parses(subject: VllmSubject, found: Findings) -> None:
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
    get = subject.draft.get
    model_type = get("model_type", None)
    names = _classes(subject).names
    if model_type is None and names:
        model_type = MODEL_TYPE_FROM_ARCHITECTURE.get(names[0])
    parse_evidence = "vllm/transformers_utils/config.py: HFConfigParser.parse"
    type_fix = 'set `model_type` to the type of the draft\'s layers, such as "qwen3"'
    if model_type is not None and not isinstance(model_type, str):
        found.error(
            ParallelDraftingConfigError(
                f"`model_type` = {describe_value(model_type)} is not a string, so vLLM cannot "
                "parse the draft's config and refuses it at start-up.",
                field="model_type",
                code=codes.MODEL_TYPE_NOT_STRING,
                fix=type_fix,
                evidence=parse_evidence,
            )
        )
        return
    version = subject.version
    auto_map = get("auto_map", None)  # its AutoConfig key looked up: no list of its keys made
    has_auto_config = isinstance(auto_map, dict) and "AutoConfig" in auto_map
    parsed = parse_model_type(model_type, has_auto_config, version)
    if parsed is Parse.KNOWN:
        return  # most drafts: no words made for them
    if parsed is Parse.UNKNOWN and model_type is None and not names:
        return  # a fragment (token and layer fields alone): the load path is not judged
    through = f"{parse_evidence}, through transformers' AutoConfig.from_pretrained"
    shown = "no `model_type`" if model_type is None else f"`model_type` {model_type!r}"
    if parsed is Parse.UNKNOWN:
        cause = (
            "and is no speculators file (no `speculators_config`)"
            if model_type is None
            else f"which neither vLLM nor {_served_range(version)} knows"
        )
        found.error(
            ParallelDraftingConfigError(
                f"The draft's config has {shown}, {cause}, and `auto_map` names no "
                "AutoConfig, so vLLM fails parsing it at start-up.",
                field="model_type",
                code=codes.MODEL_TYPE_UNKNOWN,
                fix=type_fix,
                evidence=f"{through} raises ValueError",
            )
        )
    elif parsed is Parse.REMOTE_CODE:
        found.warn(
            ParallelDraftingConfigWarning(
                f"The draft's config has {shown}, which neither vLLM nor "
                f"{_served_range(version)} knows: vLLM parses it only through "
                "`auto_map.AutoConfig`'s remote code, with --trust-remote-code.",
                field="model_type",
                code=codes.MODEL_TYPE_REMOTE_CODE,
                evidence=through,
            )
        )
    elif parsed is Parse.SOME_VERSIONS:
        assert model_type is not None
        first = vllm_tables(version).model_types[model_type]
        found.warn(
            ParallelDraftingConfigWarning(
                f"`model_type` {model_type!r} is known to transformers {first} and later "
                "only, so vLLM fails parsing the draft's config with an older transformers "
                f"of the range it accepts ({vllm_tables(version).transformers_range}).",
                field="model_type",
                code=vllm_codes.MODEL_TYPE_TOO_NEW,
                fix=f"install transformers {first} or later beside vLLM",
                evidence=through,
            )
        )


_REGISTRY = "vllm/model_executor/models/registry.py"


@lru_cache(maxsize=256)
def _unresolved_names(names: tuple[str, ...], has_auto_model: bool, version: str) -> Resolved:
    """How the registry fares with a list: the first registered name wins
    (``_ModelRegistry.inspect_model_cls``), else the Transformers-backend fallback on the
    first name.  A pure function of its arguments and the release's tables: made once per
    list (every draft of a sweep names one of a few)."""
    first = Resolved.UNSUPPORTED  # no name at all
    for index, name in enumerate(names):
        outcome = resolve_architecture(name, has_auto_model, version)
        if outcome is Resolved.REGISTERED:
            return outcome
        if index == 0:
            first = outcome
    return first


_UNSUPPORTED: Final = f"{_REGISTRY}: _ModelRegistry._raise_for_unsupported raises ValueError"
_FALLBACK: Final = f"{_REGISTRY}: _ModelRegistry._try_resolve_transformers"


def _moved(names: tuple[str, ...], version: str) -> str:
    """Where the last of ``names`` that vLLM served once, or a plugin serves now, is served
    (for a fix), else ``""``."""
    tables = vllm_tables(version)
    where = ""
    for name in names:
        if name in tables.previously_supported:
            where = f"; {name} was served until vLLM {tables.previously_supported[name]}"
        elif name in tables.out_of_tree:
            where = f"; {name} is served by a plugin now: {tables.out_of_tree[name]}"
    return where


def _class_example(method: str) -> str:
    return {
        "dflash": " such as DFlashDraftModel",
        "dspark": " such as Qwen3DSparkModel",
        "eagle3": " such as Eagle3LlamaForCausalLM",
    }.get(method, "")


def _fallback_warning(
    names: tuple[str, ...], outcome: Resolved, renamed_from: tuple[str, ...] | None
) -> ParallelDraftingConfigWarning:
    """``names`` resolve only through the Transformers-backend fallback
    (``_ModelRegistry._try_resolve_transformers``): a transformers class that must pass
    vLLM's compatibility test, or ``auto_map`` remote code, loaded only with
    ``--trust-remote-code``, as a generic ``TransformersForCausalLM``."""
    how = (
        "only through `auto_map`'s remote code, with --trust-remote-code"
        if outcome is Resolved.REMOTE_CODE
        else "only through its Transformers backend, if the transformers class passes its "
        "compatibility test"
    )
    what = (
        f"`architectures` = {list(names)!r} is"
        if renamed_from is None
        else f"vLLM renames `architectures` {list(renamed_from)!r} to {list(names)!r}, which is"
    )
    return ParallelDraftingConfigWarning(
        f"{what} in no registry table of vLLM, which serves it {how}, as a generic "
        "TransformersForCausalLM.",
        field="architectures",
        code=vllm_codes.ARCHITECTURE_FALLBACK,
        evidence=_FALLBACK,
    )


DRAFTER_METHODS: Final = frozenset({"dflash", "dspark", "eagle3"})
"""vLLM's methods whose draft class must be one of its drafters: a class only ``auto_map``
remote code supplies is served by none of them (:func:`_remote_code_drafter`)."""


def _remote_code_drafter(names: tuple[str, ...], method: str) -> ParallelDraftingConfigError:
    """A drafter class that no registry table holds and only ``auto_map`` remote code
    supplies, under a drafter method: certain failure, with or without remote code.

    Without ``--trust-remote-code``, the draft's ``ModelConfig`` raises "Model architectures
    [...] are not supported for now" (``_ModelRegistry._raise_for_unsupported``,
    ``vllm/model_executor/models/registry.py``; the real engine does so for SpecForge's
    ``DominoDraftModel`` and ``DSpineDraftModel``).  With it, ``dspark``
    (``SpeculativeConfig.__post_init__``, ``vllm/config/speculative.py``) rewrites every
    DSpark class it does not list to DeepSeek-V4's ``DSparkDraftModel``, and for the other
    methods the Transformers backend's ``TransformersForCausalLM`` has no drafter
    interface (no ``combine_hidden_states``).  A plain draft model (``draft_model``) stays a
    warning: the Transformers backend serves a causal LM.
    """
    with_remote_code = (
        "vllm/config/speculative.py: SpeculativeConfig.__post_init__ rewrites an unlisted "
        "DSpark class to DeepSeek-V4's DSparkDraftModel"
        if method == "dspark"
        else "the Transformers backend's TransformersForCausalLM has no combine_hidden_states"
    )
    return ParallelDraftingConfigError(
        f"`architectures` = {list(names)!r} is a class only `auto_map`'s remote code supplies, "
        f"and vLLM builds no {method} drafter from it, with or without --trust-remote-code.",
        field="architectures",
        code=vllm_codes.REMOTE_CODE_DRAFTER,
        fix=f"name a class vLLM registers for {method} drafts{_class_example(method)}, whose "
        "weights the checkpoint holds",
        evidence=f"{_UNSUPPORTED}; with remote code, {with_remote_code}",
    )


def check_architectures_listed(subject: VllmSubject, found: Findings) -> None:
    """``architectures`` given as a string, not a list: vLLM reads it item by item
    (``ModelConfig.__post_init__`` in ``vllm/config/model.py`` checks each against the
    registry; ``EAGLEConfig.__init__`` renames each), so it looks up the string's characters
    and fails.  (:func:`check_architecture_registered` reads lists only.)"""
    raw = subject.draft.get("architectures", None)
    if subject.resolution.speculators is None and isinstance(raw, str):
        found.error(
            ParallelDraftingConfigError(
                f"`architectures` = {describe_value(raw)} is a string, not a list, so vLLM "
                "looks its characters up in the registry and refuses the draft at start-up.",
                field="architectures",
                code=vllm_codes.ARCHITECTURES_STRING,
                edit=ConfigEdit.set("architectures", [raw]),
                fix=f'make it a one-item list: `"architectures": ["{raw[:60]}"]`',
                evidence="vllm/config/model.py: ModelConfig.__post_init__",
            )
        )


def _registered_as_given(
    names: tuple[str, ...], get: FieldGetter, method: str, version: str, found: Findings
) -> bool:
    """Whether ``ModelConfig.__post_init__`` (``vllm/config/model.py``) resolves the draft's
    own ``architectures`` to a registered class; what it does otherwise is recorded.  A
    registered name wins whatever ``auto_map`` holds, so ``auto_map`` is read only for a
    list that has none (most drafts' lists have one)."""
    outcome = _unresolved_names(names, False, version)
    if outcome is not Resolved.REGISTERED and any(
        key.startswith("AutoModel") for key in _auto_map_keys(get)
    ):
        outcome = _unresolved_names(names, True, version)  # the fallback's remote code
    if outcome is Resolved.UNSUPPORTED:
        found.error(
            ParallelDraftingConfigError(
                f"`architectures` = {list(names)!r} names no class of vLLM's registry or "
                "of transformers, and `auto_map` no AutoModel, so vLLM refuses the draft "
                "at start-up.",
                field="architectures",
                code=codes.ARCHITECTURE_UNSUPPORTED,
                fix=f"name an architecture vLLM registers for {method} drafts"
                f"{_class_example(method)}{_moved(names, version)}",
                evidence=f"vllm/config/model.py: ModelConfig.__post_init__; {_UNSUPPORTED}",
            )
        )
    elif outcome is Resolved.REMOTE_CODE and method in DRAFTER_METHODS:
        found.error(_remote_code_drafter(names, method))
    elif outcome is not Resolved.REGISTERED:
        found.warn(_fallback_warning(names, outcome, None))
    return outcome is Resolved.REGISTERED


def _is_deepseek_v4(subject: VllmSubject) -> bool:
    """Whether the draft is a DeepSeek-V4(.1) checkpoint (:data:`DEEPSEEK_V4_TYPES`)."""
    model_type = subject.draft.get("model_type", None)
    return isinstance(model_type, str) and model_type in DEEPSEEK_V4_TYPES


def check_architecture_registered(subject: VllmSubject, found: Findings) -> None:
    """The draft's ``architectures`` must resolve in vLLM's registry, twice: as given, in
    ``ModelConfig.__post_init__`` (``vllm/config/model.py``), and after every rename vLLM
    makes for the method it serves (``SpeculativeConfig.__post_init__`` and ``update_arch_``
    in ``vllm/config/speculative.py``, which calls ``_ModelRegistry.inspect_model_cls``
    again):

    * ``EAGLEConfig.__init__`` (``vllm/transformers_utils/configs/eagle.py``) prefixes
      ``DFlash``/``Eagle3`` for ``dflash``/``eagle3`` (SpecForge's ``PEagleDraftModel``
      becomes ``Eagle3PEagleDraftModel``, which no table holds: the real engine raises
      "Model architectures ['Eagle3PEagleDraftModel'] are not supported for now");
    * the DSpark rewrite turns ``DSparkDraftModel`` of a ``qwen3`` draft into
      ``Qwen3DSparkModel``, and any list naming no DSpark class vLLM keeps into DeepSeek-V4's
      bundled ``DSparkDraftModel`` (``DSparkV41DraftModel`` for a ``deepseek_v41`` target):
      a warning, unless the draft is a DeepSeek-V4 checkpoint, whose bundled draft it is;
    * a speculators file's class is the one its updater writes
      (``vllm/transformers_utils/configs/speculators/algos.py``; :func:`.speculators.translate`),
      which ``SpeculatorsConfig`` keeps unrenamed.

    The method is the resolver's, else that of the mode the draft is served in (a P-EAGLE
    class naming no token id is still renamed for ``eagle3``).  Every table of
    ``registry.py`` counts, and the Transformers-backend fallback
    (``_try_resolve_transformers``) for a class transformers exports or an
    ``auto_map.AutoModel`` class (a warning: it needs the class to pass vLLM's compatibility
    test, or --trust-remote-code), except that a drafter method gets no drafter from it (an
    error, :func:`_remote_code_drafter`).  An error only when nothing resolves the name.
    Stock vLLM: plugins may register more names.
    """
    classes = _classes(subject)
    names = classes.names
    if not names:
        return  # vLLM fills them from transformers' MODEL_MAPPING_NAMES, or fails later
    if _refused_peagle(subject, names):
        return  # check_peagle's error
    speculators = subject.resolution.speculators is not None
    version, method = subject.version, classes.method(subject)
    given = classes.overridden(subject)  # the ModelConfig's, after hf_config_override
    if not speculators and not _registered_as_given(
        given, subject.draft.get, method, version, found
    ):
        return
    renamed = classes.serving(subject)
    if method == "dspark" and not speculators:
        _dspark_replaced(subject, names, renamed, found)
    if (renamed == given and not speculators) or (  # not renamed: resolved as given, above
        outcome := _unresolved_names(renamed, False, version)
    ) is Resolved.REGISTERED:
        return
    if speculators:
        what = f"vLLM's speculators updater writes `architectures` = {list(renamed)!r}"
        evidence = "vllm/transformers_utils/configs/speculators/algos.py"
    elif given != names:
        if outcome is Resolved.UNSUPPORTED:
            found.error(_overridden_then_renamed(names, given, renamed, method, version))
        else:
            found.warn(_fallback_warning(renamed, outcome, names))
        return
    else:
        what = f"vLLM renames `architectures` {list(names)!r} to {list(renamed)!r} for {method}"
        evidence = (
            "vllm/transformers_utils/configs/eagle.py: EAGLEConfig.__init__"
            if method in EAGLE_CONFIG_METHODS
            else _DSPARK_REWRITE[since(version, CHECKS_DECLARED_SPECULATOR)]
        )
    if outcome is Resolved.UNSUPPORTED:
        found.error(
            ParallelDraftingConfigError(
                f"{what}, a name its registry lacks: it refuses the draft.",
                field="architectures",
                code=vllm_codes.RENAMED_ARCHITECTURE_UNSUPPORTED,
                fix=f"name an architecture vLLM registers for {method} drafts"
                f"{_class_example(method)}{_moved(renamed, version)}",
                evidence=f"{evidence}; vllm/config/speculative.py: SpeculativeConfig.update_arch_"
                f"; {_UNSUPPORTED}",
            )
        )
    else:
        found.warn(_fallback_warning(renamed, outcome, names))


def _dspark_replaced(
    subject: VllmSubject, names: tuple[str, ...], renamed: tuple[str, ...], found: Findings
) -> None:
    """A DSpark draft whose class vLLM replaces with DeepSeek-V4's bundled draft (a
    warning; see :func:`check_architecture_registered`)."""
    if (
        dspark_architectures(names, subject.draft.get("model_type", None)) is not None
        or _is_deepseek_v4(subject)
        or _declared_method(subject) is not None
    ):
        return
    found.warn(
        ParallelDraftingConfigWarning(
            f"Served as DSpark, `architectures` = {list(names)!r} names no DSpark class "
            f"vLLM keeps, so vLLM replaces it with DeepSeek-V4's bundled draft, "
            f"{renamed[0]}.",
            field="architectures",
            code=vllm_codes.DSPARK_ARCHITECTURE_REPLACED,
            fix="name the draft's DSpark class: "
            + ", ".join(sorted(DSPARK_ARCHITECTURES))
            + ", or DSparkDraftModel with model_type 'qwen3'",
            evidence=_DSPARK_REWRITE[since(subject.version, CHECKS_DECLARED_SPECULATOR)],
        )
    )


def _overridden_then_renamed(
    names: tuple[str, ...],
    given: tuple[str, ...],
    renamed: tuple[str, ...],
    method: str,
    version: str,
) -> ParallelDraftingConfigError:
    """The error on a draft whose class ``hf_config_override`` rewrites (``given``, from its
    ``model_type``: a DeepSeek MLA draft's ``DeepSeekMTPModel``) and ``EAGLEConfig`` then
    renames for ``method`` into a class no registry table holds (:func:`hf_config_override`;
    the real vLLM 0.33.0 and 0.34.0 refuse SpecForge's DeepSeek-V2-Lite DFlash draft as
    ``DFlashDeepSeekMTPModel``)."""
    return ParallelDraftingConfigError(
        f"`architectures` {list(names)!r} becomes {list(renamed)!r} for {method}: vLLM's "
        "registry lacks it and refuses the draft.",
        field="architectures",
        code=vllm_codes.RENAMED_ARCHITECTURE_UNSUPPORTED,
        fix="give the draft a `model_type` vLLM does not rewrite (its own layers', not the "
        f"target's) and a class vLLM registers for {method} drafts{_class_example(method)}"
        f"{_moved(renamed, version)}",
        evidence=f"{_OVERRIDE} (to {list(given)!r}); vllm/transformers_utils/configs/eagle.py: "
        f"EAGLEConfig.__init__; {_UNSUPPORTED}",
    )


_OVERRIDE: Final = (
    "vllm/config/speculative.py: SpeculativeConfig.hf_config_override rewrites the draft's "
    "model_type and architectures"
)

_DSPARK_REWRITE: Final = {
    False: "vllm/config/speculative.py: SpeculativeConfig.__post_init__",
    True: "vllm/v1/worker/gpu/spec_decode/dspark/config.py: "
    "DSparkSpeculatorConfig.adapt_draft_model_config, when the draft's class declares no "
    "speculator",
}
"""Where each release replaces a DSpark draft's class with DeepSeek-V4's bundled one: before
:data:`~.names.CHECKS_DECLARED_SPECULATOR` by an architecture list, from it when the class
declares no speculator (``speculator_config_class is None``)."""


def _declared_method(subject: VllmSubject) -> str | None:
    """The ``base_method`` of the speculator the draft's class declares on the subject's
    release (:data:`~.names.DECLARED_METHODS`; ``ModelConfig.speculator_config_class`` in
    ``vllm/config/model.py``, of the class the registry resolves the draft's architectures
    to, after ``hf_config_override``'s rename of a ``qwen3`` ``DSparkDraftModel``), or
    ``None``: no such class, or a release before :data:`~.names.CHECKS_DECLARED_SPECULATOR`."""
    if not since(subject.version, CHECKS_DECLARED_SPECULATOR):
        return None
    names = _classes(subject).names
    if DSPARK_DRAFT in names:
        kept = dspark_architectures(names, subject.draft.get("model_type", None))
        if kept is not None:
            names = kept  # hf_config_override: DSparkDraftModel of a qwen3 draft
    return _declared_by(names, subject.version)


@lru_cache(maxsize=256)
def _declared_by(names: tuple[str, ...], version: str) -> str | None:
    """The ``base_method`` the first of ``names`` in ``version``'s
    ``_SPECULATIVE_DECODING_MODELS`` declares (:func:`_declared_method`), made once per list
    and release."""
    rows = vllm_tables(version).registry["_SPECULATIVE_DECODING_MODELS"]
    for name in names:
        if name in rows:
            return DECLARED_METHODS.get(rows[name][1])
    return None


def declared_method(subject: VllmSubject) -> str | None:
    """:func:`_declared_method`, for the launch rules (:mod:`.launch`)."""
    return _declared_method(subject)


def check_declared_speculator(subject: VllmSubject, found: Findings) -> None:
    """From vLLM :data:`~.names.CHECKS_DECLARED_SPECULATOR` on, the method the draft is served
    with must be the one its class declares: ``_resolve_checkpoint_config_class``
    (``vllm/v1/worker/gpu/spec_decode/speculator_config.py``) raises ``ValueError``
    ("speculative_config requested method=..., but the draft model ... is a ... checkpoint")
    when ``speculator_config_class.base_method`` differs, before any rewrite (a
    ``DFlashDraftModel`` with ``dflash_config.projector_type: "dspark"``, served as DSpark,
    is refused; 0.33.0 replaced its class instead).  Speculators files are left out: their
    class is the one vLLM's updater writes for their method."""
    if subject.resolution.speculators is not None:
        return
    declared = _declared_method(subject)
    if declared is None:
        return  # most drafts: the method served is not asked
    classes = _classes(subject)
    method = classes.method(subject)
    if declared == method:
        return
    names = list(classes.names)
    found.error(
        ParallelDraftingConfigError(
            f"`architectures` = {names!r} declares a {declared} speculator, but the draft is "
            f"served as {method}, which vLLM refuses at start-up.",
            field="architectures",
            code=vllm_codes.METHOD_NOT_DECLARED,
            fix=f"name a class vLLM registers for {method} drafts{_class_example(method)}, or "
            f"serve the draft as {declared}",
            evidence="vllm/v1/worker/gpu/spec_decode/speculator_config.py: "
            "_resolve_checkpoint_config_class raises ValueError (speculator_config_class)",
        )
    )


def _refused_peagle(subject: VllmSubject, names: tuple[str, ...]) -> bool:
    """Whether the draft, whose ``architectures`` are ``names`` (:attr:`_Classes.names`), is
    P-EAGLE on a release that refuses it (:func:`check_peagle`)."""
    if not since(subject.version, REFUSES_PEAGLE):
        return False
    resolution = subject.resolution
    if resolution.speculators is not None:
        return resolution.algorithm == "peagle"
    return not PEAGLE_CLASSES.isdisjoint(names)


def check_peagle(subject: VllmSubject, found: Findings) -> None:
    """From vLLM :data:`~.names.REFUSES_PEAGLE` on, P-EAGLE is refused: a speculators
    ``peagle`` file by ``update_peagle``
    (``vllm/transformers_utils/configs/speculators/algos.py``: "P-EAGLE (parallel drafting
    EAGLE-3) is not supported."), a P-EAGLE class (``PEagleDraftModel``,
    ``PeagleLlamaForCausalLM``, ``PeagleQwen3ForCausalLM``) by the registry
    (``vllm/model_executor/models/registry.py`` no longer holds them) and by
    ``SpeculativeConfig._verify_args`` (``vllm/config/speculative.py``: no
    ``parallel_drafting`` for ``eagle3``)."""
    if not since(subject.version, REFUSES_PEAGLE):
        return  # the release gate first: no classes asked
    classes = _classes(subject)
    if not _refused_peagle(subject, classes.names):
        return
    resolution = subject.resolution
    last = last_before(REFUSES_PEAGLE)
    fix = f"serve it with vLLM {last} or older, or train a DFlash or DSpark drafter"
    if resolution.speculators is not None:
        found.error(
            ParallelDraftingConfigError(
                "The draft is a P-EAGLE speculators file, a parallel EAGLE-3 mode vLLM no "
                "longer has, so it refuses the draft at start-up.",
                field="speculators_model_type",
                code=codes.METHOD_UNSUPPORTED,
                fix=fix,
                evidence="vllm/transformers_utils/configs/speculators/algos.py: update_peagle "
                'raises ValueError "P-EAGLE (parallel drafting EAGLE-3) is not supported."',
            )
        )
        return
    names = [name for name in classes.names if name in PEAGLE_CLASSES]
    found.error(
        ParallelDraftingConfigError(
            f"`architectures` = {names!r} is a P-EAGLE class, a parallel EAGLE-3 mode vLLM no "
            "longer has, so it refuses the draft at start-up.",
            field="architectures",
            code=codes.METHOD_UNSUPPORTED,
            fix=fix,
            evidence="vllm/model_executor/models/registry.py: no P-EAGLE class is registered; "
            "vllm/config/speculative.py: SpeculativeConfig._verify_args refuses "
            "parallel_drafting for eagle3",
        )
    )


def serving_architectures(subject: VllmSubject) -> tuple[str, ...]:
    """The draft's ``architectures`` as vLLM builds the draft (:meth:`_Classes.serving`).

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    return _classes(subject).serving(subject)


class _Classes:
    """The draft's classes along vLLM's load path, for one subject: every rule that asks for
    them asks these, :attr:`names` made at once, the others on the first ask (kept in
    :attr:`VllmSubject.derived`; a field that cannot be read raises on every ask).  Each is
    asked with the subject it was made for: it keeps no reference to it, which would be a
    cycle (subject, derived, classes)."""

    __slots__ = ("_method", "_overridden", "_serving", "names")

    def __init__(self, subject: VllmSubject) -> None:
        self.names = _architecture_names(subject.draft.get)
        """The draft's ``architectures`` as given (its strings; none when not a list)."""
        self._method: str | None = None
        self._overridden: tuple[str, ...] | None = None
        self._serving: tuple[str, ...] | None = None

    def method(self, subject: VllmSubject) -> str:
        """The ``method`` vLLM serves the draft with, which decides how it renames the
        draft's architectures: the resolver's, else that of the mode the draft is served in
        (:func:`~.modes.served_mode`): a P-EAGLE or DFlash class that names no token id is
        still served, and renamed, as ``eagle3`` or ``dflash``."""
        if self._method is None:
            method = _vllm_method(subject)
            if method is None:
                method = served_mode(subject.resolution, subject.version).method
            self._method = method
        return self._method

    def overridden(self, subject: VllmSubject) -> tuple[str, ...]:
        """The draft's ``architectures`` as its ``ModelConfig`` holds them, after
        :func:`hf_config_override` on the subject's release (as given where that function
        is not followed); a speculators file's and a DSpark draft's as given (their own
        rewrites are :func:`check_architecture_registered`'s)."""
        if self._overridden is None:
            self._overridden = self._made_overridden(subject)
        return self._overridden

    def _made_overridden(self, subject: VllmSubject) -> tuple[str, ...]:
        names = self.names
        if subject.resolution.speculators is not None or self.method(subject) == "dspark":
            return names
        # Made once per file and release (kept in DraftFile.readings, which the verdicts
        # clear once made): a subject made by ``dataclasses.replace`` finds it there.
        key = f"vllm hf_config_override {subject.version}"
        readings = subject.draft.readings
        if key not in readings:
            readings[key] = _hf_config_override(subject.draft.get, names, subject.version)
        overridden = cast("tuple[object, tuple[str, ...]] | None", readings[key])
        return names if overridden is None else overridden[1]

    def serving(self, subject: VllmSubject) -> tuple[str, ...]:
        """The draft's ``architectures`` as vLLM builds the draft: rewritten by
        ``hf_config_override`` (:meth:`overridden`), then renamed for the method it serves
        it with (:func:`check_architecture_registered` says how); a speculators file's as
        its updater wrote them."""
        if self._serving is None:
            self._serving = self._made_serving(subject)
        return self._serving

    def _made_serving(self, subject: VllmSubject) -> tuple[str, ...]:
        names = self.names
        if subject.resolution.speculators is not None:
            return names  # the translated config: the updater's, which vLLM does not rename
        method = self.method(subject)
        if method in EAGLE_CONFIG_METHODS and subject.draft.get("model_type", None) != "eagle":
            return _eagle_config_architectures(method, self.overridden(subject))
        if method != "dspark":
            return self.overridden(subject)
        kept = dspark_architectures(names, subject.draft.get("model_type", None))
        return kept if kept is not None else (dspark_replacement(_target_model_type(subject)),)


def subject_architectures(subject: VllmSubject) -> tuple[str, ...]:
    """The draft's ``architectures`` as given (its strings; none when not a list), read once
    per subject (:class:`_Classes`).

    Raises:
        ParallelDraftingConfigError: the field cannot be read at all.
    """
    return _classes(subject).names


_CLASSES: Final = "vllm classes"
"""The key of a subject's :class:`_Classes` in :attr:`VllmSubject.derived`."""


def _classes(subject: VllmSubject) -> _Classes:
    """The subject's :class:`_Classes`, made on the first ask."""
    derived = subject.derived
    known = derived.get(_CLASSES)
    if isinstance(known, _Classes):
        return known
    classes = derived[_CLASSES] = _Classes(subject)
    return classes


def check_construction(subject: VllmSubject, found: Findings) -> None:
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
    plan = _construction_plan(serving_architectures(subject))
    if plan is None:
        return  # a class no row, no markov_rank reader and no DFlash model is: most drafts
    get, serving = subject.draft.get, plan.serving
    missing: dict[str, ConstructionRead] = {}
    for row, section, key in plan.rows:
        if read_field(get, section, key, only_dicts=True) is None:
            missing.setdefault(row.field, row)
    for field, row in missing.items():
        nested = read_path(get, f"dflash_config.{field}", only_dicts=True)
        only_nested = "." not in field and nested is not None
        where = ", only in `dflash_config`, where vLLM does not read it," if only_nested else ""
        found.error(
            ParallelDraftingConfigError(
                f"`{field}` is not set{where} and vLLM's "
                f"{' / '.join(sorted(row.architectures & serving))} reads it, so building "
                f"the draft raises {row.failure}.",
                field=field,
                code=vllm_codes.CONSTRUCTOR_FIELD_MISSING,
                edit=ConfigEdit.set(field, nested)
                if only_nested and is_json_value(nested)
                else None,
                fix=f"set `{field}`"
                + (f' at the top level: `"{field}": {nested!r}`' if only_nested else ""),
                evidence=f"{row.follows} raises {row.failure}",
            )
        )
    _check_markov_rank_type(subject, serving, missing, found)
    if plan.dflash_model:
        for section in ("eagle_config", "dflash_config"):
            if get(section, MISSING_SECTION) is None:
                failure = "AttributeError" if section == "eagle_config" else "TypeError"
                found.error(
                    ParallelDraftingConfigError(
                        f"`{section}` is null, so vLLM's DFlash model reads None where it "
                        f"expects an object and building the draft raises {failure}.",
                        field=section,
                        code=vllm_codes.DFLASH_CONFIG_NULL,
                        edit=ConfigEdit.delete(section),
                        fix=f"delete the `{section}` key, or make it an object",
                        evidence="vllm/model_executor/models/qwen3_dflash.py: "
                        f"DFlashQwen3Model.__init__ (getattr(config, {section!r}, {{}})) raises "
                        f"{failure}",
                    )
                )


def _check_markov_rank_type(
    subject: VllmSubject,
    serving: AbstractSet[str],
    missing: dict[str, ConstructionRead],
    found: Findings,
) -> None:
    """A top-level ``markov_rank`` the DSpark constructors read must be a non-negative int:
    ``Qwen3DSparkModel.__init__`` (``vllm/model_executor/models/qwen3_dspark.py``) passes it
    as is to ``nn.Embedding(vocab_size, markov_rank)``, which refuses a string, a float or a
    list (``TypeError``) and a negative size (``RuntimeError``).  A bool is left alone
    (torch takes it as 0 or 1)."""
    reads_it = not _MARKOV_RANK_READERS.isdisjoint(serving)
    get = subject.draft.get
    value = get("markov_rank", None)
    if not reads_it or "markov_rank" in missing or value is None or isinstance(value, bool):
        return
    rank = exact_int(value)
    if rank is None or rank < 0:
        found.error(
            ParallelDraftingConfigError(
                f"`markov_rank` = {describe_value(value)} is not a non-negative integer, so "
                "building vLLM's DSpark Markov head (an nn.Embedding of that width) fails.",
                field="markov_rank",
                code=codes.MARKOV_RANK_INVALID,
                fix="set `markov_rank` to the Markov head's rank, an integer such as 256",
                evidence="vllm/model_executor/models/qwen3_dspark.py: Qwen3DSparkModel.__init__ "
                "(nn.Embedding(vocab_size, markov_rank)) raises TypeError or RuntimeError",
            )
        )


_MARKOV_RANK_READERS: Final = frozenset(
    name for row in CONSTRUCTION_READS if row.field == "markov_rank" for name in row.architectures
)
"""The architectures whose constructor reads ``markov_rank`` (:data:`CONSTRUCTION_READS`)."""


class _ConstructionPlan(NamedTuple):
    """What :func:`check_construction` reads for one list of serving architectures."""

    serving: frozenset[str]
    """The architectures, as a set."""
    rows: tuple[tuple[ConstructionRead, str | None, str], ...]
    """The rows of :data:`CONSTRUCTION_READS` that name any of them, in the table's order,
    each beside its field's section (``None``: the top level) and key, split once."""
    dflash_model: bool
    """Whether any is a DFlash model (:data:`DFLASH_MODEL_ARCHITECTURES`)."""


@lru_cache(maxsize=256)
def _construction_plan(serving: tuple[str, ...]) -> _ConstructionPlan | None:
    """:class:`_ConstructionPlan` of ``serving`` (a pure function of the class names and the
    module's tables, made once per list), ``None`` when :func:`check_construction` has
    nothing to read for it: no row names a class, none reads ``markov_rank``
    (:data:`_MARKOV_RANK_READERS`) and none is a DFlash model."""
    names = frozenset(serving)
    rows = tuple(
        (row, section or None, key)
        for row in CONSTRUCTION_READS
        if not row.architectures.isdisjoint(names)
        for section, _, key in [row.field.rpartition(".")]
    )
    dflash_model = not DFLASH_MODEL_ARCHITECTURES.isdisjoint(names)
    if not rows and not dflash_model and _MARKOV_RANK_READERS.isdisjoint(names):
        return None
    return _ConstructionPlan(names, rows, dflash_model)


MISSING_SECTION: Final = object()
"""A default no config value is (a present ``null`` reads as ``None``)."""


def check_sample_from_anchor(subject: VllmSubject, found: Findings) -> None:
    """A truthy ``dflash_config.sample_from_anchor`` on a DFlash or DSpark draft (after the
    speculators translation, which writes it for a speculators DFlash file) is refused by
    the newer runner: ``DFlashSpeculator.__init__``
    (``vllm/v1/worker/gpu/spec_decode/dflash/speculator.py``) raises ``ValueError``
    ("sample_from_anchor=True is not supported for DFlash"), and DSpark's speculator calls
    it first.  The newer runner is vLLM 0.33's default, and DSpark's only one; the older
    runner's DFlash proposer ignores the field (a note says so).  From
    :data:`~.names.ONE_MODEL_RUNNER` on the newer runner is the only one: no note.
    """
    method = _vllm_method(subject)
    if method not in ("dflash", "dspark"):
        return
    value = read_field(subject.draft.get, *_SAMPLE_FROM_ANCHOR_PARTS, only_dicts=True)
    if not is_set(value) or value is None:
        return
    name = subject.file_field(SAMPLE_FROM_ANCHOR)
    runner = (
        "its default runner and DSpark's only one" if method == "dspark" else "its default runner"
    )
    refuses = (
        "vLLM refuses at start-up"
        if since(subject.version, ONE_MODEL_RUNNER)
        else f"vLLM's newer model runner, {runner}, refuses at start-up"
    )
    found.error(
        ParallelDraftingConfigError(
            f"`{name}` = {describe_value(value)}, which {refuses}.",
            field=name,
            code=vllm_codes.SAMPLE_FROM_ANCHOR_UNSUPPORTED,
            fix=f"delete `{name}` or set it to false",
            evidence="vllm/v1/worker/gpu/spec_decode/dflash/speculator.py: "
            "DFlashSpeculator.__init__"
            + (", which DSparkSpeculator.__init__ calls," if method == "dspark" else "")
            + ' raises ValueError "sample_from_anchor=True is not supported for DFlash"',
        )
    )
    if method == "dflash" and not since(subject.version, ONE_MODEL_RUNNER):
        found.note(
            f"`{name}`: vLLM's older model runner (VLLM_USE_V2_MODEL_RUNNER=0) ignores it.",
            code=vllm_codes.SAMPLE_FROM_ANCHOR_IGNORED,
            field=name,
            evidence="vllm/v1/spec_decode/dflash.py: DFlashProposer",
        )


def _xpress_architecture(subject: VllmSubject) -> str | None:
    """The draft's XPress architecture, as given or as vLLM renames it, when the release
    registers it (``SpeculativeConfig.is_xpress``: a ``dflash`` draft whose architectures
    hold one of :data:`~.names.XPRESS_ARCHITECTURES`), else ``None``."""
    if _vllm_method(subject) != "dflash":
        return None
    classes = _classes(subject)
    names, serving = classes.names, classes.serving(subject)
    if XPRESS_ARCHITECTURES.isdisjoint(names) and XPRESS_ARCHITECTURES.isdisjoint(serving):
        return None  # most DFlash drafts: no list made
    tables = vllm_tables(subject.version)
    for name in (*names, *serving):
        if name in XPRESS_ARCHITECTURES and tables.registered(name) is not None:
            return name
    return None


def check_xpress(subject: VllmSubject, found: Findings) -> None:
    """An XPress draft (``Qwen3XPressModel``, ``DFlashQwen3XPressModel``, registered from
    vLLM 0.33.0 on) is refused:

    * with a truthy top-level ``sample_from_anchor``: ``XPressSpeculator.__init__``
      (``vllm/v1/worker/gpu/spec_decode/xpress/speculator.py``) raises ``ValueError``
      ("sample_from_anchor=True is not supported for XPress"), reading the key XPress
      checkpoints carry at the top level (``dflash_config``'s is
      :func:`check_sample_from_anchor`'s);
    * with an integer ``xpress_topc`` outside ``[0, draft_vocab_size or vocab_size]``:
      ``SpeculativeConfig.__post_init__`` (``vllm/config/speculative.py``) raises
      ``ValueError`` ("xpress_topc must be between 0 and the draft vocabulary size"),
      unless the server's ``--speculative-config`` gives its own ``xpress_topc``.
    """
    name = _xpress_architecture(subject)
    if name is None:
        return
    get = subject.draft.get
    anchor = get("sample_from_anchor", None)
    if is_set(anchor) and anchor is not None and _truthy(anchor):
        found.error(
            ParallelDraftingConfigError(
                f"`sample_from_anchor` = {describe_value(anchor)}, which vLLM's XPress "
                f"speculator ({name}) refuses at start-up: it serves the refiner in the "
                "fill-in layout.",
                field="sample_from_anchor",
                code=vllm_codes.SAMPLE_FROM_ANCHOR_UNSUPPORTED,
                fix="delete `sample_from_anchor` or set it to false",
                evidence="vllm/v1/worker/gpu/spec_decode/xpress/speculator.py: "
                'XPressSpeculator.__init__ raises ValueError "sample_from_anchor=True is not '
                'supported for XPress"',
            )
        )
    raw = get("xpress_topc", None)
    topc = exact_int(raw)
    vocab = exact_int(get("draft_vocab_size", None)) or exact_int(get("vocab_size", None))
    if topc is None or vocab is None or 0 <= topc <= vocab:
        return
    found.error(
        ParallelDraftingConfigError(
            f"`xpress_topc` = {describe_value(raw)} is outside [0, {vocab}], the draft's "
            "vocabulary, so vLLM refuses it at start-up unless the server's "
            "--speculative-config sets its own.",
            field="xpress_topc",
            code=vllm_codes.XPRESS_TOPC_OUT_OF_RANGE,
            fix=f"set `xpress_topc` between 0 (off) and {vocab}, such as 512",
            evidence=(
                "vllm/v1/worker/gpu/spec_decode/xpress/config.py: "
                "XPressSpeculatorConfig.apply_options"
                if since(subject.version, CHECKS_DECLARED_SPECULATOR)
                else "vllm/config/speculative.py: SpeculativeConfig.__post_init__"
            )
            + ' raises ValueError "xpress_topc must be between 0 and the draft vocabulary size"',
        )
    )


def _truthy(value: object) -> bool:
    """``bool(value)`` for the JSON values a config holds (what ``getattr(hf, name, False)``
    tests); a value whose truth cannot be told counts as true."""
    try:
        return bool(value)
    except Exception:
        return True


def check_target_tapped(subject: VllmSubject, found: Findings) -> None:
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
    if not needs_hidden_states(_vllm_method(subject), subject.draft.get, subject.version):
        return
    name = target_class(target.architectures, subject.version)
    if name is None:
        found.warn(
            ParallelDraftingConfigWarning(
                f"The target's `architectures` {list(target.architectures)!r} are in no "
                "registry table of vLLM, which serves it, if at all, through its "
                "Transformers backend (tappable for the drafter's hidden states); that it "
                "serves this target is not checked.",
                field="target.architectures",
                code=vllm_codes.TARGET_ARCHITECTURE_UNREGISTERED,
                evidence=_FALLBACK,
            )
        )
        return
    if name in vllm_tables(subject.version).supports_eagle3:
        return
    module, class_name = vllm_tables(subject.version).registered(name) or ("", "")
    found.error(
        ParallelDraftingConfigError(
            f"The target's architecture {name!r} (vLLM's {class_name} in {module}) does not "
            "implement SupportsEagle3, so vLLM cannot tap it for this drafter's hidden states "
            "and fails loading the target.",
            field="target.architectures",
            code=codes.TARGET_NOT_TAPPABLE,
            evidence="vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py: "
            'set_eagle3_aux_hidden_state_layers raises RuntimeError "Model does not support '
            'EAGLE3 interface"',
        )
    )


def check_null_token_fields(subject: VllmSubject, found: Findings) -> None:
    """A token-id field present as ``null`` above the field that wins (or with no winner):
    vLLM 0.33 reads the ``null``.  The newer runner's ``get_parallel_drafting_token_id``
    (``vllm/v1/worker/gpu/spec_decode/utils.py``) tests ``"mask_token_id" in
    dflash_config`` and ``hasattr`` for the other fields, then calls ``int(None)``:
    ``TypeError``; the older runner's ``_init_parallel_drafting_params``
    (``vllm/v1/spec_decode/llm_base_proposer.py``, up to 0.33.0) stores ``None`` as the
    token id.  Only
    a top-level ``mask_token_id: null`` is skipped by both.  The library's own entry points
    (``ParallelDraftingConfig``, the drop-ins) treat every ``null`` as unset, by design;
    this rule is for ``check()`` verdicts only.
    """
    if subject.resolution.speculators is not None or subject.token_unused:
        return
    one_runner = since(subject.version, ONE_MODEL_RUNNER)
    for verdict in subject.resolution.fields:
        if verdict.status is FieldStatus.WINNER:
            return
        if verdict.status is not FieldStatus.NULL or verdict.source.value == "mask_token_id":
            continue
        name = subject.file_field(verdict.source.value)
        found.error(
            ParallelDraftingConfigError(
                f"`{name}` is present and null, and vLLM reads it before any field below it: "
                + (
                    "it fails on it."
                    if one_runner
                    else "its newer model runner fails on it, its older one drafts with None "
                    "as the token id."
                ),
                field=name,
                code=vllm_codes.TOKEN_FIELD_NULL,
                edit=ConfigEdit.delete(name),
                fix=f"delete the `{name}` key (only a top-level `mask_token_id: null` is skipped)",
                evidence="vllm/v1/worker/gpu/spec_decode/utils.py: "
                "get_parallel_drafting_token_id raises TypeError (int(None))"
                + (
                    ""
                    if one_runner
                    else "; vllm/v1/spec_decode/llm_base_proposer.py: "
                    "_init_parallel_drafting_params"
                ),
            )
        )
        return


def check_served_context(subject: VllmSubject, found: Findings) -> None:
    """Given a target, whether vLLM 0.33 lowers the server's ``max_model_len`` to a DFlash or
    DSpark draft's: its newer runner does (``_limit_max_model_len_to_draft`` in
    ``vllm/config/vllm.py``) unless the draft shares the target's positions, i.e. every RoPE
    type of the draft is cache-only (``draft_shares_target_positions`` and
    ``_CACHE_ONLY_ROPE_TYPES`` in ``vllm/config/speculative.py``), in which case vLLM
    stretches the draft's rotary cache instead.  Both lengths are derived as vLLM derives
    them (:func:`derived_max_model_len`); the RoPE type comes
    from ``rope_parameters`` or the legacy ``rope_scaling``.  A warning: the server runs,
    with a shorter context than the target's.  vLLM before :data:`~.names.LOWERS_MAX_MODEL_LEN`
    (0.32.0) has no such step (it only clamps the draft's own ``max_model_len`` to the
    target's, ``_maybe_override_draft_max_model_len``): nothing to say there.
    """
    if not since(subject.version, LOWERS_MAX_MODEL_LEN):
        return
    target = subject.target
    target_len = None if target is None else target_max_model_len(target)
    if target is None or target_len is None:
        return
    if _vllm_method(subject) not in ("dflash", "dspark"):
        return
    get = subject.draft.get
    if rope_only_sizes_cache(get):
        return
    draft_len = derived_max_model_len(get)
    if draft_len is None or draft_len >= target_len:
        return
    kinds = sorted({str(entry["rope_type"]) for entry in rope_parameters(get)})
    who = "vLLM" if since(subject.version, ONE_MODEL_RUNNER) else "vLLM's newer model runner"
    found.warn(
        ParallelDraftingConfigWarning(
            f"{who} lowers the server's max_model_len from the target's "
            f"{target_len} to the draft's {draft_len}, as the draft's RoPE type "
            f"({', '.join(kinds)}) cannot stretch its rotary cache to the target's length.",
            code=vllm_codes.MAX_MODEL_LEN_LOWERED,
            fix=f"serve with --max-model-len {draft_len} or less, or give the draft a longer "
            "max_position_embeddings if it was trained for one",
            evidence="vllm/config/vllm.py: _limit_max_model_len_to_draft; "
            "vllm/config/speculative.py: _CACHE_ONLY_ROPE_TYPES",
        )
    )
