"""The engine's readings (``engine_runs`` in ``tests/real_configs/vllm_readings.json``).

Each reading is what the released vLLM 0.33.0 did with a draft when the harness
(``tools/vllm_harness``) ran it. These tests need no network and no vLLM: they hold the
readings to the files they were taken on (a changed draft or target fails until the
readings are regenerated with ``python -m tools.vllm_harness.readings``) and to the
corpus (every draft, every mode it asks for). The live comparison is in
``tests/tools/test_vllm_harness.py``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tools.vllm_harness.corpus import CASES, SYNTHESIZED, SYNTHESIZED_DIR
from tools.vllm_harness.harness import STAGES
from tools.vllm_harness.readings import READINGS_FILE, ROOT, artefact, live_sample, sha256_of

RUNS: list[dict[str, Any]] = json.loads(READINGS_FILE.read_text(encoding="utf-8"))["engine_runs"]


def _id(run: dict[str, Any]) -> str:
    mode = run["mode"]
    return f"{run['name']}[{mode['method']}{'+parallel' if mode['parallel_drafting'] else ''}]"


@pytest.mark.parametrize("run", RUNS, ids=_id)
def test_a_reading_was_taken_on_the_files_as_they_are(run: dict[str, Any]) -> None:
    # Edit a draft or a target and this fails until the readings are taken again.
    assert sha256_of(ROOT / run["draft"]) == run["inputs"]["draft_sha256"], run["draft"]
    assert sha256_of(ROOT / run["target"]) == run["inputs"]["target_sha256"], run["target"]
    assert run["inputs"]["vllm_version"] == "0.33.0"


def test_every_case_and_mode_has_exactly_one_reading() -> None:
    expected = [
        (case.draft, case.target, mode.method, mode.parallel_drafting)
        for case in CASES
        for mode in case.modes
    ]
    recorded = [
        (run["draft"], run["target"], run["mode"]["method"], run["mode"]["parallel_drafting"])
        for run in RUNS
    ]
    assert recorded == expected


def test_every_corpus_draft_and_bundled_example_draft_is_run() -> None:
    folder = ROOT / "tests/real_configs/drafts"
    drafts = {f"tests/real_configs/drafts/{path.name}" for path in folder.iterdir()}
    examples = {
        str(path.relative_to(ROOT))
        for path in (ROOT / "examples").rglob("config.json")
        if "target" not in path.parts
    }
    assert {run["draft"] for run in RUNS} == drafts | examples


def test_synthesized_targets_are_marked_and_public_ones_are_not() -> None:
    for run in RUNS:
        public = run["target"].startswith("tests/real_configs/targets/")
        assert run["target_synthesized"] is not public, run["name"]
    synthesized = {path.stem for path in (ROOT / SYNTHESIZED_DIR).iterdir()}
    assert synthesized == set(SYNTHESIZED)


@pytest.mark.parametrize("run", RUNS, ids=_id)
def test_a_reading_says_where_the_engine_stopped_and_why(run: dict[str, Any]) -> None:
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
    sample = live_sample(RUNS)
    pairs = {(run["stage_reached"], run["outcome"]) for run in RUNS}
    assert {(run["stage_reached"], run["outcome"]) for run in sample} == pairs
    assert len(sample) == len(pairs)
    assert len(sample) <= 12
