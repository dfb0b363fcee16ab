"""A harness's virtual environment: CPU torch first, then a pinned file installed ``--no-deps``.

An engine's own pins clash with the project's development environment (a CUDA torch, an
older or newer transformers), so each harness runs its engine in a virtual environment of
its own, built once and cached:

1. ``python -m venv``, then ``pip install torch==2.13.0`` first: the CPU build this project
   is tested with. The engine is never installed *with* its dependencies, which would pull
   the CUDA stack.
2. ``pip install --no-deps -r requirements.txt``: the engine and every package its imports
   reach, each pinned. ``--no-deps`` makes the file the whole closure.

The environment lives in a folder named after a hash of what it is built from (the torch
spec, the requirements file's bytes and the Python version), so changing a pin builds a new
one. A folder is complete once its ``complete`` marker is written; a half-built one (an
interrupted build) is removed and built again. Two processes building at once take turns on
a lock file.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

from tools.wheels import Wheel, WheelSpec, WheelUnavailable, locked

__all__ = [
    "CACHE_ENV",
    "TORCH_SPEC",
    "HarnessUnavailable",
    "cache_root",
    "cached_wheels",
    "ensure_environment",
    "environment_key",
    "pinned_version",
]

CACHE_ENV: Final = "DRAFTING_CONFIG_HARNESS_CACHE"
"""Environment variable naming the folder the harnesses' environments are cached in."""

TORCH_SPEC: Final = "torch==2.13.0"
"""Installed first, with its dependencies: the CPU build (see the project's README)."""

_COMPLETE: Final = "complete"


class HarnessUnavailable(RuntimeError):
    """The harness's environment could not be built (no package index, a failed install)."""


def cache_root(default: Path, *, subfolder: str | None = None) -> Path:
    """``$DRAFTING_CONFIG_HARNESS_CACHE`` (joined with ``subfolder`` if given), else
    ``default`` with ``~`` expanded."""
    configured = os.environ.get(CACHE_ENV)
    if not configured:
        return default.expanduser()
    root = Path(configured).expanduser()
    return root / subfolder if subfolder is not None else root


def environment_key(requirements: Path) -> str:
    """A hash of everything the environment is built from (16 hex digits): the torch spec,
    ``requirements``' bytes and the Python version, each of the first two followed by a NUL."""
    digest = hashlib.sha256()
    for part in (TORCH_SPEC.encode(), requirements.read_bytes()):
        digest.update(part)
        digest.update(b"\0")
    digest.update(f"{sys.version_info.major}.{sys.version_info.minor}".encode())
    return digest.hexdigest()[:16]


def _pip(python: Path, *args: str, log: Path) -> None:
    command = [str(python), "-m", "pip", "install", "--disable-pip-version-check", *args]
    with log.open("a", encoding="utf-8") as output:
        output.write(f"$ {' '.join(command)}\n")
        output.flush()
        completed = subprocess.run(command, stdout=output, stderr=subprocess.STDOUT, check=False)
    if completed.returncode != 0:
        tail = log.read_text(encoding="utf-8", errors="replace").splitlines()[-15:]
        raise HarnessUnavailable(
            f"pip install {' '.join(args)} failed (exit {completed.returncode}); "
            f"the end of {log}:\n" + "\n".join(tail)
        )


def ensure_environment(
    folder: Path, requirements: Path, *, wheels: Callable[[], Sequence[Path]] | None = None
) -> Path:
    """The ``python`` of the environment in ``folder``, built from ``requirements`` first if
    it is not complete; :class:`HarnessUnavailable` with pip's reason if it cannot be.

    ``wheels``, called only when the environment is built, gives wheel files already on
    disk (the engine's, from the wheel cache) that pip installs in place of downloading
    the same pinned release again: each must be one of ``requirements``' pins, which pip
    checks (a wheel of another version fails the build)."""
    python = folder / "bin" / "python"
    if (folder / _COMPLETE).is_file() and python.exists():
        return python
    folder.parent.mkdir(parents=True, exist_ok=True)
    with locked(folder.parent / f".{folder.name}.lock"):
        if (folder / _COMPLETE).is_file() and python.exists():
            return python
        if folder.exists():
            shutil.rmtree(folder)
        log = folder.parent / f"{folder.name}.build.log"
        log.write_text("", encoding="utf-8")
        subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
        _pip(python, TORCH_SPEC, log=log)
        local = [str(wheel) for wheel in wheels()] if wheels is not None else []
        _pip(python, "--no-deps", "-r", str(requirements), *local, log=log)
        (folder / _COMPLETE).write_text(environment_key(requirements) + "\n", encoding="utf-8")
    return python


def pinned_version(requirements: Path, distribution: str) -> str | None:
    """The version ``requirements`` pins ``distribution`` to (``NAME==VERSION``), if any."""
    wanted = distribution.replace("_", "-").lower()
    for line in requirements.read_text(encoding="utf-8").splitlines():
        name, _, version = line.partition("==")
        if version and name.strip().replace("_", "-").lower() == wanted:
            return version.strip()
    return None


def cached_wheels(
    requirements: Path, distributions: Sequence[str], fetch: Callable[[WheelSpec], Wheel]
) -> list[Path]:
    """The wheels of ``distributions`` at their pins in ``requirements``, from the wheel cache
    the wheel tests fill (``fetch``: :func:`tools.wheels.fetch_wheel`, downloading there first
    if need be), so that each is downloaded once for the tests and the harnesses alike; one
    that cannot be had is left to pip, which downloads its pin itself."""
    found: list[Path] = []
    for distribution in distributions:
        version = pinned_version(requirements, distribution)
        if version is None:
            continue
        try:
            found.append(fetch(WheelSpec(distribution, version)).path)
        except WheelUnavailable:
            continue
    return found
