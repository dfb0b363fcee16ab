"""The draft's config as written, and a target's facts: :mod:`~drafting_config.draft.file` (the
``DraftFile``), :mod:`~drafting_config.draft.fields` (the token id's rules),
:mod:`~drafting_config.draft.architectures` (the class names trainers publish),
:mod:`~drafting_config.draft.target`.  Names no engine.  Internal: the public API is
:mod:`drafting_config`.
"""
