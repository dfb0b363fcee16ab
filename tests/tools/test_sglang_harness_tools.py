"""The SGLang harness's own plumbing (``tools/sglang_harness``), without SGLang or a network.

The stage runner is replaced by small scripts standing in for the harness environment's
``python``; what is tested is what the harness does with their reports, their silence and
their deaths, its stand-ins, its corpus, and how it finds, keys and builds its cached
environment.
"""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tools.sglang_harness import environment
from tools.sglang_harness.corpus import ALGORITHM_OF_METHOD, CASES, LIVE_SAMPLE
from tools.sglang_harness.harness import (
    ALGORITHMS,
    NICENESS,
    RESULT_PREFIX,
    STAND_INS,
    run,
    run_many,
    scrub,
)
from tools.sglang_harness.readings import ROOT, artefact, stage_reached
from tools.vllm_harness.corpus import CASES as VLLM_CASES


def _configs(tmp_path: Path) -> tuple[Path, Path]:
    draft, target = tmp_path / "draft.json", tmp_path / "target.json"
    draft.write_text('{"architectures": ["DFlashDraftModel"]}', encoding="utf-8")
    target.write_text('{"architectures": ["Qwen3ForCausalLM"]}', encoding="utf-8")
    return draft, target


def _fake_python(tmp_path: Path, body: str) -> Path:
    script = tmp_path / "fake-python"
    script.write_text("#!/usr/bin/env bash\n" + body, encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


REPORT = {
    "outcome": "failed",
    "failed_stage": "registry",
    "stages_passed": ["config"],
    "exception": {"type": "ValueError", "message": "no such file /tmp/sglang-harness-ab12/draft"},
}


def test_run_returns_the_stage_runners_report_with_the_scratch_folder_scrubbed(
    tmp_path: Path,
) -> None:
    draft, target = _configs(tmp_path)
    line = RESULT_PREFIX + json.dumps(REPORT)
    fake = _fake_python(tmp_path, f"echo 'noise on stdout'\necho '{line}'\n")
    result = run(draft, target, "DFLASH", python=fake)
    assert result["exception"]["message"] == "no such file <scratch>/draft"
    assert stage_reached(result) == "registry"


def test_the_stage_runner_gets_both_folders_the_algorithm_and_the_device_niced(
    tmp_path: Path,
) -> None:
    draft, target = _configs(tmp_path)
    record = tmp_path / "argv.txt"
    fake = _fake_python(
        tmp_path,
        f'printf "%s\\n" "$@" > {record}\n'
        f'cat "$3/config.json" > {tmp_path}/seen-draft.json\n'
        f"nice > {tmp_path}/niceness.txt\n"
        f'echo "$SGLANG_USE_CPU_ENGINE $PYTHONPATH" > {tmp_path}/env.txt\n'
        f"echo '{RESULT_PREFIX}{{}}'\n",
    )
    run(draft, target, "EAGLE3", device="cpu", python=fake)
    argv = record.read_text(encoding="utf-8").split("\n")
    assert argv[0].endswith("stage_runner.py")
    assert argv[1] == "--draft"
    assert argv[3:9] == ["--target", argv[4], "--algorithm", "EAGLE3", "--device", "cpu"]
    assert (tmp_path / "seen-draft.json").read_bytes() == draft.read_bytes()
    assert int((tmp_path / "niceness.txt").read_text(encoding="utf-8")) >= NICENESS
    assert (tmp_path / "env.txt").read_text(encoding="utf-8").split() == ["1", str(STAND_INS)]


def test_an_algorithm_or_device_the_runner_has_not_is_refused_before_any_run(
    tmp_path: Path,
) -> None:
    draft, target = _configs(tmp_path)
    fake = _fake_python(tmp_path, "exit 3\n")
    with pytest.raises(ValueError, match="'NEXTN' is not one of DFLASH, DSPARK"):
        run(draft, target, "NEXTN", python=fake)
    with pytest.raises(ValueError, match="'npu' is not one of cuda, cpu"):
        run(draft, target, "DFLASH", device="npu", python=fake)


def test_a_run_past_its_timeout_is_reported_as_a_timeout(tmp_path: Path) -> None:
    draft, target = _configs(tmp_path)
    fake = _fake_python(tmp_path, "sleep 30\n")
    result = run(draft, target, "DFLASH", python=fake, timeout=0.5)
    assert result["outcome"] == "timeout"
    assert stage_reached(result) is None


def test_a_run_that_dies_without_a_report_is_reported_as_a_crash(tmp_path: Path) -> None:
    draft, target = _configs(tmp_path)
    fake = _fake_python(tmp_path, "echo 'Segmentation fault' >&2\nexit 139\n")
    result = run(draft, target, "DFLASH", python=fake)
    assert result["outcome"] == "crashed"
    assert "exit 139" in result["exception"]["message"]
    assert "Segmentation fault" in result["exception"]["message"]


def test_run_many_sends_one_request_a_line_and_reads_one_report_each(tmp_path: Path) -> None:
    draft, target = _configs(tmp_path)
    # A server that answers each request with its algorithm.
    fake = _fake_python(
        tmp_path,
        "while read -r request; do\n"
        '  algorithm=$(echo "$request" | sed \'s/.*"algorithm": "\\([A-Z0-9_]*\\)".*/\\1/\')\n'
        f'  echo "{RESULT_PREFIX}{{\\"outcome\\": \\"passed\\", '
        '\\"algorithm\\": \\"$algorithm\\"}"\n'
        "done\n",
    )
    requests = [(draft, target, "DFLASH"), (draft, target, "DSPARK")]
    results = list(run_many(requests, python=fake))
    assert [result["algorithm"] for result in results] == ["DFLASH", "DSPARK"]


def test_run_many_reports_a_crash_when_the_server_stops(tmp_path: Path) -> None:
    draft, target = _configs(tmp_path)
    fake = _fake_python(tmp_path, "exit 1\n")
    requests = [(draft, target, "DFLASH"), (draft, target, "DFLASH")]
    results = list(run_many(requests, python=fake))
    assert [result["outcome"] for result in results] == ["crashed"]


def test_scrub_leaves_other_text_and_non_strings_alone() -> None:
    result: dict[str, Any] = {"exception": {"type": "E", "message": "at /a/b", "line": 3}}
    assert scrub(result) == {"exception": {"type": "E", "message": "at /a/b", "line": 3}}
    assert scrub({"exception": None}) == {"exception": None}
    batch = {"exception": {"message": "'/tmp/sglang-harness-x1/run-12/draft' is not"}}
    assert scrub(batch)["exception"]["message"] == "'<scratch>/draft' is not"


def test_stage_reached_is_the_failed_stage_else_the_last_stage_passed() -> None:
    assert stage_reached({"failed_stage": "capture", "stages_passed": ["config"]}) == "capture"
    passed = {"failed_stage": None, "stages_passed": ["config", "registry", "pipeline"]}
    assert stage_reached(passed) == "pipeline"
    assert stage_reached({"failed_stage": None, "stages_passed": []}) is None


@pytest.mark.parametrize(
    ("exception", "expected"),
    [
        (
            {
                "type": "ValueError",
                "message": "DFLASH speculative decoding is not supported by CpuSRTPlatform "
                "on device 'cpu'.",
            },
            "CPU platform",
        ),
        (
            {
                "type": "ValueError",
                "message": "DSpark speculative decoding only supports CUDA, NPU or XPU device.",
            },
            "CPU platform",
        ),
        (
            {"type": "AssertionError", "message": "x", "where": "torch/cuda/__init__.py:1 (f)"},
            "CUDA call",
        ),
        ({"type": "RuntimeError", "message": "torch.cuda.Stream requires CUDA support"}, "CUDA"),
        ({"type": "ModuleNotFoundError", "message": "No module named 'vllm'"}, "vllm"),
        ({"type": "ModuleNotFoundError", "message": "No module named 'einops'"}, None),
        (
            {"type": "RuntimeError", "message": "sgl_kernel stand-in: sgl_kernel.x was called"},
            "stand-in",
        ),
        (
            {
                "type": "ValueError",
                "message": "Cannot find model module. 'DominoDraftModel' is not a registered "
                "model in the Transformers library",
            },
            None,
        ),
    ],
)
def test_an_artefact_of_this_machine_is_told_from_a_reading(
    exception: dict[str, str], expected: str | None
) -> None:
    found = artefact({"exception": exception})
    if expected is None:
        assert found is None
    else:
        assert found is not None
        assert expected in found
    assert artefact({"exception": None}) is None


def test_a_class_whose_model_file_does_not_import_here_is_an_artefact_at_the_registry() -> None:
    exception = {"type": "ValueError", "message": "Qwen3_5ForCausalLM has no SGlang implementation"}
    skipped = {"Qwen3_5ForCausalLM": "sglang.srt.models.qwen3_5: no attribute 'op_cpu'"}
    run_ = {"failed_stage": "registry", "exception": exception, "skipped_classes": skipped}
    assert artefact(run_) == (
        "SGLang's model file for Qwen3_5ForCausalLM does not import here "
        "(sglang.srt.models.qwen3_5: no attribute 'op_cpu')"
    )
    # The same class, failing at another stage, is a reading.
    assert artefact({**run_, "failed_stage": "draft"}) is None
    assert artefact({**run_, "skipped_classes": {}}) is None


@pytest.mark.parametrize("package", ["torchvision", "sgl_kernel"])
def test_a_stand_in_imports_anything_and_refuses_to_run(package: str) -> None:
    program = (
        f"from {package}.transforms.v2 import functional as F\n"
        f"from {package} import InterpolationMode\n"
        "class Processor(F.Base): pass\n"
        "defaults = {'mode': InterpolationMode.BICUBIC}\n"
        f"print('imported', Processor.__mro__[-1].__name__, {package}.__version__)\n"
        "F.resize(None, [2, 2])\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", f"import {package}\n" + program],
        env={"PYTHONPATH": str(STAND_INS), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.stdout == "imported object 0.0.0+stand-in\n"
    assert (
        f"RuntimeError: {package} stand-in: {package}.transforms.v2.functional.resize was called"
        in completed.stderr
    )


def test_each_corpus_case_runs_under_the_algorithm_of_its_vllm_method() -> None:
    assert [case.draft for case in CASES] == [case.draft for case in VLLM_CASES]
    for case, vllm_case in zip(CASES, VLLM_CASES, strict=True):
        assert case.algorithm == ALGORITHM_OF_METHOD[vllm_case.modes[0].method]
        assert case.algorithm in ALGORITHMS
        assert (ROOT / case.draft).is_file(), case.draft
        assert (ROOT / case.target).is_file(), case.target


def test_the_live_sample_covers_each_parallel_algorithm_and_eagle3_on_public_targets() -> None:
    cases = {case.name: case for case in CASES}
    sample = [cases[name] for name in LIVE_SAMPLE]
    assert {case.algorithm for case in sample} == {"DFLASH", "DSPARK", "EAGLE3"}
    assert not any(case.target_synthesized for case in sample)


# --- the cached environment ----------------------------------------------------------------


def test_the_cache_is_under_the_environment_variable_else_under_the_users_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(environment.CACHE_ENV, str(tmp_path))
    assert environment.cache_root() == tmp_path / "sglang"
    assert environment.environment_dir().parent == tmp_path / "sglang"
    monkeypatch.delenv(environment.CACHE_ENV)
    expected = Path("~/.cache/drafting-config/sglang-harness").expanduser()
    assert environment.cache_root() == expected


def test_the_key_follows_the_pinned_requirements(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    key = environment.environment_key()
    assert len(key) == 16
    assert key == environment.environment_key()
    changed = tmp_path / "requirements.txt"
    changed.write_bytes(environment.REQUIREMENTS.read_bytes() + b"extra==1.0\n")
    monkeypatch.setattr(environment, "REQUIREMENTS", changed)
    assert environment.environment_key() != key


def test_the_requirements_pin_every_package_to_one_version_sglangs_where_it_pins() -> None:
    lines = environment.REQUIREMENTS.read_text(encoding="utf-8").split()
    assert all("==" in line for line in lines)
    names = [line.split("==")[0].lower() for line in lines]
    assert len(names) == len(set(names))
    # torch comes first, on its own: the CPU build, never the CUDA one SGLang asks for; the
    # stand-ins' packages are never installed.
    assert not {"torch", "torchvision", "sgl_kernel", "sglang-kernel"} & set(names)
    assert {"sglang==0.5.23", "transformers==5.19.0", "tokenizers==0.23.2"} <= set(lines)


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
            output.write("ERROR: No matching distribution found for sglang==0.5.23\n")
        return subprocess.CompletedProcess(command, returncode)

    monkeypatch.setattr(subprocess, "run", fake_run)
    return calls


def test_a_complete_environment_is_reused_without_building(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(environment.CACHE_ENV, str(tmp_path))
    folder = environment.environment_dir()
    (folder / "bin").mkdir(parents=True)
    (folder / "bin" / "python").write_text("", encoding="utf-8")
    (folder / "complete").write_text("", encoding="utf-8")
    calls = _recording_subprocess(monkeypatch, 0)
    assert environment.ensure_environment() == folder / "bin" / "python"
    assert calls == []


def test_a_half_built_environment_is_built_again_torch_first_then_the_pins(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(environment.CACHE_ENV, str(tmp_path))
    folder = environment.environment_dir()
    folder.mkdir(parents=True)
    (folder / "leftover").write_text("", encoding="utf-8")
    calls = _recording_subprocess(monkeypatch, 0)
    python = environment.ensure_environment()
    assert not (folder / "leftover").exists()
    assert (folder / "complete").is_file()
    installs = [call[call.index("install") + 1 :] for call in calls if "install" in call]
    assert installs[0][-1] == "torch==2.13.0"
    assert installs[1][-3:] == ["--no-deps", "-r", str(environment.REQUIREMENTS)]
    assert python == folder / "bin" / "python"


def test_pip_failing_is_harness_unavailable_with_pips_reason(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(environment.CACHE_ENV, str(tmp_path))
    _recording_subprocess(monkeypatch, 1)
    with pytest.raises(environment.HarnessUnavailable, match="No matching distribution"):
        environment.ensure_environment()
    assert not (environment.environment_dir() / "complete").exists()
