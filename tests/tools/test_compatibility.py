"""``python -m tools.compatibility``: the compatibility page and the CHANGELOG's verdict
changes, generated from the checker's verdicts on the corpus."""

from __future__ import annotations

from pathlib import Path

from drafting_config.engines import RELEASES
from tools import compatibility
from tools.compatibility import BEGIN, END, Cell, changes, page, rows, with_changes

ROOT = Path(__file__).resolve().parents[2]

SERVES = Cell(True, (), (), "dflash", '{"method": "dflash"}')
WARNS = Cell(True, (), ("rope-differs-from-target",), "dflash", '{"method": "dflash"}')
REFUSED = Cell(False, ("token-missing", "architecture-unsupported"), (), None, None)


def test_the_page_and_the_changelog_block_are_up_to_date() -> None:
    # Fails after a change of verdicts until `python -m tools.compatibility` is run.
    assert compatibility.main(["--check"]) == 0


def test_the_serve_commands_name_paths_relative_to_the_repository() -> None:
    # The page is the same in every checkout: a path of this one in it fails CI's clone.
    row = next(row for row in rows() if row.draft.startswith("examples/"))
    cells = compatibility.judge_all([row], root=ROOT)[row.name]
    commands = [cell.serve_with for cell in cells.values() if cell.serve_with is not None]
    assert commands
    for command in commands:
        assert str(ROOT) not in command, command
        assert str(Path(row.draft).parent) in command, command
    assert str(ROOT) not in (ROOT / "docs" / "compatibility.md").read_text(encoding="utf-8")


def test_one_row_per_corpus_file_by_its_name_and_per_example_by_its_folder() -> None:
    names = [row.name for row in rows()]
    assert len(names) == len(set(names))
    corpus = sorted(path.stem for path in (ROOT / "tests/real_configs/drafts").glob("*.json"))
    assert corpus
    assert set(corpus) <= set(names)
    assert "specforge--qwen3-8b-dspark" in names
    examples = {
        path.parent.relative_to(ROOT / "examples").as_posix().removesuffix("/draft")
        for path in (ROOT / "examples").glob("**/config.json")
        if path.parent.name != "target"
    }
    assert examples <= set(names)
    assert len(names) == len(corpus) + len(examples)


def test_the_page_has_every_release_of_every_engine_with_verdict_mode_and_serve_command() -> None:
    text = compatibility.PAGE.read_text(encoding="utf-8")
    for release in RELEASES:
        assert f"\n## {release.replace('==', ' ')}\n" in text
    assert "| `specforge--qwen3-8b-dflash` | serves | dflash | `" in text


def test_changes_name_the_drafts_whose_verdict_changes_with_the_codes() -> None:
    table = {
        "a": {"e==1": REFUSED, "e==2": SERVES, "f==1": SERVES},
        "b": {"e==1": WARNS, "e==2": WARNS, "f==1": SERVES},
    }
    block = changes(table)
    assert block.startswith(BEGIN)
    assert block.endswith(END + "\n")
    assert "### e 1 to e 2\n\n- `a`: refused: `token-missing`, `architecture-unsupported`" in block
    assert "→ serves (dflash)\n" in block
    assert "`b`" not in block  # unchanged, and f has one release: no pair
    assert "### f" not in block
    same = {"a": {"e==1": SERVES, "e==2": SERVES}}
    assert "No draft changes verdict." in changes(same)


def test_the_block_is_inserted_once_then_replaced_in_place() -> None:
    changelog = "# Changelog\n\nIntro.\n\n## [Unreleased]\n\n## [0.1.0]\n"
    once = with_changes(changelog, f"{BEGIN}\nfirst\n{END}\n")
    assert once.index(BEGIN) < once.index("## [Unreleased]")
    twice = with_changes(once, f"{BEGIN}\nsecond\n{END}\n")
    assert twice == once.replace("first", "second")
    assert with_changes(twice, f"{BEGIN}\nsecond\n{END}\n") == twice


def test_a_cell_s_verdict_names_its_codes() -> None:
    assert SERVES.verdict == "serves"
    assert WARNS.verdict == "serves, warns: `rope-differs-from-target`"
    assert REFUSED.word == "refused"
    assert "| `a` | refused |" in page({"a": {"e==1": REFUSED}})
