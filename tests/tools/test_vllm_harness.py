"""The released vLLM of each release the harness runs, live, against its recorded readings.

The harness (``tools/engines/vllm/harness``) builds each release's virtual environment from the
package index on first use (the vLLM wheel from the wheel cache the engine-wheel tests
fill) and caches it (``~/.cache/drafting-config/vllm-harness``); without an index these
tests skip, saying why, unless ``DRAFTING_CONFIG_REQUIRE_WHEELS=1`` makes that a failure.
Each run is a fresh process of 20-60 s.

* ``test_the_engine_still_reads_the_sample_as_recorded`` runs, for the oldest release, one
  reading per (stage reached, outcome) pair (``live_sample``), about ten runs, and for each
  newer release one per pair among the readings it changed, a few runs: CI's share.
* ``test_the_engine_still_reads_the_corpus_as_recorded`` runs every reading of every
  release; it is opt-in, with ``-m engine_corpus`` (about half an hour a release here).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.package_index import unavailable
from tools.engines.vllm.harness.environment import RELEASES, HarnessUnavailable, ensure_environment
from tools.engines.vllm.harness.harness import run
from tools.engines.vllm.harness.readings import ROOT, engine_runs, live_sample, stage_reached
from tools.harness.corpus import Mode

pytestmark = [pytest.mark.slow, pytest.mark.engine_wheels]

ENGINE_RUNS = engine_runs()
RUNS: list[tuple[str, dict[str, Any]]] = [
    (release, run) for release, runs in ENGINE_RUNS.items() for run in runs
]
SAMPLE: list[tuple[str, dict[str, Any]]] = [
    (release, run)
    for index, release in enumerate(ENGINE_RUNS)
    for run in live_sample(
        ENGINE_RUNS[release],
        earlier=ENGINE_RUNS[RELEASES[index - 1]] if index else None,
    )
]
COMPARED = (
    "outcome",
    "runner",
    "speculator",
    "target_class",
    "draft_class",
    "tapped_layers",
    "combine_width",
)


def _id(item: tuple[str, dict[str, Any]]) -> str:
    release, reading = item
    mode = reading["mode"]
    parallel = "+parallel" if mode["parallel_drafting"] else ""
    return f"{release}:{reading['name']}[{mode['method']}{parallel}]"


@pytest.fixture(scope="session")
def harness_pythons() -> dict[str, Path]:
    """Each release's environment, built on first use (a test skips, or fails when
    required, without one)."""
    return {}


def _python(pythons: dict[str, Path], release: str) -> Path:
    if release not in pythons:
        try:
            pythons[release] = ensure_environment(release)
        except HarnessUnavailable as error:
            unavailable(f"the vLLM {release} harness's environment", str(error))
    return pythons[release]


def _assert_reads_as_recorded(release: str, reading: dict[str, Any], python: Path) -> None:
    mode = Mode(reading["mode"]["method"], reading["mode"]["parallel_drafting"])
    live = run(
        ROOT / reading["draft"], ROOT / reading["target"], mode, python=python, release=release
    )
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


@pytest.mark.parametrize("item", SAMPLE, ids=_id)
def test_the_engine_still_reads_the_sample_as_recorded(
    item: tuple[str, dict[str, Any]], harness_pythons: dict[str, Path]
) -> None:
    release, reading = item
    _assert_reads_as_recorded(release, reading, _python(harness_pythons, release))


@pytest.mark.engine_corpus
@pytest.mark.parametrize("item", RUNS, ids=_id)
def test_the_engine_still_reads_the_corpus_as_recorded(
    item: tuple[str, dict[str, Any]], harness_pythons: dict[str, Path]
) -> None:
    # Deselected unless asked for with -m engine_corpus (tests/conftest.py).
    release, reading = item
    _assert_reads_as_recorded(release, reading, _python(harness_pythons, release))
