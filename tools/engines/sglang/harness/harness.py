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
folders hold only ``config.json``. The scratch folders, the timeouts, the crash reports and the
server's request loop are ``tools/harness/process.py``'s, shared with the vLLM harness;
the command, the request's fields and the environment variables are SGLang's, here.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Final

from tools.engines.sglang.harness.environment import ensure_environment

# The stage runner imports only the standard library at module level (SGLang inside run()).
from tools.engines.sglang.harness.stage_runner import ALGORITHMS, DEVICES, STAGES
from tools.harness import process
from tools.harness.serve import RESULT_PREFIX

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
]

STAGE_RUNNER: Final = Path(__file__).with_name("stage_runner.py")
STAND_INS: Final = Path(__file__).with_name("stand_ins")
DEFAULT_TIMEOUT: Final = 300.0
NICENESS: Final = 10
"""How much lower than the caller's the engine's process runs (``nice -n``)."""
_PREFIX: Final = "sglang-harness-"
"""The scratch folders' prefix (``process.scrub`` writes them ``<scratch>``)."""


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


def _fields(algorithm: str, device: str) -> dict[str, Any]:
    return {"algorithm": algorithm, "device": device}


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

    def command(draft_dir: Path, target_dir: Path) -> list[str]:
        runner = [str(interpreter), str(STAGE_RUNNER), "--draft", str(draft_dir)]
        runner += ["--target", str(target_dir), "--algorithm", algorithm, "--device", device]
        return _niced(runner)

    return process.run_once(
        command,
        _environment,
        draft,
        target,
        prefix=_PREFIX,
        fields=_fields(algorithm, device),
        timeout=timeout,
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

    def checked() -> Iterator[process.Request]:
        for draft, target, algorithm in requests:
            _check(algorithm, device)
            yield draft, target, _fields(algorithm, device)

    yield from process.run_served(
        _niced([str(interpreter), str(STAGE_RUNNER), "--serve"]),
        _environment,
        checked(),
        prefix=_PREFIX,
        timeout=timeout,
    )
