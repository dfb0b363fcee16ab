"""Repo ids: the path-or-repo-id rule, validation, the offline cache look-up and the
opt-in download, against a real cache layout written by huggingface_hub itself."""

from __future__ import annotations

import json
import os
import pickle
import socket
import string
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from huggingface_hub import errors as hub_errors
from hypothesis import given
from hypothesis import strategies as st

from drafting_config import check
from drafting_config.files import repo_ids
from drafting_config.files.json_files import ConfigFileError
from drafting_config.files.repo_ids import (
    EXTRA_NAME,
    HUB_REQUIREMENT,
    HubDownloadError,
    MissingExtraError,
    RepoIdError,
    RepoNotCachedError,
    _cached_refs,
    _refusal_problem,
    _status,
    _unreached_problem,
    _why_not_cached,
    local_or_cached,
    locate,
    looks_like_repo_id,
    validate_repo_id,
    validate_revision,
)
from drafting_config.files.tokenizer_files import TOKENIZER_FILE_NAMES
from drafting_config.values.errors import ParallelDraftingConfigError
from tests.conftest import REPO
from tests.fake_cache import write_cached_repo
from tests.fake_hub import (
    BARE_COMMIT,
    DEV_COMMIT,
    MAIN_COMMIT,
    TAG_COMMIT,
    FakeHub,
    FakeRepo,
    draft_repo,
    serve,
)

DRAFT = "z-lab/Qwen3-8B-DFlash-b16"
CONFIG = {"dflash_config": {"mask_token_id": 151669}, "vocab_size": 151936}
CONFIG_BYTES = json.dumps(CONFIG).encode()
TOKEN = "hf_test_token_0123456789"
PYTHONPATH = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
"""For subprocesses: this checkout first, then whatever the test run was given."""
NEVER_FETCHED = {"model.safetensors", "modeling_draft.py", "README.md"}


# ---------------------------------------------------------------- fixtures


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache that HF_HUB_CACHE (and huggingface_hub's copy of it) points at."""
    from huggingface_hub import constants

    path = tmp_path / "hf-cache"
    monkeypatch.setenv("HF_HUB_CACHE", str(path))
    # huggingface_hub reads HF_HUB_CACHE once, when first imported; a test process has
    # long imported it, so its public constant is pointed at the same place.
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(path))
    monkeypatch.delenv("HF_TOKEN", raising=False)
    return path


@pytest.fixture
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    """A fake hub; give ``endpoint=hub.url`` (or HF_ENDPOINT in a subprocess)."""
    from huggingface_hub import constants

    # huggingface_hub 2 fetches a small registry from its default endpoint (at most daily,
    # cached in HF_HOME) to describe the caller in its User-Agent.  A fresh cached copy
    # keeps this test process from reaching out to the real hub for it.
    registry = tmp_path / "agent_harnesses.json"
    registry.write_text('{"standardEnvVars": [], "harnesses": {}}')
    if hasattr(constants, "AGENT_HARNESSES_PATH"):
        monkeypatch.setattr(constants, "AGENT_HARNESSES_PATH", str(registry))
    repos = {
        DRAFT: draft_repo(CONFIG_BYTES),
        "acme/private-draft": draft_repo(CONFIG_BYTES, token=TOKEN),
        "acme/gated-draft": draft_repo(CONFIG_BYTES, token=TOKEN, gated=True),
        "acme/broken-hub": FakeRepo(commits={}, refs={}, failure=(500, {})),
        "acme/bad-token": FakeRepo(
            commits={},
            refs={},
            failure=(401, {"X-Error-Message": "Invalid credentials in Authorization header"}),
        ),
    }
    with serve(repos) as running:
        yield running


@pytest.fixture
def filled_cache(cache: Path, hub: FakeHub) -> Path:
    """The cache after downloading main and the tag v1.0, and failing on a commit that
    has no config.json (which huggingface_hub records as known-absent)."""
    locate(DRAFT, download=True, endpoint=hub.url)
    locate(DRAFT, revision="v1.0", download=True, endpoint=hub.url)
    with pytest.raises(HubDownloadError):
        locate(DRAFT, revision="bare", download=True, endpoint=hub.url)
    hub.requests.clear()
    return cache


class ConnectAttempts(list[object]):
    """Every outgoing connection attempted while the refusal is in place."""


def forbid_network(monkeypatch: pytest.MonkeyPatch) -> ConnectAttempts:
    """Refuse and record every outgoing connection from now on."""
    attempts = ConnectAttempts()

    def refuse(*args: object, **kwargs: object) -> None:
        attempts.append(args)
        raise OSError("a test forbids the network here")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    return attempts


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> ConnectAttempts:
    """No outgoing connection for the whole test; the ones attempted are recorded."""
    return forbid_network(monkeypatch)


@pytest.fixture
def no_retry_waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """huggingface_hub waits between retries with time.sleep; record instead of waiting."""
    waits: list[float] = []
    monkeypatch.setattr(time, "sleep", waits.append)
    return waits


# ------------------------------------------------------- path or repo id?


