"""Hostile values in every integer field: the true value counts, or our error names the field.

The rule (integers.py): an ``int`` subclass counts as ``int.__int__(value)``, so
its own lying or raising ``__int__``, ``__index__`` or comparisons change
nothing; anything whose type is not an ``int`` subclass is refused, however it
disguises itself.  No foreign dunder is ever called.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from unittest.mock import Mock

import pytest
from pydantic import ValidationError

from drafting_config import ParallelDraftingConfig, ParallelDraftingConfigError, check
from drafting_config.repo_ids import RepoIdError, RepoNotCachedError
from tests.hostile import (
    EqRaisingMeta,
    GetattributeRaisingMeta,
    HashRaisingMeta,
    HostileStr,
    LyingInt,
    PretendsToBeInt,
    RaisingClass,
    RaisingContains,
    RaisingInt,
    TokenIdMapping,
    instance_of,
)

TRUE_VALUE = 5


def repr_safe(value: object) -> str:
    """A test id for a value whose own repr may raise."""
    return type(value).__name__


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


METACLASSES = {
    "hash-raising": HashRaisingMeta,
    "eq-raising": EqRaisingMeta,
    "getattribute-raising": GetattributeRaisingMeta,
}


@pytest.mark.parametrize("name", sorted(METACLASSES))
@pytest.mark.parametrize(
    "place", ["config", "pad_token_id", "dflash_config", "target", "speculators_config"]
)
def test_hostile_metaclasses_anywhere_give_our_error_never_an_escape(name: str, place: str) -> None:
    hostile = instance_of(METACLASSES[name])
    draft: object = {"mask_token_id": 5}
    target: object = None
    if place == "config":
        draft = hostile
    elif place == "target":
        target = hostile
    elif place == "speculators_config":
        draft = {"speculators_model_type": "dflash", "speculators_config": hostile}
    else:
        draft = {"mask_token_id": 5, place: hostile}
    verdict = check(draft, target=target, check_tokenizer=False)  # never raises
    assert all(isinstance(error, ParallelDraftingConfigError) for error in verdict.errors)
    with contextlib.suppress(ParallelDraftingConfigError):  # our error, or a config
        ParallelDraftingConfig.from_hf_config(draft, target=target)
    if target is None:
        with contextlib.suppress(ValidationError):
            ParallelDraftingConfig.model_validate(draft)


def test_an_own_form_mapping_whose_reads_raise_is_our_error() -> None:
    with pytest.raises(ParallelDraftingConfigError, match="no items for you"):
        ParallelDraftingConfig.from_hf_config(TokenIdMapping())
    with pytest.raises(ValidationError, match="no items for you"):
        ParallelDraftingConfig.model_validate(TokenIdMapping())


HOSTILE_REVISIONS: dict[str, Callable[[], object]] = {
    "hostile-str": lambda: HostileStr("main"),
    "lying-class": PretendsToBeInt,
    "raising-class": RaisingClass,
    "lying-int": lambda: LyingInt(3),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_REVISIONS))
def test_hostile_revisions_are_read_by_their_plain_value_or_refused(name: str) -> None:
    # Built inside the test: pytest itself would trip over them as parameters.
    verdict = check("org/name", revision=HOSTILE_REVISIONS[name]())  # type: ignore[arg-type]
    (error,) = verdict.errors
    if name == "hostile-str":  # read as its plain text, "main": a well-formed revision
        assert isinstance(error, RepoNotCachedError)
    else:
        assert isinstance(error, RepoIdError)
        assert error.parameter == "revision"


@pytest.mark.parametrize("flag", ["false", 0, None, LyingInt(1), Mock()], ids=repr_safe)
def test_flags_must_be_real_bools(flag: object) -> None:
    verdict = check({"mask_token_id": 5}, check_tokenizer=flag)  # type: ignore[arg-type]
    assert [e.field for e in verdict.errors] == [None]
    assert "`check_tokenizer` must be True or False" in str(verdict.errors[0])
    weights = check({"mask_token_id": 5}, check_weights=flag)  # type: ignore[arg-type]
    assert [e.field for e in weights.errors] == [None]
    assert "`check_weights` must be True or False" in str(weights.errors[0])
    downloading = check("org/name", download=flag)  # type: ignore[arg-type]
    assert "`download` must be True or False" in str(downloading.errors[0])
