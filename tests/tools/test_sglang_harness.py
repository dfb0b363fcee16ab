"""SGLang 0.5.23, run live by the harness on a small fixed sample, against the checker's
SGLang verdicts and the recorded readings.

The harness (``tools/engines/sglang/harness``) builds its virtual environment from the package
index on first use and caches it (``~/.cache/drafting-config/sglang-harness``); without an
index these tests skip, saying why, unless ``DRAFTING_CONFIG_REQUIRE_WHEELS=1`` makes that
a failure. The sample (:data:`tools.engines.sglang.harness.corpus.LIVE_SAMPLE`: a DFLASH, a DSPARK
and an EAGLE3 draft and one SGLang refuses) runs in one ``--serve`` process of the harness,
which imports SGLang once and forks a fresh child per run; one run more goes through
:func:`~tools.engines.sglang.harness.harness.run`, a process of its own, so the two are shown to
agree.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

import pytest

from tests.package_index import unavailable
from tests.tools.test_sglang_engine_runs import assert_agrees, no_reading
from tools.engines.sglang.harness.corpus import CASES, LIVE_SAMPLE
from tools.engines.sglang.harness.environment import HarnessUnavailable, ensure_environment
from tools.engines.sglang.harness.harness import run, run_many
from tools.engines.sglang.harness.readings import READINGS_FILE, ROOT, engine_run_entry

pytestmark = [pytest.mark.slow, pytest.mark.engine_wheels]

RECORDED: Final[dict[str, dict[str, Any]]] = {
    reading["name"]: reading
    for reading in json.loads(READINGS_FILE.read_text(encoding="utf-8"))["engine_runs"]
}
COMPARED: Final = (
    "outcome",
    "stage_reached",
    "stages_passed",
    "draft_class",
    "target_class",
    "speculative",
    "capture_layers",
    "captured",
    "failed_model",
    "skipped_classes",
    "artefact",
)
"""What a live run must report as its recorded reading does."""


@pytest.fixture(scope="session")
def harness_python() -> Path:
    """The harness environment's python; skips (or fails, when required) without one."""
    try:
        return ensure_environment()
    except HarnessUnavailable as error:
        unavailable("the SGLang harness's environment", str(error))


@pytest.fixture(scope="session")
def live(harness_python: Path) -> dict[str, dict[str, Any]]:
    """The sample's readings, taken now (one serve process, a forked child per run)."""
    cases = [case for case in CASES if case.name in LIVE_SAMPLE]
    results = run_many(
        ((ROOT / case.draft, ROOT / case.target, case.algorithm) for case in cases),
        python=harness_python,
    )
    return {
        case.name: engine_run_entry(case, result)
        for case, result in zip(cases, results, strict=True)
    }


@pytest.mark.parametrize("name", LIVE_SAMPLE)
def test_the_verdict_is_ok_exactly_when_sglang_serves_the_sample_draft(
    name: str, live: dict[str, dict[str, Any]]
) -> None:
    reading = live[name]
    assert reading["outcome"] in ("passed", "failed"), reading["exception"]
    assert no_reading(reading) is None, reading["exception"]
    assert_agrees(reading)


@pytest.mark.parametrize("name", LIVE_SAMPLE)
def test_sglang_still_reads_the_sample_as_recorded(
    name: str, live: dict[str, dict[str, Any]]
) -> None:
    reading, recorded = live[name], RECORDED[name]
    assert {key: reading[key] for key in COMPARED} == {key: recorded[key] for key in COMPARED}
    assert reading["exception"] == recorded["exception"]


def test_a_process_of_its_own_reads_as_the_serve_process_does(
    harness_python: Path, live: dict[str, dict[str, Any]]
) -> None:
    case = next(case for case in CASES if case.name == LIVE_SAMPLE[-1])
    alone = engine_run_entry(
        case, run(ROOT / case.draft, ROOT / case.target, case.algorithm, python=harness_python)
    )
    served = live[case.name]
    assert {key: alone[key] for key in COMPARED} == {key: served[key] for key in COMPARED}
    assert alone["exception"] == served["exception"]
