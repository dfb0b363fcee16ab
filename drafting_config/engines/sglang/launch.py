"""An SGLang launch (``python -m sglang.launch_server --model-path TARGET
--speculative-algorithm ... --speculative-draft-model-path DRAFT``), read with the release's
own names (:func:`~.tables.launch_names`: ``ServerArgs``' options, ``SpeculativeAlgorithm``'s
members and aliases) and judged against the draft (:func:`check_sglang_launch`), each rule
citing SGLang's code (``srt/`` stands for ``sglang/srt/``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from drafting_config.draft.speculative_tokens import draft_speculative_tokens
from drafting_config.engines.interface import LaunchFacts
from drafting_config.engines.sglang import codes as sglang_codes
from drafting_config.engines.sglang.config import sglang_draft
from drafting_config.engines.sglang.names import VERSION, Algorithm
from drafting_config.engines.sglang.tables import launch_names
from drafting_config.rules.subject import Subject
from drafting_config.values import codes
from drafting_config.values.errors import ParallelDraftingConfigError, ParallelDraftingConfigWarning
from drafting_config.values.findings import Findings
from drafting_config.values.launch import Launch, Option, read_options

ALGORITHM_OPTION: Final = "--speculative-algorithm"
DRAFT_OPTIONS: Final = ("--speculative-draft-model-path", "--speculative-draft-model")
TARGET_OPTIONS: Final = ("--model-path", "--model")
STEPS: Final = "--speculative-num-steps"
TOPK: Final = "--speculative-eagle-topk"
DRAFT_TOKENS: Final = "--speculative-num-draft-tokens"
DFLASH_BLOCK: Final = "--speculative-dflash-block-size"
DSPARK_BLOCK: Final = "--speculative-dspark-block-size"
ADAPTIVE: Final = "--speculative-adaptive"

_PROGRAMS: Final = (("-m", "sglang.launch_server"), ("sglang", "serve"))
"""How a launch runs SGLang's server: ``python -m sglang.launch_server``, or ``sglang
serve``."""

_HOOK: Final = "srt/arg_groups/speculative_hook.py"
_EAGLE_FAMILY: Final = frozenset({"EAGLE", "EAGLE3", "STANDALONE", "FROZEN_KV_MTP"})
"""The algorithms ``_handle_eagle_family`` checks (``SpeculativeAlgorithm.handle_server_args``)."""


@dataclass(frozen=True)
class SglangLaunch:
    """A launch as SGLang's parser reads it."""

    ours: bool
    """Whether it runs SGLang's server, or names no program (only options)."""
    options: tuple[Option, ...]
    """Its options, in order."""

    def value(self, *names: str) -> str | None:
        """The last value given to any of ``names`` (argparse keeps the last)."""
        found = None
        for option in self.options:
            if option.name in names:
                found = option.value
        return found

    def given(self, *names: str) -> bool:
        return any(option.name in names for option in self.options)

    def integer(self, name: str) -> int | None:
        text = self.value(name)
        try:
            return None if text is None else int(text)
        except ValueError:
            return None


def _program_length(words: tuple[str, ...]) -> int | None:
    """The leading words that run SGLang's server (0: none, only options), or ``None``."""
    if not words or words[0].startswith("-"):
        return 0
    first = os.path.basename(words[0])
    if first.startswith(("python", "python3")) and tuple(words[1:3]) == _PROGRAMS[0]:
        return 3
    if first == _PROGRAMS[1][0] and words[1:2] == (_PROGRAMS[1][1],):
        return 2
    return None


def read_launch(launch: Launch) -> SglangLaunch:
    """``launch`` as SGLang's parser reads it."""
    length = _program_length(launch.words)
    if length is None:
        return SglangLaunch(False, ())
    _, options = read_options(launch.words[length:])
    return SglangLaunch(True, options)


def launch_facts(launch: Launch) -> LaunchFacts:
    """:meth:`~drafting_config.engines.interface.EngineRules.launch_facts` for SGLang."""
    read = read_launch(launch)
    return LaunchFacts(read.ours, read.value(*TARGET_OPTIONS), read.value(*DRAFT_OPTIONS))


# --- the rules -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class LaunchSubject:
    """What the launch rules judge: the draft, the launch and the algorithm the draft is
    for (``None``: the draft fits none)."""

    subject: Subject
    launch: SglangLaunch
    algorithm: Algorithm | None

    @property
    def given_algorithm(self) -> str | None:
        """``SpeculativeAlgorithm.from_string`` of the launch's algorithm (``None``: none
        given, or one it refuses)."""
        name = self.launch.value(ALGORITHM_OPTION)
        return None if name is None else launch_names(VERSION).algorithm(name)


