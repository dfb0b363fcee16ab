"""The one collector every rule records into."""

from __future__ import annotations

import pytest

from drafting_config.values.errors import ParallelDraftingConfigError, PlaceholderTokenIdWarning
from drafting_config.values.findings import Findings


def test_findings_keep_each_kind_in_the_order_recorded() -> None:
    found = Findings()
    first, second = ParallelDraftingConfigError("a"), ParallelDraftingConfigError("b")
    warning = PlaceholderTokenIdWarning("w")
    found.error(first)
    found.warn(warning)
    found.note("n")
    found.error(second)
    assert (found.errors, found.warnings, found.notes) == ([first, second], [warning], ["n"])
    more = Findings()
    more.note("m")
    found.extend(more)
    assert found.notes == ["n", "m"]


def test_collect_records_our_error_and_goes_on_but_lets_others_through() -> None:
    found = Findings()
    error = ParallelDraftingConfigError("unreadable", field="x")

    def unreadable() -> None:
        found.note("before")
        raise error

    with found.collect():
        unreadable()
    assert (found.errors, found.notes) == ([error], ["before"])
    with pytest.raises(KeyError), found.collect():
        raise KeyError("a bug is no finding")
    assert len(found.errors) == 1
