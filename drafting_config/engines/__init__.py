"""Each engine's knowledge, one module per engine (:mod:`~drafting_config.engines.vllm` for
vLLM 0.33.0): its names, tables and the functions that read a draft as the engine reads it,
each citing the engine's code.  Internal: the public API is :mod:`drafting_config`.
"""
