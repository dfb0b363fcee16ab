"""Run SGLang 0.5.23's own load path on a (draft, target, algorithm): the engine as the oracle.

``run(draft, target, algorithm)`` copies the two ``config.json`` files into folders of their
own, starts ``stage_runner.py`` in a fresh process of the harness's environment
(``environment.ensure_environment()``) under ``nice -n 10`` (the runs are
CPU-heavy on a shared machine), and returns what it reports: the stages passed, the stage
that failed and the exception's type, first line and SGLang file. Every stand-in and setting
the stage runner needs on a CPU-only machine is listed in its docstring; none of it is part
of ``drafting_config``. A run that takes longer than ``timeout`` seconds is killed and
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

from tools.sglang_harness.environment import ensure_environment

# The stage runner imports only the standard library at module level (SGLang inside run()).
from tools.sglang_harness.stage_runner import ALGORITHMS, DEVICES, RESULT_PREFIX, STAGES

__all__ = [
    "ALGORITHMS",
    "DEFAULT_TIMEOUT",
    "DEVICES",
    "NICENESS",
    "RESULT_PREFIX",
    "STAGES",
    "STAGE_RUNNER",
    "STAND_INS",
    "run",
    "run_many",
    "scrub",
]

STAGE_RUNNER: Final = Path(__file__).with_name("stage_runner.py")
STAND_INS: Final = Path(__file__).with_name("stand_ins")
DEFAULT_TIMEOUT: Final = 300.0
NICENESS: Final = 10
"""How much lower than the caller's the engine's process runs (``nice -n``)."""
_SCRATCH: Final = re.compile(r"[^\s'\"]*/sglang-harness-[A-Za-z0-9_]+(?:/run-[0-9]+)?")


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


def _environment(folder: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        DO_NOT_TRACK="1",
        # SGLang's CPU platform for the module-level kernel choices of its model files
        # (native torch where a CUDA kernel would run); the server arguments still say
        # device "cuda" (stage_runner.py says why).
        SGLANG_USE_CPU_ENGINE="1",
        HF_HOME=str(folder / "hf-home"),
        # The torchvision and sgl_kernel stand-ins (stage_runner.py says why).
        PYTHONPATH=str(STAND_INS),
    )
    return env


def _niced(command: list[str]) -> list[str]:
    return ["nice", "-n", str(NICENESS), *command]


def _check(algorithm: str, device: str) -> None:
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm {algorithm!r} is not one of {', '.join(ALGORITHMS)}")
    if device not in DEVICES:
        raise ValueError(f"device {device!r} is not one of {', '.join(DEVICES)}")


def _lay_out(folder: Path, draft: Path, target: Path) -> tuple[str, str]:
    folders = []
    for source, name in ((draft, "draft"), (target, "target")):
        (folder / name).mkdir(parents=True)
        shutil.copyfile(source, folder / name / "config.json")
        folders.append(str(folder / name))
    return folders[0], folders[1]


def _failure(outcome: str, algorithm: str, device: str, detail: str) -> dict[str, Any]:
    return {
        "outcome": outcome,
        "algorithm": algorithm,
        "device": device,
        "stages_passed": [],
        "failed_stage": None,
        "exception": {"type": outcome, "message": detail, "where": ""},
    }


def run(
    draft: Path,
    target: Path,
    algorithm: str,
    *,
    device: str = "cuda",
    timeout: float = DEFAULT_TIMEOUT,
    python: Path | None = None,
) -> dict[str, Any]:
    """The stage runner's report for ``draft`` and ``target`` (``config.json`` files) under
    ``--speculative-algorithm ALGORITHM`` and ``device``."""
    _check(algorithm, device)
    interpreter = python if python is not None else ensure_environment()
    with tempfile.TemporaryDirectory(prefix="sglang-harness-") as scratch:
        folder = Path(scratch)
        draft_dir, target_dir = _lay_out(folder, draft, target)
        command = _niced([str(interpreter), str(STAGE_RUNNER), "--draft", draft_dir])
        command += ["--target", target_dir, "--algorithm", algorithm, "--device", device]
        try:
            completed = subprocess.run(
                command,
                cwd=folder,
                env=_environment(folder),
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return _failure("timeout", algorithm, device, f"no report within {timeout:g} s")
    for line in reversed(completed.stdout.splitlines()):
        if line.startswith(RESULT_PREFIX):
            result: dict[str, Any] = json.loads(line.removeprefix(RESULT_PREFIX))
            return scrub(result)
    tail = (completed.stdout + completed.stderr).strip().splitlines()[-5:]
    return _failure(
        "crashed", algorithm, device, f"exit {completed.returncode}: " + " | ".join(tail)
    )


def run_many(
    requests: Iterable[tuple[Path, Path, str]],
    *,
    device: str = "cuda",
    timeout: float = DEFAULT_TIMEOUT,
    python: Path | None = None,
) -> Iterator[dict[str, Any]]:
    """:func:`run` for many (draft, target, algorithm) requests, yielding each report in turn.

    One ``stage_runner.py --serve`` process imports SGLang once and forks a child per
    request (see ``serve`` there): each run still starts from a process SGLang has never
    configured, without a minute or more of imports each time.
    """
    interpreter = python if python is not None else ensure_environment()
    with tempfile.TemporaryDirectory(prefix="sglang-harness-") as scratch:
        folder = Path(scratch)
        log = (folder / "serve.log").open("w", encoding="utf-8")
        server = subprocess.Popen(
            _niced([str(interpreter), str(STAGE_RUNNER), "--serve"]),
            cwd=folder,
            env=_environment(folder),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
        )
        assert server.stdin is not None
        assert server.stdout is not None
        try:
            for index, (draft, target, algorithm) in enumerate(requests):
                _check(algorithm, device)
                draft_dir, target_dir = _lay_out(folder / f"run-{index}", draft, target)
                request = {
                    "draft": draft_dir,
                    "target": target_dir,
                    "algorithm": algorithm,
                    "device": device,
                    "timeout": timeout,
                }
                try:
                    server.stdin.write(json.dumps(request) + "\n")
                    server.stdin.flush()
                except BrokenPipeError:
                    yield _failure("crashed", algorithm, device, "the harness's server stopped")
                    return
                for line in server.stdout:
                    if line.startswith(RESULT_PREFIX):
                        yield scrub(json.loads(line.removeprefix(RESULT_PREFIX)))
                        break
                else:
                    yield _failure("crashed", algorithm, device, "the harness's server stopped")
                    return
        finally:
            with contextlib.suppress(BrokenPipeError):
                server.stdin.close()
            server.wait()
            server.stdout.close()
            log.close()
