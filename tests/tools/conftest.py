"""Fixtures the harnesses' plumbing tests share: two config files and a stand-in ``python``."""

from __future__ import annotations

import stat
from collections.abc import Callable
from pathlib import Path

import pytest

FakePython = Callable[[str], Path]
"""Writes a bash script with the given body, standing in for an environment's ``python``."""


@pytest.fixture
def configs(tmp_path: Path) -> tuple[Path, Path]:
    """A draft's and a target's ``config.json``, as files of their own."""
    draft, target = tmp_path / "draft.json", tmp_path / "target.json"
    draft.write_text('{"architectures": ["DFlashDraftModel"]}', encoding="utf-8")
    target.write_text('{"architectures": ["Qwen3ForCausalLM"]}', encoding="utf-8")
    return draft, target


@pytest.fixture
def fake_python(tmp_path: Path) -> FakePython:
    """A factory of executable bash scripts standing in for the harness environment's
    ``python``: the stage runner's command line is the script's arguments."""

    def write(body: str) -> Path:
        script = tmp_path / "fake-python"
        script.write_text("#!/usr/bin/env bash\n" + body, encoding="utf-8")
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
        return script

    return write
