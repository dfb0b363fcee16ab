"""Each engine's knowledge, one module per engine: its chains, tables and rules, each citing the
engine's code.
"""
