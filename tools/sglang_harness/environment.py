"""The SGLang harness's virtual environment: SGLang 0.5.23 without its dependencies, beside
CPU torch.

SGLang's own requirements ask for a CUDA torch 2.14.1, flashinfer, its CUDA kernel package
(``sglang-kernel``) and about eighty more, so the engine runs in a virtual environment of
its own, built once and cached, as the vLLM harness's is (``tools/vllm_harness/environment.py``):

1. ``python -m venv``, then ``pip install torch==2.13.0`` first: the CPU build this project
   is tested with.
2. ``pip install --no-deps -r requirements.txt``: ``sglang==0.5.23`` and the packages its
   imports reach on the harness's path, each pinned. Where SGLang's wheel pins a package
   (transformers 5.19.0, tokenizers 0.23.2, compressed-tensors 0.18.0, xgrammar 0.2.7,
   sentencepiece 0.2.1) the file takes SGLang's pin; the rest are the versions the vLLM
   harness runs with, plus what SGLang's imports add: ``triton`` (``srt/utils/common.py``
   imports it at module level; it imports without a GPU), ``ipython`` and ``traitlets``
   (``srt/server_args.py``), ``dill`` and ``gguf`` (the model-config and loader modules),
   ``uvicorn`` (without it the registry skips a dozen model files, ``clip``, ``roberta``
   and ``nemotron_h`` among them).
   ``--no-deps`` makes the file the whole closure. Not installed, because no stage needs
   them and they do not load here: ``torchvision`` and ``sgl_kernel`` (stand-ins, see
   ``stage_runner.py``), flashinfer, the CUDA kernels.

The environment lives in ``$DRAFTING_CONFIG_HARNESS_CACHE``, else
``~/.cache/drafting-config/sglang-harness``, in a folder named after a hash of what it is
built from (the torch spec, ``requirements.txt``'s bytes and the Python version), so a
changed pin builds a new one. A folder is complete once its ``complete`` marker is written;
a half-built one is removed and built again; two processes building at once take turns on
a lock file. The first build downloads about 380 MB (triton 286 MB, the SGLang wheel 39 MB)
and takes about 3 CPU-minutes.

``ensure_environment()`` returns the environment's ``python``, building it if needed, and
raises :class:`HarnessUnavailable` with pip's reason when the packages cannot be fetched.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Final

from tools.engine_wheels import locked

__all__ = [
    "CACHE_ENV",
    "REQUIREMENTS",
    "TORCH_SPEC",
    "HarnessUnavailable",
    "cache_root",
    "ensure_environment",
    "environment_dir",
    "environment_key",
]

CACHE_ENV: Final = "DRAFTING_CONFIG_HARNESS_CACHE"
"""Environment variable naming the folder the harness's environments are cached in (the
vLLM harness reads the same one; the two environments' folders do not collide)."""

TORCH_SPEC: Final = "torch==2.13.0"
"""Installed first, with its dependencies: the CPU build (see the project's README)."""

REQUIREMENTS: Final = Path(__file__).with_name("requirements.txt")
"""Every other package of the environment, pinned, installed with ``--no-deps``."""

_DEFAULT_CACHE: Final = Path("~/.cache/drafting-config/sglang-harness")
_COMPLETE: Final = "complete"


class HarnessUnavailable(RuntimeError):
    """The harness's environment could not be built (no package index, a failed install)."""


def cache_root() -> Path:
    """``$DRAFTING_CONFIG_HARNESS_CACHE/sglang``, else
    ``~/.cache/drafting-config/sglang-harness``."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured).expanduser() / "sglang"
    return _DEFAULT_CACHE.expanduser()


def environment_key() -> str:
    """A hash of everything the environment is built from (16 hex digits)."""
    digest = hashlib.sha256()
    for part in (TORCH_SPEC.encode(), REQUIREMENTS.read_bytes()):
        digest.update(part)
        digest.update(b"\0")
    digest.update(f"{sys.version_info.major}.{sys.version_info.minor}".encode())
    return digest.hexdigest()[:16]


def environment_dir() -> Path:
    """The folder of the environment for today's pins (it may not exist yet)."""
    return cache_root() / f"venv-{environment_key()}"


def _python(folder: Path) -> Path:
    return folder / "bin" / "python"


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


def ensure_environment() -> Path:
    """The ``python`` of the harness's environment, built first if it is not cached."""
    folder = environment_dir()
    python = _python(folder)
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
        _pip(python, "--no-deps", "-r", str(REQUIREMENTS), log=log)
        (folder / _COMPLETE).write_text(environment_key() + "\n", encoding="utf-8")
    return python
