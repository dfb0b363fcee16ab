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
from drafting_config.cli import fixing
from drafting_config.cli.fixing import draft_plan, fix_paths
from drafting_config.cli.run import EXIT_INVALID, EXIT_OK, EXIT_USAGE
from drafting_config.engines.sglang import codes as sglang_codes
from drafting_config.engines.vllm import codes as vllm_codes
from drafting_config.files import config_writing
from drafting_config.values.edits import ConfigEdit
from drafting_config.verdicts import Verdict
from tests.conftest import Run, run_cli
from tests.engines.vllm import tokens_read  # noqa: F401 (a fixture)
from tests.fake_cache import use_cache, write_cached_repo

pytestmark = pytest.mark.usefixtures("tokens_read")
"""The token rules of PTD and PARD drafts, judged on the newest vLLM release that reads their
token (later releases serve such drafts sequentially, the token unused)."""

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


# A DSpark draft both engines serve
DSPARK = {
    **json.loads(
        (
            Path(__file__).resolve().parents[2] / "examples" / "dspark-qwen3-8b" / "config.json"
        ).read_text(encoding="utf-8")
    ),
    "markov_head_type": "vanilla",
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
    assert (
        f"{path}: fixed token-field-null: deleted `dflash_config.mask_token_id` (line 11)"
        in run.lines
    )
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
        f'{path}: fixed architectures-string: set `architectures` to ["LlamaForCausalLM"] '
        "(line 2)" in run.lines
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
    config = {**ARCHITECTURES_STRING, "pard_token": "0x5"}  # and a token id no fix can guess
    path = _write(tmp_path / "config.json", config)
    run = _check(capsys, "--fix", path)
    assert f"{path}: fixed architectures-string" in run.out
    assert run.status == EXIT_INVALID
    assert json.loads(path.read_text(encoding="utf-8"))["pard_token"] == "0x5"


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


def test_an_edit_two_engines_plan_is_applied_once_and_edits_that_disagree_are_all_left_out() -> (
    None
):
    same = ConfigEdit.set("markov_rank", 256)
    verdicts = [
        Verdict(
            None,
            None,
            (
                ParallelDraftingConfigError(
                    "a", code=sglang_codes.MARKOV_RANK_NESTED_ONLY, edit=same
                ),
            ),
        ),
        Verdict(
            None,
            None,
            (
                ParallelDraftingConfigError(
                    "b", code=vllm_codes.CONSTRUCTOR_FIELD_MISSING, edit=same
                ),
            ),
        ),
        Verdict(None, None, (ParallelDraftingConfigError("e", edit=ConfigEdit.delete("other")),)),
    ]
    plan = draft_plan(verdicts)
    assert [(item.code, item.edit) for item in plan.edits] == [
        ("markov-rank-nested-only", same),
        ("fix", ConfigEdit.delete("other")),
    ]
    assert plan.conflicts == ()
    assert plan.fixes(verdicts[1].errors[0])
    disagreeing = [
        *verdicts,
        Verdict(
            None,
            None,
            (),
            warnings=(ParallelDraftingConfigWarning("c", edit=ConfigEdit.set("markov_rank", 8)),),
        ),
        Verdict(
            None, None, (ParallelDraftingConfigError("d", edit=ConfigEdit.delete("markov_rank.x")),)
        ),
        # `true` is not `1`: two values, so they disagree
        Verdict(None, None, (ParallelDraftingConfigError("f", edit=ConfigEdit.set("flag", 1)),)),
        Verdict(None, None, (ParallelDraftingConfigError("g", edit=ConfigEdit.set("flag", True)),)),
    ]
    plan = draft_plan(disagreeing)
    assert [item.edit for item in plan.edits] == [ConfigEdit.delete("other")]
    assert [[str(item.edit) for item in group] for group in plan.conflicts] == [
        ["set `markov_rank` to 256", "set `markov_rank` to 8", "deleted `markov_rank.x`"],
        ["set `flag` to 1", "set `flag` to true"],
    ]
    assert not plan.fixes(verdicts[0].errors[0])


# --- issue 41: a file that cannot be fixed is one line, never the end of the run -------------


def test_a_lone_surrogate_escape_beside_non_ascii_text_is_fixed_and_the_run_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the whole file was re-dumped with the surrogate raw, and writing it raised
    first = tmp_path / "a" / "config.json"
    first.parent.mkdir()
    first.write_text(
        '{"architectures": "LlamaForCausalLM", "model_type": "llama", "pard_token": 5, '
        '"vocab_size": 100, "hidden_size": 8, "name": "\\ud800 é"}\n',
        encoding="utf-8",
    )
    second = _write(tmp_path / "b" / "config.json", ARCHITECTURES_STRING)
    run = _check(capsys, "--fix", first, second)
    assert run.status == EXIT_OK, run.out
    assert f"{first}: fixed architectures-string" in run.out
    assert f"{second}: fixed architectures-string" in run.out
    assert '"name": "\\ud800 é"}' in first.read_text(encoding="utf-8")
    assert run.lines[-1].startswith("2 checked")


def test_an_unexpected_failure_names_its_file_and_the_others_are_fixed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = _write(tmp_path / "a" / "config.json", NULL_ABOVE)
    fine = _write(tmp_path / "b" / "config.json", NULL_ABOVE)
    real = config_writing.write_atomically

    def fail_first(path: Path, text: str, **kwargs: bytes | None) -> None:
        if path == broken:
            raise RuntimeError("a defect")
        real(path, text, **kwargs)

    monkeypatch.setattr(fixing, "write_atomically", fail_first)
    run = _check(capsys, "--fix", broken, fine)
    assert f"{broken}: not fixed: internal error: RuntimeError: a defect" in run.lines
    assert f"{fine}: fixed token-field-null" in run.out
    assert run.status == EXIT_INVALID  # the re-check of the file left as it was
    assert run.lines[-1] == "2 checked: 1 valid, 1 invalid, 1 fixable with --fix"


def test_a_file_saved_after_the_check_is_not_written_over(tmp_path: Path) -> None:
    path = _write(tmp_path / "config.json", NULL_ABOVE)
    saved = json.dumps({**NULL_ABOVE, "dflash_config": {"mask_token_id": 7}}, indent=2)
    error = ParallelDraftingConfigError(
        "null",
        code=vllm_codes.TOKEN_FIELD_NULL,
        edit=ConfigEdit.delete("dflash_config.mask_token_id"),
    )

    def check_then_save(argument: str) -> list[Verdict]:
        path.write_text(saved, encoding="utf-8")  # the user saves while the check runs
        return [Verdict(argument, None, (error,))]

    out = io.StringIO()
    fix_paths([os.fspath(path)], check_then_save, write=True, diff=False, out=out)
    assert out.getvalue() == f"{path}: not fixed: changed since it was checked\n"
    assert path.read_text(encoding="utf-8") == saved


def test_edits_that_disagree_are_none_applied_and_both_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = {key: value for key, value in DSPARK.items() if key != "markov_rank"}
    config["dflash_config"] = {"markov_rank": 256}
    config["dspark_config"] = {"markov_rank": 128}
    path = _write(tmp_path / "config.json", config)
    before = path.read_bytes()
    run = _check(capsys, "--engine", "all", "--fix", path)
    assert path.read_bytes() == before
    assert run.status == EXIT_INVALID
    [line] = [line for line in run.lines if line.startswith(f"{path}: not fixed: ")]
    assert "the fixes disagree: set `markov_rank` to 256" in line
    assert "set `markov_rank` to 128" in line


def test_a_fix_that_uncovers_the_next_is_followed_in_the_same_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # vLLM stops at the first null token field: each delete uncovers the next one
    config = {key: value for key, value in NULL_ABOVE.items() if key != "mask_token_id"}
    config.update(dspark_noise_token_id=None, pard_token=None, ptd_token_id=5)
    path = _write(tmp_path / "config.json", config)
    before = path.read_text(encoding="utf-8")
    shown = _check(capsys, "--diff", path)
    assert path.read_text(encoding="utf-8") == before
    removed = [line for line in shown.lines if line.startswith("-  ")]
    assert len(removed) == 3, shown.out
    run = _check(capsys, "--fix", path)
    assert len([line for line in run.lines if ": fixed token-field-null" in line]) == 3
    assert "error token-field-null" not in run.out
    after = path.read_text(encoding="utf-8")
    # --diff showed exactly what --fix wrote
    assert [f"-{line}" for line in before.splitlines() if line not in after.splitlines()] == [
        line.rstrip("\n") for line in removed
    ]


@pytest.mark.parametrize("option", ["--fix", "--diff"])
def test_nothing_to_fix_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str
) -> None:
    path = _write(tmp_path / "config.json", ARCHITECTURES_STRING)
    _check(capsys, "--fix", path)
    run = _check(capsys, option, path)
    assert run.lines[0] == "nothing to fix"
    assert run.status == EXIT_OK


