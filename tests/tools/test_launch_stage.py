"""The live share of the launch readings (``tests/real_configs/launch_readings.json``): one
launch case per engine, refused at config when recorded, run again through the engine's own
config stage (``tools/engines/ENGINE/harness/config_stage.py``) for the newest release
recorded, and compared with what was recorded (the fast comparison with the checker is
``tests/test_launch_readings.py``)."""

from __future__ import annotations

import json
from typing import Any, Final

import pytest

from tests.package_index import unavailable
from tools.harness.environment import HarnessUnavailable
from tools.launch_readings import READINGS, readings

pytestmark = [pytest.mark.slow, pytest.mark.engine_wheels]

RECORDED: Final[dict[str, dict[str, list[dict[str, Any]]]]] = json.loads(
    READINGS.read_text(encoding="utf-8")
)


def _newest(releases: dict[str, Any]) -> str:
    return max(releases, key=lambda release: tuple(int(p) for p in release.split(".")))


def _sample(recorded: list[dict[str, Any]]) -> dict[str, Any]:
    """The first case the engine refused at config (a refusal, not an artefact)."""
    return next(r for r in recorded if r["outcome"] == "refused" and r["artefact"] is None)


@pytest.mark.parametrize("engine", sorted(RECORDED))
def test_the_engine_still_reads_a_launch_as_recorded(engine: str) -> None:
    release = _newest(RECORDED[engine])
    sample = _sample(RECORDED[engine][release])
    try:
        live = list(readings(engine, release, [sample["name"]]))
    except HarnessUnavailable as error:
        unavailable(f"the {engine} {release} harness's environment", str(error))
    assert live == [sample]
