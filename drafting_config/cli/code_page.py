"""The docs' code page, generated from :data:`drafting_config.values.codes.CODES`.

``docs/codes.md`` is :func:`code_page`'s output (``python -m drafting_config.cli.code_page
> docs/codes.md`` writes it; a test holds the two equal), so a code is declared once, in
:mod:`drafting_config.values.codes`, and the page follows.
"""

from __future__ import annotations

from drafting_config.values.codes import CODES, Step

__all__ = ["code_page"]


def code_page() -> str:
    """The Markdown of the code page: one table per step, in the engines' order."""
    lines = [
        "# Finding codes",
        "",
        "<!-- Generated from drafting_config/values/codes.py by "
        "`python -m drafting_config.cli.code_page`; do not edit. -->",
        "",
        "Every error, warning and note of `drafting-config check` has one of these codes: one",
        "code per fact, whichever engine speaks and whichever file the fact was found in.",
        "`--json` gives it in each finding's `code`; `--ignore CODE` and the `ignore` key of",
        "`[tool.drafting-config]` drop a code's findings (see [the command line](cli.md)).",
        "The codes are grouped by the step of the engine's load path the fact is about;",
        "each row says what the code means, the engine or library code behind it, and how",
        "to fix it (a finding's own `fix` and `evidence` are more specific; a dash: none",
        "that the draft's author can change, or the fact is the checker's own).",
    ]
    for step in Step:
        codes = [code for code in CODES.values() if code.step is step]
        if not codes:
            continue
        lines += ["", f"## {step.value}", ""]
        lines += [
            "| code | what it means | engine code | how to fix |",
            "| --- | --- | --- | --- |",
        ]
        lines += [
            f"| `{code.name}` | {_cell(code.summary)} | {_cell(code.evidence)} | "
            f"{_cell(code.fix)} |"
            for code in codes
        ]
    return "\n".join(lines) + "\n"


def _cell(text: str | None) -> str:
    """A table cell: the text with its ``|`` escaped, or a dash for none."""
    return "-" if text is None else text.replace("|", "\\|")


if __name__ == "__main__":  # pragma: no cover - the maintainers' command
    print(code_page(), end="")
