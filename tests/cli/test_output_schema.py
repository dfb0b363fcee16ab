"""The shipped schema of ``check --json`` (cli/output_schema.py): what it holds of a finding."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from drafting_config.cli.output_schema import OUTPUT_SCHEMA
from tests.cli.test_fix import NULL_ABOVE  # vLLM fails on it; `--fix` deletes the null
from tests.conftest import run_cli

jsonschema = pytest.importorskip("jsonschema")


def test_every_finding_says_whether_fix_mends_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(NULL_ABOVE), encoding="utf-8")
    run = run_cli(capsys, "check", "--json", "--no-tokenizer", "--no-weights", path)
    fixable = {row["code"]: row["fixable"] for row in run.json[0]["findings"]}
    assert fixable == {"token-field-null": True, "target-not-given": False}
    validator = jsonschema.Draft202012Validator(OUTPUT_SCHEMA)
    validator.validate(run.json)
    for broken in ("absent", "not a boolean"):
        document = copy.deepcopy(run.json)
        if broken == "absent":
            del document[0]["findings"][0]["fixable"]
        else:
            document[0]["findings"][0]["fixable"] = "yes"
        assert not validator.is_valid(document), broken
