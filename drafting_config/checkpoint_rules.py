"""A documented import path, kept: ``drafting_config.checkpoint_rules`` re-exports
:mod:`drafting_config.rules.checkpoint`."""

from drafting_config.rules.checkpoint import *  # noqa: F403
