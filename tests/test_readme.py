"""The README's example output is what the program prints today."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tests.conftest import REPO

README = (REPO / "README.md").read_text()
SCRIPT = shutil.which("drafting-config")


def shell(command: str) -> str:
    assert SCRIPT is not None, "drafting-config is not installed"
    result = subprocess.run(
        command, shell=True, cwd=REPO, capture_output=True, text=True, check=False
    )
    return result.stdout


def transcripts() -> list[tuple[str, str]]:
    """(command, printed output) for every ``$ drafting-config ...`` line in a text block."""
    found = []
    for block in re.findall(r"```text\n(.*?)```", README, flags=re.DOTALL):
        for part in re.split(r"^\$ ", block, flags=re.MULTILINE)[1:]:
            command, _, output = part.partition("\n")
            found.append((command, output))
    return found


@pytest.mark.slow
@pytest.mark.parametrize(
    ("command", "output"), transcripts(), ids=[command for command, _ in transcripts()]
)
def test_each_transcript_in_the_readme_is_what_the_command_prints(
    command: str, output: str
) -> None:
    assert command.startswith("drafting-config ")
    assert shell(command).rstrip("\n") == output.rstrip("\n")  # blank lines separate them


@pytest.mark.slow
def test_the_quick_start_output_is_what_the_setup_command_prints() -> None:
    setup = re.search(r"<!-- ci: setup -->\n```bash\n(.*?)\n```\n\n```text\n(.*?)```", README, re.S)
    assert setup is not None
    command = setup.group(1).rpartition(" && ")[2]
    assert command == "drafting-config check examples/*/config.json"
    assert shell(command) == setup.group(2)


def test_there_are_transcripts_to_check() -> None:
    assert len(transcripts()) >= 4
