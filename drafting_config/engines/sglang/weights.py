"""SGLang 0.5.23's EAGLE-3 weights, from the safetensors headers: which tensors its EAGLE-3
classes load from the checkpoint and which they borrow from the target.

Modelled: :data:`MODELLED_CLASSES`, ``LlamaForCausalLMEagle3`` (``srt/models/llama_eagle3.py``)
and ``Eagle3DeepseekV2ForCausalLM`` (``srt/models/kimi_k25_eagle3.py``), which decide alike:

* the embedding is always the target's (``EAGLEWorkerV2.init_lm_head`` calls ``set_embed``
  or ``set_embed_and_head``, ``srt/speculative/eagle_worker_v2.py``): the checkpoint's
  ``embed_tokens`` is not needed;
* with ``tie_word_embeddings`` the ``lm_head`` is the embedding;
* otherwise the ``lm_head`` is borrowed from the target only when ``draft_vocab_size`` is
  unset (``load_lm_head_from_target``, set in the class's ``__init__``); with it set, the
  ``lm_head`` is a fresh ``ParallelLMHead(draft_vocab_size, hidden_size)`` that only the
  checkpoint's ``lm_head.weight`` fills (``load_weights`` skips what the checkpoint lacks,
  without a word), and the draft's ids map to the target's only through a ``d2t`` tensor
  (``hot_token_id``; ``--speculative-token-map`` is ignored for EAGLE-3).

Other classes keep the note that only these loaders are modelled (``weights-not-modelled``);
the harness's weights stage (``tests/real_configs/sglang_weight_runs.json``) shows SGLang
loading the others.
"""

from __future__ import annotations

from typing import Final

from drafting_config.engines.sglang import codes as sglang_codes
from drafting_config.engines.sglang.config import draft_class
from drafting_config.files.safetensors_headers import CheckpointHeaders
from drafting_config.rules.subject import Subject
from drafting_config.values import codes
from drafting_config.values.errors import ParallelDraftingConfigError, ParallelDraftingConfigWarning
from drafting_config.values.fields import FieldGetter
from drafting_config.values.findings import Findings
from drafting_config.values.integers import exact_int

MODELLED_CLASSES: Final = frozenset({"LlamaForCausalLMEagle3", "Eagle3DeepseekV2ForCausalLM"})
"""The EAGLE-3 classes whose loading :func:`check_sglang_eagle3_weights` models."""

LM_HEAD: Final = "lm_head.weight"
"""The one checkpoint name ``load_weights`` loads the ``lm_head`` from (``name`` itself,
else ``model.{name}``, must be a parameter)."""

_EVIDENCE: Final = (
    "srt/models/llama_eagle3.py: LlamaForCausalLMEagle3.__init__ borrows the target's lm_head "
    "only when draft_vocab_size is unset (load_lm_head_from_target); "
    "srt/speculative/eagle_worker_v2.py: EAGLEWorkerV2.init_lm_head"
)


def models_weights(get: FieldGetter) -> bool:
    """Whether the draft's SGLang class is one whose weights are modelled here.

    Raises:
        ParallelDraftingConfigError: ``architectures`` cannot be read at all.
    """
    return draft_class(get) in MODELLED_CLASSES


def check_sglang_eagle3_weights(
    subject: Subject, headers: CheckpointHeaders, found: Findings
) -> None:
    """The tensors a modelled EAGLE-3 class loads, against the checkpoint's headers (see
    the module docstring): an untied head with ``draft_vocab_size`` set and no
    ``lm_head.weight`` runs with an uninitialised ``lm_head`` (an error); one with a
    reduced vocabulary and no ``d2t`` drafts draft-vocabulary ids as target ids (a
    warning: the ids coincide only when the reduced vocabulary is the target's first rows).

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    get = subject.get
    if get("tie_word_embeddings", False):
        return  # the lm_head is the (target's) embedding
    raw = get("draft_vocab_size", None)
    if raw is None:
        return  # the target's lm_head is borrowed
    draft_vocab = exact_int(raw)
    tensors = headers.tensors
    if LM_HEAD not in tensors:
        found.error(
            ParallelDraftingConfigError(
                f"`draft_vocab_size` = {raw!r} is set, so SGLang loads lm_head from the "
                "checkpoint rather than the target's, and it has no `lm_head.weight`.",
                field="draft_vocab_size",
                code=codes.WEIGHTS_LM_HEAD_MISSING,
                fix="ship the trained `lm_head.weight`, or delete `draft_vocab_size` if the "
                "head was trained with the target's lm_head",
                evidence=f"{_EVIDENCE}; load_weights leaves lm_head uninitialised",
            )
        )
        return
    vocab = exact_int(get("vocab_size", None))
    if draft_vocab is None or vocab is None or draft_vocab >= vocab:
        return
    if any("d2t" in name for name in tensors):
        return
    found.warn(
        ParallelDraftingConfigWarning(
            f"`draft_vocab_size` = {draft_vocab} is below `vocab_size` = {vocab} but the "
            "checkpoint has no d2t, so SGLang takes draft ids for target ids.",
            field="draft_vocab_size",
            code=sglang_codes.WEIGHTS_D2T_MISSING,
            fix="ship the d2t tensor the head was trained with",
            evidence="srt/models/llama_eagle3.py: LlamaForCausalLMEagle3.load_weights sets "
            "hot_token_id from d2t only; srt/speculative/eagle_worker_v2.py: init_token_map "
            "ignores --speculative-token-map for EAGLE-3",
        )
    )
