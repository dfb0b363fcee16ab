"""The vLLM harness's own part of the plumbing (``tools/engines/vllm/harness``), without vLLM or a
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
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tools.conftest import FakePython
from tools.engines.vllm.harness import environment, readings
from tools.engines.vllm.harness.harness import (
    DEFAULT_RELEASE,
    RESULT_PREFIX,
    STAND_INS,
    TRITON_CPU,
    run,
    run_many,
    stand_ins,
)
from tools.engines.vllm.harness.readings import ROOT, artefact, live_sample, stage_reached
from tools.engines.vllm.harness.stage_runner import ONE_RUNNER_FROM, release_of
from tools.harness import environment as shared_environment
from tools.harness.corpus import CASES, Mode
from tools.wheels import WheelUnavailable

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
        (
            {"type": "RuntimeError", "message": "triton stand-in: kernel _fused was launched"},
            "Triton",
        ),
        (
            {"type": "AttributeError", "message": "'_OpNamespace' '_C' object has no attribute"},
            "vllm._C",
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


def _live(stage: str, outcome: str, name: str) -> dict[str, object]:
    mode = {"method": "dflash", "parallel_drafting": False}
    reached = {"stage_reached": stage, "outcome": outcome}
    return {"draft": name, "mode": mode, "target_synthesized": False, **reached}


def test_a_newer_releases_live_sample_takes_what_it_changed_and_a_passing_run() -> None:
    older = [
        _live("combine", "passed", "a"),
        _live("config", "failed", "b"),
        _live("draft", "failed", "d"),
    ]
    newer = [
        _live("combine", "passed", "a"),  # passes every stage: sampled, as before or not
        _live("config", "passed", "b"),  # changed: sampled
        _live("config", "failed", "c"),  # no earlier reading: sampled
        _live("draft", "failed", "d"),  # as before: the older release's sample has its pair
    ]
    assert [run_["draft"] for run_ in live_sample(newer, earlier=older)] == ["a", "b", "c"]
    assert len(live_sample(newer)) == 4  # without `earlier`: one per pair, as for the oldest


def test_every_case_names_files_that_exist() -> None:
    for case in CASES:
        assert (ROOT / case.draft).is_file(), case.draft
        assert (ROOT / case.target).is_file(), case.target
        assert case.modes


# --- the cached environments, one per release ----------------------------------------------


@pytest.mark.parametrize("release", environment.RELEASES)
def test_each_releases_requirements_pin_every_package_to_one_version(release: str) -> None:
    lines = environment.requirements(release).read_text(encoding="utf-8").split()
    assert all("==" in line for line in lines)
    names = {line.split("==")[0].lower() for line in lines}
    assert {"vllm", "transformers", "xgrammar", "compressed-tensors"} <= names
    # torch comes first, on its own: the CPU build, never the CUDA one vLLM asks for.
    assert "torch" not in names
    assert f"vllm=={release}" in lines


def test_the_releases_are_the_requirements_files_oldest_first() -> None:
    files = {path.stem for path in environment.REQUIREMENTS_DIR.iterdir()}
    assert set(environment.RELEASES) == files
    assert len(environment.RELEASES) >= 2
    assert list(environment.RELEASES) == sorted(files, key=release_of)
    assert environment.RELEASES[-1] == DEFAULT_RELEASE


def test_each_release_is_keyed_on_its_own_requirements(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    keys = {release: environment.environment_key(release) for release in environment.RELEASES}
    for release, key in keys.items():
        assert key == shared_environment.environment_key(environment.requirements(release))
    assert len(set(keys.values())) == len(keys)
    for release in environment.RELEASES:
        (tmp_path / f"{release}.txt").write_bytes(
            environment.requirements(release).read_bytes() + b"extra==1.0\n"
        )
    monkeypatch.setattr(environment, "REQUIREMENTS_DIR", tmp_path)
    assert all(environment.environment_key(r) != k for r, k in keys.items())


def test_a_release_the_harness_has_no_environment_for_is_refused_by_name() -> None:
    runs = ", ".join(environment.RELEASES)
    with pytest.raises(ValueError, match=re.escape(f"for '0.1.0' (it runs {runs}:")):
        environment.requirements("0.1.0")


def test_the_engines_wheel_comes_from_the_wheel_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    built: list[tuple[Path, Path, list[Path]]] = []

    def ensure(folder: Path, requirements: Path, *, wheels: object) -> Path:
        assert callable(wheels)
        built.append((folder, requirements, list(wheels())))
        return folder / "bin" / "python"

    wheel = tmp_path / "vllm-0.34.0-cp38-abi3-manylinux_2_28_x86_64.whl"
    fetched: list[str] = []

    def fetch(spec: object) -> object:
        fetched.append(getattr(spec, "requirement", ""))
        return type("Wheel", (), {"path": wheel})()

    monkeypatch.setattr(shared_environment, "ensure_environment", ensure)
    monkeypatch.setattr(environment, "fetch_wheel", fetch)
    release = environment.RELEASES[-1]
    environment.ensure_environment(release)
    transformers = _pin(environment.requirements(release), "transformers")
    assert fetched == [f"vllm=={release}", f"transformers=={transformers}"]
    assert built == [
        (environment.environment_dir(release), environment.requirements(release), [wheel] * 2)
    ]


def _pin(requirements: Path, name: str) -> str:
    (line,) = (x for x in requirements.read_text().splitlines() if x.startswith(f"{name}=="))
    return line.partition("==")[2]


def test_without_the_wheel_pip_fetches_the_pin_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    def fetch(spec: object) -> object:
        raise WheelUnavailable("no index")

    monkeypatch.setattr(environment, "fetch_wheel", fetch)
    assert environment._cached_wheel(environment.RELEASES[0]) == []


# --- per release: the stand-ins and the stage runner's reads ---------------------------------


def test_the_cpu_triton_stand_in_is_on_the_path_from_the_release_that_requires_it() -> None:
    for release in environment.RELEASES:
        needs = release_of(release) >= (0, 34, 0)
        assert stand_ins(release) == ([TRITON_CPU] if needs else []) + [STAND_INS]


def test_each_release_runs_with_its_own_environment_and_stand_ins(
    tmp_path: Path, configs: tuple[Path, Path], fake_python: FakePython
) -> None:
    draft, target = configs
    fake = fake_python(f"echo \"$PYTHONPATH\" > {tmp_path}/path.txt\necho '{RESULT_PREFIX}{{}}'\n")
    for release in environment.RELEASES:
        run(draft, target, DFLASH, python=fake, release=release)
        seen = (tmp_path / "path.txt").read_text(encoding="utf-8").strip()
        assert seen.split(os.pathsep) == [str(path) for path in stand_ins(release)]


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("0.33.0", (0, 33, 0)),
        ("0.34.0", (0, 34, 0)),
        ("0.34.1rc1+cpu", (0, 34, 1)),
        ("1.0", (1, 0)),
    ],
)
def test_the_stage_runner_reads_the_release_from_vllms_version(
    version: str, expected: tuple[int, ...]
) -> None:
    assert release_of(version) == expected


def test_one_runner_from_0_34_0_and_two_before() -> None:
    # 0.34.0 deleted VllmConfig.use_v2_model_runner and the older runner: the stage runner
    # reads them only before it.
    assert release_of("0.33.0") < ONE_RUNNER_FROM <= release_of("0.34.0")


_TRITON_PROGRAM = """
import sys
sys.modules["torch"] = None  # torch's own Triton reading: the slow test below
import triton
import triton.language as tl
import triton.language.extra.libdevice as tldevice
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.language.core import _aggregate as aggregate
from triton.backends import backends
active = [name for name, b in backends.items() if name != "cpu" and b.driver.is_active()]
print("active", active)

