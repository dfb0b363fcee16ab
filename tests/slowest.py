"""A pytest plugin (loaded by ``tests/conftest.py``): the run ends with a report of its
slowest tests not marked ``slow``, so that a test that has grown slow is seen and marked
(``-m "not slow"`` is the fast suite). A report, never a failure: timings vary by machine.

Each test's time is its setup, call and teardown together. ``--slowest-unmarked=N`` sets
how many are listed (default :data:`DEFAULT_COUNT`; ``0`` turns the report off).
"""

from __future__ import annotations

from typing import Final

import pytest

DEFAULT_COUNT: Final = 10
OPTION: Final = "--slowest-unmarked"
TITLE: Final = "slowest tests not marked slow"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        OPTION,
        type=int,
        default=DEFAULT_COUNT,
        metavar="N",
        help=f"list the N slowest tests not marked slow (default {DEFAULT_COUNT}; 0: none)",
    )


def pytest_configure(config: pytest.Config) -> None:
    count: int = config.getoption(OPTION)
    if count > 0:
        config.pluginmanager.register(SlowestUnmarked(count), "slowest-unmarked")


class SlowestUnmarked:
    """Adds up each unmarked test's phases; lists the ``count`` slowest at the end."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.durations: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if "slow" not in report.keywords:
            self.durations[report.nodeid] = self.durations.get(report.nodeid, 0.0) + report.duration

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.durations:
            return
        slowest = sorted(self.durations.items(), key=lambda item: (-item[1], item[0]))
        terminalreporter.write_sep("=", f"{min(self.count, len(slowest))} {TITLE}")
        for nodeid, seconds in slowest[: self.count]:
            terminalreporter.write_line(f"{seconds:8.2f}s {nodeid}")
