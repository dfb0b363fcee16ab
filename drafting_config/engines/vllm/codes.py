"""vLLM's own finding codes: the facts only vLLM's rules state (the speculators
translation, its registry and runners, its drafter classes' weights), declared with
:func:`~drafting_config.values.codes.declare` into the one table,
:data:`drafting_config.engines.CODES`.

A code of the core, or one both engines' rules give, is declared in
:mod:`drafting_config.values.codes`; a code only vLLM's rules give is declared here, so that
a rule and its code live in the engine's slice (``tests/engines/test_codes.py`` holds the
split).  Read the whole table through :mod:`drafting_config.engines`, which imports every
engine: :data:`drafting_config.values.codes.CODES` alone lacks the engines' codes until they
are imported.
"""

from __future__ import annotations

from typing import Final

from drafting_config.values.codes import Step, declare

# parse
MODEL_TYPE_TOO_NEW: Final = declare(
    "model-type-too-new",
    Step.PARSE,
    "`model_type` is known only to transformers versions newer than some the engine accepts.",
)
SPECULATORS_TYPE_MISSING: Final = declare(
    "speculators-type-missing",
    Step.PARSE,
    "A speculators-format draft does not name its algorithm in `speculators_model_type`.",
)
SPECULATORS_TYPE_UNKNOWN: Final = declare(
    "speculators-type-unknown",
    Step.PARSE,
    "`speculators_model_type` is no speculators algorithm known here.",
)
SPECULATORS_NOT_PARALLEL: Final = declare(
    "speculators-not-parallel",
    Step.PARSE,
    "The speculators algorithm is not parallel drafting: there is no mask token to check.",
)
SPECULATORS_METHODS_INVALID: Final = declare(
    "speculators-methods-invalid",
    Step.PARSE,
    "`speculators_config.proposal_methods` is not a non-empty array of proposal methods.",
)
SPECULATORS_TOKENS_INVALID: Final = declare(
    "speculators-tokens-invalid",
    Step.PARSE,
    "`speculative_tokens` is not a positive int below 2**31.",
)
SPECULATORS_VERIFIER_INVALID: Final = declare(
    "speculators-verifier-invalid",
    Step.PARSE,
    "`speculators_config.verifier.name_or_path` is not a non-empty string.",
)
SPECULATORS_LAYER_CONFIG_MISSING: Final = declare(
    "speculators-layer-config-missing",
    Step.PARSE,
    "`transformer_layer_config`, from which vLLM builds the draft's config, is missing.",
)
SPECULATORS_KEYS_NOT_STRINGS: Final = declare(
    "speculators-keys-not-strings",
    Step.PARSE,
    "A speculators section has keys that are not strings.",
)
SPECULATORS_FIELD_MISSING: Final = declare(
    "speculators-field-missing",
    Step.PARSE,
    "A field a speculators algorithm reads unconditionally is missing.",
)
SPECULATORS_SECTION_NOT_OBJECT: Final = declare(
    "speculators-section-not-object",
    Step.PARSE,
    "A speculators section is not a JSON object.",
)
XPRESS_TOPC_OUT_OF_RANGE: Final = declare(
    "xpress-topc-out-of-range",
    Step.PARSE,
    "An XPress draft's `xpress_topc` is outside [0, its vocabulary].",
)
SPECULATORS_AUX_IDS_INVALID: Final = declare(
    "speculators-aux-ids-invalid",
    Step.PARSE,
    "A speculators draft's `aux_hidden_state_layer_ids` is not an array of numbers: vLLM's "
    "translation fails on it.",
)

# registry
ARCHITECTURES_STRING: Final = declare(
    "architectures-string",
    Step.REGISTRY,
    "`architectures` is a string, not a list: the engine looks up its characters and fails.",
)
RENAMED_ARCHITECTURE_UNSUPPORTED: Final = declare(
    "renamed-architecture-unsupported",
    Step.REGISTRY,
    "The class the engine renames the draft's architecture to is not registered.",
)
ARCHITECTURE_FALLBACK: Final = declare(
    "architecture-fallback",
    Step.REGISTRY,
    "No name in `architectures` is registered: the engine resolves it only through a "
    "generic fallback.",
)
DSPARK_ARCHITECTURE_REPLACED: Final = declare(
    "dspark-architecture-replaced",
    Step.REGISTRY,
    "Served as DSpark, the draft names no DSpark class vLLM keeps: vLLM replaces it.",
)
PARALLEL_SWITCH_REFUSED: Final = declare(
    "parallel-switch-refused",
    Step.PARSE,
    "The draft is judged with parallel drafting required, but the engine refuses the "
    "parallel-drafting switch for its method and serves it only sequentially.",
    fix="serve it with an engine release that drafts the method in parallel, or train a "
    "DFlash or DSpark drafter",
    evidence="vllm/config/speculative.py: SpeculativeConfig._verify_args",
)
METHOD_NOT_DECLARED: Final = declare(
    "method-not-declared",
    Step.REGISTRY,
    "The draft's class declares a speculator of another method than the one it is served "
    "with, and the engine refuses the pair.",
    fix="name a class the engine registers for the method, or serve the draft with the "
    "method its class declares",
    evidence="vllm/v1/worker/gpu/spec_decode/speculator_config.py: "
    "_resolve_checkpoint_config_class",
)
SPECULATORS_CLASS_UNSUPPORTED: Final = declare(
    "speculators-class-unsupported",
    Step.REGISTRY,
    "The speculators draft's class is not one vLLM's updater for its algorithm accepts.",
)

