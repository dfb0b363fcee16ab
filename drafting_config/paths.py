"""A documented import path, kept: ``drafting_config.paths`` re-exports
:mod:`drafting_config.values.paths`."""

from drafting_config.values.paths import *  # noqa: F403
