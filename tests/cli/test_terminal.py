"""The text output on a terminal and in a pipe (issue 42, points 1, 3 and 6): colour where
a person reads it, none where a program does; wrapped at the terminal's width, never
inside a quoted command, a path or a code; ``drafting-config rule``; the spinner of a wait.
"""

from __future__ import annotations

import fcntl
import io
import os
import pty
import re
import struct
import subprocess
import sys
import termios
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drafting_config.cli import terminal
from drafting_config.cli.code_page import code_page, rule_lines
from drafting_config.cli.render import (
    FIXABLE_MARK,
    STRICT_FAILED,
    _wrapped_at_spaces,
    block_lines,
    wrapped,
)
from drafting_config.cli.run import EXIT_USAGE
from drafting_config.cli.terminal import MIN_WIDTH, PIPE_WIDTH, Style, style_for, waiting
from drafting_config.values.codes import CODES
from drafting_config.values.paths import printable
from drafting_config.verdicts import Verdict, check
from tests.conftest import REPO, run_cli
from tests.engines.vllm import PARALLEL_SWITCH, tokens_read  # noqa: F401 (a fixture)

ANSI = re.compile(r"\x1b\[[0-9;]*m")
INVALID = REPO / "examples/invalid/pard-token-as-string"
NOT_CACHED = "z-lab/Qwen3-4B-DFlash-b16"
COMMAND = f"`hf download {NOT_CACHED} config.json`"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("environment", "choice", "on_terminal", "colour"),
    [
        ({}, "auto", True, True),
        ({}, "auto", False, False),
        ({"NO_COLOR": "1"}, "auto", True, False),
        ({"NO_COLOR": ""}, "auto", True, True),  # set but empty: not set
        ({"FORCE_COLOR": "1"}, "auto", False, True),
        ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, "auto", False, False),
        ({"TERM": "dumb"}, "auto", True, False),
        ({"NO_COLOR": "1"}, "always", False, True),
        ({"FORCE_COLOR": "1"}, "never", True, False),
    ],
)
def test_colour_is_decided_by_option_then_environment_then_stream(
    monkeypatch: pytest.MonkeyPatch,
    environment: dict[str, str],
    choice: str,
    on_terminal: bool,
    colour: bool,
) -> None:
    monkeypatch.setenv("TERM", "xterm")
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    stream = _Terminal() if on_terminal else io.StringIO()
    assert style_for(stream, choice).colour is colour


@pytest.mark.parametrize(
    ("columns", "width"), [("100", 100), ("300", 300), ("20", MIN_WIDTH), ("x", PIPE_WIDTH)]
)
def test_width_is_columns_with_a_floor(
    monkeypatch: pytest.MonkeyPatch, columns: str, width: int
) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    assert style_for(io.StringIO()).width == width
    assert MIN_WIDTH <= 80


def test_a_pipe_without_columns_gets_the_transcripts_width() -> None:
    assert style_for(io.StringIO()).width == PIPE_WIDTH


@pytest.mark.usefixtures("tokens_read")  # the bundled invalid draft: its token read, refused
def test_colour_marks_the_headline_severity_and_code_and_nothing_else() -> None:
    verdicts = [check(INVALID, check_tokenizer=False, check_weights=False)]
    plain = block_lines(verdicts, False)
    coloured = block_lines(verdicts, False, style=Style(colour=True))
    assert [ANSI.sub("", line) for line in coloured] == plain
    assert "\x1b[1;31mINVALID\x1b[0m" in coloured[0]
    # `[*]`: --fix unquotes the token id
    assert "\x1b[1;31merror\x1b[0m \x1b[1mtoken-not-int\x1b[0m [*] pard_token: " in "\n".join(
        coloured
    )
    assert "\x1b[1;36mnote\x1b[0m \x1b[1mtarget-not-given\x1b[0m: " in "\n".join(coloured)


def test_no_colour_in_a_pipe_and_always_when_asked(capsys: pytest.CaptureFixture[str]) -> None:
    assert not ANSI.search(run_cli(capsys, "check", INVALID).out)
    assert ANSI.search(run_cli(capsys, "check", "--color", "always", INVALID).out)
    assert not ANSI.search(run_cli(capsys, "check", "--color", "never", INVALID).out)


