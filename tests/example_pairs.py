"""The draft/target pairs bundled in ``examples/``, and the small tokenizer of the passing one.

``examples/pair-qwen3-4b/`` is a z-lab style DFlash drafter for Qwen3-4B with its
target's config, and ``examples/pair-qwen3-8b-drafter-llama3-target/`` is a
Qwen3-8B DFlash drafter pointed at Llama-3.1-8B: both have hidden size 4096, so
nothing fails when the models load, but the drafter taps layer 33 of a 32-layer
target and its mask id is past Llama 3's vocabulary.

The drafter of the passing pair ships a tokenizer laid out like Qwen3's where it
matters (``<|endoftext|>`` = 151643 is the pad token, ``<|im_end|>`` = 151645 the
eos, 26 added tokens up to 151668, some not special, and the mask id 151669 the
first unused row) but kept tiny: its base vocabulary holds 256 byte tokens at ids
0..255 and 256 merged tokens ending at 151642, and the ids between are a gap.  The
added tokens are also in ``model.vocab`` at their ids: the ``tokenizers`` library
numbers an added token from the vocabulary's length unless its text is in the
vocabulary, so that is how a trimmed vocabulary keeps Qwen3's ids.  Regenerate it
with ``python -m tests.example_pairs`` (needs the ``tokenizers`` library).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import EXAMPLES
from tests.tokenizer_factory import (
    QWEN3_ADDED,
    QWEN3_BASE_VOCAB,
    QWEN3_SPECIALS,
    add_tokens,
    added_tokens_decoder,
    base_vocabulary,
)

__all__ = [
    "FAILING_PAIR",
    "PAIR_BASE_TOKENS",
    "PAIR_BYTE_TOKENS",
    "PASSING_PAIR",
    "pair_vocabulary",
    "write_pair_tokenizer",
]

PASSING_PAIR = EXAMPLES / "pair-qwen3-4b"
"""``draft/`` (config.json and tokenizer files) and ``target/`` (config.json)."""

FAILING_PAIR = EXAMPLES / "pair-qwen3-8b-drafter-llama3-target"
"""``draft/`` and ``target/``, each a config.json; the pair breaks the layer contract."""

PAIR_BYTE_TOKENS = 256
"""Base-vocabulary tokens at the start (ids 0..255), as byte-level BPE vocabularies begin."""

PAIR_BASE_TOKENS = 512
"""Base-vocabulary tokens in all: the rest end at id 151642, as Qwen3's does."""


def pair_vocabulary() -> tuple[dict[str, int], list[tuple[str, str]]]:
    """The passing pair's ``model.vocab`` (text -> id) and BPE merges."""
    texts, merges = base_vocabulary(PAIR_BASE_TOKENS)
    first_merged = QWEN3_BASE_VOCAB - (PAIR_BASE_TOKENS - PAIR_BYTE_TOKENS)
    ids = [*range(PAIR_BYTE_TOKENS), *range(first_merged, QWEN3_BASE_VOCAB)]
    vocab = dict(zip(texts, ids, strict=True))
    vocab.update({token.content: QWEN3_BASE_VOCAB + i for i, token in enumerate(QWEN3_ADDED)})
    return vocab, merges


def write_pair_tokenizer(directory: Path) -> Path:
    """Write the passing pair's tokenizer files into ``directory`` and return it."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    vocab, merges = pair_vocabulary()
    backend = Tokenizer(models.BPE(vocab=vocab, merges=merges))
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    add_tokens(backend, QWEN3_ADDED)
    directory.mkdir(parents=True, exist_ok=True)
    backend.save(str(directory / "tokenizer.json"))
    decoder = added_tokens_decoder(backend)
    config = {  # the layout of Qwen3's own tokenizer_config.json (transformers 4.5x)
        "add_bos_token": False,
        "add_prefix_space": False,
        "added_tokens_decoder": decoder,
        "bos_token": None,
        "clean_up_tokenization_spaces": False,
        "eos_token": QWEN3_SPECIALS["eos"],
        "errors": "replace",
        "model_max_length": 131072,
        "pad_token": QWEN3_SPECIALS["pad"],
        "split_special_tokens": False,
        "tokenizer_class": "Qwen2Tokenizer",
        "unk_token": None,
    }
    (directory / "tokenizer_config.json").write_text(json.dumps(config, indent=2) + "\n")
    return directory


if __name__ == "__main__":
    print(write_pair_tokenizer(PASSING_PAIR / "draft"))