@pytest.mark.parametrize(
    "text",
    [DRAFT, "Qwen/Qwen3-8B", "org/name", "org/bad name", "a/b.c", "o_/n-1"],
)
def test_text_shaped_like_org_name_looks_like_a_repo_id(text: str) -> None:
    assert looks_like_repo_id(text)


@pytest.mark.parametrize(
    "text",
    [
        "gpt2",  # a bare NAME: could be any mistyped file name
        "config.json",
        "models/config.json",  # a missing file, not a repo
        "org/Config.JSON",
        "/abs/path",
        "./org/name",
        "../org",
        "~/models",
        "org/name/",
        "org/name/config.json",
        ".cache/x",
        "org/.hidden",
        "C:/models",
        "org\\name",
        "",
        "/",
        "org/",
        "/name",
    ],
)
def test_text_only_a_path_can_be_never_looks_like_a_repo_id(text: str) -> None:
    assert not looks_like_repo_id(text)


def test_an_existing_local_path_wins_over_the_same_repo_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert looks_like_repo_id("org/name")
    (tmp_path / "org" / "name").mkdir(parents=True)
    assert not looks_like_repo_id("org/name")
    (tmp_path / "org" / "link").symlink_to(tmp_path / "nowhere")  # exists, though broken
    assert not looks_like_repo_id("org/link")


@pytest.mark.parametrize("value", [None, 7, b"org/name", Path("org/name"), ["org/name"]])
def test_non_strings_never_look_like_repo_ids(value: object) -> None:
    assert not looks_like_repo_id(value)


def test_local_paths_are_returned_as_given_without_huggingface_hub(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)
    (tmp_path / "org" / "name").mkdir(parents=True)
    assert locate("org/name", revision="v2") == Path("org/name")
    assert locate("models/config.json") == Path("models/config.json")  # missing
    assert locate(Path("other/name")) == Path("other/name")  # PathLike: a path
    assert locate("gpt2") == Path("gpt2")
    with pytest.raises(MissingExtraError):
        locate("other/name")


