"""SGLang's launch rules (:mod:`drafting_config.engines.sglang.launch`): a user's
``python -m sglang.launch_server`` line judged against the draft.  Each rule has a test that
fails without it."""

from __future__ import annotations

from typing import Final

import pytest

from drafting_config import check
from drafting_config.engines.sglang.launch import launch_facts
from drafting_config.engines.sglang.names import VERSION
from drafting_config.engines.sglang.tables import launch_names
from drafting_config.values import codes
from drafting_config.values.launch import Launch, split_words
from drafting_config.verdicts import Verdict
from tests.conftest import EXAMPLES

DFLASH: Final = str(EXAMPLES / "dflash-qwen3-4b")
DSPARK: Final = str(EXAMPLES / "dspark-qwen3-8b")
DSPARK_NOISE: Final = str(EXAMPLES / "dspark-noise-qwen3-8b")
"""A DSpark draft SGLang parses (block_size 8: gamma 8)."""
EAGLE3: Final = str(EXAMPLES / "ptd-eagle3-llama3-8b")
ENGINE: Final = f"sglang=={VERSION}"
DRAFT_PATH: Final = "--speculative-draft-model-path"


def _check(draft: str, args: str) -> Verdict:
    return check(
        draft,
        engine=ENGINE,  # type: ignore[arg-type]
        launch=args,
        check_tokenizer=False,
        check_weights=False,
    )


def _codes(verdict: Verdict) -> list[str]:
    return [e.code.name for e in verdict.errors if e.code is not None]


def _warned(verdict: Verdict) -> list[str]:
    return [w.code.name for w in verdict.warnings if w.code is not None]


def test_a_launch_that_fits_the_draft_adds_no_launch_finding() -> None:
    verdict = _check(
        DFLASH, f"--speculative-algorithm DFLASH --speculative-draft-model-path {DFLASH}"
    )
    assert not [c for c in (*_codes(verdict), *_warned(verdict)) if c.startswith("launch-")]


@pytest.mark.parametrize("name", ["EAGLE", "eagle", "NEXTN", "nextn"])
def test_an_eagle3_head_under_eagle_or_its_alias_is_an_error(name: str) -> None:
    verdict = _check(
        EAGLE3, f"--speculative-algorithm {name} --speculative-draft-model-path {EAGLE3}"
    )
    error = next(e for e in verdict.errors if e.code is codes.LAUNCH_METHOD_MISMATCH)
    assert "acceptance is near zero" in str(error)
    assert error.fix == "launch with --speculative-algorithm EAGLE3"
    assert "_resolve_speculative_algorithm_alias" in (error.evidence or "")


def test_the_aliases_are_the_wheel_s_and_become_eagle() -> None:
    names = launch_names(VERSION)
    assert names.aliases
    assert all(names.algorithm(alias) == "EAGLE" for alias in names.aliases)
    assert names.algorithm("eagle3") == "EAGLE3"  # any case, never upgraded


@pytest.mark.parametrize(
    ("draft", "algorithm"), [(DFLASH, "DSPARK"), (DSPARK, "DFLASH"), (DFLASH, "EAGLE3")]
)
def test_another_algorithm_than_the_draft_s_is_an_error(draft: str, algorithm: str) -> None:
    verdict = _check(
        draft, f"--speculative-algorithm {algorithm} --speculative-draft-model-path {draft}"
    )
    assert "launch-method-mismatch" in _codes(verdict)


def test_an_algorithm_sglang_does_not_have_is_an_error() -> None:
    verdict = _check(
        DFLASH, f"--speculative-algorithm MEDUSA --speculative-draft-model-path {DFLASH}"
    )
    assert "launch-method-unknown" in _codes(verdict)


def test_an_option_sglang_does_not_know_is_an_error() -> None:
    verdict = _check(
        DFLASH, f"--speculative-algorithm DFLASH {DRAFT_PATH} {DFLASH} --speculative-turbo 2"
    )
    error = next(e for e in verdict.errors if e.code is codes.LAUNCH_OPTION_UNKNOWN)
    assert error.field == "--speculative-turbo"


def test_dflash_without_a_draft_path_is_an_error() -> None:
    assert "launch-draft-path-missing" in _codes(_check(DFLASH, "--speculative-algorithm DFLASH"))


def test_eagle_family_topk_without_steps_fails_the_assertion() -> None:
    base = f"--speculative-algorithm EAGLE3 --speculative-draft-model-path {EAGLE3}"
    assert "launch-steps" in _codes(_check(EAGLE3, base + " --speculative-eagle-topk 4"))
    assert "launch-steps" not in _codes(
        _check(EAGLE3, base + " --speculative-num-steps 3 --speculative-eagle-topk 4")
    )


