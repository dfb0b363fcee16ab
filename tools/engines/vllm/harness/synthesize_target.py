"""Write a synthesized target config: the family's config class with the draft's sizes.

Runs inside a release's harness environment (its transformers, 5.20.2 for 0.33.0 and 0.34.0
alike, and vLLM's own config classes for the families transformers lacks). Reads one JSON
recipe on stdin, ``{"model_type": ..., "architectures": [...], "fields": {...}}``, builds
the family's config class with ``fields`` as keyword arguments (transformers'
``CONFIG_MAPPING``, else vLLM's ``transformers_utils.config._CONFIG_REGISTRY``), and prints
its full ``to_dict()`` as JSON (sorted keys, two-space indent). Only ``config.json``-shaped
data comes out; nothing of the class's code.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any


def _config_class(model_type: str) -> Any:
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    if model_type in CONFIG_MAPPING:
        return CONFIG_MAPPING[model_type]
    os.environ["VLLM_TARGET_DEVICE"] = "cpu"
    from vllm.transformers_utils.config import _CONFIG_REGISTRY

    return _CONFIG_REGISTRY[model_type]


def main() -> int:
    recipe = json.load(sys.stdin)
    config = _config_class(recipe["model_type"])(**recipe["fields"])
    config.architectures = list(recipe["architectures"])
    data = config.to_dict()
    data.pop("transformers_version", None)
    sys.stdout.write(json.dumps(data, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
