"""Exact edges of ParallelDraftingConfig.from_pretrained (found by mutation testing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from drafting_config import ParallelDraftingConfig
from drafting_config.files import repo_ids
from drafting_config.files.repo_ids import Located, RepoIdError


def test_repo_ids_are_looked_up_offline_unless_download_is_asked(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"pard_token": 5}))
    calls: list[tuple[str, str, bool]] = []

    def locate(repo_id: str, *, revision: str, download: bool, files: object) -> Located:
        calls.append((repo_id, revision, download))
        return Located(tmp_path)

    monkeypatch.setattr(repo_ids, "_locate", locate)
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
