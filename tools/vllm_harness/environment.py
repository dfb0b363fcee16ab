"""The harness's virtual environment: vLLM 0.33.0 without its dependencies, beside CPU torch.

vLLM's own pins clash with the project's development environment (it asks for a CUDA
torch 2.14 and an older transformers), so the engine runs in a virtual environment of its
own, built once and cached:

1. ``python -m venv``, then ``pip install torch==2.13.0`` first: the CPU build this
   project is tested with. vLLM is never installed *with* its dependencies, which would
   pull the CUDA stack.
2. ``pip install --no-deps -r requirements.txt``: ``vllm==0.33.0``, ``xgrammar``,
   ``apache-tvm-ffi``, ``compressed-tensors`` and the pure-Python packages vLLM's imports
   reach (transformers 5.20.2, huggingface_hub, fastapi, openai, ...), each pinned to the
   exact version the readings were taken with. ``--no-deps`` makes the file the whole
   closure: nothing else is resolved.

The environment lives in ``$DRAFTING_CONFIG_HARNESS_CACHE``, else
``~/.cache/drafting-config/vllm-harness``, in a folder named after a hash of what it is
built from (the torch spec, ``requirements.txt``'s bytes and the Python version), so
changing a pin builds a new one. A folder is complete once its ``complete`` marker is
written; a half-built one (an interrupted build) is removed and built again. Two
processes building at once take turns on a lock file. The first build downloads about
600 MB (the vLLM wheel is 336 MB) and takes about five minutes here.

``ensure_environment()`` returns the environment's ``python``, building it if needed, and
raises :class:`HarnessUnavailable` with pip's reason when the packages cannot be fetched.
The key and the build are ``tools/harness_common/environment.py``'s, shared by both harnesses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from tools.harness_common import environment as _shared
from tools.harness_common.environment import HarnessUnavailable

__all__ = [
    "REQUIREMENTS",
    "HarnessUnavailable",
    "cache_root",
    "ensure_environment",
    "environment_dir",
    "environment_key",
]

REQUIREMENTS: Final = Path(__file__).with_name("requirements.txt")
"""Every other package of the environment, pinned, installed with ``--no-deps``."""

_DEFAULT_CACHE: Final = Path("~/.cache/drafting-config/vllm-harness")


def cache_root() -> Path:
    """``$DRAFTING_CONFIG_HARNESS_CACHE``, else ``~/.cache/drafting-config/vllm-harness``."""
    return _shared.cache_root(_DEFAULT_CACHE)


def environment_key() -> str:
    """A hash of everything the environment is built from (16 hex digits)."""
    return _shared.environment_key(REQUIREMENTS)


def environment_dir() -> Path:
    """The folder of the environment for today's pins (it may not exist yet)."""
    return cache_root() / f"venv-{environment_key()}"


def ensure_environment() -> Path:
    """The ``python`` of the harness's environment, built first if it is not cached."""
    return _shared.ensure_environment(environment_dir(), REQUIREMENTS)
