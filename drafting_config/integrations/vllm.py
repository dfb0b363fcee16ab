"""A documented import path, kept: ``drafting_config.integrations.vllm`` re-exports
:mod:`drafting_config.runtime.vllm`."""

from drafting_config.runtime.vllm import *  # noqa: F403
