"""The CI recipe: ``action.yml``'s steps, run as GitHub's runner runs them, on a fixture
model repository; the workflow commands the check step prints (``--format github``) put
each finding on its file.

The check step runs with the checker of this environment; installing the checker from
the action's own checkout needs the package index (pydantic, and hatchling to build),
so the test that runs both steps carries the ``engine_wheels`` marker.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple

import pytest
import yaml

from drafting_config.engines import ENGINE_NAMES
from drafting_config.engines.vllm.names import ENGINE as VLLM
from tests.conftest import EXAMPLES, REPO
from tests.package_index import PIP_PATIENCE, unavailable

SGLANG = ENGINE_NAMES["sglang"]
"""How a verdict names the SGLang release it speaks for."""

pytestmark = pytest.mark.slow

ACTION: dict[str, Any] = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
COMMAND = re.compile(r"::(error|warning) file=([^,]*),(?:line=\d+,col=\d+,)?title=([^:]*)::(.*)")

GOOD: dict[str, Any] = json.loads((EXAMPLES / "dflash-qwen3-4b" / "config.json").read_text())
BAD: dict[str, Any] = {**GOOD, "dflash_config": {**GOOD["dflash_config"], "mask_token_id": "1"}}
"""Refused by both engines: a token id written as a string."""


class Annotation(NamedTuple):
    level: str
    file: str
    code: str
    message: str


class StepRun(NamedTuple):
    status: int
    output: str
    annotations: list[Annotation]


def step(name: str) -> dict[str, Any]:
    steps: list[dict[str, Any]] = ACTION["runs"]["steps"]
    (found,) = [step for step in steps if step["name"] == name]
    assert found["shell"] == "bash"
    return found


def annotated(output: str) -> list[Annotation]:
    """What the runner makes of ``output``: each workflow command an annotation on the file
    it names (the properties unescaped as the runner unescapes them)."""

    def unescaped(text: str) -> str:
        for escape, char in (("%3A", ":"), ("%2C", ","), ("%0D", "\r"), ("%0A", "\n")):
            text = text.replace(escape, char)
        return text.replace("%25", "%")

    found = []
    for line in output.splitlines():
        match = COMMAND.fullmatch(line)
        if match:
            level, file, code, message = match.groups()
            found.append(Annotation(level, unescaped(file), unescaped(code), unescaped(message)))
    return found


def run_step(name: str, cwd: Path, env: dict[str, str]) -> StepRun:
    """Run a step's script as the runner runs a ``shell: bash`` step, its ``env`` filled
    from the action's input defaults."""
    found = step(name)
    inputs = {key: str(spec.get("default", "")) for key, spec in ACTION["inputs"].items()}
    step_env = {
        key: re.sub(r"\$\{\{ inputs\.(\w+) \}\}", lambda m: inputs[m[1]], str(value))
        for key, value in found.get("env", {}).items()
    }
    script = cwd.parent / f"{name.replace(' ', '-')}.sh"
    script.write_text(found["run"])
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=cwd,
        env={**os.environ, "GITHUB_ACTION_PATH": str(REPO), **step_env, **env},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    output = done.stdout + done.stderr
    return StepRun(done.returncode, output, annotated(output))


def model_repository(root: Path, files: dict[str, object]) -> Path:
    """A git repository holding ``files`` (JSON-encoded), added to its index."""
    root.mkdir()
    subprocess.run(["git", "init", "--quiet"], cwd=root, check=True)
    for name, content in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(json.dumps(content))
    subprocess.run(["git", "add", "--all"], cwd=root, check=True)
    return root


def with_this_checker(runner_temp: Path) -> dict[str, str]:
    """The check step's environment with this environment's checker where the install step
    puts it (``$RUNNER_TEMP/drafting-config/bin``), and a ``PATH`` without it: the step calls
    the checker by its full path."""
    bin_dir = runner_temp / "drafting-config" / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    for name, target in (("python", sys.executable), ("drafting-config", CHECKER)):
        if not (bin_dir / name).exists():
            (bin_dir / name).symlink_to(target)
    return {"RUNNER_TEMP": str(runner_temp), "PATH": _without_this_environment()}


CHECKER = Path(sys.executable).parent / "drafting-config"
"""This environment's console script."""


def _without_this_environment() -> str:
    """``PATH`` without this environment's ``bin``, so that ``drafting-config`` is not found
    on it."""
    here = Path(sys.executable).parent
    return os.pathsep.join(
        entry for entry in os.environ["PATH"].split(os.pathsep) if entry and Path(entry) != here
    )


def test_the_check_step_fails_on_a_bad_draft_and_annotates_its_file(tmp_path: Path) -> None:
    repo = model_repository(
        tmp_path / "models",
        {
            "config.json": GOOD,
            "drafts/broken/config.json": BAD,
            # Not draft configs: the step must not check them.
            "drafts/broken/generation_config.json": BAD,
            "drafts/broken/tokenizer_config.json": BAD,
        },
    )
    run = run_step("Check every config.json", repo, with_this_checker(tmp_path / "runner-temp"))
    assert run.status == 1, run.output
    assert (f"2 checked: 1 valid, 1 invalid ({VLLM} serves 1, {SGLANG} serves 1)") in run.output
    assert [(a.level, a.file, a.code) for a in run.annotations] == [
        ("error", "drafts/broken/config.json", "token-not-int"),
        ("error", "drafts/broken/config.json", "token-not-int"),
    ]
    assert [a.message.split("] ")[0] for a in run.annotations] == [
        f"[{VLLM}",
        f"[{SGLANG}",
    ]
    assert all("`dflash_config.mask_token_id`" in a.message for a in run.annotations)


