"""The rendering of verdicts: text lines and JSON documents, for ``check`` and ``explain``.

No argparse here: :mod:`drafting_config.cli.run` parses the arguments and writes what this
module renders.  The JSON shape is documented with the command line.
"""

from __future__ import annotations

import json
import math
import os
from typing import TYPE_CHECKING, Final

from drafting_config.cli.output_schema import SCHEMA_VERSION
from drafting_config.files.json_files import ConfigFileError
from drafting_config.values.errors import describe_value
from drafting_config.values.fields import MISSING
from drafting_config.values.paths import display_path, parse_display_path, printable
from drafting_config.verdicts import Verdict

if TYPE_CHECKING:
    from drafting_config.engines.interface import WeightsFacts


def verdict_json(verdict: Verdict, *, strict: bool = False) -> dict[str, object]:
    """The ``--json`` object of one verdict (documented in docs/cli.md).

    ``ok`` is whether the draft passed, as the exit status counts it: with
    ``strict``, a verdict with warnings did not, and its warnings are listed in
    ``errors`` too (``"--strict: ..."``, field null), so ``error`` says why ``ok`` is
    false; ``token_id`` and ``source`` stay set, as the draft itself has no error.
    """
    resolution = verdict.resolution
    usable = verdict.token_id is not None and verdict.ok
    errors: list[dict[str, object]] = [
        {"field": e.field, "message": _message(e, verdict), "code": _code(e)}
        for e in verdict.errors
    ]
    if strict and verdict.ok:  # the warnings are what failed the check: list them as such
        errors += [
            {"field": None, "message": f"--strict: {w}", "code": _code(w)} for w in verdict.warnings
        ]
    first = errors[0] if errors else None
    token = verdict.token
    return {
        "schema_version": SCHEMA_VERSION,
        "path": verdict.path,
        "engine": verdict.engine,
        "ok": passed(verdict, strict),
        "outcome": outcome(verdict, strict),
        "token_id": verdict.token_id if usable else None,
        "source": verdict.token_source if usable else None,
        "shadowed": []
        if not usable
        else [{"source": f.source.value, "token_id": f.token_id} for f in verdict.shadowed],
        "hidden_size": None if resolution is None else resolution.hidden_size,
        "vocab_size": None if resolution is None else resolution.vocab_size,
        "format": None if resolution is None else resolution.format,
        "algorithm": verdict.algorithm,
        "mode": verdict.mode,
        "parallel": verdict.parallel,
        "serve_with": verdict.serve_with,
        "aux_layer_ids": None if verdict.aux_layer_ids is None else list(verdict.aux_layer_ids),
        "aux_layer_source": verdict.aux_layer_source,
        "token": None
        if token is None
        else {"id": token.id, "kind": token.kind.value, "text": token.text},
        "target": verdict.target,
        "weights": _weights_json(verdict),
        "warnings": [str(w) for w in verdict.warnings],
        "notes": list(verdict.notes),
        "errors": errors,
        "error": None if first is None else first["message"],
        "error_field": None if first is None else first["field"],
        "findings": finding_rows(verdict),
    }


def finding_rows(verdict: Verdict) -> list[dict[str, object]]:
    """Every finding of a verdict as data: its code, step, severity, field, message, fix and
    evidence (``None`` where not known), errors first, then warnings, then notes."""
    rows: list[dict[str, object]] = []
    for severity, findings in (
        ("error", verdict.errors),
        ("warning", verdict.warnings),
        ("note", verdict.notes),
    ):
        for finding in findings:
            code = getattr(finding, "code", None)
            message = _message(finding, verdict) if severity == "error" else str(finding)
            rows.append(
                {
                    "code": None if code is None else code.name,
                    "step": None if code is None else code.step.value,
                    "severity": severity,
                    "engine": verdict.engine,
                    "field": getattr(finding, "field", None),
                    "message": message,
                    "fix": getattr(finding, "fix", None),
                    "evidence": getattr(finding, "evidence", None),
                }
            )
    return rows


def _code(finding: object) -> str | None:
    code = getattr(finding, "code", None)
    return None if code is None else str(code)


def _message(error: object, verdict: Verdict) -> str:
    """An error's text; the draft's own path, which the verdict shows already, left out.

    Only an error that kept the draft from being read is about the draft's path; once
    the draft is read, a file error is about the target's or the tokenizer's files,
    and its message keeps the path that says which.
    """
    if verdict.resolution is not None:
        return str(error)
    if isinstance(error, ConfigFileError):
        # The file's own path when it is not the argument: `DIR/config.json` is a directory.
        return error.problem if display_path(error.path) == verdict.path else str(error)
    return str(error).removeprefix(f"{verdict.path}: ")  # a repo id not cached, ...


