"""Engine-independent rules: the target's and the tokenizer's side of the contract, and the
checkpoint against its config.
"""