LaunchRule = Callable[[LaunchSubject, Findings], None]


def check_sglang_options_known(launch: LaunchSubject, found: Findings) -> None:
    """Every option is one ``ServerArgs.add_cli_args`` registers (``srt/server_args.py``;
    argparse also takes a unique prefix)."""
    known = launch_names(VERSION).server_options
    for option in launch.launch.options:
        name = option.name
        if name in known or (
            name.startswith("--") and sum(other.startswith(name) for other in known) == 1
        ):
            continue
        if name.startswith("--no-") and "--" + name.removeprefix("--no-") in known:
            continue
        found.error(
            ParallelDraftingConfigError(
                f"SGLang's server has no option {name}: its parser refuses the launch.",
                field=name,
                code=codes.LAUNCH_OPTION_UNKNOWN,
                fix=f"remove {name} from the launch (SGLang {VERSION} has no such option)",
                evidence=f"srt/server_args.py: ServerArgs.add_cli_args (SGLang {VERSION})",
            )
        )


def check_sglang_algorithm(launch: LaunchSubject, found: Findings) -> None:
    """The algorithm is one ``SpeculativeAlgorithm.from_string`` accepts
    (``srt/speculative/spec_info.py``: a member in any case, or a reserved alias, read as
    ``EAGLE``), and the draft's: an EAGLE-3 head under ``EAGLE`` (or ``NEXTN``) runs as an
    EAGLE head, never upgraded (``srt/arg_groups/speculative_hook.py:
    _resolve_speculative_algorithm_alias`` maps both to ``EAGLE``), its acceptance near
    zero; any other algorithm builds another worker over the draft."""
    name = launch.launch.value(ALGORITHM_OPTION)
    if name is None:
        return
    algorithm = launch.given_algorithm
    fix_to = None if launch.algorithm is None else launch.algorithm.value
    if algorithm is None:
        accepted = launch_names(VERSION)
        found.error(
            ParallelDraftingConfigError(
                f"SGLang has no speculative algorithm {name!r}: it refuses the launch.",
                field=ALGORITHM_OPTION,
                code=codes.LAUNCH_METHOD_UNKNOWN,
                fix=f"use {ALGORITHM_OPTION} {fix_to}"
                if fix_to
                else f"use one of {', '.join(accepted.algorithms)}",
                evidence="srt/speculative/spec_info.py: SpeculativeAlgorithm.from_string "
                f"(SGLang {VERSION})",
            )
        )
        return
    if fix_to is None or algorithm == fix_to:
        return
    if algorithm == "EAGLE" and launch.algorithm is Algorithm.EAGLE3:
        message = (
            f"{ALGORITHM_OPTION} {name} serves this EAGLE-3 head as an EAGLE head: SGLang "
            "never upgrades it, and acceptance is near zero."
        )
        evidence = f"{_HOOK}: _resolve_speculative_algorithm_alias (SGLang {VERSION})"
    else:
        message = (
            f"{ALGORITHM_OPTION} {name} is not this draft's algorithm ({fix_to}): SGLang "
            "would refuse it or run the wrong drafter."
        )
        evidence = f"srt/speculative/spec_info.py: SpeculativeAlgorithm (SGLang {VERSION})"
    found.error(
        ParallelDraftingConfigError(
            message,
            field=ALGORITHM_OPTION,
            code=codes.LAUNCH_METHOD_MISMATCH,
            fix=f"launch with {ALGORITHM_OPTION} {fix_to}",
            evidence=evidence,
        )
    )


def check_sglang_draft_path(launch: LaunchSubject, found: Findings) -> None:
    """``DFLASH`` needs ``--speculative-draft-model-path`` (``_handle_dflash`` raises
    "DFLASH speculative decoding requires setting --speculative-draft-model-path")."""
    if launch.given_algorithm != "DFLASH" or launch.launch.given(*DRAFT_OPTIONS):
        return
    found.error(
        ParallelDraftingConfigError(
            "The launch names DFLASH but no --speculative-draft-model-path: SGLang refuses it.",
            field=DRAFT_OPTIONS[0],
            code=sglang_codes.LAUNCH_DRAFT_PATH_MISSING,
            fix=f"add {DRAFT_OPTIONS[0]} with the draft's path",
            evidence=f"{_HOOK}: _handle_dflash (SGLang {VERSION})",
        )
    )


