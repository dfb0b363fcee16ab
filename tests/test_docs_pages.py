"""Pages of docs/ that are made from other pages, or that a reader lands on first."""

from __future__ import annotations

from drafting_config.engines.vllm.names import VERSION
from tests.conftest import REPO

DOCS = REPO / "docs"


def cells(row: str) -> list[str]:
    """The cells of a Markdown table row; a ``|`` inside a code span splits nothing, as
    Python-Markdown's tables read it (SGLang's ``<|MASK|>``)."""
    found, cell, in_code = [], "", False
    for character in row.strip()[1:-1]:
        if character == "`":
            in_code = not in_code
        if character == "|" and not in_code:
            found.append(cell.strip())
            cell = ""
        else:
            cell += character
    return [*found, cell.strip()]


def serve_on_both_column() -> list[tuple[str, str]]:
    """(rule, what serves on both) for each row of the SGLang page's disagreement table."""
    page = (DOCS / "rules" / "sglang.md").read_text(encoding="utf-8")
    table = page.split("\n## Where the engines disagree\n", 1)[1].split("\n## ", 1)[0]
    rows = [cells(line) for line in table.splitlines() if line.startswith("|")]
    assert rows[0][-1] == "to serve on both"
    return [(row[0], row[-1]) for row in rows[2:]]


def test_the_serving_page_is_the_to_serve_on_both_column_as_one_checklist() -> None:
    page = (DOCS / "serving-both.md").read_text(encoding="utf-8")
    checklist = [line for line in page.splitlines() if line.startswith("- [ ] ")]
    column = serve_on_both_column()
    assert len(column) >= 10
    assert checklist == [f"- [ ] **{rule}**: {advice}." for rule, advice in column]


def test_the_home_page_names_both_engines_and_the_pages_for_authors() -> None:
    home = (DOCS / "index.md").read_text(encoding="utf-8")
    first = home.split("\n\n")[1]
    assert f"**vLLM {VERSION}**" in first
    assert "**SGLang 0.5.23**" in first
    for page in ("serving-both.md", "rules/sglang.md", "ci.md", "cli.md"):
        assert f"]({page})" in home, page
    assert "## Source" in home
