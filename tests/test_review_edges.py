"""The edges an adversarial review found broken (issue 17): each test fails without its fix.

Grouped as the review grouped them: check() never raises and sweeps keep their
verdicts; errors say what to change in the file the user has; the documented
promises; the masked-slot layouts; start-up and signals.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from drafting_config import check
from drafting_config.cli import main
from tests.conftest import REPO
from tests.fake_cache import use_cache

DFLASH = "examples/dflash-qwen3-4b"
SPECULATORS = "examples/speculators-dflash-qwen3-8b"


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run from the repository root, with an empty Hugging Face cache of our own."""
    monkeypatch.chdir(REPO)
    return use_cache(tmp_path / "hf-cache", monkeypatch)


def run_cli(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    status = main([os.fspath(arg) for arg in args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def speculators_config(**top: object) -> dict[str, Any]:
    """The bundled speculators DFlash example, with top-level keys replaced."""
    data: dict[str, Any] = json.loads((REPO / SPECULATORS / "config.json").read_text())
    for key, value in top.items():
        if value is KeyError:
            data.pop(key, None)
        else:
            data[key] = value
    return data


# ------------------------------------------------ 4: the speculators field the file lacks


@pytest.mark.parametrize("algorithm", ["dflash", "dspark"])
@pytest.mark.parametrize("mask", [KeyError, None], ids=["missing", "null"])
def test_a_speculators_draft_without_a_mask_id_is_told_to_set_mask_token_id(
    algorithm: str, mask: object
) -> None:
    config = speculators_config(speculators_model_type=algorithm, mask_token_id=mask)
    verdict = check(config, check_tokenizer=False)
    assert not verdict.ok
    first = verdict.errors[0]
    assert first.field == "mask_token_id"
    assert "`mask_token_id`" in str(first)
    assert "pard_token" not in str(first)


# ------------------------------------------------ 5: --strict --json says why ok is false


def test_strict_json_lists_the_warnings_that_failed_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    draft = tmp_path / "draft"
    draft.mkdir()
    config = {"pard_token": 2, "pad_token_id": 2, "vocab_size": 100}  # a placeholder warning
    (draft / "config.json").write_text(json.dumps(config))
    status, out, _ = run_cli(capsys, "check", "--json", "--strict", "--no-tokenizer", draft)
    (item,) = json.loads(out)
    assert status == 1
    assert item["ok"] is False
    assert (item["token_id"], item["source"]) == (2, "pard_token")
    assert item["warnings"]
    assert item["errors"] == [
        {"field": None, "message": f"--strict: {warning}"} for warning in item["warnings"]
    ]
    assert item["error"] == item["errors"][0]["message"]
    # Without --strict the same draft passes, and nothing is listed as an error.
    status, out, _ = run_cli(capsys, "check", "--json", "--no-tokenizer", draft)
    (item,) = json.loads(out)
    assert (status, item["ok"], item["errors"], item["error"]) == (0, True, [], None)


# ------------------------------------------------ 6: explain --json is strict JSON


def strict_json(text: str) -> Any:
    def refuse(constant: str) -> None:
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity"])
def test_explain_json_renders_non_finite_values_as_strings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    draft = tmp_path / "draft"
    draft.mkdir()
    (draft / "config.json").write_text(
        f'{{"pard_token": {value}, "mask_token_id": 5, "vocab_size": 100}}'
    )
    status, out, _ = run_cli(capsys, "explain", "--json", "--no-tokenizer", draft)
    document = strict_json(out)
    (pard,) = [row for row in document["fields"] if row["field"] == "pard_token"]
    assert pard["value"] == value
    assert pard["status"] == "invalid"
    assert status == 1  # the config is still read, and the float still refused


# ------------------------------------------------ 9: the CLI names the inner path


def test_cli_names_a_config_json_that_is_a_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "model" / "config.json").mkdir(parents=True)
    status, out, _ = run_cli(capsys, "check", tmp_path / "model")
    assert status == 1
    assert out.splitlines()[0] == (
        f"{tmp_path / 'model'}: INVALID: {tmp_path / 'model' / 'config.json'}: "
        "this is a directory; expected a config.json file."
    )
    status, out, _ = run_cli(capsys, "check", "--json", tmp_path / "model")
    (item,) = json.loads(out)
    assert item["error"] == (
        f"{tmp_path / 'model' / 'config.json'}: this is a directory; expected a config.json file."
    )


# ------------------------------------------------ 14: config objects say the tokenizer was skipped


def test_a_config_object_against_a_config_object_target_notes_the_tokenizer() -> None:
    draft = {"dflash_config": {"mask_token_id": 151669}, "vocab_size": 151936}
    target = SimpleNamespace(vocab_size=151936, hidden_size=2560, num_hidden_layers=36)
    verdict = check(draft, target=target)
    assert verdict.ok
    assert [n for n in verdict.notes if n.startswith("tokenizer not checked: ")] == [
        "tokenizer not checked: a config object has no directory to look in; pass tokenizer=DIR"
    ]
    assert check(draft, target=target, check_tokenizer=False).notes == ()
