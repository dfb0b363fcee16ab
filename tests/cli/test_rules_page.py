"""The "rules at a glance" table of each engine's docs page is generated from the engine's
``RULES``, the rules' docstrings and the codes they give
(:mod:`drafting_config.cli.rules_page`): a stale page fails here."""

from __future__ import annotations

from pathlib import Path

import pytest

from drafting_config.cli.rules_page import (
    BEGIN,
    END,
    engine_rules,
    main,
    pages,
    rules_table,
    with_table,
)
from drafting_config.engines import CODES, ENGINES
from tests.conftest import REPO

PAGES = pages(REPO / "docs")


@pytest.mark.parametrize("engine", list(ENGINES))
def test_each_engines_page_holds_its_generated_table(engine: str) -> None:
    page = PAGES[engine].read_text(encoding="utf-8")
    assert with_table(page, engine) == page, "regenerate: python -m drafting_config.cli.rules_page"


@pytest.mark.parametrize("engine", list(ENGINES))
def test_the_table_has_a_row_per_rule_in_order_with_its_codes(engine: str) -> None:
    rows = rules_table(engine).splitlines()[2:]
    rules = engine_rules(engine)
    assert len(rules) > 5
    assert [row.split("`")[1] for row in rows] == [rule.__name__ for rule in rules]
    named = {name.strip(" `") for row in rows for name in row.split("|")[3].split(",")}
    assert named - {"-"} <= set(CODES)
    assert len(named) > 10  # the codes are followed into the rules' helpers


def test_a_stale_page_is_rewritten_and_check_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = tmp_path / "docs"
    (docs / "rules").mkdir(parents=True)
    for engine, path in PAGES.items():
        stale = with_table(path.read_text(encoding="utf-8"), engine).replace(
            rules_table(engine), "| rule |\n"
        )
        (docs / "rules" / f"{engine}.md").write_text(stale, encoding="utf-8")
    monkeypatch.chdir(docs.parent)
    assert main(["--check"]) == 1
    assert main([]) == 0
    assert main(["--check"]) == 0
    for engine in ENGINES:
        assert (docs / "rules" / f"{engine}.md").read_text(encoding="utf-8") == PAGES[
            engine
        ].read_text(encoding="utf-8")


def test_a_page_without_the_markers_is_refused() -> None:
    engine = next(iter(ENGINES))
    with pytest.raises(ValueError, match="rules table"):
        with_table("# a page\n", engine)
    assert with_table(f"a\n{BEGIN}\nold\n{END}\nb\n", engine).startswith(f"a\n{BEGIN}\n\n| rule")
