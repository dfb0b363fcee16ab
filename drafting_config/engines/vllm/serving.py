"""The command that serves a draft with vLLM, whole: ``vllm serve TARGET --speculative-config
JSON``, the JSON naming the method, the draft (``model``) and ``num_speculative_tokens``.

vLLM needs all three.  Without ``num_speculative_tokens`` it refuses at start-up unless the
draft's config has ``n_predict`` ("num_speculative_tokens must be provided with speculative
model unless the draft model config contains an n_predict parameter",
``vllm/config/speculative.py: SpeculativeConfig._verify_args``), except for DSpark, whose
block size it takes (:func:`speculative_tokens`); without ``model`` it refuses a number
("num_speculative_tokens was provided but without speculative model", 0.33.0
``SpeculativeConfig.__post_init__``; 0.34.0 ``v1/worker/gpu/spec_decode/speculator_config.py:
DraftModelSpeculatorConfig``), except for DSpark, which then loads the draft from the
target's checkpoint: the command names the draft given, so that vLLM loads it.
"""

from __future__ import annotations

import json
import shlex
from functools import lru_cache
from json.encoder import encode_basestring_ascii
from typing import Final

from drafting_config.draft.file import DraftFile
from drafting_config.draft.speculative_tokens import draft_speculative_tokens
from drafting_config.engines.interface import ServeNames
from drafting_config.engines.vllm.modes import ServedMode
from drafting_config.engines.vllm.names import SERVE_OPTION, since
from drafting_config.values import codes
from drafting_config.values.errors import ParallelDraftingConfigError
from drafting_config.values.fields import read_path
from drafting_config.values.findings import Findings, Note
from drafting_config.values.integers import exact_int

SERVE_COMMAND: Final = ("vllm", "serve")
"""The command that starts vLLM's OpenAI-compatible server on a model (the same in every
release: ``vllm/entrypoints/cli/serve.py``)."""

TOKENS_PLACEHOLDER: Final = "N"
"""What ``num_speculative_tokens`` holds where nothing the draft says gives the number: a
JSON string, so that the line stays JSON and vLLM refuses it until it is replaced."""

DSPARK_BLOCK_FIELDS: Final = ("block_size", "dspark_block_size")
"""Where vLLM takes a DSpark draft's ``num_speculative_tokens`` from when none is given, in
its order (``SpeculativeConfig.__post_init__`` up to 0.33.0; from 0.34.0
``v1/worker/gpu/spec_decode/dspark/config.py``:
``DSparkSpeculatorConfig.resolve_num_speculative_tokens``)."""

_SPECULATOR_CONFIGS: Final = "0.34.0"
"""The first release whose DSpark default lives in its speculator config class."""


_TOKENS_UNKNOWN: Final = (
    "no block_size, speculative_tokens or n_predict says how many tokens to draft: "
    f"the serve command holds {TOKENS_PLACEHOLDER}"
)
"""The note on a draft whose files give no ``num_speculative_tokens``."""

_TOKENS_FIX: Final = (
    f"replace {TOKENS_PLACEHOLDER} in the serve command with the number of tokens to draft a step"
)

_TOKENS_EVIDENCE: Final = {
    True: "vllm/v1/worker/gpu/spec_decode/speculator_config.py: "
    "SpeculatorConfig.resolve_num_speculative_tokens; "
    "vllm/config/speculative.py: SpeculativeConfig._verify_args",
    False: "vllm/config/speculative.py: SpeculativeConfig.__post_init__; "
    "vllm/config/speculative.py: SpeculativeConfig._verify_args",
}
"""The note's evidence, by whether the release is :data:`_SPECULATOR_CONFIGS` or later."""

_TOKENS_UNKNOWN_NOTES: Final = {
    later: Note(
        _TOKENS_UNKNOWN,
        code=codes.SPECULATIVE_TOKENS_UNKNOWN,
        fix=_TOKENS_FIX,
        evidence=evidence,
    )
    for later, evidence in _TOKENS_EVIDENCE.items()
}
"""The ``speculative-tokens-unknown`` note, by whether the release is
:data:`_SPECULATOR_CONFIGS` or later (made once each: a sweep holds it for most drafts)."""


def speculative_tokens(mode: ServedMode, draft: DraftFile) -> int | None:
    """The ``num_speculative_tokens`` the draft's files give: the draft's own number
    (:func:`~drafting_config.draft.speculative_tokens.draft_speculative_tokens`), else, for
    ``dspark``, its block size, as vLLM defaults it (:data:`DSPARK_BLOCK_FIELDS`), else
    ``None``."""
    tokens = draft_speculative_tokens(draft)
    if tokens is not None or mode.method != "dspark":
        return tokens
    for field in DSPARK_BLOCK_FIELDS:
        try:
            number = exact_int(read_path(draft.get, field))
        except ParallelDraftingConfigError:  # unreadable: no number (the rules report it)
            number = None
        if number is not None:
            return number if number > 0 else None
    return None


def serve_command(
    mode: ServedMode, draft: DraftFile, names: ServeNames, found: Findings, version: str
) -> str:
    """The shell line that serves ``draft`` on vLLM ``version`` in ``mode``, quoted for a
    POSIX shell; where the files give no ``num_speculative_tokens``, a placeholder
    (:data:`TOKENS_PLACEHOLDER`) and a note that says so (``speculative-tokens-unknown``)."""
    tokens: int | str | None = speculative_tokens(mode, draft)
    if tokens is None:
        tokens = TOKENS_PLACEHOLDER
        found.notes.append(_TOKENS_UNKNOWN_NOTES[since(version, _SPECULATOR_CONFIGS)])
    config = speculative_config(mode.method, names.draft, tokens, switch=mode.needs_switch)
    # shlex.join of the whole line, its fixed words quoted once (_QUOTED_COMMAND, _QUOTED_OPTION)
    target = _quoted_target(names.target)
    return f"{_QUOTED_COMMAND} {target} {_QUOTED_OPTION} {shlex.quote(config)}"


def speculative_config(method: str, model: str, tokens: int | str, *, switch: bool) -> str:
    """``json.dumps`` of the ``--speculative-config`` object (``method``, ``model``,
    ``num_speculative_tokens``, and ``"parallel_drafting": true`` with ``switch``), written
    key by key: ``json.dumps`` of a dict builds an encoder per call; a string is written by
    the encoder ``json.dumps`` uses for one (``encode_basestring_ascii``).
    ``tests/test_serve_commands.py`` holds it to ``json.dumps`` of the dict."""
    number = _json_string(tokens) if isinstance(tokens, str) else str(int(tokens))
    text = (
        f'{{"method": {_json_string(method)}, "model": {encode_basestring_ascii(model)}, '
        f'"num_speculative_tokens": {number}'
    )
    return f'{text}, "parallel_drafting": true}}' if switch else f"{text}}}"


@lru_cache(maxsize=64)
def _quoted_target(target: str) -> str:
    """``shlex.quote(target)``, made once per target: a sweep names one for every draft."""
    return shlex.quote(target)


@lru_cache(maxsize=64)
def _json_string(text: str) -> str:
    """``json.dumps(text)``, made once per string: for the method, one of a few, and the
    placeholder (:data:`TOKENS_PLACEHOLDER`)."""
    return json.dumps(text)


_QUOTED_COMMAND: Final = shlex.join(SERVE_COMMAND)
""":data:`SERVE_COMMAND`, quoted for a POSIX shell."""

_QUOTED_OPTION: Final = shlex.quote(SERVE_OPTION)
""":data:`~.names.SERVE_OPTION`, quoted for a POSIX shell."""
