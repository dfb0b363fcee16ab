"""The released vLLM 0.33.0, run live by the harness, against its recorded readings.

The harness (``tools/vllm_harness``) builds its virtual environment from the package index
on first use and caches it (``~/.cache/drafting-config/vllm-harness``); without an index
these tests skip, saying why, unless ``DRAFTING_CONFIG_REQUIRE_WHEELS=1`` makes that a
failure. Each run is a fresh process of 25-60 s.

* ``test_the_engine_still_reads_the_sample_as_recorded`` runs one reading per (stage
  reached, outcome) pair (``live_sample``), about ten runs: CI's share.
* ``test_the_engine_still_reads_the_corpus_as_recorded`` runs every reading; it is
  opt-in, with ``-m engine_corpus`` (about an hour here).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.package_index import unavailable
from tools.vllm_harness.corpus import Mode
from tools.vllm_harness.environment import HarnessUnavailable, ensure_environment
from tools.vllm_harness.harness import run
from tools.vllm_harness.readings import READINGS_FILE, ROOT, live_sample, stage_reached

pytestmark = [pytest.mark.slow, pytest.mark.engine_wheels]

RUNS: list[dict[str, Any]] = json.loads(READINGS_FILE.read_text(encoding="utf-8"))["engine_runs"]
COMPARED = (
    "outcome",
    "runner",
    "speculator",
    "target_class",
    "draft_class",
    "tapped_layers",
    "combine_width",
)


def _id(reading: dict[str, Any]) -> str:
    mode = reading["mode"]
    return f"{reading['name']}[{mode['method']}{'+parallel' if mode['parallel_drafting'] else ''}]"


@pytest.fixture(scope="session")
def harness_python() -> Path:
    """The harness environment's python; skips (or fails, when required) without one."""
    try:
        return ensure_environment()
    except HarnessUnavailable as error:
        unavailable("the vLLM harness's environment", str(error))


def _assert_reads_as_recorded(reading: dict[str, Any], python: Path) -> None:
    mode = Mode(reading["mode"]["method"], reading["mode"]["parallel_drafting"])
    live = run(ROOT / reading["draft"], ROOT / reading["target"], mode, python=python)
    assert stage_reached(live) == reading["stage_reached"]
    assert {key: live.get(key) for key in COMPARED} == {key: reading[key] for key in COMPARED}
    if reading["exception"] is None:
        assert live["exception"] is None
    else:
        recorded = reading["exception"]
        assert (live["exception"]["type"], live["exception"]["message"]) == (
            recorded["type"],
            recorded["message"],
        )


@pytest.mark.parametrize("reading", live_sample(RUNS), ids=_id)
def test_the_engine_still_reads_the_sample_as_recorded(
    reading: dict[str, Any], harness_python: Path
) -> None:
    _assert_reads_as_recorded(reading, harness_python)


@pytest.mark.engine_corpus
@pytest.mark.parametrize("reading", RUNS, ids=_id)
def test_the_engine_still_reads_the_corpus_as_recorded(
    reading: dict[str, Any], harness_python: Path
) -> None:
    # Deselected unless asked for with -m engine_corpus (tests/conftest.py).
    _assert_reads_as_recorded(reading, harness_python)
