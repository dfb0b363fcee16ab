"""Tests of drafting_config.engines, one module per package module."""
