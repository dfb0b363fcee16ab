"""Helpers to run mypy, with this project's configuration, over snippets of user code."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from mypy import api

from tests.conftest import REPO

MARK = re.compile(r"#\s*E:\s*([\w-]+)")
REPORT = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): error: .*\[(?P<code>[\w-]+)\]$")


def run_mypy(source: str, tmp_path: Path, *extra_flags: str) -> tuple[set[tuple[int, str]], str]:
    """Type-check ``source`` as a user module; return the ``(line, code)`` errors and the report."""
    snippet = tmp_path / "user_code.py"
    snippet.write_text(textwrap.dedent(source))
    stdout, stderr, _ = api.run(
        [
            "--config-file",
            str(REPO / "mypy.ini"),
            "--cache-dir",
            str(REPO / ".mypy_cache"),
            *extra_flags,
            str(snippet),
        ]
    )
    errors = {
        (int(m["line"]), m["code"])
        for m in map(REPORT.match, stdout.splitlines())
        if m and Path(m["file"]).name == snippet.name
    }
    return errors, stdout + stderr


def expected_errors(source: str) -> set[tuple[int, str]]:
    """The ``(line, code)`` pairs marked with ``# E: code`` comments in ``source``."""
    lines = textwrap.dedent(source).splitlines()
    return {(n, m[1]) for n, line in enumerate(lines, 1) if (m := MARK.search(line))}
