"""The priority order: each field alone, every combination, and null fall-through."""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Sequence
from typing import Any

import pytest

from drafting_config import (
    PRIORITY_ORDER,
    ConflictingTokenIdWarning,
    ParallelDraftingConfig,
    ParallelDraftingConfigError,
    TokenIdField,
    TokenIdSource,
    get_parallel_drafting_token_id,
)
from drafting_config.engines.vllm.resolution import resolve
from tests.conftest import Carrier


class ExtendedSource(TokenIdField):
    """The table in force plus one more row, in a new section: the generic suites must
    pass on it unchanged, which is what makes "adding a field is one line" true."""

    DFLASH_MASK_TOKEN_ID = ("dflash_config.mask_token_id", "dflash", True)
    MASK_TOKEN_ID = ("mask_token_id", None, True)
    DSPARK_NOISE_TOKEN_ID = ("dspark_noise_token_id", "dspark", True)
    PARD_TOKEN = ("pard_token", "pard", False)
    PTD_TOKEN_ID = ("ptd_token_id", "ptd", True)
    SPARK_SLOT = ("spark_config.slot_token_id", "spark", True)


TABLES: dict[str, tuple[TokenIdField, ...]] = {
    "in-force": PRIORITY_ORDER,
    "extended": tuple(ExtendedSource),
}


@pytest.fixture(params=sorted(TABLES))
def table(request: pytest.FixtureRequest) -> tuple[TokenIdField, ...]:
    """The priority table in force, and one with an extra row."""
    return TABLES[request.param]


def values_for(table: Sequence[TokenIdField]) -> dict[str, int]:
    """A distinct value per field, so the winner is known from the token id alone."""
    return {source.value: 101 + rank for rank, source in enumerate(table)}


VALUES = values_for(PRIORITY_ORDER)
ABSENT = object()


def build(settings: dict[str, object]) -> dict[str, Any]:
    """A config.json dict from dotted field paths; ABSENT leaves a field out."""
    config: dict[str, Any] = {}
    for path, value in settings.items():
        if value is ABSENT:
            continue
        section, _, key = path.rpartition(".")
        (config.setdefault(section, {}) if section else config)[key] = value
    return config


def oracle(
    config: dict[str, Any], table: Sequence[TokenIdField] = PRIORITY_ORDER
) -> tuple[str, int] | None:
    """The rule, written out by hand and independently of the package: the first field
    whose value is not None (a missing or null section counts as absent; a section that
    is not a dict is read by attribute)."""
    for source in table:
        section, _, key = source.value.rpartition(".")
        holder = config.get(section) if section else config
        value = holder.get(key) if isinstance(holder, dict) else getattr(holder, key, None)
        if value is not None:
            # An int subclass counts as its true value (never its own __eq__ or __int__).
            true = int.__int__(value) if issubclass(type(value), int) else value
            return source.value, true
    return None


def resolved(config: object, table: Sequence[TokenIdField]) -> tuple[str, int] | None:
    """(winning field, token id) from the package's resolver, or None if it found none."""
    resolution = resolve(config, order=table)
    winner = resolution.winner
    if not resolution.ok or winner is None or winner.token_id is None:
        return None
    return winner.source.value, winner.token_id


def test_priority_order_is_the_documented_one() -> None:
    assert [source.value for source in PRIORITY_ORDER] == [
        "dflash_config.mask_token_id",
        "mask_token_id",
        "dspark_noise_token_id",
        "pard_token",
        "ptd_token_id",
    ]
    assert list(TokenIdSource) == list(PRIORITY_ORDER)
    assert [s.value for s in ExtendedSource][: len(PRIORITY_ORDER)] == list(VALUES)


def test_each_source_carries_its_method_and_hidden_state_facts() -> None:
    facts = {s.value: (s.algorithm, s.takes_target_hidden_states) for s in PRIORITY_ORDER}
    assert facts == {
        "dflash_config.mask_token_id": ("dflash", True),
        "mask_token_id": (None, True),
        "dspark_noise_token_id": ("dspark", True),
        "pard_token": ("pard", False),
        "ptd_token_id": ("ptd", True),
    }


