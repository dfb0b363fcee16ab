"""The report of the slowest tests not marked slow (``tests/slowest.py``), run on a
suite written here."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import REPO

SUITE = textwrap.dedent(
    """
    import time

    import pytest


    def test_sleeps_unmarked():
        time.sleep(0.3)


    @pytest.mark.slow
    def test_sleeps_marked_slow():
        time.sleep(0.3)


    def test_quick():
        pass
    """
)


def _run(tmp_path: Path, *args: str) -> str:
    (tmp_path / "test_suite.py").write_text(SUITE)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "tests.slowest",
            "-o",
            "markers=slow: slow",
            "-q",
            *args,
            "test_suite.py",
        ],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr  # a report, never a failure
    return result.stdout


@pytest.mark.slow
def test_the_run_ends_with_its_slowest_unmarked_tests_slowest_first(tmp_path: Path) -> None:
    out = _run(tmp_path)
    report = out[out.index("slowest tests not marked slow") :].splitlines()[1:]
    assert report[0].endswith("test_suite.py::test_sleeps_unmarked")
    assert float(report[0].split("s ")[0]) >= 0.3
    assert report[1].endswith("test_suite.py::test_quick")
    assert "test_sleeps_marked_slow" not in out


@pytest.mark.slow
def test_the_report_is_as_long_as_asked_or_off(tmp_path: Path) -> None:
    out = _run(tmp_path, "--slowest-unmarked=1")
    assert "1 slowest tests not marked slow" in out
    assert "test_quick" not in out
    assert "slowest tests not marked slow" not in _run(tmp_path, "--slowest-unmarked=0")


def test_the_suite_loads_the_report() -> None:
    from tests import conftest

    assert "tests.slowest" in conftest.pytest_plugins


def test_the_test_that_parses_every_module_of_vllm_is_marked_slow() -> None:
    # About 100 s (150 s on a shared machine): the slowest test of the suite, once unmarked.
    from tests.engines.vllm import test_tables

    test = test_tables.test_supports_eagle3_is_the_registered_classes_that_implement_it
    assert "slow" in {mark.name for mark in getattr(test, "pytestmark", [])}
