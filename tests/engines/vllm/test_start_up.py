"""What a plain ``check`` loads of vLLM's rules: the launch rules only when a launch is
given, the checkpoint rules only when there are weights to compare (both imported where
first needed, in :mod:`drafting_config.engines.vllm`)."""

from __future__ import annotations

import ast
import json
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from drafting_config.engines import vllm
from drafting_config.engines.vllm import launch
from drafting_config.values.launch import Launch
from tests.conftest import EXAMPLES

LAUNCH = "drafting_config.engines.vllm.launch"
CHECKPOINT = "drafting_config.engines.vllm.checkpoint"


def _loaded(arguments: list[str]) -> list[str]:
    """Which of vLLM's launch and checkpoint modules a ``check`` with ``arguments`` loads."""
    code = (
        "import sys; from drafting_config.command import main; main(['check', *sys.argv[1:]]); "
        f"print(sorted(m for m in ({LAUNCH!r}, {CHECKPOINT!r}) if m in sys.modules), "
        "file=sys.stderr)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, *arguments], capture_output=True, text=True, check=False
    )
    loaded = ast.literal_eval(result.stderr.strip().splitlines()[-1])
    assert isinstance(loaded, list)
    return loaded


def test_a_check_with_no_launch_and_no_weights_loads_neither() -> None:
    assert _loaded([str(EXAMPLES / "dflash-qwen3-4b" / "config.json")]) == []


def test_a_launch_loads_the_launch_rules() -> None:
    draft = EXAMPLES / "dflash-qwen3-4b"
    line = f'vllm serve Qwen/Qwen3-4B --speculative-config \'{{"model": "{draft}"}}\''
    assert _loaded([str(draft / "config.json"), "--launch", line]) == [LAUNCH]


def test_weights_beside_the_draft_load_the_checkpoint_rules(tmp_path: Path) -> None:
    shutil.copy(EXAMPLES / "dflash-qwen3-4b" / "config.json", tmp_path / "config.json")
    header = json.dumps(
        {"model.fc.weight": {"dtype": "BF16", "shape": [1, 1], "data_offsets": [0, 2]}}
    ).encode()
    (tmp_path / "model.safetensors").write_bytes(struct.pack("<Q", len(header)) + header + b"\0\0")
    assert _loaded([str(tmp_path / "config.json")]) == [CHECKPOINT]


@pytest.mark.parametrize("line", ["vllm serve Qwen/Qwen3-4B", "python -m other Qwen/Qwen3-4B"])
def test_the_packages_launch_facts_are_the_launch_modules(line: str) -> None:
    read = Launch(tuple(line.split()))
    assert vllm.launch_facts(read) == launch.launch_facts(read)
