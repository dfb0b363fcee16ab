"""What is on disk or in the hub cache: config and tokenizer JSON, safetensors headers, repo ids.
Reads files; judges nothing.
"""
