"""The SGLang harness's virtual environment: SGLang 0.5.23 without its dependencies, beside
CPU torch.

SGLang's own requirements ask for a CUDA torch 2.14.1, flashinfer, its CUDA kernel package
(``sglang-kernel``) and about eighty more, so the engine runs in a virtual environment of
its own, built once and cached, as the vLLM harness's is
(``tools/engines/vllm/harness/environment.py``):

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
and takes about 3 CPU-minutes. The SGLang wheel comes from the wheel cache the wheel
tests fill (``tools/wheels.py``: ``fetch_wheel``), downloaded there first if it is not,
so it is downloaded once for both, as vLLM's is.

``ensure_environment()`` returns the environment's ``python``, building it if needed, and
raises :class:`HarnessUnavailable` with pip's reason when the packages cannot be fetched.
The key and the build are ``tools/harness/environment.py``'s, shared by both harnesses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from tools.harness import environment as _shared
from tools.harness.environment import HarnessUnavailable
from tools.wheels import fetch_wheel

__all__ = [
    "REQUIREMENTS",
    "HarnessUnavailable",
    "cache_root",
    "ensure_environment",
    "environment_dir",
    "environment_key",
    "release",
]

REQUIREMENTS: Final = Path(__file__).with_name("requirements.txt")
"""Every other package of the environment, pinned, installed with ``--no-deps``."""

_DEFAULT_CACHE: Final = Path("~/.cache/drafting-config/sglang-harness")


def cache_root() -> Path:
    """``$DRAFTING_CONFIG_HARNESS_CACHE/sglang``, else
    ``~/.cache/drafting-config/sglang-harness``."""
    return _shared.cache_root(_DEFAULT_CACHE, subfolder="sglang")


def environment_key() -> str:
    """A hash of everything the environment is built from (16 hex digits)."""
    return _shared.environment_key(REQUIREMENTS)


def environment_dir() -> Path:
    """The folder of the environment for today's pins (it may not exist yet)."""
    return cache_root() / f"venv-{environment_key()}"


def release() -> str:
    """The SGLang release the requirements pin (its ``sglang==VERSION`` line)."""
    for line in REQUIREMENTS.read_text(encoding="utf-8").splitlines():
        if line.startswith("sglang=="):
            return line.removeprefix("sglang==").strip()
    raise ValueError(f"{REQUIREMENTS}: no sglang==VERSION pin")


def _cached_wheel() -> list[Path]:
    """The release's SGLang wheel and its pinned transformers wheel from the wheel cache the
    wheel tests fill (fetched there if need be), so each is downloaded once for both; one
    that cannot be had is left to pip, which downloads it from its pin instead."""
    return _shared.cached_wheels(REQUIREMENTS, ("sglang", "transformers"), fetch_wheel)


def ensure_environment() -> Path:
    """The ``python`` of the harness's environment, built first if it is not cached."""
    return _shared.ensure_environment(environment_dir(), REQUIREMENTS, wheels=_cached_wheel)
