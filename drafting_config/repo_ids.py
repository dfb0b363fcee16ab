"""A documented import path, kept: ``drafting_config.repo_ids`` re-exports
:mod:`drafting_config.files.repo_ids`."""

from drafting_config.files.repo_ids import *  # noqa: F403
