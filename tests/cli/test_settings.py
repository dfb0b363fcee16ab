"""``[tool.drafting-config]`` (``drafting_config/cli/settings.py``): where it is looked
for, and what its ``ignore`` takes."""

from __future__ import annotations

import ast
import os
from importlib import import_module
from pathlib import Path

import pytest

from drafting_config import engines
from drafting_config.cli.run import EXIT_INVALID, EXIT_OK, EXIT_USAGE
from drafting_config.cli.settings import (
    IGNORABLE,
    MAX_SETTINGS_BYTES,
    SettingsError,
    error_codes,
    find_pyproject,
    read_settings,
)
from drafting_config.engines import ENGINES
from drafting_config.values import codes
from drafting_config.values.paths import display_path
from tests.conftest import EXAMPLES, REPO, run_cli

PACKAGE = REPO / "drafting_config"
PLACEHOLDER = REPO / "tests/real_configs/drafts/specforge--longcat-flash-dflash.json"
"""A corpus draft whose only finding above a note is a `token-placeholder` warning."""
REFUSED = REPO / "examples/invalid/pard-token-as-string"
"""Refused by vLLM with the error `token-not-int`."""
STRICT = "[tool.drafting-config]\nstrict = true\n"


def _warning_and_note_codes() -> set[str]:
    """Every code the package's source gives a warning or a note: the ``code=`` of each
    call of a warning class, of ``found.warn``, ``found.note`` and ``Note``."""
    declared = {  # each code by its constant's name, in the core and in each engine's codes
        constant: value
        for module in (codes, *(import_module(f"{engines.__name__}.{e}.codes") for e in ENGINES))
        for constant, value in vars(module).items()
        if isinstance(value, codes.Code)
    }
    found = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            function = node.func
            name = function.attr if isinstance(function, ast.Attribute) else None
            name = function.id if isinstance(function, ast.Name) else name
            if name is None or not (name.endswith("Warning") or name in {"warn", "note", "Note"}):
                continue
            for keyword in node.keywords:
                value = keyword.value
                constant = value.attr if isinstance(value, ast.Attribute) else None
                constant = value.id if isinstance(value, ast.Name) else constant
                code = declared.get(constant or "")
                if keyword.arg == "code" and code is not None:
                    found.add(code.name)
    return found


def test_ignorable_is_every_code_a_warning_or_note_is_given() -> None:
    found = _warning_and_note_codes()
    assert {"token-placeholder", "target-not-given", "token-mask-elsewhere"} <= found
    assert set(IGNORABLE) == found
    assert set(IGNORABLE) <= set(engines.CODES)


def test_an_error_code_in_the_table_is_a_usage_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.drafting-config]\nignore = ["token-placeholder", "token-not-int"]\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    run = run_cli(capsys, "check", "--no-tokenizer", REFUSED)
    assert run.status == EXIT_USAGE
    assert "`ignore` names the error code token-not-int" in run.err
    assert "token-placeholder" not in run.err
    assert error_codes(["token-placeholder", "token-not-int", "no-such-code"]) == ["token-not-int"]
    # A code some rule gives as an error and another as a warning is taken: its warnings go.
    assert not error_codes(["tokenizer-not-found", "default-layers-mismatch"])


def test_the_search_stops_at_the_repository_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text(STRICT, encoding="utf-8")  # above the repository
    repository = tmp_path / "repo"
    (repository / ".git").mkdir(parents=True)
    below = repository / "models" / "draft"
    below.mkdir(parents=True)
    monkeypatch.chdir(below)
    assert find_pyproject(below) is None
    assert run_cli(capsys, "check", "--no-tokenizer", PLACEHOLDER).status == EXIT_OK
    (repository / "pyproject.toml").write_text(STRICT, encoding="utf-8")  # at its root
    assert find_pyproject(below) == repository / "pyproject.toml"
    assert run_cli(capsys, "check", "--no-tokenizer", PLACEHOLDER).status == EXIT_INVALID


