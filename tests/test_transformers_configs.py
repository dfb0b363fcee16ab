"""Real transformers v5 config objects: declared fields, class defaults, aliases."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from transformers import EuroBertConfig, LlamaConfig, PreTrainedConfig, Qwen3Config

from drafting_config import (
    ConflictingTokenIdWarning,
    ParallelDraftingConfig,
    ParallelDraftingConfigError,
    TokenIdSource,
    get_parallel_drafting_token_id,
)
from tests.conftest import EXAMPLES, load_json


def test_qwen3_dflash_drafter() -> None:
    data = load_json(EXAMPLES / "dflash-qwen3-4b" / "config.json")
    hf_config = Qwen3Config.from_dict(data)
    config = ParallelDraftingConfig.from_hf_config(hf_config)
    assert (config.token_id, config.source) == (151669, TokenIdSource.DFLASH_MASK_TOKEN_ID)
    assert (config.hidden_size, config.vocab_size) == (2560, 151936)
    assert config == ParallelDraftingConfig.from_hf_config(data)
    assert config == ParallelDraftingConfig.model_validate(hf_config)


def test_llama_pard_drafter() -> None:
    data = load_json(EXAMPLES / "pard-llama3-1b" / "config.json")
    config = ParallelDraftingConfig.from_hf_config(LlamaConfig.from_dict(data))
    assert (config.token_id, config.source) == (128020, TokenIdSource.PARD_TOKEN)
    assert (config.hidden_size, config.vocab_size) == (2048, 128256)


def test_declared_defaults_count_like_any_value() -> None:
    # Qwen3Config declares vocab_size and hidden_size with defaults: an object
    # built without them still has them, exactly as getattr reports.
    config = ParallelDraftingConfig.from_hf_config(Qwen3Config.from_dict({"pard_token": 7}))
    assert (config.hidden_size, config.vocab_size) == (4096, 151936)


def test_class_default_mask_token_id_wins_like_getattr_and_is_flagged() -> None:
    # EuroBertConfig declares mask_token_id = 128002. A config object of that
    # class has that value whether or not config.json set it: the object and
    # its to_dict() resolve alike. When it overrides a different explicit
    # pard_token, the conflict warning says it may be only a class default.
    hf_config = EuroBertConfig.from_dict({"pard_token": 128020})
    assert hf_config.mask_token_id == 128002
    with pytest.warns(ConflictingTokenIdWarning, match="EuroBertConfig.s class default"):
        config = ParallelDraftingConfig.from_hf_config(hf_config)
    assert (config.token_id, config.source) == (128002, TokenIdSource.MASK_TOKEN_ID)
    with pytest.warns(ConflictingTokenIdWarning) as from_dict_record:
        assert ParallelDraftingConfig.from_hf_config(hf_config.to_dict()) == config
    assert "class default" not in str(from_dict_record[0].message)


class MaskDefaultConfig(PreTrainedConfig):
    """A model class that gives mask_token_id a default, as some real ones do."""

    model_type = "drafting-config-test-mask-default"
    mask_token_id: int | None = 32


class PlainClassAttributeConfig(PreTrainedConfig):
    """A class attribute that is not a dataclass field: no copy in the instance."""

    model_type = "drafting-config-test-class-attribute"
    pard_token: ClassVar[int] = 77


class AliasedConfig(PreTrainedConfig):
    """attribute_map aliases standard names onto model-specific ones."""

    model_type = "drafting-config-test-aliased"
    attribute_map: ClassVar[dict[str, str]] = {
        "pard_token": "mask_slot_token",
        "hidden_size": "d_model",
        "vocab_size": "n_vocab",
    }


class PropertyConfig(PreTrainedConfig):
    """A token id computed by a property rather than stored."""

    model_type = "drafting-config-test-property"

    @property
    def ptd_token_id(self) -> int:
        return int(self.to_dict()["base_id"]) + 1


def test_dataclass_field_default() -> None:
    assert get_parallel_drafting_token_id(MaskDefaultConfig.from_dict({})) == 32
    explicit = MaskDefaultConfig.from_dict({"mask_token_id": None, "pard_token": 5})
    assert get_parallel_drafting_token_id(explicit) == 5  # null falls through


def test_plain_class_attribute() -> None:
    config = ParallelDraftingConfig.from_hf_config(PlainClassAttributeConfig.from_dict({}))
    assert (config.token_id, config.source) == (77, TokenIdSource.PARD_TOKEN)


def test_attribute_map_aliases() -> None:
    hf_config = AliasedConfig.from_dict({"mask_slot_token": 9, "d_model": 64, "n_vocab": 100})
    assert hf_config.pard_token == 9
    config = ParallelDraftingConfig.from_hf_config(hf_config)
    assert (config.token_id, config.source) == (9, TokenIdSource.PARD_TOKEN)
    assert (config.hidden_size, config.vocab_size) == (64, 100)
    with pytest.raises(ParallelDraftingConfigError, match=r"\[0, 100\)"):
        ParallelDraftingConfig.from_hf_config(
            AliasedConfig.from_dict({"mask_slot_token": 100, "n_vocab": 100})
        )


def test_property() -> None:
    config = ParallelDraftingConfig.from_hf_config(PropertyConfig.from_dict({"base_id": 41}))
    assert (config.token_id, config.source) == (42, TokenIdSource.PTD_TOKEN_ID)


def test_attributes_set_after_construction_are_seen() -> None:
    hf_config = Qwen3Config.from_dict({})
    with pytest.raises(ParallelDraftingConfigError):
        ParallelDraftingConfig.from_hf_config(hf_config)
    hf_config.dspark_noise_token_id = 151669
    assert get_parallel_drafting_token_id(hf_config) == 151669


def test_nested_text_config() -> None:
    text = Qwen3Config.from_dict({"hidden_size": 1024, "vocab_size": 5000})
    outer = PreTrainedConfig.from_dict({"pard_token": 4999})
    outer.text_config = text
    config = ParallelDraftingConfig.from_hf_config(outer)
    assert (config.hidden_size, config.vocab_size) == (1024, 5000)


@pytest.mark.parametrize("alias", ["PreTrainedConfig", "PretrainedConfig"])
def test_both_spellings_of_the_base_class(alias: str) -> None:
    import transformers

    base: Any = getattr(transformers, alias)
    assert get_parallel_drafting_token_id(base.from_dict({"ptd_token_id": 3})) == 3
