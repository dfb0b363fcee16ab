"""What a draft's and a target's configs say: the token-id resolution, the speculators
translation, the target's facts.  Internal: the public API is :mod:`drafting_config`.
"""
