"""The vLLM harness's own part of the plumbing (``tools/vllm_harness``), without vLLM or a
network.

The stage runner is replaced by small scripts standing in for the harness environment's
``python``; what is tested is what vLLM's harness puts into the shared plumbing (its
command line, its requests' fields, its scratch folder's name, its stage order, its
artefacts, its stand-in, its corpus, its pins and its cache folder). The shared plumbing
itself (reports, silence, deaths, the serve loop, the environment's build) is tested once,
in ``test_harness_common.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tools.conftest import FakePython
from tools.vllm_harness import environment
from tools.vllm_harness.corpus import CASES, Mode
from tools.vllm_harness.harness import RESULT_PREFIX, STAND_INS, run, run_many
from tools.vllm_harness.readings import ROOT, artefact, live_sample, stage_reached

DFLASH = Mode("dflash")


REPORT = {
    "outcome": "failed",
    "failed_stage": "config",
    "stages_passed": [],
    "exception": {"type": "ValueError", "message": "no such file /tmp/vllm-harness-ab12/draft"},
}


def test_run_returns_the_stage_runners_report_with_the_scratch_folder_scrubbed(
    configs: tuple[Path, Path], fake_python: FakePython
) -> None:
    draft, target = configs
    line = RESULT_PREFIX + json.dumps(REPORT)
    fake = fake_python(f"echo 'noise on stdout'\necho '{line}'\n")
    result = run(draft, target, DFLASH, python=fake)
    assert result["exception"]["message"] == "no such file <scratch>/draft"
    assert stage_reached(result) == "config"


def test_the_stage_runner_gets_both_folders_and_the_mode(
    tmp_path: Path, configs: tuple[Path, Path], fake_python: FakePython
) -> None:
    draft, target = configs
    record = tmp_path / "argv.txt"
    fake = fake_python(
        f'printf "%s\\n" "$@" > {record}\n'
        f'cat "$3/config.json" > {tmp_path}/seen-draft.json\n'
        f"echo '{RESULT_PREFIX}{{}}'\n",
    )
    run(draft, target, Mode("eagle3", parallel_drafting=True), python=fake)
    argv = record.read_text(encoding="utf-8").split("\n")
    assert argv[0].endswith("stage_runner.py")
    assert argv[1] == "--draft"
    assert argv[3:7] == ["--target", argv[4], "--method", "eagle3"]
    assert "--parallel-drafting" in argv
    assert (tmp_path / "seen-draft.json").read_bytes() == draft.read_bytes()


def test_a_run_past_its_timeout_is_reported_as_a_timeout(
    configs: tuple[Path, Path], fake_python: FakePython
) -> None:
    draft, target = configs
    fake = fake_python("sleep 30\n")
    result = run(draft, target, Mode("eagle3", parallel_drafting=True), python=fake, timeout=0.5)
    assert result["outcome"] == "timeout"
    assert (result["method"], result["parallel_drafting"]) == ("eagle3", True)
    assert stage_reached(result) is None


def test_run_many_sends_one_request_a_line_and_reads_one_report_each(
    configs: tuple[Path, Path], fake_python: FakePython
) -> None:
    draft, target = configs
    # A server that answers each request with its method and whether its draft exists.
    fake = fake_python(
        "while read -r request; do\n"
        '  method=$(echo "$request" | sed \'s/.*"method": "\\([a-z0-9_]*\\)".*/\\1/\')\n'
        f'  echo "{RESULT_PREFIX}{{\\"outcome\\": \\"passed\\", '
        '\\"method\\": \\"$method\\"}"\n'
        "done\n",
    )
    requests = [(draft, target, DFLASH), (draft, target, Mode("dspark"))]
    results = list(run_many(requests, python=fake))
    assert [result["method"] for result in results] == ["dflash", "dspark"]


def test_the_stage_reached_follows_the_newer_runners_order() -> None:
    # The older runner builds the draft before it taps; the stage order is the newer one's.
    older = {"failed_stage": None, "stages_passed": ["config", "draft", "tap"]}
    assert stage_reached(older) == "draft"


@pytest.mark.parametrize(
    ("exception", "expected"),
    [
        (
            {"type": "NotImplementedError", "message": "Sparse Attention is not supported on CPU."},
            "CPU",
        ),
        ({"type": "RuntimeError", "message": "x", "where": "vllm/platforms/cpu.py:155 (f)"}, "CPU"),
        ({"type": "ModuleNotFoundError", "message": "No module named 'cutlass'"}, "cutlass"),
        ({"type": "ModuleNotFoundError", "message": "No module named 'torchvision'"}, None),
        (
            {"type": "RuntimeError", "message": "torchvision stand-in: tv.resize was called"},
            "torch",
        ),
        ({"type": "ValueError", "message": "Model architectures ['X'] are not supported"}, None),
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


def test_the_live_sample_prefers_a_public_target_and_keeps_the_files_order() -> None:
    runs = [
        {"stage_reached": "config", "outcome": "failed", "target_synthesized": True, "n": 0},
        {"stage_reached": "combine", "outcome": "passed", "target_synthesized": True, "n": 1},
        {"stage_reached": "config", "outcome": "failed", "target_synthesized": False, "n": 2},
        {"stage_reached": "combine", "outcome": "passed", "target_synthesized": True, "n": 3},
    ]
    assert [run_["n"] for run_ in live_sample(runs)] == [1, 2]


def test_the_torchvision_stand_in_imports_anything_and_refuses_to_run() -> None:
    # What transformers' Qwen2-VL image processor does at import, then a call.
    program = (
        "from torchvision.transforms.v2 import functional as tvF\n"
        "from torchvision.transforms import InterpolationMode\n"
        "class Processor(tvF.Base): pass\n"
        "defaults = {'mode': InterpolationMode.BICUBIC}\n"
        "print('imported', Processor.__mro__[-1].__name__)\n"
        "tvF.resize(None, [2, 2])\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", program],
        env={"PYTHONPATH": str(STAND_INS), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.stdout == "imported object\n"
    assert "RuntimeError: torchvision stand-in: torchvision.transforms.v2.functional.resize" in (
        completed.stderr
    )


def test_every_case_names_files_that_exist() -> None:
    for case in CASES:
        assert (ROOT / case.draft).is_file(), case.draft
        assert (ROOT / case.target).is_file(), case.target
        assert case.modes


# --- the cached environment ----------------------------------------------------------------


def test_the_requirements_pin_every_package_to_one_version() -> None:
    lines = environment.REQUIREMENTS.read_text(encoding="utf-8").split()
    assert all("==" in line for line in lines)
    names = {line.split("==")[0].lower() for line in lines}
    assert {"vllm", "transformers", "xgrammar", "compressed-tensors"} <= names
    # torch comes first, on its own: the CPU build, never the CUDA one vLLM asks for.
    assert "torch" not in names
    assert "vllm==0.33.0" in lines
