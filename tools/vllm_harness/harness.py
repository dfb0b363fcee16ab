"""Run vLLM 0.33.0's own load path on a (draft, target, mode): the engine as the oracle.

``run(draft, target, mode)`` copies the two ``config.json`` files into folders of their
own, starts ``stage_runner.py`` in a fresh process of the harness's environment
(``environment.ensure_environment()``), and returns what it reports: the stages passed,
the stage that failed and the exception's type, first line and vLLM file. Every patch the
stage runner makes to run on a CPU-only machine is listed in its docstring; none of it is
part of ``drafting_config``. A run that takes longer than ``timeout`` seconds is killed and
reported with ``"outcome": "timeout"``; one that dies without reporting (a crash in native
code) with ``"outcome": "crashed"`` and the end of its output.

The process has no network: ``HF_HUB_OFFLINE=1`` and ``TRANSFORMERS_OFFLINE=1``, and both
folders hold only ``config.json``. The scratch folders, the timeouts, the crash reports and the
server's request loop are ``tools/harness_common/process.py``'s, shared with the SGLang
harness; the command, the request's fields and the environment variables are vLLM's, here.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Final

from tools.harness_common import process
from tools.harness_common.serve import RESULT_PREFIX
from tools.vllm_harness.corpus import Mode
from tools.vllm_harness.environment import ensure_environment

# The stage runner imports only the standard library at module level (vLLM inside run()).
from tools.vllm_harness.stage_runner import STAGES

__all__ = [
    "DEFAULT_TIMEOUT",
    "RESULT_PREFIX",
    "STAGES",
    "STAGE_RUNNER",
    "run",
    "run_many",
]

STAGE_RUNNER: Final = Path(__file__).with_name("stage_runner.py")
STAND_INS: Final = Path(__file__).with_name("stand_ins")
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


def _environment(folder: Path, python: Path) -> dict[str, str]:
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
    # The torchvision stand-in (stand_ins/torchvision/__init__.py says why), for this
    # process and the registry's inspection subprocesses alike.
    env["PYTHONPATH"] = str(STAND_INS)
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
) -> dict[str, Any]:
    """The stage runner's report for ``draft`` and ``target`` (``config.json`` files)."""
    interpreter = python if python is not None else ensure_environment()
    return process.run_once(
        lambda draft_dir, target_dir: _command(interpreter, draft_dir, target_dir, mode),
        lambda folder: _environment(folder, interpreter),
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
) -> Iterator[dict[str, Any]]:
    """:func:`run` for many (draft, target, mode) requests, yielding each report in turn.

    One ``stage_runner.py --serve`` process imports vLLM once and forks a child per
    request (see ``serve`` there): each run still starts from a process vLLM has never
    configured, without 25-60 s of imports each time. The live tests use :func:`run`, a
    process of its own per run, and so check that the two agree.
    """
    interpreter = python if python is not None else ensure_environment()
    yield from process.run_served(
        [str(interpreter), str(STAGE_RUNNER), "--serve"],
        lambda folder: _environment(folder, interpreter),
        ((draft, target, _fields(mode)) for draft, target, mode in requests),
        prefix=_PREFIX,
        timeout=timeout,
    )
