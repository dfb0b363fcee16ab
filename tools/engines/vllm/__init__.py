"""vLLM's maintainers' tools: ``tables.py`` (its data files, from its wheel),
``functions.py`` (its functions the differential tests run) and ``harness/`` (the released
vLLM run on a draft, one requirements file per release); :data:`TOOLS` is its row."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from tools.engines import ConfigStage, EngineTools
from tools.engines.vllm import tables
from tools.engines.vllm.harness import environment, serve_readings

__all__ = ["TOOLS"]

_ROOT: Final = Path(__file__).resolve().parents[3]
"""The repository's root, where the harness's readings command runs."""


def _pinned(release: str) -> str | None:
    return f"vllm=={release}" if environment.requirements_file(release).is_file() else None


def _record(release: str, timeout: float, only: Sequence[str] | None) -> None:
    """``python -m tools.engines.vllm.harness.readings --release RELEASE``, in a process of
    its own: the harness lists its releases from the requirements files when imported, and
    the release's file may have just been written."""
    command = [sys.executable, "-m", "tools.engines.vllm.harness.readings", "--release", release]
    command += ["--timeout", str(timeout), *(["--only", *only] if only else [])]
    subprocess.run(command, check=True, cwd=_ROOT)


TOOLS: Final = EngineTools(
    engine="vllm",
    distribution="vllm",
    documents=tables.documents,
    requirements=environment.requirements_file,
    choices=environment.REQUIREMENTS_DIR.parent / "pins.in",
    pinned=_pinned,
    record=_record,
    config_stage=ConfigStage(
        releases=serve_readings.releases,
        server=serve_readings.server,
        printed_names=serve_readings.printed_names,
        artefact=serve_readings.artefact,
    ),
)
"""vLLM's row."""