# token
SPECULATORS_TOKEN_MISSING: Final = declare(
    "speculators-token-missing",
    Step.TOKEN,
    "A speculators parallel draft has no `mask_token_id`.",
)
TOKEN_FIELD_NULL: Final = declare(
    "token-field-null",
    Step.TOKEN,
    "A token-id field above the one that should win is present and null: vLLM reads it and fails.",
)

# layers
LAYER_IDS_UNORDERED: Final = declare(
    "layer-ids-unordered",
    Step.LAYERS,
    "The target layer ids are repeated or not increasing.",
)
LAYER_IDS_FLOATS: Final = declare(
    "layer-ids-floats",
    Step.LAYERS,
    "The target layer ids hold whole-number floats.",
)
LAYER_ID_MINUS_ONE: Final = declare(
    "layer-id-minus-one",
    Step.LAYERS,
    "A target layer id is -1: the tap reads the embeddings, not a layer's output.",
)
RUNNERS_DISAGREE_ON_LAYERS: Final = declare(
    "runners-disagree-on-layers",
    Step.LAYERS,
    "vLLM's two model runners read different target layers for this draft.",
)
OMNI_LAYER_IDS_INVALID: Final = declare(
    "omni-layer-ids-invalid",
    Step.LAYERS,
    "The target layer ids are unusable for a Qwen3-Omni target.",
)
NUM_TARGET_LAYERS_NOT_COUNT: Final = declare(
    "num-target-layers-not-count",
    Step.LAYERS,
    "`num_target_layers` is not a count of layers.",
)
NUM_TARGET_LAYERS_NOT_DEPTH: Final = declare(
    "num-target-layers-not-depth",
    Step.LAYERS,
    "`num_target_layers` differs from the target's depth.",
)
NUM_TARGET_LAYERS_UNEXPLAINED: Final = declare(
    "num-target-layers-unexplained",
    Step.LAYERS,
    "`num_target_layers` is neither the target's depth nor the number of tapped layers.",
)
LAYER_NOT_READ: Final = declare(
    "layer-not-read",
    Step.LAYERS,
    "A layer field of the draft is not read by the engine for this draft.",
)

# target
TARGET_HAS_NO_SIZES: Final = declare(
    "target-has-no-sizes",
    Step.TARGET,
    "The target gives no vocab_size, hidden_size or num_hidden_layers.",
)
TARGET_ARCHITECTURE_UNREGISTERED: Final = declare(
    "target-architecture-unregistered",
    Step.TARGET,
    "The target's architectures are not in the engine's registry.",
)

# construction
CONSTRUCTOR_FIELD_MISSING: Final = declare(
    "constructor-field-missing",
    Step.CONSTRUCTION,
    "A field the draft class's constructor reads is not set.",
)
DFLASH_CONFIG_NULL: Final = declare(
    "dflash-config-null",
    Step.CONSTRUCTION,
    "`dflash_config` is null: the draft class fails reading it.",
)
SAMPLE_FROM_ANCHOR_UNSUPPORTED: Final = declare(
    "sample-from-anchor-unsupported",
    Step.CONSTRUCTION,
    "`sample_from_anchor` is true: vLLM's newer runner refuses it.",
)
SAMPLE_FROM_ANCHOR_IGNORED: Final = declare(
    "sample-from-anchor-ignored",
    Step.CONSTRUCTION,
    "vLLM's older runner ignores `sample_from_anchor`.",
)
MAX_MODEL_LEN_LOWERED: Final = declare(
    "max-model-len-lowered",
    Step.CONSTRUCTION,
    "vLLM lowers the server's max_model_len to the draft's.",
)
K3_NUM_TARGET_LAYERS_FLOAT: Final = declare(
    "k3-num-target-layers-float",
    Step.CONSTRUCTION,
    "A K3 DSpark draft's `num_target_layers` is a float.",
)
K3_LAYER_FIELDS_INVALID: Final = declare(
    "k3-layer-fields-invalid",
    Step.CONSTRUCTION,
    "A K3 DSpark draft's `target_layer_ids` and `num_target_layers` do not agree.",
)

