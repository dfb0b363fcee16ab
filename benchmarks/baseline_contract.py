"""Baseline for the contract benchmark: what a user does today to check a draft by hand.

Loads both configs with ``transformers.AutoConfig`` and the tokenizer with
``AutoTokenizer`` (offline), resolves the token with the untyped chain of
``bench_resolve``, and compares it with the target's vocabulary and the
tokenizer's pad and eos ids. Run as a whole process:

    python -m benchmarks.baseline_contract DRAFT_DIR TARGET_DIR TOKENIZER_DIR
"""

from __future__ import annotations

import os
import sys


def main(draft: str, target: str, tokenizer: str) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from transformers import AutoConfig, AutoTokenizer

    from benchmarks.bench_resolve import untyped_chain

    token_id = untyped_chain(AutoConfig.from_pretrained(draft))
    target_config = AutoConfig.from_pretrained(target)
    loaded = AutoTokenizer.from_pretrained(tokenizer)
    fits = token_id < target_config.vocab_size
    placeholder = token_id in (loaded.pad_token_id, loaded.eos_token_id)
    print(token_id, fits, placeholder, len(loaded))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
