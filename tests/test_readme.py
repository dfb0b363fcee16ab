"""The README and the pages of ``docs/`` show what the program does today.

Every ``$ drafting-config ...`` line in a ``text`` block is run and its output compared
with the lines under it; the README's set-up command is compared with the block after it;
every ``pycon`` block runs as a doctest; the README's two commands are what ``.ci/run``
reads; and the JSON keys the command prints are the ones ``docs/cli.md`` documents.
"""

from __future__ import annotations

import doctest
import json
import re
import shutil
from pathlib import Path

import pytest

from drafting_config.command import main
from tests.conftest import REPO
from tools import transcripts as transcript_tool

README = REPO / "README.md"
PAGES = sorted((REPO / "docs").rglob("*.md"))
DOCUMENTS = [README, *PAGES]
SCRIPT = shutil.which("drafting-config")

TEST_COMMAND = (
    ". .venv/bin/activate && pytest && mypy && ruff check . && ruff format --check . "
    "&& lint-imports && mkdocs build --strict"
)
SETUP_COMMAND = (
    "python3 -m venv .venv && . .venv/bin/activate && pip install torch==2.13.0 "
    '&& pip install -e ".[dev]" && drafting-config check examples/*/config.json'
)


def name(document: Path) -> str:
    return document.relative_to(REPO).as_posix()


def blocks(document: Path, language: str) -> list[str]:
    """The contents of every fenced block of ``language`` in ``document``."""
    text = document.read_text(encoding="utf-8")
    return re.findall(rf"^```{language}\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)


def shell(command: str) -> str:
    assert SCRIPT is not None, "drafting-config is not installed"
    # In a pipe, as a reader sees the docs: no COLUMNS, no colour (the text output's width
    # there, 160 columns, is the transcripts'), as the tool that rewrites them runs it
    return transcript_tool.shell(command, REPO)


def transcripts() -> list[tuple[str, str, str]]:
    """(document, command, printed output) for every ``$ drafting-config ...`` line in a
    text block of the README or of a page of ``docs/``."""
    found = []
    for document in DOCUMENTS:
        for block in blocks(document, "text"):
            for part in re.split(r"^\$ ", block, flags=re.MULTILINE)[1:]:
                command, _, output = part.partition("\n")
                found.append((name(document), command, output))
    return found


def doctests() -> list[tuple[str, str]]:
    """(document, examples) for each document with ``pycon`` blocks: its blocks run in
    order, sharing their names, as one doctest."""
    return [
        (name(document), "".join(blocks(document, "pycon")))
        for document in DOCUMENTS
        if blocks(document, "pycon")
    ]


def ci_command(step: str) -> str:
    """The first line of the bash block after ``<!-- ci: STEP -->``, as ``.ci/run`` reads it."""
    lines = README.read_text(encoding="utf-8").splitlines()
    start = lines.index(f"<!-- ci: {step} -->")
    fence = lines.index("```bash", start)
    assert fence == start + 1, f"the ci: {step} marker must sit right above its bash block"
    return lines[fence + 1]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("document", "command", "output"),
    transcripts(),
    ids=[f"{document}: {command}" for document, command, _ in transcripts()],
)
def test_each_transcript_is_what_the_command_prints(
    document: str, command: str, output: str
) -> None:
    assert command.startswith("drafting-config "), document
    assert shell(command).rstrip("\n") == output.rstrip("\n")  # blank lines separate them


@pytest.mark.slow
def test_the_quick_start_output_is_what_the_setup_command_prints() -> None:
    readme = README.read_text(encoding="utf-8")
    setup = re.search(r"<!-- ci: setup -->\n```bash\n(.*?)\n```\n\n```text\n(.*?)```", readme, re.S)
    assert setup is not None
    command = setup.group(1).rpartition(" && ")[2]
    assert command == "drafting-config check examples/*/config.json"
    assert shell(command) == setup.group(2)


@pytest.mark.parametrize(
    ("document", "example"), doctests(), ids=[document for document, _ in doctests()]
)
def test_each_python_example_prints_what_it_shows(
    document: str, example: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)  # the examples read examples/ by relative paths
    test = doctest.DocTestParser().get_doctest(example, {}, document, document, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test, out=lambda report: pytest.fail(report, pytrace=False))
    assert runner.summarize(verbose=False).attempted > 0


def test_the_readme_has_the_two_commands_ci_runs() -> None:
    assert ci_command("setup") == SETUP_COMMAND
    assert ci_command("test") == TEST_COMMAND


def test_no_other_command_block_is_followed_by_output_left_unchecked() -> None:
    """A ```bash block followed by a ```text block is a transcript; only the set-up one
    exists (and is checked above), so output cannot hide under a bash block."""
    pairs = [
        (name(document), command)
        for document in DOCUMENTS
        for command in re.findall(
            r"^```bash\n((?:(?!^```).)*?)^```\n\n```text\n",
            document.read_text(encoding="utf-8"),
            re.S | re.M,
        )
    ]
    assert pairs == [("README.md", SETUP_COMMAND + "\n")]


def test_there_are_transcripts_to_check() -> None:
    checked = {document for document, _, _ in transcripts()}
    assert len(transcripts()) >= 9
    assert {"README.md", "docs/cli.md", "docs/checkpoint.md"} <= checked
    assert {document for document, _ in doctests()} >= {"README.md", "docs/python.md"}


def test_the_readme_is_a_landing_page() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 150


def test_every_link_from_the_readme_to_the_docs_leads_to_a_page() -> None:
    links = re.findall(r"\]\((docs/[^)#]+)(?:#[^)]*)?\)", README.read_text(encoding="utf-8"))
    assert links
    assert [link for link in links if not (REPO / link).is_file()] == []


def json_keys(capsys: pytest.CaptureFixture[str], *argv: str) -> set[str]:
    main(list(argv))
    printed = json.loads(capsys.readouterr().out)
    return set((printed[0] if isinstance(printed, list) else printed).keys())


def test_the_docs_document_every_json_key(capsys: pytest.CaptureFixture[str]) -> None:
    draft, target = "examples/pair-qwen3-4b/draft", "examples/pair-qwen3-4b/target"
    keys = json_keys(capsys, "check", "--json", str(REPO / draft), "--target", str(REPO / target))
    keys |= json_keys(capsys, "explain", "--json", str(REPO / draft))
    assert "fields" in keys
    section = (REPO / "docs/cli.md").read_text(encoding="utf-8").split("## JSON", 1)[1]
    section = section.split("\n## ", 1)[0]
    assert [key for key in sorted(keys) if f'"{key}"' not in section] == []