# width
DEFAULT_LAYERS_MISMATCH: Final = declare(
    "default-layers-mismatch",
    Step.WIDTH,
    "The draft names no target layers, and the target's default taps do not fit its fc.",
)

# weights
INDEX_NAMES_ABSENT_TENSOR: Final = declare(
    "index-names-absent-tensor",
    Step.WEIGHTS,
    "The index places a tensor in a file whose header does not hold it.",
)
WEIGHTS_ARCHITECTURE_UNKNOWN: Final = declare(
    "weights-architecture-unknown",
    Step.WEIGHTS,
    "The architecture's loading rules are not known here: weights not checked against the config.",
)
WEIGHTS_QUANTIZED: Final = declare(
    "weights-quantized",
    Step.WEIGHTS,
    "The checkpoint is quantized: its shapes are packed and not checked.",
)
WEIGHTS_PARAMETER_MISSING: Final = declare(
    "weights-parameter-missing",
    Step.WEIGHTS,
    "A parameter of the draft class gets no tensor from the checkpoint.",
)
WEIGHTS_BIAS_IGNORED: Final = declare(
    "weights-bias-ignored",
    Step.WEIGHTS,
    "A .bias tensor has no parameter: the loader ignores it.",
)
WEIGHTS_TENSOR_UNEXPECTED: Final = declare(
    "weights-tensor-unexpected",
    Step.WEIGHTS,
    "A tensor of the checkpoint has no parameter in the draft class: loading fails.",
)
WEIGHTS_LAYER_COUNT: Final = declare(
    "weights-layer-count",
    Step.WEIGHTS,
    "The checkpoint's decoder layers do not fit the config's layer count.",
)
WEIGHTS_EMBEDDING_MISSING: Final = declare(
    "weights-embedding-missing",
    Step.WEIGHTS,
    "The checkpoint has no embed_tokens: the draft's embedding stays uninitialized.",
)
WEIGHTS_SHAPE_INVALID: Final = declare(
    "weights-shape-invalid",
    Step.WEIGHTS,
    "A tensor does not have the shape the draft class builds.",
)
TOKEN_PAST_EMBEDDING_ROWS: Final = declare(
    "token-past-embedding-rows",
    Step.WEIGHTS,
    "The token id is past the rows of the checkpoint's embedding.",
)
WEIGHTS_SIZE_MISMATCH: Final = declare(
    "weights-size-mismatch",
    Step.WEIGHTS,
    "A tensor's size differs from the one the config gives.",
)
DRAFT_VOCAB_MAP_MISSING: Final = declare(
    "draft-vocab-map-missing",
    Step.WEIGHTS,
    "A pruned draft vocabulary ships no d2t map: draft id i is taken as target id i.",
    fix="ship the d2t tensor the trainer wrote beside the head's weights",
)
WEIGHTS_FC_MISSING: Final = declare(
    "weights-fc-missing",
    Step.WEIGHTS,
    "The checkpoint has no fc.weight.",
)
FC_WEIGHT_WIDTH_MISMATCH: Final = declare(
    "fc-weight-width-mismatch",
    Step.WEIGHTS,
    "fc.weight's input width differs from the tapped layers' width.",
)
MASK_HIDDEN_UNEXPECTED: Final = declare(
    "mask-hidden-unexpected",
    Step.WEIGHTS,
    "The checkpoint holds mask_hidden, which vLLM's DFlash loader refuses.",
)
MASK_HIDDEN_MISSING: Final = declare(
    "mask-hidden-missing",
    Step.WEIGHTS,
    "The checkpoint has no mask_hidden tensor, which the loader needs.",
)
MASK_HIDDEN_SIZE: Final = declare(
    "mask-hidden-size",
    Step.WEIGHTS,
    "mask_hidden's size differs from what vLLM copies it into.",
)
MASK_EMBEDDING_TOKEN_MISMATCH: Final = declare(
    "mask-embedding-token-mismatch",
    Step.WEIGHTS,
    "mask_embedding.pt is for another mask token id.",
)
WEIGHTS_EMBEDDING_SHARED: Final = declare(
    "weights-embedding-shared",
    Step.WEIGHTS,
    "The checkpoint has no embed_tokens: the engine shares the target's.",
)
WEIGHTS_LM_HEAD_TIED_BY_DEFAULT: Final = declare(
    "weights-lm-head-tied-by-default",
    Step.WEIGHTS,
    "The checkpoint has no lm_head and the config does not say whether it is tied.",
)