def passed(verdict: Verdict, strict: bool) -> bool:
    return verdict.ok and not (strict and verdict.warnings)


def outcome(verdict: Verdict, strict: bool) -> str:
    """The verdict's :attr:`~Verdict.outcome` as the exit status counts it: with ``strict``,
    a verdict with warnings is ``"invalid"``."""
    if verdict.ok:
        return "ok" if passed(verdict, strict) else "invalid"
    return verdict.outcome


HEADLINE_WORDS: Final = {"ok": "OK", "invalid": "INVALID", "unchecked": "NOT CHECKED"}
"""The word of a verdict's headline for each outcome; ``FAILED (--strict: warnings)`` when
only ``--strict`` fails it."""


def verdict_lines(
    verdict: Verdict, strict: bool, indent: str = "    ", *, engines: int = 1
) -> list[str]:
    """The text rendering of one verdict: a headline, then details indented; with several
    ``engines``, the headline names the verdict's engine."""
    resolution = verdict.resolution
    name = verdict.path if verdict.path is not None else "<config>"
    if engines > 1:
        name = f"{name} [{verdict.engine}]"
    if not verdict.ok or resolution is None:
        word = HEADLINE_WORDS[verdict.outcome]
        lines = [f"{name}: {word}: {_message(verdict.errors[0], verdict)}"]
        lines += [f"{indent}error: {_message(e, verdict)}" for e in verdict.errors[1:]]
    else:
        details = [
            f"{size_name} {size}"
            for size_name, size in (
                ("hidden_size", resolution.hidden_size),
                ("vocab_size", resolution.vocab_size),
            )
            if size is not None
        ]
        if resolution.format != "hf":
            details.insert(0, f"{resolution.format} {resolution.algorithm}")
        if verdict.algorithm_assumed:
            details.insert(0, f"assumes {verdict.algorithm}")
        status = "OK" if passed(verdict, strict) else "FAILED (--strict: warnings)"
        lines = [
            f"{name}: {status}: {_token_part(verdict)}"
            + (f" ({', '.join(details)})" if details else "")
        ]
        if verdict.shadowed:
            shadowed = ", ".join(f"`{f.source.value}` = {f.token_id}" for f in verdict.shadowed)
            lines.append(f"{indent}shadowed: {shadowed}")
        if verdict.token is not None:
            token = verdict.token
            text = "" if token.text is None else f" {token.text!r}"
            lines.append(f"{indent}token: {token.kind.value}{text}")
    if verdict.target is not None:
        lines.append(f"{indent}target: {verdict.target}")
    if verdict.weights is not None:
        lines.append(f"{indent}weights: {_weights_line(verdict.weights)}")
    lines += [f"{indent}warning: {w}" for w in verdict.warnings]
    lines += [f"{indent}note: {note}" for note in verdict.notes]
    if verdict.mode is not None:
        drafted = "parallel" if verdict.parallel else "sequential"
        lines.append(f"{indent}mode: {verdict.mode} ({drafted}), serve with {verdict.serve_with}")
    return [printable(line) for line in lines]  # config values quoted in messages


def github_lines(verdict: Verdict, strict: bool) -> list[str]:
    """GitHub Actions workflow commands for a verdict's errors and warnings (``--format
    github``): ``::error file=DRAFT,title=CODE::message``, one per finding, so that a CI
    shows each on the draft's file.  Properties and messages are escaped as the runner
    reads them (``%``, ``\\r``, ``\\n``; in properties ``:`` and ``,`` too), and any other
    unprintable character as :func:`printable` writes it, so no config value can forge a
    workflow command."""
    path = verdict.path if verdict.path is not None else "<config>"
    if verdict.path is not None and os.path.isdir(parse_display_path(verdict.path)):
        path = f"{path}/config.json"
    prefix = f"[{verdict.engine}] "
    lines = []
    for error in verdict.errors:
        word = "could not check" if error.unavailable else "error"
        lines.append(
            _workflow_command(
                "error", path, _code(error) or word, prefix + _message(error, verdict)
            )
        )
    level = "error" if strict and verdict.ok else "warning"
    lines += [
        _workflow_command(level, path, _code(warning) or "warning", prefix + str(warning))
        for warning in verdict.warnings
    ]
    return lines


def _workflow_command(level: str, file: str, title: str, message: str) -> str:
    properties = f"file={escape_property(file)},title={escape_property(title)}"
    return f"::{level} {properties}::{escape_data(message)}"


