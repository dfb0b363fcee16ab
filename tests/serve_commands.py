"""The parts of a verdict's serve command the tests compare: vLLM's ``--speculative-config``
(its method and switches) and SGLang's ``--speculative-algorithm``, read back with
``shlex.split`` as a shell reads the line."""

from __future__ import annotations

import json
import shlex
from typing import Final

from drafting_config.engines.sglang.names import SERVE_OPTION as SGLANG_OPTION
from drafting_config.engines.vllm.names import SERVE_OPTION as VLLM_OPTION


def option_value(command: str | None, option: str) -> str:
    """The value given to ``option`` in ``command`` (``AssertionError`` without one)."""
    assert command is not None, "no serve command"
    argv = shlex.split(command)
    assert option in argv, (option, argv)
    return argv[argv.index(option) + 1]


def vllm_config(command: str | None) -> dict[str, object]:
    """The ``--speculative-config`` JSON of a vLLM serve command, whole."""
    config = json.loads(option_value(command, VLLM_OPTION))
    assert isinstance(config, dict)
    return config


def vllm_switch(command: str | None) -> dict[str, object]:
    """:func:`vllm_config` without the draft (``model``) and the number of tokens: the method
    and the switches a mode sets."""
    config = vllm_config(command)
    return {k: v for k, v in config.items() if k not in ("model", "num_speculative_tokens")}


def sglang_algorithm(command: str | None) -> str:
    """The ``--speculative-algorithm`` of an SGLang serve command."""
    return option_value(command, SGLANG_OPTION)


UNKNOWN_TOKENS: Final = (
    "no block_size, speculative_tokens or n_predict says how many tokens to draft: the serve "
    "command holds N"
)
"""The note (``speculative-tokens-unknown``) of a vLLM verdict whose serve command holds the
placeholder: a draft whose files name no number of tokens to draft (PARD, EAGLE-3, a DFlash
draft without ``block_size``)."""
