"""check() and the command line read the checkpoint beside a draft: locally, from the cache,
or (with --download) from the hub by HTTP range requests; --no-weights touches none of it."""

from __future__ import annotations

import io
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from drafting_config import check, check_many
from drafting_config.cli.run import main
from drafting_config.files.safetensors_headers import WeightsFileError
from drafting_config.rules.checkpoint import WeightsFacts
from tests.checkpoint_factory import (
    FC_WIDTH_EXAMPLE,
    fc_width_example_tensors,
    header_bytes,
    write_fc_width_example,
    write_safetensors,
    write_sharded,
)
from tests.fake_cache import use_cache, write_cached_repo
from tests.fake_hub import MAIN_COMMIT, FakeHub, FakeRepo, serve

REPO_ID = "acme/dflash-draft"
FIXED_FC = {**fc_width_example_tensors(), "fc.weight": ("BF16", (16, 48))}


@pytest.fixture
def draft(tmp_path: Path) -> Path:
    """A copy of the fc-width example: config.json and model.safetensors."""
    directory = tmp_path / "draft"
    shutil.copytree(FC_WIDTH_EXAMPLE, directory)
    return directory


def test_the_committed_example_checkpoint_is_what_the_factory_writes(tmp_path: Path) -> None:
    written = write_fc_width_example(tmp_path)
    assert written.read_bytes() == (FC_WIDTH_EXAMPLE / "model.safetensors").read_bytes()


def test_the_weights_beside_a_draft_are_checked_by_default(draft: Path) -> None:
    verdict = check(draft)
    assert [e.field for e in verdict.errors] == ["dflash_config.target_layer_ids"]
    assert "`fc.weight` has input width 80 but vLLM builds fc for 48" in str(verdict.errors[0])
    assert verdict.weights == WeightsFacts(
        files=(str(draft / "model.safetensors"),),
        tensors=25,
        architecture="qwen3_dflash",
        embedding_rows=None,
        fc_input_width=80,
        layers=2,
    )
    assert "the checkpoint has no embed_tokens: vLLM shares the target's embedding" in verdict.notes
    assert check(draft / "config.json").weights == verdict.weights  # the file's directory


def test_a_checkpoint_that_fits_passes(draft: Path) -> None:
    write_safetensors(draft / "model.safetensors", FIXED_FC)
    verdict = check(draft)
    assert verdict.ok
    assert verdict.weights is not None
    assert verdict.weights.fc_input_width == 48


def test_no_weights_is_no_check_and_no_note(draft: Path) -> None:
    (draft / "model.safetensors").unlink()
    verdict = check(draft)
    assert verdict.ok
    assert verdict.weights is None
    assert not any("weights" in note or "checkpoint" in note for note in verdict.notes)


def test_bin_only_weights_get_a_note(draft: Path) -> None:
    (draft / "model.safetensors").unlink()
    (draft / "pytorch_model.bin").write_bytes(b"\x80\x02 a pickle")
    verdict = check(draft)
    assert verdict.ok
    assert verdict.weights is None
    assert any(
        note.startswith("weights not checked: the draft ships .bin") for note in verdict.notes
    )


def test_a_broken_checkpoint_is_an_error_naming_the_file(draft: Path) -> None:
    (draft / "model.safetensors").write_bytes(b"\x01\x00")
    verdict = check(draft)
    assert [type(e) for e in verdict.errors] == [WeightsFileError]
    assert str(verdict.errors[0]).startswith(f"{draft / 'model.safetensors'}: truncated")
    assert verdict.weights is None


def test_a_config_object_has_no_weights_to_check() -> None:
    config = json.loads((FC_WIDTH_EXAMPLE / "config.json").read_text())
    assert check(config).weights is None
    assert check(config).ok


