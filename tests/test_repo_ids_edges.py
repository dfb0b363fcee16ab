"""Exact edges of the repo-id messages: what the cache is missing, what the hub said
(found by mutation testing).  The cache layouts are built by hand, as huggingface_hub
documents them (``models--ORG--NAME/{refs,snapshots}``)."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from huggingface_hub import errors as hub_errors

from drafting_config.files import repo_ids
from drafting_config.files.repo_ids import (
    RepoNotCachedError,
    _cached_refs,
    _refusal_problem,
    _status,
    _unreached_problem,
    _why_not_cached,
    locate,
)

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def _repo(cache: Path) -> Path:
    folder = cache / "models--org--name"
    folder.mkdir(parents=True)
    return folder


def _why(cache: Path, revision: str) -> str:
    return _why_not_cached("org/name", revision, str(cache), hub_says_absent=False)


def test_a_cached_commit_without_config_json(tmp_path: Path) -> None:
    snapshot = _repo(tmp_path) / "snapshots" / COMMIT
    snapshot.mkdir(parents=True)
    assert _why(tmp_path, COMMIT) == (
        f"the cached snapshot at revision {COMMIT} ({snapshot}) has no config.json"
    )


def test_an_uncached_revision_with_no_refs_at_all(tmp_path: Path) -> None:
    _repo(tmp_path)
    assert (
        _why(tmp_path, "dev") == f"revision dev is not in the local Hugging Face cache ({tmp_path})"
    )
    assert _why(tmp_path, "abcdef1") == (
        f"revision abcdef1 is not in the local Hugging Face cache ({tmp_path}); give a commit "
        "by its full 40-character hash"
    )


def test_a_ref_that_holds_no_commit_hash_is_called_corrupt(tmp_path: Path) -> None:
    refs = _repo(tmp_path) / "refs"
    refs.mkdir()
    (refs / "dev").write_text("not a commit hash\n")
    assert _why(tmp_path, "dev") == (
        "the cached ref of revision dev is corrupt: refs/dev holds 'not a commit hash', not a "
        f"40-character commit hash (delete {refs / 'dev'})"
    )


@pytest.mark.parametrize("count", [8, 9])
def test_at_most_eight_cached_refs_are_listed(tmp_path: Path, count: int) -> None:
    names = [f"b{i}" for i in range(count)]
    for name in names:
        (tmp_path / name).write_text(COMMIT)
    assert _cached_refs(tmp_path) == (names if count <= 8 else [*names[:8], "..."])


def test_a_repo_id_is_looked_up_with_the_download_flag_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[str, str, bool]] = []

    def snapshot(repo_id: str, *, revision: str, download: bool, **_: object) -> Path:
        calls.append((repo_id, revision, download))
        return Path("/snapshot")

    monkeypatch.setattr(repo_ids, "_snapshot", snapshot)
    assert locate("org/name", revision="dev", download=True) == Path("/snapshot")
    assert locate("org/name") == Path("/snapshot")
    assert calls == [("org/name", "dev", True), ("org/name", "main", False)]


def test_an_error_without_a_response_has_no_status() -> None:
    assert _status(ValueError("x")) == "no status"
    no_code = ValueError("x")
    no_code.response = SimpleNamespace()  # type: ignore[attr-defined]
    assert _status(no_code) == "no status"
    coded = ValueError("x")
    coded.response = SimpleNamespace(status_code=418)  # type: ignore[attr-defined]
    assert _status(coded) == 418


@pytest.mark.parametrize(
    ("status", "hint"), [(401, " (is HF_TOKEN valid?)"), (403, " (is HF_TOKEN valid?)"), (404, "")]
)
def test_only_401_and_403_mention_the_token(status: int, hint: str) -> None:
    error = ValueError("refused")
    error.response = SimpleNamespace(status_code=status)  # type: ignore[attr-defined]
    assert _refusal_problem(error, "config.json", "main", "https://hub.test") == (
        f"https://hub.test answered HTTP {status}{hint}."
    )


def test_offline_mode_is_named_with_its_variable() -> None:
    error = OSError("cannot download")
    error.__cause__ = hub_errors.OfflineModeIsEnabled("offline")
    assert _unreached_problem(error, "https://hub.test") == (
        "HF_HUB_OFFLINE is set; unset it to download."
    )


def test_a_cache_path_the_system_cannot_stat_is_a_repo_not_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # huggingface_hub's own look-up (os.path.isdir) answers "not cached" for a cache it
    # cannot stat (a name too long here; a folder not searchable by the user, likewise);
    # the folder check before it, and the message after, must not raise OSError instead.
    from huggingface_hub import constants

    cache = str(tmp_path / ("x" * 300))
    monkeypatch.setattr(constants, "HF_HUB_CACHE", cache)
    with pytest.raises(RepoNotCachedError) as raised:
        locate("org/name")
    assert str(raised.value).startswith(
        f"org/name: not found locally nor in the local Hugging Face cache ({cache}); "
    )


@pytest.mark.skipif(sys.platform != "linux", reason="the lengths are for Linux's PATH_MAX, 4096")
def test_a_revision_path_too_long_to_stat_is_a_revision_not_cached(tmp_path: Path) -> None:
    # The repo's folder is there, but snapshots/REVISION and refs/REVISION are past
    # PATH_MAX: huggingface_hub says "not cached"; the message must say which part.
    cache = tmp_path.joinpath(*["d" * 250] * 15)
    _repo(cache)
    revision = "r" * 255
    assert _why(cache, revision) == (
        f"revision {revision} is not in the local Hugging Face cache ({cache})"
    )


def test_a_cache_the_hub_cannot_read_is_a_repo_not_cached_not_an_os_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # huggingface_hub lets PermissionError out when the repo's folder exists but its
    # snapshots/ cannot be listed (another user's cache); root reads everything, so the
    # hub's answer is simulated. check() must still give a verdict.
    import huggingface_hub
    from huggingface_hub import constants

    from drafting_config import check

    _repo(tmp_path)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))

    def unreadable(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(tmp_path / "models--org--name"))

    monkeypatch.setattr(huggingface_hub, "try_to_load_from_cache", unreadable)
    with pytest.raises(RepoNotCachedError) as raised:
        locate("org/name")
    assert str(raised.value) == (
        f"org/name: the local Hugging Face cache ({tmp_path}) could not be read: Permission denied"
    )
    (error,) = check("org/name").errors
    assert type(error) is RepoNotCachedError
