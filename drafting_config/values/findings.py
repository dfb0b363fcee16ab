"""One collector for what the rules find: errors, warnings and notes.

Every rule records into a :class:`Findings` instead of returning its own shape,
as packaging's ``_ErrorCollector`` does::

    found = Findings()
    with found.collect():  # a ParallelDraftingConfigError raised inside is recorded
        some_rule(subject, found)
    found.errors, found.warnings, found.notes

An error means the engine certainly fails or certainly runs the draft wrong; a
warning, that something looks wrong with evidence short of certainty; a note, a
fact worth knowing (what was not checked, and why).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from types import TracebackType

from drafting_config.values.codes import Code, Step
from drafting_config.values.edits import ConfigEdit
from drafting_config.values.errors import ParallelDraftingConfigError, ParallelDraftingConfigWarning

__all__ = ["Findings", "Note"]


class Note(str):
    """A note: a fact worth knowing, neither an error nor a warning ("target not checked").

    A :class:`str` (its text), so that callers that read ``Verdict.notes`` as strings keep
    working, carrying what every finding carries: its :class:`Code`, the field it is about,
    the fix, the evidence and the fix's edit, each ``None`` where none is known.
    """

    code: Code | None
    field: str | None
    fix: str | None
    evidence: str | None
    edit: ConfigEdit | None

    def __new__(
        cls,
        text: str,
        *,
        code: Code | None = None,
        field: str | None = None,
        fix: str | None = None,
        evidence: str | None = None,
        edit: ConfigEdit | None = None,
    ) -> Note:
        note = super().__new__(cls, text)
        note.code = code
        note.field = field
        note.fix = fix
        note.evidence = evidence
        note.edit = edit
        return note

    @property
    def step(self) -> Step | None:
        """The step of the engine's load path the note is about (its code's)."""
        return None if self.code is None else self.code.step

    def __reduce__(self) -> tuple[object, ...]:
        return (
            _rebuild_note,
            (str(self), self.code, self.field, self.fix, self.evidence, self.edit),
        )


def _rebuild_note(  # noqa: PLR0917 - a Note's fields, as __reduce__ gives them
    text: str,
    code: Code | None,
    field: str | None,
    fix: str | None,
    evidence: str | None,
    edit: ConfigEdit | None = None,
) -> Note:
    return Note(text, code=code, field=field, fix=fix, evidence=evidence, edit=edit)


@dataclass
class Findings:
    """Errors, warnings and notes, in the order the rules found them."""

    errors: list[ParallelDraftingConfigError] = field(default_factory=list)
    warnings: list[ParallelDraftingConfigWarning] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Notes: :class:`Note` where the rule gave a code, else plain text."""

    def error(self, error: ParallelDraftingConfigError) -> None:
        """Record a failed check."""
        self.errors.append(error)

    def warn(self, warning: ParallelDraftingConfigWarning) -> None:
        """Record something that resolves but looks wrong."""
        self.warnings.append(warning)

    def note(
        self,
        text: str,
        *,
        code: Code | None = None,
        field: str | None = None,
        fix: str | None = None,
        evidence: str | None = None,
        edit: ConfigEdit | None = None,
    ) -> None:
        """Record a fact that is neither an error nor a warning ("target not checked")."""
        self.notes.append(Note(text, code=code, field=field, fix=fix, evidence=evidence, edit=edit))

    def extend(self, other: Findings) -> None:
        """Record everything ``other`` holds, after what this one holds."""
        self.errors += other.errors
        self.warnings += other.warnings
        self.notes += other.notes

    def collect(self) -> AbstractContextManager[None]:
        """Record a :class:`ParallelDraftingConfigError` raised inside the block as an error
        (a field of the draft that cannot be read at all), and go on after the block."""
        return _Collecting(self.errors)


class _Collecting(AbstractContextManager[None]):
    """:meth:`Findings.collect`'s block: a class, as a ``contextlib.contextmanager``'s
    generator costs four times as much to enter and leave, several times per draft."""

    __slots__ = ("_errors",)

    def __init__(self, errors: list[ParallelDraftingConfigError]) -> None:
        self._errors = errors

    def __enter__(self) -> None:
        return None

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool:
        if isinstance(error, ParallelDraftingConfigError):
            self._errors.append(error)
            return True  # recorded: the block is left, the check goes on
        return False
