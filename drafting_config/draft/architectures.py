"""The draft class names trainers publish, which every engine reads in a draft's
``architectures``: P-EAGLE's, and the DSpark drafts' (SpecForge's, Qwen3-Omni's, Muse Spark's,
Gemma 4's), and where SpecForge's DSpark drafts in DFlash's layout say they are DSpark.  Names
no engine; each engine's package says what its code does with them.
"""

from __future__ import annotations

from typing import Final

from drafting_config.values.fields import FieldGetter, is_list, read_path

PEAGLE_LLAMA: Final = "PeagleLlamaForCausalLM"
PEAGLE_QWEN3: Final = "PeagleQwen3ForCausalLM"
PEAGLE_DRAFT: Final = "PEagleDraftModel"
PEAGLE_CLASSES: Final = frozenset({PEAGLE_DRAFT, PEAGLE_LLAMA, PEAGLE_QWEN3})
"""P-EAGLE drafts' architectures."""

QWEN3_DSPARK: Final = "Qwen3DSparkModel"
QWEN3_OMNI_DSPARK: Final = "Qwen3OmniDSparkModel"
"""The DSpark draft architecture of a Qwen3-Omni target."""
MUSE_SPARK_DSPARK: Final = "MuseSparkDSparkModel"
GEMMA4_DSPARK: Final = "Gemma4DSparkModel"
DSPARK_DRAFT: Final = "DSparkDraftModel"
"""SpecForge's DSpark drafts."""

DSPARK_MODEL_ARCHITECTURES: Final = frozenset(
    {QWEN3_DSPARK, QWEN3_OMNI_DSPARK, MUSE_SPARK_DSPARK, GEMMA4_DSPARK}
)
"""Draft architectures that are DSpark whatever their token field (``DSparkDraftModel`` is
also a DFlash-layout name of some trainers, so it is not among them)."""

DSPARK_PROJECTOR_FIELD: Final = "dflash_config.projector_type"
"""Where SpecForge's DSpark drafters, in DFlash's layout, say they are DSpark."""


def architecture_names(get: FieldGetter) -> set[str]:
    """The strings among a draft's ``architectures`` (none when it is not a list).

    Raises:
        ParallelDraftingConfigError: ``architectures`` cannot be read at all.
    """
    listed = get("architectures", None)
    return {name for name in listed if isinstance(name, str)} if is_list(listed) else set()


def dspark_projector(get: FieldGetter) -> bool:
    """Whether ``dflash_config.projector_type`` is ``"dspark"`` (a DSpark draft in DFlash's
    layout).

    Raises:
        ParallelDraftingConfigError: the field cannot be read at all.
    """
    projector = read_path(get, DSPARK_PROJECTOR_FIELD)
    return isinstance(projector, str) and projector == "dspark"


EAGLE3_HEAD_FIELDS: Final = (
    "draft_vocab_size",
    "target_hidden_size",
    "eagle_aux_hidden_state_layer_ids",
    "eagle_config",
)
"""Fields only an EAGLE-3 head's config carries (its pruned vocabulary, the width of the
target states it projects, the target layers it taps, its EAGLE section): a config naming a
plain causal-LM class (``LlamaForCausalLM``) with any of them set is an EAGLE-3 head
published under its base class, as the original EAGLE-3 releases are (their ``config.json``
names ``LlamaForCausalLM``, one layer, and ``draft_vocab_size``)."""


def eagle3_head_fields(get: FieldGetter) -> tuple[str, ...]:
    """The fields of :data:`EAGLE3_HEAD_FIELDS` the draft's config sets (not ``null``), in
    that order; empty for a plain causal LM.

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    return tuple(name for name in EAGLE3_HEAD_FIELDS if get(name, None) is not None)
