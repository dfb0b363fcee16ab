"""A documented import path, kept: ``drafting_config.proposer`` re-exports
:mod:`drafting_config.runtime.proposer`."""

from typing import TYPE_CHECKING

from drafting_config.runtime.proposer import *  # noqa: F403

if TYPE_CHECKING:
    from drafting_config.runtime.proposer import (  # type: ignore[deprecated]  # re-exported
        ParallelDraftingProposer as ParallelDraftingProposer,  # noqa: PLC0414
    )
else:
    from drafting_config.runtime import proposer as _proposer

    def __getattr__(name: str) -> object:
        """The deprecated ``ParallelDraftingProposer``, as
        :mod:`drafting_config.runtime.proposer` gives it (with its warning)."""
        return getattr(_proposer, name)
