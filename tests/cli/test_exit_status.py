"""``check --help`` says what each exit status means, and docs/cli.md says the same."""

from __future__ import annotations

import re

import pytest

from drafting_config.cli.exit_status import EXIT_STATUS_HELP
from drafting_config.cli.run import (
    EXIT_BROKEN_PIPE,
    EXIT_INTERRUPTED,
    EXIT_INVALID,
    EXIT_OK,
    EXIT_UNCHECKED,
    main,
)
from tests.conftest import REPO


def test_check_help_ends_with_every_exit_status(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--help"]) == EXIT_OK
    printed = capsys.readouterr().out
    assert printed.endswith(EXIT_STATUS_HELP + "\n")  # as written: argparse keeps its lines
    listed = [int(line.split()[0]) for line in EXIT_STATUS_HELP.splitlines()[1:] if line[2] != " "]
    assert listed == [EXIT_OK, EXIT_INVALID, EXIT_UNCHECKED, EXIT_INTERRUPTED]
    assert f"; {EXIT_BROKEN_PIPE}: " in EXIT_STATUS_HELP
    assert max(len(line) for line in EXIT_STATUS_HELP.splitlines()) <= 80


def test_the_command_line_page_shows_the_same_exit_statuses() -> None:
    page = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    section = page.split("\n## Exit status\n", 1)[1].split("\n## ", 1)[0]
    shown = re.findall(r"^```text\n(.*?)\n```$", section, flags=re.DOTALL | re.MULTILINE)
    assert shown == [EXIT_STATUS_HELP]
