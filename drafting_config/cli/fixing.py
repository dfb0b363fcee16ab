"""``check --fix`` and ``check --diff``: the certain fixes, applied to the files named.

A finding whose fix is certain and uses only values already in the file carries it as an
edit (:class:`~drafting_config.values.edits.ConfigEdit`); this module plans the edits of
each draft's verdicts (:func:`~drafting_config.values.edits.plan_edits`: each once, none of
those that disagree), makes them in the file's text in place
(:func:`~drafting_config.files.config_writing.fix_text`), checks the result again and
plans again until nothing is left to fix (the fixpoint, within one run: a fix may uncover
the next fault), and with ``--fix`` writes the file back once
(:func:`~drafting_config.files.config_writing.write_atomically`) where writing is safe
(:func:`~drafting_config.files.config_writing.writable_config`: never a repo id, a symbolic
link, a file that is not regular or has several hard links, a Hugging Face cache; never
the paths read from standard input), and only if the file still holds the bytes the check
read.  ``--diff`` prints the change as a unified diff: exactly what ``--fix`` writes.
Whatever goes wrong with one file is one line, ``PATH: not fixed: REASON``, and the run
goes on.  The command then checks every draft again, so that the exit status is the
re-check's.

Only ``--fix`` and ``--diff`` import this module, and what it needs beyond the check
(``tempfile``, ``difflib``) is imported when a file is fixed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Final, TextIO

from drafting_config.files.config_writing import (
    FixRefusedError,
    TextChange,
    fix_text,
    read_held,
    writable_config,
    write_atomically,
)
from drafting_config.values.edits import (
    ConfigEdit,
    EditError,
    EditPlan,
    PlannedEdit,
    plan_edits,
    same_edit,
)
from drafting_config.values.errors import exception_text
from drafting_config.values.paths import display_path, printable
from drafting_config.verdicts import Verdict

__all__ = ["fix_paths"]

STDIN_ARGUMENT: Final = "-"

NOTHING_TO_FIX: Final = "nothing to fix"
"""What ``--fix`` and ``--diff`` say when no draft named has a certain fix."""

MAX_ROUNDS: Final = 8
"""The most times one file is planned and fixed in a run: a fix that uncovers the next
fault is followed, a chain longer than this is left for the next run."""


def draft_plan(verdicts: Iterable[Verdict]) -> EditPlan:
    """The plan of one draft's verdicts (every engine's): what ``--fix`` applies."""
    return plan_edits(
        finding
        for verdict in verdicts
        for finding in (*verdict.errors, *verdict.warnings, *verdict.notes)
    )


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
        out: where the lines go: one per edit written, one per file not fixed and why, and
            :data:`NOTHING_TO_FIX` when no argument has a fix.
    """
    said = False
    for argument in arguments:
        if argument == STDIN_ARGUMENT:
            out.write(
                "-: not fixed: paths read from standard input are never fixed; name each "
                "file as an argument\n"
            )
            said = True
            continue
        try:
            lines = _fix_one(argument, verdicts_of, write=write, diff=diff)
        except Exception as error:  # a defect of ours: this file is not fixed, the run goes on
            problem = f"internal error: {exception_text(error, kind=True)}"
            lines = [_line(display_path(argument), f"not fixed: {problem}")]
        out.writelines(lines)
        said = said or bool(lines)
    if not said:
        out.write(NOTHING_TO_FIX + "\n")


