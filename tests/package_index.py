"""What a test does when the package index cannot give it what it fetches at test time.

A test that fetches from the package index (a fresh environment's packages, a
pre-commit hook's environment) carries the ``engine_wheels`` marker, like the engine
wheel tests. When the index cannot be reached it skips, saying why; with
``DRAFTING_CONFIG_REQUIRE_WHEELS=1`` in the environment it fails instead, so a CI that
must run them cannot pass without them.
"""

from __future__ import annotations

import os
from typing import Final, NoReturn

import pytest

__all__ = ["PIP_NETWORK", "REQUIRE_ENV", "unavailable"]

REQUIRE_ENV: Final = "DRAFTING_CONFIG_REQUIRE_WHEELS"
"""Set to ``1``: what the index cannot give fails the test instead of skipping it."""

PIP_NETWORK: Final = ("--timeout", "15", "--retries", "1")
"""pip options that give up on an index that does not answer in seconds, not minutes."""


def unavailable(what: str, why: str) -> NoReturn:
    """Skip the test because ``what`` could not be fetched (``why``: the tool's last words),
    or fail it when :data:`REQUIRE_ENV` is ``1``."""
    tail = "\n".join(why.strip().splitlines()[-15:])
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(
            f"{what} could not be fetched from the package index ({REQUIRE_ENV}=1):\n{tail}"
        )
    pytest.skip(f"{what} could not be fetched from the package index: {tail}")