@pytest.mark.parametrize("field", list(VALUES))
def test_each_field_alone(field: str, carrier: Carrier) -> None:
    config = ParallelDraftingConfig.from_hf_config(carrier(build({field: VALUES[field]})))
    assert config.token_id == VALUES[field]
    assert config.source == TokenIdSource(field)
    assert config.source.value == field
    assert config.shadowed == ()
    assert config.algorithm == TokenIdSource(field).algorithm


def test_each_field_alone_in_any_table(table: tuple[TokenIdField, ...], carrier: Carrier) -> None:
    values = values_for(table)
    for field, value in values.items():
        assert resolved(carrier(build({field: value})), table) == (field, value)


def resolve_recording(hf_config: object) -> tuple[ParallelDraftingConfig, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        config = ParallelDraftingConfig.from_hf_config(hf_config)
    assert all(issubclass(w.category, ConflictingTokenIdWarning) for w in caught)
    return config, [str(w.message) for w in caught]


def test_every_present_absent_combination(
    table: tuple[TokenIdField, ...], carrier: Carrier
) -> None:
    values = values_for(table)
    for mask in itertools.product([False, True], repeat=len(table)):
        raw = build({f: (values[f] if on else ABSENT) for f, on in zip(values, mask, strict=True)})
        expected = oracle(raw, table)
        resolution = resolve(carrier(raw), order=table)
        if expected is None:
            assert not resolution.ok
            assert "names no parallel drafting" in str(resolution.errors[0])
            continue
        assert resolved(carrier(raw), table) == expected
        losers = [f for f, on in zip(values, mask, strict=True) if on and f != expected[0]]
        assert [(f.source.value, f.token_id) for f in resolution.shadowed] == [
            (f, values[f]) for f in losers
        ]
        # Every loser disagrees with the winner here, so each gets its own warning.
        messages = [str(w) for w in resolution.warnings]
        assert len(messages) == len(losers)
        for loser, message in zip(losers, messages, strict=True):
            assert f"`{expected[0]}` = {expected[1]}" in message
            assert f"`{loser}` = {values[loser]}" in message
            assert f"`{expected[0]}` wins" in message


@pytest.mark.parametrize("carrier_name", ["mapping", "namespace"])
def test_the_model_agrees_with_the_resolver_on_every_combination(carrier_name: str) -> None:
    from tests.conftest import CARRIERS

    carrier = CARRIERS[carrier_name]
    for mask in itertools.product([False, True], repeat=len(PRIORITY_ORDER)):
        raw = build({f: (VALUES[f] if on else ABSENT) for f, on in zip(VALUES, mask, strict=True)})
        expected = oracle(raw)
        if expected is None:
            with pytest.raises(ParallelDraftingConfigError, match="names no parallel drafting"):
                ParallelDraftingConfig.from_hf_config(carrier(raw))
            continue
        config, _ = resolve_recording(carrier(raw))
        assert (config.source.value, config.token_id) == expected


def test_null_counts_as_absent_for_every_field(table: tuple[TokenIdField, ...]) -> None:
    values = values_for(table)
    choice = {"absent": ABSENT, "null": None}
    for states in itertools.product(["absent", "null", "set"], repeat=len(table)):
        raw = build(
            {f: choice.get(state, values[f]) for f, state in zip(values, states, strict=True)}
        )
        assert resolved(raw, table) == oracle(raw, table)


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


def test_verdicts_tell_absent_from_null() -> None:
    from drafting_config.draft.fields import FieldStatus
    from drafting_config.engines.vllm.resolution import resolve
    from drafting_config.values.fields import MISSING

    raw = {"dflash_config": {"mask_token_id": None}, "pard_token": "x", "ptd_token_id": 3}
    verdicts = resolve(raw).fields
    assert [(f.source, f.status, f.value) for f in verdicts] == [
        (TokenIdSource.DFLASH_MASK_TOKEN_ID, FieldStatus.NULL, None),
        (TokenIdSource.MASK_TOKEN_ID, FieldStatus.ABSENT, MISSING),
        (TokenIdSource.DSPARK_NOISE_TOKEN_ID, FieldStatus.ABSENT, MISSING),
        (TokenIdSource.PARD_TOKEN, FieldStatus.INVALID, "x"),
        (TokenIdSource.PTD_TOKEN_ID, FieldStatus.VALID, 3),
    ]
    assert resolve({"dflash_config": None}).fields[0].status is FieldStatus.ABSENT
