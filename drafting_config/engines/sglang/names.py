"""What SGLang 0.5.23 calls a draft, each name spelled once: its release, its
``--speculative-algorithm`` values, its draft classes and the algorithm each serves
(:data:`DRAFT_CLASSES`), and the methods and formats it lacks (which class of
``architectures`` SGLang loads is :func:`~drafting_config.engines.sglang.config.draft_class`).
Every function of the package reads a draft's config through a
:data:`~drafting_config.values.fields.FieldGetter` as SGLang reads the ``PretrainedConfig``
transformers builds from ``config.json`` (a nested section is a ``dict``; a missing
``text_config`` is the config itself), and raises :class:`SglangRefuses` where SGLang
raises, naming the field.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, Literal, get_args

from drafting_config.values.errors import (
    ParallelDraftingConfigError,
)

Release = Literal["sglang==0.5.23"]
"""Each SGLang release this package reads, as ``engine=`` names it, oldest first: one tables
file each (``sglang-VERSION.json``, :mod:`.tables`)."""

VERSIONS: Final = tuple(release.removeprefix("sglang==") for release in get_args(Release))
"""The releases of :data:`Release`, as version numbers, oldest first."""

VERSION: Final = VERSIONS[-1]
"""The newest of them, the one a verdict speaks for."""

ENGINE: Final = f"sglang {VERSION}"
"""How a verdict names the engine it speaks for."""

SERVE_OPTION: Final = "--speculative-algorithm"
"""The option of a verdict's serve command (``serve_with``) that names the algorithm
(``srt/arg_groups/fields/spec.py: speculative_algorithm``)."""


class SglangRefuses(ParallelDraftingConfigError):
    """SGLang raises on the draft at the step the message names (a config field, the
    tokenizer, the target class)."""


class Algorithm(str, enum.Enum):
    """The values of ``--speculative-algorithm`` a draft of this package can be served with
    (``srt/speculative/spec_info.py: SpeculativeAlgorithm``)."""

    DFLASH = "DFLASH"
    DSPARK = "DSPARK"
    EAGLE3 = "EAGLE3"
    EAGLE = "EAGLE"
    """EAGLE-1 and EAGLE-2 heads (``srt/speculative/eagle_worker_v2.py: EAGLEWorkerV2``, not
    ``is_eagle3``), judged here only for an EAGLE-1 head published under its base class."""
    STANDALONE = "STANDALONE"
    """A plain causal LM as a separate draft model, drafting one token a step
    (``srt/speculative/standalone_worker_v2.py: StandaloneWorkerV2``)."""


# No draft format of this package maps to SGLang's other algorithms: UNO drafts with no
# draft model of its own (``srt/speculative/uno_worker_v2.py: UnoWorkerV2`` builds none),
# FROZEN_KV_MTP is the Gemma-4 assistant heads reading the target's KV cache
# (``srt/speculative/frozen_kv_mtp_worker_v2.py``, ``srt/models/gemma4_mtp.py``), NEXTN is
# the MTP heads, NGRAM has no draft model.


# --- the draft's model class ----------------------------------------------------------------

BUNDLING_TARGET: Final = "DeepseekV4ForCausalLM"
"""The target class whose checkpoint may bundle a DSpark draft head (:func:`draft_class`)."""

BUNDLED_DRAFT: Final = "DeepseekV4ForCausalLMDSpark"
"""The class SGLang loads such a checkpoint with as the draft
(``srt/models/deepseek_v4_dspark.py``)."""

REWRITTEN_TO_HEADS: Final = frozenset(
    {
        "BailingMoeForCausalLM",
        "BailingMoeV2ForCausalLM",
        "BailingMoeV2_5ForCausalLM",
        "BailingMoeV3ForCausalLM",
        "DeepseekV32ForCausalLM",
        "DeepseekV3ForCausalLM",
        BUNDLING_TARGET,  # to its DSpark head when bundled, else to its MTP head
        "Ernie4_5_MoeForCausalLM",
        "ExaoneMoEForCausalLM",
        "ExaoneMoeForCausalLM",
        "GigaChat35ForCausalLM",
        "Glm4MoeForCausalLM",
        "Glm4MoeLiteForCausalLM",
        "Glm5NextForConditionalGeneration",
        "GlmMoeDsaForCausalLM",
        "GlmOcrForConditionalGeneration",
        "HYV3ForCausalLM",
        "HYV4ForCausalLM",
        "InklingForConditionalGeneration",
        "InternS2MobiusForConditionalGeneration",
        "InternS2PreviewForConditionalGeneration",
        "LongcatFlashForCausalLM",
        "MiMoForCausalLM",
        "MiMoV2ForCausalLM",
        "MiMoV2FlashForCausalLM",
        "NemotronHForCausalLM",
        "NemotronHPuzzleForCausalLM",
        "NemotronH_Omni_Reasoning_V3",
        "Qwen3MoeForCausalLM",
        "Qwen3NextForCausalLM",
        "Qwen3_5ForCausalLM",
        "Qwen3_5ForConditionalGeneration",
        "Qwen3_5MoeForCausalLM",
        "Qwen3_5MoeForConditionalGeneration",
        "Qwen4ExpForConditionalGeneration",
        "Step3p5ForCausalLM",
        "Step3p7ForConditionalGeneration",
    }
)
"""The target classes whose ``architectures[0]`` SGLang rewrites to their MTP (NextN) head
whenever it loads them as the draft, whatever the algorithm
(``srt/configs/model_config.py: ModelConfig._config_draft_model``): as a draft they are no
plain causal LM."""

DRAFT_CLASSES: Final[Mapping[str, Algorithm]] = MappingProxyType(
    {
        # srt/models/dflash.py: EntryClass
        "DFlashDraftModel": Algorithm.DFLASH,
        "DFlashLagunaForCausalLM": Algorithm.DFLASH,
        "MuseGlimmerAssistantModel": Algorithm.DFLASH,
        "DFlash2DraftModel": Algorithm.DFLASH,
        "DFlash2BeamDraftModel": Algorithm.DFLASH,
        "MiniMaxDFlash2DraftModel": Algorithm.DFLASH,
        "LiLiCorrDraftModel": Algorithm.DFLASH,  # srt/models/lilicorr.py
        # srt/models/dspark.py: EntryClass (DSparkDraftMixin), and its subclasses
        "Qwen3DSparkModel": Algorithm.DSPARK,
        "LingDSparkModel": Algorithm.DSPARK,
        "DSparkDraftModel": Algorithm.DSPARK,
        "Lfm2DSparkDraftModel": Algorithm.DSPARK,  # srt/models/lfm2_dspark.py
        "DSparkMiniMaxDraftModel": Algorithm.DSPARK,  # srt/models/dspark_minimax.py
        BUNDLED_DRAFT: Algorithm.DSPARK,  # srt/models/deepseek_v4_dspark.py
        # srt/models/llama_eagle3.py, srt/models/kimi_k25_eagle3.py
        "LlamaForCausalLMEagle3": Algorithm.EAGLE3,
        "Eagle3DeepseekV2ForCausalLM": Algorithm.EAGLE3,
        # srt/models/llama_eagle.py, qwen2_eagle.py, mistral_eagle.py: EntryClass (EAGLE-1/2
        # heads: fc over the embedding and the target's last state, 2 * hidden_size)
        "LlamaForCausalLMEagle": Algorithm.EAGLE,
        "Qwen2ForCausalLMEagle": Algorithm.EAGLE,
        "MistralForCausalLMEagle": Algorithm.EAGLE,
    }
)
"""SGLang's draft model classes of the DFlash family, of EAGLE-3 and of EAGLE (each registered
under its class name, ``srt/models/registry.py: import_model_classes``), with the
algorithm each serves: a DSpark class subclasses ``DSparkDraftMixin``, a DFlash class
``DFlashDraftModel``."""

DFLASH2_CLASSES: Final = frozenset(
    {"DFlash2DraftModel", "DFlash2BeamDraftModel", "MiniMaxDFlash2DraftModel"}
)
"""Candidate-head classes: ``DFlash2DraftModel.__init__`` requires
``dflash_config.selector_rank``."""

MUSE_LAYER_OUTPUT_DRAFTS: Final = frozenset({"DFlash2DraftModel", "MuseGlimmerAssistantModel"})
"""Drafts whose ids SGLang adds 1 to on a ``muse_glimmer`` target
(``spec_aux_hidden_state.py: _MUSE_LAYER_OUTPUT_DRAFT_ARCHITECTURES``)."""


NOT_IN_SGLANG: Final = {
    "pard": "PARD (a complete draft LM filling masked slots)",
    "ptd": "parallel token drafting for EAGLE-3",
    "peagle": "P-EAGLE",
}
"""Methods SGLang 0.5.23 has no algorithm for (``srt/speculative/spec_info.py:
SpeculativeAlgorithm``: DFLASH, UNO, DSPARK, EAGLE, EAGLE3, FROZEN_KV_MTP, STANDALONE,
NGRAM), and nothing in it reads ``pard_token`` or ``ptd_token_id``."""

OFFERS: Final = (
    "serve it with vLLM, or train a draft of a class SGLang serves: DFlashDraftModel "
    "(DFLASH), DSparkDraftModel or Qwen3DSparkModel (DSPARK), LlamaForCausalLMEagle3 "
    "(sequential EAGLE3), a registered causal LM (sequential STANDALONE)"
)
"""The fix for a draft SGLang 0.5.23 has no method or class for: what it offers
(``--speculative-algorithm`` DFLASH, DSPARK, and sequential EAGLE3 and STANDALONE)."""
