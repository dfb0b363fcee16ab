"""The priority order: each field alone, every combination, and null fall-through."""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import pytest

from drafting_config import (
    PRIORITY_ORDER,
    ConflictingTokenIdWarning,
    ParallelDraftingConfig,
    ParallelDraftingConfigError,
    TokenIdSource,
    get_parallel_drafting_token_id,
)
from tests.conftest import Carrier

# A distinct value per field, so the winner is known from the token id alone.
VALUES = {
    "dflash_config.mask_token_id": 101,
    "mask_token_id": 102,
    "dspark_noise_token_id": 103,
    "pard_token": 104,
    "ptd_token_id": 105,
}
ABSENT = object()


def build(settings: dict[str, object]) -> dict[str, Any]:
    """A config.json dict from dotted field paths; ABSENT leaves a field out."""
    config: dict[str, Any] = {}
    for path, value in settings.items():
        if value is ABSENT:
            continue
        if path.startswith("dflash_config."):
            config.setdefault("dflash_config", {})["mask_token_id"] = value
        else:
            config[path] = value
    return config


def oracle(config: dict[str, Any]) -> tuple[str, int] | None:
    """The rule, written out by hand and independently of the package."""
    dflash = config.get("dflash_config") or {}
    candidates = [
        ("dflash_config.mask_token_id", dflash.get("mask_token_id")),
        ("mask_token_id", config.get("mask_token_id")),
        ("dspark_noise_token_id", config.get("dspark_noise_token_id")),
        ("pard_token", config.get("pard_token")),
        ("ptd_token_id", config.get("ptd_token_id")),
    ]
    present = [(name, value) for name, value in candidates if value is not None]
    return present[0] if present else None


def test_priority_order_is_the_documented_one() -> None:
    assert [source.value for source in PRIORITY_ORDER] == list(VALUES)
    assert list(TokenIdSource) == list(PRIORITY_ORDER)


@pytest.mark.parametrize("field", list(VALUES))
def test_each_field_alone(field: str, carrier: Carrier) -> None:
    config = ParallelDraftingConfig.from_hf_config(carrier(build({field: VALUES[field]})))
    assert config.token_id == VALUES[field]
    assert config.source == TokenIdSource(field)
    assert config.source.value == field
    assert config.shadowed == ()