def test_a_quoted_token_id_is_unquoted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = {**ARCHITECTURES_STRING, "architectures": ["LlamaForCausalLM"], "pard_token": "5"}
    path = _write(tmp_path / "config.json", config)
    run = _check(capsys, "--fix", path)
    assert f"{path}: fixed token-not-int: set `pard_token` to 5 (line 6)" in run.lines
    assert json.loads(path.read_text(encoding="utf-8"))["pard_token"] == 5
    assert run.status == EXIT_OK, run.out


def test_a_bom_crlf_tab_file_comes_back_byte_exact_but_the_fixed_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = json.dumps(NULL_ABOVE, indent="\t").replace("\n", "\r\n")
    path = tmp_path / "config.json"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode() + b"\r\n")
    _check(capsys, "--fix", path)
    expected = text.replace('\r\n\t\t"mask_token_id": null,', "")
    assert path.read_bytes() == b"\xef\xbb\xbf" + expected.encode() + b"\r\n"


@pytest.mark.skipif(not hasattr(os, "link"), reason="no hard links")
def test_a_hard_linked_file_is_not_split(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path / "config.json", NULL_ABOVE)
    os.link(path, tmp_path / "other.json")
    run = _check(capsys, "--fix", path)
    assert f"{path}: not fixed: the file has 2 hard links" in run.out
    assert os.path.samefile(path, tmp_path / "other.json")


