"""Baseline for the sweep benchmark: the least a sweep can do, in one Python process.

For each path: read the file, parse it, pick the token id with an untyped
if/elif chain over the parsed dict, and print one JSON array at the end. No
validation, no messages, no target: a floor for what Python's per-file work
costs on this machine, measured beside the real sweep, not a competitor.

    python -m benchmarks.baseline_sweep path/to/config.json ...
"""

from __future__ import annotations

import json
import sys

LOWER_FIELDS = ("mask_token_id", "dspark_noise_token_id", "pard_token", "ptd_token_id")


def token_id(config: dict[str, object]) -> object:
    """The chain, on a parsed config.json (the first set field; nothing checked)."""
    dflash = config.get("dflash_config")
    if isinstance(dflash, dict) and dflash.get("mask_token_id") is not None:
        return dflash["mask_token_id"]
    return next((config[name] for name in LOWER_FIELDS if config.get(name) is not None), None)


def main(paths: list[str]) -> int:
    results = []
    for path in paths:
        with open(path, encoding="utf-8") as file:
            results.append({"path": path, "token_id": token_id(json.load(file))})
    sys.stdout.write(json.dumps(results) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
