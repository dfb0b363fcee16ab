"""The vocabulary findings are filed under: the :class:`Step` of an engine's load path a
finding is about, and the stable :class:`Code` of the fact it states.

A step names where on the way from ``config.json`` to the first forward pass an engine
reads what a finding is about, in the order the engine gets there: the config is parsed,
its architecture looked up in the registry, the parallel-drafting token read, the tapped
layers chosen, the target built, its layers tapped, the draft constructed, the tapped
features fed to the draft's input (its width), the weights loaded; the tokenizer is read
beside them.  The real-engine harness (``tools/vllm_harness``) reports the stage an engine
reached in the same words.

A code is one fact, whichever engine speaks and whichever file the fact was found in
(mypy's ``errorcodes.py`` is the model): every code is declared once, with
:func:`declare`, and :data:`CODES` is the one table the docs' code page and ``--ignore``
read.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

__all__ = ["CODES", "Code", "Step", "declare"]


class Step(str, enum.Enum):
    """Where on an engine's load path a finding is about, in the engine's own order."""

    PARSE = "parse"
    """The config is read and parsed into the engine's config class."""
    REGISTRY = "registry"
    """The draft's architecture is looked up (and renamed) in the engine's registry."""
    TOKEN = "token"
    """The parallel-drafting token id is read."""
    LAYERS = "layers"
    """The target layers the drafter taps are chosen."""
    TARGET = "target"
    """The target model's config and sizes, as the engine builds it."""
    TAP = "tap"
    """The target's layers are tapped for their hidden states."""
    CONSTRUCTION = "construction"
    """The draft model's class is constructed from its config."""
    WIDTH = "width"
    """The tapped features meet the draft's input (its ``fc``), at the first forward pass."""
    WEIGHTS = "weights"
    """The checkpoint's tensors are loaded into the draft's parameters."""
    TOKENIZER = "tokenizer"
    """The tokenizer the engine serves with is read."""


_NAME: Final = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")


@dataclass(frozen=True)
class Code:
    """One fact a finding states, under a stable name (``"token-outside-vocab"``)."""

    name: str
    """The stable name: lower case words joined by ``-``; never reused for another fact."""
    step: Step
    """The step of the load path the fact is about."""
    summary: str
    """What the fact is, in one sentence, for the docs' code page."""
    fix: str | None = None
    """How to remove a finding of this code, in general (a finding's own ``fix`` is
    specific), or ``None`` where the author can change nothing that removes it."""
    evidence: str | None = None
    """The engine or library code behind the fact (``"vllm/config/speculative.py:
    SpeculativeConfig.__post_init__"``), or ``None`` where the fact is the checker's own."""

    def __str__(self) -> str:
        return self.name


_DECLARED: dict[str, Code] = {}

CODES: Final[Mapping[str, Code]] = MappingProxyType(_DECLARED)
"""Every declared code, by name, in the order declared."""


def declare(
    name: str,
    step: Step,
    summary: str,
    *,
    fix: str | None = None,
    evidence: str | None = None,
) -> Code:
    """Declare a code: the one place its name, step, summary, general fix and evidence are
    written.

    Raises:
        ValueError: ``name`` is not lower-case words joined by ``-``, or is declared
            already (a code is one fact).
    """
    if not _NAME.fullmatch(name):
        raise ValueError(f"a code is lower-case words joined by '-', not {name!r}")
    if name in _DECLARED:
        raise ValueError(f"the code {name!r} is declared twice")
    code = Code(name, step, summary, fix, evidence)
    _DECLARED[name] = code
    return code


# --- the codes, by step: every finding's code is declared here, once ---------------------------

