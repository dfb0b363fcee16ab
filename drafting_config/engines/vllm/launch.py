"""A vLLM launch (``vllm serve TARGET --speculative-config JSON``), read with the release's
own names (:mod:`.tables`: ``SpeculativeConfig``'s fields and methods, ``vllm serve``'s
options) and judged against the draft (:func:`check_launch`), each rule citing the
release's code.

:func:`read_launch` parses a launch once, the same in every release: its program (``vllm
serve``, or ``python -m vllm.entrypoints.openai.api_server``; none: only options), the
target (the positional model right after the program, else ``--model``), its options, and
``--speculative-config`` (``-sc``) as a JSON object, with any ``--speculative-config.KEY
VALUE`` (``FlexibleArgumentParser``'s dotted form, ``vllm/utils/argparse_utils.py``) merged
into it.  The rules then read the release's tables.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final

from drafting_config.draft.architectures import DSPARK_DRAFT, architecture_names
from drafting_config.draft.speculative_tokens import draft_speculative_tokens
from drafting_config.engines.interface import LaunchFacts
from drafting_config.engines.vllm import codes as vllm_codes
from drafting_config.engines.vllm.layers import is_omni_target
from drafting_config.engines.vllm.load_path import declared_method
from drafting_config.engines.vllm.modes import ServedMode
from drafting_config.engines.vllm.names import (
    CHECKS_DECLARED_SPECULATOR,
    DROPS_HETEROGENEOUS_VOCAB,
    REFUSES_PARALLEL_SWITCH,
    last_before,
    since,
)
from drafting_config.engines.vllm.resolution import VllmSubject
from drafting_config.engines.vllm.tables import vllm_tables
from drafting_config.values import codes
from drafting_config.values.errors import ParallelDraftingConfigError, ParallelDraftingConfigWarning
from drafting_config.values.findings import Findings
from drafting_config.values.integers import exact_int
from drafting_config.values.launch import Launch, LaunchError, Option, json_object, read_options

CONFIG_OPTION: Final = "--speculative-config"
"""The option that takes the speculative config (its short alias, ``-sc``, is in the
release's tables)."""

_PROGRAMS: Final = (("vllm", "serve"), ("-m", "vllm.entrypoints.openai.api_server"))
"""How a launch runs vLLM's server: ``vllm serve``, or ``python -m`` its OpenAI server."""

_PYTHON: Final = ("python", "python3")


@dataclass(frozen=True)
class VllmLaunch:
    """A launch as vLLM's parser reads it (the same in every release)."""

    ours: bool
    """Whether it runs vLLM's server, or names no program (only options)."""
    target: str | None
    """The served model: the positional model after the program, else ``--model``."""
    options: tuple[Option, ...]
    """Its options, in order (``--speculative-config`` among them)."""
    config: Mapping[str, object] | None
    """``--speculative-config`` as a JSON object, dotted keys merged; ``None``: not given."""


def _program_length(words: tuple[str, ...]) -> int | None:
    """The number of leading words that run vLLM's server (0: none, only options), or
    ``None``: another program."""
    if not words or words[0].startswith("-"):
        return 0
    first = os.path.basename(words[0])
    if first == _PROGRAMS[0][0] and words[1:2] == (_PROGRAMS[0][1],):
        return 2
    python = first.startswith(_PYTHON)
    if python and tuple(words[1:3]) == _PROGRAMS[1]:
        return 3
    return None


def read_launch(launch: Launch) -> VllmLaunch:
    """``launch`` as vLLM's parser reads it (see the module).

    Raises:
        LaunchError: ``--speculative-config`` is not a JSON object, or a dotted key's value
            is given twice; naming the option and the value.
    """
    length = _program_length(launch.words)
    if length is None:
        return VllmLaunch(False, None, (), None)
    positional, options = read_options(launch.words[length:])
    target = positional[0] if length and positional else None
    config: dict[str, object] | None = None
    for option in options:
        name = _normal(option.name)
        if name in (CONFIG_OPTION, "-sc") and option.value is not None:
            config = {**(config or {}), **json_object(option.value, option.name)}
        elif name.startswith(CONFIG_OPTION + ".") and option.value is not None:
            key = name.removeprefix(CONFIG_OPTION + ".").replace("-", "_")
            config = {**(config or {}), key: _dotted_value(option.value)}
        elif name == "--model" and target is None:
            target = option.value
    return VllmLaunch(True, target, options, config)


def _dotted_value(text: str) -> object:
    """A dotted option's value as ``FlexibleArgumentParser`` reads it: JSON where it parses
    (``7``, ``true``), else the string."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _normal(name: str) -> str:
    """An option's name as vLLM's parser reads it: underscores in a ``--`` name up to any
    ``.`` become dashes (``FlexibleArgumentParser.parse_args``)."""
    if not name.startswith("--"):
        return name
    head, dot, rest = name.partition(".")
    return head.replace("_", "-") + dot + rest


def launch_facts(launch: Launch) -> LaunchFacts:
    """:meth:`~drafting_config.engines.interface.EngineRules.launch_facts` for vLLM."""
    read = read_launch(launch)
    model = None if read.config is None else read.config.get("model")
    return LaunchFacts(read.ours, read.target, model if isinstance(model, str) else None)


# --- the rules -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class LaunchSubject:
    """What the launch rules judge: the draft (as vLLM reads it, with its release), the
    launch, and the mode the draft asks for."""

    subject: VllmSubject
    launch: VllmLaunch
    mode: ServedMode

    @property
    def version(self) -> str:
        return self.subject.version

    @property
    def config(self) -> Mapping[str, object]:
        return self.launch.config or {}

    def given(self, key: str) -> object:
        """A ``--speculative-config`` key's value (``None``: absent or null)."""
        return self.config.get(key)


LaunchRule = Callable[[LaunchSubject, Findings], None]

_SPECULATIVE: Final = "vllm/config/speculative.py"
_SPECULATOR_CONFIG: Final = "vllm/v1/worker/gpu/spec_decode/speculator_config.py"


def _field(key: str) -> str:
    return f"{CONFIG_OPTION}.{key}"


def check_options_known(launch: LaunchSubject, found: Findings) -> None:
    """Every option is one ``vllm serve`` registers in this release (``make_arg_parser``,
    ``vllm/entrypoints/common/cli_args.py``; ``--no-NAME`` of a flag, and a unique prefix,
    as argparse accepts them), and every ``--speculative-config`` key a field of the
    release's ``SpeculativeConfig`` (``vllm/config/speculative.py``, a ``@config`` dataclass
    whose ``ConfigDict(extra="forbid")`` refuses any other)."""
    tables = vllm_tables(launch.version)
    for option in launch.launch.options:
        name = _normal(option.name).partition(".")[0]
        if _known_option(name, tables.serve_options):
            continue
        found.error(
            ParallelDraftingConfigError(
                f"vLLM serve has no option {option.name}: its parser refuses the launch.",
                field=option.name,
                code=codes.LAUNCH_OPTION_UNKNOWN,
                fix=f"remove {option.name} from the launch (vLLM {launch.version} has no such "
                "option)",
                evidence="vllm/entrypoints/common/cli_args.py: make_arg_parser "
                f"(vLLM {launch.version})",
            )
        )
    for key in launch.config:
        if key in tables.speculative_fields:
            continue
        found.error(
            ParallelDraftingConfigError(
                f"--speculative-config has no field {key!r}: vLLM refuses the launch.",
                field=_field(key),
                code=codes.LAUNCH_OPTION_UNKNOWN,
                fix=f"remove {key!r} from --speculative-config (vLLM {launch.version} has no "
                "such field)",
                evidence=f"{_SPECULATIVE}: SpeculativeConfig (vLLM {launch.version}; "
                'ConfigDict(extra="forbid"))',
            )
        )


def _known_option(name: str, known: frozenset[str]) -> bool:
    if name in known or (name.startswith("-O") and "-O" in known):  # -O3, -O=3: rewritten
        return True
    if name.startswith("--no-") and "--" + name.removeprefix("--no-") in known:
        return True
    if name.startswith("--"):  # argparse takes a unique prefix (allow_abbrev)
        return sum(option.startswith(name) for option in known) == 1
    return False


def launch_method(launch: LaunchSubject) -> str | None:
    """The method vLLM serves the launch with: the one given, else the release's guess
    from the draft's ``model`` string (0.32.0 and 0.33.0: ``SpeculativeConfig.__post_init__``
    sets ``draft_model``, then its name tests; from :data:`~.names.CHECKS_DECLARED_SPECULATOR`
    on: the declared speculator of the draft's class first
    (:func:`~.load_path.declared_method`), then the name tests of
    ``_CHECKPOINT_DETECTION_ORDER``, ``speculator_config.py:
    _resolve_checkpoint_config_class``); ``None`` without a ``model``."""
    method = launch.given("method")
    if isinstance(method, str):
        return method
    model = launch.given("model")
    if not isinstance(model, str):
        return None
    try:
        declared = declared_method(launch.subject)
    except ParallelDraftingConfigError:  # architectures unreadable: the load path says so
        declared = None
    if declared is not None:
        return declared
    lowered = model.lower()
    get = launch.subject.get
    try:
        names = architecture_names(get)
        model_type = get("model_type", None)
    except ParallelDraftingConfigError:  # the load path reports it
        names, model_type = set(), None
    older = not since(launch.version, CHECKS_DECLARED_SPECULATOR)
    guesses = (
        ("eagle", "eagle-" in lowered),
        ("eagle3", "eagle3" in lowered),
        ("dflash", "dflash" in lowered or (older and bool(names & _DFLASH_GUESSED))),
        (
            "dspark",
            "dspark" in lowered
            or (
                older
                and bool(
                    names & _DSPARK_GUESSED or (DSPARK_DRAFT in names and model_type == "qwen3")
                )
            ),
        ),
    )
    for guessed, matched in guesses:
        if matched:
            return guessed
    methods = vllm_tables(launch.version).methods
    if isinstance(model_type, str) and model_type in methods and model_type.endswith("mtp"):
        return "mtp"  # MTPModelTypes: every such model type is served as mtp
    return "draft_model"


_DFLASH_GUESSED: Final = frozenset({"MuseGlimmerAssistantModel"})
_DSPARK_GUESSED: Final = frozenset(
    {"Qwen3DSparkModel", "Qwen3OmniDSparkModel", "MuseSparkDSparkModel", "Gemma4DSparkModel"}
)
"""The architectures 0.32.0 and 0.33.0 guess ``dflash`` and ``dspark`` from
(``SpeculativeConfig.__post_init__``; a ``qwen3`` ``DSparkDraftModel`` too), where the
draft's ``model`` names neither."""


def check_method(launch: LaunchSubject, found: Findings) -> None:
    """The method is one of the release's (``SpeculativeMethod``,
    ``vllm/config/speculative.py``), and the one the draft is for
    (:func:`~.modes.served_mode`): another is refused (``speculator_config.py:
    _resolve_checkpoint_config_class`` raises "requested method=..." for a class that
    declares its speculator) or builds the wrong drafter over the draft's weights.  A launch
    without ``method`` is judged by the release's guess (:func:`launch_method`)."""
    given = launch.given("method")
    tables = vllm_tables(launch.version)
    if isinstance(given, str) and given not in tables.methods:
        found.error(
            ParallelDraftingConfigError(
                f"vLLM has no speculative method {given!r}: it refuses the launch.",
                field=_field("method"),
                code=codes.LAUNCH_METHOD_UNKNOWN,
                fix=f'set "method": "{launch.mode.method}" for this draft',
                evidence=f"{_SPECULATIVE}: SpeculativeMethod (vLLM {launch.version})",
            )
        )
        return
    method = launch_method(launch)
    if method is None or method == launch.mode.method:
        return
    how = "names" if isinstance(given, str) else "leaves vLLM to guess"
    found.error(
        ParallelDraftingConfigError(
            f"The launch {how} method {method!r}, but this draft is a "
            f"{launch.mode.method!r} draft: vLLM would serve it wrong or refuse it.",
            field=_field("method"),
            code=codes.LAUNCH_METHOD_MISMATCH,
            fix=f'set "method": "{launch.mode.method}" in --speculative-config',
            evidence=f"{_SPECULATIVE}: SpeculativeConfig.__post_init__; {_SPECULATOR_CONFIG}: "
            f"_resolve_checkpoint_config_class (vLLM {launch.version})",
        )
    )


def check_parallel_switch(launch: LaunchSubject, found: Findings) -> None:
    """``parallel_drafting``: for ``dflash`` and ``dspark`` it is ignored, a note (0.32.0 and
    0.33.0: ``SpeculativeConfig.__post_init__`` sets it true; from
    :data:`~.names.REFUSES_PARALLEL_SWITCH` on ``_verify_args`` logs "parallel_drafting is
    deprecated and has no effect"); from :data:`~.names.REFUSES_PARALLEL_SWITCH` on,
    ``SpeculativeConfig._verify_args`` raises "parallel_drafting is only supported by the
    dflash and dspark methods" for any other method; before it, a draft that asks for
    parallel drafting with a method that needs the switch (PTD, PARD: ``eagle3``,
    ``draft_model``) is drafted sequentially, its token unused, unless the launch sets it
    (``SpeculativeConfig.parallel_drafting``)."""
    switch = launch.given("parallel_drafting")
    method = launch_method(launch) or launch.mode.method
    if method in ("dflash", "dspark") and switch is not None:
        refusing = since(launch.version, REFUSES_PARALLEL_SWITCH)
        found.note(
            f'"parallel_drafting" is ignored for method {method!r}: vLLM always drafts it in '
            "parallel",
            code=vllm_codes.LAUNCH_OPTION_IGNORED,
            field=_field("parallel_drafting"),
            fix='drop "parallel_drafting" from --speculative-config',
            evidence=f"{_SPECULATIVE}: "
            + ("SpeculativeConfig._verify_args" if refusing else "SpeculativeConfig.__post_init__")
            + f" (vLLM {launch.version})",
        )
        return
    if since(launch.version, REFUSES_PARALLEL_SWITCH):
        if switch is True and method not in ("dflash", "dspark"):
            last = last_before(REFUSES_PARALLEL_SWITCH)
            found.error(
                ParallelDraftingConfigError(
                    f'vLLM refuses "parallel_drafting": true for method {method!r}: only '
                    "dflash and dspark take it.",
                    field=_field("parallel_drafting"),
                    code=vllm_codes.LAUNCH_PARALLEL_REFUSED,
                    fix=f'drop "parallel_drafting" from --speculative-config (vLLM '
                    f"{launch.version} refuses it), or serve with vLLM {last}",
                    evidence=f"{_SPECULATIVE}: SpeculativeConfig._verify_args "
                    f"(vLLM {launch.version})",
                )
            )
        return
    if launch.mode.asks_parallel and launch.mode.needs_switch and switch is not True:
        found.warn(
            ParallelDraftingConfigWarning(
                'The draft asks for parallel drafting, but the launch leaves "parallel_'
                'drafting" off: vLLM drafts it sequentially, its token unused.',
                field=_field("parallel_drafting"),
                code=vllm_codes.LAUNCH_PARALLEL_OFF,
                fix='add "parallel_drafting": true to --speculative-config',
                evidence=f"{_SPECULATIVE}: SpeculativeConfig.parallel_drafting "
                f"(vLLM {launch.version})",
            )
        )


def check_model_and_tokens(launch: LaunchSubject, found: Findings) -> None:
    """``model`` and ``num_speculative_tokens``: tokens without ``model`` raise
    "num_speculative_tokens was provided but without speculative model" (0.32.0, 0.33.0:
    ``SpeculativeConfig.__post_init__``; 0.34.0: ``speculator_config.py:
    DraftModelSpeculatorConfig.default_model``), except for ``dspark``, which loads the
    draft from the target's checkpoint; a ``model`` without tokens takes them from the
    draft's ``n_predict`` (or, for ``dspark``, its ``block_size``), else raises
    "A speculative model was provided, but `num_speculative_tokens` was not provided"
    (``__post_init__``; 0.34.0: ``DraftModelSpeculatorConfig.configure``), and with
    neither, ``_verify_args`` raises "num_speculative_tokens must be provided"."""
    model, tokens = launch.given("model"), launch.given("num_speculative_tokens")
    method = launch_method(launch) or launch.mode.method
    where = (
        f"{_SPECULATOR_CONFIG}: DraftModelSpeculatorConfig"
        if since(launch.version, CHECKS_DECLARED_SPECULATOR)
        else f"{_SPECULATIVE}: SpeculativeConfig.__post_init__"
    )
    if model is None and tokens is not None and method != "dspark":
        found.error(
            ParallelDraftingConfigError(
                "The launch gives num_speculative_tokens but no draft model: vLLM raises "
                '"num_speculative_tokens was provided but without speculative model".',
                field=_field("model"),
                code=vllm_codes.LAUNCH_MODEL_MISSING,
                fix='add "model": the draft\'s path or repo id, to --speculative-config',
                evidence=f"{where} (vLLM {launch.version})",
            )
        )
        return
    if tokens is not None or method == "dspark":
        return
    if _positive(launch.subject.get("n_predict", None)) is not None and model is not None:
        return
    own = draft_speculative_tokens(launch.subject.draft)
    found.error(
        ParallelDraftingConfigError(
            "The launch gives no num_speculative_tokens and the draft has no n_predict: vLLM "
            "fails at start-up.",
            field=_field("num_speculative_tokens"),
            code=vllm_codes.LAUNCH_TOKENS_MISSING,
            fix=f'add "num_speculative_tokens": {own if own is not None else "N"} to '
            "--speculative-config",
            evidence=f"{_SPECULATIVE}: SpeculativeConfig._verify_args (vLLM {launch.version})",
        )
    )


def check_tokens_against_draft(launch: LaunchSubject, found: Findings) -> None:
    """``num_speculative_tokens`` against the draft: zero or less is refused (the field is
    ``Field(default=None, gt=0)``, ``SpeculativeConfig.num_speculative_tokens``); above an
    ``n_predict`` and not a
    multiple of it is refused ("must be divisible by n_predict", 0.32.0 and 0.33.0:
    ``SpeculativeConfig.__post_init__``, 0.34.0: ``speculator_config.py:
    DraftModelSpeculatorConfig.resolve_num_speculative_tokens``); another number than the
    draft's own (:func:`~drafting_config.draft.speculative_tokens.draft_speculative_tokens`:
    a DFlash draft's ``block_size - 1``, whose block vLLM fills with the anchor and
    ``num_speculative_tokens`` slots, ``dflash/config.py``) is a warning."""
    tokens = exact_int(launch.given("num_speculative_tokens"))
    if tokens is None:
        return
    if tokens <= 0:
        found.error(
            ParallelDraftingConfigError(
                f"num_speculative_tokens {tokens} is not positive: vLLM refuses it.",
                field=_field("num_speculative_tokens"),
                code=vllm_codes.LAUNCH_TOKENS_REFUSED,
                fix="launch with a positive num_speculative_tokens",
                evidence=f"{_SPECULATIVE}: SpeculativeConfig.num_speculative_tokens "
                f"(Field gt=0; vLLM {launch.version})",
            )
        )
        return
    n_predict = _positive(launch.subject.get("n_predict", None))
    if n_predict is not None and tokens > n_predict and tokens % n_predict:
        found.error(
            ParallelDraftingConfigError(
                f"num_speculative_tokens {tokens} is above the draft's n_predict {n_predict} "
                "and not a multiple of it: vLLM refuses it.",
                field=_field("num_speculative_tokens"),
                code=vllm_codes.LAUNCH_TOKENS_REFUSED,
                fix=f"launch with num_speculative_tokens {n_predict} or a multiple of it",
                evidence=f"{_SPECULATIVE}: SpeculativeConfig.__post_init__ (vLLM {launch.version})",
            )
        )
        return
    if launch.mode.method == "dspark":
        _check_omni_dspark_tokens(launch, tokens, found)
        return  # vLLM's default is the block size itself: no single trained number here
    own = draft_speculative_tokens(launch.subject.draft)
    if own is not None and own != tokens:
        found.warn(
            ParallelDraftingConfigWarning(
                f"num_speculative_tokens {tokens} is not the draft's {own}: vLLM drafts "
                "another number of tokens than the draft was trained for.",
                field=_field("num_speculative_tokens"),
                code=codes.LAUNCH_TOKENS_DIFFER,
                fix=f'launch with "num_speculative_tokens": {own}',
                evidence=f"{_SPECULATIVE}: SpeculativeConfig.num_speculative_tokens "
                f"(vLLM {launch.version})",
            )
        )


def _check_omni_dspark_tokens(launch: LaunchSubject, tokens: int, found: Findings) -> None:
    """A DSpark draft of a Qwen3-Omni target must be launched with its trained
    ``block_size`` (else ``dspark_block_size``) as ``num_speculative_tokens``
    (``vllm/config/speculative.py: _validate_qwen3_omni_dspark`` raises "Qwen3-Omni DSpark
    requires num_speculative_tokens to match the trained block_size")."""
    target = launch.subject.target
    if target is None or not is_omni_target(target):
        return
    get = launch.subject.get
    block = _positive(get("block_size", None)) or _positive(get("dspark_block_size", None))
    if block is None or block == tokens:
        return
    found.error(
        ParallelDraftingConfigError(
            f"num_speculative_tokens {tokens} is not the draft's block_size {block}, which "
            "vLLM requires for a Qwen3-Omni DSpark draft.",
            field=_field("num_speculative_tokens"),
            code=vllm_codes.LAUNCH_TOKENS_REFUSED,
            fix=f'launch with "num_speculative_tokens": {block}',
            evidence=f"{_SPECULATIVE}: _validate_qwen3_omni_dspark (vLLM {launch.version})",
        )
    )


def check_draft_parallelism(launch: LaunchSubject, found: Findings) -> None:
    """The draft's tensor-parallel size: ``tensor_parallel_size`` in the speculative config
    is refused (``SpeculativeConfig._verify_args``: "not a valid argument"); the draft's
    size must be 1 or the target's (``_verify_and_get_draft_tp``), and divide the draft's
    attention heads (``vllm/config/model.py: ModelConfig.verify_with_parallel_config``)."""
    evidence = f"{_SPECULATIVE}: SpeculativeConfig._verify_args (vLLM {launch.version})"
    if launch.given("tensor_parallel_size") is not None:
        found.error(
            ParallelDraftingConfigError(
                "--speculative-config takes no tensor_parallel_size: vLLM refuses it.",
                field=_field("tensor_parallel_size"),
                code=vllm_codes.LAUNCH_DRAFT_TP,
                fix='rename it "draft_tensor_parallel_size"',
                evidence=evidence,
            )
        )
    target_tp = _target_tp(launch)
    draft_tp = exact_int(launch.given("draft_tensor_parallel_size"))
    if draft_tp is not None and draft_tp not in (1, target_tp):
        found.error(
            ParallelDraftingConfigError(
                f"draft_tensor_parallel_size {draft_tp} is neither 1 nor the target's "
                f"{target_tp}: vLLM refuses it.",
                field=_field("draft_tensor_parallel_size"),
                code=vllm_codes.LAUNCH_DRAFT_TP,
                fix=f"set draft_tensor_parallel_size to 1 or {target_tp}",
                evidence=f"{_SPECULATIVE}: SpeculativeConfig._verify_and_get_draft_tp "
                f"(vLLM {launch.version})",
            )
        )
        return
    size = draft_tp if draft_tp is not None else target_tp
    heads = _positive(launch.subject.get("num_attention_heads", None))
    if heads is not None and size > 1 and heads % size:
        field = (
            _field("draft_tensor_parallel_size")
            if draft_tp is not None
            else "--tensor-parallel-size"
        )
        found.error(
            ParallelDraftingConfigError(
                f"The draft's {heads} attention heads do not divide by its tensor-parallel "
                f"size {size}: vLLM refuses the draft.",
                field=field,
                code=vllm_codes.LAUNCH_DRAFT_TP,
                fix='set "draft_tensor_parallel_size": 1 in --speculative-config',
                evidence="vllm/config/model.py: ModelConfig.verify_with_parallel_config "
                f"(vLLM {launch.version})",
            )
        )


def _target_tp(launch: LaunchSubject) -> int:
    """The target's tensor-parallel size as the launch gives it (default 1)."""
    for option in launch.launch.options:
        if _normal(option.name) in ("--tensor-parallel-size", "-tp") and option.value:
            value = exact_int(_dotted_value(option.value))
            if value is not None and value > 0:
                return value
    return 1


def check_draft_max_model_len(launch: LaunchSubject, found: Findings) -> None:
    """``max_model_len`` in the speculative config above the draft's
    ``max_position_embeddings`` is refused ("cannot be larger than draft_max_model_len",
    ``SpeculativeConfig._maybe_override_draft_max_model_len``)."""
    asked = exact_int(launch.given("max_model_len"))
    limit = _positive(launch.subject.get("max_position_embeddings", None))
    if asked is None or limit is None or asked <= limit:
        return
    found.error(
        ParallelDraftingConfigError(
            f"max_model_len {asked} is above the draft's max_position_embeddings {limit}: "
            "vLLM refuses it.",
            field=_field("max_model_len"),
            code=vllm_codes.LAUNCH_MAX_MODEL_LEN,
            fix=f"set max_model_len to {limit} or less",
            evidence=f"{_SPECULATIVE}: SpeculativeConfig._maybe_override_draft_max_model_len "
            f"(vLLM {launch.version})",
        )
    )


def check_vocab_setting(launch: LaunchSubject, found: Findings) -> None:
    """``use_heterogeneous_vocab`` (before :data:`~.names.DROPS_HETEROGENEOUS_VOCAB`; from it
    on the key is unknown, :func:`check_options_known`): ``_verify_args`` raises unless the
    method is ``draft_model``, drafting is greedy (``draft_sample_method``) and
    ``use_local_argmax_reduction`` is off; where it is accepted, a draft model of another
    vocabulary than the target's passes the config stage
    (``verify_equal_vocab_size_if_draft_model``), so that error
    (:func:`~.draft_models.check_draft_model_vocab`, ``vocab-differs-from-target``) goes."""
    if launch.given("use_heterogeneous_vocab") is not True:
        return
    if since(launch.version, DROPS_HETEROGENEOUS_VOCAB):
        return
    method = launch_method(launch) or launch.mode.method
    why = None
    if method != "draft_model":
        why = f"it works only with method 'draft_model', not {method!r}"
    elif launch.given("draft_sample_method") not in (None, "greedy"):
        why = "it supports only greedy drafting"
    elif launch.given("use_local_argmax_reduction") is True:
        why = "it is not compatible with use_local_argmax_reduction"
    if why is None:  # accepted: the draft model of another vocabulary is let through
        found.errors[:] = [
            error for error in found.errors if error.code is not codes.VOCAB_DIFFERS_FROM_TARGET
        ]
        return
    found.error(
        ParallelDraftingConfigError(
            f"vLLM refuses use_heterogeneous_vocab here: {why}.",
            field=_field("use_heterogeneous_vocab"),
            code=vllm_codes.LAUNCH_VOCAB_SETTING,
            fix="drop use_heterogeneous_vocab, or use it with method draft_model and greedy "
            "drafting",
            evidence=f"{_SPECULATIVE}: SpeculativeConfig._verify_args (vLLM {launch.version})",
        )
    )


def _positive(value: object) -> int | None:
    number = exact_int(value)
    return number if number is not None and number > 0 else None


LAUNCH_RULES: Final[tuple[LaunchRule, ...]] = (
    check_options_known,
    check_method,
    check_parallel_switch,
    check_model_and_tokens,
    check_tokens_against_draft,
    check_draft_parallelism,
    check_draft_max_model_len,
    check_vocab_setting,
)
"""The launch rules, in the order vLLM meets what they judge."""


def check_launch(subject: VllmSubject, mode: ServedMode, found: Findings) -> None:
    """Judge ``subject.launch`` (when given) against the draft: a launch of another program
    is one error (``launch-other-engine``); else :data:`LAUNCH_RULES`, each on
    ``--speculative-config`` and the options as this release reads them (without
    ``--speculative-config``, only the options: vLLM drafts nothing to judge)."""
    if subject.launch is None:
        return
    try:
        read = read_launch(subject.launch)
    except LaunchError:  # checked when the launch was given (check()): not reached
        return
    if not read.ours:
        found.error(
            ParallelDraftingConfigError(
                "The launch does not run vLLM's server (vllm serve), so vLLM's rules cannot "
                "judge it.",
                field="launch",
                code=codes.LAUNCH_OTHER_ENGINE,
                fix="check the launch with the engine it runs",
                evidence="vllm/entrypoints/cli/serve.py: ServeSubcommand",
            )
        )
        return
    judged = LaunchSubject(subject, read, mode)
    with found.collect():
        for rule in LAUNCH_RULES if read.config is not None else LAUNCH_RULES[:1]:
            rule(judged, found)