def test_no_weights_touches_no_weight_file(draft: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_sharded(draft, [{"a": ("F32", (2,))}])
    touched: list[str] = []
    real_open, real_scandir = os.open, os.scandir

    def watching_open(path: str, *args: object, **kwargs: object) -> int:
        touched.append(os.fspath(path))
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    def watching_scandir(path: str) -> Iterator[os.DirEntry[str]]:
        touched.append(os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "open", watching_open)
    monkeypatch.setattr(os, "scandir", watching_scandir)
    verdict = check(draft, check_weights=False)
    assert verdict.ok
    assert verdict.weights is None
    assert touched  # the watch works
    assert all(Path(path).name in ("draft", "config.json") for path in touched)
    touched.clear()
    check(draft)
    assert any(path.endswith(".safetensors") for path in touched)


def test_check_many_takes_check_weights_too(draft: Path) -> None:
    verdicts = check_many([draft, draft], check_weights=False)
    assert [v.weights for v in verdicts] == [None, None]
    assert all(v.ok for v in verdicts)
    assert [v.ok for v in check_many([draft])] == [False]


def test_a_cached_snapshot_with_weights_is_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = use_cache(tmp_path / "hf-cache", monkeypatch)
    files = {
        name: (FC_WIDTH_EXAMPLE / name).read_bytes()
        for name in ("config.json", "model.safetensors")
    }
    snapshot = write_cached_repo(cache, REPO_ID, files)
    verdict = check(REPO_ID)
    assert [e.field for e in verdict.errors] == ["dflash_config.target_layer_ids"]
    assert verdict.weights is not None
    assert verdict.weights.files == (str(snapshot / "model.safetensors"),)


def _cli(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        status = main(list(args))
    return status, out.getvalue()


def test_the_cli_shows_the_weights_and_no_weights_skips_them(draft: Path) -> None:
    status, text = _cli("check", str(draft))
    assert status == 1
    shown = f"25 tensors in {draft / 'model.safetensors'} (qwen3_dflash: 2 layers, fc input 80)"
    assert f"    weights: {shown}" in text
    status, text = _cli("check", "--no-weights", str(draft))
    assert status == 0
    assert "    weights:" not in text
    status, text = _cli("check", "--json", str(draft))
    (item,) = json.loads(text)
    assert item["weights"] == {
        "files": [str(draft / "model.safetensors")],
        "tensors": 25,
        "architecture": "qwen3_dflash",
        "embedding_rows": None,
        "fc_input_width": 80,
        "layers": 2,
    }
    status, text = _cli("check", "--json", "--no-weights", str(draft))
    assert json.loads(text)[0]["weights"] is None


# -- from the hub, by range requests ---------------------------------------------------------


def _safetensors(tensors: dict[str, tuple[str, tuple[int, ...]]], tmp_path: Path) -> bytes:
    path = write_safetensors(tmp_path / "staged.safetensors", tensors)
    return path.read_bytes()


@pytest.fixture
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    """A fake hub serving the fc-width example with its checkpoint, set as the endpoint."""
    from huggingface_hub import constants

    use_cache(tmp_path / "hf-cache", monkeypatch)
    registry = tmp_path / "agent_harnesses.json"  # keeps huggingface_hub 2 offline
    registry.write_text('{"standardEnvVars": [], "harnesses": {}}')
    if hasattr(constants, "AGENT_HARNESSES_PATH"):
        monkeypatch.setattr(constants, "AGENT_HARNESSES_PATH", str(registry))
    config = (FC_WIDTH_EXAMPLE / "config.json").read_bytes()
    single = {
        "config.json": config,
        "model.safetensors": (FC_WIDTH_EXAMPLE / "model.safetensors").read_bytes(),
    }
    halves = list(FIXED_FC.items())
    first, second = dict(halves[:10]), dict(halves[10:])
    staged = tmp_path / "staged"
    staged.mkdir()
    write_sharded(staged, [first, second])
    sharded = {"config.json": config}
    sharded.update({p.name: p.read_bytes() for p in staged.iterdir()})
    repos = {
        REPO_ID: FakeRepo(commits={MAIN_COMMIT: single}, refs={"main": MAIN_COMMIT}),
        "acme/sharded-draft": FakeRepo(commits={MAIN_COMMIT: sharded}, refs={"main": MAIN_COMMIT}),
        "acme/no-weights": FakeRepo(
            commits={MAIN_COMMIT: {"config.json": config}}, refs={"main": MAIN_COMMIT}
        ),
    }
    with serve(repos) as running:
        monkeypatch.setattr(constants, "ENDPOINT", running.url)
        template = running.url + "/{repo_id}/resolve/{revision}/{filename}"
        monkeypatch.setattr(constants, "HUGGINGFACE_CO_URL_TEMPLATE", template)
        yield running


def _only_headers_were_served(hub: FakeHub) -> None:
    gets = [
        r
        for r in hub.resolve_requests()
        if r.method == "GET" and r.filename.endswith(".safetensors")
    ]
    assert gets, "no safetensors header was asked for"
    assert all(r.range is not None and r.range.startswith("bytes=") for r in gets)
    assert len(hub.served_ranges) == len(gets)
    for _, _, last, header_end in hub.served_ranges:
        assert last < header_end  # not one weight byte


def test_download_reads_the_headers_from_the_hub_by_range_requests(hub: FakeHub) -> None:
    verdict = check(REPO_ID, download=True)
    assert [e.field for e in verdict.errors] == ["dflash_config.target_layer_ids"]
    assert verdict.weights is not None
    assert verdict.weights.files == (f"{REPO_ID}/model.safetensors",)
    assert verdict.weights.fc_input_width == 80
    _only_headers_were_served(hub)


def test_download_reads_a_sharded_checkpoint_s_headers_and_index(hub: FakeHub) -> None:
    verdict = check("acme/sharded-draft", download=True)
    assert verdict.ok, verdict.errors
    assert verdict.weights is not None
    assert len(verdict.weights.files) == 2
    assert verdict.weights.tensors == len(FIXED_FC)
    _only_headers_were_served(hub)
    assert "model.safetensors.index.json" in hub.files_requested()


def test_a_hub_repo_without_safetensors_gets_a_note(hub: FakeHub) -> None:
    verdict = check("acme/no-weights", download=True)
    assert verdict.ok
    assert verdict.weights is None
    assert any("neither model.safetensors nor" in note for note in verdict.notes)


def test_without_download_the_hub_is_never_contacted(hub: FakeHub) -> None:
    verdict = check(REPO_ID)
    assert verdict.weights is None
    assert hub.requests == []


def test_download_with_no_weights_asks_the_hub_for_no_weights(hub: FakeHub) -> None:
    check(REPO_ID, download=True, check_weights=False)
    assert not any(r.filename.endswith(".safetensors") for r in hub.resolve_requests())


def test_the_fake_hub_refuses_a_whole_weights_file(hub: FakeHub) -> None:
    import urllib.error
    import urllib.request

    url = f"{hub.url}/{REPO_ID}/resolve/main/model.safetensors"
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(url, timeout=5)
    assert caught.value.code == 400
    caught.value.close()
    request = urllib.request.Request(url, headers={"Range": "bytes=0-1000000"})
    with urllib.request.urlopen(request, timeout=5) as answer:
        body = answer.read()
        assert answer.status == 206
    assert len(body) == 8 + len(header_bytes(fc_width_example_tensors()))


def test_a_git_lfs_pointer_is_a_note_not_an_error(draft: Path) -> None:
    pointer = (
        "version https://git-lfs.github.com/spec/v1\n"
        "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
        "size 14534\n"
    )
    (draft / "model.safetensors").write_text(pointer)
    verdict = check(draft)
    assert verdict.ok
    assert verdict.weights is None
    assert f"weights not checked: {draft / 'model.safetensors'}: a Git LFS pointer" in "\n".join(
        verdict.notes
    )


def test_a_second_check_without_download_is_not_failed_by_the_index_the_first_cached(
    hub: FakeHub,
) -> None:
    """``--download`` leaves the sharded checkpoint's index in the cache snapshot beside
    ``config.json``, never the shards.  A later check without ``--download`` must not read
    that partial snapshot as a checkpoint whose shards are missing: the draft is fine."""
    first = check("acme/sharded-draft", download=True)
    assert first.ok, first.errors
    second = check("acme/sharded-draft")
    assert second.ok, second.errors
    assert second.weights is None
    assert any(
        "weights not checked: the cache does not hold every weights file" in note
        and "named in model.safetensors.index.json but missing" in note
        for note in second.notes
    )


# Issue 25: items 4, 6, 7, 8 and 10.


@pytest.fixture(scope="module")
def hostile_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("hostile")
    shutil.copy(FC_WIDTH_EXAMPLE / "config.json", directory / "config.json")
    return directory


def _with_header(directory: Path, header: bytes) -> Path:
    (directory / "model.safetensors").write_bytes(len(header).to_bytes(8, "little") + header)
    return directory


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
_ENTRY = st.fixed_dictionaries(
    {"dtype": st.sampled_from(["BF16", "F32", "Q4"]) | _JSON, "shape": _JSON, "data_offsets": _JSON}
)


@given(
    st.one_of(
        st.binary(max_size=200),
        _JSON.map(lambda value: json.dumps(value).encode()),
        st.dictionaries(
            st.sampled_from(["fc.weight", "mask_hidden", "d2t", "layers.0.x", "__metadata__"])
            | st.text(max_size=6),
            _ENTRY | _JSON,
            max_size=5,
        ).map(lambda value: json.dumps(value).encode()),
    )
)
@example(
    b'{"fc.weight": {"dtype": "BF16", "shape": [' + b"9" * 5000 + b'], "data_offsets": [0, 0]}}'
)
@example(b'{"mask_hidden": {"dtype": "BF16", "shape": [4294967296, 4294967296, 0]}}')
def test_check_never_raises_for_anything_a_header_holds(hostile_dir: Path, header: bytes) -> None:
    verdict = check(_with_header(hostile_dir, header), check_tokenizer=False)
    assert verdict.resolution is not None


@pytest.mark.parametrize("where", ["shape", "data_offsets", "__metadata__"])
def test_a_huge_integer_in_a_header_is_that_drafts_error_and_the_sweep_goes_on(
    tmp_path: Path, where: str
) -> None:
    huge = "9" * 5000
    header = {
        "shape": '{"fc.weight": {"dtype": "BF16", "shape": [%s], "data_offsets": [0, 0]}}',
        "data_offsets": '{"fc.weight": {"dtype": "BF16", "shape": [0], "data_offsets": [0, %s]}}',
        "__metadata__": '{"__metadata__": {"n": %s}}',
    }[where] % huge
    bad = tmp_path / "bad"
    shutil.copytree(FC_WIDTH_EXAMPLE, bad)
    _with_header(bad, header.encode())
    good = tmp_path / "good"
    shutil.copytree(FC_WIDTH_EXAMPLE, good)
    write_safetensors(good / "model.safetensors", FIXED_FC)
    bad_verdict, good_verdict = check_many([bad, good], check_tokenizer=False)
    assert good_verdict.ok
    [error] = bad_verdict.errors
    assert str(error).startswith(f"{bad / 'model.safetensors'}: the safetensors header cannot be")
    assert "an integer literal with 5,000 digits" in str(error)


def test_weights_are_checked_only_for_a_model_directory_or_a_config_json(draft: Path) -> None:
    """vLLM pairs weights with a model directory; ``drafts/a.json`` has none."""
    other = draft / "a.json"
    shutil.copy(draft / "config.json", other)
    verdict = check(other)
    assert verdict.ok, verdict.errors
    assert verdict.weights is None
    assert check(draft / "config.json").weights is not None
    assert check(draft).weights is not None


def test_a_sweep_lists_a_folder_once(draft: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    listed: list[object] = []
    real_scandir = os.scandir

    def counting_scandir(path: str) -> object:
        listed.append(path)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", counting_scandir)
    verdicts = check_many([draft, draft / "config.json", str(draft)] * 3, check_tokenizer=False)
    assert all(v.weights is not None for v in verdicts)
    assert listed.count(str(draft)) == 1


def test_a_cache_snapshot_with_a_broken_weights_link_gets_a_note_as_missing_shards_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """vLLM downloads the weights again in both cases, so neither is INVALID."""
    cache = use_cache(tmp_path / "hf-cache", monkeypatch)
    files: dict[str, str | bytes] = {
        "config.json": (FC_WIDTH_EXAMPLE / "config.json").read_text(),
        "model.safetensors": b"x",
    }
    snapshot = write_cached_repo(cache, REPO_ID, files)
    (snapshot / "model.safetensors").resolve().unlink()  # the blob gone, the link broken
    verdict = check(REPO_ID, check_tokenizer=False)
    assert verdict.ok, verdict.errors
    assert verdict.weights is None
    assert any(
        "weights not checked: the cache does not hold every weights file" in note
        and "no such file" in note
        for note in verdict.notes
    )
    local = tmp_path / "local"
    shutil.copytree(snapshot, local, symlinks=True)
    assert not check(local, check_tokenizer=False).ok  # a local directory: vLLM fails


@pytest.mark.parametrize(
    "failure", [OSError("libcudart.so.12: cannot open shared object file"), RuntimeError("boom")]
)
def test_a_torch_whose_import_fails_gets_a_note_and_everything_else_is_checked(
    draft: Path, monkeypatch: pytest.MonkeyPatch, failure: Exception
) -> None:
    import builtins
    import sys

    from drafting_config.files.mask_embedding import MASK_EMBEDDING_FILE

    (draft / MASK_EMBEDDING_FILE).write_bytes(b"anything")
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    real_import = builtins.__import__

    def failing_import(name: str, *args: object, **kwargs: object) -> object:
        if name == "torch":
            raise failure
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", failing_import)
    verdict = check(draft, check_tokenizer=False)
    assert [e.field for e in verdict.errors] == ["dflash_config.target_layer_ids"]  # fc checked
    note = f"{draft / MASK_EMBEDDING_FILE} not checked: torch failed to import "
    note += f"({type(failure).__name__}: {failure})"
    assert note in verdict.notes
    out = io.StringIO()
    with redirect_stdout(out):
        status = main(["check", "--no-tokenizer", str(draft)])
    assert status == 1
    assert "INVALID" in out.getvalue()
    assert "torch failed to import" in out.getvalue()


def test_a_draft_directory_that_cannot_be_listed_is_an_error_naming_it(
    draft: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """chmod 111: config.json opens by name, but vLLM finds weights by listing the directory
    (glob), finds none, and fails.  (Simulated: the tests may run as root.)"""
    real_scandir = os.scandir

    def refusing_scandir(path: str) -> object:
        if os.fspath(path) == str(draft):
            raise PermissionError(13, "Permission denied", str(draft))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", refusing_scandir)
    verdict = check(draft, check_tokenizer=False)
    assert [str(e) for e in verdict.errors] == [
        f"{draft}: cannot list the directory: Permission denied (it lacks the r permission); "
        'vLLM finds the weights by listing it, finds none, and fails with "Cannot find any '
        'model weights".'
    ]
    assert check(draft, check_tokenizer=False, check_weights=False).ok
