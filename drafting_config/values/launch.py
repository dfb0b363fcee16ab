"""A launch as the user gives it: the words of the command line that serves a draft.

A :class:`Launch` is engine-free: its words, as a POSIX shell splits them, either a whole
command line (``vllm serve TARGET --speculative-config '{...}'``) or only an engine's
options (``--speculative-config '{...}'``).  Which engine's program it runs, which option
names and values it may use and what they mean are each engine's to read, from its own
tables per release (:meth:`~drafting_config.engines.interface.EngineRules.launch_facts`, and
the engine's launch rules).  This module only splits words, reads ``@FILE`` arguments and
JSON objects, and names the option a bad value was given to.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from drafting_config.values.errors import describe_value


class LaunchError(ValueError):
    """A launch that cannot be read at all (an unparseable shell string, malformed JSON,
    an ``@FILE`` that cannot be read): the caller's mistake, named with the option, the value
    and what was expected."""


@dataclass(frozen=True)
class Launch:
    """A launch: the words of a command line, or of some of an engine's options."""

    words: tuple[str, ...]
    """The words, as a POSIX shell splits them (quotes removed)."""

    @property
    def shown(self) -> str:
        """The words joined back into one shell-quoted line, for messages."""
        return shlex.join(self.words)


def split_words(text: str, option: str = "launch") -> tuple[str, ...]:
    """``text`` split as a POSIX shell splits it (``shlex.split``; comments are not
    stripped).

    Raises:
        LaunchError: an unclosed quote or a trailing escape, naming ``option``.
    """
    try:
        return tuple(shlex.split(text))
    except ValueError as error:
        raise LaunchError(
            f"{option}: cannot split {describe_value(text)} into words as a shell would "
            f"({error}); expected a command line with balanced quotes."
        ) from None


def launch_of(value: object, option: str = "launch") -> Launch:
    """``value`` read as a launch: a :class:`Launch`, a string (split as a shell would) or a
    list or tuple of strings (the words).

    Raises:
        LaunchError: anything else, or a string that cannot be split, naming ``option``.
    """
    if isinstance(value, Launch):
        return value
    if isinstance(value, str):
        return Launch(split_words(value, option))
    if isinstance(value, (list, tuple)) and all(isinstance(word, str) for word in value):
        return Launch(tuple(value))
    raise LaunchError(
        f"{option} must be a command line (a string) or its words (a list of strings), "
        f"got {describe_value(value)}."
    )


def option_value(value: str, option: str) -> str:
    """An option's value, or with ``@FILE`` the text of that file (as ``vllm serve`` users
    keep a ``--speculative-config`` in a file).

    Raises:
        LaunchError: the file cannot be read, naming ``option`` and the file.
    """
    if not value.startswith("@"):
        return value
    path = Path(value[1:])
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise LaunchError(
            f"{option}: cannot read {describe_value(value)} ({reason}); expected @FILE to "
            "name a readable UTF-8 file."
        ) from None


def launch_words(value: str, option: str) -> tuple[str, ...]:
    """The words of a launch option's value: the value split as a shell would
    (:func:`split_words`), or with ``@FILE`` the command that file holds, read as a shell
    reads a script: ``#`` comments dropped and a backslash at the end of a line joining it
    to the next.  A model repository keeps its documented launch line in such a file
    (``serve.sh`` beside ``config.json``) and checks it with ``--launch @serve.sh``.

    Raises:
        LaunchError: the file cannot be read, or its text cannot be split, naming ``option``.
    """
    if not value.startswith("@"):
        return split_words(value, option)
    text = option_value(value, option).replace("\\\n", "")
    try:
        return tuple(shlex.split(text, comments=True))
    except ValueError as error:
        raise LaunchError(
            f"{option}: cannot split the command in {describe_value(value)} into words as a "
            f"shell would ({error}); expected one command line with balanced quotes."
        ) from None


def json_object(text: str, option: str) -> dict[str, object]:
    """``text`` parsed as one JSON object (a ``--speculative-config`` value).

    Raises:
        LaunchError: malformed JSON, or JSON that is not an object, naming ``option``, the
            value and where it fails.
    """
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise LaunchError(
            f"{option}: {describe_value(text)} is not JSON ({error.msg} at line "
            f"{error.lineno} column {error.colno}); expected a JSON object such as "
            '\'{"method": "dflash", "num_speculative_tokens": 7}\'.'
        ) from None
    if not isinstance(value, dict):
        raise LaunchError(f"{option}: expected a JSON object, got {describe_value(value)}.")
    return value


@dataclass(frozen=True)
class Option:
    """One option of a launch, as written."""

    name: str
    """The option as written, before any ``=`` (``"--speculative-config"``, ``"-tp"``)."""
    value: str | None
    """Its value (``--name=value``, or the next word when that is no option), or ``None``."""


def read_options(words: Sequence[str]) -> tuple[tuple[str, ...], tuple[Option, ...]]:
    """The positional words and the options of ``words`` (a launch less its program).

    A word starting with ``-`` that is not a negative number is an option; it takes the
    text after its ``=``, else the next word unless that is an option itself (so a flag
    directly before a positional word takes it: engines read their positional model where
    their parser puts it, right after the program).
    """
    positional: list[str] = []
    options: list[Option] = []
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if not _is_option(word):
            positional.append(word)
            continue
        name, equals, value = word.partition("=")
        if equals:
            options.append(Option(name, value))
        elif index < len(words) and not _is_option(words[index]):
            options.append(Option(name, words[index]))
            index += 1
        else:
            options.append(Option(name, None))
    return tuple(positional), tuple(options)


def _is_option(word: str) -> bool:
    """Whether ``word`` is an option name (``-x``, ``--name``), not a value (``-1``, ``-``)."""
    if not word.startswith("-") or word == "-":
        return False
    try:
        float(word)
    except ValueError:
        return True
    return False