def check_sglang_steps(launch: LaunchSubject, found: Findings) -> None:
    """Steps, top-k and draft tokens as the server arguments check them: for the EAGLE
    family (``_handle_eagle_family``), top-k or draft tokens without steps fail its
    ``assert`` (unless ``--speculative-adaptive``), and with top-k 1 the draft tokens are
    set to steps + 1; for ``DFLASH`` (``_handle_dflash``), steps and top-k other than 1 are
    overridden to 1, and a block size and draft tokens that differ are refused."""
    read, algorithm = launch.launch, launch.given_algorithm
    steps, topk, tokens = read.integer(STEPS), read.integer(TOPK), read.integer(DRAFT_TOKENS)
    if algorithm in _EAGLE_FAMILY:
        evidence = f"{_HOOK}: _handle_eagle_family (SGLang {VERSION})"
        if steps is None and not read.given(ADAPTIVE) and (topk is not None or tokens is not None):
            found.error(
                ParallelDraftingConfigError(
                    f"{TOPK} or {DRAFT_TOKENS} without {STEPS} fails an assertion of "
                    "SGLang's server arguments.",
                    field=STEPS,
                    code=sglang_codes.LAUNCH_STEPS,
                    fix=f"add {STEPS}, or drop {TOPK} and {DRAFT_TOKENS}",
                    evidence=evidence,
                )
            )
        elif topk == 1 and steps is not None and tokens is not None and tokens != steps + 1:
            found.warn(
                ParallelDraftingConfigWarning(
                    f"With {TOPK} 1, SGLang sets {DRAFT_TOKENS} to {steps + 1} (steps + 1), "
                    f"not the launch's {tokens}.",
                    field=DRAFT_TOKENS,
                    code=sglang_codes.LAUNCH_STEPS,
                    fix=f"set {DRAFT_TOKENS} {steps + 1}",
                    evidence=evidence,
                )
            )
        return
    if algorithm == "DSPARK":
        _dspark_steps(launch, found)
        return
    if algorithm != "DFLASH":
        return
    evidence = f"{_HOOK}: _handle_dflash (SGLang {VERSION})"
    block = read.integer(DFLASH_BLOCK)
    if block is not None and tokens is not None and block != tokens:
        found.error(
            ParallelDraftingConfigError(
                f"{DFLASH_BLOCK} {block} and {DRAFT_TOKENS} {tokens} differ: SGLang refuses "
                "them for DFLASH.",
                field=DFLASH_BLOCK,
                code=sglang_codes.LAUNCH_STEPS,
                fix=f"give one of {DFLASH_BLOCK} and {DRAFT_TOKENS}",
                evidence=evidence,
            )
        )
        return
    _overridden(STEPS, steps, "DFLASH", evidence, found)
    _overridden(TOPK, topk, "DFLASH", evidence, found)


def _overridden(
    option: str, value: int | None, algorithm: str, evidence: str, found: Findings
) -> None:
    if value is not None and value != 1:
        found.warn(
            ParallelDraftingConfigWarning(
                f"SGLang overrides {option} {value} to 1 for {algorithm}.",
                field=option,
                code=sglang_codes.LAUNCH_STEPS,
                fix=f"drop {option} from the launch",
                evidence=evidence,
            )
        )


def _draft_gamma(launch: LaunchSubject) -> int | None:
    """The DSpark draft's gamma as SGLang's parse resolves it: ``dspark_block_size``, else
    the DFlash parse's ``block_size`` (``srt/speculative/dspark_components/dspark_config.py:
    parse_dspark_draft_config``); ``None`` where it says none or refuses the draft."""
    try:
        parsed = sglang_draft(launch.subject)
        prefixed = launch.subject.get("dspark_block_size", None)
    except ParallelDraftingConfigError:  # the config rules report it
        return None
    if isinstance(prefixed, int) and not isinstance(prefixed, bool):
        return prefixed
    return None if parsed is None else parsed.dflash.block_size