def _fix_one(
    argument: str,
    verdicts_of: Callable[[str], Iterable[Verdict]],
    *,
    write: bool,
    diff: bool,
) -> list[str]:
    """The lines ``--fix`` or ``--diff`` prints for one argument, having done what they say."""
    path: Path | None = None
    refusal: str | None = None
    held: bytes | None = None
    try:
        path = writable_config(argument)
        held = read_held(path)
    except FixRefusedError as error:
        refusal = str(error)
    plan = draft_plan(verdicts_of(argument))
    if not plan.edits and not plan.conflicts:
        return []
    shown = display_path(os.fspath(path) if path is not None else argument)
    lines = [_line(shown, _conflict_text(group)) for group in plan.conflicts]
    if not plan.edits:
        return lines
    try:
        if refusal is not None or path is None or held is None:
            raise FixRefusedError(refusal or "cannot be read")
        if read_held(path) != held:
            raise FixRefusedError("changed since it was checked")
        text = _decoded(held)
        fixed, changes, later_conflicts = _fixpoint(path, argument, text, plan, verdicts_of)
        lines += [_line(shown, _conflict_text(group)) for group in later_conflicts]
        if diff:
            lines += _diff(text, fixed, shown)  # valid JSON holds no raw control character
        if write and fixed != text:
            write_atomically(path, fixed, expected=held)
            lines += [
                _line(shown, f"fixed {code}: {change.edit} ({change.lines})")
                for code, change in changes
            ]
    except (FixRefusedError, EditError) as error:
        lines.append(_line(shown, f"not fixed: {error}"))
    except (OSError, UnicodeError) as error:
        lines.append(_line(shown, f"not fixed: cannot write: {_os_text(error)}"))
    return lines


def _fixpoint(
    path: Path,
    argument: str,
    text: str,
    plan: EditPlan,
    verdicts_of: Callable[[str], Iterable[Verdict]],
) -> tuple[str, list[tuple[str, TextChange]], list[tuple[PlannedEdit, ...]]]:
    """``text`` with the plan's edits made, then checked again (a copy beside the draft's
    other files) and fixed again until no new edit is planned: the text, each change with
    its finding's code, and the groups of edits left because they disagree."""
    changes: list[tuple[str, TextChange]] = []
    conflicts: list[tuple[PlannedEdit, ...]] = []
    done: list[ConfigEdit] = []
    current = text
    for round_number in range(MAX_ROUNDS):
        if round_number:
            try:
                plan = draft_plan(_verdicts_of_text(path, argument, current, verdicts_of))
            except OSError:  # no copy to check (no symbolic links here): the next run goes on
                break
            conflicts += plan.conflicts
        todo = [p for p in plan.edits if not any(same_edit(p.edit, e) for e in done)]
        if not todo:
            break
        current, made = fix_text(current, [p.edit for p in todo])
        changes += [(p.code, change) for p, change in zip(todo, made, strict=True)]
        done += [p.edit for p in todo]
    return current, changes, conflicts


def _verdicts_of_text(
    path: Path,
    argument: str,
    text: str,
    verdicts_of: Callable[[str], Iterable[Verdict]],
) -> list[Verdict]:
    """The verdicts of the draft with ``text`` as its config: checked in a temporary
    folder that holds ``text`` under the file's name and a link to every other entry of
    the draft's folder (its tokenizer, weights, ``mask_embedding.pt``)."""
    import shutil  # noqa: PLC0415 (only a file being fixed needs it)
    import tempfile  # noqa: PLC0415

    folder = tempfile.mkdtemp(prefix="drafting-config-fix-")
    try:
        copy = Path(folder) / path.name
        copy.write_bytes(text.encode("utf-8"))
        with os.scandir(path.parent) as entries:
            for entry in entries:
                if entry.name != path.name:
                    os.symlink(entry.path, os.path.join(folder, entry.name))
        named = folder if os.path.isdir(argument) else os.fspath(copy)
        return list(verdicts_of(named))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _conflict_text(group: tuple[PlannedEdit, ...]) -> str:
    """The line for edits that disagree, naming each."""
    named = " / ".join(f"{planned.edit} ({planned.code})" for planned in group)
    return f"not fixed: the fixes disagree: {named}; choose the right value by hand"


def _line(shown: str, text: str) -> str:
    return printable(f"{shown}: {text}") + "\n"


def _os_text(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return exception_text(error)


def _decoded(data: bytes) -> str:
    """The file's text, UTF-8 (a byte-order mark kept, as part of the text)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise FixRefusedError("not UTF-8") from None


def _diff(before: str, after: str, shown: str) -> list[str]:
    import difflib  # noqa: PLC0415 (only --diff needs it)

    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=shown,
        tofile=shown,
    )
    return [
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    ]
