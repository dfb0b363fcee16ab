"""The rules that hold for every engine: each a function ``rule(subject, found)``
(:mod:`~drafting_config.rules.subject`) judging a draft against its target
(:mod:`~drafting_config.rules.target`) or its tokenizer (:mod:`~drafting_config.rules.tokenizer`).
Names no engine; each engine's own rules are in its package (:mod:`drafting_config.engines`).
Reads no file.  Internal: the public API is :mod:`drafting_config`.
"""
