"""The whole parallel-drafting contract of a draft model, as one non-raising verdict.

:func:`check` loads a draft (a config object or a local path), resolves its
token id with :func:`~drafting_config.resolution.resolve`, and gathers every
error, warning and note into a :class:`Verdict`.  The command line renders
verdicts and nothing else; :meth:`ParallelDraftingConfig.from_hf_config` and
``from_pretrained`` raise a verdict's first error.

This module builds no pydantic model and imports neither torch nor
transformers, so a sweep over a whole model cache stays fast.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Union

from drafting_config.errors import ParallelDraftingConfigError, ParallelDraftingConfigWarning
from drafting_config.loading import ConfigFileError, load_config_json
from drafting_config.resolution import Resolution, resolve

__all__ = ["DraftArgument", "Verdict", "check"]

DraftArgument = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]", object]
"""A draft: a local path (``str``, ``bytes`` or ``os.PathLike``) or an HF config object."""


@dataclass(frozen=True)
class Verdict:
    """Everything :func:`check` found about one draft; built, never raised."""

    path: str | None
    """The path as given (``None`` for a config object)."""
    resolution: Resolution | None
    """The token-id resolution, or ``None`` when the file could not be read."""
    errors: tuple[ParallelDraftingConfigError, ...]
    """Every failed check, first the file's or the resolution's, in a stable order."""
    warnings: tuple[ParallelDraftingConfigWarning, ...] = ()
    """Everything that resolves but looks wrong."""
    notes: tuple[str, ...] = field(default=())
    """Facts worth knowing that are neither errors nor warnings (e.g. "target not checked")."""

    @property
    def ok(self) -> bool:
        """Whether every check passed (warnings allowed)."""
        return not self.errors

    @property
    def token_id(self) -> int | None:
        """The resolved token id, if the first set field is valid."""
        winner = None if self.resolution is None else self.resolution.winner
        return None if winner is None else winner.token_id

    def raise_first(self) -> None:
        """Raise the first error, if any.

        Raises:
            ParallelDraftingConfigError: the first failed check.
        """
        if self.errors:
            raise self.errors[0]


def check(draft: object) -> Verdict:
    """Check a draft model's config; never raises for bad input.

    Args:
        draft: a local ``config.json`` or model directory (``str``, ``bytes`` or
            ``os.PathLike``), or an HF config object or mapping.
    """
    path: str | None = None
    if isinstance(draft, (str, bytes, os.PathLike)):
        path = os.fsdecode(draft)
        try:
            hf_config: object = load_config_json(path)
        except ConfigFileError as error:
            return Verdict(path, None, (error,))
    else:
        hf_config = draft
    resolution = resolve(hf_config)
    return Verdict(path, resolution, resolution.errors, resolution.warnings)
