"""Each engine's maintainers' tools, one folder per engine."""
