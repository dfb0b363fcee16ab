"""Findings are data: every finding has a declared code, the docs' code
page is the table, and ``--ignore`` and ``[tool.drafting-config]`` act on the codes."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from drafting_config import check
from drafting_config.cli.code_page import code_page
from drafting_config.cli.run import EXIT_INVALID, EXIT_OK, EXIT_USAGE
from drafting_config.engines import ENGINE_NAMES, ENGINES
from drafting_config.values.codes import CODES, Step
from drafting_config.values.findings import Note
from tests.conftest import REPO, run_cli
from tests.engines.vllm import TOKENS_READ_ENGINE as VLLM
from tests.engines.vllm import tokens_read  # noqa: F401 (a fixture)

pytestmark = pytest.mark.usefixtures("tokens_read")
"""The token rules of PTD and PARD drafts, judged on the newest vLLM release that reads their
token (later releases serve such drafts sequentially, the token unused)."""

CORPUS = sorted((REPO / "tests" / "real_configs" / "drafts").glob("*.json"))
EXAMPLES = sorted(path.parent for path in (REPO / "examples").rglob("config.json"))
PLACEHOLDER = REPO / "tests/real_configs/drafts/specforge--longcat-flash-dflash.json"
"""A corpus draft whose only finding above a note is a `token-placeholder` warning."""


def test_the_code_page_is_the_table() -> None:
    page = (REPO / "docs" / "codes.md").read_text(encoding="utf-8")
    assert page == code_page(), "regenerate: python -m drafting_config.cli.code_page"
    for code in CODES.values():
        assert f"| `{code.name}` |" in page


def test_every_step_has_codes_and_every_code_a_step() -> None:
    assert {code.step for code in CODES.values()} == set(Step)


@pytest.mark.parametrize("engine", list(ENGINES))
@pytest.mark.parametrize("draft", CORPUS + EXAMPLES, ids=lambda path: path.name)
def test_every_finding_of_the_corpus_and_examples_has_a_declared_code(
    draft: Path, engine: str
) -> None:
    verdict = check(draft, engine=engine)  # type: ignore[arg-type]
    for finding in (*verdict.errors, *verdict.warnings, *verdict.notes):
        code = getattr(finding, "code", None)
        assert code is not None, f"no code: {finding}"
        assert CODES[code.name] is code


def test_a_note_is_a_string_with_a_code() -> None:
    verdict = check(REPO / "examples/dflash-qwen3-4b", check_tokenizer=False)
    (note,) = (note for note in verdict.notes if note.startswith("target not checked"))
    assert note == "target not checked: no target given"
    assert isinstance(note, Note)
    assert note.code is CODES["target-not-given"]
    assert note.step is Step.TARGET
    copy = pickle.loads(pickle.dumps(note))
    assert (copy, copy.code) == (note, note.code)


def test_json_findings_carry_code_step_severity_engine_and_field(
    capsys: pytest.CaptureFixture[str],
) -> None:
    run = run_cli(
        capsys, "check", "--json", "--no-tokenizer", REPO / "examples/invalid/pard-token-as-string"
    )
    (item,) = run.json
    first = item["findings"][0]
    assert first["severity"] == "error"
    assert first["code"] == "token-not-int"
    assert first["step"] == "token"
    assert first["field"] == "pard_token"
    assert first["engine"] == f"{VLLM}"
    assert item["errors"][0]["code"] == "token-not-int"
    assert {row["severity"] for row in item["findings"]} >= {"error", "note"}


def test_ignore_drops_one_known_warning_for_strict(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(capsys, "check", "--strict", PLACEHOLDER).status == EXIT_INVALID
    run = run_cli(capsys, "check", "--strict", "--ignore", "token-placeholder", PLACEHOLDER)
    assert run.status == EXIT_OK
    assert "token-placeholder" not in run.out


def test_ignore_of_an_unknown_code_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    run = run_cli(capsys, "check", "--ignore", "no-such-code", PLACEHOLDER)
    assert run.status == EXIT_USAGE
    assert "unknown code no-such-code" in run.err


def test_ignore_of_an_error_code_is_a_usage_error_naming_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # An error means the engine refuses the draft: once, `--ignore token-not-int` passed it.
    draft = REPO / "examples/invalid/pard-token-as-string"
    run = run_cli(capsys, "check", "--no-tokenizer", "--ignore", "token-not-int", draft)
    assert run.status == EXIT_USAGE
    assert "--ignore names the error code token-not-int" in run.err
    assert run.out == ""


def test_the_nearest_pyproject_table_is_read_and_flags_win(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.drafting-config]\nstrict = true\nengine = "all"\n', encoding="utf-8"
    )
    (tmp_path / ".git").mkdir()  # the repository's root: the search stops there
    below = tmp_path / "sub" / "dir"
    below.mkdir(parents=True)
    monkeypatch.chdir(below)
    run = run_cli(capsys, "check", "--no-tokenizer", PLACEHOLDER)
    assert run.status == EXIT_INVALID  # strict from the table: the warning fails
    assert f"  {ENGINE_NAMES['sglang']}: " in run.out  # engine = "all" from the table
    run = run_cli(capsys, "check", "--no-tokenizer", "--engine", "vllm", PLACEHOLDER)
    assert "sglang" not in run.out  # the flag wins


def test_config_file_overrides_the_pyproject_and_ignore_adds_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.drafting-config]\nstrict = true\n", encoding="utf-8"
    )
    other = tmp_path / "ci.toml"
    other.write_text(
        '[tool.drafting-config]\nstrict = true\nignore = ["token-placeholder"]\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    assert run_cli(capsys, "check", "--no-tokenizer", PLACEHOLDER).status == EXIT_INVALID
    run = run_cli(capsys, "check", "--no-tokenizer", "--config", other, PLACEHOLDER)
    assert run.status == EXIT_OK


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ("colour = true", "unknown keys colour"),
        ('ignore = ["no-such-code"]', "unknown codes: no-such-code"),
        ('strict = "yes"', "`strict` must be true or false"),
        ('engine = "tgi"', "`engine` must be one of"),
    ],
)
def test_a_bad_table_is_a_usage_error(
    table: str,
    said: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[tool.drafting-config]\n{table}\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    run = run_cli(capsys, "check", PLACEHOLDER)
    assert run.status == EXIT_USAGE
    assert said in run.err
