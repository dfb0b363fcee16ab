"""A printed serve command made runnable in a harness's scratch folders: the part of both
config stages (``tools/engines/vllm/harness/config_stage.py``,
``tools/engines/sglang/harness/config_stage.py``) that knows no engine.

The checker prints the draft and the target as the user gave them (a folder, a repo id, or
``DRAFT``/``TARGET``); the harness copies each ``config.json`` into a scratch folder of its
own and runs the command on those folders. Standard library only (it runs inside the
engines' environments too).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["PLACEHOLDER_TOKENS", "local_argv", "local_request", "unreported"]

PLACEHOLDER_TOKENS = 4
"""What a ``num_speculative_tokens`` placeholder (a JSON string where the checker knows no
number) is replaced with, so that the rest of the command can be run; readings record that
the command held one."""


def local_argv(
    argv: Sequence[str],
    names: tuple[str, str],
    folders: tuple[str, str],
) -> tuple[list[str], bool]:
    """``argv`` with the draft's and target's names (``names``: draft, target) replaced by
    their folders (``folders``), also inside a JSON argument's ``model``; and whether a
    ``num_speculative_tokens`` placeholder was replaced by :data:`PLACEHOLDER_TOKENS`."""
    mapping = dict(zip(names, folders, strict=True))
    replaced = False
    local: list[str] = []
    for argument in argv:
        if argument in mapping:
            local.append(mapping[argument])
            continue
        config = _json_object(argument)
        if config is None:
            local.append(argument)
            continue
        model = config.get("model")
        if isinstance(model, str) and model in mapping:
            config["model"] = mapping[model]
        if isinstance(config.get("num_speculative_tokens"), str):
            config["num_speculative_tokens"] = PLACEHOLDER_TOKENS
            replaced = True
        local.append(json.dumps(config))
    return local, replaced


def local_request(
    run: Callable[[list[str]], dict[str, Any]],
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A config stage's answer to one served request: ``run`` on its printed command made
    local (:func:`local_argv`), with whether that replaced a placeholder."""

    def answer(request: dict[str, Any]) -> dict[str, Any]:
        names = request["names"]
        argv, placeholder = local_argv(
            request["argv"], (names[0], names[1]), (request["draft"], request["target"])
        )
        return {**run(argv), "placeholder": placeholder}

    return answer


def unreported(request: dict[str, Any], outcome: str, message: str) -> dict[str, Any]:
    """A config stage's reading of a request its server could not answer (``outcome``, with
    ``message`` as its exception)."""
    return {
        "outcome": outcome,
        "failed_stage": None,
        "exception": {"type": outcome, "message": message},
        "speculative": None,
    }


def _json_object(argument: str) -> dict[str, object] | None:
    if not argument.startswith("{"):
        return None
    try:
        value = json.loads(argument)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
