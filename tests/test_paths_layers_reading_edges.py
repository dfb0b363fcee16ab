"""Exact edges of path escapes and unreadable configs (found by mutation
testing)."""

from __future__ import annotations

import pytest

from drafting_config import ParallelDraftingConfigError
from drafting_config.paths import display_path, parse_display_path
from drafting_config.reading import field_getter


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


class _Meta(type):
    def __getattribute__(cls, name: str) -> object:
        raise RuntimeError("meta")


class _Hostile(metaclass=_Meta):
    pass


@pytest.mark.parametrize(
    ("path", "where", "field"),
    [("dflash_config", "`dflash_config`", "dflash_config"), ("", "The draft model's config", None)],
)
def test_a_config_whose_type_cannot_be_inspected(path: str, where: str, field: str | None) -> None:
    with pytest.raises(ParallelDraftingConfigError) as info:
        field_getter(_Hostile(), path)
    assert str(info.value) == f"Could not inspect {where}: RuntimeError: meta"
    assert info.value.field == field
