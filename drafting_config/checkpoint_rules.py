"""A documented import path, kept: ``drafting_config.checkpoint_rules`` re-exports
:mod:`drafting_config.engines.vllm.checkpoint`."""

from drafting_config.engines.vllm.checkpoint import *  # noqa: F403
