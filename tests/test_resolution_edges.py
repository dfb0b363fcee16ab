"""Exact texts of the warnings and errors users read (found by mutation testing)."""

from __future__ import annotations

import pytest

from drafting_config import ParallelDraftingConfig, ParallelDraftingConfigError
from drafting_config.values.errors import (
    ConflictingTokenIdWarning,
    PlaceholderTokenIdWarning,
    foreign_error,
)


def test_the_eagle_disagreement_warning_says_what_to_do() -> None:
    with pytest.warns(ConflictingTokenIdWarning) as record:
        config = ParallelDraftingConfig.from_hf_config(
            {"dflash_config": {"mask_token_id": 5}, "eagle_config": {"mask_token_id": 6}}
        )
    assert config.token_id == 5
    [warning] = record
    assert str(warning.message) == (
        "`dflash_config.mask_token_id` = 5 and `eagle_config.mask_token_id` = 6 disagree. "
        "Engines feed 5, but some model classes (vLLM's Qwen3 DFlash/DSpark) merge "
        "`eagle_config` into `dflash_config` and embed their mask slots as 6, and nothing "
        "fails. Set `eagle_config.mask_token_id` to 5 or remove it."
    )


def test_the_placeholder_warning_shows_the_special_value() -> None:
    with pytest.warns(PlaceholderTokenIdWarning) as record:
        ParallelDraftingConfig.from_hf_config({"pard_token": 2, "eos_token_id": [7, 2]})
    [warning] = record
    assert str(warning.message) == (
        "The parallel drafting token id 2 (from `pard_token`) equals the config's "
        "`eos_token_id` ([7, 2] (list)): a placeholder copied from a special token makes "
        "every masked slot look like that token and ruins acceptance rates. Use a dedicated "
        "mask token id."
    )


class _RaisingConfig:
    @property
    def pard_token(self) -> int:
        raise RuntimeError("boom")


def test_an_unreadable_field_is_named_with_what_it_raised() -> None:
    with pytest.raises(ParallelDraftingConfigError) as info:
        ParallelDraftingConfig.from_hf_config(_RaisingConfig())
    assert info.value.field == "pard_token"
    assert str(info.value) == (
        "Could not read `pard_token` from the draft model's config: RuntimeError: boom"
    )


def test_a_foreign_error_is_quoted_up_to_200_characters() -> None:
    whole = foreign_error("Reading x", RuntimeError("a" * 200), field="x")
    assert str(whole) == "Reading x: RuntimeError: " + "a" * 200
    assert whole.field == "x"
    cut = foreign_error("Reading x", RuntimeError("a" * 201), field=None)
    assert str(cut) == "Reading x: RuntimeError: " + "a" * 197 + "..."
