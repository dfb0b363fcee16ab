"""``[tool.drafting-config]`` (``drafting_config/cli/settings.py``): where it is looked
for, and what its ``ignore`` takes."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from drafting_config.cli.run import EXIT_INVALID, EXIT_OK, EXIT_USAGE
from drafting_config.cli.settings import (
    IGNORABLE,
    SettingsError,
    error_codes,
    find_pyproject,
    read_settings,
)
from drafting_config.values import codes
from tests.conftest import REPO, run_cli

PACKAGE = REPO / "drafting_config"
PLACEHOLDER = REPO / "tests/real_configs/drafts/specforge--longcat-flash-dflash.json"
"""A corpus draft whose only finding above a note is a `token-placeholder` warning."""
REFUSED = REPO / "examples/invalid/pard-token-as-string"
"""Refused by vLLM with the error `token-not-int`."""
STRICT = "[tool.drafting-config]\nstrict = true\n"


def _warning_and_note_codes() -> set[str]:
    """Every code the package's source gives a warning or a note: the ``code=`` of each
    call of a warning class, of ``found.warn``, ``found.note`` and ``Note``."""
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
                code = getattr(codes, constant or "", None)
                if keyword.arg == "code" and isinstance(code, codes.Code):
                    found.add(code.name)
    return found


def test_ignorable_is_every_code_a_warning_or_note_is_given() -> None:
    found = _warning_and_note_codes()
    assert {"token-placeholder", "target-not-given", "token-mask-elsewhere"} <= found
    assert set(IGNORABLE) == found
    assert set(IGNORABLE) <= set(codes.CODES)


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
