"""``check --format github`` and ``-q``: annotations a CI shows on each
draft's file, escaped so that no config value or path can forge a workflow command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from drafting_config.cli.render import escape_data, escape_property
from drafting_config.engines import ENGINE_NAMES
from tests.conftest import REPO, run_cli
from tests.engines.vllm import TOKENS_READ_ENGINE as VLLM
from tests.engines.vllm import tokens_read  # noqa: F401 (a fixture)

SGLANG = ENGINE_NAMES["sglang"]
"""How a verdict names the SGLang release it speaks for."""

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
        # file=...,title=...,line=...,col=...: the path's comma is escaped
        names = [part.split("=")[0] for part in properties.split(",")]
        assert names in (["error file", "title"], ["error file", "line", "col", "title"])
    assert not any(line.startswith("::error file=x") for line in run.lines)
    assert len(run.lines) == len(commands) + 1  # one line per command, then the summary
    assert ",line=1,col=50,title=token-not-int::" in commands[0]


def test_github_annotations_name_the_config_file_of_a_draft_directory(
    capsys: pytest.CaptureFixture[str],
) -> None:
    run = run_cli(capsys, "check", "--format", "github", "--no-tokenizer", BROKEN)
    file = escape_property(f"{BROKEN}/config.json")
    assert run.lines[0].startswith(
        f"::error file={file},line=6,col=3,title=token-not-int::[{VLLM}] "
    )
    assert run.lines[-1] == "1 checked: 0 valid, 1 invalid"


def test_quiet_prints_only_drafts_with_an_error_or_warning(
    capsys: pytest.CaptureFixture[str],
) -> None:
    good = REPO / "examples/dflash-qwen3-4b"
    run = run_cli(capsys, "check", "-q", "--no-tokenizer", good, BROKEN)
    headlines = [line for line in run.lines if not line.startswith(" ")]
    assert headlines[0] == f"{BROKEN}: INVALID"
    assert not any(line.startswith(str(good)) for line in run.lines)
    assert headlines[-1] == "2 checked: 1 valid, 1 invalid, 1 fixable with --fix"


def test_a_note_every_verdict_shares_is_said_once_in_the_footer_with_its_count(
    capsys: pytest.CaptureFixture[str],
) -> None:
    good = REPO / "examples/dflash-qwen3-4b"
    run = run_cli(capsys, "check", "--engine", "all", "--no-tokenizer", good, BROKEN)
    shared = "target not checked: no target given"
    assert run.lines[-4:] == [
        f"note (2 drafts): {shared}",
        # the DFlash draft's (issue 39): a note of the footer's codes, with its count
        "note (1 draft): no causality is recorded: the engine runs the drafter non-causal, "
        "causal only on sliding-window layers.",
        "note (2 drafts): weights not checked for SGLang: only its EAGLE-3 heads' loaders are "
        "modelled",
        # SGLang serves BROKEN as STANDALONE, its pard_token unused (a warning)
        f"2 checked: 1 valid, 1 invalid ({VLLM} serves 1, {SGLANG} serves 2), 1 fixable with --fix",
    ]
    assert sum(shared in line for line in run.lines) == 1
    alone = run_cli(capsys, "check", "--no-tokenizer", good)
    assert f"  note target-not-given: {shared}" in alone.lines  # one draft: its note stays


def test_an_annotation_is_on_the_line_and_column_of_its_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "config.json"
    path.write_text(
        '{\n  "architectures": ["DFlashDraftModel"], "model_type": "qwen3",\n'
        '  "vocab_size": 1000, "hidden_size": 64, "num_hidden_layers": 1,\n'
        '  "dflash_config": {\n\t"target_layer_ids": [1, 2], "mask_token_id": null\n  },\n'
        '  "mask_token_id": 5\n}\n',
        encoding="utf-8",
    )
    run = run_cli(capsys, "check", "--format", "github", "--no-tokenizer", "--no-weights", path)
    [line] = [line for line in run.lines if "title=token-field-null" in line]
    # the nested key, after a tab and an inline array
    assert line.startswith(
        f"::error file={escape_property(str(path))},line=5,col=30,title=token-field-null::"
    )
    # a finding whose field the file does not hold sits on the file
    path.write_text('{"architectures": ["DFlashDraftModel"]}', encoding="utf-8")
    run = run_cli(capsys, "check", "--format", "github", "--no-tokenizer", "--no-weights", path)
    assert all(",line=" not in line for line in run.lines if "title=token-missing" in line)
