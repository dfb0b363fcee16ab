"""Path arguments (str, bytes, os.PathLike) and the reversible escaping of paths in messages."""

from __future__ import annotations

import os
import sys
from pathlib import Path, PurePosixPath
from unittest import mock

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from drafting_config.values.errors import ParallelDraftingConfigError
from drafting_config.values.paths import (
    as_path,
    display_path,
    parse_display_path,
    printable,
    printable_lines,
    runner_inert,
)

UTF8_FILESYSTEM = sys.getfilesystemencoding() == "utf-8"


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        (b"/models/qwen3/config.json", "/models/qwen3/config.json"),
        (b"/m/caf\xc3\xa9", "/m/caf\u00e9"),  # printable non-ASCII stays as it is
        (b"a\\b", "a\\\\b"),
        (b"forged\nOK  x.json", "forged\\nOK  x.json"),
        (b"a\tb\rc", "a\\tb\\rc"),
        (b"\x1b[31mred", "\\x1b[31mred"),
        (b"nul\x00del\x7f", "nul\\x00del\\x7f"),
        (b"latin1-\xe9", "latin1-\\xe9"),  # not UTF-8: one byte
        (b"\xff\xfe", "\\xff\\xfe"),
        (b"\xc2\x85", "\\u0085"),  # U+0085, a C1 control that some consoles break lines on
        (b"x\xe2\x80\xa8y", "x\\u2028y"),  # LINE SEPARATOR
        (b"evil\xe2\x80\xaefdp.json", "evil\\u202efdp.json"),  # a bidi override
        (b"\xed\xa0\x80", "\\xed\\xa0\\x80"),  # an encoded surrogate is not UTF-8
        (b"tag\xf3\xa0\x80\x81", "tag\\U000e0001"),  # a format character beyond U+FFFF
    ],
)
def test_display_path_escapes(raw: bytes, shown: str) -> None:
    assert display_path(raw) == shown
    if UTF8_FILESYSTEM:
        assert display_path(os.fsdecode(raw)) == shown
    assert parse_display_path(shown) == raw
    assert shown.isprintable()


def test_printable_paths_are_returned_unchanged() -> None:
    path = "/data/models/Qwen3-8B/config.json"
    assert display_path(path) is path


@given(st.binary())
@example(b"\\x41")  # a path whose own text looks like an escape
@example(b"\\")
def test_bytes_round_trip(raw: bytes) -> None:
    shown = display_path(raw)
    assert parse_display_path(shown) == raw
    assert shown.isprintable()
    assert "\n" not in shown


@pytest.mark.skipif(not UTF8_FILESYSTEM, reason="fsdecode is UTF-8 with surrogateescape here")
@given(st.binary())
def test_str_from_fsdecode_shows_like_its_bytes(raw: bytes) -> None:
    assert display_path(os.fsdecode(raw)) == display_path(raw)
    assert os.fsdecode(parse_display_path(display_path(os.fsdecode(raw)))) == os.fsdecode(raw)


@given(st.text())
def test_any_str_round_trips(text: str) -> None:
    # An os.fsdecode escape (U+DC80..U+DCFF) stands for its byte; every other
    # character, lone surrogates included, for its UTF-8 (surrogatepass) bytes.
    shown = display_path(text)
    assert shown.isprintable()
    expected = b"".join(
        bytes([ord(c) - 0xDC00])
        if 0xDC80 <= ord(c) <= 0xDCFF
        else c.encode("utf-8", "surrogatepass")
        for c in text
    )
    assert parse_display_path(shown) == expected


def test_lone_surrogates_are_shown_and_never_raise() -> None:
    assert display_path("a\ud800b") == "a\\ud800b"
    assert parse_display_path("a\\ud800b") == "a\ud800b".encode("utf-8", "surrogatepass")
    assert display_path("\udcff") == "\\xff"  # an fsdecode escape is a byte


@pytest.mark.parametrize(
    "text",
    ["\\", "a\\", "\\q", "\\x4", "\\xzz", "\\u12", "\\U0011ffff", "\\u12g4", "bad\ud800"],
)
def test_parse_display_path_refuses_what_display_path_never_makes(text: str) -> None:
    with pytest.raises(ValueError, match="character"):
        parse_display_path(text)


