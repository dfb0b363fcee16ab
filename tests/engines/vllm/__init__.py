"""vLLM's tests, and the releases they pin where a rule holds up to a release only, derived
from the gates of :mod:`drafting_config.engines.vllm.names`."""

from __future__ import annotations

from typing import Final, cast

import pytest

from drafting_config import engines
from drafting_config.engines.vllm.names import (
    ONE_MODEL_RUNNER,
    REFUSES_PARALLEL_SWITCH,
    REFUSES_PEAGLE,
    Release,
    engine_name,
    last_before,
)

TWO_RUNNERS: Final = cast(Release, f"vllm=={last_before(ONE_MODEL_RUNNER)}")
"""The newest release with two model runners (the older one's layer chain, its notes)."""

PARALLEL_SWITCH: Final = cast(Release, f"vllm=={last_before(REFUSES_PARALLEL_SWITCH)}")
"""The newest release that drafts PTD and PARD drafts in parallel (``parallel_drafting``)."""

PEAGLE: Final = cast(Release, f"vllm=={last_before(REFUSES_PEAGLE)}")
"""The newest release that serves P-EAGLE."""


@pytest.fixture
def tokens_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bare ``"vllm"`` means :data:`PARALLEL_SWITCH`'s release, as where it is the one
    installed: for the tests of the token's rules on PTD and PARD drafts, whose token later
    releases never read (they serve such a draft sequentially)."""
    version = PARALLEL_SWITCH.removeprefix("vllm==")
    monkeypatch.setattr(
        engines, "installed_version", lambda engine: version if engine == "vllm" else None
    )


TOKENS_READ_ENGINE: Final = engine_name(PARALLEL_SWITCH.removeprefix("vllm=="))
"""How a verdict names that release (``vllm 0.33.0``)."""