def resolve_recording(hf_config: object) -> tuple[ParallelDraftingConfig, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        config = ParallelDraftingConfig.from_hf_config(hf_config)
    assert all(issubclass(w.category, ConflictingTokenIdWarning) for w in caught)
    return config, [str(w.message) for w in caught]


@pytest.mark.parametrize("mask", list(itertools.product([False, True], repeat=5)))
def test_all_32_present_absent_combinations(mask: tuple[bool, ...], carrier: Carrier) -> None:
    raw = build({f: (VALUES[f] if on else ABSENT) for f, on in zip(VALUES, mask, strict=True)})
    expected = oracle(raw)
    if expected is None:
        with pytest.raises(ParallelDraftingConfigError, match="names no parallel drafting"):
            ParallelDraftingConfig.from_hf_config(carrier(raw))
        return
    config, messages = resolve_recording(carrier(raw))
    assert (config.source.value, config.token_id) == expected
    losers = [f for f, on in zip(VALUES, mask, strict=True) if on and f != expected[0]]
    assert [(s.source.value, s.token_id) for s in config.shadowed] == [
        (f, VALUES[f]) for f in losers
    ]
    # Every loser disagrees with the winner here, so each gets its own warning.
    assert len(messages) == len(losers)
    for loser, message in zip(losers, messages, strict=True):
        assert f"`{expected[0]}` = {expected[1]}" in message
        assert f"`{loser}` = {VALUES[loser]}" in message
        assert f"`{expected[0]}` wins" in message


@pytest.mark.parametrize("states", list(itertools.product(["absent", "null", "set"], repeat=5)))
def test_null_counts_as_absent_for_every_field(states: tuple[str, ...]) -> None:
    choice = {"absent": ABSENT, "null": None}
    raw = build({f: choice.get(state, VALUES[f]) for f, state in zip(VALUES, states, strict=True)})
    expected = oracle(raw)
    if expected is None:
        with pytest.raises(ParallelDraftingConfigError):
            get_parallel_drafting_token_id(raw)
    else:
        config, _ = resolve_recording(raw)
        assert (config.source.value, config.token_id) == expected


def test_issue_example_nulls_fall_through_to_pard_token(carrier: Carrier) -> None:
    raw = {
        "dflash_config": {"mask_token_id": None},
        "mask_token_id": None,
        "dspark_noise_token_id": None,
        "pard_token": 14,
        "ptd_token_id": 15,
    }
    with pytest.warns(ConflictingTokenIdWarning, match="`pard_token` = 14 and `ptd_token_id` = 15"):
        config = ParallelDraftingConfig.from_hf_config(carrier(raw))
    assert config.token_id == 14
    assert config.source is TokenIdSource.PARD_TOKEN
    assert [(s.source, s.token_id) for s in config.shadowed] == [(TokenIdSource.PTD_TOKEN_ID, 15)]


def test_equal_duplicates_are_silent() -> None:
    # A real DSpark release sets ptd_token_id == dspark_noise_token_id.
    config = ParallelDraftingConfig.from_hf_config(
        {"dspark_noise_token_id": 151669, "ptd_token_id": 151669}
    )  # filterwarnings=error: any warning would fail this test
    assert config.source is TokenIdSource.DSPARK_NOISE_TOKEN_ID
    assert config.shadowed[0].source is TokenIdSource.PTD_TOKEN_ID


@pytest.mark.parametrize(
    "section",
    [
        {"mask_token_id": 7},
        {"mask_token_id": 7, "target_layer_ids": [1, 2]},
    ],
)
def test_dflash_config_as_dict_attribute_object_or_nested_config(section: dict[str, Any]) -> None:
    from types import SimpleNamespace

    from transformers import PreTrainedConfig

    nested_config = PreTrainedConfig.from_dict(section)
    for shape in (section, SimpleNamespace(**section), nested_config):
        assert get_parallel_drafting_token_id({"dflash_config": shape}) == 7
        assert get_parallel_drafting_token_id(SimpleNamespace(dflash_config=shape)) == 7
    # transformers itself only accepts JSON-like values or sub-configs as fields.
    for shape in (section, nested_config):
        outer = PreTrainedConfig.from_dict({"dflash_config": shape})
        assert get_parallel_drafting_token_id(outer) == 7


@pytest.mark.parametrize("section", [None, {}, {"target_layer_ids": [1]}, {"mask_token_id": None}])
def test_dflash_config_without_a_token_falls_through(section: object) -> None:
    assert get_parallel_drafting_token_id({"dflash_config": section, "pard_token": 9}) == 9


@pytest.mark.parametrize("section", [[151669], "151669", 151669, 1.5, True, (1,), b"x"])
def test_dflash_config_of_the_wrong_kind_is_an_error(section: object) -> None:
    with pytest.raises(ParallelDraftingConfigError, match="`dflash_config` must be") as info:
        ParallelDraftingConfig.from_hf_config({"dflash_config": section, "pard_token": 9})
    assert info.value.field == "dflash_config"


def test_raw_fields_tell_absent_from_null() -> None:
    from drafting_config.reading import MISSING, field_getter
    from drafting_config.resolution import read_token_id_fields

    raw = {"dflash_config": {"mask_token_id": None}, "pard_token": "x", "ptd_token_id": 3}
    assert read_token_id_fields(field_getter(raw, "")) == [
        (TokenIdSource.DFLASH_MASK_TOKEN_ID, None),
        (TokenIdSource.MASK_TOKEN_ID, MISSING),
        (TokenIdSource.DSPARK_NOISE_TOKEN_ID, MISSING),
        (TokenIdSource.PARD_TOKEN, "x"),
        (TokenIdSource.PTD_TOKEN_ID, 3),
    ]
    no_section = read_token_id_fields(field_getter({"dflash_config": None}, ""))
    assert no_section[0] == (TokenIdSource.DFLASH_MASK_TOKEN_ID, MISSING)