def test_local_or_cached_keeps_a_local_path_given_as_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, filled_cache: Path
) -> None:
    """locate() without the Path: text naming a local path comes back as that very text (a
    sweep builds no Path per draft), an os.PathLike as a Path, a repo id as its snapshot."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "org" / "name").mkdir(parents=True)
    text = "org/name"
    assert local_or_cached(text, revision="v2") is text
    assert local_or_cached("models/config.json") == "models/config.json"  # missing: a path
    assert local_or_cached(Path("other/name")) == Path("other/name")
    assert type(local_or_cached(Path("other/name"))) is type(Path())
    assert local_or_cached(DRAFT) == locate(DRAFT)
    assert isinstance(local_or_cached(DRAFT), Path)
    with pytest.raises(RepoIdError, match="revision"):
        local_or_cached("org/name", revision="a b")  # checked even for a local path


def test_a_repo_id_is_resolved_to_its_snapshot(filled_cache: Path) -> None:
    assert locate(DRAFT) == locate(DRAFT)
    assert locate(DRAFT, revision="v1.0").name == TAG_COMMIT
    with pytest.raises(RepoNotCachedError):
        locate(DRAFT, revision="dev")


def test_malformed_values_are_usage_errors_even_beside_a_local_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(RepoIdError, match="revision"):
        locate("config.json", revision="a b")
    with pytest.raises(RepoIdError, match="repo id 'org/bad name'"):
        validate_repo_id("org/bad name")
    # Text shaped like a repo id but no well-formed one, and no such path: a missing path.
    with pytest.raises(ConfigFileError, match="not a Hugging Face repo id either"):
        locate("org/bad name")


# ------------------------------------------------------------ validation


@pytest.mark.parametrize(
    "repo_id",
    [DRAFT, "Qwen/Qwen3-8B", "a/b", "A1/b_c.d-e", "_x/y_", "o/" + "n" * 96, "1/2"],
)
def test_well_formed_repo_ids_are_returned_unchanged(repo_id: str) -> None:
    assert validate_repo_id(repo_id) == repo_id


@pytest.mark.parametrize(
    ("repo_id", "problem"),
    [
        ("gpt2", "has no '/'"),
        ("a/b/c", "more than one '/'"),
        ("/name", "ORG is empty"),
        ("org/", "NAME is empty"),
        ("org/" + "n" * 97, "NAME is longer than 96 characters"),
        ("org/bad name", "NAME may only hold letters, digits"),
        ("org/caf\u00e9", "NAME may only hold letters, digits"),
        ("org/na\nme", "NAME may only hold letters, digits"),
        ("-org/name", "ORG starts or ends with '-' or '.'"),
        ("org/name.", "NAME starts or ends with '-' or '.'"),
        ("org/a--b", "NAME holds '--' or '..'"),
        ("o..g/name", "ORG holds '--' or '..'"),
        ("org/name.git", "NAME ends with '.git'"),
        ("", "has no '/'"),
    ],
)
def test_malformed_repo_ids_are_usage_errors_naming_value_and_problem(
    repo_id: str, problem: str
) -> None:
    with pytest.raises(RepoIdError) as caught:
        validate_repo_id(repo_id)
    message = str(caught.value)
    assert message.startswith(f"repo id {repo_id!r} is malformed: ")
    assert problem in message
    assert "expected ORG/NAME" in message
    assert "\n" not in message
    assert caught.value.field is None


@pytest.mark.parametrize(
    "revision",
    ["main", "v1.0", "refs/pr/1", MAIN_COMMIT, "feature/x-y_z", "release-2025.01", "@x"],
)
def test_well_formed_revisions_are_returned_unchanged(revision: str) -> None:
    assert validate_revision(revision) == revision


@pytest.mark.parametrize(
    ("revision", "problem"),
    [
        ("", "it is empty"),
        ("x" * 256, "longer than 255"),
        ("my branch", "a space, a control character"),
        ("a\tb", "a space, a control character"),
        ("a\x00b", "a space, a control character"),
        ("a:b", "one of ~^:?*[\\"),
        ("a\\b", "one of ~^:?*[\\"),
        ("../../etc", "'..'"),
        ("a//b", "'//'"),
        ("a@{1}", "'@{'"),
        ("@", "it is '@'"),
        ("-rf", "starts with '-' or '/'"),
        ("/main", "starts with '-' or '/'"),
        ("main/", "ends with '/' or '.'"),
        ("main.", "ends with '/' or '.'"),
        ("refs/.hidden", "starts with '.' or ends with '.lock'"),
        ("main.lock", "starts with '.' or ends with '.lock'"),
    ],
)
def test_malformed_revisions_are_usage_errors_naming_value_and_problem(
    revision: str, problem: str
) -> None:
    with pytest.raises(RepoIdError) as caught:
        validate_revision(revision)
    message = str(caught.value)
    assert message.startswith(f"revision {revision!r} is malformed: ")
    assert problem in message
    assert "\n" not in message


@pytest.mark.parametrize("value", [None, 7, True, b"main", Path("main")])
def test_non_string_ids_and_revisions_are_refused_with_their_type(value: object) -> None:
    shown = "None" if value is None else f"({type(value).__name__})"
    with pytest.raises(RepoIdError, match="expected a string") as caught:
        validate_repo_id(value)
    assert shown in str(caught.value)
    with pytest.raises(RepoIdError, match="expected a string") as caught:
        validate_revision(value)
    assert shown in str(caught.value)


def test_a_huge_value_is_shown_bounded() -> None:
    with pytest.raises(RepoIdError) as caught:
        validate_repo_id("x" * 100_000)
    assert len(str(caught.value)) < 400


WORDS = st.text(string.ascii_letters + string.digits + "_", min_size=1, max_size=30)
NAME_PART = st.builds(
    lambda words, seps: "".join(w + s for w, s in zip(words, seps, strict=False)) + words[-1],
    st.lists(WORDS, min_size=1, max_size=3),
    st.lists(st.sampled_from("-."), min_size=2, max_size=2),
)
"""ORG or NAME: word characters, with single '-' or '.' between them."""


@given(org=NAME_PART, name=NAME_PART)
def test_every_org_name_of_the_allowed_alphabet_is_accepted(org: str, name: str) -> None:
    repo_id = f"{org}/{name}"
    if name.endswith(".git"):
        with pytest.raises(RepoIdError):
            validate_repo_id(repo_id)
    else:
        assert validate_repo_id(repo_id) == repo_id
        assert looks_like_repo_id(repo_id) or os.path.lexists(repo_id)


@given(st.text(max_size=120))
def test_any_text_is_accepted_or_refused_with_a_repo_id_error(text: str) -> None:
    try:
        accepted = validate_repo_id(text)
    except RepoIdError:
        return
    folder = "models--" + accepted.replace("/", "--")
    assert os.sep not in folder
    assert "/" not in folder
    assert ".." not in folder
    assert looks_like_repo_id(accepted) or os.path.lexists(accepted)


@given(st.text(max_size=120))
def test_an_accepted_revision_stays_inside_the_cache_folders(text: str) -> None:
    try:
        accepted = validate_revision(text)
    except RepoIdError:
        return
    base = Path("/cache/models--o--n/refs")
    assert os.path.normpath(base / accepted).startswith(f"{base}{os.sep}")


# ------------------------------------------------------- offline look-up


def test_a_cached_branch_resolves_to_its_snapshot_with_tokenizer_files(
    filled_cache: Path, no_network: ConnectAttempts
) -> None:
    snapshot = locate(DRAFT)
    assert (
        snapshot == filled_cache / "models--z-lab--Qwen3-8B-DFlash-b16" / "snapshots" / MAIN_COMMIT
    )
    assert json.loads((snapshot / "config.json").read_text()) == CONFIG
    assert (snapshot / "tokenizer.json").is_file()
    assert (snapshot / "tokenizer_config.json").is_file()
    assert not (snapshot / "model.safetensors").exists()
    assert no_network == []


@pytest.mark.parametrize("revision", ["v1.0", TAG_COMMIT])
def test_a_cached_tag_or_commit_resolves_to_that_commit(
    filled_cache: Path, no_network: ConnectAttempts, revision: str
) -> None:
    snapshot = locate(DRAFT, revision=revision)
    assert snapshot.name == TAG_COMMIT
    assert json.loads((snapshot / "config.json").read_text())["tagged"] is True
    assert no_network == []


def test_an_explicit_cache_dir_is_used_instead_of_the_default(
    filled_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "elsewhere"))
    with pytest.raises(RepoNotCachedError):
        locate(DRAFT)
    assert locate(DRAFT, cache_dir=filled_cache).name == MAIN_COMMIT
    assert locate(DRAFT, cache_dir=str(filled_cache)).name == MAIN_COMMIT


def not_cached(
    repo_id: str, revision: str = "main", cache_dir: str | None = None
) -> RepoNotCachedError:
    """Call locate offline, insist on a fast one-line RepoNotCachedError, return it."""
    start = time.perf_counter()
    with pytest.raises(RepoNotCachedError) as caught:
        locate(repo_id, revision=revision, cache_dir=cache_dir)
    assert time.perf_counter() - start < 0.5
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{repo_id}: ")
    assert "pass --download" not in message
    assert caught.value.fix is not None
    assert caught.value.fix.startswith("pass --download")
    return caught.value


def test_a_repo_not_in_the_cache_says_so_and_how_to_get_it_without_a_socket(
    cache: Path, no_network: ConnectAttempts
) -> None:
    error = not_cached("someone/uncached-draft")
    assert "not found locally nor in the local Hugging Face cache" in str(error)
    assert str(cache) in str(error)
    assert "`hf download someone/uncached-draft config.json`" in (error.fix or "")
    assert isinstance(error, ParallelDraftingConfigError)
    assert isinstance(error, ValueError)
    assert error.field is None
    assert no_network == []


def test_a_missing_cache_directory_is_just_an_empty_cache(
    tmp_path: Path, no_network: ConnectAttempts
) -> None:
    error = not_cached(DRAFT, cache_dir=str(tmp_path / "never-created"))
    assert "not found locally nor in the local Hugging Face cache" in str(error)
    assert no_network == []


def test_an_uncached_revision_lists_the_cached_ones_and_the_revision_option(
    filled_cache: Path, no_network: ConnectAttempts
) -> None:
    error = not_cached(DRAFT, revision="dev")
    message = str(error)
    assert "revision dev is not in the local Hugging Face cache" in message
    assert "(cached: bare, main, v1.0)" in message
    assert f"`hf download {DRAFT} config.json --revision dev`" in (error.fix or "")
    assert no_network == []


@pytest.mark.parametrize("revision", [DEV_COMMIT, "bbbbbbb"])
def test_an_uncached_commit_is_reported_and_short_hashes_get_a_hint(
    filled_cache: Path, no_network: ConnectAttempts, revision: str
) -> None:
    message = str(not_cached(DRAFT, revision=revision))
    assert f"revision {revision} is not in the local Hugging Face cache" in message
    assert ("full 40-character hash" in message) == (len(revision) < 40)
    assert no_network == []


def test_a_revision_known_to_lack_config_json_says_so(
    filled_cache: Path, no_network: ConnectAttempts
) -> None:
    for revision in ("bare", BARE_COMMIT):
        message = str(not_cached(DRAFT, revision=revision))
        assert "the cache records that the repo has no config.json at revision" in message
        assert "is it a model repo?" in message
    assert no_network == []


def test_a_snapshot_without_config_json_is_not_a_hit(
    cache: Path, hub: FakeHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    from huggingface_hub import hf_hub_download

    hf_hub_download(DRAFT, "tokenizer.json", endpoint=hub.url, cache_dir=cache)
    attempts = forbid_network(monkeypatch)
    message = str(not_cached(DRAFT))
    snapshot = cache / "models--z-lab--Qwen3-8B-DFlash-b16" / "snapshots" / MAIN_COMMIT
    assert f"the cached snapshot ({snapshot}) has no config.json" in message
    assert attempts == []


def test_a_config_json_whose_blob_was_deleted_is_a_broken_link(
    filled_cache: Path, no_network: ConnectAttempts
) -> None:
    snapshot = locate(DRAFT)
    (snapshot / "config.json").resolve().unlink()
    message = str(not_cached(DRAFT))
    assert "the cached config.json is a broken link" in message
    assert no_network == []


def test_a_ref_to_a_commit_whose_snapshot_is_gone_is_reported(
    filled_cache: Path, no_network: ConnectAttempts
) -> None:
    refs = filled_cache / "models--z-lab--Qwen3-8B-DFlash-b16" / "refs"
    (refs / "ghost").write_text(DEV_COMMIT)
    message = str(not_cached(DRAFT, revision="ghost"))
    assert f"revision ghost points at commit {DEV_COMMIT}, which is not in the cache" in message
    assert no_network == []


@pytest.mark.slow
def test_offline_answers_come_fast_from_a_fresh_interpreter(filled_cache: Path) -> None:
    """Importing everything, a hit and a miss, in a new process (the CLI's situation):
    no socket, nothing on stderr, well under 2 s."""
    script = (
        "import socket, sys, time\n"
        "start = time.perf_counter()\n"
        "def refuse(*a, **k): raise SystemExit('a socket was opened')\n"
        "socket.socket.connect = refuse\n"
        "socket.create_connection = refuse\n"
        "from drafting_config.files.repo_ids import locate, RepoNotCachedError\n"
        f"print(locate({DRAFT!r}).name)\n"
        "try:\n"
        "    locate('nobody/nothing')\n"
        "except RepoNotCachedError as error:\n"
        "    print(error)\n"
        "print(time.perf_counter() - start)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": PYTHONPATH, "HF_HUB_CACHE": str(filled_cache)},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == MAIN_COMMIT
    assert lines[1].startswith("nobody/nothing: not found locally nor in the local")
    assert float(lines[2]) < 2.0
    assert done.stderr == ""


# ------------------------------------------------------------ the extra


def test_the_hint_installs_what_the_hub_extra_installs() -> None:
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert f'\n{EXTRA_NAME} = ["{HUB_REQUIREMENT}"]\n' in pyproject


def test_without_huggingface_hub_a_repo_id_gets_a_one_line_error_naming_the_extra(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)
    for download in (False, True):
        with pytest.raises(MissingExtraError) as caught:
            locate(DRAFT, download=download)
        message = str(caught.value)
        # What works however the package was installed: no release on an index is assumed.
        assert caught.value.fix == "install the hub extra: pip install 'huggingface_hub>=0.30'"
        assert "drafting-config[" not in message + caught.value.fix
        assert message.startswith(f"{DRAFT}: ")
        assert "\n" not in message
        assert caught.value.__cause__ is None
        assert caught.value.__suppress_context__
        assert isinstance(caught.value, ParallelDraftingConfigError)


def test_without_huggingface_hub_malformed_values_are_still_usage_errors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)
    with pytest.raises(RepoIdError, match="repo id"):
        validate_repo_id("not a repo")
    assert locate("not a repo") == Path("not a repo")  # a path
    with pytest.raises(RepoIdError, match="revision"):
        locate(DRAFT, revision="../x")


@pytest.mark.slow
def test_importing_the_module_and_validating_never_imports_huggingface_hub() -> None:
    script = (
        "import sys\n"
        "from drafting_config.files import repo_ids\n"
        "repo_ids.looks_like_repo_id('org/name')\n"
        "repo_ids.validate_repo_id('org/name')\n"
        "repo_ids.validate_revision('main')\n"
        "try:\n"
        "    repo_ids.locate('bad id')\n"
        "except repo_ids.RepoIdError:\n"
        "    pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'huggingface_hub'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": PYTHONPATH},
        check=True,
    )
    assert done.stdout.strip() == "[]"


# --------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "error",
    [
        RepoIdError("revision", "a..b", "it holds '..'"),
        RepoNotCachedError("o/n", "main", "/c", "not cached"),
        MissingExtraError("o/n"),
        HubDownloadError("o/n", "main", "config.json", "no connection"),
    ],
)
def test_errors_survive_pickling_with_their_attributes(error: ParallelDraftingConfigError) -> None:
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error)
    assert str(copy) == str(error)
    assert vars(copy) == vars(error)


# -------------------------------------------------------------- download


def test_download_fetches_config_and_tokenizer_files_only(
    cache: Path, hub: FakeHub, no_retry_waits: list[float]
) -> None:
    snapshot = locate(DRAFT, download=True, endpoint=hub.url)
    assert snapshot == cache / "models--z-lab--Qwen3-8B-DFlash-b16" / "snapshots" / MAIN_COMMIT
    assert json.loads((snapshot / "config.json").read_text()) == CONFIG
    assert sorted(p.name for p in snapshot.iterdir()) == [
        "config.json",
        "tokenizer.json",
        "tokenizer_config.json",
    ]
    assert hub.files_requested() == {"config.json", *TOKENIZER_FILE_NAMES}
    assert not hub.files_requested() & NEVER_FETCHED
    # config.json decides the commit; the other files come from that very commit.
    tokenizer_paths = [r.path for r in hub.requests if r.filename != "config.json"]
    assert tokenizer_paths
    assert all(f"/resolve/{MAIN_COMMIT}/" in path for path in tokenizer_paths)
    assert {r.method for r in hub.requests} == {"HEAD", "GET"}
    assert no_retry_waits == []


def test_download_then_offline_look_up_agree(cache: Path, hub: FakeHub) -> None:
    downloaded = locate(DRAFT, revision="v1.0", download=True, endpoint=hub.url)
    assert locate(DRAFT, revision="v1.0") == downloaded
    assert locate(DRAFT, revision=TAG_COMMIT) == downloaded


def test_a_second_download_asks_only_whether_config_json_changed(cache: Path, hub: FakeHub) -> None:
    locate(DRAFT, download=True, endpoint=hub.url)
    hub.requests.clear()
    locate(DRAFT, download=True, endpoint=hub.url)
    assert [(r.method, r.filename) for r in hub.requests] == [("HEAD", "config.json")]


def test_download_of_a_cached_commit_needs_no_request_at_all(cache: Path, hub: FakeHub) -> None:
    locate(DRAFT, revision=TAG_COMMIT, download=True, endpoint=hub.url)
    hub.requests.clear()
    assert locate(DRAFT, revision=TAG_COMMIT, download=True, endpoint=hub.url).name == TAG_COMMIT
    assert hub.requests == []


def test_hf_token_reaches_the_hub_as_a_bearer_header(
    cache: Path, hub: FakeHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    snapshot = locate("acme/private-draft", download=True, endpoint=hub.url)
    assert (snapshot / "config.json").is_file()
    assert hub.requests
    assert {r.authorization for r in hub.requests} == {f"Bearer {TOKEN}"}


def download_error(hub: FakeHub, repo_id: str, revision: str = "main") -> HubDownloadError:
    with pytest.raises(HubDownloadError) as caught:
        locate(repo_id, revision=revision, download=True, endpoint=hub.url)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{repo_id}: cannot download config.json (revision {revision}): ")
    assert caught.value.__suppress_context__
    assert TOKEN not in message
    return caught.value


def test_a_private_repo_without_the_token_is_no_such_repo_or_no_access(
    cache: Path, hub: FakeHub
) -> None:
    message = str(download_error(hub, "acme/private-draft"))
    assert f"{hub.url} has no such repo, or it is private and HF_TOKEN" in message
    assert {r.authorization for r in hub.requests} == {None}


def test_a_missing_repo_is_no_such_repo(cache: Path, hub: FakeHub) -> None:
    error = download_error(hub, "acme/does-not-exist")
    assert "has no such repo" in str(error)
    assert str(error).startswith("acme/does-not-exist: cannot download config.json (revision main)")


def test_a_gated_repo_says_how_to_get_access(
    cache: Path, hub: FakeHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert "the repo is gated" in str(download_error(hub, "acme/gated-draft"))
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    assert locate("acme/gated-draft", download=True, endpoint=hub.url).name == MAIN_COMMIT


def test_a_missing_revision_is_named(cache: Path, hub: FakeHub) -> None:
    message = str(download_error(hub, DRAFT, revision="no-such-branch"))
    assert f"the repo has no revision no-such-branch on {hub.url}" in message


def test_a_revision_without_config_json_is_not_a_model_repo(cache: Path, hub: FakeHub) -> None:
    message = str(download_error(hub, DRAFT, revision="bare"))
    assert "the repo has no config.json at this revision; is it a model repo?" in message
    assert hub.files_requested() == {"config.json"}


def test_an_invalid_token_is_an_http_401_that_mentions_the_token(cache: Path, hub: FakeHub) -> None:
    error = download_error(hub, "acme/bad-token")
    assert str(error).endswith("answered HTTP 401.")
    assert error.fix == "check that HF_TOKEN is valid"


def test_a_broken_hub_is_an_http_error_after_the_retries(
    cache: Path, hub: FakeHub, no_retry_waits: list[float]
) -> None:
    message = str(download_error(hub, "acme/broken-hub"))
    assert message.endswith(f"{hub.url} answered HTTP 500.")
    assert {(r.method, r.filename) for r in hub.requests} == {("HEAD", "config.json")}


def test_a_refused_connection_is_a_clear_error_after_the_retries(
    cache: Path, no_retry_waits: list[float]
) -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    endpoint = f"http://127.0.0.1:{port}"
    with pytest.raises(HubDownloadError) as caught:
        locate(DRAFT, download=True, endpoint=endpoint)
    message = str(caught.value)
    assert "\n" not in message
    assert message.endswith(f"could not reach a Hugging Face hub at {endpoint}.")
    assert caught.value.fix == "check the network connection, HF_ENDPOINT and the proxy settings"


def test_when_the_hub_is_unreachable_a_cached_config_is_still_used(
    filled_cache: Path, no_retry_waits: list[float]
) -> None:
    """A download that cannot reach the hub falls back to the cache, as hf_hub_download does."""
    assert locate(DRAFT, download=True, endpoint="http://127.0.0.1:9").name == MAIN_COMMIT


@pytest.mark.parametrize(
    ("files", "kind"),
    [
        ("config.json", TypeError),
        (["model.safetensors"], ValueError),
        (["pytorch_model.bin"], ValueError),
        (["modeling_draft.py"], ValueError),
        (["../tokenizer.json"], ValueError),
        (["sub/tokenizer.json"], ValueError),
        ([".hidden.json"], ValueError),
        ([""], ValueError),
        ([7], ValueError),
    ],
)
def test_only_config_and_tokenizer_files_may_be_asked_for(
    cache: Path, files: object, kind: type[Exception]
) -> None:
    with pytest.raises(kind, match="files"):
        locate(DRAFT, files=files, download=True)  # type: ignore[arg-type]


def test_extra_tokenizer_files_can_be_asked_for_and_absent_ones_are_skipped(
    cache: Path, hub: FakeHub
) -> None:
    snapshot = locate(
        DRAFT,
        files=["tokenizer.json", "vocab.txt", "tokenizer.model"],
        download=True,
        endpoint=hub.url,
    )
    assert sorted(p.name for p in snapshot.iterdir()) == ["config.json", "tokenizer.json"]
    assert hub.files_requested() == {
        "config.json",
        "tokenizer.json",
        "vocab.txt",
        "tokenizer.model",
    }


# ---------------------------------------- the environment, as a CLI sees it


def run_locate(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``locate(*args)`` in a fresh interpreter whose environment is ``env`` plus PYTHONPATH."""
    script = (
        "import sys\n"
        "from drafting_config.files.repo_ids import locate\n"
        "from drafting_config.values.errors import ParallelDraftingConfigError\n"
        "try:\n"
        "    print(locate(sys.argv[1], download=sys.argv[2] == 'download'))\n"
        "except ParallelDraftingConfigError as error:\n"
        "    print(f'{type(error).__name__}: {error}')\n"
    )
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING"))}
    return subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
        env={**clean, "PYTHONPATH": PYTHONPATH, **env},
        check=True,
    )


