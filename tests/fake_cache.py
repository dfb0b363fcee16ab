"""A local Hugging Face cache written by hand, in the layout huggingface_hub documents.

``models--{org}--{name}/blobs/{hash}`` holds each file once,
``snapshots/{commit}/{file}`` links to its blob, and ``refs/{revision}`` holds the
commit a branch or tag points at.  huggingface_hub's own cache API
(``try_to_load_from_cache``) reads it like a cache it wrote, with no server and no
download; tests/fake_hub.py is the way to test downloads.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path

import pytest

__all__ = ["use_cache", "write_cached_repo"]


def use_cache(path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point ``HF_HUB_CACHE`` and huggingface_hub's copy of it at ``path`` (created empty)."""
    from huggingface_hub import constants

    path.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("HF_HUB_CACHE", str(path))
    # huggingface_hub reads HF_HUB_CACHE once, when first imported.
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(path))
    monkeypatch.delenv("HF_TOKEN", raising=False)
    return path


def write_cached_repo(
    cache: Path,
    repo_id: str,
    files: Mapping[str, str | bytes],
    *,
    revision: str = "main",
    commit: str = "0" * 40,
) -> Path:
    """Store ``files`` as the snapshot of ``repo_id`` at ``commit``, with ``revision``
    pointing at it; return the snapshot directory."""
    org, name = repo_id.split("/")
    repo = cache / f"models--{org}--{name}"
    snapshot = repo / "snapshots" / commit
    snapshot.mkdir(parents=True, exist_ok=True)
    (repo / "blobs").mkdir(exist_ok=True)
    for file_name, content in files.items():
        data = content.encode() if isinstance(content, str) else content
        blob = repo / "blobs" / hashlib.sha256(data).hexdigest()
        blob.write_bytes(data)
        link = snapshot / file_name
        link.unlink(missing_ok=True)
        link.symlink_to(os.path.relpath(blob, snapshot))
    if revision != commit:
        (repo / "refs").mkdir(exist_ok=True)
        (repo / "refs" / revision).write_text(commit)
    return snapshot
