"""The command that serves a draft with SGLang 0.5.23, whole: ``python -m
sglang.launch_server --model-path TARGET --speculative-algorithm ALGORITHM
--speculative-draft-model-path DRAFT``.

It passes no ``--speculative-num-steps``, ``--speculative-eagle-topk`` or
``--speculative-num-draft-tokens``: SGLang derives them from the draft when none is given
(``srt/arg_groups/speculative_hook.py``: ``_handle_dflash`` takes DFLASH's block size from
``parse_dflash_draft_config(...).resolve_block_size``, ``_handle_dspark`` DSPARK's
``gamma + 1`` from ``read_draft_checkpoint_config(...).resolve_gamma``,
``_handle_eagle_family`` EAGLE3's and STANDALONE's consistent triple from
``_auto_choose_speculative_params``), where a number given that disagrees with the draft is
refused (DSPARK) or overridden (DFLASH's steps and top-k).
"""

from __future__ import annotations

import shlex
from typing import Final

from drafting_config.engines.interface import ServeNames
from drafting_config.engines.sglang.names import SERVE_OPTION, Algorithm

SERVE_COMMAND: Final = ("python", "-m", "sglang.launch_server")
"""The command that starts SGLang's server (``sglang/launch_server.py``)."""

MODEL_OPTION: Final = "--model-path"
"""The option naming the target (``srt/arg_groups/fields/model.py: model_path``)."""

DRAFT_OPTION: Final = "--speculative-draft-model-path"
"""The option naming the draft (``srt/arg_groups/fields/spec.py:
speculative_draft_model_path``)."""


def serve_command(algorithm: Algorithm, names: ServeNames) -> str:
    """The shell line that serves the draft named in ``names`` with ``algorithm``, quoted for
    a POSIX shell."""
    return shlex.join(
        [
            *SERVE_COMMAND,
            MODEL_OPTION,
            names.target,
            SERVE_OPTION,
            algorithm.value,
            DRAFT_OPTION,
            names.draft,
        ]
    )