def test_parse_display_path_accepts_unescaped_characters() -> None:
    # Text written by hand (or by a Python whose Unicode tables differ) still parses.
    assert parse_display_path("a\u00a0b") == "a\u00a0b".encode()
    assert parse_display_path("\\X41".lower()) == b"A"
    assert parse_display_path("\\xAB") == b"\xab"


# -- as_path ---------------------------------------------------------------------


class _BytesPathLike:
    def __fspath__(self) -> bytes:
        return b"/models/\xff"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("/models/a", "/models/a"),
        (b"/models/a", "/models/a"),
        (Path("/models/a"), "/models/a"),
        (PurePosixPath("/models/a"), "/models/a"),
        (_BytesPathLike(), os.fsdecode(b"/models/\xff")),
        (b"/models/\xff", os.fsdecode(b"/models/\xff")),
    ],
)
def test_as_path_accepts_str_bytes_and_path_like(value: object, expected: str) -> None:
    result = as_path(value)
    assert result == expected
    assert type(result) is str


class _RaisingFspath:
    def __fspath__(self) -> str:
        raise RuntimeError("no")


class _WrongFspath:
    def __fspath__(self) -> object:
        return 42


@pytest.mark.parametrize(
    ("value", "phrase"),
    [
        (42, "got 42 (int)"),
        (None, "got None"),
        (["/a"], "(list)"),
        (mock.Mock(spec=str), "(Mock)"),
        (_RaisingFspath(), "__fspath__() failed (RuntimeError)"),
        (_WrongFspath(), "__fspath__() failed (TypeError)"),
    ],
    ids=["int", "None", "list", "mock-str", "raising-fspath", "wrong-fspath"],
)
def test_as_path_refuses_other_types_naming_the_argument(value: object, phrase: str) -> None:
    with pytest.raises(ParallelDraftingConfigError) as info:
        as_path(value, argument="tokenizer")
    assert str(info.value).startswith("`tokenizer` ")
    assert phrase in str(info.value)
    assert not isinstance(info.value, TypeError)


@given(st.text())
def test_displayed_text_written_to_a_narrow_encoding_parses_back(text: str) -> None:
    """Under an ASCII or Latin-1 stdout, a character the encoding lacks is written as
    ``\\uNNNN``, never ``\\xNN`` (a raw byte in the grammar): U+0080 to U+00FF included."""
    from drafting_config.values.paths import output_errors

    shown = display_path(text)
    for encoding in ("ascii", "latin-1", "cp1252"):
        written = shown.encode(encoding, errors=output_errors()).decode(encoding)
        assert parse_display_path(written) == parse_display_path(shown)


def test_a_latin_1_character_is_escaped_as_a_character_under_ascii() -> None:
    from drafting_config.values.paths import output_errors

    written = display_path("/m/caf\xe9").encode("ascii", errors=output_errors()).decode()
    assert written == "/m/caf\\u00e9"
    assert parse_display_path(written) == "/m/café".encode()


# --- Exact edges of path escapes and unreadable configs -------------------------------------------


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


@given(st.text())
@example("##[stop-commands]pause")
@example(" \t::warning title=x::y")
@example("#\n##[x")
def test_printed_text_starts_no_workflow_command_of_a_ci_runner(text: str) -> None:
    """Issue 41 item 3: ``##[`` anywhere, ``::`` at a line's start, never survive."""
    for line in (printable(text), runner_inert(text)):
        assert "##[" not in line
        assert not line.lstrip().startswith("::")
    assert runner_inert(runner_inert(text)) == runner_inert(text)


@given(st.binary())
@example(b"::warning title=drafting-config::all drafts OK")
@example(b"\\##[x")
@example(b"\\x23#[")
def test_a_displayed_path_made_inert_still_reads_back(raw: bytes) -> None:
    shown = printable(display_path(raw))
    assert parse_display_path(shown) == raw


LINE_PIECES = st.lists(
    st.one_of(st.sampled_from(["::", "##[", "#", "[", ":", " ", "\n", "\x1b", "ok"]), st.text()),
    max_size=8,
).map("".join)
"""Lines holding workflow-command starts, control characters, pieces of either that only
joining two lines would complete, and any other text."""


@given(lines=st.lists(LINE_PIECES, max_size=6))
def test_a_block_of_lines_is_made_printable_as_each_line_is(lines: list[str]) -> None:
    """:func:`printable_lines` tests the whole block at once, but gives what
    :func:`printable` gives each line."""
    assert printable_lines(lines) == [printable(line) for line in lines]
