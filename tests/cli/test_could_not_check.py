""" "Could not check" is an outcome of its own: exit 2, the headline word
``NOT CHECKED`` and the JSON ``outcome`` ``"unchecked"``, apart from a broken draft (1).

The line between the two: 2 when the checker could not get what it needs from outside the
draft's content (a named path that does not exist, a folder with no ``config.json``, a file
it cannot open, a directory or FIFO where a file belongs, a repo id absent from the cache, a
missing extra, a usage error); 1 when the draft's files are there and readable but wrong.
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import pytest

from drafting_config import check
from drafting_config.cli.run import EXIT_INVALID, EXIT_OK, EXIT_UNCHECKED
from tests.conftest import Run, run_cli
from tests.engines.vllm import TOKENS_READ_ENGINE as VLLM
from tests.engines.vllm import tokens_read  # noqa: F401 (a fixture)
from tests.fake_cache import use_cache

pytestmark = pytest.mark.usefixtures("tokens_read")
"""The token rules of PTD and PARD drafts, judged on the newest vLLM release that reads their
token (later releases serve such drafts sequentially, the token unused)."""

DFLASH = "examples/dflash-qwen3-4b"
BROKEN = "examples/invalid/pard-token-as-string"


def _check(capsys: pytest.CaptureFixture[str], *args: str | Path) -> Run:
    return run_cli(capsys, "check", "--no-tokenizer", "--no-weights", *args)


def _unreadable_inputs(tmp_path: Path) -> dict[str, Path]:
    """One path per way a named file can be out of reach (never the draft's content)."""
    empty = tmp_path / "empty-folder"
    empty.mkdir()
    folder_as_file = tmp_path / "folder-as-file"
    (folder_as_file / "config.json").mkdir(parents=True)
    loop = tmp_path / "loop"
    os.symlink(loop, loop)
    paths = {
        "missing": tmp_path / "no-such-draft",
        "folder without config.json": empty,
        "config.json that is a folder": folder_as_file,
        "symbolic-link loop": loop,
    }
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "fifo"
        os.mkfifo(fifo)
        paths["FIFO"] = fifo
    return paths


@pytest.mark.parametrize(
    "case",
    [
        "missing",
        "folder without config.json",
        "config.json that is a folder",
        "symbolic-link loop",
        "FIFO",
    ],
)
def test_a_draft_out_of_reach_is_not_checked(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = _unreadable_inputs(tmp_path)
    if case not in paths:
        pytest.skip("no FIFOs here")
    run = _check(capsys, paths[case])
    assert run.status == EXIT_UNCHECKED, run.out
    assert run.lines[:2] == [f"{paths[case]}: NOT CHECKED", f"  {VLLM}: could not check"]
    assert run.lines[2].startswith("  error file-unavailable: ")
    assert check(paths[case]).outcome == "unchecked"


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0, reason="root reads anything")
def test_a_file_without_read_permission_is_not_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config.json"
    config.write_text("{}", encoding="utf-8")
    config.chmod(0)
    assert _check(capsys, config).status == EXIT_UNCHECKED


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"{not json", "malformed JSON"),
        ('{"model_type": "qwen3"}'.encode("utf-16"), "UTF-16"),
        (b"\xff\xfe\xfa{}", "not UTF-8"),
        (b"[1, 2]", "a root that is not an object"),
    ],
)
def test_a_draft_read_but_wrong_is_invalid(
    content: bytes, why: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config.json"
    config.write_bytes(content)
    run = _check(capsys, config)
    assert run.status == EXIT_INVALID, why
    assert run.lines[0] == f"{config}: INVALID"
    assert run.lines[1] == f"  {VLLM}: fails at parse"
    assert check(config).outcome == "invalid"


def test_a_target_out_of_reach_makes_the_draft_not_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _check(capsys, DFLASH, "--target", tmp_path / "absent-target")
    assert run.status == EXIT_UNCHECKED
    assert run.lines[0] == f"{DFLASH}: NOT CHECKED"
    assert run.lines[1] == f"  {VLLM}: could not check"


def test_a_tokenizer_folder_that_does_not_exist_is_not_a_broken_draft(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = run_cli(capsys, "check", "--no-weights", DFLASH, "--tokenizer", tmp_path / "absent")
    assert run.status == EXIT_UNCHECKED, run.out


def test_a_repo_id_absent_from_the_cache_is_not_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    use_cache(tmp_path / "cache", monkeypatch)
    monkeypatch.chdir(tmp_path)
    run = _check(capsys, "--json", "some-org/not-cached")
    assert run.status == EXIT_UNCHECKED
    (item,) = run.json
    assert item["outcome"] == "unchecked"
    assert item["ok"] is False


def test_a_broken_draft_wins_over_one_not_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing"
    assert _check(capsys, missing, BROKEN).status == EXIT_INVALID
    assert _check(capsys, missing, DFLASH).status == EXIT_UNCHECKED
    run = _check(capsys, "--json", missing, BROKEN, DFLASH)
    assert [item["outcome"] for item in run.json] == ["unchecked", "invalid", "ok"]
    assert _check(capsys, DFLASH).status == EXIT_OK


def test_the_summary_counts_drafts_not_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _check(capsys, tmp_path / "missing", DFLASH)
    assert run.lines[-1] == "2 checked: 1 valid, 0 invalid, 1 not checked"


def test_an_empty_path_list_is_not_checked(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    assert _check(capsys, "-").status == EXIT_UNCHECKED
