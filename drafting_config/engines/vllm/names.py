"""Every name vLLM's code tests a draft for, spelled once: its releases, the draft
architectures and model types its code names, and the releases from which a rule holds.
"""

from __future__ import annotations

from functools import cache
from types import MappingProxyType
from typing import Final, Literal, get_args

from drafting_config.draft.architectures import DSPARK_DRAFT, QWEN3_DSPARK, QWEN3_OMNI_DSPARK
from drafting_config.engines.transformers import version_key

Release = Literal["vllm==0.32.0", "vllm==0.33.0", "vllm==0.34.0"]
"""Each vLLM release this package reads, as ``engine=`` names it, oldest first: one tables
file each (``vllm-VERSION.json``, :mod:`.tables`).  A ``Literal``, so that mypy rejects a
release the package does not ship; adding a release adds its string here."""

VERSIONS: Final = tuple(release.removeprefix("vllm==") for release in get_args(Release))
"""The releases of :data:`Release`, as version numbers, oldest first."""

VERSION: Final = VERSIONS[-1]
"""The newest of them, the one a verdict speaks for unless told."""

ENGINE: Final = f"vllm {VERSION}"
"""How a verdict names the newest release."""

SERVE_OPTION: Final = "--speculative-config"
"""The option of a verdict's serve command (``serve_with``) that takes the speculative
configuration, as JSON (the same in every release)."""


def engine_name(version: str) -> str:
    """How a verdict names vLLM ``version``: ``"vllm 0.32.0"``."""
    return f"vllm {version}"


@cache
def since(version: str, first: str) -> bool:
    """Whether release ``version`` is ``first`` or later: a rule that holds from ``first``
    (cached: every rule gated by release asks it of the same few pairs, for every draft)."""
    return version_key(version) >= version_key(first)


@cache
def last_before(first: str) -> str:
    """The newest shipped release before ``first``: the last one a rule gated on ``first``
    does not hold for (``"0.33.0"`` for ``"0.34.0"``), as a fix names it (cached: the fixes
    of every such draft name it)."""
    earlier: list[str] = [version for version in VERSIONS if not since(version, first)]
    return earlier[-1]


LOWERS_MAX_MODEL_LEN: Final = "0.33.0"
"""The first release that lowers the served ``max_model_len`` to a draft whose RoPE types are
not all cache-only (``VllmConfig._limit_max_model_len_to_draft``, ``config/vllm.py``;
0.32.0 has no such step and only raises an EAGLE draft's ``max_position_embeddings``)."""

HONOURS_USE_AUX_HIDDEN_STATE: Final = "0.33.0"
"""The first release whose newer (default) model runner leaves the target untapped for an
EAGLE-3 draft with ``eagle_config.use_aux_hidden_state`` false (``requires_aux_hidden_states``
in ``v1/worker/gpu/spec_decode/eagle/eagle3_utils.py``); 0.32.0's ``model_runner.py`` taps for
every ``eagle3`` draft (``method in ("eagle3", "dflash", "dspark", ...)``)."""

DROPS_HETEROGENEOUS_VOCAB: Final = "0.34.0"
"""The first release without ``SpeculativeConfig.use_heterogeneous_vocab``
(``config/speculative.py``): a separate draft model (``draft_model``) whose vocabulary
differs from the target's is refused at the config stage in every release
(``_verify_args`` -> ``verify_equal_vocab_size_if_draft_model``), and before this release
``"use_heterogeneous_vocab": true`` lets it through (greedy drafting on the older runner,
``v1/spec_decode/draft_model.py``); from it on nothing does (the check is gated on the
speculator's ``draft_has_own_vocab``, ``v1/worker/gpu/spec_decode/standalone_ar/config.py``)."""
ONE_MODEL_RUNNER: Final = "0.34.0"
"""The first release with one GPU model runner (Model Runner V2, ``vllm/v1/worker/gpu/``):
0.34.0 deletes the older one (``vllm/v1/worker/gpu_model_runner.py``, most of
``vllm/v1/spec_decode/``, ``VllmConfig.use_v2_model_runner`` in ``config/vllm.py``), so no
draft is served by a second runner reading its own layer chain."""

