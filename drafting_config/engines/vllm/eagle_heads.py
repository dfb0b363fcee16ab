"""vLLM's rule for an EAGLE head whose config lists no ``architectures``: vLLM fills them from
the model type and renames them for the method before its registry looks them up, so the
draft fails at the registry, not for a missing token id.

``get_config`` (``transformers_utils/config.py``) sets ``architectures`` to the model type's
entry of transformers' ``MODEL_MAPPING_NAMES`` (a base class such as ``LlamaModel``) when
the config has none, and leaves them empty for a model type it lacks; ``EAGLEConfig.__init__``
(``transformers_utils/configs/eagle.py``) then prefixes ``Eagle`` or ``Eagle3`` for methods
``eagle`` and ``eagle3``.  No registry table of any shipped release holds an
``Eagle3...Model`` or ``Eagle...Model`` of a transformers base class (the one
``Eagle...Model`` vLLM registers, ``EagleDeepSeekMTPModel``, renames no transformers class),
and an empty list names nothing: vLLM refuses the draft at start-up either way, unless
``hf_config_override`` first replaces the filled-in class by its model type with one whose
rename is registered (a ``deepseek_v3`` head served as ``eagle``: ``DeepSeekMTPModel``, then
``EagleDeepSeekMTPModel``).

Public report: vllm-project/vllm#30987, an EAGLE-3 head config without ``architectures``
refused with "Model architectures ['EagleLlamaModel'] are not supported for now" (the PR
that would have mapped it was closed unmerged).
"""

from __future__ import annotations

from typing import Final

from drafting_config.engines.vllm import codes as vllm_codes
from drafting_config.engines.vllm.load_path import eagle_config_architecture, hf_config_override
from drafting_config.engines.vllm.modes import served_mode
from drafting_config.engines.vllm.resolution import VllmSubject
from drafting_config.engines.vllm.tables import vllm_tables
from drafting_config.values.errors import ParallelDraftingConfigError
from drafting_config.values.fields import is_list
from drafting_config.values.findings import Findings

_RENAMED_METHODS: Final = {"eagle": "Eagle", "eagle3": "Eagle3"}
"""The methods whose drafts ``EAGLEConfig`` renames to an ``Eagle``-prefixed class, with the
prefix."""


_FILLED: Final = "<filled>"
"""Stands for the class ``get_config`` fills in, which no rewrite of
``hf_config_override`` keyed on a class tests (those name ``...ForCausalLM`` classes)."""


def _registered_after_override(subject: VllmSubject, method: str) -> bool:
    """Whether ``hf_config_override`` (``vllm/config/speculative.py``) replaces the filled-in
    class by its model type (:func:`~.load_path.hf_config_override`: ``deepseek_v3`` ->
    ``DeepSeekMTPModel``) with one whose ``EAGLEConfig`` rename the subject's release
    registers (``EagleDeepSeekMTPModel``, ``deepseek_eagle.py``): then the registry
    passes."""

    def filled(name: str, default: object) -> object:
        return [_FILLED] if name == "architectures" else subject.draft.get(name, default)

    overridden = hf_config_override(filled, subject.version)
    if overridden is None or overridden[1] == (_FILLED,):
        return False
    tables = vllm_tables(subject.version)
    return all(
        tables.registered(eagle_config_architecture(method, name)) is not None
        for name in overridden[1]
    )


def check_unlisted_eagle_head(subject: VllmSubject, found: Findings) -> None:
    """An EAGLE head served with ``method: eagle`` or ``eagle3`` whose Hugging Face config has
    a ``model_type`` but lists no ``architectures`` (absent, ``null`` or ``[]``) fails at the
    registry (see the module docstring for each step).

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    resolution = subject.resolution
    if resolution.format != "hf" or resolution.speculators is not None:
        return
    listed = subject.draft.get("architectures", None)
    if listed is not None and not (is_list(listed) and len(listed) == 0):
        return  # the cheapest test first: most drafts list their classes
    model_type = subject.draft.get("model_type", None)
    if not isinstance(model_type, str) or model_type == "eagle":
        return
    method = served_mode(resolution).method
    prefix = _RENAMED_METHODS.get(method)
    if prefix is None or _registered_after_override(subject, method):
        return
    found.error(
        ParallelDraftingConfigError(
            f"`architectures` is missing, so vLLM fills in the base class of model type "
            f"{model_type!r} and renames it {prefix}..., a name its registry lacks.",
            field="architectures",
            code=vllm_codes.RENAMED_ARCHITECTURE_UNSUPPORTED,
            fix="set `architectures` to the head's class, such as LlamaForCausalLMEagle3",
            evidence="vllm/transformers_utils/config.py: get_config fills architectures from "
            "MODEL_MAPPING_NAMES; vllm/transformers_utils/configs/eagle.py: EAGLEConfig.__init__ "
            "renames them; vllm/model_executor/models/registry.py: _raise_for_unsupported",
        )
    )
