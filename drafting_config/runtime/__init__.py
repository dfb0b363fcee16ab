"""The torch code an engine runs: proposer parameters, masked-slot layouts and vLLM drop-ins."""
