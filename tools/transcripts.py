"""Rewrite the transcripts of the README and of ``docs/`` from what the program prints today.

From the repository root, with the development environment active::

    python -m tools.transcripts          # rewrite every transcript that is out of date
    python -m tools.transcripts --check  # exit 1, naming them, if any is out of date

A transcript is a ``$ drafting-config ...`` line inside a ```text block, followed by the
lines the command prints (up to the next ``$`` line or the end of the block), and the README's
set-up block: the ```text block right after the ```bash block under ``<!-- ci: setup -->``,
which shows what ``drafting-config check examples/*/config.json`` prints.  ``tests/test_readme.py``
runs every one of them and compares; this command writes what that test expects, so that a
change of output (a release, a rule, a wording) is one command, not a hand edit per page.
Each command runs through the shell from the repository root, as the test runs it.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

Runner = Callable[[str], str]
"""Runs one command line from the repository root and returns what it prints."""

_TEXT_BLOCK = re.compile(r"^```text\n(.*?)^```", re.DOTALL | re.MULTILINE)
_SETUP_BLOCK = re.compile(
    r"(<!-- ci: setup -->\n```bash\n(?P<command>[^\n]*)\n```\n\n```text\n)(?P<output>.*?)(^```)",
    re.DOTALL | re.MULTILINE,
)
SETUP_COMMAND = "drafting-config check examples/*/config.json"
"""What the README's set-up block shows the output of (the last command of its line)."""


def documents(repo: Path = REPO) -> list[Path]:
    """The README and every page of ``docs/``, in a stable order."""
    return [repo / "README.md", *sorted((repo / "docs").rglob("*.md"))]


TERMINAL_VARIABLES = ("COLUMNS", "FORCE_COLOR", "NO_COLOR")
"""What the text output's width and colour read from the environment: unset for the
transcripts, which show output in a pipe at its default width, without colour."""


def shell(command: str, repo: Path = REPO) -> str:
    """What ``command`` prints on standard output, run by the shell from ``repo`` without
    :data:`TERMINAL_VARIABLES`, as ``tests/test_readme.py`` runs it."""
    env = {name: value for name, value in os.environ.items() if name not in TERMINAL_VARIABLES}
    result = subprocess.run(
        command, shell=True, cwd=repo, capture_output=True, text=True, check=False, env=env
    )
    return result.stdout


def _rewrite_block(block: str, run: Runner) -> str:
    """``block`` (a text block's contents) with each ``$ drafting-config`` command's output
    replaced by what ``run`` prints; the blank line between two transcripts is kept."""
    parts = re.split(r"^(?=\$ )", block, flags=re.MULTILINE)
    rewritten = [parts[0]]
    for part in parts[1:]:
        command, _, output = part.partition("\n")
        if not command.startswith("$ drafting-config "):
            rewritten.append(part)
            continue
        trailing = output[len(output.rstrip("\n")) :]
        printed = run(command.removeprefix("$ ")).rstrip("\n")
        rewritten.append(f"{command}\n{printed}{trailing or chr(10)}")
    return "".join(rewritten)


def rewrite(text: str, run: Runner) -> str:
    """``text`` (a Markdown document) with every transcript rewritten by ``run``."""
    text = _TEXT_BLOCK.sub(lambda match: f"```text\n{_rewrite_block(match.group(1), run)}```", text)

    def setup(match: re.Match[str]) -> str:
        if match.group("command").rpartition(" && ")[2] != SETUP_COMMAND:
            return match.group(0)
        return f"{match.group(1)}{run(SETUP_COMMAND)}{match.group(4)}"

    return _SETUP_BLOCK.sub(setup, text)


def stale(paths: Sequence[Path], run: Runner) -> Iterator[tuple[Path, str]]:
    """Each document of ``paths`` whose transcripts differ from what ``run`` prints, with
    its rewritten text."""
    for path in paths:
        text = path.read_text(encoding="utf-8")
        new = rewrite(text, run)
        if new != text:
            yield path, new


def main(argv: Sequence[str] | None = None) -> int:
    """The command: rewrite the stale documents, or with ``--check`` only name them."""
    parser = argparse.ArgumentParser(prog="python -m tools.transcripts", description=__doc__)
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if a transcript is stale"
    )
    args = parser.parse_args(argv)
    changed = 0
    for path, new in stale(documents(), shell):
        changed += 1
        print(f"{'stale' if args.check else 'rewrote'}: {path.relative_to(REPO)}")
        if not args.check:
            path.write_text(new, encoding="utf-8")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