def test_the_summary_counts_the_findings_fix_mends(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nulls = _write(tmp_path / "a" / "config.json", NULL_ABOVE)
    clean = _write(tmp_path / "b" / "config.json", {**ARCHITECTURES_STRING, "architectures": ["X"]})
    assert _check(capsys, nulls, clean).lines[-1].endswith(", 1 fixable with --fix")
    config = {key: value for key, value in DSPARK.items() if key != "markov_rank"}
    config.update(dflash_config={"markov_rank": 256}, dspark_config={"markov_rank": 128})
    conflicting = _write(tmp_path / "c" / "config.json", config)
    run = _check(capsys, "--engine", "all", conflicting)
    assert "fixable" not in run.lines[-1]  # --fix applies neither of two edits that disagree


def test_without_a_copy_to_check_again_the_first_fixes_are_still_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_links(*_: object) -> None:
        raise OSError(1, "symbolic links are not permitted")

    monkeypatch.setattr(os, "symlink", no_links)
    path = _write(tmp_path / "config.json", NULL_ABOVE)
    (tmp_path / "tokenizer.json").write_text("{}", encoding="utf-8")
    run = _check(capsys, "--fix", path)
    assert f"{path}: fixed token-field-null" in run.out
    assert run.status == EXIT_OK


def test_edits_two_engines_disagree_on_are_marked_fixable_on_neither(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = {key: value for key, value in DSPARK.items() if key != "markov_rank"}
    config.update(dflash_config={"markov_rank": 256}, dspark_config={"markov_rank": 128})
    path = _write(tmp_path / "config.json", config)
    alone = _check(capsys, "--engine", "vllm", path)
    assert any("constructor-field-missing [*]" in line for line in alone.lines)
    both = _check(capsys, "--engine", "all", path)
    assert "constructor-field-missing markov_rank" in both.out
    assert "[*]" not in both.out
