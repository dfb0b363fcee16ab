"""The live share of the config-stage readings (``tests/real_configs/serve_readings.json``):
a sample of printed serve commands run again through each engine's own config stage
(``tools/engines/vllm/harness/config_stage.py``,
``tools/engines/sglang/harness/config_stage.py``), for the
newest release recorded, and compared with what was recorded (the fast comparison with the
checker is ``tests/test_serve_commands.py``)."""

from __future__ import annotations

import json
from typing import Any, Final

import pytest

from tests.package_index import unavailable
from tools.harness.environment import HarnessUnavailable
from tools.serve_readings import READINGS, readings

pytestmark = [pytest.mark.slow, pytest.mark.engine_wheels]

RECORDED: Final[dict[str, dict[str, list[dict[str, Any]]]]] = json.loads(
    READINGS.read_text(encoding="utf-8")
)

SAMPLE: Final = (
    "specforge--qwen3-8b-dflash",
    "examples/dspark-qwen3-8b",
    "examples/ptd-eagle3-llama3-8b",
)
"""A DFlash draft, a DSpark draft and an EAGLE-3 head whose command holds the placeholder."""


def _newest(releases: dict[str, Any]) -> str:
    return max(releases, key=lambda release: tuple(int(p) for p in release.split(".")))


@pytest.mark.parametrize("engine", sorted(RECORDED))
def test_the_engine_still_reads_the_sample_as_recorded(engine: str) -> None:
    release = _newest(RECORDED[engine])
    recorded = {reading["name"]: reading for reading in RECORDED[engine][release]}
    try:
        live = {reading["name"]: reading for reading in readings(engine, release, SAMPLE)}
    except HarnessUnavailable as error:
        unavailable(f"the {engine} {release} harness's environment", str(error))
    assert live == {name: recorded[name] for name in SAMPLE}
