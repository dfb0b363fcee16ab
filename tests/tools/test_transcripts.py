"""``python -m tools.transcripts`` rewrites the transcripts ``tests/test_readme.py`` runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import test_readme
from tools import transcripts

DOCUMENT = """\
# A page

```text
$ drafting-config check a
old output of a
more

$ drafting-config check b
old output of b
```

```bash
$ drafting-config check not-a-transcript
```

<!-- ci: setup -->
```bash
python3 -m venv .venv && drafting-config check examples/*/config.json
```

```text
old set-up output
```
"""


def fake_run(command: str) -> str:
    return f"printed by {command}\nsecond line\n"


def test_every_transcript_and_the_setup_block_are_rewritten_and_nothing_else() -> None:
    assert transcripts.rewrite(DOCUMENT, fake_run) == DOCUMENT.replace(
        "old output of a\nmore\n", "printed by drafting-config check a\nsecond line\n"
    ).replace("old output of b\n", "printed by drafting-config check b\nsecond line\n").replace(
        "old set-up output\n",
        "printed by drafting-config check examples/*/config.json\nsecond line\n",
    )


def test_a_rewritten_document_is_a_fixed_point() -> None:
    once = transcripts.rewrite(DOCUMENT, fake_run)
    assert transcripts.rewrite(once, fake_run) == once


def test_the_transcripts_it_rewrites_are_those_the_readme_test_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = tmp_path / "docs" / "page.md"
    page.parent.mkdir()
    page.write_text(DOCUMENT, encoding="utf-8")
    monkeypatch.setattr(test_readme, "DOCUMENTS", [page])
    monkeypatch.setattr(test_readme, "name", lambda document: document.name)
    seen: list[str] = []

    def record(command: str) -> str:
        seen.append(command)
        return ""

    transcripts.rewrite(DOCUMENT, record)
    assert [command for _, command, _ in test_readme.transcripts()] == seen[:-1]
    assert seen[-1] == test_readme.SETUP_COMMAND.rpartition(" && ")[2]


def test_check_names_a_stale_document_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "docs").mkdir()
    readme = tmp_path / "README.md"
    readme.write_text(DOCUMENT, encoding="utf-8")
    monkeypatch.setattr(transcripts, "REPO", tmp_path)
    monkeypatch.setattr(transcripts, "documents", lambda: [readme])
    monkeypatch.setattr(transcripts, "shell", fake_run)
    assert transcripts.main(["--check"]) == 1
    assert capsys.readouterr().out == "stale: README.md\n"
    assert readme.read_text(encoding="utf-8") == DOCUMENT
    assert transcripts.main([]) == 0
    assert transcripts.main(["--check"]) == 0


def test_the_commands_run_without_the_terminal_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    # a shell that exports COLUMNS (or FORCE_COLOR) must not rewrite the transcripts at its
    # width (or in colour): the test runs them without these
    for name in transcripts.TERMINAL_VARIABLES:
        monkeypatch.setenv(name, "90")
    printed = transcripts.shell('echo "[$COLUMNS$FORCE_COLOR$NO_COLOR]"')
    assert printed == "[]\n"