def test_the_check_step_passes_a_repository_of_good_drafts_without_annotations(
    tmp_path: Path,
) -> None:
    repo = model_repository(tmp_path / "models", {"a/config.json": GOOD, "b/c/config.json": GOOD})
    run = run_step("Check every config.json", repo, with_this_checker(tmp_path / "runner-temp"))
    assert run.status == 0, run.output
    assert run.annotations == []
    assert (f"2 checked: 2 valid, 0 invalid ({VLLM} serves 2, {SGLANG} serves 2)") in run.output


def test_strict_warnings_are_annotated_too(tmp_path: Path) -> None:
    conflict = {**GOOD, "mask_token_id": 151670}  # dflash_config's 151669 wins, every release
    repo = model_repository(tmp_path / "models", {"config.json": conflict})
    run = run_step(
        "Check every config.json",
        repo,
        {**with_this_checker(tmp_path / "runner-temp"), "ENGINE": "vllm", "ARGS": "--strict"},
    )
    assert run.status == 1, run.output
    assert [(a.level, a.file, a.code) for a in run.annotations] == [
        ("error", "config.json", "token-fields-disagree")
    ]


@pytest.mark.engine_wheels
def test_both_steps_install_the_checker_from_the_action_and_check(tmp_path: Path) -> None:
    repo = model_repository(tmp_path / "models", {"config.json": GOOD, "bad/config.json": BAD})
    runner_temp, github_path = tmp_path / "runner-temp", tmp_path / "github-path"
    runner_temp.mkdir()
    env = {
        "RUNNER_TEMP": str(runner_temp),
        "GITHUB_PATH": str(github_path),
        "PIP_TIMEOUT": PIP_PATIENCE[1],
        "PIP_RETRIES": PIP_PATIENCE[3],
        "VIRTUAL_ENV": "",
    }
    installed = run_step("Install drafting-config", repo, env)
    if installed.status != 0:
        unavailable("the action's install step (pydantic, hatchling)", installed.output)
    # The job's PATH is left alone: the environment's python and pip shadow nothing.
    assert not github_path.exists()
    run = run_step(
        "Check every config.json",
        repo,
        {"RUNNER_TEMP": str(runner_temp), "PATH": _without_this_environment()},
    )
    assert run.status == 1, run.output
    assert [a.file for a in run.annotations] == ["bad/config.json", "bad/config.json"]


def test_the_page_shows_the_action_as_it_is() -> None:
    """docs/ci.md's workflow uses the action at a commit of this repository that has it,
    with inputs it declares, and quotes its check step's command as action.yml runs it."""
    page = (REPO / "docs" / "ci.md").read_text(encoding="utf-8")
    (shown,) = re.findall(r"^```bash\n(.*?)\n```$", page, re.S | re.M)
    assert shown == step("Check every config.json")["run"].strip().splitlines()[-1]
    (workflow,) = [
        yaml.safe_load(block)
        for block in re.findall(r"^```yaml\n(.*?)^```", page, re.S | re.M)
        if block.startswith("# .github/workflows/")
    ]
    (job,) = workflow["jobs"].values()
    (uses,) = [s for s in job["steps"] if not s["uses"].startswith("actions/")]
    name, _, rev = uses["uses"].partition("@")
    assert name == "FILL-IN-OWNER/NAME"
    assert set(uses["with"]) <= set(ACTION["inputs"])
    if (REPO / ".git").exists():
        shown_action = subprocess.run(
            ["git", "show", f"{rev}:action.yml"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert set(yaml.safe_load(shown_action)["inputs"]) >= set(uses["with"])


def test_the_step_leaves_the_jobs_path_alone() -> None:
    install = step("Install drafting-config")["run"]
    assert "GITHUB_PATH" not in install
    assert "GITHUB_PATH" not in step("Check every config.json")["run"]


def test_args_are_split_as_a_shell_splits_them_never_glob_expanded(tmp_path: Path) -> None:
    # `--no-tokenizer *` once added every entry of the repository's root to the paths
    # checked; a quoted path with spaces is one argument.
    repo = model_repository(tmp_path / "models", {"a/config.json": GOOD, "b/config.json": GOOD})
    (repo / "stray file").write_text("not a draft")
    target = tmp_path / "my target"
    target.mkdir()
    (target / "config.json").write_text(
        (EXAMPLES / "pair-qwen3-4b" / "target" / "config.json").read_text()
    )
    env = with_this_checker(tmp_path / "runner-temp")
    run = run_step("Check every config.json", repo, {**env, "ARGS": "--no-tokenizer *"})
    assert run.status == 2, run.output  # `*` is a path that does not exist: not expanded
    assert "2 checked" not in run.output
    args = f"--no-tokenizer --target '{target}'"
    run = run_step("Check every config.json", repo, {**env, "ARGS": args})
    assert run.status == 0, run.output  # the target read from a path holding a space
    assert "2 checked: 2 valid" in run.output
    run = run_step("Check every config.json", repo, {**env, "ARGS": "--target 'unclosed"})
    assert run.status == 2, run.output
    assert "the action's args: No closing quotation" in run.output


def test_a_repository_with_no_config_json_fails_the_step_saying_why(tmp_path: Path) -> None:
    repo = model_repository(tmp_path / "models", {"README.json": {}})
    run = run_step("Check every config.json", repo, with_this_checker(tmp_path / "runner-temp"))
    assert run.status == 2, run.output  # as docs/ci.md says: nothing checked, nothing passed
    assert "no paths to check: standard input held none" in run.output