@pytest.mark.slow
def test_hf_home_hf_endpoint_and_hf_token_are_honoured_from_the_environment(
    tmp_path: Path, hub: FakeHub
) -> None:
    env = {"HF_HOME": str(tmp_path / "home"), "HF_ENDPOINT": hub.url, "HF_TOKEN": TOKEN}
    done = run_locate(env, "acme/private-draft", "download")
    expected = tmp_path / "home" / "hub" / "models--acme--private-draft" / "snapshots" / MAIN_COMMIT
    assert done.stdout.strip() == str(expected)
    assert hub.resolve_requests()
    assert {r.authorization for r in hub.resolve_requests()} == {f"Bearer {TOKEN}"}
    assert not hub.files_requested() & NEVER_FETCHED
    # Besides the files, huggingface_hub 2 may GET a registry for its User-Agent, no more.
    assert {r.path for r in hub.requests} - {r.path for r in hub.resolve_requests()} <= {
        "/api/agent-harnesses"
    }
    hub.requests.clear()
    offline = run_locate({"HF_HOME": str(tmp_path / "home")}, "acme/private-draft", "offline")
    assert offline.stdout.strip() == str(expected)
    assert hub.requests == []


@pytest.mark.slow
def test_hf_hub_cache_wins_over_hf_home(tmp_path: Path, hub: FakeHub) -> None:
    env = {
        "HF_HOME": str(tmp_path / "home"),
        "HF_HUB_CACHE": str(tmp_path / "cache"),
        "HF_ENDPOINT": hub.url,
    }
    done = run_locate(env, DRAFT, "download")
    assert done.stdout.strip().startswith(str(tmp_path / "cache" / "models--z-lab--"))
    assert not (tmp_path / "home" / "hub").exists()