def test_force_color_colours_a_pipe(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert ANSI.search(run_cli(capsys, "check", INVALID).out)
    monkeypatch.setenv("NO_COLOR", "1")
    assert not ANSI.search(run_cli(capsys, "check", INVALID).out)


@pytest.mark.parametrize("columns", [80, 100, 120])
def test_findings_wrap_at_columns_never_inside_a_quoted_command(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    columns: int,
) -> None:
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("COLUMNS", str(columns))
    run = run_cli(capsys, "check", NOT_CACHED)
    assert [line for line in run.lines if len(line) > columns] == []
    assert any(COMMAND in line for line in run.lines), run.out  # whole, to copy
    assert len(run.lines) > 3  # wrapped


def test_a_wide_terminal_keeps_a_finding_on_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("COLUMNS", "400")
    run = run_cli(capsys, "check", NOT_CACHED)
    assert any(line.lstrip().startswith("fix:") and COMMAND in line for line in run.lines)


def _under_a_pty(args: list[str], columns: int, environment: dict[str, str]) -> str:
    """What ``python -m drafting_config ARGS`` prints to a pseudo-terminal ``columns`` wide."""
    parent, child = pty.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "FORCE_COLOR", "NO_COLOR")}
    process = subprocess.Popen(
        [sys.executable, "-m", "drafting_config", *args],
        stdout=child,
        stderr=child,
        cwd=REPO,
        env={**env, "TERM": "xterm", **environment},
    )
    os.close(child)
    chunks = []
    while True:
        try:
            chunk = os.read(parent, 65536)
        except OSError:  # the child closed its end
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=60)
    os.close(parent)
    return b"".join(chunks).decode().replace("\r\n", "\n")


@pytest.mark.slow
def test_a_terminal_gets_colour_and_its_width(tmp_path: Path) -> None:
    hub = {"HF_HOME": str(tmp_path), "HF_HUB_OFFLINE": "1"}
    printed = _under_a_pty(["check", NOT_CACHED], 90, hub)
    assert "\x1b[1;33mNOT CHECKED\x1b[0m" in printed
    lines = ANSI.sub("", printed).splitlines()
    assert max(map(len, lines)) <= 90 < max(map(len, lines)) + 20
    assert any(COMMAND in line for line in lines)
    narrow = ANSI.sub("", _under_a_pty(["check", NOT_CACHED], 40, hub)).splitlines()
    assert max(map(len, narrow)) > 40  # the floor: never narrower than MIN_WIDTH
    assert max(map(len, narrow)) <= MIN_WIDTH


@pytest.mark.slow
def test_no_color_on_a_terminal_and_the_pipe_unchanged(tmp_path: Path) -> None:
    read = ["--engine", PARALLEL_SWITCH]  # a release that reads the bundled invalid draft's token
    printed = _under_a_pty(["check", *read, str(INVALID)], 100, {"NO_COLOR": "1"})
    assert "INVALID" in printed
    assert not ANSI.search(printed)
    piped = subprocess.run(
        [sys.executable, "-m", "drafting_config", "check", *read, str(INVALID)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "TERM": "xterm"},
    )
    assert not ANSI.search(piped.stdout)


