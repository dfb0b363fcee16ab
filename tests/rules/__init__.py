"""Tests of drafting_config.rules, one module per package module."""