@pytest.mark.slow
def test_hf_hub_offline_forbids_a_download_with_a_clear_error(tmp_path: Path, hub: FakeHub) -> None:
    env = {"HF_HUB_CACHE": str(tmp_path / "cache"), "HF_ENDPOINT": hub.url, "HF_HUB_OFFLINE": "1"}
    done = run_locate(env, DRAFT, "download")
    assert done.stdout.strip() == (
        f"HubDownloadError: {DRAFT}: cannot download config.json (revision main): "
        "HF_HUB_OFFLINE is set, and the cache does not hold it."
    )
    assert hub.requests == []


# ------------------------------------------------------------ downloads keep a cached draft valid


@pytest.fixture
def hub_endpoint(hub: FakeHub, monkeypatch: pytest.MonkeyPatch) -> FakeHub:
    """The fake hub as huggingface_hub's default endpoint, as HF_ENDPOINT sets it."""
    point_at(hub.url, monkeypatch)
    return hub


def point_at(endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """What HF_ENDPOINT sets when huggingface_hub is imported: the endpoint, and the URL
    template of file downloads built from it."""
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "ENDPOINT", endpoint)
    template = endpoint + "/{repo_id}/resolve/{revision}/{filename}"
    monkeypatch.setattr(constants, "HUGGINGFACE_CO_URL_TEMPLATE", template)


