"""What is on disk or in the hub cache: config and tokenizer JSON, safetensors headers, repo
ids.  Reads files; judges nothing.  Internal, except the documented paths
``drafting_config.repo_ids`` and ``drafting_config.tokenizer_files``.
"""
