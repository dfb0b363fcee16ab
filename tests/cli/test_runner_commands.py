"""No line the command prints outside ``--format github``'s own annotations can start a
workflow command of GitHub's Actions runner (issue 41, item 3).

The runner reads ``##[command]`` anywhere in a line and ``::command::`` at its start (after
white space), on standard output and standard error alike; a config value or a folder name
must reach neither position as it is.  Each output keeps the value readable: the text as an
escape :func:`~drafting_config.values.paths.parse_display_path` reads back, the JSON as the
same string.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from drafting_config.engines import ENGINES
from drafting_config.values.paths import parse_display_path, printable, runner_inert
from tests.conftest import Run, run_cli

STOP = "##[stop-commands]pause"
FORGED = "::warning title=drafting-config::all drafts OK"
# vLLM reads `dflash_config.mask_token_id: null` before the top-level id: `--fix` deletes it
FIXABLE = {
    "architectures": ["DFlashDraftModel", STOP],
    "model_type": "qwen3",
    "vocab_size": 1000,
    "hidden_size": 64,
    "num_hidden_layers": 1,
    "mask_token_id": 5,
    "dflash_config": {"mask_token_id": None, "note": STOP, "target_layer_ids": [1, 2]},
}


def _inert(text: str) -> None:
    for line in text.splitlines():
        assert "##[" not in line, line
        assert not line.lstrip().startswith("::"), line


def _forged_draft(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: object) -> str:
    """A draft in a folder named like a workflow command, named relatively, so that its path
    starts the headline."""
    folder = tmp_path / FORGED
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return FORGED


def _check(capsys: pytest.CaptureFixture[str], *args: str) -> Run:
    return run_cli(capsys, "check", "--no-tokenizer", "--no-weights", *args)


@pytest.mark.parametrize("engine", [*ENGINES, "all"])
def test_text_output_starts_no_workflow_command(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    engine: str,
) -> None:
    config = {"architectures": [STOP], "model_type": "qwen3", "mask_token_id": 5}
    draft = _forged_draft(tmp_path, monkeypatch, config)
    run = _check(capsys, "--verbose", "--engine", engine, draft, draft)
    assert run.lines[0].startswith("\\x3a:warning title=drafting-config::all drafts OK: ")
    assert STOP.replace("##[", "\\x23#[") in run.out  # the value, still readable
    _inert(run.out)
    _inert(run.err)
    headline = run.lines[0].rsplit(": ", 1)[0]
    assert parse_display_path(headline).decode() == FORGED  # the path reads back


def test_a_wrapped_continuation_line_starts_no_workflow_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    words = " ".join(["::warning"] * 80)
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"architectures": [words], "mask_token_id": 5}), encoding="utf-8")
    run = _check(capsys, str(path))
    assert any(line.lstrip().startswith("\\x3a:warning") for line in run.lines[1:]), run.out
    _inert(run.out)


@pytest.mark.parametrize("output", [[], ["--format", "github"], ["--json"]])
def test_diff_and_fixed_lines_start_no_workflow_command(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    output: list[str],
) -> None:
    draft = _forged_draft(tmp_path, monkeypatch, FIXABLE)
    run = _check(capsys, "--fix", "--diff", *output, draft)
    written = run.out if not output else run.err
    assert "fixed token-field-null" in written, written
    assert '"\\x23#[stop-commands]pause"' in written  # the diff's context line
    _inert(run.err)
    if not output:
        _inert(run.out)
    elif output[0] == "--json":
        assert "##[" not in run.out
    else:
        _inert("\n".join(line for line in run.lines if not line.startswith("::warning ")))
        assert "##[" not in run.out


def test_json_holds_the_same_strings_inert(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "config.json"
    config = {"architectures": [STOP], "model_type": "qwen3", "mask_token_id": 5}
    path.write_text(json.dumps(config), encoding="utf-8")
    run = _check(capsys, "--json", str(path))
    assert "##[" not in run.out
    assert "\\u0023#[stop-commands]pause" in run.out
    assert STOP in json.dumps(run.json)  # the same string, parsed


def test_usage_errors_on_standard_error_start_no_workflow_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = tmp_path / STOP
    settings.write_text("[tool.drafting-config]\nstrict = 3\n", encoding="utf-8")
    run = _check(capsys, "--config", str(settings), str(tmp_path))
    assert run.status == 2
    assert "x23#[stop-commands]" in run.err
    _inert(run.err)


@pytest.mark.parametrize(
    ("line", "inert"),
    [
        (STOP, "\\x23#[stop-commands]pause"),
        (f"a {STOP} b", "a \\x23#[stop-commands]pause b"),
        ("###[x", "#\\x23#[x"),
        (FORGED, "\\x3a:warning title=drafting-config::all drafts OK"),
        ("      ::error::x", "      \\x3a:error::x"),
        ("\t::x", "\t\\x3a:x"),
        ("a ::x", "a ::x"),
        (":x", ":x"),
        ("# [x", "# [x"),
    ],
)
def test_runner_inert(line: str, inert: str) -> None:
    assert runner_inert(line) == inert
    assert runner_inert(inert) == inert  # once is enough
    assert parse_display_path(inert.replace("\t", "\\t")) == line.encode()


def test_printable_is_inert_too() -> None:
    assert printable(f"\x1b{STOP}") == "\\x1b\\x23#[stop-commands]pause"
    assert printable("\n::x") == "\\n::x"  # a line of its own no more


def test_argument_errors_on_standard_error_start_no_workflow_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    run = run_cli(capsys, "check", "--engine", STOP, "draft")
    assert run.status == 2
    assert "invalid choice: '\\x23#[stop-commands]pause'" in run.err
    _inert(run.err)
