"""The engine is the proof of the launch rules: every launch case
(``tests/real_configs/launch_cases.json``: a draft, a target and a launch line as a user types
it) was run through each engine's own config stage, per release the harness has
(``tests/real_configs/launch_readings.json``, recorded by ``python -m tools.launch_readings``;
the live share in ``tests/tools/test_launch_stage.py``), and each reading is compared here
with the checker's launch findings on the same case and release: the engine refused the
launch at config exactly where the checker has an error finding at the launch (a code
``launch-...``), except where the engine accepts the launch and runs the draft wrong
(a case's ``running_wrong``, by release), and the disagreements found so far (a case's
``disagree``, by release)."""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping
from typing import Any, Final

import pytest

from drafting_config import check
from drafting_config.engines import ENGINES, RELEASES, Engine
from tools.launch_readings import READINGS, cases, config_file
from tools.serve_readings import ROOT

CASES: Final = {case["name"]: case for case in cases()}

RECORDED: Final[dict[str, dict[str, list[dict[str, Any]]]]] = json.loads(
    READINGS.read_text(encoding="utf-8")
)
"""The recorded readings, ``engine -> release -> [reading]``."""

READ: Final = [
    (engine, release, reading)
    for engine, releases in RECORDED.items()
    for release, readings in releases.items()
    for reading in readings
]


def running_wrong(name: str, release: str) -> str | None:
    """Why the engine accepts case ``name`` at config in ``release`` and runs it wrong (the
    case's ``running_wrong``, by release): the checker's error there is for running wrong,
    not for a refusal. ``None`` for a case the engine runs as it reads."""
    wrong: dict[str, str] = CASES[name].get("running_wrong", {})
    return wrong.get(release)


def disagrees(name: str, release: str) -> str | None:
    """What the engine and the checker each say where they disagree on case ``name`` in
    ``release`` (the case's ``disagree``, by release): a finding, kept until the checker or
    the case is fixed. ``None`` where they agree."""
    found: dict[str, str] = CASES[name].get("disagree", {})
    return found.get(release)


def _engine(engine: str, release: str) -> Engine:
    return next(name for name in RELEASES if name == f"{engine}=={release}")


def _id(item: tuple[str, str, dict[str, Any]]) -> str:
    engine, release, reading = item
    return f"{engine} {release}:{reading['name']}"


def launch_errors(engine: str, release: str, case: Mapping[str, Any]) -> list[str]:
    """The codes of the checker's error findings at the launch (``launch-...``) on ``case``
    for ``engine`` ``release``."""
    verdict = check(
        ROOT / case["draft"],
        target=ROOT / case["target"],
        engine=_engine(engine, release),
        launch=case["launch"],
        check_tokenizer=False,
        check_weights=False,
    )
    return [
        error.code.name
        for error in verdict.errors
        if error.code is not None and error.code.name.startswith("launch-")
    ]


def disagreement(reading: Mapping[str, Any], errors: list[str], wrong: str | None) -> str | None:
    """How the engine's ``reading`` of a case and the checker's launch ``errors`` disagree,
    or ``None`` where they agree: refused at config exactly where the checker has a launch
    error; where the engine runs the case wrong (``wrong``, :func:`running_wrong`), accepted
    at config and a launch error."""
    refused = reading["outcome"] == "refused"
    if wrong is not None:
        if refused:
            return f"the engine now refuses it ({reading['exception']}): drop running_wrong"
        return None if errors else "the engine runs it wrong, and the checker has no launch error"
    if refused and not errors:
        return f"the engine refuses it ({reading['exception']}), the checker has no launch error"
    if errors and not refused:
        return f"the engine accepts it at config, the checker has launch errors {errors}"
    return None


# -- the cases and the readings --------------------------------------------------------------


def test_the_readings_cover_each_case_of_each_engine_at_a_shipped_release() -> None:
    assert {case["engine"] for case in CASES.values()} == set(RECORDED) == set(ENGINES)
    for engine, releases in RECORDED.items():
        assert releases, engine
        for release, readings in releases.items():
            assert f"{engine}=={release}" in RELEASES
            expected = [case["name"] for case in cases(engine)]
            assert [r["name"] for r in readings] == expected, "stale: tools.launch_readings"


