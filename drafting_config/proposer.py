"""A documented import path, kept: ``drafting_config.proposer`` re-exports
:mod:`drafting_config.runtime.proposer`."""

from drafting_config.runtime import proposer as _proposer
from drafting_config.runtime.proposer import *  # noqa: F403


def __getattr__(name: str) -> object:
    """The deprecated ``ParallelDraftingProposer``, as :mod:`drafting_config.runtime.proposer`
    gives it (with its warning)."""
    return getattr(_proposer, name)
