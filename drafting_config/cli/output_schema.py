"""The JSON Schema (2020-12) of ``check --json`` and ``explain --json``, shipped with the
package: ``drafting-config schema`` prints it.

:data:`SCHEMA_VERSION` is each object's ``schema_version``: keys are added without a bump;
a key renamed or removed, or a value's meaning changed, bumps it (and the CHANGELOG says
so).  ``drafting-config schema --model`` prints the typed model's schema instead.
"""

from __future__ import annotations

from typing import Final

__all__ = ["OUTPUT_SCHEMA", "SCHEMA_VERSION"]

SCHEMA_VERSION: Final = 2
"""The version of the output's shape, each JSON object's ``schema_version``."""

_STRING_OR_NULL: Final = {"type": ["string", "null"]}
_INT_OR_NULL: Final = {"type": ["integer", "null"]}
_MESSAGE: Final = {
    "type": "object",
    "required": ["field", "message"],
    "properties": {
        "field": _STRING_OR_NULL,
        "message": {"type": "string"},
        "code": _STRING_OR_NULL,
    },
}
_FINDING: Final = {
    "type": "object",
    "required": [
        "code",
        "step",
        "severity",
        "engine",
        "field",
        "message",
        "fix",
        "evidence",
        "fixable",
    ],
    "additionalProperties": False,
    "properties": {
        "code": _STRING_OR_NULL,
        "step": _STRING_OR_NULL,
        "severity": {"enum": ["error", "warning", "note"]},
        "engine": {"type": "string"},
        "field": _STRING_OR_NULL,
        "message": {"type": "string"},
        "fix": _STRING_OR_NULL,
        "evidence": _STRING_OR_NULL,
        "fixable": {
            "description": "whether check --fix mends the finding: it carries a certain edit "
            "of the config that no other edit planned for the draft disagrees with",
            "type": "boolean",
        },
    },
}
_VERDICT_PROPERTIES: Final[dict[str, object]] = {
    "schema_version": {"const": SCHEMA_VERSION},
    "path": _STRING_OR_NULL,
    "engine": {"type": "string"},
    "ok": {"type": "boolean"},
    "outcome": {"enum": ["ok", "invalid", "unchecked"]},
    "token_id": _INT_OR_NULL,
    "source": _STRING_OR_NULL,
    "shadowed": {
        "type": "array",
        "items": {
            "type": "object",
            "required": ["source", "token_id"],
            "properties": {"source": {"type": "string"}, "token_id": {"type": "integer"}},
        },
    },
    "hidden_size": {},
    "vocab_size": {},
    "format": _STRING_OR_NULL,
    "algorithm": _STRING_OR_NULL,
    "mode": {
        "description": "how the engine serves the draft (vLLM: dflash, dflash2, dspark, pard, "
        "eagle3, eagle3-parallel, peagle, eagle, draft-model; SGLang: dflash, dspark, eagle3, "
        "eagle, standalone); "
        "null when the verdict is not OK",
        "type": ["string", "null"],
    },
    "parallel": {
        "description": "whether the masked slots are drafted in one pass; null when not OK",
        "type": ["boolean", "null"],
    },
    "serve_with": {
        "description": "the whole command that serves the draft, one POSIX shell line: vllm "
        "serve TARGET --speculative-config JSON (method, model, num_speculative_tokens), "
        "python -m sglang.launch_server --model-path TARGET --speculative-algorithm ... "
        "--speculative-draft-model-path DRAFT; null when not OK",
        "type": ["string", "null"],
    },
    "aux_layer_ids": {"type": ["array", "null"]},
    "aux_layer_source": _STRING_OR_NULL,
    "token": {
        "type": ["object", "null"],
        "required": ["id", "kind", "text"],
        "properties": {
            "id": {"type": "integer"},
            "kind": {"type": "string"},
            "text": _STRING_OR_NULL,
        },
    },
    "target": _STRING_OR_NULL,
    "weights": {
        "type": ["object", "null"],
        "required": [
            "files",
            "tensors",
            "architecture",
            "embedding_rows",
            "fc_input_width",
            "layers",
        ],
    },
    "warnings": {"type": "array", "items": {"type": "string"}},
    "notes": {"type": "array", "items": {"type": "string"}},
    "errors": {"type": "array", "items": _MESSAGE},
    "error": _STRING_OR_NULL,
    "error_field": _STRING_OR_NULL,
    "findings": {"type": "array", "items": _FINDING},
    "fields": {
        "description": "explain --json only: the token-id fields in the order the "
        "verdict's engine reads them",
        "type": "array",
        "items": {
            "type": "object",
            "required": ["rank", "field", "value", "status", "error"],
        },
    },
}
_VERDICT: Final = {
    "type": "object",
    "required": [name for name in _VERDICT_PROPERTIES if name != "fields"],
    "additionalProperties": False,
    "properties": _VERDICT_PROPERTIES,
}

OUTPUT_SCHEMA: Final[dict[str, object]] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "drafting-config-output.schema.json",
    "title": "drafting-config check --json / explain --json",
    "description": (
        "check --json prints an array of verdicts, one per draft and engine; explain --json "
        "prints one verdict with its `fields` for one draft and engine, else an array of them."
    ),
    "oneOf": [{"type": "array", "items": {"$ref": "#/$defs/verdict"}}, {"$ref": "#/$defs/verdict"}],
    "$defs": {"verdict": _VERDICT},
}
"""The schema of the output: documented in docs/cli.md, printed by ``drafting-config schema``."""
