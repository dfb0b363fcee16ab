"""The drafting method vLLM 0.33 guesses for a draft from its ``architectures``.

When a draft's token-id field names no method (the generic top-level
``mask_token_id``), the method decides which model runner serves it and so which
chain of tapped layers applies (:mod:`drafting_config.engines.vllm_taps`).  vLLM
guesses the method in ``SpeculativeConfig.__post_init__``
(``vllm/config/speculative.py``, "Automatically detect the method", lines
1432-1470) when the user names no method (vLLM then starts from ``"draft_model"``,
line 1244, which the guess overrides), from two things:

* the draft's *model name*, the ``model`` string as the user typed it (a Hub repo
  id or a local path): ``"eagle-"``, ``"eagle3"``, ``"dflash"``, ``"dspark"`` in it;
* the draft's ``architectures`` (after vLLM's own rewrites of the config,
  ``hf_config_override``, none of which changes the architectures listed here).

Only the second is a property of the config, and only it is used here
(:data:`METHOD_OF_ARCHITECTURE`).  The name is not: a ``config.json`` path or a
copy in some directory is not the string vLLM is given (a Hub cache snapshot is
``models--org--name/snapshots/<hash>``, and a local path counts in full, parent
directories included).  And the name is tested first: ``"eagle-"`` and ``"eagle3"``
before any architecture (which would make an EAGLE method of a MuseGlimmer draft), and
``"dflash"`` before the DSpark architectures, so check() would first have to guess the
string the user will pass.

The two rewrites of the config around the guess do not change what either chain
returns, so the chains read the draft's own config: a ``muse_glimmer_assistant``
draft gains ``dflash_config = {"causal": False}`` merged under its own
(``hf_config_override``, lines 1159-1167), a section holding no layer field; a
``Gemma4DSparkModel`` draft's ``target_layer_ids`` is copied to an unset
``dspark_target_layer_ids`` (lines 1568-1579), which the newer chain reads just before
``target_layer_ids``, adding 1 as it does there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from drafting_config.values.fields import FieldGetter

__all__ = ["METHOD_OF_ARCHITECTURE", "ArchitectureGuess", "guess_method"]


@dataclass(frozen=True)
class ArchitectureGuess:
    """One row of vLLM's guess: a draft listing :attr:`architecture` is served as
    :attr:`method`."""

    architecture: str
    """A name in the draft's ``architectures``."""

    method: str
    """The method vLLM guesses (``"dflash"``, ``"dspark"``)."""

    model_type: str | None = None
    """When set, the row applies only to a draft with this ``model_type``."""


METHOD_OF_ARCHITECTURE: Final = (
    ArchitectureGuess("MuseGlimmerAssistantModel", "dflash"),
    ArchitectureGuess("Qwen3DSparkModel", "dspark"),
    ArchitectureGuess("Qwen3OmniDSparkModel", "dspark"),
    ArchitectureGuess("MuseSparkDSparkModel", "dspark"),
    ArchitectureGuess("Gemma4DSparkModel", "dspark"),
    ArchitectureGuess("DSparkDraftModel", "dspark", model_type="qwen3"),
)
"""vLLM 0.33's guess by architecture, first match wins (``SpeculativeConfig.__post_init__``
in ``vllm/config/speculative.py``, lines 1449-1468): the ``dflash`` test
(``MuseGlimmerAssistantModel``) comes before the ``dspark`` one
(``Qwen3DSparkModel``, ``_QWEN3_OMNI_DSPARK_ARCHITECTURE``,
``_MUSE_SPARK_DSPARK_ARCHITECTURE``, ``Gemma4DSparkModel``, and ``DSparkDraftModel``
with ``model_type`` ``qwen3``).  Other architectures (``DFlashDraftModel`` included)
give vLLM no method: it relies on the name, or on the method the user gives."""


def guess_method(get: FieldGetter) -> str | None:
    """The method vLLM guesses from the draft's ``architectures`` (see
    :data:`METHOD_OF_ARCHITECTURE`), or ``None``.

    Only a list of strings is read: anything else in ``architectures`` guesses nothing.

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all (a property that raises).
    """
    listed = get("architectures", None)
    if not isinstance(listed, (list, tuple)):
        return None
    names = {name for name in listed if isinstance(name, str)}
    if not names:
        return None
    model_type = get("model_type", None)
    for row in METHOD_OF_ARCHITECTURE:
        if row.architecture in names and (row.model_type is None or row.model_type == model_type):
            return row.method
    return None
