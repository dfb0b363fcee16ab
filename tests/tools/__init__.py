"""Tests of the maintainers' tools in ``tools/``, one module per tool module."""
