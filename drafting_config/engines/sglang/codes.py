"""SGLang's own finding codes: the facts only SGLang's rules state (its DFlash and DSpark
parses, the target classes' capture hooks, ``mask_embedding.pt``), declared with
:func:`~drafting_config.values.codes.declare` into the one table,
:data:`drafting_config.engines.CODES`.

A code of the core, or one both engines' rules give, is declared in
:mod:`drafting_config.values.codes`; a code only SGLang's rules give is declared here, so
that a rule and its code live in the engine's slice (``tests/engines/test_codes.py`` holds
the split).  Read the whole table through :mod:`drafting_config.engines`, which imports every
engine (SGLang's rules load on first use, its codes with the engine).
"""

from __future__ import annotations

from typing import Final

from drafting_config.values.codes import Step, declare

# parse
MODEL_TYPE_MISSING: Final = declare(
    "model-type-missing",
    Step.PARSE,
    "The config has no `model_type`, so transformers' AutoConfig, through which the engine "
    "loads it, cannot parse it.",
    fix="serve a speculators-format file with vLLM, which parses it itself; otherwise set "
    "`model_type` to the type of the draft's layers",
)
DRAFT_CONFIG_FIELD_INVALID: Final = declare(
    "draft-config-field-invalid",
    Step.PARSE,
    "A field of the draft's DFlash or DSpark config is a value the engine's parse refuses.",
)
DOMINO_FIELDS_INVALID: Final = declare(
    "domino-fields-invalid",
    Step.PARSE,
    "A Domino draft's fields are missing or not what the engine's parse accepts.",
)
MARKOV_HEAD_TYPE_MISSING: Final = declare(
    "markov-head-type-missing",
    Step.PARSE,
    "A DSpark draft sets markov_rank but no markov_head_type.",
)
MARKOV_HEAD_TYPE_INVALID: Final = declare(
    "markov-head-type-invalid",
    Step.PARSE,
    "markov_head_type is not one of the head types the engine builds.",
)

# registry
ARCHITECTURE_NOT_DRAFTER: Final = declare(
    "architecture-not-drafter",
    Step.REGISTRY,
    "The engine has no draft class among `architectures` and loads another class.",
)

# token
TOKEN_NOT_NAMED: Final = declare(
    "token-not-named",
    Step.TOKEN,
    "The draft names no mask token id: the engine takes one from the served tokenizer.",
)
TOKEN_ADDED_TO_TOKENIZER: Final = declare(
    "token-added-to-tokenizer",
    Step.TOKEN,
    "The served tokenizer lacks the mask token: the engine adds it at a new id.",
)
TOKEN_FROM_TOKENIZER: Final = declare(
    "token-from-tokenizer",
    Step.TOKEN,
    "The engine takes the token id from the tokenizer.",
)

# layers
EAGLE_LAYER_IDS_MISPLACED: Final = declare(
    "eagle-layer-ids-misplaced",
    Step.LAYERS,
    "EAGLE layer ids are set at the top level, where SGLang does not read them.",
)
DERIVED_LAYERS_INVALID: Final = declare(
    "derived-layers-invalid",
    Step.LAYERS,
    "The draft names no target layers and the ones the engine derives are unusable.",
)

# tap
TARGET_HOOK_BROKEN: Final = declare(
    "target-hook-broken",
    Step.TAP,
    "The target's capture hook calls a method its language model lacks.",
)
LAST_LAYER_NEVER_CAPTURED: Final = declare(
    "last-layer-never-captured",
    Step.TAP,
    "A tapped layer is the target's last: the capture hook never reaches it.",
)
LAST_LAYER_REFUSED: Final = declare(
    "last-layer-refused",
    Step.TAP,
    "A tapped layer is the target's last: the capture hook refuses it.",
)

# construction
SIZE_FROM_CONFIG_DEFAULT: Final = declare(
    "size-from-config-default",
    Step.CONSTRUCTION,
    "A size the draft class reads is not set, so the default of the config class of its "
    "`model_type` applies, which may not be the draft's.",
)
MARKOV_RANK_NESTED_ONLY: Final = declare(
    "markov-rank-nested-only",
    Step.CONSTRUCTION,
    "`markov_rank` is set in a nested section only, where SGLang's DSpark model does not read it.",
)
MARKOV_HEAD_TYPE_NESTED: Final = declare(
    "markov-head-type-nested",
    Step.CONSTRUCTION,
    "`markov_head_type` is set in a nested section only: SGLang builds a vanilla head.",
)
DFLASH2_SELECTOR_MISSING: Final = declare(
    "dflash2-selector-missing",
    Step.CONSTRUCTION,
    "A DFlash2 draft lacks `dflash_config.selector_rank`.",
)

# weights
MASK_EMBEDDING_INVALID: Final = declare(
    "mask-embedding-invalid",
    Step.WEIGHTS,
    "mask_embedding.pt is not what SGLang's DFlash worker loads.",
)
WEIGHTS_D2T_MISSING: Final = declare(
    "weights-d2t-missing",
    Step.WEIGHTS,
    "An EAGLE-3 head with a reduced vocabulary ships no d2t: the engine takes the draft's "
    "token ids for the target's.",
    fix="ship the d2t tensor the head was trained with",
)

# the mode a verdict judges, and the rules the real engine showed missing
DFLASH_CLASS_DERIVES_LAYERS: Final = declare(
    "dflash-class-derives-layers",
    Step.CONSTRUCTION,
    "SGLang's DFlash draft class derives its layers from its own depth when the draft names "
    "neither layers nor num_target_layers, and a depth of 2 or 3 is refused.",
)
LAYERS_CAPTURED_IN_ORDER: Final = declare(
    "layers-captured-in-order",
    Step.LAYERS,
    "The tapped layer ids repeat or decrease, but the target captures each layer once, in "
    "layer order: fc gets fewer features than it is sized for, or features in another order.",
)


# --- the launch -----------------------------------------------------------------------------

LAUNCH_STEPS: Final = declare(
    "launch-steps",
    Step.PARSE,
    "The launch's speculative steps, top-k and draft tokens are refused by the engine's "
    "server arguments, or overridden by them.",
    fix="set the steps, top-k and draft tokens as the engine's server arguments require",
)
LAUNCH_DRAFT_PATH_MISSING: Final = declare(
    "launch-draft-path-missing",
    Step.PARSE,
    "The launch names an algorithm that needs a draft model but gives no draft model path.",
    fix="add --speculative-draft-model-path with the draft's path",
)
