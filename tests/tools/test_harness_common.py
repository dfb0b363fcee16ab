"""The plumbing both harnesses share (``tools/harness``), without an engine or a network.

The stage runner is replaced by small scripts standing in for the harness environment's
``python``; what is tested is what the shared run and serve loops do with their reports,
their silence and their deaths, the serve loop itself (forking a child per request, with
its timeout), the readings' helpers, and how the cached environment is found, keyed and
built, for the shared code and for each harness's folder and key. Each engine's own test
(``test_vllm_harness_tools.py``, ``test_sglang_harness_tools.py``) tests what that engine
puts in: its command, its request fields, its stand-ins, its pins.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.tools.conftest import FakePython
from tools.engines.sglang.harness import environment as sglang_environment
from tools.engines.vllm.harness import environment as vllm_environment
from tools.harness import environment, launch, process, readings
from tools.harness.serve import RESULT_PREFIX, exception_record

ROOT = Path(__file__).resolve().parents[2]
PREFIX = "test-harness-"
FIELDS = {"method": "dflash", "parallel_drafting": False}


def _run_once(fake: Path, draft: Path, target: Path, *, timeout: float = 30) -> dict[str, Any]:
    return process.run_once(
        lambda draft_dir, target_dir: [str(fake), str(draft_dir), str(target_dir)],
        lambda folder: {"PATH": "/usr/bin:/bin", "SCRATCH": str(folder)},
        draft,
        target,
        prefix=PREFIX,
        fields=FIELDS,
        timeout=timeout,
    )


# --- one run, one process -------------------------------------------------------------------


def test_run_once_returns_the_last_report_line_with_the_scratch_folder_scrubbed(
    configs: tuple[Path, Path], fake_python: FakePython
) -> None:
    draft, target = configs
    report = {
        "outcome": "failed",
        "failed_stage": "config",
        "exception": {"type": "ValueError", "message": f"no such file /tmp/{PREFIX}ab12/draft"},
    }
    fake = fake_python(
        f"echo 'noise on stdout'\necho '{RESULT_PREFIX}{{}}'\necho '{RESULT_PREFIX}"
        + json.dumps(report)
        + "'\n",
    )
    result = _run_once(fake, draft, target)
    assert result["outcome"] == "failed"
    assert result["exception"]["message"] == "no such file <scratch>/draft"


def test_run_once_gives_the_command_two_folders_holding_the_configs_in_a_scratch_folder(
    tmp_path: Path, configs: tuple[Path, Path], fake_python: FakePython
) -> None:
    draft, target = configs
    fake = fake_python(
        f'cat "$1/config.json" > {tmp_path}/seen-draft.json\n'
        f'cat "$2/config.json" > {tmp_path}/seen-target.json\n'
        f'printf "%s\\n" "$1" "$2" "$SCRATCH" "$PWD" > {tmp_path}/where.txt\n'
        f"echo '{RESULT_PREFIX}{{}}'\n",
    )
    assert _run_once(fake, draft, target) == {}
    assert (tmp_path / "seen-draft.json").read_bytes() == draft.read_bytes()
    assert (tmp_path / "seen-target.json").read_bytes() == target.read_bytes()
    draft_dir, target_dir, scratch, cwd = (
        (tmp_path / "where.txt").read_text(encoding="utf-8").split()
    )
    assert Path(scratch).name.startswith(PREFIX)
    assert (draft_dir, target_dir, cwd) == (f"{scratch}/draft", f"{scratch}/target", scratch)
    assert not Path(scratch).exists()


def test_a_run_past_its_timeout_is_reported_as_a_timeout_named_by_its_fields(
    configs: tuple[Path, Path], fake_python: FakePython
) -> None:
    draft, target = configs
    result = _run_once(fake_python("sleep 30\n"), draft, target, timeout=0.5)
    assert result == {
        "outcome": "timeout",
        **FIELDS,
        "stages_passed": [],
        "failed_stage": None,
        "exception": {"type": "timeout", "message": "no report within 0.5 s", "where": ""},
    }
    assert readings.stage_reached(result, ("config",)) is None


def test_a_run_that_dies_without_a_report_is_reported_as_a_crash(
    configs: tuple[Path, Path], fake_python: FakePython
) -> None:
    draft, target = configs
    fake = fake_python("echo 'Segmentation fault' >&2\nexit 139\n")
    result = _run_once(fake, draft, target)
    assert result["outcome"] == "crashed"
    assert result["method"] == "dflash"
    assert "exit 139" in result["exception"]["message"]
    assert "Segmentation fault" in result["exception"]["message"]


# --- many runs, one server ------------------------------------------------------------------


def _served(fake: Path, requests: list[process.Request]) -> list[dict[str, Any]]:
    def environment_of(folder: Path) -> dict[str, str]:
        return {"PATH": "/usr/bin:/bin"}

    return list(process.run_served([str(fake)], environment_of, requests, prefix=PREFIX, timeout=7))


def test_run_served_sends_one_request_a_line_and_reads_one_report_each(
    configs: tuple[Path, Path], fake_python: FakePython
) -> None:
    draft, target = configs
    # A server that echoes each request back as its report, after some noise.
    fake = fake_python(
        f'while read -r request; do echo noise; echo "{RESULT_PREFIX}$request"; done\n',
    )
    reports = _served(fake, [(draft, target, {"n": 0}), (draft, target, {"n": 1})])
    assert [report["n"] for report in reports] == [0, 1]
    for index, report in enumerate(reports):
        assert list(report) == ["draft", "target", "n", "timeout"]
        assert report["draft"].endswith(f"/run-{index}/draft")
        assert report["target"].endswith(f"/run-{index}/target")
        assert report["timeout"] == 7


def test_run_served_reports_one_crash_when_the_server_stops(
    configs: tuple[Path, Path], fake_python: FakePython
) -> None:
    draft, target = configs
    fake = fake_python("exit 1\n")
    reports = _served(fake, [(draft, target, FIELDS), (draft, target, FIELDS)])
    assert [(report["outcome"], report["method"]) for report in reports] == [("crashed", "dflash")]
    assert reports[0]["exception"]["message"] == "the harness's server stopped"


def test_scrub_leaves_other_text_and_non_strings_alone() -> None:
    result: dict[str, Any] = {"exception": {"type": "E", "message": "at /a/b", "line": 3}}
    assert process.scrub(result, PREFIX) == {
        "exception": {"type": "E", "message": "at /a/b", "line": 3}
    }
    assert process.scrub({"exception": None}, PREFIX) == {"exception": None}
    batch = {"exception": {"message": f"'/tmp/{PREFIX}x1/run-12/draft' is not"}}
    assert process.scrub(batch, PREFIX)["exception"]["message"] == "'<scratch>/draft' is not"
    other = {"exception": {"message": "'/tmp/other-harness-x1/draft' is not"}}
    assert process.scrub(other, PREFIX)["exception"]["message"] == other["exception"]["message"]


# --- inside the engine's environment: the serve loop ----------------------------------------

SERVER = textwrap.dedent(
    """
    import os, sys, time
    from tools.harness.serve import passed, serve

    def run(request):
        print("the engine's noise", flush=True)  # to stderr: the pipe carries the result
        if request["how"] == "sleep":
            passed("config")
            passed("speculator")
            time.sleep(30)
        if request["how"] == "die":
            os._exit(3)
        return {"outcome": "passed", "n": request["n"], "pid": os.getpid()}

    def unreported(request, outcome, message):
        return {"outcome": outcome, "n": request["n"], "message": message}

    sys.exit(serve(run, unreported))
    """
)


def test_serve_runs_each_request_in_a_child_and_reports_timeouts_and_deaths() -> None:
    requests = [
        {"n": 0, "how": "pass"},
        {"n": 1, "how": "sleep", "timeout": 0.5},
        {"n": 2, "how": "die"},
        {"n": 3, "how": "pass"},
    ]
    completed = subprocess.run(
        [sys.executable, "-c", SERVER],
        cwd=ROOT,
        input="\n".join(json.dumps(request) for request in requests) + "\n\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    lines = completed.stdout.splitlines()
    assert all(line.startswith(RESULT_PREFIX) for line in lines)
    reports = [json.loads(line.removeprefix(RESULT_PREFIX)) for line in lines]
    assert [(report["n"], report["outcome"]) for report in reports] == [
        (0, "passed"),
        (1, "timeout"),
        (2, "crashed"),
        (3, "passed"),
    ]
    assert reports[1]["message"] == "no report within 0.5 s"
    # How far a run that never reported went: the stages it noted passing.
    assert reports[1]["stages_passed"] == ["config", "speculator"]
    assert "stages_passed" not in reports[0]
    assert reports[2]["stages_passed"] == []
    assert reports[2]["message"] == "the run died without a report"
    assert reports[0]["pid"] != reports[3]["pid"]  # a fresh child each
    assert completed.stderr.count("the engine's noise") == 4


def test_the_exception_record_names_the_first_line_the_next_lines_and_the_frame() -> None:
    site = Path("/env/lib/python3.11/site-packages/engine/config.py")
    code = compile("def check():\n    raise ValueError(message)\n", str(site), "exec")
    namespace: dict[str, Any] = {"message": "\n 2 validation errors \nfield a\n  bad\nb\nc\n"}
    exec(code, namespace)
    with pytest.raises(ValueError, match="validation errors") as caught:
        namespace["check"]()
    assert exception_record(caught.value) == {
        "type": "ValueError",
        "message": "2 validation errors",
        "detail": "field a | bad | b",
        "where": "engine/config.py:2 (check)",
    }
    assert exception_record(RuntimeError())["message"] == ""
    assert exception_record(RuntimeError("x"))["where"] == ""


# --- the readings' helpers ------------------------------------------------------------------


def test_stage_reached_is_the_failed_stage_else_the_last_stage_passed_in_the_stages_order() -> None:
    stages = ("config", "target", "tap", "draft")
    failed = {"failed_stage": "tap", "stages_passed": ["config"]}
    assert readings.stage_reached(failed, stages) == "tap"
    assert readings.stage_reached({"failed_stage": "tap"}, stages) == "tap"
    out_of_order = {"failed_stage": None, "stages_passed": ["config", "draft", "tap"]}
    assert readings.stage_reached(out_of_order, stages) == "draft"
    assert readings.stage_reached({"failed_stage": None, "stages_passed": []}, stages) is None
    assert readings.stage_reached({}, stages) is None


@dataclass(frozen=True)
class _Case:
    name: str


def test_only_picks_the_named_cases_in_the_corpus_order_and_refuses_an_unknown_name(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parser = argparse.ArgumentParser(prog="readings")
    cases = [_Case("a"), _Case("b"), _Case("c")]
    assert readings.chosen(parser, cases, None) == cases
    assert readings.chosen(parser, cases, ["c", "a"]) == [_Case("a"), _Case("c")]
    with pytest.raises(SystemExit):
        readings.chosen(parser, cases, ["a", "zz", "yy"])
    assert "no case named yy, zz" in capsys.readouterr().err


def test_the_readings_file_is_indented_json_that_keeps_non_ascii(tmp_path: Path) -> None:
    path = tmp_path / "readings.json"
    document = {"about": "Qwen3 — draft", "engine_runs": [{"n": 1}]}
    readings.write_document(path, document)
    text = path.read_text(encoding="utf-8")
    assert text.endswith("]\n}\n")
    assert "—" in text
    assert '\n  "engine_runs": [\n    {\n      "n": 1\n' in text
    assert json.loads(text) == document
    assert readings.sha256_of(path) == hashlib.sha256(text.encode()).hexdigest()


def test_the_progress_line_names_the_case_the_outcome_the_stage_and_the_exception(
    capsys: pytest.CaptureFixture[str],
) -> None:
    entry = {
        "outcome": "failed",
        "stage_reached": "config",
        "exception": {"type": "ValueError", "message": "x" * 200},
    }
    readings.progress("case [dflash]", entry)
    readings.progress("other", {"outcome": "passed", "stage_reached": "draft", "exception": None})
    first, second = capsys.readouterr().out.splitlines()
    assert first == "case [dflash]: failed at config ValueError: " + "x" * 160
    assert second == "other: passed at draft : "


# --- the cached environment -----------------------------------------------------------------


def test_the_cache_is_the_environment_variable_with_a_subfolder_else_the_default(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    default = Path("~/.cache/harness")
    monkeypatch.setenv(environment.CACHE_ENV, str(tmp_path))
    assert environment.cache_root(default) == tmp_path
    assert environment.cache_root(default, subfolder="engine") == tmp_path / "engine"
    monkeypatch.delenv(environment.CACHE_ENV)
    assert environment.cache_root(default, subfolder="engine") == default.expanduser()


def test_the_key_hashes_the_torch_spec_the_requirements_and_the_python_version(
    tmp_path: Path,
) -> None:
    requirements = tmp_path / "requirements.txt"
    requirements.write_bytes(b"engine==1.0\n")
    key = environment.environment_key(requirements)
    # Written out here as the recorded readings' keys were computed: any change to it would
    # rebuild every cached environment and orphan the readings' environment keys.
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    spelled = b"torch==2.13.0\0engine==1.0\n\0" + version.encode()
    assert key == hashlib.sha256(spelled).hexdigest()[:16]
    requirements.write_bytes(b"engine==1.0\nextra==1.0\n")
    assert environment.environment_key(requirements) != key


def _recording_subprocess(monkeypatch: pytest.MonkeyPatch, returncode: int) -> list[list[str]]:
    calls: list[list[str]] = []

    def fake_run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        calls.append([str(part) for part in command])
        if command[1:3] == ["-m", "venv"]:
            python = Path(command[3]) / "bin" / "python"
            python.parent.mkdir(parents=True)
            python.write_text("", encoding="utf-8")
        output = kwargs.get("stdout")
        if hasattr(output, "write"):
            output.write("ERROR: No matching distribution found for engine==1.0\n")
        return subprocess.CompletedProcess(command, returncode)

    monkeypatch.setattr(subprocess, "run", fake_run)
    return calls


@pytest.fixture
def requirements(tmp_path: Path) -> Path:
    path = tmp_path / "requirements.txt"
    path.write_text("engine==1.0\n", encoding="utf-8")
    return path


def test_a_complete_environment_is_reused_without_building(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, requirements: Path
) -> None:
    folder = tmp_path / "cache" / "venv-x"
    (folder / "bin").mkdir(parents=True)
    (folder / "bin" / "python").write_text("", encoding="utf-8")
    (folder / "complete").write_text("", encoding="utf-8")
    calls = _recording_subprocess(monkeypatch, 0)
    assert environment.ensure_environment(folder, requirements) == folder / "bin" / "python"
    assert calls == []


def test_a_half_built_environment_is_built_again_torch_first_then_the_pins(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, requirements: Path
) -> None:
    folder = tmp_path / "cache" / "venv-x"
    folder.mkdir(parents=True)
    (folder / "leftover").write_text("", encoding="utf-8")
    calls = _recording_subprocess(monkeypatch, 0)
    python = environment.ensure_environment(folder, requirements)
    assert not (folder / "leftover").exists()
    marker = (folder / "complete").read_text(encoding="utf-8")
    assert marker == environment.environment_key(requirements) + "\n"
    installs = [call[call.index("install") + 1 :] for call in calls if "install" in call]
    assert installs[0][-1] == "torch==2.13.0"
    assert installs[1][-3:] == ["--no-deps", "-r", str(requirements)]
    assert python == folder / "bin" / "python"


def test_wheels_on_disk_are_installed_beside_the_pins_and_asked_for_only_when_building(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, requirements: Path
) -> None:
    folder = tmp_path / "cache" / "venv-x"
    wheel = tmp_path / "engine-1.0-py3-none-any.whl"
    asked: list[bool] = []

    def wheels() -> list[Path]:
        asked.append(True)
        return [wheel]

    calls = _recording_subprocess(monkeypatch, 0)
    environment.ensure_environment(folder, requirements, wheels=wheels)
    installs = [call[call.index("install") + 1 :] for call in calls if "install" in call]
    assert installs[1][-4:] == ["--no-deps", "-r", str(requirements), str(wheel)]
    environment.ensure_environment(folder, requirements, wheels=wheels)
    assert asked == [True]


def test_pip_failing_is_harness_unavailable_with_pips_reason(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, requirements: Path
) -> None:
    folder = tmp_path / "cache" / "venv-x"
    _recording_subprocess(monkeypatch, 1)
    with pytest.raises(environment.HarnessUnavailable, match="No matching distribution"):
        environment.ensure_environment(folder, requirements)
    assert not (folder / "complete").exists()


# --- each harness's environment: its cache folder and its key --------------------------------

ENGINE_ENVIRONMENTS = [
    *(
        pytest.param((vllm_environment, "vllm-harness", None, (release,)), id=f"vllm-{release}")
        for release in vllm_environment.RELEASES
    ),
    pytest.param((sglang_environment, "sglang-harness", "sglang", ()), id="sglang"),
]
"""Each harness's environment module, its default cache folder, its subfolder under the
variable's folder and the arguments that name one of its environments (vLLM's release)."""

EngineEnvironment = tuple[ModuleType, str, str | None, tuple[str, ...]]


@pytest.fixture(params=ENGINE_ENVIRONMENTS)
def engine_environment(request: pytest.FixtureRequest) -> EngineEnvironment:
    engine: EngineEnvironment = request.param
    return engine


def test_each_harness_caches_under_the_variable_else_its_own_folder_of_the_users_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, engine_environment: EngineEnvironment
) -> None:
    module, default, subfolder, args = engine_environment
    monkeypatch.setenv(environment.CACHE_ENV, str(tmp_path))
    expected = tmp_path / subfolder if subfolder else tmp_path
    assert module.cache_root() == expected
    assert module.environment_dir(*args).parent == expected
    assert module.environment_dir(*args).name == f"venv-{module.environment_key(*args)}"
    monkeypatch.delenv(environment.CACHE_ENV)
    assert module.cache_root() == Path(f"~/.cache/drafting-config/{default}").expanduser()


def test_the_sglang_harness_keys_its_environment_on_its_own_pinned_requirements(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # vLLM's, one per release: tests/tools/test_vllm_harness_tools.py.
    key = sglang_environment.environment_key()
    assert key == environment.environment_key(sglang_environment.REQUIREMENTS)
    assert sglang_environment.REQUIREMENTS.parent == Path(sglang_environment.__file__).parent
    changed = tmp_path / "requirements.txt"
    changed.write_bytes(sglang_environment.REQUIREMENTS.read_bytes() + b"extra==1.0\n")
    monkeypatch.setattr(sglang_environment, "REQUIREMENTS", changed)
    assert sglang_environment.environment_key() != key


def test_the_harnesses_environments_are_keyed_apart() -> None:
    keys = [sglang_environment.environment_key()] + [
        vllm_environment.environment_key(release) for release in vllm_environment.RELEASES
    ]
    assert len(set(keys)) == len(keys)


@dataclass(frozen=True)
class _Ran:
    name: str
    draft: str
    target: str
    target_synthesized: bool


def test_a_reading_has_the_case_how_its_inputs_the_outcome_the_details_then_the_artefact(
    tmp_path: Path,
) -> None:
    (tmp_path / "d.json").write_bytes(b"{}")
    (tmp_path / "t.json").write_bytes(b"[]")
    inputs = readings.inputs(
        tmp_path, "d.json", "t.json", version=("e_version", "1"), environment="k"
    )
    assert inputs == {
        "draft_sha256": hashlib.sha256(b"{}").hexdigest(),
        "target_sha256": hashlib.sha256(b"[]").hexdigest(),
        "e_version": "1",
        "environment": "k",
    }
    result = {"outcome": "passed", "stages_passed": ["b", "a"], "exception": None, "x": 1}
    entry = readings.reading(
        _Ran("case", "d.json", "t.json", target_synthesized=True),
        {"algorithm": "A"},
        result,
        inputs=inputs,
        stages=("a", "b", "c"),
        details={"x": result["x"]},
        artefact=None,
        not_reached=("weights",),
    )
    assert list(entry) == [
        "name",
        "draft",
        "target",
        "target_synthesized",
        "algorithm",
        "inputs",
        "outcome",
        "stage_reached",
        "stages_passed",
        "exception",
        "x",
        "artefact",
        "not_reached",
    ]
    assert (entry["stage_reached"], entry["stages_passed"], entry["x"]) == ("b", ["b", "a"], 1)
    assert entry["not_reached"] == ["weights"]


def test_a_printed_command_runs_on_the_scratch_folders_its_placeholder_replaced() -> None:
    argv = ["vllm", "serve", "TARGET", "--speculative-config"]
    argv.append(json.dumps({"method": "eagle3", "model": "DRAFT", "num_speculative_tokens": "N"}))
    local, replaced = launch.local_argv(argv, ("DRAFT", "TARGET"), ("/s/draft", "/s/target"))
    assert local[:3] == ["vllm", "serve", "/s/target"]
    assert json.loads(local[4]) == {
        "method": "eagle3",
        "model": "/s/draft",
        "num_speculative_tokens": launch.PLACEHOLDER_TOKENS,
    }
    assert replaced
    sglang = ["--speculative-draft-model-path", "d", "--model-path", "t", "--x", "{not json"]
    assert launch.local_argv(sglang, ("d", "t"), ("/d", "/t")) == (
        ["--speculative-draft-model-path", "/d", "--model-path", "/t", "--x", "{not json"],
        False,
    )