def _dspark_steps(launch: LaunchSubject, found: Findings) -> None:
    """DSPARK's server arguments (``_handle_dspark``): steps and top-k other than 1 are
    overridden to 1; gamma is ``--speculative-dspark-block-size``, else the draft's, and
    ``--speculative-num-draft-tokens`` must be gamma + 1 and at least 2."""
    read = launch.launch
    evidence = f"{_HOOK}: _handle_dspark (SGLang {VERSION})"
    _overridden(STEPS, read.integer(STEPS), "DSPARK", evidence, found)
    _overridden(TOPK, read.integer(TOPK), "DSPARK", evidence, found)
    gamma = read.integer(DSPARK_BLOCK)
    if gamma is None:
        gamma = _draft_gamma(launch)
    tokens = read.integer(DRAFT_TOKENS)
    if tokens is None:
        return
    if (gamma is not None and tokens != gamma + 1) or tokens < 2:
        want = 2 if gamma is None else gamma + 1
        found.error(
            ParallelDraftingConfigError(
                f"{DRAFT_TOKENS} {tokens} is not gamma + 1 ({want}): SGLang refuses it for DSPARK.",
                field=DRAFT_TOKENS,
                code=sglang_codes.LAUNCH_STEPS,
                fix=f"drop {DRAFT_TOKENS}, or set it to {want}",
                evidence=evidence,
            )
        )


def check_sglang_block(launch: LaunchSubject, found: Findings) -> None:
    """A DFLASH launch's block (``--speculative-dflash-block-size``, else
    ``--speculative-num-draft-tokens``) other than the draft's trained block
    (:func:`~drafting_config.draft.speculative_tokens.draft_speculative_tokens` + 1): SGLang
    logs "DFLASH block size mismatch" and drafts with the launch's
    (``srt/speculative/dflash_worker_v2.py: DFlashWorkerV2``)."""
    if launch.given_algorithm == "DSPARK" and launch.algorithm is Algorithm.DSPARK:
        _dspark_block(launch, found)
        return
    if launch.given_algorithm != "DFLASH" or launch.algorithm is not Algorithm.DFLASH:
        return
    read = launch.launch
    block = read.integer(DFLASH_BLOCK)
    option = DFLASH_BLOCK
    if block is None:
        block, option = read.integer(DRAFT_TOKENS), DRAFT_TOKENS
    own = draft_speculative_tokens(launch.subject.draft)
    if block is None or own is None or block == own + 1:
        return
    found.warn(
        ParallelDraftingConfigWarning(
            f"{option} {block} is not the draft's block of {own + 1}: SGLang drafts another "
            "block than the draft was trained for.",
            field=option,
            code=codes.LAUNCH_TOKENS_DIFFER,
            fix=f"launch with {option} {own + 1}, or drop it (SGLang reads the draft's)",
            evidence=f"srt/speculative/dflash_worker_v2.py: DFlashWorkerV2 (SGLang {VERSION})",
        )
    )


def _dspark_block(launch: LaunchSubject, found: Findings) -> None:
    """A DSPARK launch's gamma (``--speculative-dspark-block-size``) other than the draft's:
    SGLang drafts with the launch's (``_handle_dspark``)."""
    gamma, own = launch.launch.integer(DSPARK_BLOCK), _draft_gamma(launch)
    if gamma is None or own is None or gamma == own:
        return
    found.warn(
        ParallelDraftingConfigWarning(
            f"{DSPARK_BLOCK} {gamma} is not the draft's gamma {own}: SGLang drafts another "
            "block than the draft was trained for.",
            field=DSPARK_BLOCK,
            code=codes.LAUNCH_TOKENS_DIFFER,
            fix=f"launch with {DSPARK_BLOCK} {own}, or drop it (SGLang reads the draft's)",
            evidence=f"{_HOOK}: _handle_dspark (SGLang {VERSION})",
        )
    )


LAUNCH_RULES: Final[tuple[LaunchRule, ...]] = (
    check_sglang_options_known,
    check_sglang_algorithm,
    check_sglang_draft_path,
    check_sglang_steps,
    check_sglang_block,
)
"""The launch rules, in the order SGLang's server arguments meet them."""


def check_sglang_launch(subject: Subject, algorithm: Algorithm | None, found: Findings) -> None:
    """Judge ``subject.launch`` (when given) against the draft: another program's launch is
    one error (``launch-other-engine``); else :data:`LAUNCH_RULES`."""
    if subject.launch is None:
        return
    read = read_launch(subject.launch)
    if not read.ours:
        found.error(
            ParallelDraftingConfigError(
                "The launch does not run SGLang's server (python -m sglang.launch_server), so "
                "SGLang's rules cannot judge it.",
                field="launch",
                code=codes.LAUNCH_OTHER_ENGINE,
                fix="check the launch with the engine it runs",
                evidence="sglang/launch_server.py",
            )
        )
        return
    judged = LaunchSubject(subject, read, algorithm)
    with found.collect():
        for rule in LAUNCH_RULES:
            rule(judged, found)
