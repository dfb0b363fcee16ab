"""What the text output knows of the terminal it is written to: colour and width.

Colour is on where a person reads the output (a terminal) and off where a program does
(a pipe, a file), as ruff and mypy decide: ``--color always`` or ``never`` decides first;
then ``NO_COLOR`` (set and not empty) turns it off and ``FORCE_COLOR`` (set and not
empty) on, ``NO_COLOR`` winning; then a terminal that is not ``TERM=dumb`` gets colour.

The width findings are wrapped at is ``COLUMNS`` when it holds a whole number, else the
terminal's, never under :data:`MIN_WIDTH`; output that goes to no terminal (a pipe, a file,
the docs' transcripts) is wrapped at :data:`PIPE_WIDTH`.

A wait longer than a second (``--download``) shows a spinner on standard error, on a
terminal only (:func:`waiting`).

Nothing is imported for the terminal beyond ``os``: no ``curses``, and ``threading`` only
once a spinner is needed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Final, TextIO

COLOR_CHOICES: Final = ("auto", "always", "never")
"""``--color``: ``auto`` (the default) decides by the environment and the stream."""

MIN_WIDTH: Final = 80
"""The narrowest width findings are wrapped at, however narrow the terminal."""

PIPE_WIDTH: Final = 160
"""The width of output that goes to no terminal and has no ``COLUMNS``: the README's and
the docs' transcripts are printed at this width."""


@dataclass(frozen=True)
class Style:
    """How text output is written: with colour or not, and wrapped at how many columns."""

    colour: bool = False
    width: int = PIPE_WIDTH


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):  # closed, or no real stream
        return False


def colour_wanted(stream: TextIO, choice: str = "auto") -> bool:
    """Whether to write colour to ``stream`` (see the module's documentation)."""
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return _is_terminal(stream) and os.environ.get("TERM") != "dumb"


def width_of(stream: TextIO) -> int:
    """The width to wrap at: ``COLUMNS``, else the terminal's, at least :data:`MIN_WIDTH`;
    :data:`PIPE_WIDTH` for a stream that is no terminal."""
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) > 0:
        return max(int(columns), MIN_WIDTH)
    if not _is_terminal(stream):
        return PIPE_WIDTH
    try:
        return max(os.get_terminal_size(stream.fileno()).columns, MIN_WIDTH)
    except (AttributeError, ValueError, OSError):
        return PIPE_WIDTH


def style_for(stream: TextIO, choice: str = "auto") -> Style:
    """The style of text output written to ``stream`` under ``--color choice``."""
    return Style(colour=colour_wanted(stream, choice), width=width_of(stream))


SPINNER_DELAY: Final = 1.0
"""Seconds a wait lasts before :func:`waiting` shows its spinner."""

_FRAMES: Final = "|/-\\"


@contextmanager
def waiting(message: str, stream: TextIO, *, delay: float | None = None) -> Iterator[None]:
    """Show ``message`` with a spinner on ``stream`` while the ``with`` block runs longer
    than ``delay`` seconds (default :data:`SPINNER_DELAY`), on a terminal only; the line is
    cleared when it ends."""
    if not _is_terminal(stream):
        yield
        return
    after = SPINNER_DELAY if delay is None else delay
    import threading  # noqa: PLC0415 (only a download on a terminal needs a thread)

    done = threading.Event()

    def spin() -> None:
        if done.wait(after):
            return
        frame = 0
        while not done.is_set():
            stream.write(f"\r{_FRAMES[frame % len(_FRAMES)]} {message}")
            stream.flush()
            frame += 1
            done.wait(0.1)
        stream.write("\r\x1b[K")
        stream.flush()

    spinner = threading.Thread(target=spin, name="drafting-config spinner", daemon=True)
    spinner.start()
    try:
        yield
    finally:
        done.set()
        spinner.join()
