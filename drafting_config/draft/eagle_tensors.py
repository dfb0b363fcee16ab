"""An EAGLE head told from its checkpoint's tensor names, where its config does not say so.

The original EAGLE releases publish their heads under the base class of their target
(``LlamaForCausalLM``, ``Qwen2ForCausalLM``) with one decoder layer: an EAGLE-1 head's
config (``yuhuili/EAGLE-LLaMA3-Instruct-8B``) carries no field that says EAGLE at all, and
only some EAGLE-3 heads carry ``draft_vocab_size``
(:data:`~drafting_config.draft.architectures.EAGLE3_HEAD_FIELDS`).  Their checkpoints do
say it: an EAGLE head's tensors are unprefixed (``layers.0.*``, ``embed_tokens.weight``)
and hold the projection of the target's hidden states, ``fc.weight``, which no causal LM
has (its tensors sit under ``model.``).  An EAGLE-3 head's single layer is ``midlayer.*``
in the original releases, and a pruned vocabulary ships its maps ``d2t`` / ``t2d``; its
``fc`` projects three target layers (``3 * hidden_size`` wide), an EAGLE-1 head's
projects the token embedding beside the last target state (``2 * hidden_size``).  What
each engine does with such a head is its package's; this module names no engine.

The loaders these names come from: vLLM's ``model_executor/models/llama_eagle.py``
(``EagleLlamaForCausalLM.load_weights`` prefixes ``model.`` to every name but
``lm_head``) and ``llama_eagle3.py`` (``Eagle3LlamaForCausalLM.load_weights`` maps
``midlayer.`` to ``layers.0.``, ``d2t`` to ``draft_id_to_target_id`` and skips ``t2d``);
SGLang's ``srt/models/llama_eagle.py`` and ``llama_eagle3.py`` do the same.  Public
reports of such checkpoints: SafeAILab/EAGLE#117 (an EAGLE-1 Qwen2 head's
``layers.0.self_attn.q_proj.bias``), vllm-project/vllm#24967.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal

from drafting_config.files.safetensors_headers import TensorHeader

EagleKind = Literal["eagle", "eagle3"]
"""The EAGLE generation a head is: ``eagle`` (EAGLE-1, and EAGLE-2, which drafts with the
same head) or ``eagle3``."""

FC: Final = "fc.weight"
"""The projection of the target's hidden states, at the top level of an EAGLE head."""
EAGLE3_PREFIXES: Final = ("midlayer.",)
"""Tensor-name prefixes only an EAGLE-3 head's checkpoint has (its single layer)."""
EAGLE3_NAMES: Final = ("d2t", "t2d")
"""Tensor names only an EAGLE-3 head's checkpoint has (its vocabulary maps)."""
_SHOWN: Final = 2


@dataclass(frozen=True)
class EagleHeadTensors:
    """An EAGLE head recognised from its checkpoint: its kind, and the tensors that tell."""

    kind: EagleKind
    """``eagle`` or ``eagle3``."""
    tensors: tuple[str, ...]
    """The tensor names that tell, at most two (``fc.weight`` and one more), as the checkpoint
    spells them (a layer's as ``layers.0.*``)."""

    @property
    def evidence(self) -> str:
        """The tensors, for a message: ``fc.weight, layers.0.*``."""
        return ", ".join(self.tensors)


def eagle_head_tensors(
    tensors: Mapping[str, TensorHeader], hidden_size: int | None
) -> EagleHeadTensors | None:
    """The EAGLE head a checkpoint's tensors are (see the module docstring), or ``None``:

    * ``midlayer.*``, ``d2t`` or ``t2d``: EAGLE-3;
    * a top-level ``fc.weight`` beside unprefixed ``layers.N.*``, no ``model.layers.*``:
      EAGLE-1 when its input width is twice ``hidden_size``, EAGLE-3 when three times;
      another width (or no ``hidden_size``) tells nothing.

    Otherwise a checkpoint without a top-level ``fc.weight`` is no EAGLE head (a causal
    LM's, a Medusa head's...)."""
    fc = tensors.get(FC)
    shown_fc = () if fc is None else (FC,)
    marks = sorted(
        name
        for name in tensors
        if name in EAGLE3_NAMES or any(name.startswith(p) for p in EAGLE3_PREFIXES)
    )
    if marks:
        return EagleHeadTensors("eagle3", (*shown_fc, *_grouped(marks)))
    if fc is None:
        return None
    layers = sorted(name for name in tensors if name.startswith("layers."))
    if not layers or any(name.startswith("model.layers.") for name in tensors):
        return None
    if hidden_size is None or len(fc.shape) != 2:
        return None
    width = fc.shape[1]
    kind: EagleKind | None = (
        "eagle" if width == 2 * hidden_size else "eagle3" if width == 3 * hidden_size else None
    )
    if kind is None:
        return None
    return EagleHeadTensors(kind, (*shown_fc, *_grouped(layers)))


def _grouped(names: list[str]) -> tuple[str, ...]:
    """``names`` as a message shows them: a layer's tensors as ``layers.0.*``, at most
    :data:`_SHOWN` - 1 entries (``fc.weight`` is the other)."""
    shown: list[str] = []
    for name in names:
        head, dot, rest = name.partition(".")
        if head == "layers":
            index = rest.partition(".")[0]
            entry = f"layers.{index}.*"
        elif dot and head == "midlayer":
            entry = "midlayer.*"
        else:
            entry = name
        if entry not in shown:
            shown.append(entry)
    return tuple(shown[: _SHOWN - 1])