def test_rule_says_what_a_code_means_from_the_code_table(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = CODES["token-placeholder"]
    run = run_cli(capsys, "rule", "token-placeholder")
    assert run.status == 0
    assert run.lines[0] == f"token-placeholder (step: {code.step.value})"
    assert " ".join(run.out.split()).count(code.summary) == 1
    assert f"fix: {code.fix}" in " ".join(run.out.split())
    assert "engine code: " in run.out


def test_rule_all_lists_every_code_of_the_page(capsys: pytest.CaptureFixture[str]) -> None:
    run = run_cli(capsys, "rule", "--all")
    assert run.status == 0
    named = [line.split(" (step: ")[0] for line in run.lines if " (step: " in line]
    assert sorted(named) == sorted(CODES)
    assert all(f"`{name}`" in code_page() for name in named)
    assert rule_lines() == run.lines


def test_rule_gives_the_engine_code_behind_a_code(capsys: pytest.CaptureFixture[str]) -> None:
    name, code = next((n, c) for n, c in CODES.items() if c.evidence is not None)
    run = run_cli(capsys, "rule", name)
    assert code.evidence is not None
    assert " ".join(code.evidence.split()) in " ".join(run.out.split())


def test_an_unknown_code_exits_2_naming_it_and_the_closest(
    capsys: pytest.CaptureFixture[str],
) -> None:
    run = run_cli(capsys, "rule", "token-placeholdr")
    assert run.status == EXIT_USAGE
    assert "unknown code 'token-placeholdr'; did you mean token-placeholder" in run.err
    assert run.out == ""
    assert run_cli(capsys, "rule").status == EXIT_USAGE


def test_explain_of_a_code_points_to_rule(capsys: pytest.CaptureFixture[str]) -> None:
    run = run_cli(capsys, "explain", "token-placeholder")
    assert run.status == EXIT_USAGE
    assert "`drafting-config rule token-placeholder`" in run.err


def test_help_and_errors_name_commands_not_docs_paths(
    capsys: pytest.CaptureFixture[str],
) -> None:
    helped = " ".join(run_cli(capsys, "check", "--help").out.split())
    assert "docs/" not in helped
    assert "drafting-config rule" in helped
    assert "drafting-config schema" in helped
    run = run_cli(capsys, "check", "--ignore", "no-such-code", INVALID)
    assert "docs/" not in run.err
    assert "drafting-config rule --all" in run.err


def test_a_fixable_finding_is_marked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "config.json"
    path.write_text(
        '{"architectures": "LlamaForCausalLM", "model_type": "llama", "pard_token": 5, '
        '"vocab_size": 100, "hidden_size": 8}',
        encoding="utf-8",
    )
    run = run_cli(capsys, "check", "--no-tokenizer", "--no-weights", path)
    assert f"error architectures-string {FIXABLE_MARK} architectures: " in run.out
    assert f"note target-not-given {FIXABLE_MARK}" not in run.out


def test_the_spinner_shows_after_the_delay_on_a_terminal_only() -> None:
    shown = _Terminal()
    with waiting("waiting", shown, delay=0.05):
        time.sleep(0.4)
    assert "| waiting" in shown.getvalue()
    assert shown.getvalue().endswith("\r\x1b[K")  # cleared
    quick = _Terminal()
    with waiting("waiting", quick, delay=5):
        pass
    assert quick.getvalue() == ""
    piped = io.StringIO()
    with waiting("waiting", piped, delay=0):
        time.sleep(0.2)
    assert piped.getvalue() == ""
    assert terminal.SPINNER_DELAY == 1.0


WORD = st.text(alphabet="abcdefghij-_./0123456789", min_size=1, max_size=30)
"""Words of paths, codes and identifiers (a leading `::` is made inert: tested apart)."""


@given(
    before=st.lists(WORD, max_size=30),
    command=st.lists(WORD, min_size=1, max_size=6),
    after=st.lists(WORD, max_size=30),
    width=st.integers(MIN_WIDTH, 200),
)
def test_wrapping_never_breaks_a_word_or_a_quoted_span(
    before: list[str], command: list[str], after: list[str], width: int
) -> None:
    quoted = f"`{' '.join(command)}`"
    lines = wrapped(" ".join([*before, quoted, *after]), "  ", width)
    assert sum(quoted in line for line in lines) == 1  # whole, on one line
    words = [word for line in lines for word in line.replace(quoted, "Q").split()]
    assert words == [*before, "Q", *after]  # no word broken, none lost
    for line in lines:
        assert len(line) <= width or len(line.split()) == 1 or quoted in line


def test_the_strict_headline_is_coloured_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "config.json"
    path.write_text('{"pard_token": 2, "pad_token_id": 2, "vocab_size": 100}', encoding="utf-8")
    run = run_cli(capsys, "check", "--strict", "--color", "always", "--no-tokenizer", path)
    assert run.lines[0] == (f"\x1b[1m{path}\x1b[0m: \x1b[1;31m{STRICT_FAILED}\x1b[0m")


@pytest.mark.usefixtures("tokens_read")  # the bundled invalid draft: its token read, refused
@pytest.mark.parametrize("download", [True, False])
def test_a_slow_download_shows_the_spinner_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], download: bool
) -> None:
    from drafting_config.cli import run as cli
    from drafting_config.verdicts import check_each as real

    def slow(*args: object, **kwargs: object) -> Iterator[Verdict]:
        time.sleep(0.5)  # the hub, slow to answer
        yield from real(*args, **kwargs)  # type: ignore[arg-type]  # check_each's own

    monkeypatch.setattr(cli, "check_each", slow)
    monkeypatch.setattr(terminal, "SPINNER_DELAY", 0.05)
    shown = _Terminal()
    monkeypatch.setattr(sys, "stderr", shown)
    args: list[str | Path] = ["check", "--download", INVALID] if download else ["check", INVALID]
    run = run_cli(capsys, *args)
    assert run.lines[0].endswith(": INVALID")
    assert ("waiting for the hub (--download)..." in shown.getvalue()) is download