def test_with_no_tokenizer_a_download_fetches_no_tokenizer_file(
    cache: Path, hub_endpoint: FakeHub
) -> None:
    verdict = check(DRAFT, download=True, check_tokenizer=False, check_weights=False)
    assert verdict.errors == ()
    assert hub_endpoint.files_requested() == {"config.json"}
    assert sorted(p.name for p in locate(DRAFT).iterdir()) == ["config.json"]


def test_an_optional_file_that_cannot_be_fetched_is_a_note(
    cache: Path, hub: FakeHub, monkeypatch: pytest.MonkeyPatch, no_retry_waits: list[float]
) -> None:
    locate(DRAFT, files=["config.json"], download=True, endpoint=hub.url)  # a cached draft
    point_at("http://127.0.0.1:9", monkeypatch)
    why = "could not reach a Hugging Face hub at http://127.0.0.1:9."
    hub.requests.clear()
    verdict = check(DRAFT, download=True)
    assert verdict.errors == ()
    assert verdict.token_id == 151669
    assert [note for note in verdict.notes if "not downloaded" in note] == [
        f"{name} not downloaded: {DRAFT}: cannot download {name} (revision {MAIN_COMMIT}): {why}"
        for name in TOKENIZER_FILE_NAMES
    ]
    assert hub.requests == []


