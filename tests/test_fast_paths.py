"""The fast paths behave exactly like the plain ones they replace.

``reading.field_getter`` reads a config's instance ``__dict__`` instead of
calling ``getattr`` when that is provably the same, and ``config._construct``
builds model instances without ``model_construct``. These tests pin both to
the slow, obviously correct behaviour.
"""

from __future__ import annotations

import copy
import pickle
import warnings
from types import SimpleNamespace
from typing import Any, ClassVar

import pytest
from hypothesis import event, given
from hypothesis import strategies as st
from transformers import EuroBertConfig, LlamaConfig, PreTrainedConfig, Qwen3Config

from drafting_config import ParallelDraftingConfig, ParallelDraftingConfigError, TokenIdSource
from drafting_config.reading import MISSING, field_getter
from drafting_config.resolution import resolve
from drafting_config.sources import FIELD_NAMES


class GetattrOnly:
    """Forwards every read to ``getattr`` on the wrapped config: the slow, exact path."""

    def __init__(self, target: object) -> None:
        self._target = target

    def __getattr__(self, name: str) -> object:
        return getattr(self._target, name)


class AliasedConfig(PreTrainedConfig):
    model_type = "drafting-config-fast-aliased"
    attribute_map: ClassVar[dict[str, str]] = {"pard_token": "mask_slot"}


class DefaultedConfig(PreTrainedConfig):
    model_type = "drafting-config-fast-defaulted"
    mask_token_id: int | None = 32


CLASSES: list[type[PreTrainedConfig]] = [
    PreTrainedConfig,
    Qwen3Config,
    LlamaConfig,
    EuroBertConfig,
    AliasedConfig,
    DefaultedConfig,
]

token_values = st.one_of(st.none(), st.integers(0, 1000), st.sampled_from(["7", 7.0, True]))
config_dicts = st.fixed_dictionaries(
    {},
    optional={
        "dflash_config": st.one_of(
            st.none(), st.fixed_dictionaries({}, optional={"mask_token_id": token_values})
        ),
        "mask_token_id": token_values,
        "dspark_noise_token_id": token_values,
        "pard_token": token_values,
        "ptd_token_id": token_values,
        "mask_slot": token_values,
        "hidden_size": st.integers(1, 4096),
        "vocab_size": st.integers(1, 2000),
        "pad_token_id": st.one_of(st.none(), st.integers(0, 1000)),
        "eos_token_id": st.one_of(st.integers(0, 1000), st.lists(st.integers(0, 1000), max_size=3)),
    },
)


def outcome(hf_config: object) -> tuple[object, ...]:
    """What resolving gives, comparably: the fields and warning texts, or the error."""
    try:
        fields, found = resolve(hf_config)
    except ParallelDraftingConfigError as error:
        return ("error", error.field)
    return ("ok", fields, [type(w) for w in found])


@given(st.sampled_from(CLASSES), config_dicts)
def test_instance_dict_reading_equals_getattr(
    cls: type[PreTrainedConfig], data: dict[str, Any]
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # transformers' own token-id warnings
        try:
            hf_config = cls.from_dict(dict(data))
        except Exception:  # transformers refuses some values for its declared fields
            event("refused by transformers")
            return
    event(f"compared: {cls.__name__}")
    get = field_getter(hf_config, "")
    for name in FIELD_NAMES:
        assert get(name, MISSING) == getattr(hf_config, name, MISSING), name
    assert outcome(hf_config) == outcome(GetattrOnly(hf_config))


def test_a_deleted_field_falls_back_to_the_class_default() -> None:
    hf_config = Qwen3Config.from_dict({"pard_token": 7})
    del hf_config.vocab_size  # the instance no longer has it; the class default shows
    assert hf_config.vocab_size == Qwen3Config.vocab_size
    assert ParallelDraftingConfig.from_hf_config(hf_config).vocab_size == Qwen3Config.vocab_size


def test_an_attribute_map_set_on_the_instance_is_honoured() -> None:
    hf_config = Qwen3Config.from_dict({"my_pard": 9})
    hf_config.__dict__["attribute_map"] = {"pard_token": "my_pard"}
    assert hf_config.pard_token == 9
    assert ParallelDraftingConfig.from_hf_config(hf_config).token_id == 9


def test_a_heterogeneous_config_is_read_through_its_guard() -> None:
    from transformers.integrations.heterogeneity.configuration_utils import _HeterogeneitySpec

    hf_config = Qwen3Config.from_dict({"pard_token": 7})
    spec = _HeterogeneitySpec(
        per_layer_overrides={},
        per_layer_attributes={"hidden_size"},
        explicit_per_layer_attributes=set(),
    )
    hf_config.__dict__["_heterogeneity_spec"] = spec
    with pytest.raises(ParallelDraftingConfigError) as info:
        ParallelDraftingConfig.from_hf_config(hf_config)
    assert info.value.field == "hidden_size"
    assert "AmbiguousGlobalPerLayerAttributeError" in str(info.value)


def test_objects_without_an_instance_dict() -> None:
    class Slotted:
        __slots__ = ("pard_token",)

        def __init__(self) -> None:
            self.pard_token = 5

    assert ParallelDraftingConfig.from_hf_config(Slotted()).token_id == 5
    assert ParallelDraftingConfig.from_hf_config(SimpleNamespace(pard_token=6)).token_id == 6


# --- construction -----------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        {"pard_token": 5},
        {
            "dflash_config": {"mask_token_id": 1},
            "ptd_token_id": 1,
            "hidden_size": 8,
            "vocab_size": 9,
        },
    ],
)
def test_fast_construction_equals_validation(raw: dict[str, Any]) -> None:
    fast = ParallelDraftingConfig.from_hf_config(raw)
    slow = ParallelDraftingConfig.model_validate(fast.model_dump())
    assert fast == slow
    assert fast.model_fields_set == slow.model_fields_set
    assert fast.model_extra is slow.model_extra is None
    assert fast.__pydantic_private__ is slow.__pydantic_private__ is None
    assert repr(fast) == repr(slow)
    assert hash(fast) == hash(slow)
    assert fast.model_dump_json() == slow.model_dump_json()
    assert pickle.loads(pickle.dumps(fast)) == slow
    assert copy.deepcopy(fast) == slow
    updated = fast.model_copy(update={"hidden_size": 16})
    assert updated.hidden_size == 16
    assert fast.hidden_size == raw.get("hidden_size")  # the original is untouched
    for shadowed in fast.shadowed:
        assert shadowed.model_fields_set == {"source", "token_id"}


def test_subclasses_are_built_by_model_construct() -> None:
    class Tagged(ParallelDraftingConfig):
        tag: str = "default"

    config = Tagged.from_hf_config({"pard_token": 5})
    assert isinstance(config, Tagged)
    assert (config.token_id, config.source, config.tag) == (5, TokenIdSource.PARD_TOKEN, "default")
