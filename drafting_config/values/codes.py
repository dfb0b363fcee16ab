"""The vocabulary findings are filed under: the :class:`Step` of an engine's load path a
finding is about, and the stable :class:`Code` of the fact it states.

A step names where on the way from ``config.json`` to the first forward pass an engine
reads what a finding is about, in the order the engine gets there: the config is parsed,
its architecture looked up in the registry, the parallel-drafting token read, the tapped
layers chosen, the target built, its layers tapped, the draft constructed, the tapped
features fed to the draft's input (its width), the weights loaded; the tokenizer is read
beside them.  The real-engine harness (``tools/engines/vllm/harness``) reports the stage an engine
reached in the same words.

A code is one fact, whichever engine speaks and whichever file the fact was found in
(mypy's ``errorcodes.py`` is the model): every code is declared once, with
:func:`declare`, into :data:`CODES`, the one table the docs' code page and ``--ignore``
read.  This module declares the core's codes and those several engines give; a code only
one engine's rules give is declared in that engine's ``codes`` module
(``drafting_config/engines/vllm/codes.py``), which fills :data:`CODES` as the engine is
imported: read the whole table as ``drafting_config.engines.CODES``, never here before the
engines are imported.
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


# --- the codes, by step: the core's and those of several engines (each engine's own: its codes.py)

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
MODEL_TYPE_REMOTE_CODE: Final = declare(
    "model-type-remote-code",
    Step.PARSE,
    "`model_type` is parsed only through `auto_map.AutoConfig`'s remote code, with "
    "--trust-remote-code.",
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
INSTALLED_RELEASE_UNKNOWN: Final = declare(
    "installed-release-unknown",
    Step.PARSE,
    "The engine release installed in the running environment is not one the checker ships: "
    "the verdict speaks for the newest shipped release, whose rules may differ from it.",
    fix="install a release the checker ships, or a drafting-config that ships yours",
)
SPECULATIVE_TOKENS_UNKNOWN: Final = declare(
    "speculative-tokens-unknown",
    Step.PARSE,
    "The draft's files say no number of tokens to draft a step (no DFlash `block_size`, "
    "speculators `speculative_tokens` or `n_predict`), which the engine needs: the serve "
    "command holds a placeholder for it.",
    fix="replace the placeholder in the serve command with the number of tokens to draft",
    evidence="vllm/config/speculative.py: SpeculativeConfig._verify_args raises ValueError",
)

# registry
ARCHITECTURE_UNSUPPORTED: Final = declare(
    "architecture-unsupported",
    Step.REGISTRY,
    "No name in `architectures` is a class the engine can serve as this draft.",
)
METHOD_UNSUPPORTED: Final = declare(
    "method-unsupported",
    Step.REGISTRY,
    "The engine has no method that serves this draft.",
)

# token
TOKEN_MISSING: Final = declare(
    "token-missing",
    Step.TOKEN,
    "The draft names no parallel-drafting token id.",
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

# layers
LAYER_IDS_INVALID: Final = declare(
    "layer-ids-invalid",
    Step.LAYERS,
    "The target layer ids are not a list of integers.",
)
LAYER_ID_OUT_OF_RANGE: Final = declare(
    "layer-id-out-of-range",
    Step.LAYERS,
    "A target layer id is outside the target's layers.",
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

# construction
MARKOV_RANK_INVALID: Final = declare(
    "markov-rank-invalid",
    Step.CONSTRUCTION,
    "`markov_rank` is not an integer the Markov head can be built with.",
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
    "The engine's loader for the draft's class is not modelled: weights are not checked for it.",
)
WEIGHTS_LM_HEAD_MISSING: Final = declare(
    "weights-lm-head-missing",
    Step.WEIGHTS,
    "The checkpoint has no lm_head and embeddings are not tied.",
)
MASK_EMBEDDING_NOT_CHECKED: Final = declare(
    "mask-embedding-not-checked",
    Step.WEIGHTS,
    "mask_embedding.pt could not be read here (torch missing, ...): it is not checked.",
)
MASK_EMBEDDING_SIZE: Final = declare(
    "mask-embedding-size",
    Step.WEIGHTS,
    "mask_embedding.pt's size differs from the draft's hidden_size.",
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
LAUNCH_TOKENS_DIFFER: Final = declare(
    "launch-tokens-differ",
    Step.PARSE,
    "The launch's number of speculative tokens is not the one the draft was trained for.",
    fix="launch with the draft's number of speculative tokens",
)
LAUNCH_DRAFT_DIFFERS: Final = declare(
    "launch-draft-differs",
    Step.PARSE,
    "The launch serves another draft than the one checked.",
    fix="check the draft the launch serves, or launch the one checked",
)