REFUSES_PARALLEL_SWITCH: Final = "0.34.0"
"""The first release that refuses ``"parallel_drafting": true`` for every method but
``dflash`` and ``dspark`` (``SpeculativeConfig._verify_args`` in ``vllm/config/speculative.py``
raises ``ValueError``; the field is "Deprecated and has no effect"): PTD and PARD drafts are
served sequentially, as EAGLE-3 or as a draft model, their token unused."""

REFUSES_PEAGLE: Final = "0.34.0"
"""The first release that refuses P-EAGLE: ``update_peagle``
(``vllm/transformers_utils/configs/speculators/algos.py``) raises "P-EAGLE (parallel drafting
EAGLE-3) is not supported.", and ``registry.py`` no longer registers ``PEagleDraftModel``,
``PeagleLlamaForCausalLM`` or ``PeagleQwen3ForCausalLM``."""

CHECKS_DECLARED_SPECULATOR: Final = "0.34.0"
"""The first release that checks the requested ``method`` against the speculator the draft's
class declares (``speculator_config_class``; ``_resolve_checkpoint_config_class`` in
``vllm/v1/worker/gpu/spec_decode/speculator_config.py`` raises ``ValueError`` "requested
method=..., but the draft model ... is a ... checkpoint")."""

DECLARED_METHODS: Final = MappingProxyType(
    {
        **dict.fromkeys(
            (
                "DFlashQwen3ForCausalLM",  # qwen3_dflash.py
                "DFlash2Qwen3ForCausalLM",  # qwen3_dflash2.py (DFlash2SpeculatorConfig)
                "RicursiveDFlash2ForCausalLM",  # ricursive_dflash2.py, inherited
                "DFlash2BeamForCausalLM",  # vllm/models/beam/*/dflash2.py
                "LiLiCorrForCausalLM",  # lilicorr.py (LiLiCorrSpeculatorConfig)
                "Qwen3XPressForCausalLM",  # qwen3_xpress.py (XPressSpeculatorConfig)
                "DFlashLagunaForCausalLM",  # laguna_dflash.py
            ),
            "dflash",
        ),
        **dict.fromkeys(
            (
                "Qwen3DSparkForCausalLM",  # qwen3_dspark.py
                "Gemma4DSparkForCausalLM",  # gemma4_dspark.py, inherited
                "MuseSparkDSparkForCausalLM",  # vllm/models/muse_spark/common/dspark.py
                "MiniMaxM3DSparkForCausalLM",  # vllm/models/minimax_m3/common/dspark.py
                "K3DSparkForCausalLM",  # vllm/models/kimi_k3/nvidia/dspark_mla.py
                "MistralLarge4DSparkForCausalLM",  # vllm/models/mistral/mistral_large4/*
            ),
            "dspark",
        ),
    }
)
"""vLLM 0.34.0's drafter classes (the class of a ``_SPECULATIVE_DECODING_MODELS`` row) that
declare a speculator, to its ``base_method`` (``DFlashSpeculatorConfig`` and its subclasses
``DFlash2``, ``LiLiCorr`` and ``XPress``: ``"dflash"``; ``DSparkSpeculatorConfig``:
``"dspark"``; ``v1/worker/gpu/spec_decode/*/config.py``), own or inherited.  The EAGLE-3
classes and DeepSeek-V4's ``DSparkDeepseekV4ForCausalLM`` declare none."""


# --- names ------------------------------------------------------------------------------------

DFLASH_DRAFT: Final = "DFlashDraftModel"
DFLASH2_DRAFT: Final = "DFlash2DraftModel"
DFLASH2_BEAM_DRAFT: Final = "DFlash2BeamDraftModel"
LILICORR_DRAFT: Final = "LiLiCorrDraftModel"
MUSE_GLIMMER: Final = "MuseGlimmerAssistantModel"
DFLASH_MUSE_GLIMMER: Final = "DFlashMuseGlimmerAssistantModel"

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

XPRESS_ARCHITECTURES: Final = frozenset({"Qwen3XPressModel", "DFlashQwen3XPressModel"})
"""Draft architectures that carry an XPress refiner, served as ``dflash`` drafts
(``XPRESS_ARCHITECTURES`` in ``vllm/config/speculative.py``, new in 0.33.0: a checkpoint is
seen under either name, since ``EAGLEConfig`` renames a dflash draft's to ``DFlash{arch}``)."""

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

DFLASH_FC_ARCHITECTURES: Final = DFLASH_MODEL_ARCHITECTURES | {DSPARK_DRAFT}
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
