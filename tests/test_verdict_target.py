"""A verdict's target is found from the draft's file as written: a speculators file's
verifier (``speculators_config.verifier.name_or_path``) is a field of the file, so that no
engine's verdict depends on another engine's reading of the draft (vLLM's speculators
translation among them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import drafting_config.engines.vllm.speculators as vllm_speculators
from drafting_config import check
from drafting_config.draft.file import (
    read_draft,
    speculators_verifier,
)
from drafting_config.engines import ENGINES, EngineName
from drafting_config.values.errors import ParallelDraftingConfigError
from tests.conftest import EXAMPLES, load_json

SPECULATORS = load_json(EXAMPLES / "speculators-dflash-qwen3-8b" / "config.json")
QWEN3_8B = {"vocab_size": 151936, "hidden_size": 4096, "num_hidden_layers": 36}


def _with_verifier(verifier: object, **top: object) -> dict[str, Any]:
    draft: dict[str, Any] = json.loads(json.dumps(SPECULATORS))
    draft["speculators_config"]["verifier"]["name_or_path"] = verifier
    draft.update(top)
    return draft


def _target(tmp_path: Path) -> str:
    (tmp_path / "qwen3").mkdir()
    (tmp_path / "qwen3" / "config.json").write_text(json.dumps(QWEN3_8B), encoding="utf-8")
    return str(tmp_path / "qwen3")


@pytest.mark.parametrize("engine", list(ENGINES))
def test_the_target_is_found_with_vllms_translation_refusing_the_file(
    engine: EngineName, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # vLLM's reading of the draft refuses it outright: the verifier is still the file's.
    def refuse(*args: object, **kwargs: object) -> object:
        raise ParallelDraftingConfigError("refused by a stand-in", field="speculators_config")

    monkeypatch.setattr(vllm_speculators, "translate", refuse)  # resolution imports it when used
    target = _target(tmp_path)
    verdict = check(_with_verifier(target), engine=engine, check_tokenizer=False)
    assert verdict.target == target
    assert f"target taken from the speculators verifier {target!r}" in verdict.notes


def test_a_verifier_beside_an_algorithm_vllm_does_not_know_is_the_target(
    tmp_path: Path,
) -> None:
    target = _target(tmp_path)
    draft = _with_verifier(target, speculators_model_type="no-such-algorithm")
    for engine in ENGINES:
        verdict = check(draft, engine=engine, check_tokenizer=False)
        assert verdict.target == target, engine


def test_the_verifier_is_read_only_from_a_speculators_file() -> None:
    assert speculators_verifier(read_draft(SPECULATORS)) == "Qwen/Qwen3-8B"
    hf = {"model_type": "qwen3", "speculators_config": SPECULATORS["speculators_config"]}
    assert speculators_verifier(read_draft(hf)) is None  # vLLM reads it as a Qwen3 config
    assert speculators_verifier(read_draft({"speculators_model_type": "dflash"})) is None
    unreadable = {"speculators_model_type": "dflash", "speculators_config": {"verifier": 3}}
    assert speculators_verifier(read_draft(unreadable)) is None  # never raises


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=6,
)


@given(value=_JSON)
def test_the_verifier_is_a_non_empty_string_as_written_or_none(value: object) -> None:
    draft = read_draft(_with_verifier(value))
    expected = value if isinstance(value, str) and value else None
    assert speculators_verifier(draft) == expected