# parse
FILE_UNAVAILABLE: Final = declare(
    "file-unavailable",
    Step.PARSE,
    "A file or folder the check needs could not be had: missing, unopenable, a folder "
    "with no config.json, a directory or FIFO where a file belongs (the check could "
    "not be made).",
    fix="check the path, its permissions and that it holds a config.json, or pass a repo id "
    "with --download",
)
FILE_MALFORMED: Final = declare(
    "file-malformed",
    Step.PARSE,
    "A JSON file was read but is not a JSON object: empty, not UTF-8, malformed JSON, "
    "nested too deeply, too large, or a root that is not an object.",
    fix="save the file as one UTF-8 JSON object; the finding says where it breaks",
)
REPO_ID_MALFORMED: Final = declare(
    "repo-id-malformed",
    Step.PARSE,
    "A repo id or revision is malformed (a usage error).",
)
REPO_NOT_CACHED: Final = declare(
    "repo-not-cached",
    Step.PARSE,
    "A repo id, its revision or its config.json is not in the local Hugging Face "
    "cache (the check could not be made).",
    fix="pass --download, or run `hf download ORG/NAME config.json`",
)
HUB_EXTRA_MISSING: Final = declare(
    "hub-extra-missing",
    Step.PARSE,
    "Looking up a repo id needs huggingface_hub, which is missing or fails to import "
    "(the check could not be made).",
    fix="install the hub extra (huggingface_hub), or check the HF_* environment variables",
)
DOWNLOAD_FAILED: Final = declare(
    "download-failed",
    Step.PARSE,
    "A download asked for with --download failed (the check could not be made).",
)
PATH_ARGUMENT_INVALID: Final = declare(
    "path-argument-invalid",
    Step.PARSE,
    "An argument given as a path is not a usable path.",
    fix="pass a str, bytes or os.PathLike path",
)
CONFIG_NOT_OBJECT: Final = declare(
    "config-not-object",
    Step.PARSE,
    "The draft's config is not a mapping or config object.",
    fix="pass the parsed config.json (a dict) or a transformers config object",
)
CONFIG_IS_A_PATH: Final = declare(
    "config-is-a-path",
    Step.PARSE,
    "A path was given where a config object was expected.",
    fix="read a config.json file with ParallelDraftingConfig.from_pretrained(path)",
)
CONFIG_ATTRIBUTE_UNREADABLE: Final = declare(
    "config-attribute-unreadable",
    Step.PARSE,
    "Reading a field of the draft's config object raised.",
)
INT_FIELD_INVALID: Final = declare(
    "int-field-invalid",
    Step.PARSE,
    "A field read as a count or size is not a positive int below 2**31.",
    fix="write the size as a positive JSON integer below 2**31",
)
MODEL_FIELD_INVALID: Final = declare(
    "model-field-invalid",
    Step.PARSE,
    "A value given to ParallelDraftingConfig does not validate.",
)
MODEL_TYPE_NOT_STRING: Final = declare(
    "model-type-not-string",
    Step.PARSE,
    "`model_type` is not a string: the engine cannot parse the draft's config.",
)
MODEL_TYPE_UNKNOWN: Final = declare(
    "model-type-unknown",
    Step.PARSE,
    "`model_type` is unknown to the engine's transformers and `auto_map` names no "
    "AutoConfig: parsing the config fails.",
)
MODEL_TYPE_MISSING: Final = declare(
    "model-type-missing",
    Step.PARSE,
    "The config has no `model_type`, so transformers' AutoConfig, through which the engine "
    "loads it, cannot parse it.",
    fix="serve a speculators-format file with vLLM, which parses it itself; otherwise set "
    "`model_type` to the type of the draft's layers",
)
MODEL_TYPE_REMOTE_CODE: Final = declare(
    "model-type-remote-code",
    Step.PARSE,
    "`model_type` is parsed only through `auto_map.AutoConfig`'s remote code, with "
    "--trust-remote-code.",
)
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
DOWNLOAD_SKIPPED: Final = declare(
    "download-skipped",
    Step.PARSE,
    "An optional file could not be downloaded, or nothing was downloaded (offline).",
)
API_ARGUMENT_INVALID: Final = declare(
    "api-argument-invalid",
    Step.PARSE,
    "A value passed to a function of the Python API is not of the type or range it takes "
    "(a usage error).",
    fix="pass a value of the type the function documents",
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
INSTALLED_RELEASE_UNKNOWN: Final = declare(
    "installed-release-unknown",
    Step.PARSE,
    "The engine release installed in the running environment is not one the checker ships: "
    "the verdict speaks for the newest shipped release, whose rules may differ from it.",
    fix="install a release the checker ships, or a drafting-config that ships yours",
)

# registry
ARCHITECTURES_STRING: Final = declare(
    "architectures-string",
    Step.REGISTRY,
    "`architectures` is a string, not a list: the engine looks up its characters and fails.",
)
ARCHITECTURE_UNSUPPORTED: Final = declare(
    "architecture-unsupported",
    Step.REGISTRY,
    "No name in `architectures` is a class the engine can serve as this draft.",
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
ARCHITECTURE_NOT_DRAFTER: Final = declare(
    "architecture-not-drafter",
    Step.REGISTRY,
    "The engine has no draft class among `architectures` and loads another class.",
)
DSPARK_ARCHITECTURE_REPLACED: Final = declare(
    "dspark-architecture-replaced",
    Step.REGISTRY,
    "Served as DSpark, the draft names no DSpark class vLLM keeps: vLLM replaces it.",
)
METHOD_UNSUPPORTED: Final = declare(
    "method-unsupported",
    Step.REGISTRY,
    "The engine has no method that serves this draft.",
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
TOKEN_MISSING: Final = declare(
    "token-missing",
    Step.TOKEN,
    "The draft names no parallel-drafting token id.",
)
SPECULATORS_TOKEN_MISSING: Final = declare(
    "speculators-token-missing",
    Step.TOKEN,
    "A speculators parallel draft has no `mask_token_id`.",
)
TOKEN_NOT_INT: Final = declare(
    "token-not-int",
    Step.TOKEN,
    "A token-id field is not an integer.",
    fix="write the token id as a JSON integer, without quotes or a decimal point",
)
TOKEN_OUT_OF_RANGE: Final = declare(
    "token-out-of-range",
    Step.TOKEN,
    "A token-id field is outside the draft's vocabulary (or negative).",
    fix="set the field to the mask token's id, below the draft's vocab_size",
)
TOKEN_FIELD_NULL: Final = declare(
    "token-field-null",
    Step.TOKEN,
    "A token-id field above the one that should win is present and null: vLLM reads it and fails.",
)
TOKEN_FIELDS_DISAGREE: Final = declare(
    "token-fields-disagree",
    Step.TOKEN,
    "Two token-id fields are set to different values; the higher-priority one wins.",
    fix="remove the lower-priority field, or set it to the winner's value",
)
TOKEN_EAGLE_DISAGREES: Final = declare(
    "token-eagle-disagrees",
    Step.TOKEN,
    "The token id and the EAGLE section's token disagree.",
    fix="set `eagle_config.mask_token_id` to the token id, or remove it",
    evidence="vllm/model_executor/models/qwen3_dflash.py: DFlashQwen3Model.__init__",
)
TOKEN_PLACEHOLDER: Final = declare(
    "token-placeholder",
    Step.TOKEN,
    "The token id equals a pad, bos or eos token id (of the draft's config, the "
    "target's, or the tokenizer's).",
    fix="set the token field to a dedicated mask token id, not a special token's",
)
TOKEN_OUTSIDE_TARGET_VOCAB: Final = declare(
    "token-outside-target-vocab",
    Step.TOKEN,
    "The token id is outside the target's vocabulary.",
    fix="set the token field to a mask token id below the target's vocab_size",
)
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
LAYER_IDS_INVALID: Final = declare(
    "layer-ids-invalid",
    Step.LAYERS,
    "The target layer ids are not a list of integers.",
)
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
LAYER_ID_OUT_OF_RANGE: Final = declare(
    "layer-id-out-of-range",
    Step.LAYERS,
    "A target layer id is outside the target's layers.",
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
LAYER_NOT_READ: Final = declare(
    "layer-not-read",
    Step.LAYERS,
    "A layer field of the draft is not read by the engine for this draft.",
)
LAYERS_GUESSED: Final = declare(
    "layers-guessed",
    Step.LAYERS,
    "The draft names no target layers, so the engine taps layers it guesses from the "
    "target's depth: a note, or a warning where something in the files points elsewhere.",
    fix="name the tapped layers the draft was trained on",
)

# target
TARGET_NOT_GIVEN: Final = declare(
    "target-not-given",
    Step.TARGET,
    "No target was given: what only the target tells is not checked.",
)
TARGET_FROM_VERIFIER: Final = declare(
    "target-from-verifier",
    Step.TARGET,
    "The target was taken from the speculators verifier.",
)
VERIFIER_NOT_FOUND: Final = declare(
    "verifier-not-found",
    Step.TARGET,
    "The speculators verifier could not be found: the target is not checked.",
    fix="pass --target DIR, or --download",
)
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
VOCAB_LARGER_THAN_TARGET: Final = declare(
    "vocab-larger-than-target",
    Step.TARGET,
    "The draft's vocab_size is larger than the target's.",
    fix="check that the target is the draft's, or lower `draft_vocab_size` to fit it",
)
VOCAB_DIFFERS_FROM_TARGET: Final = declare(
    "vocab-differs-from-target",
    Step.TARGET,
    "The draft model's vocab_size differs from the target's, which a separate draft model "
    "must share.",
)
HIDDEN_SIZE_MISMATCH: Final = declare(
    "hidden-size-mismatch",
    Step.TARGET,
    "The draft's hidden_size differs from the target's, which feeds it.",
    fix="check that the target is the one the draft was trained on",
)
ROPE_DIFFERS_FROM_TARGET: Final = declare(
    "rope-differs-from-target",
    Step.TARGET,
    "A draft that runs at its target's positions records another RoPE (type, scaling or "
    "theta) than the target's.",
    fix="copy the target's RoPE settings into the draft's config",
)

# tap
TARGET_NOT_TAPPABLE: Final = declare(
    "target-not-tappable",
    Step.TAP,
    "The target's class cannot be tapped for the drafter's hidden states.",
)
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
CONSTRUCTOR_FIELD_MISSING: Final = declare(
    "constructor-field-missing",
    Step.CONSTRUCTION,
    "A field the draft class's constructor reads is not set.",
)
SIZE_FROM_CONFIG_DEFAULT: Final = declare(
    "size-from-config-default",
    Step.CONSTRUCTION,
    "A size the draft class reads is not set, so the default of the config class of its "
    "`model_type` applies, which may not be the draft's.",
)
DFLASH_CONFIG_NULL: Final = declare(
    "dflash-config-null",
    Step.CONSTRUCTION,
    "`dflash_config` is null: the draft class fails reading it.",
)
MARKOV_RANK_INVALID: Final = declare(
    "markov-rank-invalid",
    Step.CONSTRUCTION,
    "`markov_rank` is not an integer the Markov head can be built with.",
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
SAMPLE_FROM_ANCHOR_ASSUMED: Final = declare(
    "sample-from-anchor-assumed",
    Step.CONSTRUCTION,
    "A DSpark draft does not record `sample_from_anchor`: the engine assumes true, the "
    "anchor-first layout, whichever layout the draft was trained in.",
    fix="set `sample_from_anchor` to the layout the draft was trained in",
)
CAUSALITY_ASSUMED: Final = declare(
    "causality-assumed",
    Step.CONSTRUCTION,
    "A DFlash-style draft records no attention causality: the engine runs it non-causal "
    "(causal only on sliding-window layers), whichever way it was trained.",
    fix="record the attention the draft was trained with",
)

# width
DEFAULT_LAYERS_MISMATCH: Final = declare(
    "default-layers-mismatch",
    Step.WIDTH,
    "The draft names no target layers, and the target's default taps do not fit its fc.",
)
TAPPED_WIDTH_MISMATCH: Final = declare(
    "tapped-width-mismatch",
    Step.WIDTH,
    "The engine taps more or fewer layers than the draft class sizes fc for.",
)

# weights
WEIGHTS_FILE_MALFORMED: Final = declare(
    "weights-file-malformed",
    Step.WEIGHTS,
    "A weights file or its index cannot be read as safetensors.",
)
WEIGHTS_SHARD_MISSING: Final = declare(
    "weights-shard-missing",
    Step.WEIGHTS,
    "A weights file the index names is missing.",
    fix="put every shard the index names beside it",
    evidence="vllm/model_executor/model_loader/weight_utils.py: filter_duplicate_safetensors_files",
)
WEIGHTS_LFS_POINTER: Final = declare(
    "weights-lfs-pointer",
    Step.WEIGHTS,
    "A weights file is a Git LFS pointer, not the weights.",
    fix="run `git lfs pull` in the repository to fetch the weights",
)
WEIGHTS_NOT_FOUND: Final = declare(
    "weights-not-found",
    Step.WEIGHTS,
    "The repo has no safetensors weights to check.",
)
WEIGHTS_BIN_ONLY: Final = declare(
    "weights-bin-only",
    Step.WEIGHTS,
    "The draft ships .bin weights only, which are not read.",
    fix="ship the weights as safetensors to have their headers checked",
)
WEIGHTS_UNREADABLE: Final = declare(
    "weights-unreadable",
    Step.WEIGHTS,
    "The weights could not be read: they are not checked.",
)
WEIGHTS_NOT_CACHED: Final = declare(
    "weights-not-cached",
    Step.WEIGHTS,
    "The cache does not hold every weights file: they are not checked.",
    fix="pass --download to read their headers from the hub",
)
WEIGHTS_NOT_MODELLED: Final = declare(
    "weights-not-modelled",
    Step.WEIGHTS,
    "The engine's weight loaders are not modelled: weights are not checked for it.",
)
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
WEIGHTS_LM_HEAD_MISSING: Final = declare(
    "weights-lm-head-missing",
    Step.WEIGHTS,
    "The checkpoint has no lm_head and embeddings are not tied.",
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
MASK_EMBEDDING_NOT_CHECKED: Final = declare(
    "mask-embedding-not-checked",
    Step.WEIGHTS,
    "mask_embedding.pt could not be read here (torch missing, ...): it is not checked.",
)
MASK_EMBEDDING_TOKEN_MISMATCH: Final = declare(
    "mask-embedding-token-mismatch",
    Step.WEIGHTS,
    "mask_embedding.pt is for another mask token id.",
)
MASK_EMBEDDING_SIZE: Final = declare(
    "mask-embedding-size",
    Step.WEIGHTS,
    "mask_embedding.pt's size differs from the draft's hidden_size.",
)
MASK_EMBEDDING_INVALID: Final = declare(
    "mask-embedding-invalid",
    Step.WEIGHTS,
    "mask_embedding.pt is not what SGLang's DFlash worker loads.",
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
WEIGHTS_D2T_MISSING: Final = declare(
    "weights-d2t-missing",
    Step.WEIGHTS,
    "An EAGLE-3 head with a reduced vocabulary ships no d2t: the engine takes the draft's "
    "token ids for the target's.",
    fix="ship the d2t tensor the head was trained with",
)

# tokenizer
TOKENIZER_NOT_FOUND: Final = declare(
    "tokenizer-not-found",
    Step.TOKENIZER,
    "No tokenizer files were found where the check looked.",
)
TOKENIZER_FILE_MALFORMED: Final = declare(
    "tokenizer-file-malformed",
    Step.TOKENIZER,
    "A tokenizer file is malformed.",
    fix="fix the tokenizer file where the finding says",
)
TOKENIZER_CANNOT_CLASSIFY: Final = declare(
    "tokenizer-cannot-classify",
    Step.TOKENIZER,
    "The tokenizer files found cannot say what the token id is.",
)
TOKEN_IS_ORDINARY: Final = declare(
    "token-is-ordinary",
    Step.TOKENIZER,
    "The token id is an ordinary token of the tokenizer.",
    fix="set the token field to a dedicated special token or an unused embedding row",
)
TOKEN_MASK_ELSEWHERE: Final = declare(
    "token-mask-elsewhere",
    Step.TOKENIZER,
    "The tokenizer's mask token has another id.",
    fix="set the token field to the tokenizer's mask token id, if the draft was trained with it",
)
MASK_TOKEN_TEXT_INVALID: Final = declare(
    "mask-token-text-invalid",
    Step.TOKENIZER,
    "The mask token's text field is not a string.",
    fix="write `dflash_config.mask_token` as the mask token's text, a JSON string",
)
MASK_TOKEN_TEXT_DISAGREES: Final = declare(
    "mask-token-text-disagrees",
    Step.TOKENIZER,
    "The mask token's text is another id in the tokenizer.",
    fix="make the token id field and `dflash_config.mask_token` name the same token",
    evidence="srt/speculative/dflash_worker_v2.py: DFlashWorkerV2._resolve_mask_token_id "
    "raises ValueError",
)


# --- the mode a verdict judges, and the rules the real engine showed missing ------------------

SERVED_SEQUENTIALLY: Final = declare(
    "served-sequentially",
    Step.TOKEN,
    "The draft asks for no parallel drafting: the engine serves it sequentially (EAGLE-3, a "
    "plain draft model), and the note names what turns parallel drafting on.",
)
SEQUENTIAL_NOT_PARALLEL: Final = declare(
    "sequential-not-parallel",
    Step.TOKEN,
    "The draft asks for no parallel drafting and is judged with parallel drafting required: "
    "the engine would draft it sequentially.",
)
TOKEN_UNUSED: Final = declare(
    "token-unused",
    Step.TOKEN,
    "The draft names a parallel-drafting token the engine never reads, because it has no "
    "parallel mode for the draft's method: the draft is served sequentially.",
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


# --- the launch: the user's command line judged against the draft -------------------------------

LAUNCH_OTHER_ENGINE: Final = declare(
    "launch-other-engine",
    Step.PARSE,
    "The launch runs another engine's program than the engine the verdict speaks for.",
    fix="check the launch with the engine it runs (--engine)",
)
LAUNCH_OPTION_UNKNOWN: Final = declare(
    "launch-option-unknown",
    Step.PARSE,
    "The launch gives an option (or a --speculative-config key) the engine release does not "
    "know: its argument parser or config class refuses it at start-up.",
    fix="remove the option, or spell it as the release names it",
)
LAUNCH_METHOD_UNKNOWN: Final = declare(
    "launch-method-unknown",
    Step.PARSE,
    "The launch names a speculative method (SGLang: algorithm) the engine release does not accept.",
    fix="name one of the release's methods",
)
LAUNCH_METHOD_MISMATCH: Final = declare(
    "launch-method-mismatch",
    Step.PARSE,
    "The launch's method (given, or as the engine guesses it) is not the one the draft is "
    "for: the engine refuses it, or runs the draft with the wrong drafter.",
    fix="name the draft's method in the launch",
)
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
LAUNCH_TOKENS_DIFFER: Final = declare(
    "launch-tokens-differ",
    Step.PARSE,
    "The launch's number of speculative tokens is not the one the draft was trained for.",
    fix="launch with the draft's number of speculative tokens",
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
LAUNCH_DRAFT_DIFFERS: Final = declare(
    "launch-draft-differs",
    Step.PARSE,
    "The launch serves another draft than the one checked.",
    fix="check the draft the launch serves, or launch the one checked",
)
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
LAUNCH_OPTION_IGNORED: Final = declare(
    "launch-option-ignored",
    Step.PARSE,
    "The launch sets an option the engine release accepts but ignores for the draft's method.",
    fix="drop the option from the launch",
)
