"""The engine's readings (``engine_runs`` in ``tests/real_configs/vllm_readings.json``, one
list per vLLM release).

Each reading is what a released vLLM did with a draft when the harness
(``tools/engines/vllm/harness``) ran it. These tests need no network and no vLLM: they hold each
release's readings to the files they were taken on (a changed draft or target fails until
the readings are regenerated with ``python -m tools.engines.vllm.harness.readings --release
VERSION``), to the environment they were taken in, and to the corpus (every draft, every
mode it asks for). The live comparison is in ``tests/tools/test_vllm_harness.py``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tools.engines.vllm.harness.environment import RELEASES, environment_key
from tools.engines.vllm.harness.harness import STAGES
from tools.engines.vllm.harness.readings import (
    READINGS_FILE,
    ROOT,
    artefact,
    engine_runs,
    live_sample,
    sha256_of,
)
from tools.harness.corpus import CASES, SYNTHESIZED, SYNTHESIZED_DIR

ENGINE_RUNS = engine_runs()
RELEASE_RUNS: list[tuple[str, dict[str, Any]]] = [
    (release, run) for release, runs in ENGINE_RUNS.items() for run in runs
]


def _id(item: tuple[str, dict[str, Any]]) -> str:
    release, run = item
    mode = run["mode"]
    parallel = "+parallel" if mode["parallel_drafting"] else ""
    return f"{release}:{run['name']}[{mode['method']}{parallel}]"


def test_every_release_the_harness_runs_has_readings_and_no_other() -> None:
    assert list(ENGINE_RUNS) == list(RELEASES)
    # Oldest first in the file too, so that regenerating one release moves no other.
    document = json.loads(READINGS_FILE.read_text(encoding="utf-8"))
    assert list(document["engine_runs"]) == list(RELEASES)


@pytest.mark.parametrize("item", RELEASE_RUNS, ids=_id)
def test_a_reading_was_taken_on_the_files_as_they_are(item: tuple[str, dict[str, Any]]) -> None:
    release, run = item
    # Edit a draft or a target and this fails until the readings are taken again.
    assert sha256_of(ROOT / run["draft"]) == run["inputs"]["draft_sha256"], run["draft"]
    assert sha256_of(ROOT / run["target"]) == run["inputs"]["target_sha256"], run["target"]
    assert run["inputs"]["vllm_version"] == release
    # Change a release's pins and this fails until its readings are taken again.
    assert run["inputs"]["environment"] == environment_key(release)


@pytest.mark.parametrize("release", RELEASES)
def test_every_case_and_mode_has_exactly_one_reading(release: str) -> None:
    runs = ENGINE_RUNS[release]
    expected = [
        (case.draft, case.target, mode.method, mode.parallel_drafting)
        for case in CASES
        for mode in case.modes
    ]
    recorded = [
        (run["draft"], run["target"], run["mode"]["method"], run["mode"]["parallel_drafting"])
        for run in runs
    ]
    assert recorded == expected


@pytest.mark.parametrize("release", RELEASES)
def test_every_corpus_draft_and_bundled_example_draft_is_run(release: str) -> None:
    runs = ENGINE_RUNS[release]
    folder = ROOT / "tests/real_configs/drafts"
    drafts = {f"tests/real_configs/drafts/{path.name}" for path in folder.iterdir()}
    examples = {
        str(path.relative_to(ROOT))
        for path in (ROOT / "examples").rglob("config.json")
        if "target" not in path.parts
    }
    assert {run["draft"] for run in runs} == drafts | examples


def test_synthesized_targets_are_marked_and_public_ones_are_not() -> None:
    for _, run in RELEASE_RUNS:
        public = run["target"].startswith("tests/real_configs/targets/")
        assert run["target_synthesized"] is not public, run["name"]
    synthesized = {path.stem for path in (ROOT / SYNTHESIZED_DIR).iterdir()}
    assert synthesized == set(SYNTHESIZED)


@pytest.mark.parametrize("item", RELEASE_RUNS, ids=_id)
def test_a_reading_says_where_the_engine_stopped_and_why(item: tuple[str, dict[str, Any]]) -> None:
    run = item[1]
    passed = run["stages_passed"]
    assert passed == [stage for stage in STAGES if stage in passed] or run["runner"] == "older"
    if run["outcome"] == "passed":
        assert run["exception"] is None
        assert run["stage_reached"] == [stage for stage in STAGES if stage in passed][-1]
        assert set(passed) >= {"config", "speculator", "target", "tap", "draft"}
    else:
        assert run["outcome"] == "failed", "a timeout or crash is no reading: run it again"
        assert run["stage_reached"] in STAGES
        assert run["stage_reached"] not in passed
        assert run["exception"]["type"]
        # A bare `assert` in vLLM has no message; its frame says where it stopped.
        assert run["exception"]["message"] or run["exception"]["where"]
    # A failure only this machine has (the CPU platform's own paths, a GPU kernel package)
    # says so, and no other does.
    assert run["artefact"] == artefact(run)
    # What the harness never runs stays judged by the rules, and the reading says so.
    assert "weights" in run["not_reached"]


def test_the_live_sample_takes_one_run_per_stage_and_outcome() -> None:
    runs = ENGINE_RUNS[RELEASES[0]]
    sample = live_sample(runs)
    pairs = {(run["stage_reached"], run["outcome"]) for run in runs}
    assert {(run["stage_reached"], run["outcome"]) for run in sample} == pairs
    assert len(sample) == len(pairs)
    assert len(sample) <= 12


@pytest.mark.parametrize("release", RELEASES[1:])
def test_a_newer_releases_live_sample_is_a_few_runs_of_what_it_changed(release: str) -> None:
    earlier = ENGINE_RUNS[RELEASES[RELEASES.index(release) - 1]]
    sample = live_sample(ENGINE_RUNS[release], earlier=earlier)
    before = {(run["draft"], str(run["mode"])): run for run in earlier}
    for run in sample:
        old = before[(run["draft"], str(run["mode"]))]
        changed = (old["stage_reached"], old["outcome"]) != (run["stage_reached"], run["outcome"])
        assert changed or run["outcome"] == "passed"
    assert any(run["stage_reached"] == STAGES[-1] for run in sample)  # every stage runs
    assert 2 <= len(sample) <= 5  # CI time: each release after the first adds a few runs