def test_every_launch_rule_has_a_case() -> None:
    for engine in ENGINES:
        rules = importlib.import_module(f"drafting_config.engines.{engine}.launch").LAUNCH_RULES
        named = {case["rule"] for case in cases(engine)}
        assert {rule.__name__ for rule in rules} <= named, engine
        assert named <= {rule.__name__ for rule in rules}, engine


def test_each_case_names_an_existing_draft_and_target_in_its_launch() -> None:
    for case in CASES.values():
        assert (ROOT / case["draft"]).exists(), case["name"]
        assert (ROOT / case["target"]).exists(), case["name"]
        assert case["target"] in case["launch"], case["name"]


# -- the engine against the checker ----------------------------------------------------------


@pytest.mark.parametrize("item", READ, ids=_id)
def test_the_engine_refuses_a_launch_exactly_where_the_checker_has_a_launch_error(
    item: tuple[str, str, dict[str, Any]],
) -> None:
    engine, release, reading = item
    if reading["artefact"] is not None:
        pytest.skip(f"no reading: {reading['artefact']}")
    assert reading["outcome"] in ("accepted", "refused"), reading["exception"]
    name = reading["name"]
    errors = launch_errors(engine, release, CASES[name])
    found = disagreement(reading, errors, running_wrong(name, release))
    if disagrees(name, release) is not None:
        assert found is not None, f"{_id(item)} agrees now: drop its disagree"
        return
    assert found is None, found


def test_a_planted_wrong_reading_is_a_disagreement() -> None:
    # Every comparison can fail: each reading, its outcome flipped, disagrees with the checker.
    compared = 0
    for engine, release, reading in READ:
        name = reading["name"]
        if reading["artefact"] is not None or disagrees(name, release) is not None:
            continue
        errors = launch_errors(engine, release, CASES[name])
        wrong = running_wrong(name, release)
        flipped = "accepted" if reading["outcome"] == "refused" else "refused"
        planted = {**reading, "outcome": flipped}
        assert disagreement(reading, errors, wrong) is None
        assert disagreement(planted, errors, wrong) is not None, _id((engine, release, reading))
        compared += 1
    assert compared


def test_a_running_wrong_case_without_a_checker_error_is_a_disagreement() -> None:
    accepted = {"name": "x", "outcome": "accepted", "exception": None}
    refused = {**accepted, "outcome": "refused"}
    assert disagreement(accepted, ["launch-method-mismatch"], None) is not None
    assert disagreement(accepted, ["launch-method-mismatch"], "runs wrong") is None
    assert disagreement(accepted, [], "runs wrong") is not None
    assert disagreement(refused, ["launch-method-mismatch"], "runs wrong") is not None


def test_the_checker_refuses_what_each_rule_is_about_somewhere_and_accepts_it_elsewhere() -> None:
    # Each rule has, per engine, a case the engine refuses at config (or runs wrong) and one it
    # accepts, at some release: the cases exercise both sides of the rule.
    for engine in ENGINES:
        sides: dict[str, set[str]] = {}
        for release in RECORDED[engine]:
            for reading in RECORDED[engine][release]:
                name = reading["name"]
                side = "refused" if running_wrong(name, release) else reading["outcome"]
                sides.setdefault(CASES[name]["rule"], set()).add(side)
        one_sided = {rule: seen for rule, seen in sides.items() if seen != {"accepted", "refused"}}
        assert one_sided == WARNING_ONLY.get(engine, {}), engine


WARNING_ONLY: Final[Mapping[str, Mapping[str, set[str]]]] = {
    "sglang": {"check_sglang_block": {"accepted"}},
}
"""Rules (per engine) the engine never refuses at config: what they find is a warning (a
DFLASH block other than the draft's is drafted, ``dflash_worker_v2.py: DFlashWorkerV2``)."""


def test_a_case_draft_is_read_from_its_folder_or_its_file() -> None:
    folder = next(case["draft"] for case in CASES.values() if (ROOT / case["draft"]).is_dir())
    file = next(case["target"] for case in CASES.values() if (ROOT / case["target"]).is_file())
    assert config_file(folder) == ROOT / folder / "config.json"
    assert config_file(file) == ROOT / file
