"""The drafting-config command, run as a user runs it: the installed script, in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from drafting_config import PRIORITY_ORDER, ParallelDraftingConfig
from tests.bad_files import BAD_FILES
from tests.conftest import EXAMPLES, INVALID_EXAMPLES, REPO, VALID_EXAMPLES

SCRIPT = Path(sys.executable).with_name("drafting-config")
pytestmark = pytest.mark.slow


def run(*args: str | Path, module: bool = False) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "drafting_config"] if module else [str(SCRIPT)]
    result = subprocess.run(
        [*command, *map(str, args)], capture_output=True, text=True, cwd=REPO, check=False
    )
    assert "Traceback" not in result.stdout + result.stderr
    return result


def test_the_console_script_is_installed() -> None:
    assert SCRIPT.is_file(), "install the project (pip install -e '.[dev]') before testing"


def test_check_valid_examples() -> None:
    result = run("check", *VALID_EXAMPLES)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    dflash = f"{VALID_EXAMPLES[0].relative_to(REPO)}"
    assert lines[0].startswith(str(VALID_EXAMPLES[0]))
    assert "OK: token id 151669 from `dflash_config.mask_token_id`" in lines[0], dflash
    assert "    shadowed: `ptd_token_id` = 151669" in lines
    assert lines[-1] == f"{len(VALID_EXAMPLES)} checked: {len(VALID_EXAMPLES)} valid, 0 invalid"
    assert result.stderr == ""


def test_check_accepts_model_directories() -> None:
    result = run("check", EXAMPLES / "pard-llama3-1b")
    assert result.returncode == 0
    assert (
        "OK: token id 128020 from `pard_token` (hidden_size 2048, vocab_size 128256)"
        in result.stdout
    )


def test_check_reports_warnings(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"mask_token_id": 5, "pard_token": 6, "pad_token_id": 5}))
    result = run("check", path)
    assert result.returncode == 0  # warnings do not fail a check
    warnings = [line for line in result.stdout.splitlines() if line.startswith("    warning: ")]
    assert len(warnings) == 2
    assert "`mask_token_id` = 5 and `pard_token` = 6 disagree" in warnings[0]
    assert "equals the config's `pad_token_id`" in warnings[1]


def test_check_json_reports_every_path_in_order(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    paths = [INVALID_EXAMPLES[0], missing, *VALID_EXAMPLES]
    result = run("check", "--json", *paths)
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert [item["path"] for item in report] == [str(p) for p in paths]
    required = {"path", "ok", "token_id", "source", "warnings", "error"}
    assert all(required <= item.keys() for item in report)
    invalid, absent, *valid = report
    assert invalid["ok"] is False
    assert invalid["token_id"] is None
    assert invalid["error"].startswith("`pard_token` must be an integer token id")
    assert invalid["error_field"] == "pard_token"
    assert absent["ok"] is False
    assert "no such file or directory" in absent["error"]
    for item, path in zip(valid, VALID_EXAMPLES, strict=True):
        expected = ParallelDraftingConfig.from_pretrained(path)
        assert item["ok"] is True
        assert item["error"] is None
        assert (item["token_id"], item["source"]) == (expected.token_id, expected.source.value)
        assert item["shadowed"] == [s.model_dump(mode="json") for s in expected.shadowed]
        assert item["warnings"] == []


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_every_bad_file_gets_exit_1_and_a_one_line_reason(case: str, tmp_path: Path) -> None:
    make, phrase = BAD_FILES[case]
    path = make(tmp_path)
    result = run("check", path)
    assert result.returncode == 1
    first, summary = result.stdout.splitlines()
    assert first.startswith(f"{path}: INVALID: ")
    assert phrase in first
    assert summary == "1 checked: 0 valid, 1 invalid"


def test_one_bad_path_among_good_ones_fails_the_run_but_all_are_reported() -> None:
    result = run("check", VALID_EXAMPLES[0], INVALID_EXAMPLES[0], VALID_EXAMPLES[1])
    assert result.returncode == 1
    verdicts = [line for line in result.stdout.splitlines() if not line.startswith(" ")][:-1]
    assert [v.split(": ")[1] for v in verdicts] == ["OK", "INVALID", "OK"]


def test_explain_shows_each_field_with_its_status(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(
        json.dumps(
            {
                "dflash_config": {"target_layer_ids": [1]},
                "mask_token_id": None,
                "dspark_noise_token_id": 151669,
                "ptd_token_id": 151670,
            }
        )
    )
    result = run("explain", path)
    assert result.returncode == 0
    rows = [line.split() for line in result.stdout.splitlines()[2 : 2 + len(PRIORITY_ORDER)]]
    assert rows == [
        ["1", "dflash_config.mask_token_id", "-", "absent"],
        ["2", "mask_token_id", "null", "null"],
        ["3", "dspark_noise_token_id", "151669", "winner"],
        ["4", "pard_token", "-", "absent"],
        ["5", "ptd_token_id", "151670", "shadowed"],
    ]
    assert "OK: token id 151669 from `dspark_noise_token_id`" in result.stdout
    assert "warning: `dspark_noise_token_id` = 151669 and `ptd_token_id` = 151670" in result.stdout


def test_explain_an_invalid_config() -> None:
    result = run("explain", INVALID_EXAMPLES[0])
    assert result.returncode == 1
    assert "'151665' (str)  invalid" in result.stdout
    assert "INVALID: `pard_token` must be an integer token id" in result.stdout


def test_explain_an_unreadable_file(tmp_path: Path) -> None:
    result = run("explain", tmp_path / "absent.json")
    assert result.returncode == 1
    assert "INVALID: no such file or directory" in result.stdout


def test_schema_is_the_models_json_schema() -> None:
    result = run("schema")
    assert result.returncode == 0
    assert json.loads(result.stdout) == ParallelDraftingConfig.model_json_schema()


@pytest.mark.parametrize(
    "args",
    [
        (),
        ("check",),
        ("frobnicate",),
        ("check", "--yaml", "x"),
        ("explain",),
        ("explain", "a", "b"),
    ],
)
def test_usage_errors_exit_2(args: tuple[str, ...]) -> None:
    result = run(*args)
    assert result.returncode == 2
    assert "usage: drafting-config" in result.stderr


def test_help_and_version_exit_0() -> None:
    assert run("--help").returncode == 0
    version = run("--version")
    assert version.returncode == 0
    assert version.stdout.startswith("drafting-config ")


def test_python_dash_m_is_the_same_command() -> None:
    assert run("check", *VALID_EXAMPLES, module=True).stdout == run("check", *VALID_EXAMPLES).stdout


def test_check_imports_neither_torch_nor_transformers() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-m",
            "drafting_config",
            "check",
            *map(str, VALID_EXAMPLES),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    imported = {line.split("|")[-1].strip() for line in result.stderr.splitlines() if "|" in line}
    assert "drafting_config.resolution" in imported  # the trace is real
    assert not {name for name in imported if name.split(".")[0] in {"torch", "transformers"}}
    # Nor pydantic's model machinery: that keeps sweeps fast (see benchmarks/).
    assert "pydantic.main" not in imported


def test_output_to_a_closed_pipe_is_quiet(tmp_path: Path) -> None:
    # `drafting-config check ... | head -1`: the reader leaves after one line,
    # while megabytes of output are still to be written.
    listing = tmp_path / "paths.txt"
    listing.write_text("\n".join(str(p) for p in VALID_EXAMPLES * 4000))
    script = f"mapfile -t P < '{listing}'; '{SCRIPT}' check \"${{P[@]}}\" | head -1"
    result = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True)
    assert result.stdout.startswith(str(VALID_EXAMPLES[0]))
    assert result.stdout.count("\n") == 1
    assert result.stderr == ""


def test_a_path_that_is_not_utf8_is_reported(tmp_path: Path) -> None:
    name = os.fsencode(tmp_path) + b"/caf\xe9.json"  # Latin-1 bytes in a file name
    with open(name, "wb") as file:
        file.write(b'{"pard_token": 3}')
    for args in ([b"check", name], [b"check", b"--json", name], [b"explain", name]):
        result = subprocess.run([os.fsencode(SCRIPT), *args], capture_output=True, check=False)
        assert result.returncode == 0, result.stderr
        assert b"Traceback" not in result.stderr
        assert b"caf" in result.stdout
        assert b"token" in result.stdout


def test_explain_marks_a_token_outside_the_vocabulary_invalid(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"pard_token": 200, "ptd_token_id": 7, "vocab_size": 100}))
    result = run("explain", path)
    assert result.returncode == 1
    rows = [line.split() for line in result.stdout.splitlines()[2 : 2 + len(PRIORITY_ORDER)]]
    assert rows[3] == ["4", "pard_token", "200", "invalid"]
    assert rows[4] == ["5", "ptd_token_id", "7", "valid"]  # unused: a higher field is invalid
    assert "INVALID: `pard_token` = 200 is out of range" in result.stdout


def test_check_reads_paths_from_stdin() -> None:
    listing = "\n".join(str(p) for p in VALID_EXAMPLES) + "\n\n"
    result = subprocess.run(
        [str(SCRIPT), "check", "--json", str(INVALID_EXAMPLES[0]), "-"],
        input=listing,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert [item["path"] for item in report] == [str(INVALID_EXAMPLES[0])] + [
        str(p) for p in VALID_EXAMPLES
    ]
