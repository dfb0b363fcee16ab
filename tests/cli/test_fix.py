"""``check --fix`` and ``check --diff`` (cli/fixing.py): the certain fixes written back to
the files named by path, each change said, the file checked again, and never a repo id, a
symbolic link, a Hugging Face cache or a path read from standard input."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from drafting_config import ParallelDraftingConfigError, ParallelDraftingConfigWarning
from drafting_config.cli.fixing import planned_edits
from drafting_config.cli.run import EXIT_INVALID, EXIT_OK, EXIT_USAGE
from drafting_config.values import codes
from drafting_config.values.edits import ConfigEdit
from drafting_config.verdicts import Verdict
from tests.conftest import Run, run_cli
from tests.fake_cache import use_cache, write_cached_repo

# vLLM reads `dflash_config.mask_token_id: null` before the top-level id and fails
NULL_ABOVE = {
    "architectures": ["DFlashDraftModel"],
    "model_type": "qwen3",
    "vocab_size": 1000,
    "hidden_size": 64,
    "num_hidden_layers": 1,
    "mask_token_id": 5,
    "dflash_config": {"mask_token_id": None, "target_layer_ids": [1, 2]},
}
# vLLM looks up the characters of a string `architectures`
ARCHITECTURES_STRING = {
    "architectures": "LlamaForCausalLM",
    "model_type": "llama",
    "pard_token": 5,
    "vocab_size": 100,
    "hidden_size": 8,
}


def _write(path: Path, config: dict[str, object]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    return path


def _check(capsys: pytest.CaptureFixture[str], *args: str | Path) -> Run:
    return run_cli(capsys, "check", "--no-tokenizer", "--no-weights", *args)


def test_fix_deletes_a_null_field_says_so_and_the_recheck_decides_the_status(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path / "config.json", NULL_ABOVE)
    assert _check(capsys, path).status == EXIT_INVALID
    run = _check(capsys, "--fix", path)
    assert run.status == EXIT_OK, run.out
    assert f"{path}: fixed token-field-null: deleted `dflash_config.mask_token_id`" in run.lines
    assert any(line.startswith(f"{path}: OK") for line in run.lines)
    fixed = json.loads(path.read_text(encoding="utf-8"))
    assert fixed == {**NULL_ABOVE, "dflash_config": {"target_layer_ids": [1, 2]}}
    assert list(fixed) == list(NULL_ABOVE)  # key order kept


def test_fix_wraps_a_string_architectures_in_a_list(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path / "draft" / "config.json", ARCHITECTURES_STRING)
    run = _check(capsys, "--fix", tmp_path / "draft")  # a model directory names its config
    assert run.status == EXIT_OK, run.out
    assert (
        f'{path}: fixed architectures-string: set `architectures` to ["LlamaForCausalLM"]'
        in run.lines
    )
    assert json.loads(path.read_text(encoding="utf-8"))["architectures"] == ["LlamaForCausalLM"]
    # a second run finds nothing to fix and leaves the file's bytes alone
    before = path.read_bytes()
    again = _check(capsys, "--fix", path)
    assert not any("fixed" in line for line in again.lines)
    assert path.read_bytes() == before


def test_the_exit_status_is_the_rechecks_when_errors_remain(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = {**ARCHITECTURES_STRING, "pard_token": "5"}  # and a token id no fix can guess
    path = _write(tmp_path / "config.json", config)
    run = _check(capsys, "--fix", path)
    assert f"{path}: fixed architectures-string" in run.out
    assert run.status == EXIT_INVALID
    assert json.loads(path.read_text(encoding="utf-8"))["pard_token"] == "5"


def test_diff_prints_the_change_without_writing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path / "config.json", NULL_ABOVE)
    before = path.read_bytes()
    run = _check(capsys, "--diff", path)
    assert path.read_bytes() == before
    assert run.status == EXIT_INVALID  # the file as it is
    assert f"--- {path}" in run.lines
    assert f"+++ {path}" in run.lines
    assert '-    "mask_token_id": null,' in run.lines
    assert not any(line.startswith("+") and 'mask_token_id": null' in line for line in run.lines)
    assert not any(": fixed " in line for line in run.lines)


def test_with_json_the_fix_lines_go_to_standard_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path / "config.json", NULL_ABOVE)
    run = _check(capsys, "--json", "--fix", path)
    assert run.json[0]["ok"] is True
    assert f"{path}: fixed token-field-null" in run.err


def test_an_ignored_code_is_not_fixed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    floats = {**NULL_ABOVE, "dflash_config": {"target_layer_ids": [1.0, 2.0]}}
    path = _write(tmp_path / "config.json", floats)
    before = path.read_bytes()
    run = _check(capsys, "--fix", "--strict", "--ignore", "layer-ids-floats", path)
    assert path.read_bytes() == before
    assert run.status == EXIT_OK
    assert _check(capsys, "--strict", path).status == EXIT_INVALID  # the warning, unignored


def test_an_error_code_cannot_be_ignored_so_nothing_is_fixed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path / "config.json", NULL_ABOVE)
    before = path.read_bytes()
    run = _check(capsys, "--fix", "--ignore", "token-field-null", path)
    assert path.read_bytes() == before
    assert run.status == EXIT_USAGE
    assert "--ignore names the error code token-field-null" in run.err


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links")
def test_fix_never_writes_through_a_symbolic_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = _write(tmp_path / "real.json", NULL_ABOVE)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    before = real.read_bytes()
    run = _check(capsys, "--fix", link)
    assert real.read_bytes() == before
    assert link.is_symlink()
    assert f"{link}: not fixed: a symbolic link" in run.out
    assert run.status == EXIT_INVALID


def test_fix_never_writes_a_repo_id_or_inside_the_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("huggingface_hub")
    cache = use_cache(tmp_path / "cache", monkeypatch)
    snapshot = write_cached_repo(cache, "org/draft", {"config.json": json.dumps(NULL_ABOVE)})
    blob = (snapshot / "config.json").resolve()
    before = blob.read_bytes()
    monkeypatch.chdir(tmp_path)
    run = _check(capsys, "--fix", "org/draft")
    assert "org/draft: not fixed: a repo id" in run.out
    # the snapshot's file by path: a link into the cache's blobs
    run = _check(capsys, "--fix", snapshot / "config.json")
    assert "not fixed: a symbolic link" in run.out
    # a blob, a regular file, is still inside the cache
    run = _check(capsys, "--fix", blob)
    assert "not fixed: inside a Hugging Face cache" in run.out
    assert blob.read_bytes() == before


def test_fix_never_writes_the_paths_read_from_standard_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(tmp_path / "config.json", NULL_ABOVE)
    before = path.read_bytes()
    stdin = io.TextIOWrapper(io.BytesIO(os.fsencode(path) + b"\n"))
    monkeypatch.setattr("sys.stdin", stdin)
    run = _check(capsys, "--fix", "-")
    assert path.read_bytes() == before
    assert "-: not fixed: paths read from standard input are never fixed" in run.out
    assert run.status == EXIT_INVALID


def test_an_edit_two_engines_plan_is_applied_once_and_a_conflicting_one_is_left_out() -> None:
    same = ConfigEdit.set("markov_rank", 256)
    verdicts = [
        Verdict(
            None,
            None,
            (ParallelDraftingConfigError("a", code=codes.MARKOV_RANK_NESTED_ONLY, edit=same),),
        ),
        Verdict(
            None,
            None,
            (ParallelDraftingConfigError("b", code=codes.CONSTRUCTOR_FIELD_MISSING, edit=same),),
        ),
        Verdict(
            None,
            None,
            (),
            warnings=(ParallelDraftingConfigWarning("c", edit=ConfigEdit.set("markov_rank", 8)),),
        ),
        Verdict(
            None, None, (ParallelDraftingConfigError("d", edit=ConfigEdit.delete("markov_rank.x")),)
        ),
    ]
    planned, conflicts = planned_edits(verdicts)
    assert [(item.code, item.edit) for item in planned] == [("markov-rank-nested-only", same)]
    assert len(conflicts) == 2
    assert (
        conflicts[0]
        == "not applied fix: set `markov_rank` to 8: it conflicts with set `markov_rank` to 256"
    )
