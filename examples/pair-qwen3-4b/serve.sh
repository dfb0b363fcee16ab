#!/bin/sh
# The launch line this pair's model card documents, kept beside the draft so that
# `drafting-config check examples/pair-qwen3-4b/draft --launch @examples/pair-qwen3-4b/serve.sh`
# checks the line users copy, not only the files (docs/ci.md).
vllm serve examples/pair-qwen3-4b/target \
  --speculative-config '{"method": "dflash", "model": "examples/pair-qwen3-4b/draft", "num_speculative_tokens": 15}'
