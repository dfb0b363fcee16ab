"""The pre-commit hooks of docs/ci.md, run by pre-commit itself.

- The documented local hook (``repo: local``, ``language: system``) runs the checker of
  this environment: nothing is fetched.
- The documented remote form runs against a local clone of this repository, with the
  documented hook id and ``rev`` (only the URL, the one thing the docs leave to fill in,
  is the clone's path); and the hook as it is in this working tree runs from a git copy
  of the tree (uncommitted changes included), so the tests see the hook being changed.
  pre-commit builds a remote hook's environment from the package index the first time
  (``pre-commit install-hooks``, tens of seconds): those tests carry the
  ``engine_wheels`` marker and skip when the index cannot be reached (fail, with
  ``DRAFTING_CONFIG_REQUIRE_WHEELS=1``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

import drafting_config
from drafting_config.engines import DEFAULT_ENGINE, ENGINE_NAMES
from tests.conftest import EXAMPLES, REPO
from tests.package_index import PIP_PATIENCE, unavailable

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
PAGE = REPO / "docs" / "ci.md"
FILL_IN = "FILL-IN-THIS-REPOSITORY-URL"

GOOD: dict[str, Any] = json.loads((EXAMPLES / "dflash-qwen3-4b" / "config.json").read_text())
"""A bundled draft both engines serve."""
BAD = {**GOOD, "dflash_config": {**GOOD["dflash_config"], "mask_token_id": "151669"}}
"""A string is not a token id: every release reads it, and refuses it."""
CONFLICT = {**GOOD, "mask_token_id": 151670}
"""``dflash_config.mask_token_id`` (151669) wins over a disagreeing ``mask_token_id``: a warning."""
BAD_LINE = "error token-not-int [*] dflash_config.mask_token_id: `dflash_config.mask_token_id` must"
ONE_GOOD_ONE_BAD = {
    "models/good/config.json": GOOD,
    "models/bad/config.json": BAD,
    # Not draft configs: the hooks must not look at these.
    "models/good/generation_config.json": BAD,
    "models/good/tokenizer_config.json": BAD,
    "config.json.bak": BAD,
}


def documented_configs() -> list[dict[str, Any]]:
    """Every ``.pre-commit-config.yaml`` docs/ci.md shows, parsed, in page order."""
    text = PAGE.read_text(encoding="utf-8")
    blocks = re.findall(r"^```yaml\n(# \.pre-commit-config\.yaml\n.*?)^```", text, re.S | re.M)
    return [yaml.safe_load(block) for block in blocks]


def local_configs() -> list[dict[str, Any]]:
    return [c for c in documented_configs() if c["repos"][0]["repo"] == "local"]


def remote_configs() -> list[dict[str, Any]]:
    return [c for c in documented_configs() if c["repos"][0]["repo"] != "local"]


def documented_rev() -> str:
    (rev,) = {config["repos"][0]["rev"] for config in remote_configs()}
    assert isinstance(rev, str)
    return rev


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args],
        cwd=cwd,
        env={**os.environ, **GIT_ENV},
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return done.stdout


@dataclass(frozen=True)
class Project:
    """A model repository with files staged, and where pre-commit keeps its environments."""

    path: Path
    pre_commit_home: Path

    def pre_commit(self, *args: str) -> tuple[int, str]:
        done = subprocess.run(
            [sys.executable, "-m", "pre_commit", *args, "--color", "never"],
            cwd=self.path,
            env={
                **os.environ,
                **GIT_ENV,
                "PRE_COMMIT_HOME": str(self.pre_commit_home),
                "PIP_TIMEOUT": PIP_PATIENCE[1],
                "PIP_RETRIES": PIP_PATIENCE[3],
                # language: system runs the drafting-config of this environment.
                "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            },
            capture_output=True,
            text=True,
            timeout=900,  # install-hooks builds a remote hook's environment from the index
            check=False,
        )
        return done.returncode, done.stdout + done.stderr

    def run(self) -> tuple[int, str]:
        return self.pre_commit("run", "--all-files")


def project(
    root: Path, home: Path, config: Mapping[str, Any], files: Mapping[str, object]
) -> Project:
    """A new git repository at ``root`` holding ``config`` as its .pre-commit-config.yaml
    and ``files`` (JSON-encoded), staged; for a remote hook, its environment installed."""
    root.mkdir()
    git(root, "init", "--quiet")
    (root / ".pre-commit-config.yaml").write_text(yaml.safe_dump(dict(config), sort_keys=False))
    for name, content in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(json.dumps(content))
    git(root, "add", "--all")
    made = Project(root, home)
    if config["repos"][0]["repo"] != "local":
        status, output = made.pre_commit("install-hooks")
        if status != 0:
            unavailable("the pre-commit hook's environment", output)
    return made


def pointed_at(config: Mapping[str, Any], repo: Path, rev: str | None = None) -> dict[str, Any]:
    """A documented remote config with its URL filled in (and ``rev``, if given)."""
    (entry,) = config["repos"]
    assert entry["repo"] == FILL_IN
    return {"repos": [{**entry, "repo": str(repo), "rev": rev or entry["rev"]}]}


# --- what the page shows ------------------------------------------------------------------


def test_the_page_shows_a_local_hook_and_the_remote_form() -> None:
    (local,) = local_configs()
    (hook,) = local["repos"][0]["hooks"]
    assert hook == {
        "id": HOOK_ID,
        "name": "drafting-config check",
        "entry": "drafting-config check",
        "language": "system",
        "files": r"(^|/)config\.json$",
    }
    remotes = remote_configs()
    assert [[hook["id"] for hook in c["repos"][0]["hooks"]] for c in remotes] == [[HOOK_ID]] * 2
    assert remotes[1]["repos"][0]["hooks"][0]["args"] == ["--engine", "all"]
    text = PAGE.read_text(encoding="utf-8")
    assert text.count(f"repo: {FILL_IN}  # the one thing to fill in") == len(remotes)
    published = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert [hook["id"] for hook in published] == [HOOK_ID]
    assert published[0]["files"] == hook["files"]


def skip_without_history() -> None:
    """Skip in an unpacked sdist or a shallow clone: no history to find the rev in."""
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout (an unpacked sdist): no history to look the rev up in")
    if git(REPO, "rev-parse", "--is-shallow-repository").strip() == "true":
        pytest.skip("a shallow clone: its history may not reach the documented rev")


def test_the_documented_rev_is_a_commit_of_this_repository() -> None:
    """It exists (``git cat-file -e``), is in the history of this checkout, and holds the
    hook the page names."""
    skip_without_history()
    rev = documented_rev()
    assert re.fullmatch(r"[0-9a-f]{40}", rev), "a full commit id: the history has no tags"
    git(REPO, "cat-file", "-e", f"{rev}^{{commit}}")  # raises unless the commit exists
    git(REPO, "merge-base", "--is-ancestor", rev, "HEAD")  # raises unless HEAD descends from it
    hooks = yaml.safe_load(git(REPO, "show", f"{rev}:.pre-commit-hooks.yaml"))
    assert HOOK_ID in [hook["id"] for hook in hooks]


RENDERERS = ("drafting_config/cli/render.py",)
"""The modules that write the text output the published hook prints."""


def test_the_documented_rev_prints_what_the_pages_show() -> None:
    """The documented ``rev`` is at or after the last commit that changed the text output's
    renderer, so the published hook prints the format every page shows."""
    skip_without_history()
    last_change = git(REPO, "log", "-1", "--format=%H", "--", *RENDERERS).strip()
    assert last_change, RENDERERS
    git(REPO, "merge-base", "--is-ancestor", last_change, documented_rev())


def test_the_documented_rev_is_the_release_the_package_says_it_is() -> None:
    """The version moves with the output: the documented ``rev`` holds this version (the
    comment beside it names it), and the CHANGELOG has a section for it."""
    skip_without_history()
    version = drafting_config.__version__
    at_rev = git(REPO, "show", f"{documented_rev()}:drafting_config/__init__.py")
    assert f'__version__ = "{version}"' in at_rev
    assert PAGE.read_text(encoding="utf-8").count(f"# release {version}: a commit of main") == 2
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## \[{re.escape(version)}\] - \d{{4}}-\d{{2}}-\d{{2}}$", changelog, re.M)


# --- the local hook: no environment to build ---------------------------------------------------


def test_the_local_hook_fails_on_the_invalid_config_and_names_it(tmp_path: Path) -> None:
    (config,) = local_configs()
    made = project(tmp_path / "models", tmp_path / "home", config, ONE_GOOD_ONE_BAD)
    status, output = made.run()
    assert status == 1, output
    assert "drafting-config check" in output
    assert "Failed" in output
    assert "models/bad/config.json: INVALID\n" in output
    assert f"  {BAD_LINE}" in output
    assert "models/good/config.json: OK\n" in output
    assert "2 checked: 1 valid, 1 invalid" in output  # the other files were not passed


def test_the_local_hook_passes_a_valid_config(tmp_path: Path) -> None:
    (config,) = local_configs()
    made = project(tmp_path / "models", tmp_path / "home", config, {"a/config.json": GOOD})
    status, output = made.run()
    assert status == 0, output
    assert "Passed" in output


# --- the published hook, from a clone of this repository ----------------------------------------


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clone of this repository, holding its history (the documented rev among it)."""
    skip_without_history()
    target = tmp_path_factory.mktemp("clone") / "drafting-config"
    git(REPO.parent, "clone", "--quiet", "--no-local", str(REPO), str(target))
    return target


