"""The harness's virtual environments: one per vLLM release, installed without its
dependencies beside CPU torch.

vLLM's own pins clash with the project's development environment (it asks for a CUDA
torch 2.14 and an older transformers), so the engine runs in a virtual environment of its
own, one per release the harness runs (:data:`RELEASES`: one requirements file each,
``requirements/VERSION.txt``), built once and cached:

1. ``python -m venv``, then ``pip install torch==2.13.0`` first: the CPU build this
   project is tested with. vLLM is never installed *with* its dependencies, which would
   pull the CUDA stack.
2. ``pip install --no-deps -r requirements/VERSION.txt``: ``vllm==VERSION``, ``xgrammar``,
   ``apache-tvm-ffi``, ``compressed-tensors`` and the pure-Python packages vLLM's imports
   reach (transformers 5.20.2, huggingface_hub, fastapi, openai, ...), each pinned to the
   exact version the readings were taken with. ``--no-deps`` makes the file the whole
   closure: nothing else is resolved. The vLLM wheel itself comes from the wheel cache
   the engine-wheel tests fill (``tools/wheels.py``: ``fetch_wheel``), downloaded
   there first if it is not, so the release's wheel (336 MB for 0.33.0, 239 MB for 0.34.0)
   is downloaded once for both.

Each environment lives in ``$DRAFTING_CONFIG_HARNESS_CACHE``, else
``~/.cache/drafting-config/vllm-harness``, in a folder named after a hash of what it is
built from (the torch spec, the requirements file's bytes and the Python version), so
changing a pin builds a new one and each release has its own. A folder is complete once
its ``complete`` marker is written; a half-built one (an interrupted build) is removed and
built again. Two processes building at once take turns on a lock file. A first build
takes two to five minutes here (about a minute when the wheel is cached).

``ensure_environment(release)`` returns the environment's ``python``, building it if
needed, and raises :class:`HarnessUnavailable` with pip's reason when the packages cannot
be fetched. The key and the build are ``tools/harness/environment.py``'s, shared by
both harnesses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from tools.harness import environment as _shared
from tools.harness.environment import HarnessUnavailable
from tools.wheels import fetch_wheel

__all__ = [
    "RELEASES",
    "REQUIREMENTS_DIR",
    "HarnessUnavailable",
    "cache_root",
    "ensure_environment",
    "environment_dir",
    "environment_key",
    "requirements",
    "requirements_file",
]

REQUIREMENTS_DIR: Final = Path(__file__).with_name("requirements")
"""One file per release, ``VERSION.txt``: every other package of its environment, pinned,
installed with ``--no-deps``."""


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


RELEASES: Final = tuple(
    sorted((path.stem for path in REQUIREMENTS_DIR.glob("*.txt")), key=_version_key)
)
"""The vLLM releases the harness runs (one requirements file each), oldest first."""

_DEFAULT_CACHE: Final = Path("~/.cache/drafting-config/vllm-harness")


def requirements_file(release: str) -> Path:
    """Where ``release``'s pinned requirements live (``requirements/VERSION.txt``), whether
    or not the harness runs it yet (``python -m tools.refresh`` writes it)."""
    return REQUIREMENTS_DIR / f"{release}.txt"


def requirements(release: str) -> Path:
    """The pinned requirements of ``release``'s environment; ``ValueError`` for a release
    the harness has no requirements for."""
    if release not in RELEASES:
        raise ValueError(
            f"release: the vLLM harness has no environment for {release!r} "
            f"(it runs {', '.join(RELEASES)}: {REQUIREMENTS_DIR.name}/VERSION.txt)"
        )
    return requirements_file(release)


def cache_root() -> Path:
    """``$DRAFTING_CONFIG_HARNESS_CACHE``, else ``~/.cache/drafting-config/vllm-harness``."""
    return _shared.cache_root(_DEFAULT_CACHE)


def environment_key(release: str) -> str:
    """A hash of everything ``release``'s environment is built from (16 hex digits)."""
    return _shared.environment_key(requirements(release))


def environment_dir(release: str) -> Path:
    """The folder of ``release``'s environment for today's pins (it may not exist yet)."""
    return cache_root() / f"venv-{environment_key(release)}"


def _cached_wheel(release: str) -> list[Path]:
    """The release's vLLM wheel and its pinned transformers wheel from the wheel cache
    (fetched there if need be); one that cannot be had is left to pip, which downloads it
    from its pin instead."""
    return _shared.cached_wheels(requirements(release), ("vllm", "transformers"), fetch_wheel)


def ensure_environment(release: str) -> Path:
    """The ``python`` of ``release``'s environment, built first if it is not cached."""
    return _shared.ensure_environment(
        environment_dir(release), requirements(release), wheels=lambda: _cached_wheel(release)
    )