# tokenizer
TOKENIZER_CANNOT_CLASSIFY: Final = declare(
    "tokenizer-cannot-classify",
    Step.TOKENIZER,
    "The tokenizer files found cannot say what the token id is.",
)

# the mode a verdict judges, and the rules the real engine showed missing
SERVED_SEQUENTIALLY: Final = declare(
    "served-sequentially",
    Step.TOKEN,
    "The draft asks for no parallel drafting: the engine serves it sequentially (EAGLE-3, a "
    "plain draft model), and the note names what turns parallel drafting on.",
)
REMOTE_CODE_DRAFTER: Final = declare(
    "remote-code-drafter",
    Step.REGISTRY,
    "The draft's class is in no registry table and only `auto_map` remote code supplies it: "
    "no path gives a drafter for a DFlash, DSpark or EAGLE-3 method.",
)
EAGLE3_WIDTH: Final = declare(
    "eagle3-width",
    Step.WIDTH,
    "An EAGLE-3 draft's fc (and its pre-fc norm) is sized for another number of tapped "
    "layers than the runner taps.",
)
PROJECTOR_UNIMPLEMENTED: Final = declare(
    "projector-unimplemented",
    Step.WEIGHTS,
    "The draft's `dflash_config.projector_type` names a projector no DFlash or DSpark file "
    "of the engine implements: its tensors have no parameter to load into.",
)
WEIGHTS_LM_HEAD_SHARED_DRAFT_VOCAB: Final = declare(
    "weights-lm-head-shared-draft-vocab",
    Step.WEIGHTS,
    "An EAGLE-3 head with its own vocabulary ships no lm_head: the engine reads the "
    "target's first rows as the draft's tokens.",
    fix="ship the lm_head.weight the head was trained with",
)


# --- the launch -----------------------------------------------------------------------------

LAUNCH_PARALLEL_REFUSED: Final = declare(
    "launch-parallel-refused",
    Step.PARSE,
    'The launch sets "parallel_drafting": true for a method the engine release refuses it for.',
    fix='drop "parallel_drafting" from the launch, or serve with a release that drafts the '
    "method in parallel",
    evidence="vllm/config/speculative.py: SpeculativeConfig._verify_args",
)
LAUNCH_PARALLEL_OFF: Final = declare(
    "launch-parallel-off",
    Step.TOKEN,
    "The draft asks for parallel drafting but the launch leaves the engine's switch off: the "
    "engine drafts it sequentially, its token unused.",
    fix='add "parallel_drafting": true to the launch\'s --speculative-config',
    evidence="vllm/config/speculative.py: SpeculativeConfig.parallel_drafting",
)
LAUNCH_TOKENS_MISSING: Final = declare(
    "launch-tokens-missing",
    Step.PARSE,
    "The launch gives no number of speculative tokens and nothing in the draft gives the "
    "engine one: it fails at start-up.",
    fix="add num_speculative_tokens to the launch",
)
LAUNCH_MODEL_MISSING: Final = declare(
    "launch-model-missing",
    Step.PARSE,
    "The launch gives a number of speculative tokens but no draft model, for a method that "
    "needs one: the engine fails at start-up.",
    fix='add the draft\'s path as "model" to the launch',
)
LAUNCH_TOKENS_REFUSED: Final = declare(
    "launch-tokens-refused",
    Step.PARSE,
    "The launch's number of speculative tokens is one the engine refuses for the draft.",
    fix="launch with a number of speculative tokens the engine accepts for the draft",
)
LAUNCH_DRAFT_TP: Final = declare(
    "launch-draft-tp",
    Step.PARSE,
    "The launch's tensor-parallel size for the draft is one the engine refuses (not 1 or the "
    "target's, not dividing the draft's attention heads, or given under the wrong key).",
    fix="launch the draft with a tensor-parallel size that divides its attention heads",
)
LAUNCH_MAX_MODEL_LEN: Final = declare(
    "launch-max-model-len",
    Step.PARSE,
    "The launch's max_model_len for the draft is longer than the draft can serve.",
    fix="lower the launch's max_model_len to the draft's max_position_embeddings",
)
LAUNCH_VOCAB_SETTING: Final = declare(
    "launch-vocab-setting",
    Step.PARSE,
    "The launch's vocabulary setting for a draft model is refused with its other settings.",
    fix="use use_heterogeneous_vocab only with method draft_model and greedy drafting",
)
LAUNCH_OPTION_IGNORED: Final = declare(
    "launch-option-ignored",
    Step.PARSE,
    "The launch sets an option the engine release accepts but ignores for the draft's method.",
    fix="drop the option from the launch",
)