@pytest.fixture(scope="module")
def working_tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """This checkout, uncommitted work included, committed into a fresh repository."""
    copy = tmp_path_factory.mktemp("hook") / "repo"
    listed = git(REPO, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():  # skips files deleted but not yet committed as deleted
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    git(copy, "init", "--quiet")
    git(copy, "add", "--all")
    git(copy, "commit", "--quiet", "--message", "the working tree under test")
    return copy, git(copy, "rev-parse", "HEAD").strip()


@pytest.mark.engine_wheels
@pytest.mark.parametrize("documented", [0, 1], ids=["as-shown", "with-engine-all"])
def test_the_documented_remote_hook_at_the_documented_rev_checks_as_the_page_says(
    clone: Path, pre_commit_home: Path, tmp_path: Path, documented: int
) -> None:
    config = pointed_at(remote_configs()[documented], clone)
    made = project(tmp_path / "models", pre_commit_home, config, ONE_GOOD_ONE_BAD)
    status, output = made.run()
    assert status == 1, output
    assert "Failed" in output
    assert "models/bad/config.json: INVALID\n" in output
    assert f"  {BAD_LINE}" in output
    assert "models/good/config.json: OK\n" in output
    engines = ENGINE_NAMES.values() if documented else [ENGINE_NAMES[DEFAULT_ENGINE]]
    for engine in engines:
        assert f"\n  {engine}: serves as dflash (parallel), token id 151669" in output
    assert "generation_config.json" not in output


@pytest.mark.engine_wheels
def test_the_documented_remote_hook_passes_a_valid_config(
    clone: Path, pre_commit_home: Path, tmp_path: Path
) -> None:
    config = pointed_at(remote_configs()[0], clone)
    made = project(tmp_path / "models", pre_commit_home, config, {"config.json": GOOD})
    status, output = made.run()
    assert status == 0, output
    assert "Passed" in output


@pytest.mark.engine_wheels
def test_the_hook_of_this_tree_is_strict_a_warning_fails(
    working_tree: tuple[Path, str], pre_commit_home: Path, tmp_path: Path
) -> None:
    config = pointed_at(remote_configs()[0], working_tree[0], rev=working_tree[1])
    made = project(tmp_path / "models", pre_commit_home, config, {"config.json": CONFLICT})
    status, output = made.run()
    assert status == 1, output
    assert "Failed" in output
    assert "FAILED (--strict: warnings)" in output
    assert "`dflash_config.mask_token_id` = 151669 and `mask_token_id` = 151670 disagree" in output


@pytest.mark.engine_wheels
def test_the_hook_of_this_tree_checks_many_configs_in_one_run(
    working_tree: tuple[Path, str], pre_commit_home: Path, tmp_path: Path
) -> None:
    """pre-commit splits more than four files into batches, one per CPU, unless the hook is
    ``require_serial``: then the checker runs once and prints one summary line."""
    config = pointed_at(remote_configs()[0], working_tree[0], rev=working_tree[1])
    files: dict[str, object] = {f"models/{index}/config.json": GOOD for index in range(8)}
    made = project(tmp_path / "models", pre_commit_home, config, {**files, "bad/config.json": BAD})
    status, output = made.run()
    assert status == 1, output
    assert "bad/config.json: INVALID\n" in output
    assert f"  {BAD_LINE}" in output
    assert re.findall(r"^\d+ checked.*$", output, re.M) == [
        "9 checked: 8 valid, 1 invalid, 1 fixable with --fix"
    ]
