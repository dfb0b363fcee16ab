"""The docs' code page and ``drafting-config rule``, both from
:data:`drafting_config.engines.CODES`.

``docs/codes.md`` is :func:`code_page`'s output (``python -m drafting_config.cli.code_page
> docs/codes.md`` writes it; a test holds the two equal), so a code is declared once, in
:mod:`drafting_config.values.codes` or in its engine's ``codes`` module, and the page
follows; ``drafting-config rule CODE`` prints the same row offline (:func:`rule_lines`).
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Final

import drafting_config
from drafting_config.cli.render import MAX_LINE, wrapped
from drafting_config.engines import CODE_ENGINES, CODES
from drafting_config.values.codes import Code, Step

__all__ = ["code_page"]

ANY: Final = "any"
"""The engine column of a code the core declares: given by the checker's own rules, or by
several engines' (:data:`drafting_config.engines.CODE_ENGINES` names the others' engine)."""


def code_page() -> str:
    """The Markdown of the code page: one table per step, in the engines' order."""
    lines = [
        "# Finding codes",
        "",
        "<!-- Generated from drafting_config/values/codes.py and each engine's codes.py by "
        "`python -m drafting_config.cli.code_page`; do not edit. -->",
        "",
        "Every error, warning and note of `drafting-config check` has one of these codes: one",
        "code per fact, whichever engine speaks and whichever file the fact was found in.",
        "`--json` gives it in each finding's `code`; `--ignore CODE` and the `ignore` key of",
        "`[tool.drafting-config]` drop a code's findings (see [the command line](cli.md)).",
        "The codes are grouped by the step of the engine's load path the fact is about;",
        "each row says at which severities the rules give the code (`--ignore` drops a",
        "warning's or a note's, never an error's), what it means, the engine whose rules",
        "alone give it (`any`: the checker's own rules, or several engines'), the engine or",
        "library code behind it, and how to fix it (a finding's own `fix` and `evidence` are",
        "more specific; a dash: none that the draft's author can change, or the fact is the",
        "checker's own).",
    ]
    for step in Step:
        codes = [code for code in CODES.values() if code.step is step]
        if not codes:
            continue
        lines += ["", f"## {step.value}", ""]
        lines += [
            "| code | severity | what it means | engine | engine code | how to fix |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        lines += [
            f"| `{code.name}` | {' or '.join(severities().get(code.name, ('-',)))} | "
            f"{_cell(code.summary)} | {CODE_ENGINES.get(code.name, ANY)} | "
            f"{_cell(code.evidence)} | {_cell(code.fix)} |"
            for code in codes
        ]
    return "\n".join(lines) + "\n"


SEVERITIES: Final = ("error", "warning", "note")
"""The severities a finding has, in the page's order."""


@cache
def severities() -> Mapping[str, tuple[str, ...]]:
    """The severities each code is given at, by the code's name, read from the package's
    source: a ``code=`` of a warning class or ``found.warn`` is a warning, of ``Note`` or
    ``found.note`` a note, of anything else (an error class, a refusal helper) an error, and
    so is the ``code`` or ``default_code`` an error class sets.  A code named by its
    constant, ``TOKEN_NOT_INT`` for ``token-not-int`` (``tests/engines/test_codes.py``
    holds every constant to its code's name)."""
    found: dict[str, set[str]] = {}
    root = Path(drafting_config.__file__).parent
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            for name, severity in _given_codes(node):
                if name in CODES:
                    found.setdefault(name, set()).add(severity)
    return {
        name: tuple(severity for severity in SEVERITIES if severity in given)
        for name, given in found.items()
    }


def _given_codes(node: ast.AST) -> list[tuple[str, str]]:
    """The codes ``node`` gives and at which severity: a call's ``code=``, or an error
    class's ``code`` and ``default_code``."""
    if isinstance(node, ast.Call):
        function = node.func
        called = function.attr if isinstance(function, ast.Attribute) else None
        called = function.id if isinstance(function, ast.Name) else called or ""
        severity = "error"
        if called.endswith("Warning") or called == "warn":
            severity = "warning"
        elif called in {"note", "Note"}:
            severity = "note"
        values = [keyword.value for keyword in node.keywords if keyword.arg == "code"]
        return [(name, severity) for value in values for name in _constants(value)]
    if isinstance(node, ast.ClassDef) and node.name.endswith("Error"):
        return [
            (name, "error")
            for child in ast.walk(node)
            if isinstance(child, (ast.Assign, ast.AnnAssign))
            and any(_is_code_target(target) for target in _targets(child))
            and child.value is not None
            for name in _constants(child.value)
        ]
    return []


def _constants(value: ast.AST) -> list[str]:
    """The code names of the code constants ``value`` names (``codes.TOKEN_NOT_INT``)."""
    return [
        node.attr.lower().replace("_", "-")
        for node in ast.walk(value)
        if isinstance(node, ast.Attribute) and node.attr.isupper()
    ] + [
        node.id.lower().replace("_", "-")
        for node in ast.walk(value)
        if isinstance(node, ast.Name) and node.id.isupper()
    ]


def _targets(node: ast.Assign | ast.AnnAssign) -> list[ast.expr]:
    return node.targets if isinstance(node, ast.Assign) else [node.target]


def _is_code_target(target: ast.expr) -> bool:
    return isinstance(target, ast.Name) and target.id in {"code", "default_code"}


def _cell(text: str | None) -> str:
    """A table cell: the text with its ``|`` escaped, or a dash for none."""
    return "-" if text is None else text.replace("|", "\\|")


def rule_lines(names: Sequence[str] | None = None, *, width: int = MAX_LINE) -> list[str]:
    """What each code of ``names`` means, as ``drafting-config rule`` prints it (every code,
    in the page's order, for ``None``): ``CODE (step: STEP)``, then what it means, how to fix
    it and the engine code behind it, each wrapped at ``width``; codes apart by a blank line.

    Raises:
        KeyError: a name is no code (the first such name).
    """
    if names is None:
        chosen = [code for step in Step for code in CODES.values() if code.step is step]
    else:
        unknown = next((name for name in names if name not in CODES), None)
        if unknown is not None:
            raise KeyError(unknown)
        chosen = [CODES[name] for name in dict.fromkeys(names)]
    lines: list[str] = []
    for code in chosen:
        lines += ([""] if lines else []) + _rule(code, width)
    return lines


def _rule(code: Code, width: int) -> list[str]:
    lines = [f"{code.name} (step: {code.step.value})"]
    lines += wrapped(code.summary, "  ", width)
    lines += wrapped(f"fix: {code.fix or '-'}", "  ", width)
    lines += wrapped(f"engine code: {code.evidence or '-'}", "  ", width)
    return lines


def unknown_code_message(name: str) -> str:
    """A usage error for ``name``, which is no code: the closest codes, and where the list
    of codes is."""
    close = difflib.get_close_matches(name, list(CODES), n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return f"unknown code {name!r}{hint} (drafting-config rule --all lists the codes)"


if __name__ == "__main__":  # pragma: no cover - the maintainers' command
    print(code_page(), end="")
