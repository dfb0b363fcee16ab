"""Exact edges of reading a config.json (found by mutation testing)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from drafting_config.files.json_files import ConfigFileError, load_config_json


@pytest.fixture
def digit_limit() -> Iterator[int]:
    """Python's integer digit limit, lowered to 640 for the test (as ``-X int_max_str_digits``)."""
    previous = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)
    try:
        yield 640
    finally:
        sys.set_int_max_str_digits(previous)


def test_the_over_long_integer_is_placed_exactly(tmp_path: Path, digit_limit: int) -> None:
    # Before it, on other lines: an integer of exactly the limit (readable), and long
    # floats with a fraction or an exponent only (never refused).  After it: more lines.
    text = (
        '\n{"at_limit": '
        + "1" * digit_limit
        + ',\n "x": '
        + "9" * 700
        + '.5, "y": '
        + "9" * 700
        + 'e5, "z": '
        + "7" * (digit_limit + 1)
        + "\n}\n"
    )
    path = tmp_path / "config.json"
    path.write_text(text)
    with pytest.raises(ConfigFileError) as info:
        load_config_json(path)
    column = len(' "x": ') + 700 + len('.5, "y": ') + 700 + len('e5, "z": ') + 1
    assert info.value.problem == (
        f"an integer literal with 641 digits at line 3, column {column}; integers longer "
        "than 640 digits cannot be read (no id or size is that long)."
    )


def test_an_over_long_integer_on_the_first_line(tmp_path: Path, digit_limit: int) -> None:
    path = tmp_path / "config.json"
    path.write_text('{"z": -' + "7" * 1000 + "}")
    with pytest.raises(ConfigFileError) as info:
        load_config_json(path)
    assert info.value.problem.startswith(
        "an integer literal with 1,000 digits at line 1, column 7; integers longer than 640 "
    )