def escape_data(text: str) -> str:
    """A workflow command's message, escaped as the Actions runner unescapes it."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return printable(text)


def escape_property(text: str) -> str:
    """A workflow command's property value, escaped: ``:`` and ``,`` too."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _token_part(verdict: Verdict) -> str:
    """Which token id the engine feeds the masked slots, and where it comes from."""
    if verdict.token_id is None:  # SGLang: the served tokenizer's, or EAGLE3's none
        if verdict.algorithm == "EAGLE3":
            return "no token id (sequential EAGLE3)"
        return "token id from the served tokenizer at start-up"
    if verdict.token_source == "tokenizer":
        return f"token id {verdict.token_id} from the tokenizer"
    return f"token id {verdict.token_id} from `{verdict.token_source}`"


def _weights_json(verdict: Verdict) -> dict[str, object] | None:
    weights = verdict.weights
    if weights is None:
        return None
    return {
        "files": list(weights.files),
        "tensors": weights.tensors,
        "architecture": weights.architecture,
        "embedding_rows": weights.embedding_rows,
        "fc_input_width": weights.fc_input_width,
        "layers": weights.layers,
    }


def _weights_line(weights: WeightsFacts) -> str:
    """``7 tensors in DIR/model.safetensors (qwen3_dflash: 2 layers, fc input 192)``."""
    files = weights.files
    where = files[0] if len(files) == 1 else f"{len(files)} files ({files[0]}, ...)"
    found = [f"{weights.layers} layers"] if weights.layers is not None else []
    if weights.embedding_rows is not None:
        found.append(f"embedding rows {weights.embedding_rows}")
    if weights.fc_input_width is not None:
        found.append(f"fc input {weights.fc_input_width}")
    row = weights.architecture or "architecture not checked"
    details = f"{row}: {', '.join(found)}" if found else row
    return f"{weights.tensors} tensors in {where} ({details})"


def json_text(document: object) -> str:
    """``document`` as strict JSON: a ``NaN`` or infinity from a config (which Python's
    ``json``, transformers and vLLM all read) is written as the string ``"NaN"``,
    ``"Infinity"`` or ``"-Infinity"``, which strict parsers accept."""
    try:
        return _STRICT_JSON.encode(document)
    except ValueError:  # rare: walk the document only when it holds one
        return _STRICT_JSON.encode(_finite(document))


_STRICT_JSON: Final = json.JSONEncoder(allow_nan=False, check_circular=False)
"""One encoder for every document (``json.dumps`` with an option builds one per call); a
document is a tree built afresh by :func:`verdict_json`, so no cycle check."""


_NON_FINITE: Final = {math.inf: "Infinity", -math.inf: "-Infinity"}


def _finite(value: object) -> object:
    if isinstance(value, float) and not math.isfinite(value):
        return _NON_FINITE.get(value, "NaN")
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_finite(item) for item in value]
    return value


def field_rows(verdict: Verdict) -> list[dict[str, object]]:
    resolution = verdict.resolution
    if resolution is None:
        return []
    return [
        {
            "rank": rank,
            "field": f.source.value,
            "value": None if f.value is MISSING else f.value,
            "status": f.status.value,
            "error": None if f.error is None else str(f.error),
        }
        for rank, f in enumerate(resolution.fields, 1)
    ]


def _shown(value: object) -> str:
    if value is MISSING:
        return "-"
    if value is None:
        return "null"
    return str(value) if type(value) is int else describe_value(value)


def explain_lines(verdict: Verdict, strict: bool) -> list[str]:
    """The text of ``explain``: the token-id fields in priority order, then the verdict."""
    lines = [verdict.path or "<config>"]
    resolution = verdict.resolution
    if resolution is not None and resolution.fields:
        header = ("rank", "field", "value", "status")
        rows = [header] + [
            (str(rank), f.source.value, _shown(f.value), f.status.value)
            for rank, f in enumerate(resolution.fields, 1)
        ]
        widths = [max(len(row[i]) for row in rows) for i in range(len(header) - 1)]
        lines += [
            "  " + "".join(c.ljust(w + 2) for c, w in zip(row, widths, strict=False)) + row[-1]
            for row in rows
        ]
    detail = verdict_lines(verdict, strict, indent="    ")
    lines.append("  " + detail[0].removeprefix(f"{verdict.path or '<config>'}: "))
    lines += ["  " + line.strip() for line in detail[1:]]
    return [printable(line) for line in lines]
