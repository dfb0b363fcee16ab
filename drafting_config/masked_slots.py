"""A documented import path, kept: ``drafting_config.masked_slots`` re-exports
:mod:`drafting_config.runtime.masked_slots`."""

from drafting_config.runtime.masked_slots import *  # noqa: F403
