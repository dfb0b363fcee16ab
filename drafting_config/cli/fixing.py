"""``check --fix`` and ``check --diff``: the certain fixes, applied to the files named.

A finding whose fix is certain and uses only values already in the file carries it as an
edit (:class:`~drafting_config.values.edits.ConfigEdit`); this module gathers the edits
of each draft's verdicts, applies them to its ``config.json``
(:func:`~drafting_config.files.config_writing.fixed_text`) and, with ``--fix``, writes
the file back (:func:`~drafting_config.files.config_writing.write_atomically`) where
writing is safe (:func:`~drafting_config.files.config_writing.writable_config`: never a
repo id, a symbolic link, a file that is not regular, a Hugging Face cache; never the
paths read from standard input).  ``--diff`` prints the change as a unified diff.  The
command then checks every draft again, so that the exit status is the re-check's.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TextIO

from drafting_config.files.config_writing import (
    FixRefusedError,
    fixed_text,
    writable_config,
    write_atomically,
)
from drafting_config.files.json_files import MAX_CONFIG_BYTES
from drafting_config.values.edits import ConfigEdit, EditError
from drafting_config.values.paths import display_path, printable
from drafting_config.verdicts import Verdict

__all__ = ["fix_paths"]

STDIN_ARGUMENT = "-"


@dataclass(frozen=True)
class FixedEdit:
    """An edit planned for a draft, with the code of the finding that carried it."""

    code: str
    edit: ConfigEdit


def planned_edits(verdicts: Iterable[Verdict]) -> tuple[list[FixedEdit], list[str]]:
    """The edits the findings of ``verdicts`` carry, each once, in the order found; and one
    line per edit left out because it conflicts with one planned before it (another value
    for the same key, or a change inside a key deleted)."""
    planned: list[FixedEdit] = []
    conflicts: list[str] = []
    for verdict in verdicts:
        for finding in (*verdict.errors, *verdict.warnings, *verdict.notes):
            edit = getattr(finding, "edit", None)
            if not isinstance(edit, ConfigEdit) or any(p.edit == edit for p in planned):
                continue
            code = str(getattr(finding, "code", None) or "fix")
            clash = next((p for p in planned if _overlaps(p.edit, edit)), None)
            if clash is None:
                planned.append(FixedEdit(code, edit))
            else:
                conflicts.append(f"not applied {code}: {edit}: it conflicts with {clash.edit}")
    return planned, conflicts


def _overlaps(first: ConfigEdit, second: ConfigEdit) -> bool:
    """Whether one edit's path is the other's or lies inside it."""
    shorter = min(len(first.path), len(second.path))
    return first.path[:shorter] == second.path[:shorter]


def fix_paths(
    arguments: Sequence[str],
    verdicts_of: Callable[[str], Iterable[Verdict]],
    *,
    write: bool,
    diff: bool,
    out: TextIO,
) -> None:
    """Apply the certain fixes of each path argument's verdicts.

    Args:
        arguments: the paths as given on the command line (``-`` for standard input).
        verdicts_of: the verdicts of one argument (each engine's).
        write: write the fixed files (``--fix``); else only show them.
        diff: print each change as a unified diff (``--diff``).
        out: where the lines go: one per edit written, one per file not fixed and why.
    """
    for argument in arguments:
        if argument == STDIN_ARGUMENT:
            out.write(
                "-: not fixed: paths read from standard input are never fixed; name each "
                "file as an argument\n"
            )
            continue
        planned, conflicts = planned_edits(verdicts_of(argument))
        if not planned:
            continue
        shown = display_path(argument)
        try:
            path = writable_config(argument)
            shown = display_path(os.fspath(path))
            text = _read_text(path)
            fixed = fixed_text(text, [item.edit for item in planned])
        except (FixRefusedError, EditError) as error:
            out.write(printable(f"{shown}: not fixed: {error}") + "\n")
            continue
        if diff:
            out.writelines(_diff(text, fixed, shown))
        if write and fixed != text:
            try:
                write_atomically(path, fixed)
            except OSError as error:
                out.write(printable(f"{shown}: not fixed: cannot write: {error}") + "\n")
                continue
            for item in planned:
                out.write(printable(f"{shown}: fixed {item.code}: {item.edit}") + "\n")
        for line in conflicts:
            out.write(printable(f"{shown}: {line}") + "\n")


def _read_text(path: os.PathLike[str]) -> str:
    """The file's text, UTF-8 (a byte-order mark kept, as part of the text)."""
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_CONFIG_BYTES + 1)
    except OSError as error:
        raise FixRefusedError(f"cannot be read: {error.strerror or error}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise FixRefusedError("not UTF-8") from None


def _diff(before: str, after: str, shown: str) -> list[str]:
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=shown,
        tofile=shown,
    )
    return [
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    ]
