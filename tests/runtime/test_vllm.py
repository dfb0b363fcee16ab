"""Exact edges of the vLLM drop-in's messages (found by mutation testing)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from drafting_config.integrations import vllm


def test_a_flag_that_is_not_a_bool_is_shown_in_the_error() -> None:
    proposer = SimpleNamespace(
        draft_model_config=SimpleNamespace(hf_config={"pard_token": 9}),
        pass_hidden_states_to_model="false",
        parallel_drafting_token_id=0,
    )
    with pytest.raises(ValueError, match="pass_hidden_states_to_model") as info:
        vllm.init_parallel_drafting_params(proposer)
    assert str(info.value) == (
        "The proposer's `pass_hidden_states_to_model` must be True or False, got 'false' (str)."
    )
    assert proposer.parallel_drafting_token_id == 0
