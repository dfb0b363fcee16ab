"""The corpus of user reports (``tests/real_configs/reports/``): public issue threads where
users report a draft that fails, runs wrong or serves, each with its draft and target (as
reported, or reconstructed from the fields the report names), and what the verdict of every
shipped release of both engines must be by that release's code (``expect``: OK or INVALID
per engine, and where it is INVALID the code of the error the report shows,
``expect_code``; where the draft starts and then runs wrong, the codes of the findings that
say so, ``expect_findings``).  A case whose verdict the checker cannot reach says why
(``exception``) and is a strict expected failure, so that it fails the day the checker
reaches it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

import pytest

from drafting_config import check
from drafting_config.engines import RELEASES, Engine
from tests.checkpoint_factory import write_safetensors

REPORTS: Final = Path(__file__).resolve().parent / "real_configs" / "reports"
CASES: Final[list[dict[str, Any]]] = json.loads((REPORTS / "cases.json").read_text())
OUTCOMES: Final = frozenset({"fails", "runs wrong", "serves"})


def _runs() -> list[Any]:
    runs = []
    for case in CASES:
        for release in RELEASES:
            marks = []
            if "exception" in case:
                marks.append(pytest.mark.xfail(strict=True, reason=case["exception"]))
            runs.append(pytest.param(case, release, id=f"{case['id']}-{release}", marks=marks))
    return runs


def _draft(case: dict[str, Any], directory: Path) -> object:
    """The case's draft: its config, or, where the case gives its checkpoint's tensors
    (``checkpoint``: name -> [dtype, shape]), a folder holding the config and a
    ``model.safetensors`` of those headers (its weights a sparse hole)."""
    tensors = case.get("checkpoint")
    if tensors is None:
        return case["draft"]
    (directory / "config.json").write_text(json.dumps(case["draft"]))
    write_safetensors(
        directory / "model.safetensors",
        {name: (dtype, tuple(shape)) for name, (dtype, shape) in tensors.items()},
    )
    return str(directory)


@pytest.mark.parametrize(("case", "release"), _runs())
def test_each_report_gets_its_verdict_on_every_shipped_release(
    case: dict[str, Any], release: Engine, tmp_path: Path
) -> None:
    draft = _draft(case, tmp_path)
    verdict = check(draft, target=case["target"], engine=release, check_tokenizer=False)
    engine = str(release).partition("==")[0]
    assert ("OK" if verdict.ok else "INVALID") == case["expect"][engine], verdict.errors
    code = case.get("expect_code", {}).get(engine)
    if code is not None:  # refused for the reason the report gives
        assert code in {getattr(error.code, "name", None) for error in verdict.errors}
    found = {
        getattr(getattr(finding, "code", None), "name", None)
        for finding in (*verdict.errors, *verdict.warnings, *verdict.notes)
    }
    for expected in case.get("expect_findings", {}).get(engine, ()):  # what runs wrong, said
        assert expected in found, (expected, sorted(filter(None, found)))


def test_each_case_names_its_source_outcome_and_expectations() -> None:
    engines = {str(release).partition("==")[0] for release in RELEASES}
    assert len({case["id"] for case in CASES}) == len(CASES)
    for case in CASES:
        assert case["url"].startswith("https://github.com/"), case["id"]
        assert case["outcome"] in OUTCOMES, case["id"]
        assert (case["step"] is None) is (case["outcome"] == "serves"), case["id"]
        assert case["draft_source"], case["id"]
        assert case["applies"], case["id"]
        assert set(case["expect"]) == engines, case["id"]
        assert set(case["expect"].values()) <= {"OK", "INVALID"}, case["id"]
        assert set(case.get("expect_findings", {})) <= engines, case["id"]


def test_the_corpus_holds_failures_and_successes() -> None:
    outcomes = {case["outcome"] for case in CASES}
    assert {"fails", "serves", "runs wrong"} <= outcomes


def test_each_draft_that_runs_wrong_names_the_findings_that_say_so() -> None:
    for case in CASES:
        if case["outcome"] == "runs wrong":
            assert case.get("expect_findings") or case.get("expect_code"), case["id"]
