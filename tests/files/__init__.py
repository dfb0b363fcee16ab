"""Tests of drafting_config.files, one module per package module."""
