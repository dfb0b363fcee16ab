"""Where a JSON object's members sit in the text (files/json_spans.py): the spans --fix
edits and the positions --format github annotates."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drafting_config.files.json_spans import (
    JsonSpanError,
    field_position,
    member_path,
    position,
)

_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)


@settings(max_examples=100)
@given(
    st.dictionaries(st.text(max_size=6), _VALUES, min_size=1, max_size=5),
    st.sampled_from([None, 2, "\t"]),
    st.booleans(),
)
def test_every_members_span_holds_its_key_and_value(
    document: dict[str, object], indent: int | str | None, ascii_only: bool
) -> None:
    text = json.dumps(document, indent=indent, ensure_ascii=ascii_only)
    for key, value in document.items():
        [(root, member)] = member_path(text, [key])
        assert member is not None
        assert root.start == 0
        assert root.end == len(text)
        assert json.loads(text[member.start : member.key_end]) == key
        assert json.loads(text[member.value_start : member.end]) == value


def test_a_nested_field_has_its_line_and_column() -> None:
    text = '\ufeff{\n  "a": [1,\n 2], "b": {"c": 1E400,\n\t"d": "\\u0041"}\n}\n'
    assert field_position(text, "b.d") == (4, 2)
    assert field_position(text, "a") == (2, 3)
    assert position(text, 1) == (1, 1)  # the byte-order mark is no column
    assert field_position(text, "b.x") is None
    assert field_position(text, "a.x") is None  # `a` is not an object
    assert field_position("[1]", "a") is None


def test_the_path_stops_where_a_key_is_absent_or_not_an_object() -> None:
    text = '{"a": 1, "b": {"c": 2}}'
    assert [member for _, member in member_path(text, ["x", "y"])] == [None]
    [(_, a)] = member_path(text, ["a", "y"])
    assert a is not None
    assert a.key == "a"
    assert len(member_path(text, ["b", "z"])) == 2


@pytest.mark.parametrize(
    "text",
    ['{"a": 1, "a": 2}', "[1]", '{"a" 1}', '{"a": 1,}', '{"a": tru}', '{"a": 1'],
)
def test_text_that_is_not_json_on_the_path_or_a_repeated_key_is_refused(text: str) -> None:
    with pytest.raises(JsonSpanError):
        member_path(text, ["a", "b"])
