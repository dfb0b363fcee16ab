"""Run a released vLLM's own load path on a (draft, target, mode): the engine as the oracle.

``run(draft, target, mode, release=...)`` copies the two ``config.json`` files into folders
of their own, starts ``stage_runner.py`` in a fresh process of that release's environment
(``environment.ensure_environment(release)``), and returns what it reports: the stages passed,
the stage that failed and the exception's type, first line and vLLM file. Every patch the
stage runner makes to run on a CPU-only machine is listed in its docstring; none of it is
part of ``drafting_config``. A run that takes longer than ``timeout`` seconds is killed and
reported with ``"outcome": "timeout"``; one that dies without reporting (a crash in native
code) with ``"outcome": "crashed"`` and the end of its output.

The process has no network: ``HF_HUB_OFFLINE=1`` and ``TRANSFORMERS_OFFLINE=1``, and both
folders hold only ``config.json``. The scratch folders, the timeouts, the crash reports and the
server's request loop are ``tools/harness/process.py``'s, shared with the SGLang
harness; the command, the request's fields and the environment variables are vLLM's, here.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Final

from tools.engines.vllm.harness.environment import RELEASES, ensure_environment

# The stage runner imports only the standard library at module level (vLLM inside run()).
from tools.engines.vllm.harness.stage_runner import STAGES
from tools.harness import process
from tools.harness.corpus import Mode
from tools.harness.serve import RESULT_PREFIX

__all__ = [
    "DEFAULT_RELEASE",
    "DEFAULT_TIMEOUT",
    "RESULT_PREFIX",
    "STAGES",
    "STAGE_RUNNER",
    "STAND_INS",
    "TRITON_CPU",
    "TRITON_CPU_FROM",
    "run",
    "run_many",
    "stand_ins",
]

STAGE_RUNNER: Final = Path(__file__).with_name("stage_runner.py")
STAND_INS: Final = Path(__file__).with_name("stand_ins")
"""The stand-ins every release's processes see (``torchvision``)."""
TRITON_CPU: Final = STAND_INS / "triton_cpu"
"""The CPU Triton's stand-in (``triton_cpu/triton/__init__.py`` says why)."""
TRITON_CPU_FROM: Final = (0, 34, 0)
"""The first release whose CPU platform refuses x86 without Triton
(``vllm/platforms/cpu.py``: ``CpuPlatform.check_and_update_config``)."""
DEFAULT_RELEASE: Final = RELEASES[-1]
"""The release a run is of unless told: the newest the harness has an environment for."""
DEFAULT_TIMEOUT: Final = 300.0
_PREFIX: Final = "vllm-harness-"
"""The scratch folders' prefix (``process.scrub`` writes them ``<scratch>``)."""


def _command(python: Path, draft: Path, target: Path, mode: Mode) -> list[str]:
    command = [
        str(python),
        str(STAGE_RUNNER),
        "--draft",
        str(draft),
        "--target",
        str(target),
        "--method",
        mode.method,
    ]
    if mode.parallel_drafting:
        command.append("--parallel-drafting")
    return command


def stand_ins(release: str) -> list[Path]:
    """The folders put on ``PYTHONPATH`` for ``release``'s processes, in that order."""
    folders = [STAND_INS]
    if tuple(int(part) for part in release.split(".")) >= TRITON_CPU_FROM:
        folders.insert(0, TRITON_CPU)
    return folders


def _environment(folder: Path, python: Path, release: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        VLLM_TARGET_DEVICE="cpu",
        VLLM_NO_USAGE_STATS="1",
        DO_NOT_TRACK="1",
        # vLLM's model-info cache: what its registry learns by inspecting its own model
        # classes (in a subprocess, 30-60 s each here), keyed on the class file's hash.
        # Kept beside the environment, so each class is inspected once, not once a run.
        VLLM_CACHE_ROOT=str(python.parent.parent / "vllm-cache"),
        HF_HOME=str(folder / "hf-home"),
    )
    # The stand-ins (torchvision; the CPU Triton from 0.34.0: each one's docstring says
    # why), for this process and the registry's inspection subprocesses alike.
    env["PYTHONPATH"] = os.pathsep.join(str(path) for path in stand_ins(release))
    return env


def _fields(mode: Mode) -> dict[str, Any]:
    return {"method": mode.method, "parallel_drafting": mode.parallel_drafting}


def run(
    draft: Path,
    target: Path,
    mode: Mode,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    python: Path | None = None,
    release: str = DEFAULT_RELEASE,
) -> dict[str, Any]:
    """The stage runner's report for ``draft`` and ``target`` (``config.json`` files), run
    by ``release`` (``python``: its environment's interpreter, built if not given)."""
    interpreter = python if python is not None else ensure_environment(release)
    return process.run_once(
        lambda draft_dir, target_dir: _command(interpreter, draft_dir, target_dir, mode),
        lambda folder: _environment(folder, interpreter, release),
        draft,
        target,
        prefix=_PREFIX,
        fields=_fields(mode),
        timeout=timeout,
    )


def run_many(
    requests: Iterable[tuple[Path, Path, Mode]],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    python: Path | None = None,
    release: str = DEFAULT_RELEASE,
) -> Iterator[dict[str, Any]]:
    """:func:`run` for many (draft, target, mode) requests, yielding each report in turn.

    One ``stage_runner.py --serve`` process imports vLLM once and forks a child per
    request (see ``serve`` there): each run still starts from a process vLLM has never
    configured, without 25-60 s of imports each time. The live tests use :func:`run`, a
    process of its own per run, and so check that the two agree.
    """
    interpreter = python if python is not None else ensure_environment(release)
    yield from process.run_served(
        [str(interpreter), str(STAGE_RUNNER), "--serve"],
        lambda folder: _environment(folder, interpreter, release),
        ((draft, target, _fields(mode)) for draft, target, mode in requests),
        prefix=_PREFIX,
        timeout=timeout,
    )
