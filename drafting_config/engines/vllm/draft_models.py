"""vLLM's rules for a separate draft model (method ``draft_model``): a complete causal LM that
drafts on its own hidden states, never the target's (``v1/spec_decode/draft_model.py``:
``DraftModelProposer`` passes ``pass_hidden_states_to_model=False``; the newer runner's
``v1/worker/gpu/spec_decode/standalone_ar/``), so it is judged on its vocabulary against the
target's and never on its hidden size (``Subject.separate_model``).

Every shipped release refuses a draft model whose vocabulary differs from the target's at the
config stage, in ``SpeculativeConfig._verify_args`` (``config/speculative.py``), which calls
``verify_equal_vocab_size_if_draft_model``: in 0.32.0 and 0.33.0 for ``method ==
"draft_model"`` unless the user sets ``use_heterogeneous_vocab: true`` (greedy drafting on
the older runner, ``v1/spec_decode/draft_model.py`` builds a ``VocabMapping`` then; without
it, the older runner's ``_raise_if_vocab_size_mismatch`` repeats the check); from 0.34.0
(:data:`~.names.DROPS_HETEROGENEOUS_VOCAB`) for every speculator whose
``draft_has_own_vocab`` is true (``StandaloneARSpeculatorConfig``,
``v1/worker/gpu/spec_decode/standalone_ar/config.py``), with no such switch left.

Public reports: Qwen3-1.7B drafting for Qwen3-32B, the pairing vLLM's draft-model work
benchmarks, serves (vllm-project/vllm#24322); a DeepSeek-R1-Distill-Qwen-1.5B draft for
DeepSeek-R1-Distill-Qwen-32B is refused for its vocabulary (vllm-project/vllm#42775; the
same for Qwen2-1.5B and Qwen2-72B, vllm-project/vllm#7252).
"""

from __future__ import annotations

from typing import Final

from drafting_config.engines.vllm.modes import served_mode
from drafting_config.engines.vllm.names import DROPS_HETEROGENEOUS_VOCAB, since
from drafting_config.engines.vllm.resolution import VllmSubject
from drafting_config.values import codes
from drafting_config.values.errors import ParallelDraftingConfigError
from drafting_config.values.fields import read_path
from drafting_config.values.findings import Findings

_VERIFY: Final = (
    "vllm/config/speculative.py: SpeculativeConfig._verify_args -> "
    "verify_equal_vocab_size_if_draft_model raises ValueError"
)
_GATES: Final = {
    False: "for method 'draft_model' unless use_heterogeneous_vocab "
    "(vllm/v1/spec_decode/draft_model.py: _raise_if_vocab_size_mismatch)",
    True: "for a speculator with draft_has_own_vocab "
    "(vllm/v1/worker/gpu/spec_decode/standalone_ar/config.py: StandaloneARSpeculatorConfig)",
}


def check_draft_model_vocab(subject: VllmSubject, found: Findings) -> None:
    """A draft served as a separate draft model (method ``draft_model``, PARD included) must
    have the target's vocabulary size: vLLM's ``verify_equal_vocab_size_if_draft_model``
    compares the two ``ModelConfig.get_vocab_size()`` (each one's text config) and raises
    ``ValueError`` "Target and draft model should have the same vocabulary size" at the
    config stage (see the module docstring for each release's gate).  Before
    :data:`~.names.DROPS_HETEROGENEOUS_VOCAB` the fix may be ``use_heterogeneous_vocab``;
    from it on, only a draft with the target's vocabulary.

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    target = subject.target
    if target is None or target.vocab_size is None:
        return
    if served_mode(subject.resolution).method != "draft_model":
        return
    vocab = subject.draft.vocab_size
    if vocab is None or vocab == target.vocab_size:
        return
    field = "vocab_size" if read_path(subject.draft.get, "vocab_size") is not None else None
    field = subject.file_field(field or "text_config.vocab_size")
    newer = since(subject.version, DROPS_HETEROGENEOUS_VOCAB)
    fix = "serve a draft model trained with the target's tokenizer and vocabulary"
    if not newer:
        fix += ', or add "use_heterogeneous_vocab": true to --speculative-config (greedy only)'
    found.error(
        ParallelDraftingConfigError(
            f"`{field}` = {vocab} differs from the target's {target.vocab_size}, so vLLM refuses "
            "this separate draft model at start-up.",
            field=field,
            code=codes.VOCAB_DIFFERS_FROM_TARGET,
            fix=fix,
            evidence=f"{_VERIFY} {_GATES[newer]}",
        )
    )
