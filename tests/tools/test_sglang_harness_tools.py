"""The SGLang harness's own part of the plumbing (``tools/engines/sglang/harness``), without
SGLang or a network.

The stage runner is replaced by small scripts standing in for the harness environment's
``python``; what is tested is what SGLang's harness puts into the shared plumbing (its
command line, niced, its checks, its requests' fields, its scratch folder's name, its stage
order, its artefacts, its stand-ins, its corpus, its pins and its cache folder). The shared
plumbing itself (reports, silence, deaths, the serve loop, the environment's build) is
tested once, in ``test_harness_common.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tools.conftest import FakePython
from tools.engines.sglang.harness import environment
from tools.engines.sglang.harness.corpus import ALGORITHM_OF_METHOD, CASES, LIVE_SAMPLE
from tools.engines.sglang.harness.harness import (
    ALGORITHMS,
    NICENESS,
    RESULT_PREFIX,
    STAND_INS,
    run,
    run_many,
)
from tools.engines.sglang.harness.readings import ROOT, artefact, stage_reached
from tools.harness.corpus import CASES as VLLM_CASES

REPORT = {
    "outcome": "failed",
    "failed_stage": "registry",
    "stages_passed": ["config"],
    "exception": {"type": "ValueError", "message": "no such file /tmp/sglang-harness-ab12/draft"},
}


def test_run_returns_the_stage_runners_report_with_the_scratch_folder_scrubbed(
    configs: tuple[Path, Path], fake_python: FakePython
) -> None:
    draft, target = configs
    line = RESULT_PREFIX + json.dumps(REPORT)
    fake = fake_python(f"echo 'noise on stdout'\necho '{line}'\n")
    result = run(draft, target, "DFLASH", python=fake)
    assert result["exception"]["message"] == "no such file <scratch>/draft"
    assert stage_reached(result) == "registry"


def test_the_stage_runner_gets_both_folders_the_algorithm_and_the_device_niced(
    tmp_path: Path, configs: tuple[Path, Path], fake_python: FakePython
) -> None:
    draft, target = configs
    record = tmp_path / "argv.txt"
    fake = fake_python(
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
    configs: tuple[Path, Path], fake_python: FakePython
) -> None:
    draft, target = configs
    fake = fake_python("exit 3\n")
    with pytest.raises(ValueError, match="'NEXTN' is not one of DFLASH, DSPARK"):
        run(draft, target, "NEXTN", python=fake)
    with pytest.raises(ValueError, match="'npu' is not one of cuda, cpu"):
        run(draft, target, "DFLASH", device="npu", python=fake)


def test_a_run_past_its_timeout_is_reported_as_a_timeout(
    configs: tuple[Path, Path], fake_python: FakePython
) -> None:
    draft, target = configs
    fake = fake_python("sleep 30\n")
    result = run(draft, target, "DSPARK", device="cpu", python=fake, timeout=0.5)
    assert result["outcome"] == "timeout"
    assert (result["algorithm"], result["device"]) == ("DSPARK", "cpu")
    assert stage_reached(result) is None


def test_run_many_sends_one_request_a_line_and_reads_one_report_each(
    configs: tuple[Path, Path], fake_python: FakePython
) -> None:
    draft, target = configs
    # A server that answers each request with its algorithm.
    fake = fake_python(
        "while read -r request; do\n"
        '  algorithm=$(echo "$request" | sed \'s/.*"algorithm": "\\([A-Z0-9_]*\\)".*/\\1/\')\n'
        f'  echo "{RESULT_PREFIX}{{\\"outcome\\": \\"passed\\", '
        '\\"algorithm\\": \\"$algorithm\\"}"\n'
        "done\n",
    )
    requests = [(draft, target, "DFLASH"), (draft, target, "DSPARK")]
    results = list(run_many(requests, python=fake))
    assert [result["algorithm"] for result in results] == ["DFLASH", "DSPARK"]


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


def test_the_requirements_pin_every_package_to_one_version_sglangs_where_it_pins() -> None:
    lines = environment.REQUIREMENTS.read_text(encoding="utf-8").split()
    assert all("==" in line for line in lines)
    names = [line.split("==")[0].lower() for line in lines]
    assert len(names) == len(set(names))
    # torch comes first, on its own: the CPU build, never the CUDA one SGLang asks for; the
    # stand-ins' packages are never installed.
    assert not {"torch", "torchvision", "sgl_kernel", "sglang-kernel"} & set(names)
    assert {"sglang==0.5.23", "transformers==5.19.0", "tokenizers==0.23.2"} <= set(lines)


def test_the_engines_and_transformers_wheels_come_from_the_wheel_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # One download of each wheel for the wheel tests and the harness alike (issue 42).
    from tools.harness import environment as shared_environment
    from tools.wheels import WheelSpec, WheelUnavailable

    built: list[list[Path]] = []

    def ensure(folder: Path, requirements: Path, *, wheels: object) -> Path:
        assert callable(wheels)
        built.append(list(wheels()))
        return folder / "bin" / "python"

    fetched: list[str] = []

    def fetch(spec: WheelSpec) -> object:
        fetched.append(spec.requirement)
        if spec.name == "transformers":
            raise WheelUnavailable("no index")  # left to pip, which fetches its pin
        return type("Wheel", (), {"path": tmp_path / f"{spec.name}.whl"})()

    monkeypatch.setattr(shared_environment, "ensure_environment", ensure)
    monkeypatch.setattr(environment, "fetch_wheel", fetch)
    environment.ensure_environment()
    pins = dict(
        line.split("==")
        for line in environment.REQUIREMENTS.read_text().splitlines()
        if "==" in line
    )
    assert fetched == [
        f"sglang=={environment.release()}",
        f"transformers=={pins['transformers']}",
    ]
    assert pins["sglang"] == environment.release()
    assert built == [[tmp_path / "sglang.whl"]]
