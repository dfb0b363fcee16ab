"""The property tests draw fixed examples in CI and new ones locally (``tests/conftest.py``:
its Hypothesis profiles), so that a rare counterexample cannot fail an unrelated submission
in CI (``test_generated_configs_read_the_same`` once failed for one seed in 2**32)."""

from __future__ import annotations

import pytest
from hypothesis import settings

from tests.conftest import REPO, hypothesis_profile


@pytest.mark.parametrize(
    ("environment", "profile"),
    [
        ({}, "dev"),
        ({"CI": ""}, "dev"),
        ({"CI": "false"}, "dev"),
        ({"CI": "0"}, "dev"),
        ({"CI": "true"}, "ci"),
        ({"CI": "1"}, "ci"),
        ({"CI": "true", "MUTANT_UNDER_TEST": "x"}, "mutmut"),
    ],
)
def test_the_profile_follows_the_environment(environment: dict[str, str], profile: str) -> None:
    assert hypothesis_profile(environment) == profile


def test_ci_and_mutation_runs_draw_fixed_examples_and_local_runs_new_ones() -> None:
    assert settings.get_profile("ci").derandomize
    assert settings.get_profile("mutmut").derandomize
    assert not settings.get_profile("dev").derandomize
    assert settings.get_profile("ci").max_examples == settings.get_profile("dev").max_examples


def test_the_ci_script_runs_the_tests_as_ci() -> None:
    script = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "\nexport CI=true\n" in script
