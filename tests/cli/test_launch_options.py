"""The launch on the command line: ``--speculative-config`` (inline or ``@FILE``),
``--sglang-args`` and ``--launch`` (issue 40, point 1).  A launch that cannot be read is a
usage error naming the option (exit 2); an option the release does not know is an error of
the verdict (exit 1).  Engines are derived from :data:`~drafting_config.engines.ENGINES`."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Final

import pytest

from drafting_config import check_many
from drafting_config.cli.run import EXIT_INVALID, EXIT_OK, EXIT_USAGE
from drafting_config.engines import ENGINE_NAMES, ENGINES
from drafting_config.values.launch import launch_words
from tests.conftest import EXAMPLES, run_cli

PAIR: Final = EXAMPLES / "pair-qwen3-4b"
DRAFT: Final = PAIR / "draft"
TARGET: Final = PAIR / "target"
FITTING: Final = {"method": "dflash", "model": str(DRAFT), "num_speculative_tokens": 15}

VLLM, SGLANG = (name for name in ENGINES)


def test_a_fitting_speculative_config_passes(capsys: pytest.CaptureFixture[str]) -> None:
    run = run_cli(capsys, "check", DRAFT, "--speculative-config", json.dumps(FITTING))
    assert run.status == EXIT_OK, run.out


def test_speculative_config_from_a_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({**FITTING, "turbo": True}), encoding="utf-8")
    run = run_cli(capsys, "check", DRAFT, "--speculative-config", f"@{spec}")
    assert run.status == EXIT_INVALID
    assert "launch-option-unknown --speculative-config.turbo" in run.out


@pytest.mark.parametrize(
    ("option", "value", "named"),
    [
        ("--speculative-config", '{"method": ', "--speculative-config: "),
        ("--speculative-config", "@/nonexistent/spec.json", "cannot read"),
        ("--sglang-args", "--speculative-algorithm 'DFLASH", "--sglang-args: cannot split"),
        ("--launch", 'vllm serve "T', "--launch: cannot split"),
    ],
)
def test_a_launch_that_cannot_be_read_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], option: str, value: str, named: str
) -> None:
    run = run_cli(capsys, "check", DRAFT, option, value)
    assert run.status == EXIT_USAGE
    assert named in run.err
    assert run.out == ""


def test_sglang_args_speak_for_sglang(capsys: pytest.CaptureFixture[str]) -> None:
    args = f"--speculative-algorithm DFLASH --speculative-draft-model-path {DRAFT}"
    run = run_cli(capsys, "check", DRAFT, "--sglang-args", args)
    assert run.status == EXIT_OK, run.out
    assert f"  {ENGINE_NAMES[SGLANG]}: serves as dflash" in run.out


def test_a_whole_launch_gives_the_engine_and_the_target(
    capsys: pytest.CaptureFixture[str],
) -> None:
    line = (
        f"python -m sglang.launch_server --model-path {TARGET} --speculative-algorithm DFLASH "
        f"--speculative-draft-model-path {DRAFT}"
    )
    run = run_cli(capsys, "check", DRAFT, "--launch", line, "--json")
    (verdict,) = json.loads(run.out)
    assert verdict["engine"] == ENGINE_NAMES[SGLANG]
    assert verdict["target"] == str(TARGET)
    line = f"vllm serve {TARGET} --speculative-config '{json.dumps(FITTING)}'"
    (verdict,) = json.loads(run_cli(capsys, "check", DRAFT, "--launch", line, "--json").out)
    assert verdict["engine"] == ENGINE_NAMES[VLLM]


def test_an_unknown_serve_option_fails_the_check_not_the_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    line = f"vllm serve {TARGET} --speculative-config '{json.dumps(FITTING)}' --turbo"
    run = run_cli(capsys, "check", DRAFT, "--launch", line)
    assert run.status == EXIT_INVALID
    assert "launch-option-unknown --turbo" in run.out


def test_the_launch_options_exclude_each_other(capsys: pytest.CaptureFixture[str]) -> None:
    run = run_cli(capsys, "check", DRAFT, "--speculative-config", "{}", "--launch", "vllm serve T")
    assert run.status == EXIT_USAGE


def test_check_many_judges_every_draft_by_the_launch() -> None:
    config = ("--speculative-config", json.dumps({"method": "dspark", "model": str(DRAFT)}))
    verdicts = check_many([DRAFT, EXAMPLES / "dflash-qwen3-4b"], launch=config)
    assert all("launch-method-mismatch" in [str(e.code) for e in v.errors] for v in verdicts)


def test_the_bundled_pairs_documented_launch_is_read_from_its_script_and_passes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # docs/ci.md: a model repository keeps its launch line in serve.sh beside the draft and
    # checks it with --launch @serve.sh; the script's line is the command the checker prints.
    monkeypatch.chdir(EXAMPLES.parent)
    script = "examples/pair-qwen3-4b/serve.sh"
    run = run_cli(capsys, "check", "examples/pair-qwen3-4b/draft", "--launch", f"@{script}")
    assert run.status == EXIT_OK, run.out
    assert "target: examples/pair-qwen3-4b/target" in run.out
    printed = check_many(["examples/pair-qwen3-4b/draft"], target="examples/pair-qwen3-4b/target")[
        0
    ].serve_with
    assert printed is not None
    assert launch_words(f"@{script}", "--launch") == tuple(shlex.split(printed))


def test_a_launch_script_that_cannot_be_read_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    run = run_cli(capsys, "check", DRAFT, "--launch", f"@{tmp_path / 'absent.sh'}")
    assert run.status == EXIT_USAGE
    assert "--launch: cannot read" in run.err
