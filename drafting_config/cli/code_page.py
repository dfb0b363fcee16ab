"""The docs' code page and ``drafting-config rule``, both from
:data:`drafting_config.engines.CODES`.

``docs/codes.md`` is :func:`code_page`'s output (``python -m drafting_config.cli.code_page
> docs/codes.md`` writes it; a test holds the two equal), so a code is declared once, in
:mod:`drafting_config.values.codes` or in its engine's ``codes`` module, and the page
follows; ``drafting-config rule CODE`` prints the same row offline (:func:`rule_lines`).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Final

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
        "each row says what the code means, the engine whose rules alone give it (`any`: the",
        "checker's own rules, or several engines'), the engine or library code behind it, and",
        "how to fix it (a finding's own `fix` and `evidence` are more specific; a dash: none",
        "that the draft's author can change, or the fact is the checker's own).",
    ]
    for step in Step:
        codes = [code for code in CODES.values() if code.step is step]
        if not codes:
            continue
        lines += ["", f"## {step.value}", ""]
        lines += [
            "| code | what it means | engine | engine code | how to fix |",
            "| --- | --- | --- | --- | --- |",
        ]
        lines += [
            f"| `{code.name}` | {_cell(code.summary)} | {CODE_ENGINES.get(code.name, ANY)} | "
            f"{_cell(code.evidence)} | {_cell(code.fix)} |"
            for code in codes
        ]
    return "\n".join(lines) + "\n"


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
