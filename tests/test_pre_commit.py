"""The pre-commit hook, run by pre-commit itself from a git copy of this checkout.

pre-commit installs the hook's environment from the package index the first time,
so these tests take tens of seconds: they are marked slow, and ``engine_wheels`` (through
the ``package_index`` fixture: without an index they skip, or fail with
``DRAFTING_CONFIG_REQUIRE_WHEELS=1``).  The copy holds the
working tree as it is now (uncommitted changes included), committed in a temporary
repository that ``.pre-commit-config.yaml`` names by path and commit.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.slow

HOOK_ID = "drafting-config"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}

GOOD = {"pard_token": 128020, "vocab_size": 128256, "hidden_size": 2048}
BAD = {"pard_token": "128020", "vocab_size": 128256}  # a string is not a token id
CONFLICT = {"mask_token_id": 151669, "pard_token": 151670, "vocab_size": 151936}


@dataclass(frozen=True)
class HookRepo:
    """A git repository holding this checkout, and where pre-commit keeps its envs."""

    path: Path
    commit: str
    pre_commit_home: Path


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args],
        cwd=cwd,
        env={**os.environ, **GIT_ENV},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory, package_index: None) -> HookRepo:
    """This checkout, uncommitted work included, committed into a fresh repository."""
    help_text = subprocess.run(
        [sys.executable, "-m", "drafting_config", "check", "--help"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=60,
        check=False,
    ).stdout
    if "--strict" not in help_text:
        pytest.fail("`drafting-config check` has no --strict option, which the hook runs")
    root = tmp_path_factory.mktemp("hook")
    copy = root / "repo"
    listed = git(REPO, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():  # skips files deleted but not yet committed as deleted
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    git(copy, "init", "--quiet")
    git(copy, "add", "--all")
    git(copy, "commit", "--quiet", "--message", "the working tree under test")
    return HookRepo(copy, git(copy, "rev-parse", "HEAD").strip(), root / "pre-commit-home")


def run_hook(hook_repo: HookRepo, project: Path, files: dict[str, object]) -> tuple[int, str]:
    """Commit ``files`` (JSON-encoded) into a new repo at ``project`` and run pre-commit."""
    project.mkdir()
    git(project, "init", "--quiet")
    (project / ".pre-commit-config.yaml").write_text(
        "repos:\n"
        f"  - repo: {hook_repo.path}\n"
        f"    rev: {hook_repo.commit}\n"
        "    hooks:\n"
        f"      - id: {HOOK_ID}\n"
    )
    for name, content in files.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(json.dumps(content))
    git(project, "add", "--all")
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"],
        cwd=project,
        env={**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(hook_repo.pre_commit_home)},
        capture_output=True,
        text=True,
        timeout=900,  # the first run builds the hook's environment from the package index
        check=False,
    )
    return done.returncode, done.stdout + done.stderr


def test_a_good_config_passes_and_files_not_named_config_json_are_left_alone(
    hook_repo: HookRepo, tmp_path: Path
) -> None:
    status, output = run_hook(
        hook_repo,
        tmp_path / "project",
        {
            "models/draft/config.json": GOOD,
            # Not a model config: the hook must not look at these.
            "models/draft/tokenizer_config.json": BAD,
            "config.json.bak": BAD,
        },
    )
    assert status == 0, output
    assert "drafting-config check" in output
    assert "Passed" in output


def test_a_bad_config_fails_and_is_named(hook_repo: HookRepo, tmp_path: Path) -> None:
    status, output = run_hook(
        hook_repo,
        tmp_path / "project",
        {"config.json": GOOD, "models/broken/config.json": BAD},
    )
    assert status == 1, output
    assert "Failed" in output
    assert "models/broken/config.json" in output
    assert "pard_token" in output


def test_a_config_with_a_conflict_warning_fails_because_the_hook_is_strict(
    hook_repo: HookRepo, tmp_path: Path
) -> None:
    status, output = run_hook(hook_repo, tmp_path / "project", {"config.json": CONFLICT})
    assert status == 1, output
    assert "Failed" in output
    assert "mask_token_id" in output
    assert "pard_token" in output
