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

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from drafting_config.values.errors import ParallelDraftingConfigError, ParallelDraftingConfigWarning


@dataclass
class Findings:
    """Errors, warnings and notes, in the order the rules found them."""

    errors: list[ParallelDraftingConfigError] = field(default_factory=list)
    warnings: list[ParallelDraftingConfigWarning] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def error(self, error: ParallelDraftingConfigError) -> None:
        """Record a failed check."""
        self.errors.append(error)

    def warn(self, warning: ParallelDraftingConfigWarning) -> None:
        """Record something that resolves but looks wrong."""
        self.warnings.append(warning)

    def note(self, text: str) -> None:
        """Record a fact that is neither an error nor a warning ("target not checked")."""
        self.notes.append(text)

    def extend(self, other: Findings) -> None:
        """Record everything ``other`` holds, after what this one holds."""
        self.errors += other.errors
        self.warnings += other.warnings
        self.notes += other.notes

    @contextmanager
    def collect(self) -> Iterator[None]:
        """Record a :class:`ParallelDraftingConfigError` raised inside the block as an error
        (a field of the draft that cannot be read at all), and go on after the block."""
        try:
            yield
        except ParallelDraftingConfigError as error:
            self.errors.append(error)
