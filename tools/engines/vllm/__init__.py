"""vLLM's maintainers' tools: its tables and its harness."""
