"""Reading fields: exactly ``mapping.get`` or ``getattr``; nothing cached, nothing leaked."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any, ClassVar
from unittest.mock import Mock

import pytest
from hypothesis import given
from hypothesis import strategies as st
from transformers import EuroBertConfig, LlamaConfig, PreTrainedConfig, Qwen3Config

from drafting_config import ParallelDraftingConfig, ParallelDraftingConfigError, TokenIdSource
from drafting_config.values.fields import MISSING, field_getter
from tests.foreign import RaisingGet, Unusable


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
