"""``check --format github`` and ``-q``: annotations a CI shows on each
draft's file, escaped so that no config value or path can forge a workflow command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from drafting_config.cli.render import escape_data, escape_property
from tests.conftest import REPO, run_cli
from tests.engines.vllm import TOKENS_READ_ENGINE as VLLM
from tests.engines.vllm import tokens_read  # noqa: F401 (a fixture)

pytestmark = pytest.mark.usefixtures("tokens_read")
"""The token rules of PTD and PARD drafts, judged on the newest vLLM release that reads their
token (later releases serve such drafts sequentially, the token unused)."""

BROKEN = REPO / "examples/invalid/pard-token-as-string"
FORGED = "\n::error file=x::forged"


def test_escaping_follows_the_actions_runner() -> None:
    assert escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    assert escape_data("\x1b[31m") == "\\x1b[31m"  # a terminal escape stays inert


def test_a_config_value_cannot_forge_a_workflow_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    draft = tmp_path / f"dir,with:odd%{FORGED}"
    draft.mkdir()
    config = {"architectures": [f"X{FORGED}"], "pard_token": f"1{FORGED}", "vocab_size": 100}
    (draft / "config.json").write_text(json.dumps(config), encoding="utf-8")
    run = run_cli(capsys, "check", "--format", "github", "--no-tokenizer", draft)
    assert run.status == 1
    commands = [line for line in run.lines if line.startswith("::")]
    assert commands, run.out
    for line in commands:
        assert line.startswith("::error file=")
        properties = line.split("::")[1]
        assert properties.count(",") == 1  # file=...,title=...: the path's comma is escaped
    assert not any(line.startswith("::error file=x") for line in run.lines)
    assert len(run.lines) == len(commands) + 1  # one line per command, then the summary
    assert "title=token-not-int::" in commands[0]


def test_github_annotations_name_the_config_file_of_a_draft_directory(
    capsys: pytest.CaptureFixture[str],
) -> None:
    run = run_cli(capsys, "check", "--format", "github", "--no-tokenizer", BROKEN)
    file = escape_property(f"{BROKEN}/config.json")
    assert run.lines[0].startswith(f"::error file={file},title=token-not-int::[{VLLM}] ")
    assert run.lines[-1] == "1 checked: 0 valid, 1 invalid"


def test_quiet_prints_only_drafts_with_an_error_or_warning(
    capsys: pytest.CaptureFixture[str],
) -> None:
    good = REPO / "examples/dflash-qwen3-4b"
    run = run_cli(capsys, "check", "-q", "--no-tokenizer", good, BROKEN)
    headlines = [line for line in run.lines if not line.startswith(" ")]
    assert headlines[0] == f"{BROKEN}: INVALID"
    assert not any(line.startswith(str(good)) for line in run.lines)
    assert headlines[-1] == "2 checked: 1 valid, 1 invalid"


def test_a_note_every_verdict_shares_is_said_once_in_the_footer_with_its_count(
    capsys: pytest.CaptureFixture[str],
) -> None:
    good = REPO / "examples/dflash-qwen3-4b"
    run = run_cli(capsys, "check", "--engine", "all", "--no-tokenizer", good, BROKEN)
    shared = "target not checked: no target given"
    assert run.lines[-3:] == [
        f"note (2 drafts): {shared}",
        "note (2 drafts): weights not checked for SGLang: its loaders are not modelled",
        # SGLang serves BROKEN as STANDALONE, its pard_token unused (a warning)
        f"2 drafts checked: {VLLM} serves 1, sglang 0.5.23 serves 2",
    ]
    assert sum(shared in line for line in run.lines) == 1
    alone = run_cli(capsys, "check", "--no-tokenizer", good)
    assert f"  note target-not-given: {shared}" in alone.lines  # one draft: its note stays
