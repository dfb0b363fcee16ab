"""Tests of drafting_config.draft, one module per package module."""
