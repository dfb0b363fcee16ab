"""Write ``examples/tokenizer-small/``: a small tokenizer laid out like Qwen3's.

    python examples/make_small_tokenizer.py

Needs the ``tokenizers`` library (the ``dev`` extra).  The layout, at a small
size: a byte-level BPE base vocabulary of 300 tokens with merges (ids 0-299),
then Qwen3's 26 added tokens (ids 300-325: 14 special, such as the pad token
``<|endoftext|>`` at 300 and the eos token ``<|im_end|>`` at 302, then 12 that
are not, such as ``<think>`` at 324), so the tokenizer length is 326.  A model
with 384 embedding rows (``vocab_size: 384``) has rows 326-383 free: 326 is
where a DFlash drafter's mask id lives, as 151669 does for Qwen3.
``tokenizer_config.json`` is written as transformers 4.5x wrote Qwen3's: the
pad and eos tokens by name, and ``added_tokens_decoder``.

The output is deterministic; rerunning the script rewrites the same files.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.tokenizer_factory import write_qwen3_like  # noqa: E402

BASE_VOCAB = 300


def main() -> None:
    """Write the tokenizer files and say where."""
    directory = write_qwen3_like(
        REPO / "examples" / "tokenizer-small", vocab_size=BASE_VOCAB, config_style="v4"
    )
    for path in sorted(directory.iterdir()):
        print(f"{path.relative_to(REPO)}: {path.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
