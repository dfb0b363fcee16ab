"""A documented import path, kept: ``drafting_config.tokenizer_files`` re-exports
:mod:`drafting_config.files.tokenizer_files`."""

from drafting_config.files.tokenizer_files import *  # noqa: F403
