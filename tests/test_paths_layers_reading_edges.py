"""Exact edges of path escapes, layer-list errors and unreadable configs (found by mutation
testing)."""

from __future__ import annotations

import pytest

from drafting_config import ParallelDraftingConfigError
from drafting_config.layers import check_layer_ids
from drafting_config.paths import display_path, parse_display_path

_EXPECTED = (
    "must be a non-empty JSON array of unique, strictly increasing layer ids (ints, not bools)"
)


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


@pytest.mark.parametrize(
    ("value", "options", "message"),
    [
        ([], {}, f"`f` {_EXPECTED}, each at least 0; got [] (list): it is empty."),
        (
            [0, 5],
            {"num_layers": 4},
            f"`f` {_EXPECTED}, from 0 to 3 (the target has 4 layers); got [0, 5] (list): "
            "item 1 is 5.",
        ),
        (
            [1, 9],
            {"offset": 1, "num_layers": 4, "num_layers_source": "num_target_layers"},
            f"`f` {_EXPECTED}, from 1 to 4 (the target has 4 layers: num_target_layers = 4); "
            "got [1, 9] (list): item 1 is 9, which taps target layer 8. Speculators-format "
            "ids are 1-based: vLLM taps target layer id - 1, so 1 names the target's first "
            "layer.",
        ),
        (
            [3, 0],
            {"offset": 2},
            f"`f` {_EXPECTED}, each at least 2; got [3, 0] (list): item 1 is 0, after 3. Ids "
            "here are shifted: vLLM taps target layer id - 2.",
        ),
    ],
)
def test_layer_list_errors_read_exactly(
    value: object, options: dict[str, object], message: str
) -> None:
    with pytest.raises(ParallelDraftingConfigError) as info:
        check_layer_ids("f", value, **options)  # type: ignore[arg-type]
    assert str(info.value) == message
    assert info.value.field == "f"
