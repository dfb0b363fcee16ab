"""The rules: each a function ``rule(subject, found)`` (:mod:`~drafting_config.rules.subject`)
judging a draft against its target, tokenizer or checkpoint, citing the engine code it
follows; one module per engine (:mod:`~drafting_config.rules.vllm`) beside the
engine-independent ones.  Reads no file.  Internal, except the checkpoint table's documented
names (``drafting_config.checkpoint_rules``).
"""