def test_a_file_cached_at_the_resolved_commit_is_not_fetched_again(
    cache: Path, hub_endpoint: FakeHub
) -> None:
    # The weights are tests/engines/vllm/test_checkpoint.py's.
    check(DRAFT, download=True, check_weights=False)
    assert hub_endpoint.files_requested() >= {"config.json", "tokenizer.json"}
    hub_endpoint.requests.clear()
    check(DRAFT, download=True, check_weights=False)  # main may have moved: only config.json
    assert hub_endpoint.files_requested() == {"config.json"}


# ---------------------------------------------------------- hostile refs, sizes, offline


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "huge"])
def test_a_ref_that_is_no_regular_small_file_is_a_corrupt_ref_said_at_once(
    cache: Path, kind: str
) -> None:
    """A FIFO would block a read for ever, /dev/zero never ends, a 2 GB ref was read whole
    twice: a ref is opened without blocking, as a regular file, and read up to a bound."""
    write_cached_repo(cache, DRAFT, {"config.json": CONFIG_BYTES})
    ref = cache / "models--z-lab--Qwen3-8B-DFlash-b16" / "refs" / "main"
    ref.unlink()
    if kind == "fifo":
        os.mkfifo(ref)
    elif kind == "dev-zero":
        ref.symlink_to("/dev/zero")
    else:
        with ref.open("wb") as file:
            file.truncate(2 << 30)  # sparse: costs no disk
    held = "holds 2,147,483,648 bytes" if kind == "huge" else "is not a regular file"
    for name in (DRAFT,):  # a draft, a --target and a verifier all go through locate
        error = not_cached(name)
        assert f"the cached ref of revision main is corrupt: refs/main {held}" in str(error)
    verdict = check({"pard_token": 1}, target=DRAFT)
    assert "refs/main " + held in str(verdict.errors[0])


