"""Tests of drafting_config.runtime, one module per package module."""
