"""SGLang's share of ``python -m tools.serve_readings``: which release the harness has an
environment for, how to start its config-stage server (``config_stage.py --serve``: SGLang's
``prepare_server_args`` and the scheduler's resolution), how to read the draft and target out
of a printed ``sglang serve`` command, and which failures are artefacts of this machine.
:data:`tools.engines.sglang.TOOLS` gives them as its ``config_stage``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from drafting_config.engines.sglang.serving import DRAFT_OPTION, MODEL_OPTION

__all__ = ["artefact", "printed_names", "releases", "server"]

_CPU_PLATFORM: Final = ("requires platform support",)
"""What SGLang's resolution asserts of its platform, which the CPU platform the harness runs
fails and a GPU passes: ``srt/arg_groups/mamba_hook.py: validate_mamba_extra_buffer``
(``_platform_supports_mamba_cache_extra_buffer``: CUDA, MUSA, NPU, HIP, XPU) for a hybrid
Mamba target (Qwen3.5)."""


def releases() -> tuple[str, ...]:
    """The one release the harness has an environment for: its requirements' ``sglang`` pin
    (:func:`tools.engines.sglang.harness.environment.release`)."""
    from tools.engines.sglang.harness.environment import release

    return (release(),)


def server(release: str) -> tuple[list[str], Callable[[Path], dict[str, str]], str]:
    """The command of the config-stage server (niced), the environment it runs in (given its
    scratch folder) and the scratch folder's prefix; builds the environment first if it is not
    cached. ``release`` is the harness's one release (:func:`releases`)."""
    from tools.engines.sglang.harness import harness
    from tools.engines.sglang.harness.environment import ensure_environment

    python = ensure_environment()
    stage = Path(harness.__file__).with_name("config_stage.py")
    return (
        harness._niced([str(python), str(stage), "--serve"]),
        harness._environment,
        "sglang-config-stage-",
    )


def printed_names(argv: list[str]) -> tuple[str, str]:
    """The draft (:data:`DRAFT_OPTION`) and the target (:data:`MODEL_OPTION`) a printed
    command names."""
    return argv[argv.index(DRAFT_OPTION) + 1], argv[argv.index(MODEL_OPTION) + 1]


def artefact(result: dict[str, Any]) -> str | None:
    """Why a failed config stage is an artefact of this machine, not a refusal of the
    command: SGLang's platform assertions (:data:`_CPU_PLATFORM`), then the harness's own
    :func:`tools.engines.sglang.harness.readings.artefact`. ``None`` for a refusal."""
    from tools.engines.sglang.harness.readings import artefact as harness_artefact

    message = str((result.get("exception") or {}).get("message", ""))
    if any(part in message for part in _CPU_PLATFORM):
        return "a platform check only SGLang's CPU platform fails (a GPU platform passes it)"
    return harness_artefact(result)