@triton.jit
def kernel(x_ptr, n: tl.constexpr, other: tl.tensor | tl.tensor_descriptor = None):
    pass

@triton.autotune(configs=[triton.Config({"BLOCK": 8})], key=["n"])
@triton.jit
def tuned(a, b):
    pass

print("args", kernel.arg_names, tl.constexpr(5), triton.cdiv(9, 4))
Autotuner = triton.runtime.autotuner.Autotuner
print("autotuned", isinstance(tuned, Autotuner), isinstance(tuned.fn, Autotuner))
kernel[(1,)](1, 2)
"""


def test_the_cpu_triton_stand_in_gives_vllm_one_active_backend_and_refuses_to_launch() -> None:
    completed = subprocess.run(
        [sys.executable, "-c", _TRITON_PROGRAM],
        env={"PYTHONPATH": str(TRITON_CPU), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.stdout.splitlines() == [
        "active ['stand-in']",  # vllm/triton_utils/importing.py: HAS_TRITON stays true
        "args ['x_ptr', 'n', 'other'] 5 3",
        "autotuned False False",  # jit_warmup_triton_helper._is_autotuned: not autotuned
    ]
    assert "RuntimeError: triton stand-in: kernel kernel was launched" in completed.stderr


@pytest.mark.slow
def test_torch_finds_no_triton_beside_the_cpu_triton_stand_in() -> None:
    # torch's inductor reads Triton once; it must find none, or it fails on the stand-in's
    # placeholders (the harness runs enforce_eager: nothing compiles).
    program = (
        "import triton\n"
        "import torch.utils._triton as t\n"
        "from torch._inductor.runtime import triton_compat\n"
        "print(t.has_triton_package(), triton_compat.HAS_TRITON, triton.runtime.jit.JITFunction)\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", program],
        env={"PYTHONPATH": str(TRITON_CPU), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.stdout == "False False <class 'triton.JITFunction'>\n", completed.stderr


# --- per release: the readings --------------------------------------------------------------


def test_a_reading_records_its_releases_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    case = CASES[0]
    result = {"outcome": "passed", "stages_passed": ["config"], "vllm_version": "0.34.0"}
    for release in environment.RELEASES:
        entry = readings.engine_run_entry(case, case.modes[0], result, release=release)
        assert entry["inputs"]["environment"] == environment.environment_key(release)
        assert entry["stage_reached"] == "config"


def test_the_regeneration_takes_a_release_the_harness_runs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        readings.main(["--release", "0.1.0", "--list"])
    assert "invalid choice: '0.1.0'" in capsys.readouterr().err