def test_a_git_file_marks_a_root_too(tmp_path: Path) -> None:
    # A worktree or a submodule holds a `.git` file rather than a folder.
    (tmp_path / "pyproject.toml").write_text(STRICT, encoding="utf-8")
    worktree = tmp_path / "worktree"
    worktree.mkdir()
    (worktree / ".git").write_text("gitdir: ../.git/worktrees/w\n", encoding="utf-8")
    assert find_pyproject(worktree) is None


def test_outside_a_repository_only_the_working_directory_is_read(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(STRICT, encoding="utf-8")
    below = tmp_path / "a" / "b"
    below.mkdir(parents=True)
    assert find_pyproject(below) is None
    assert find_pyproject(tmp_path) == tmp_path / "pyproject.toml"


def test_an_error_code_given_by_config_file_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "ci.toml"
    other.write_text('[tool.drafting-config]\nignore = ["token-not-int"]\n', encoding="utf-8")
    with pytest.raises(SettingsError, match="error code token-not-int"):
        read_settings(str(other))


@pytest.mark.parametrize("kind", ["device", "fifo", "folder"])
def test_config_that_is_not_a_regular_file_is_refused_unread(kind: str, tmp_path: Path) -> None:
    # `--config /dev/zero` once read without end; a FIFO hung the run.
    if kind == "device":
        path = Path("/dev/zero")
        if not path.exists():
            pytest.skip("no /dev/zero here")
    elif kind == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no FIFOs here")
        path = tmp_path / "settings.toml"
        os.mkfifo(path)
    else:
        path = tmp_path
    with pytest.raises(SettingsError, match="not a regular file"):
        read_settings(str(path))


def test_a_settings_file_over_the_limit_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "big.toml"
    path.write_text(STRICT + "#" * MAX_SETTINGS_BYTES + "\n", encoding="utf-8")
    with pytest.raises(SettingsError, match="larger than"):
        read_settings(str(path))


def test_a_deleted_working_directory_is_said_so_not_an_output_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    run = run_cli(capsys, "check", "--no-tokenizer", PLACEHOLDER)
    assert run.status == EXIT_USAGE
    assert "cannot read the current directory" in run.err
    assert "cannot write the output" not in run.err


def test_a_settings_path_is_printed_escaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "a\x1b[31mred\nline"
    folder.mkdir()
    (folder / "pyproject.toml").write_text("[tool.drafting-config]\ncolour = 1\n", "utf-8")
    monkeypatch.chdir(folder)
    run = run_cli(capsys, "check", "--no-tokenizer", PLACEHOLDER)
    assert run.status == EXIT_USAGE
    assert "unknown keys colour" in run.err
    assert "\x1b" not in run.err
    assert len(run.err.strip().splitlines()) == 1
    assert display_path(str(folder / "pyproject.toml")) in run.err


@pytest.mark.parametrize(
    ("table", "flag", "draft"),
    [
        ("strict = true", "--no-strict", PLACEHOLDER),
        ("require-parallel = true", "--no-require-parallel", EXAMPLES / "pard-llama3-1b"),
    ],
)
def test_a_flag_turns_off_what_the_table_turns_on(
    table: str,
    flag: str,
    draft: Path,
    *,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[tool.drafting-config]\n{table}\n", "utf-8")
    monkeypatch.chdir(tmp_path)
    args = ("check", "--no-tokenizer", "--no-weights", "--engine", "sglang")
    assert run_cli(capsys, *args, draft).status == EXIT_INVALID
    assert run_cli(capsys, *args, flag, draft).status == EXIT_OK


def test_every_unknown_key_is_named(tmp_path: Path) -> None:
    path = tmp_path / "ci.toml"
    path.write_text("[tool.drafting-config]\ncolour = 1\nwidth = 2\n", encoding="utf-8")
    with pytest.raises(SettingsError, match="has unknown keys colour, width; it takes ignore"):
        read_settings(str(path))
