"""Hostile values in every integer field: the true value counts, or our error names the field.

The rule (integers.py): an ``int`` subclass counts as ``int.__int__(value)``, so
its own lying or raising ``__int__``, ``__index__`` or comparisons change
nothing; anything whose type is not an ``int`` subclass is refused, however it
disguises itself.  No foreign dunder is ever called.
"""

from __future__ import annotations

from collections.abc import Callable
from unittest.mock import Mock

import pytest
from pydantic import ValidationError

from drafting_config import ParallelDraftingConfig, ParallelDraftingConfigError
from tests.hostile import LyingInt, PretendsToBeInt, RaisingClass, RaisingContains, RaisingInt

TRUE_VALUE = 5

INT_SUBCLASSES: dict[str, Callable[[], int]] = {
    "lying": lambda: LyingInt(TRUE_VALUE),  # its __int__ says 7
    "raising": lambda: RaisingInt(TRUE_VALUE),
}

DISGUISED: dict[str, Callable[[], object]] = {
    "mock-spec-int": lambda: Mock(spec=int),
    "lying-class": PretendsToBeInt,
    "raising-class": RaisingClass,
}


@pytest.mark.parametrize("kind", sorted(INT_SUBCLASSES))
def test_an_int_subclass_token_id_resolves_to_its_true_value(kind: str) -> None:
    config = ParallelDraftingConfig.from_hf_config({"pard_token": INT_SUBCLASSES[kind]()})
    assert config.token_id == TRUE_VALUE
    assert type(config.token_id) is int


@pytest.mark.parametrize("field", ["vocab_size", "hidden_size"])
@pytest.mark.parametrize("kind", sorted(INT_SUBCLASSES))
def test_an_int_subclass_size_counts_as_its_true_value(kind: str, field: str) -> None:
    config = ParallelDraftingConfig.from_hf_config({"pard_token": 1, field: INT_SUBCLASSES[kind]()})
    assert getattr(config, field) == TRUE_VALUE


def test_a_lying_vocab_size_bounds_by_its_true_value() -> None:
    # LyingInt(5) claims 7 through __int__: id 6 must be out of range all the same.
    with pytest.raises(ParallelDraftingConfigError, match=r"\[0, 5\)") as info:
        ParallelDraftingConfig.from_hf_config({"pard_token": 6, "vocab_size": LyingInt(5)})
    assert info.value.field == "pard_token"


@pytest.mark.parametrize("field", ["pard_token", "vocab_size", "hidden_size", "ptd_token_id"])
@pytest.mark.parametrize("kind", sorted(DISGUISED))
def test_disguised_non_ints_are_refused_naming_the_field(kind: str, field: str) -> None:
    base = {"ptd_token_id": 1} if field != "ptd_token_id" else {"pard_token": 1}
    with pytest.raises(ParallelDraftingConfigError) as info:
        ParallelDraftingConfig.from_hf_config({**base, field: DISGUISED[kind]()})
    assert info.value.field == field
    with pytest.raises(ValidationError) as validation:
        ParallelDraftingConfig.model_validate({**base, field: DISGUISED[kind]()})
    assert validation.value.errors()[0]["ctx"]["error"].field == field


def test_model_validate_of_a_mapping_whose_contains_raises_is_a_validation_error() -> None:
    with pytest.raises(ValidationError, match="RuntimeError: no membership tests"):
        ParallelDraftingConfig.model_validate(RaisingContains())
    with pytest.raises(ParallelDraftingConfigError, match="no membership tests"):
        ParallelDraftingConfig.from_hf_config(RaisingContains())


def test_the_model_validator_sees_the_original_error_and_field() -> None:
    with pytest.raises(ValidationError) as info:
        ParallelDraftingConfig.model_validate({"mask_token_id": "7"})
    original = info.value.errors()[0]["ctx"]["error"]
    assert isinstance(original, ParallelDraftingConfigError)
    assert original.field == "mask_token_id"
