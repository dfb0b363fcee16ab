"""Run mypy once per test session, with this project's configuration, over snippets of user code.

Each test module registers its snippets at import with :func:`snippet`; the
session fixture ``mypy_results`` (``tests/conftest.py``) type-checks them all in
one mypy run, each snippet as its own module, and each test reads its own result.
"""

from __future__ import annotations

import re
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

from mypy import api

from tests.conftest import REPO

MARK = re.compile(r"#\s*E:\s*([\w-]+)")
REPORT = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): error: .*\[(?P<code>[\w-]+)\]$")

MypyResult = tuple[set[tuple[int, str]], str]
"""The ``(line, code)`` errors reported in one snippet, and mypy's whole report."""


@dataclass(frozen=True)
class _Snippet:
    source: str
    no_any: bool


_SNIPPETS: dict[str, _Snippet] = {}


def snippet(name: str, source: str, *, no_any: bool = False) -> str:
    """Register ``source`` for the session's mypy run, as module ``snippet_{name}``.

    With ``no_any``, the module is checked with ``disallow_any_expr`` too.
    Returns ``name``, the key of its result in ``mypy_results``.
    """
    assert name not in _SNIPPETS, f"two snippets named {name}"
    _SNIPPETS[name] = _Snippet(textwrap.dedent(source), no_any)
    return name


def run_snippets(folder: Path) -> dict[str, MypyResult]:
    """Type-check every registered snippet in one mypy run; the result of each, by name."""
    files = {}
    config = (
        (REPO / "mypy.ini")
        .read_text()
        .replace("mypy_path = stubs", f"mypy_path = {REPO / 'stubs'}")
    )
    for name, item in _SNIPPETS.items():
        module = f"snippet_{name}"
        files[name] = folder / f"{module}.py"
        files[name].write_text(item.source)
        if item.no_any:
            config += f"\n[mypy-{module}]\ndisallow_any_expr = True\n"
    (folder / "mypy.ini").write_text(config)
    limit = sys.getrecursionlimit()
    try:
        stdout, stderr, _ = api.run(
            [
                "--config-file",
                str(folder / "mypy.ini"),
                "--cache-dir",
                str(REPO / ".mypy_cache"),
                *map(str, files.values()),
            ]
        )
    finally:
        # mypy raises the interpreter's recursion limit for itself and leaves it raised; a
        # later test of a property that recurses forever would then overflow the C stack
        # (a crash, not a RecursionError) instead of getting our error.
        sys.setrecursionlimit(limit)
    report = stdout + stderr
    matches = [m for m in map(REPORT.match, stdout.splitlines()) if m]
    return {
        # By file name: with a warm cache, mypy reports a snippet unchanged since an earlier
        # run under the path it had then (another session's temporary folder).
        name: (
            {(int(m["line"]), m["code"]) for m in matches if Path(m["file"]).name == path.name},
            report,
        )
        for name, path in files.items()
    }


def expected_errors(source: str) -> set[tuple[int, str]]:
    """The ``(line, code)`` pairs marked with ``# E: code`` comments in ``source``."""
    lines = textwrap.dedent(source).splitlines()
    return {(n, m[1]) for n, line in enumerate(lines, 1) if (m := MARK.search(line))}
