"""Foreign values real callers pass: int subclasses count, mocks and numpy ints are refused.

The policy (README, "Rules"): nothing is coerced and a value's type is what it
is, not what it claims; an exception raised while reading a field becomes our
error naming the field.
"""

from __future__ import annotations

from unittest.mock import Mock

import numpy as np
import pytest
from pydantic import ValidationError

from drafting_config import ParallelDraftingConfig, ParallelDraftingConfigError, check
from drafting_config.files.repo_ids import RepoIdError
from tests.foreign import RaisingContains, int_enum


def test_an_int_enum_token_id_and_sizes_count_as_their_int_value() -> None:
    config = ParallelDraftingConfig.from_hf_config(
        {"pard_token": int_enum(5), "vocab_size": int_enum(6), "hidden_size": int_enum(8)}
    )
    assert (config.token_id, config.vocab_size, config.hidden_size) == (5, 6, 8)
    assert type(config.token_id) is int
    with pytest.raises(ParallelDraftingConfigError, match=r"\[0, 5\)"):
        ParallelDraftingConfig.from_hf_config({"pard_token": 6, "vocab_size": int_enum(5)})


@pytest.mark.parametrize("field", ["pard_token", "vocab_size", "hidden_size", "ptd_token_id"])
def test_a_mock_of_an_int_is_refused_naming_the_field(field: str) -> None:
    base = {"ptd_token_id": 1} if field != "ptd_token_id" else {"pard_token": 1}
    with pytest.raises(ParallelDraftingConfigError) as info:
        ParallelDraftingConfig.from_hf_config({**base, field: Mock(spec=int)})
    assert info.value.field == field
    with pytest.raises(ValidationError) as validation:
        ParallelDraftingConfig.model_validate({**base, field: Mock(spec=int)})
    assert validation.value.errors()[0]["ctx"]["error"].field == field


@pytest.mark.parametrize("field", ["pard_token", "vocab_size"])
def test_numpy_integers_are_refused_with_a_message_to_convert_them(field: str) -> None:
    base = {"pard_token": 1} if field != "pard_token" else {}
    with pytest.raises(ParallelDraftingConfigError) as info:
        ParallelDraftingConfig.from_hf_config({**base, field: np.int64(7)})
    assert info.value.field == field
    assert str(info.value).endswith(" int64 is not a Python int: convert it with int(x).")
    assert "int(x)" not in str(check({"pard_token": "7"}, check_tokenizer=False).errors[0])


def test_a_mapping_whose_reads_raise_is_our_error() -> None:
    with pytest.raises(ValidationError, match="RuntimeError: no membership tests"):
        ParallelDraftingConfig.model_validate(RaisingContains())
    with pytest.raises(ParallelDraftingConfigError, match="no membership tests"):
        ParallelDraftingConfig.from_hf_config(RaisingContains())


def test_a_property_that_raises_is_our_error_naming_the_field() -> None:
    class Config:
        @property
        def pard_token(self) -> int:
            raise KeyError("not loaded")

    with pytest.raises(ParallelDraftingConfigError) as info:
        ParallelDraftingConfig.from_hf_config(Config())
    assert info.value.field == "pard_token"
    assert str(info.value) == (
        "Could not read `pard_token` from the draft model's config: KeyError: 'not loaded'"
    )


@pytest.mark.parametrize("flag", ["false", 0, None, int_enum(1), Mock()], ids=repr)
def test_flags_must_be_real_bools(flag: object) -> None:
    verdict = check({"mask_token_id": 5}, check_tokenizer=flag)  # type: ignore[arg-type]
    assert [e.field for e in verdict.errors] == [None]
    assert "`check_tokenizer` must be True or False" in str(verdict.errors[0])
    weights = check({"mask_token_id": 5}, check_weights=flag)  # type: ignore[arg-type]
    assert [e.field for e in weights.errors] == [None]
    assert "`check_weights` must be True or False" in str(weights.errors[0])
    downloading = check("org/name", download=flag)  # type: ignore[arg-type]
    assert "`download` must be True or False" in str(downloading.errors[0])


@pytest.mark.parametrize("revision", [Mock(spec=str), 3], ids=["mock-str", "int"])
def test_a_revision_that_is_not_a_str_is_refused(revision: object) -> None:
    (error,) = check("org/name", revision=revision).errors  # type: ignore[arg-type]
    assert isinstance(error, RepoIdError)
    assert str(error).startswith("revision ")