def test_eagle_family_topk_one_sets_the_draft_tokens() -> None:
    base = f"--speculative-algorithm EAGLE3 --speculative-draft-model-path {EAGLE3}"
    verdict = _check(
        EAGLE3,
        base
        + " --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 8",
    )
    assert "launch-steps" in _warned(verdict)
    assert "launch-steps" not in _warned(
        _check(
            EAGLE3,
            f"{base} --speculative-num-steps 3 --speculative-eagle-topk 1 "
            "--speculative-num-draft-tokens 4",
        )
    )


def test_dflash_steps_and_topk_are_overridden_and_block_sizes_must_agree() -> None:
    base = f"--speculative-algorithm DFLASH --speculative-draft-model-path {DFLASH}"
    assert "launch-steps" in _warned(_check(DFLASH, base + " --speculative-num-steps 4"))
    conflicting = base + " --speculative-dflash-block-size 16 --speculative-num-draft-tokens 8"
    assert "launch-steps" in _codes(_check(DFLASH, conflicting))


def test_a_dflash_block_other_than_the_draft_s_is_a_warning() -> None:
    base = f"--speculative-algorithm DFLASH --speculative-draft-model-path {DFLASH}"
    verdict = _check(DFLASH, base + " --speculative-num-draft-tokens 8")
    assert "launch-tokens-differ" in _warned(verdict)
    assert "launch-tokens-differ" not in _warned(
        _check(DFLASH, base + " --speculative-num-draft-tokens 16")
    )


def test_a_whole_launch_names_its_target_and_draft() -> None:
    line = (
        "python -m sglang.launch_server --model-path Qwen/Qwen3-4B "
        f"--speculative-algorithm DFLASH {DRAFT_PATH} {DFLASH}"
    )
    facts = launch_facts(Launch(split_words(line)))
    assert (facts.ours, facts.target, facts.draft) == (True, "Qwen/Qwen3-4B", DFLASH)
    assert _check(DFLASH, line).target == "Qwen/Qwen3-4B"


def test_a_vllm_launch_is_an_error_of_an_sglang_verdict() -> None:
    assert "launch-other-engine" in _codes(_check(DFLASH, "vllm serve Qwen/Qwen3-4B"))


def test_launch_findings_keep_the_finding_contract() -> None:
    lines = (
        f"--speculative-algorithm EAGLE {DRAFT_PATH} {EAGLE3} --speculative-eagle-topk 2 --x 1",
        f"--speculative-algorithm MEDUSA {DRAFT_PATH} {EAGLE3}",
        "--speculative-algorithm DFLASH --speculative-num-steps 3 --speculative-num-draft-tokens 8",
        f"--speculative-algorithm DFLASH {DRAFT_PATH} {DFLASH} --speculative-dflash-block-size 4 "
        "--speculative-num-draft-tokens 8",
        f"--speculative-algorithm DSPARK {DRAFT_PATH} {DFLASH}",
    )
    seen = set()
    for line in lines:
        for draft in (DFLASH, EAGLE3):
            verdict = _check(draft, line)
            for finding in (*verdict.errors, *verdict.warnings):
                code = finding.code
                if code is None or not code.name.startswith("launch-"):
                    continue
                seen.add(code.name)
                message = str(finding)
                assert len(message) <= 140, message
                assert message.endswith("."), message
                assert ".py" not in message, message
                assert VERSION not in message, message
                assert finding.field, message
                assert finding.fix, message
                assert finding.fix[0].islower(), finding.fix
                if code is not codes.LAUNCH_DRAFT_DIFFERS:
                    assert ".py" in (finding.evidence or ""), (message, finding.evidence)
    assert {
        "launch-option-unknown",
        "launch-method-unknown",
        "launch-method-mismatch",
        "launch-draft-path-missing",
        "launch-steps",
        "launch-tokens-differ",
    } <= seen


def test_dspark_draft_tokens_must_be_gamma_plus_one() -> None:
    draft = DSPARK_NOISE
    base = f"--speculative-algorithm DSPARK {DRAFT_PATH} {draft}"
    assert "launch-steps" in _codes(_check(draft, base + " --speculative-num-draft-tokens 8"))
    assert "launch-steps" not in _codes(_check(draft, base + " --speculative-num-draft-tokens 9"))
    given = base + " --speculative-dspark-block-size 4 --speculative-num-draft-tokens 5"
    assert "launch-steps" not in _codes(_check(draft, given))
    assert "launch-tokens-differ" in _warned(_check(draft, given))
    assert "launch-steps" in _warned(_check(draft, base + " --speculative-eagle-topk 4"))
