"""from_pretrained and load_config_json: local JSON only, every bad file named and explained."""

from __future__ import annotations

import json
import os
import pickle
import sys
from pathlib import Path

import pytest

from drafting_config import (
    ConfigFileError,
    ParallelDraftingConfig,
    ParallelDraftingConfigError,
    TokenIdSource,
)
from drafting_config.loading import load_config_json
from tests.bad_files import BAD_FILES
from tests.conftest import EXAMPLES, INVALID_EXAMPLES, VALID_EXAMPLES, load_json


@pytest.mark.parametrize("path", VALID_EXAMPLES, ids=lambda p: p.parent.name)
def test_file_and_directory_give_the_same_config(path: Path) -> None:
    from_file = ParallelDraftingConfig.from_pretrained(path)
    assert ParallelDraftingConfig.from_pretrained(path.parent) == from_file
    assert ParallelDraftingConfig.from_pretrained(str(path)) == from_file
    assert from_file == ParallelDraftingConfig.from_hf_config(load_json(path))


def test_examples_resolve_as_their_readme_says() -> None:
    expected = {
        "dflash-qwen3-4b": (151669, TokenIdSource.DFLASH_MASK_TOKEN_ID),
        "dspark-qwen3-8b": (151669, TokenIdSource.MASK_TOKEN_ID),
        "dspark-noise-qwen3-8b": (151669, TokenIdSource.DSPARK_NOISE_TOKEN_ID),
        "pard-llama3-1b": (128020, TokenIdSource.PARD_TOKEN),
        "ptd-eagle3-llama3-8b": (128002, TokenIdSource.PTD_TOKEN_ID),
        "speculators-dflash-qwen3-8b": (151669, TokenIdSource.DFLASH_MASK_TOKEN_ID),
    }
    assert {p.parent.name for p in VALID_EXAMPLES} == set(expected)
    for name, (token_id, source) in expected.items():
        config = ParallelDraftingConfig.from_pretrained(EXAMPLES / name)
        assert (config.token_id, config.source) == (token_id, source)
    assert "ptd-eagle3" in (EXAMPLES / "README.md").read_text()


def test_invalid_example_names_its_path_and_field() -> None:
    (path,) = INVALID_EXAMPLES
    with pytest.raises(ParallelDraftingConfigError) as info:
        ParallelDraftingConfig.from_pretrained(path)
    assert str(info.value).startswith(f"{path}: `pard_token` must be an integer token id")
    assert info.value.field == "pard_token"


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_files_are_config_file_errors(case: str, tmp_path: Path) -> None:
    make, phrase = BAD_FILES[case]
    path = make(tmp_path)
    with pytest.raises(ConfigFileError) as info:
        ParallelDraftingConfig.from_pretrained(path)
    error = info.value
    assert isinstance(error, ParallelDraftingConfigError)
    assert phrase in error.problem
    assert str(error).startswith(str(path)) or str(error).startswith(str(path.parent))
    assert "\n" not in str(error)
    clone = pickle.loads(pickle.dumps(error))
    assert (type(clone), str(clone), clone.path) == (ConfigFileError, str(error), error.path)


def test_a_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"pard_token": 5}).encode())
    assert ParallelDraftingConfig.from_pretrained(path).token_id == 5


def test_remote_code_is_never_run(tmp_path: Path) -> None:
    # auto_map names a module in the folder; loading must not import it.
    (tmp_path / "configuration_evil.py").write_text("raise SystemExit('remote code ran')\n")
    config = {
        "auto_map": {"AutoConfig": "configuration_evil.EvilConfig"},
        "trust_remote_code": True,
        "pard_token": 7,
    }
    (tmp_path / "config.json").write_text(json.dumps(config))
    assert ParallelDraftingConfig.from_pretrained(tmp_path).token_id == 7
    assert "configuration_evil" not in sys.modules
    assert load_config_json(tmp_path)["auto_map"] == config["auto_map"]


def test_an_oversized_file_is_refused_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make, _ = BAD_FILES["oversized"]
    path = make(tmp_path)

    def no_read(fd: int, size: int) -> bytes:
        raise AssertionError("the loader read a file it should refuse from its size")

    monkeypatch.setattr("drafting_config.loading.os.read", no_read)
    with pytest.raises(ConfigFileError, match="over the"):
        load_config_json(path)


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="needs Linux procfs")
def test_files_that_report_no_size_are_still_read_whole() -> None:
    # procfs files report st_size 0 but have content: it must be read, not
    # mistaken for an empty file.
    with pytest.raises(ConfigFileError, match="not valid JSON"):
        load_config_json("/proc/self/status")


def test_a_path_with_a_nul_byte() -> None:
    with pytest.raises(ConfigFileError, match="NUL byte"):
        ParallelDraftingConfig.from_pretrained("config\0.json")


def test_a_file_larger_than_it_reports_is_still_bounded(tmp_path: Path) -> None:
    # Like a procfs file: fstat says 0 bytes, the content runs past the cap.
    from drafting_config.loading import MAX_CONFIG_BYTES, _read_bounded

    path = tmp_path / "growing.json"
    path.write_bytes(b" " * (MAX_CONFIG_BYTES + 10))
    fd = os.open(path, os.O_RDONLY)
    try:
        with pytest.raises(ConfigFileError, match="over the"):
            _read_bounded(fd, str(path), expected_size=0)
    finally:
        os.close(fd)
