"""Reading fields: exactly ``mapping.get`` or ``getattr``; nothing cached, nothing leaked."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any, ClassVar
from unittest.mock import Mock

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError
from transformers import EuroBertConfig, LlamaConfig, PreTrainedConfig, Qwen3Config

from drafting_config import (
    ParallelDraftingConfig,
    ParallelDraftingConfigError,
    TokenIdSource,
    check,
)
from drafting_config.files.repo_ids import RepoIdError
from drafting_config.values.fields import MISSING, field_getter
from tests.engines.vllm import PARALLEL_SWITCH
from tests.foreign import RaisingContains, RaisingGet, Unusable, int_enum


class AliasedConfig(PreTrainedConfig):
    model_type = "drafting-config-test-aliased"
    attribute_map: ClassVar[dict[str, str]] = {"pard_token": "mask_slot"}


class DefaultedConfig(PreTrainedConfig):
    model_type = "drafting-config-test-defaulted"
    mask_token_id: int | None = 32


CLASSES: list[type[PreTrainedConfig]] = [
    PreTrainedConfig,
    Qwen3Config,
    LlamaConfig,
    EuroBertConfig,
    AliasedConfig,
    DefaultedConfig,
]

READ_FIELDS = sorted(
    {source.section or source.key for source in TokenIdSource}
    | {"text_config", "eagle_config", "hidden_size", "vocab_size", "mask_slot"}
    | {"pad_token_id", "bos_token_id", "eos_token_id"}
)
"""Top-level fields the resolver reads (a section by its own name), and an aliased one."""

config_dicts = st.fixed_dictionaries(
    {},
    optional={
        "mask_token_id": st.integers(0, 1000),
        "pard_token": st.integers(0, 1000),
        "mask_slot": st.integers(0, 1000),
        "vocab_size": st.integers(1001, 2000),
    },
)


@given(st.sampled_from(CLASSES), config_dicts)
def test_transformers_configs_are_read_exactly_as_getattr_reads_them(
    cls: type[PreTrainedConfig], raw: dict[str, Any]
) -> None:
    config = cls.from_dict(raw)
    get = field_getter(config, "")
    for name in READ_FIELDS:
        assert get(name, MISSING) == getattr(config, name, MISSING)


def test_class_attributes_set_later_are_seen() -> None:
    # A per-class cache would miss this: the class changes after one object was read.
    class Patched(PreTrainedConfig):
        model_type = "drafting-config-test-patched"

    assert ParallelDraftingConfig.from_hf_config(Patched.from_dict({"pard_token": 4})).token_id == 4
    Patched.mask_token_id = 9  # type: ignore[attr-defined]
    with pytest.warns(UserWarning, match="`mask_token_id` = 9"):
        config = ParallelDraftingConfig.from_hf_config(Patched.from_dict({"pard_token": 4}))
    assert (config.token_id, config.source) == (9, TokenIdSource.MASK_TOKEN_ID)


def test_no_class_is_kept_alive() -> None:
    class Ephemeral:
        pard_token = 3

    ParallelDraftingConfig.from_hf_config(Ephemeral())
    ref = weakref.ref(Ephemeral)
    del Ephemeral
    gc.collect()
    assert ref() is None


def test_objects_without_an_instance_dict_are_read() -> None:
    class Slotted:
        __slots__ = ("pard_token",)

        def __init__(self) -> None:
            self.pard_token = 8

    assert ParallelDraftingConfig.from_hf_config(Slotted()).token_id == 8


UNUSABLE_CONFIGS: dict[str, Callable[[], object]] = {
    "raising-get": RaisingGet,
    "raising-properties": Unusable,
    "mock-dict": lambda: Mock(spec=dict),
    "mock-int": lambda: Mock(spec=int),
}


@pytest.mark.parametrize("name", sorted(UNUSABLE_CONFIGS))
def test_unusable_configs_give_our_error(name: str) -> None:
    with pytest.raises(ParallelDraftingConfigError) as info:
        ParallelDraftingConfig.from_hf_config(UNUSABLE_CONFIGS[name]())
    assert str(info.value)


def test_a_mapping_is_read_with_its_get() -> None:
    class Counting(dict[str, object]):
        reads: ClassVar[list[str]] = []

        def get(self, key: str, default: object = None) -> object:
            self.reads.append(key)
            return super().get(key, default)

    assert ParallelDraftingConfig.from_hf_config(Counting(pard_token=2)).token_id == 2
    assert "pard_token" in Counting.reads


def test_namespaces_and_sections_read_by_attribute() -> None:
    config = SimpleNamespace(dflash_config=SimpleNamespace(mask_token_id=11), vocab_size=20)
    assert ParallelDraftingConfig.from_hf_config(config).token_id == 11


# --- Foreign values real callers pass: int subclasses count, mocks and numpy ints are refused -----


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
    assert info.value.fix == "convert the int64 to a Python int with int(x)"
    assert "int(x)" not in str(info.value)
    read = check({"pard_token": "7"}, engine=PARALLEL_SWITCH, check_tokenizer=False)
    assert "int(x)" not in (read.errors[0].fix or "")


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
