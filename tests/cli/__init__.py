"""Tests of drafting_config.cli, one module per package module."""
