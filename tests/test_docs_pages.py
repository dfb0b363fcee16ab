"""Pages of docs/ that are made from other pages, or that a reader lands on first."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO

DOCS = REPO / "docs"
STYLESHEET = "stylesheets/extra.css"


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
    assert "**vLLM**" in first  # the releases are not spelled here (tests/test_no_twins.py)
    assert "**SGLang**" in first
    for page in ("serving-both.md", "rules/sglang.md", "ci.md", "cli.md"):
        assert f"]({page})" in home, page
    assert "## Source" in home


def stylesheet_rules() -> dict[str, dict[str, str]]:
    """Each rule of the docs' own stylesheet: selector -> {property: value}."""
    css = re.sub(r"/\*.*?\*/", "", (DOCS / STYLESHEET).read_text(encoding="utf-8"), flags=re.S)
    rules: dict[str, dict[str, str]] = {}
    for selectors, body in re.findall(r"([^{}]+)\{([^}]*)\}", css):
        declarations = {
            name.strip(): value.strip()
            for name, _, value in (line.partition(":") for line in body.split(";"))
            if name.strip()
        }
        for selector in selectors.split(","):
            rules.setdefault(" ".join(selector.split()), {}).update(declarations)
    return rules


def test_the_site_uses_the_docs_stylesheet() -> None:
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    assert STYLESHEET in config["extra_css"]
    assert (DOCS / STYLESHEET).is_file()


def test_program_output_keeps_its_lines_whole_and_scrolls_inside_its_block() -> None:
    """A transcript is not wrapped a second time at the page's edge: its continuation lines
    keep their hanging indent, on a phone too."""
    rules = stylesheet_rules()
    assert rules[".md-typeset pre > code"]["white-space"] == "pre"
    assert rules[".md-typeset pre > code"]["overflow-x"] == "auto"
    assert not [selector for selector, rule in rules.items() if "pre-wrap" in rule.values()]


def test_code_names_in_tables_stay_whole_and_tables_scroll_in_their_own_box() -> None:
    """`file-unavailable` never breaks at its hyphen; a table is left to mkdocs-material's
    scrolling box (a display or width set on it made tables run off a phone's screen)."""
    rules = stylesheet_rules()
    assert rules[".md-typeset table:not([class]) code"]["white-space"] == "nowrap"
    for selector, rule in rules.items():
        if selector.split()[-1].startswith("table"):
            assert not {"display", "width"} & rule.keys(), selector


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The docs built as CI builds them (mkdocs.yml says strict: a warning fails the build)."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    site_dir = tmp_path_factory.mktemp("site")
    config = load_config(str(REPO / "mkdocs.yml"), site_dir=str(site_dir))
    assert config["strict"]
    build(config)
    return site_dir


@pytest.mark.slow
def test_no_page_shows_its_markdown_source(site: Path) -> None:
    """Nested backticks end a code span early and show the rest as source: a link as
    literal `[text](page.md)` and stray backticks in the prose."""
    pages = sorted(site.rglob("index.html"))
    assert len(pages) == len(list(DOCS.rglob("*.md")))
    for page in pages:
        html = page.read_text(encoding="utf-8")
        assert STYLESHEET in html, page
        article = html[html.index("<article") : html.index("</article>")]
        prose = re.sub(r"<pre\b.*?</pre>", "", article, flags=re.S)
        assert "](" not in prose, page
        text = re.sub(r"<[^>]*>", "", re.sub(r"<code\b.*?</code>", "", prose, flags=re.S))
        assert "`" not in text, page
