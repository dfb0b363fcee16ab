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
folders hold only ``config.json``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Final

from tools.vllm_harness.corpus import Mode
from tools.vllm_harness.environment import ensure_environment

# The stage runner imports only the standard library at module level (vLLM inside run()).
from tools.vllm_harness.stage_runner import RESULT_PREFIX, STAGES

__all__ = [
    "DEFAULT_TIMEOUT",
    "RESULT_PREFIX",
    "STAGES",
    "STAGE_RUNNER",
    "run",
    "run_many",
    "scrub",
]

STAGE_RUNNER: Final = Path(__file__).with_name("stage_runner.py")
STAND_INS: Final = Path(__file__).with_name("stand_ins")
DEFAULT_TIMEOUT: Final = 300.0
_SCRATCH: Final = re.compile(r"[^\s'\"]*/vllm-harness-[A-Za-z0-9_]+(?:/run-[0-9]+)?")


def scrub(result: dict[str, Any]) -> dict[str, Any]:
    """``result`` with the run's scratch folder written ``<scratch>`` in its messages, so
    two runs of one case report the same text."""
    exception = result.get("exception")
    if isinstance(exception, dict):
        result["exception"] = {
            key: _SCRATCH.sub("<scratch>", value) if isinstance(value, str) else value
            for key, value in exception.items()
        }
    return result


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


def _lay_out(folder: Path, draft: Path, target: Path) -> tuple[Path, Path]:
    draft_dir, target_dir = folder / "draft", folder / "target"
    for source, destination in ((draft, draft_dir), (target, target_dir)):
        destination.mkdir(parents=True)
        shutil.copyfile(source, destination / "config.json")
    return draft_dir, target_dir


def _failure(outcome: str, mode: Mode, detail: str) -> dict[str, Any]:
    return {
        "outcome": outcome,
        "method": mode.method,
        "parallel_drafting": mode.parallel_drafting,
        "stages_passed": [],
        "failed_stage": None,
        "exception": {"type": outcome, "message": detail, "where": ""},
    }


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
    with tempfile.TemporaryDirectory(prefix="vllm-harness-") as scratch:
        folder = Path(scratch)
        draft_dir, target_dir = _lay_out(folder, draft, target)
        try:
            completed = subprocess.run(
                _command(interpreter, draft_dir, target_dir, mode),
                cwd=folder,
                env=_environment(folder, interpreter),
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return _failure("timeout", mode, f"no report within {timeout:g} s")
    for line in reversed(completed.stdout.splitlines()):
        if line.startswith(RESULT_PREFIX):
            result: dict[str, Any] = json.loads(line.removeprefix(RESULT_PREFIX))
            return scrub(result)
    tail = (completed.stdout + completed.stderr).strip().splitlines()[-5:]
    return _failure("crashed", mode, f"exit {completed.returncode}: " + " | ".join(tail))


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
    with tempfile.TemporaryDirectory(prefix="vllm-harness-") as scratch:
        folder = Path(scratch)
        log = (folder / "serve.log").open("w", encoding="utf-8")
        server = subprocess.Popen(
            [str(interpreter), str(STAGE_RUNNER), "--serve"],
            cwd=folder,
            env=_environment(folder, interpreter),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
        )
        assert server.stdin is not None
        assert server.stdout is not None
        try:
            for index, (draft, target, mode) in enumerate(requests):
                draft_dir, target_dir = _lay_out(folder / f"run-{index}", draft, target)
                request = {
                    "draft": str(draft_dir),
                    "target": str(target_dir),
                    "method": mode.method,
                    "parallel_drafting": mode.parallel_drafting,
                    "timeout": timeout,
                }
                try:
                    server.stdin.write(json.dumps(request) + "\n")
                    server.stdin.flush()
                except BrokenPipeError:
                    yield _failure("crashed", mode, "the harness's server stopped")
                    return
                for line in server.stdout:
                    if line.startswith(RESULT_PREFIX):
                        yield scrub(json.loads(line.removeprefix(RESULT_PREFIX)))
                        break
                else:
                    yield _failure("crashed", mode, "the harness's server stopped")
                    return
        finally:
            with contextlib.suppress(BrokenPipeError):
                server.stdin.close()
            server.wait()
            server.stdout.close()
            log.close()
