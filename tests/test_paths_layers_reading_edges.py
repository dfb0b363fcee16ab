"""Exact edges of path escapes and unreadable configs (found by mutation
testing)."""

from __future__ import annotations

import pytest

from drafting_config.values.paths import display_path, parse_display_path


def test_the_last_four_digit_escape_and_the_last_code_point() -> None:
    assert display_path("a\uffff") == "a\\uffff"  # a noncharacter: not printable
    assert parse_display_path("\\U0010ffff") == "\U0010ffff".encode()
    with pytest.raises(ValueError, match=r"^character 0: U\+110000 is beyond Unicode$"):
        parse_display_path("\\U00110000")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("\\xXX", "character 0: '\\\\xXX' is not an escape"),
        ("ab\\q0123456789xyz", "character 2: '\\\\q01234567' is not an escape"),
    ],
)
def test_a_bad_escape_is_quoted_for_ten_characters(text: str, message: str) -> None:
    with pytest.raises(ValueError, match="is not an escape") as info:
        parse_display_path(text)
    assert str(info.value) == message
