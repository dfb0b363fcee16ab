"""Exact edges of ParallelDraftingConfig.from_pretrained (found by mutation testing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from drafting_config import ConfigFileError, ParallelDraftingConfig
from drafting_config.files import repo_ids
from drafting_config.files.repo_ids import RepoIdError


def test_repo_ids_are_looked_up_offline_unless_download_is_asked(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"pard_token": 5}))
    calls: list[tuple[str, str, bool]] = []

    def snapshot(repo_id: str, *, revision: str, download: bool, **_: object) -> Path:
        calls.append((repo_id, revision, download))
        return tmp_path

    monkeypatch.setattr(repo_ids, "_snapshot", snapshot)
    assert ParallelDraftingConfig.from_pretrained("org/name").token_id == 5
    assert (
        ParallelDraftingConfig.from_pretrained("org/name", revision="v1", download=True).token_id
        == 5
    )
    assert calls == [("org/name", "main", False), ("org/name", "v1", True)]


def test_a_bad_revision_is_refused_even_for_a_local_path(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"pard_token": 5}))
    with pytest.raises(RepoIdError, match="revision"):
        ParallelDraftingConfig.from_pretrained(tmp_path, revision="a..b")


def test_an_os_pathlike_is_always_a_path_never_a_repo_id(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``from_pretrained(pathlib.Path("org/draft"))`` reads the path, as check() does, even
    when the repo id ``org/draft`` is cached (issue 25, item 25)."""
    monkeypatch.chdir(tmp_path)
    looked_up: list[str] = []

    def snapshot(repo_id: str, **_: object) -> Path:
        looked_up.append(repo_id)
        return tmp_path

    monkeypatch.setattr(repo_ids, "_snapshot", snapshot)
    (tmp_path / "config.json").write_text(json.dumps({"pard_token": 5}))
    assert ParallelDraftingConfig.from_pretrained("org/draft").token_id == 5  # text: a repo id
    with pytest.raises(ConfigFileError, match="no such file or directory"):
        ParallelDraftingConfig.from_pretrained(Path("org/draft"))
    assert looked_up == ["org/draft"]
