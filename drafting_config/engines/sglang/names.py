"""What SGLang 0.5.23 calls a draft, each name spelled once: its release, its
``--speculative-algorithm`` values, its draft classes and the algorithm each serves
(:data:`DRAFT_CLASSES`, :func:`draft_class`, :func:`algorithm_of`), and the methods and
formats it lacks.  Every function here and in the package's other modules reads a draft's
config through a :data:`~drafting_config.values.fields.FieldGetter` as SGLang reads the
``PretrainedConfig`` transformers builds from ``config.json`` (a nested section is a
``dict``; a missing ``text_config`` is the config itself), and raises
:class:`SglangRefuses` where SGLang raises, naming the field.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, Literal, get_args

from drafting_config.values.errors import (
    ParallelDraftingConfigError,
)
from drafting_config.values.fields import FieldGetter, is_list

Release = Literal["sglang==0.5.23"]
"""Each SGLang release this package reads, as ``engine=`` names it, oldest first: one tables
file each (``sglang-VERSION.json``, :mod:`.tables`)."""

VERSIONS: Final = tuple(release.removeprefix("sglang==") for release in get_args(Release))
"""The releases of :data:`Release`, as version numbers, oldest first."""

VERSION: Final = VERSIONS[-1]
"""The newest of them, the one a verdict speaks for."""

ENGINE: Final = f"sglang {VERSION}"
"""How a verdict names the engine it speaks for."""


class SglangRefuses(ParallelDraftingConfigError):
    """SGLang raises on the draft at the step the message names (a config field, the
    tokenizer, the target class)."""


class Algorithm(str, enum.Enum):
    """The values of ``--speculative-algorithm`` a draft of this package can be served with
    (``srt/speculative/spec_info.py: SpeculativeAlgorithm``)."""

    DFLASH = "DFLASH"
    DSPARK = "DSPARK"
    EAGLE3 = "EAGLE3"


# --- the draft's model class ----------------------------------------------------------------

BUNDLING_TARGET: Final = "DeepseekV4ForCausalLM"
"""The target class whose checkpoint may bundle a DSpark draft head (:func:`draft_class`)."""

BUNDLED_DRAFT: Final = "DeepseekV4ForCausalLMDSpark"
"""The class SGLang loads such a checkpoint with as the draft
(``srt/models/deepseek_v4_dspark.py``)."""

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
    }
)
"""SGLang's draft model classes of the DFlash family and of EAGLE-3 (each registered
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


BUNDLED_DSPARK_KEYS: Final = (
    "dspark_block_size",
    "dspark_markov_rank",
    "dspark_noise_token_id",
    "dspark_target_layer_ids",
)
"""The top-level keys that mark a checkpoint bundling a DSpark draft head
(``srt/speculative/dspark_components/dspark_config.py: checkpoint_bundles_dspark_draft``)."""


def bundles_dspark_draft(get: FieldGetter) -> bool:
    """``checkpoint_bundles_dspark_draft`` (``dspark_config.py``): any of
    :data:`BUNDLED_DSPARK_KEYS` set, not null, at the config's top level."""
    return any(get(key, None) is not None for key in BUNDLED_DSPARK_KEYS)


def draft_class(get: FieldGetter) -> str | None:
    """The SGLang draft class that loads the draft: the first of its ``architectures``
    that is one (``srt/models/registry.py: ModelRegistry.resolve_model_cls`` takes
    ``architectures[0]`` when registered); ``None`` when none is.

    A DeepSeek-V4 target checkpoint that bundles its DSpark head (``architectures[0]``
    :data:`BUNDLING_TARGET` and :func:`bundles_dspark_draft`) is served as the draft too:
    ``srt/configs/model_config.py: ModelConfig._config_draft_model`` rewrites its
    ``architectures[0]`` to :data:`BUNDLED_DRAFT` when the algorithm is unset or DSPARK
    (otherwise to the MTP head ``DeepseekV4ForCausalLMNextN``, no draft of this package).

    Raises:
        ParallelDraftingConfigError: ``architectures`` cannot be read at all.
    """
    listed = get("architectures", None)
    names = [listed] if isinstance(listed, str) else listed if is_list(listed) else []
    if names and names[0] == BUNDLING_TARGET and bundles_dspark_draft(get):
        return BUNDLED_DRAFT
    for name in names:
        if isinstance(name, str) and name in DRAFT_CLASSES:
            return name
    return None


def algorithm_of(get: FieldGetter) -> Algorithm | None:
    """The ``--speculative-algorithm`` the draft's SGLang class serves (see
    :func:`draft_class`), or ``None`` when SGLang has no class for it."""
    name = draft_class(get)
    return None if name is None else DRAFT_CLASSES[name]


NOT_IN_SGLANG: Final = {
    "pard": "PARD (a complete draft LM filling masked slots)",
    "ptd": "parallel token drafting for EAGLE-3",
    "peagle": "P-EAGLE",
}
"""Methods SGLang 0.5.23 has no algorithm for (``srt/speculative/spec_info.py:
SpeculativeAlgorithm``: DFLASH, UNO, DSPARK, EAGLE, EAGLE3, FROZEN_KV_MTP, STANDALONE,
NGRAM), and nothing in it reads ``pard_token`` or ``ptd_token_id``."""

OFFERS: Final = (
    "SGLang offers DFLASH, DSPARK and sequential EAGLE3 (--speculative-algorithm) for "
    "drafts of its classes DFlashDraftModel, DSparkDraftModel/Qwen3DSparkModel and "
    "LlamaForCausalLMEagle3"
)
