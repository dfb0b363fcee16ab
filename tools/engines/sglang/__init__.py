"""SGLang's maintainers' tools: ``tables.py`` (its data files, from its wheel),
``functions.py`` (its functions the differential tests run) and ``harness/`` (the released
SGLang run on a draft; one requirements file, one release); :data:`TOOLS` is its row."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from tools.engines import ConfigStage, EngineTools
from tools.engines.sglang import tables
from tools.engines.sglang.harness import environment, serve_readings

__all__ = ["TOOLS"]

_ROOT: Final = Path(__file__).resolve().parents[3]
"""The repository's root, where the harness's readings command runs."""


def _pinned(release: str) -> str | None:
    return f"sglang=={release}" if release == environment.release() else None


def _requirements(release: str) -> Path:
    return environment.REQUIREMENTS


def _record(release: str, timeout: float, only: Sequence[str] | None) -> None:
    """``python -m tools.engines.sglang.harness.readings``, in a process of its own; the
    harness runs the one release its requirements pin."""
    if release != environment.release():
        raise ValueError(
            f"release: the SGLang harness runs {environment.release()} only "
            f"(the sglang pin of {environment.REQUIREMENTS.name}), not {release}"
        )
    command = [sys.executable, "-m", "tools.engines.sglang.harness.readings"]
    command += ["--timeout", str(timeout), *(["--only", *only] if only else [])]
    subprocess.run(command, check=True, cwd=_ROOT)


TOOLS: Final = EngineTools(
    engine="sglang",
    distribution="sglang",
    documents=tables.documents,
    requirements=_requirements,
    choices=environment.REQUIREMENTS.parent / "pins.in",
    pinned=_pinned,
    record=_record,
    config_stage=ConfigStage(
        releases=serve_readings.releases,
        server=serve_readings.server,
        printed_names=serve_readings.printed_names,
        artefact=serve_readings.artefact,
    ),
)
"""SGLang's row."""
