"""Baseline for the cli benchmark: load a config.json the usual way and run the chain.

Loads with ``transformers.AutoConfig`` (offline), then resolves with the untyped
chain of ``bench_resolve``. Run as a whole process:

    python -m benchmarks.baseline_autoconfig path/to/model
"""

from __future__ import annotations

import os
import sys


def main(path: str) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from transformers import AutoConfig

    from benchmarks.bench_resolve import untyped_chain

    token_id = untyped_chain(AutoConfig.from_pretrained(path))
    print(token_id)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