@given(text=st.text(max_size=120), indent=st.sampled_from(["", "  ", "      "]))
def test_a_line_that_fits_is_what_textwrap_makes_of_it(text: str, indent: str) -> None:
    """The short cut for a line that fits gives textwrap's own result, whatever the text
    (spaces at its ends, tabs, control characters escaped or not)."""
    expected = textwrap.wrap(
        printable(text),
        width=160,
        initial_indent=indent,
        subsequent_indent=indent + "    ",
        break_long_words=False,
        break_on_hyphens=False,
    ) or [indent]
    if "`" not in text and len(expected) == 1:
        assert wrapped(text, indent, 160) == expected


def _textwrap_wrapped(text: str, indent: str, width: int) -> list[str]:
    """What :func:`wrapped` made with ``textwrap`` before it filled lines itself: the
    oracle its own filling is held to."""
    text = printable(text)
    text = re.sub(r"`[^`]*`", lambda span: span.group().replace(" ", "\ue000"), text)
    lines = textwrap.wrap(
        text,
        width=width,
        initial_indent=indent,
        subsequent_indent=indent + "    ",
        break_long_words=False,
        break_on_hyphens=False,
    ) or [indent]
    return [line.replace("\ue000", " ") for line in lines]


SPACED_TEXT = st.lists(
    st.one_of(WORD, st.text(max_size=12), st.sampled_from([" ", "  ", "`", "` `", "\t", "\n"])),
    max_size=40,
).map(" ".join)
"""Text of words, runs of spaces, quoted spans, control characters and any other text."""


@given(
    text=st.one_of(SPACED_TEXT, st.text(max_size=300)),
    indent=st.sampled_from(["", "  ", "    ", " " * 30]),
    width=st.integers(MIN_WIDTH, 200),
)
def test_wrapping_is_what_textwrap_makes_of_the_text(text: str, indent: str, width: int) -> None:
    """The lines :func:`wrapped` fills itself are textwrap's, line for line, whatever the
    text: runs of spaces kept inside a line and dropped at its ends, words longer than a
    line, quoted spans, escaped control characters."""
    assert wrapped(text, indent, width) == _textwrap_wrapped(text, indent, width)


MESSAGE_WORD = st.one_of(WORD, st.text(min_size=1, max_size=90).filter(lambda w: " " not in w))
"""A word of a message: a path or code, or any text without a space (long ones included)."""


@given(
    words=st.lists(MESSAGE_WORD, min_size=1, max_size=40),
    first=st.sampled_from(["", "  ", "    ", " " * 30]),
    width=st.integers(1, 200),
)
def test_single_spaced_text_is_filled_as_textwrap_fills_it(
    words: list[str], first: str, width: int
) -> None:
    """The filling of a text whose words are parted by single spaces (a message, nearly
    always: found by ``rfind``, no chunks made) is textwrap's, line for line, words longer
    than a line and indents as wide as the line included."""
    text = printable(" ".join(words))
    rest = first + "    "
    expected = textwrap.wrap(
        text,
        width=width,
        initial_indent=first,
        subsequent_indent=rest,
        break_long_words=False,
        break_on_hyphens=False,
    )
    assert _wrapped_at_spaces(text, width, first, rest) == expected
