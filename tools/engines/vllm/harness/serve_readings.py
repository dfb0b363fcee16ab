"""vLLM's share of ``python -m tools.serve_readings``: which releases the harness has an
environment for, how to start a release's config-stage server (``config_stage.py --serve``:
vLLM's own ``vllm serve`` parser, ``EngineArgs.create_engine_config``), how to read the draft
and target out of a printed ``vllm serve`` command, and which failures are artefacts of this
machine. :data:`tools.engines.vllm.TOOLS` gives them as its ``config_stage``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["artefact", "printed_names", "releases", "server"]


def releases() -> tuple[str, ...]:
    """The releases the harness has an environment for (a requirements file each), oldest
    first."""
    from tools.engines.vllm.harness.environment import RELEASES

    return tuple(RELEASES)


def server(release: str) -> tuple[list[str], Callable[[Path], dict[str, str]], str]:
    """The command of ``release``'s config-stage server, the environment it runs in (given
    its scratch folder) and the scratch folder's prefix; builds the release's environment
    first if it is not cached."""
    from tools.engines.vllm.harness import harness
    from tools.engines.vllm.harness.environment import ensure_environment

    python = ensure_environment(release)
    stage = Path(harness.__file__).with_name("config_stage.py")
    return (
        [str(python), str(stage), "--serve"],
        lambda folder: harness._environment(folder, python, release),
        "vllm-config-stage-",
    )


def printed_names(argv: list[str]) -> tuple[str, str]:
    """The draft (the ``model`` of ``--speculative-config``'s JSON) and the target (``vllm
    serve TARGET``) a printed command names."""
    option = argv.index("--speculative-config")
    return str(json.loads(argv[option + 1])["model"]), argv[2]


def artefact(result: dict[str, Any]) -> str | None:
    """Why a failed config stage is an artefact of this machine, not a refusal of the
    command: the harness's own :func:`tools.engines.vllm.harness.readings.artefact`."""
    from tools.engines.vllm.harness.readings import artefact as harness_artefact

    return harness_artefact(result)
