"""Tests of drafting_config.values, one module per package module."""
