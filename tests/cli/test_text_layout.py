"""The text output's layout: one block per draft, one line per engine, each finding once
with its fix (and, with ``--verbose``, its evidence), the footer's counts, ``-q``, and no
line of the layout's making longer than :data:`~drafting_config.cli.render.MAX_LINE`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drafting_config import Verdict
from drafting_config.cli.render import (
    MAX_LINE,
    STRICT_FAILED,
    block_lines,
    footer_line,
    headline_word,
    outcome,
)
from drafting_config.engines import ENGINE_NAMES, ENGINES
from drafting_config.engines.vllm import codes as vllm_codes
from drafting_config.engines.vllm.names import VERSIONS, engine_name
from drafting_config.values import codes
from drafting_config.values.codes import CODES
from drafting_config.values.errors import ParallelDraftingConfigError, ParallelDraftingConfigWarning
from drafting_config.values.findings import Note
from tests.conftest import REPO, run_cli
from tests.engines.vllm import (
    TOKENS_READ_ENGINE,
    tokens_read,  # noqa: F401 (a fixture)
)

pytestmark = pytest.mark.usefixtures("tokens_read")
"""The token rules of PTD and PARD drafts, judged on the newest vLLM release that reads their
token (later releases serve such drafts sequentially, the token unused)."""

VLLM = TOKENS_READ_ENGINE
SGLANG = ENGINE_NAMES["sglang"]
OLDEST = engine_name(VERSIONS[0])
DFLASH = REPO / "examples/dflash-qwen3-4b"
BROKEN = REPO / "examples/invalid/pard-token-as-string"


def error(
    message: str = "`pard_token` = '7' is a string, so vLLM refuses the draft at start-up.",
    *,
    field: str | None = "pard_token",
    code: codes.Code | None = codes.TOKEN_NOT_INT,
    fix: str | None = "write the token id as a number",
    evidence: str | None = "vllm/config/speculative.py: SpeculativeConfig.__post_init__",
    unavailable: bool = False,
) -> ParallelDraftingConfigError:
    made = ParallelDraftingConfigError(message, field=field, code=code, fix=fix, evidence=evidence)
    made.unavailable = unavailable
    return made


def verdict(
    engine: str = VLLM, errors: tuple[ParallelDraftingConfigError, ...] = (), **fields: object
) -> Verdict:
    return Verdict("drafts/a", None, errors, engine=engine, **fields)  # type: ignore[arg-type]


# -- the block of one draft ---------------------------------------------------------------------


def test_a_draft_gets_one_headline_then_one_line_per_engine() -> None:
    lines = block_lines(
        [verdict(errors=(error(),)), verdict(SGLANG, mode="dflash", parallel=True)], strict=False
    )
    assert lines[0] == "drafts/a: INVALID"
    assert lines[1] == f"  {VLLM}: fails at token"
    assert [line for line in lines if not line.startswith("    ")][:3] == [
        "drafts/a: INVALID",
        f"  {VLLM}: fails at token",
        f"  {SGLANG}: serves as dflash (parallel), token id from the served tokenizer at start-up",
    ]


def test_the_headline_is_the_worst_outcome_over_the_engines() -> None:
    unchecked = verdict(errors=(error(unavailable=True),))
    warned = verdict(SGLANG, warnings=(ParallelDraftingConfigWarning("looks odd"),))
    assert block_lines([unchecked, verdict(SGLANG)], strict=False)[0] == "drafts/a: NOT CHECKED"
    assert block_lines([unchecked, verdict(SGLANG, errors=(error(),))], strict=False)[0] == (
        "drafts/a: INVALID"
    )
    assert block_lines([verdict(), warned], strict=False)[0] == "drafts/a: OK"
    assert block_lines([verdict(), warned], strict=True)[0] == (
        "drafts/a: FAILED (--strict: warnings)"
    )


@pytest.mark.parametrize("strict", [False, True])
def test_the_headline_word_from_the_outcomes_a_run_counted(strict: bool) -> None:
    """``check`` hands headline_word the outcomes it has counted: the word is the one the
    verdicts give, for one engine and for two."""
    warned = verdict(warnings=(ParallelDraftingConfigWarning("looks odd"),))
    invalid = verdict(errors=(error(),))
    unchecked = verdict(errors=(error(unavailable=True),))
    expected = {
        (verdict(),): "OK",
        (warned,): STRICT_FAILED if strict else "OK",
        (invalid,): "INVALID",
        (unchecked,): "NOT CHECKED",
        (verdict(), unchecked): "NOT CHECKED",
        (warned, unchecked): STRICT_FAILED if strict else "NOT CHECKED",
        (unchecked, invalid): "INVALID",
    }
    for verdicts, word in expected.items():
        outcomes = [outcome(made, strict) for made in verdicts]
        assert headline_word(verdicts, strict, outcomes) == word
        assert headline_word(verdicts, strict) == word


@pytest.mark.parametrize(
    ("made", "line"),
    [
        (verdict(errors=(error(),)), "fails at token"),
        (verdict(errors=(error(code=vllm_codes.FC_WEIGHT_WIDTH_MISMATCH),)), "fails at weights"),
        (verdict(errors=(error(code=None),)), "fails"),
        (verdict(errors=(error(unavailable=True),)), "could not check"),
        (
            verdict(mode="eagle3", parallel=False, serve_with='{"method": "eagle3"}'),
            "serves as eagle3 (sequential)",
        ),
        (
            verdict(mode="pard", parallel=True, token_id=7, token_source="pard_token"),
            "serves as pard (parallel), token id 7 from `pard_token`",
        ),
    ],
)
def test_the_engine_line_says_how_it_serves_or_the_step_it_fails_at(
    made: Verdict, line: str
) -> None:
    assert block_lines([made], strict=False)[1] == f"  {VLLM}: {line}"


def test_serve_with_is_the_verdicts_whole_command_as_it_is() -> None:
    command = """vllm serve TARGET --speculative-config '{"method": "dflash"}'"""
    made = verdict(mode="dflash", parallel=True, serve_with=command)
    assert f"    serve with: {command}" in block_lines([made], strict=False)


def test_a_finding_is_severity_code_field_message_with_its_fix_on_a_line_of_its_own() -> None:
    lines = block_lines([verdict(errors=(error(),))], strict=False)
    assert lines[2:] == [
        "  error token-not-int pard_token: `pard_token` = '7' is a string, so vLLM refuses the "
        "draft at start-up.",
        "    fix: write the token id as a number",
    ]


def test_a_finding_without_a_code_or_field_stays_printable() -> None:
    lines = block_lines([verdict(errors=(error(code=None, field=None, fix=None),))], strict=False)
    assert lines[2].startswith("  error -: `pard_token` = '7' is a string")


def test_the_evidence_is_printed_with_verbose_only() -> None:
    made = [verdict(errors=(error(),))]
    evidence = "    evidence: vllm/config/speculative.py: SpeculativeConfig.__post_init__"
    assert evidence not in block_lines(made, strict=False)
    assert block_lines(made, strict=False, verbose=True)[-1] == evidence


def test_a_finding_every_engine_reports_alike_is_printed_once_after_the_engine_lines() -> None:
    shared = error(unavailable=True)
    lines = block_lines(
        [verdict(errors=(shared,)), verdict(SGLANG, errors=(shared,))], strict=False
    )
    assert lines == [
        "drafts/a: NOT CHECKED",
        f"  {VLLM}: could not check",
        f"  {SGLANG}: could not check",
        "  error token-not-int pard_token: `pard_token` = '7' is a string, so vLLM refuses the "
        "draft at start-up.",
        "    fix: write the token id as a number",
    ]


def test_a_finding_one_engine_reports_is_printed_under_that_engines_line() -> None:
    only = error("SGLang refuses it.", code=vllm_codes.LAYER_IDS_UNORDERED, fix=None)
    note = Note("target not checked: no target given", code=codes.TARGET_NOT_GIVEN)
    lines = block_lines(
        [verdict(errors=(error(),), notes=(note,)), verdict(SGLANG, errors=(only,), notes=(note,))],
        strict=False,
    )
    assert lines == [
        "drafts/a: INVALID",
        f"  {VLLM}: fails at token",
        "    error token-not-int pard_token: `pard_token` = '7' is a string, so vLLM refuses "
        "the draft at start-up.",
        "      fix: write the token id as a number",
        f"  {SGLANG}: fails at layers",
        "    error layer-ids-unordered pard_token: SGLang refuses it.",
        "  note target-not-given: target not checked: no target given",
    ]


def test_a_finding_some_of_several_engines_report_names_them() -> None:
    shared, other = error(), error("Another fact.", code=vllm_codes.LAYER_IDS_UNORDERED, fix=None)
    lines = block_lines(
        [
            verdict(errors=(shared,)),
            verdict(OLDEST, errors=(shared,)),
            verdict(SGLANG, errors=(other,)),
        ],
        strict=False,
    )
    assert (
        f"  error token-not-int pard_token [{VLLM}, {OLDEST}]: `pard_token` = '7' is a "
        "string, so vLLM refuses the draft at start-up."
    ) in lines


# -- line lengths -------------------------------------------------------------------------------

LONGEST_CODE = max(CODES.values(), key=lambda code: len(code.name))


@given(
    st.text(alphabet="abcdefghij `=_.,", min_size=120, max_size=120),
    st.sampled_from([None, "dflash_config.target_layer_ids", "speculators_config.verifier.name"]),
    st.booleans(),
)
def test_no_line_of_a_finding_is_longer_than_the_limit(
    message: str, field: str | None, two_engines: bool
) -> None:
    """A 120-character message under the longest code, a long field, the engine's own
    indentation, a fix and evidence as long: no line over :data:`MAX_LINE`, and no word lost."""
    made = error(
        message, field=field, code=LONGEST_CODE, fix="do " + message, evidence=message + " x"
    )
    verdicts = [verdict(errors=(made,))]
    if two_engines:
        verdicts.append(verdict(SGLANG))
    lines = block_lines(verdicts, strict=False, verbose=True)
    assert max(len(line) for line in lines) <= MAX_LINE
    printed = " ".join(" ".join(lines).split())
    assert " ".join(message.split()) in printed


def test_every_line_of_the_examples_fits(capsys: pytest.CaptureFixture[str]) -> None:
    """The bundled examples with both engines: every line but a headline (a path) and a
    ``serve with`` line (a command to copy) within the limit."""
    examples = [p for p in sorted((REPO / "examples").glob("*/")) if (p / "config.json").exists()]
    examples += sorted((REPO / "examples/invalid").glob("*/"))
    run = run_cli(capsys, "check", "--engine", "all", "--verbose", *examples)
    for line in run.lines:
        if line.startswith(" ") and "serve with: " not in line:
            assert len(line) <= MAX_LINE, line


# -- the command line ---------------------------------------------------------------------------


def test_check_prints_one_block_per_draft_with_both_engines(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    run = run_cli(capsys, "check", "--engine", "all", "--no-tokenizer", DFLASH, BROKEN)
    blocks = [line for line in run.lines if not line.startswith(" ")]
    assert blocks[:2] == [f"{DFLASH}: OK", f"{BROKEN}: INVALID"]
    assert [line for line in run.lines if line.startswith(f"  {VLLM}: ")] == [
        f"  {VLLM}: serves as dflash (parallel), token id 151669 from "
        "`dflash_config.mask_token_id`",
        f"  {VLLM}: fails at token",
    ]
    # SGLang serves BROKEN as a STANDALONE draft model, which never reads its pard_token
    assert f"  {SGLANG}: serves as standalone (sequential)" in run.lines
    assert run.lines[-1] == (
        f"2 checked: 1 valid, 1 invalid ({VLLM} serves 1, {SGLANG} serves 2), 1 fixable with --fix"
    )


def test_one_missing_draft_is_one_finding_for_both_engines(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    run = run_cli(capsys, "check", "--engine", "all", tmp_path / "absent", DFLASH)
    assert run.lines[:4] == [
        f"{tmp_path / 'absent'}: NOT CHECKED",
        f"  {VLLM}: could not check",
        f"  {SGLANG}: could not check",
        "  error file-unavailable: no such file or directory (not found locally).",
    ]
    assert run.lines[-1] == (
        f"2 checked: 1 valid, 0 invalid, 1 not checked ({VLLM} serves 1, {SGLANG} serves 1)"
    )


def test_a_fix_is_printed_under_its_finding(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = {
        "architectures": ["DFlashDraftModel"],
        "model_type": "qwen3",
        "dflash_config": {"mask_token_id": 5, "target_layer_ids": [2, 1]},
        "num_hidden_layers": 1,
        "vocab_size": 100,
    }
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    run = run_cli(capsys, "check", "--engine", "sglang", "--no-tokenizer", tmp_path)
    findings = [i for i, line in enumerate(run.lines) if line.startswith("  error ")]
    assert findings, run.out
    fixes = [line for line in run.lines if line.lstrip().startswith("fix: ")]
    assert fixes, run.out
    for line in fixes:
        assert line.startswith("    fix: ")


def write_remote_code_drafter(directory: Path) -> None:
    """A draft whose drafter class only remote code supplies (``remote-code-drafter``): a
    finding with a fix and evidence."""
    config = {
        "architectures": ["MyDFlashDraft"],
        "auto_map": {"AutoModel": "m.MyDFlashDraft", "AutoConfig": "m.Config"},
        "model_type": "qwen3",
        "dflash_config": {"mask_token_id": 5, "target_layer_ids": [1]},
        "vocab_size": 100,
        "hidden_size": 16,
        "num_hidden_layers": 1,
    }
    (directory / "config.json").write_text(json.dumps(config), encoding="utf-8")


def test_verbose_prints_the_evidence(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    write_remote_code_drafter(tmp_path)
    quiet = run_cli(capsys, "check", "--no-tokenizer", tmp_path)
    loud = run_cli(capsys, "check", "--no-tokenizer", "--verbose", tmp_path)
    evidence = [line for line in loud.lines if line.lstrip().startswith("evidence: ")]
    assert evidence, loud.out
    assert not [line for line in quiet.lines if line.lstrip().startswith("evidence: ")]
    assert _without_evidence(loud.lines) == quiet.lines


def _without_evidence(lines: list[str]) -> list[str]:
    """``lines`` less each ``evidence:`` line and the lines its text wraps onto."""
    kept: list[str] = []
    evidence_indent = None
    for line in lines:
        indent = len(line) - len(line.lstrip())
        if line.lstrip().startswith("evidence: "):
            evidence_indent = indent
            continue
        if evidence_indent is not None and indent > evidence_indent:
            continue
        evidence_indent = None
        kept.append(line)
    return kept


def test_the_footer_counts_drafts(capsys: pytest.CaptureFixture[str]) -> None:
    run = run_cli(capsys, "check", "--engine", "all", "--no-tokenizer", DFLASH, BROKEN)
    assert "note (2 drafts): target not checked: no target given" in run.lines
    assert footer_line("a note", 1) == "note (1 draft): a note"
    assert footer_line("a note", 10) == "note (10 drafts): a note"


def test_quiet_prints_only_drafts_with_a_warning_or_worse(
    capsys: pytest.CaptureFixture[str],
) -> None:
    run = run_cli(capsys, "check", "-q", "--engine", "all", "--no-tokenizer", DFLASH, BROKEN)
    headlines = [line for line in run.lines if not line.startswith((" ", "note ("))]
    assert headlines == [
        f"{BROKEN}: INVALID",
        f"2 checked: 1 valid, 1 invalid ({VLLM} serves 1, {SGLANG} serves 2), 1 fixable with --fix",
    ]


def test_github_annotations_append_the_fix_to_the_message(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    write_remote_code_drafter(tmp_path)
    (item,) = run_cli(capsys, "check", "--json", "--no-tokenizer", tmp_path).json
    (finding,) = [f for f in item["findings"] if f["code"] == "remote-code-drafter"]
    assert finding["fix"]
    run = run_cli(capsys, "check", "--format", "github", "--no-tokenizer", tmp_path)
    (line,) = [line for line in run.lines if "title=remote-code-drafter::" in line]
    assert line.endswith(f"{finding['message']} (fix: {finding['fix']})")


def test_a_note_is_one_footer_line_whatever_the_number_of_engines(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--engine all`` once said the tokenizer note once per engine, in each engine's words."""
    run = run_cli(capsys, "check", "--engine", "all", "--no-weights", DFLASH, DFLASH)
    footer = [line for line in run.lines if line.startswith("note (")]
    assert len(footer) == len(set(footer))
    tokenizer = [line for line in footer if "tokenizer not checked" in line]
    assert tokenizer == [
        "note (2 drafts): tokenizer not checked: no tokenizer files beside the draft"
    ]


SUMMARY = (
    r"\d+ checked( with [^:]+)?: \d+ valid, \d+ invalid(, \d+ not checked)?( \(.+ serves \d+\))?"
    r"(, \d+ fixable with --fix)?"
)
"""The run's last line, one wording whatever the engines."""


@pytest.mark.parametrize("engine", [*ENGINES, "all"])
def test_the_summary_has_one_wording_with_one_engine_or_several(
    capsys: pytest.CaptureFixture[str], engine: str
) -> None:
    run = run_cli(capsys, "check", "--engine", engine, DFLASH, BROKEN, REPO / "no-such-draft")
    assert re.fullmatch(SUMMARY, run.lines[-1]), run.lines[-1]
    assert run.lines[-1].startswith("3 checked")
    assert ", 1 not checked" in run.lines[-1]
    several = engine == "all"
    assert (" serves " in run.lines[-1]) is several