def test_download_refuses_a_file_larger_than_its_limit_by_the_size_the_hub_reports(
    cache: Path,
) -> None:
    huge = b'{"pard_token": 1, "pad": "' + b"x" * (2 << 20) + b'"}'  # over 1 MiB
    repos = {"acme/huge": draft_repo(huge)}
    with serve(repos) as hub:
        with pytest.raises(HubDownloadError, match="hub reports 2,097,"):
            locate("acme/huge", download=True, endpoint=hub.url)
        assert [r.method for r in hub.requests if r.filename == "config.json"] == ["HEAD"]
    assert not list(cache.rglob("config.json"))  # nothing downloaded


def test_download_under_hf_hub_offline_reads_the_cache_headers_included(
    cache: Path, monkeypatch: pytest.MonkeyPatch, no_network: ConnectAttempts
) -> None:
    from huggingface_hub import constants

    from tests.checkpoint_factory import header_bytes

    config = {
        "architectures": ["LlamaForCausalLM"],
        "pard_token": 1,
        "vocab_size": 8,
        "hidden_size": 4,
        "num_hidden_layers": 1,
    }
    shapes = {"model.embed_tokens.weight": ("BF16", (8, 4))}
    header = header_bytes(shapes)
    weights = len(header).to_bytes(8, "little") + header + bytes(64)
    write_cached_repo(
        cache, DRAFT, {"config.json": json.dumps(config), "model.safetensors": weights}
    )
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    verdict = check(DRAFT, download=True, check_tokenizer=False)
    assert verdict.weights is not None  # the cached headers, as without --download
    assert verdict.weights.tensors == 1
    assert f"{DRAFT}: HF_HUB_OFFLINE is set: read from the cache, nothing downloaded" in (
        verdict.notes
    )
    assert no_network == []


def test_a_cached_tokenizer_repo_needs_no_config_json(cache: Path) -> None:
    write_cached_repo(cache, "acme/tokenizer", {"tokenizer_config.json": '{"pad_token": "<p>"}'})
    with pytest.raises(RepoNotCachedError, match=r"has no config\.json"):
        locate("acme/tokenizer")
    snapshot = locate("acme/tokenizer", tokenizer=True)
    assert (snapshot / "tokenizer_config.json").is_file()
    verdict = check({"pard_token": 1}, tokenizer="acme/tokenizer")
    assert verdict.errors == ()


# --- Exact edges of the repo-id messages: what the cache is missing, what the hub said ------------


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
    ("status", "fix"),
    [(401, "check that HF_TOKEN is valid"), (403, "check that HF_TOKEN is valid"), (404, None)],
)
def test_only_401_and_403_mention_the_token(status: int, fix: str | None) -> None:
    error = ValueError("refused")
    error.response = SimpleNamespace(status_code=status)  # type: ignore[attr-defined]
    assert _refusal_problem(error, "config.json", "main", "https://hub.test") == (
        f"https://hub.test answered HTTP {status}.",
        fix,
    )


def test_offline_mode_is_named_with_its_variable() -> None:
    error = OSError("cannot download")
    error.__cause__ = hub_errors.OfflineModeIsEnabled("offline")
    assert _unreached_problem(error, "https://hub.test") == (
        "HF_HUB_OFFLINE is set.",
        "unset HF_HUB_OFFLINE to download",
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
        f"org/name: not found locally nor in the local Hugging Face cache ({cache})"
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
