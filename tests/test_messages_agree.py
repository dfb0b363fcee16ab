"""Messages that agree (issue 30, point 6): a verdict's headline and its findings never
contradict each other.  The case that did: a headline saying "a field set to null counts as
unset" above vLLM's error that a present ``dflash_config.mask_token_id: null`` is read."""

from __future__ import annotations

import pytest

from drafting_config import check
from drafting_config.engines import ENGINES
from drafting_config.engines.vllm import codes as vllm_codes
from drafting_config.values import codes

_DRAFT = {
    "architectures": ["DFlashDraftModel"],
    "model_type": "qwen3",
    "vocab_size": 1000,
    "hidden_size": 64,
    "num_hidden_layers": 1,
    "dflash_config": {"target_layer_ids": [1, 2]},
}

_NULL_CASES: dict[str, dict[str, object]] = {
    "the nested id null, no other": {"mask_token_id": None},
    "the nested id null above a top-level id": {"mask_token_id": None, "top": 5},
    "a lower field null too": {"mask_token_id": None, "pard_token": None},
}


def _config(case: dict[str, object]) -> dict[str, object]:
    nested = {"target_layer_ids": [1, 2], "mask_token_id": case["mask_token_id"]}
    config: dict[str, object] = {**_DRAFT, "dflash_config": nested}
    if "top" in case:
        config["mask_token_id"] = case["top"]
    if "pard_token" in case:
        config["pard_token"] = case["pard_token"]
    return config


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", list(_NULL_CASES))
def test_no_finding_says_null_is_unset_where_the_engine_reads_the_null(
    engine: str, case: str
) -> None:
    verdict = check(_config(_NULL_CASES[case]), engine=engine)  # type: ignore[arg-type]
    texts = [str(finding) for finding in (*verdict.errors, *verdict.warnings, *verdict.notes)]
    reads_the_null = any(error.code is vllm_codes.TOKEN_FIELD_NULL for error in verdict.errors)
    if reads_the_null:  # this engine reads the null: nothing may call it unset
        assert not any("counts as unset" in text or "as unset" in text for text in texts), texts
    if engine == "vllm":  # vLLM reads any present null but a top-level mask_token_id
        assert reads_the_null
        assert not verdict.ok
    else:  # SGLang skips the null: it must not be blamed on it
        assert not reads_the_null


def test_the_headline_of_a_draft_with_no_token_names_no_null_rule() -> None:
    verdict = check(_config(_NULL_CASES["the nested id null, no other"]), engine="vllm")
    headline = str(verdict.errors[0])
    assert verdict.errors[0].code is codes.TOKEN_MISSING
    assert "null" not in headline
    null_error = next(e for e in verdict.errors if e.code is vllm_codes.TOKEN_FIELD_NULL)
    assert null_error.field == "dflash_config.mask_token_id"
