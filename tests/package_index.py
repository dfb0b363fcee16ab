"""What a test does when the package index cannot give it what it fetches at test time.

The one opt-in for everything the suite fetches from the package index: the engines'
wheels (the ``vllm_wheel``, ``sglang_wheel``, ``vllm_release_wheel`` and
``transformers_wheel`` fixtures of ``tests/conftest.py``), the vLLM harness's
environment, a fresh environment's packages (the release tests) and a pre-commit hook's
environment. Every such test carries the ``engine_wheels`` marker (``-m 'not
engine_wheels'`` runs the suite offline on purpose). When the index cannot be reached the
test skips, saying why; with ``DRAFTING_CONFIG_REQUIRE_WHEELS=1`` in the environment
(``.ci/run`` sets it) it fails instead, so a CI that must run them cannot pass without them.
"""

from __future__ import annotations

import os
from typing import Final, NoReturn

import pytest

from tools.wheels import PIP_PATIENCE, REQUIRE_ENV

__all__ = ["PIP_PATIENCE", "REQUIRE_ENV", "unavailable", "wheels_required"]

_TAIL_LINES: Final = 15


def wheels_required() -> bool:
    """Whether ``DRAFTING_CONFIG_REQUIRE_WHEELS=1``: what cannot be fetched fails the test."""
    return os.environ.get(REQUIRE_ENV) == "1"


def unavailable(what: str, why: str) -> NoReturn:
    """Skip the test because ``what`` could not be fetched from the package index (``why``:
    the tool's last words, of which the last lines are kept), or fail it when
    :func:`wheels_required`."""
    tail = "\n".join(why.strip().splitlines()[-_TAIL_LINES:])
    if wheels_required():
        pytest.fail(
            f"{what} could not be fetched from the package index ({REQUIRE_ENV}=1: required): "
            f"{tail}",
            pytrace=False,
        )
    pytest.skip(f"{what} could not be fetched from the package index: {tail}")
