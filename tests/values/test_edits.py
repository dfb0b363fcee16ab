"""ConfigEdit: the machine-applicable fix a finding carries, and how edits apply to a parsed
config (values/edits.py)."""

from __future__ import annotations

import pickle

import pytest

from drafting_config import ParallelDraftingConfigError, ParallelDraftingConfigWarning
from drafting_config.engines.sglang import codes as sglang_codes
from drafting_config.values import codes
from drafting_config.values.edits import (
    ConfigEdit,
    EditError,
    EditKind,
    apply_edits,
    is_json_value,
    quoted_integer,
)
from drafting_config.values.findings import Findings, Note


def test_set_replaces_a_key_in_place_and_keeps_the_order() -> None:
    document = {"a": 1, "architectures": "X", "z": 2}
    fixed = apply_edits(document, [ConfigEdit.set("architectures", ["X"])])
    assert list(fixed) == ["a", "architectures", "z"]
    assert fixed["architectures"] == ["X"]
    assert document["architectures"] == "X"  # the input is left as it was


def test_set_appends_a_new_key_last_in_its_object() -> None:
    fixed = apply_edits(
        {"a": 1, "dflash_config": {"markov_rank": 8}}, [ConfigEdit.set("markov_rank", 8)]
    )
    assert list(fixed) == ["a", "dflash_config", "markov_rank"]


def test_delete_removes_a_nested_key_and_leaves_the_input_alone() -> None:
    document = {"dflash_config": {"mask_token_id": None, "target_layer_ids": [1]}, "b": 0}
    fixed = apply_edits(document, [ConfigEdit.delete("dflash_config.mask_token_id")])
    assert fixed == {"dflash_config": {"target_layer_ids": [1]}, "b": 0}
    assert document["dflash_config"] == {"mask_token_id": None, "target_layer_ids": [1]}


@pytest.mark.parametrize(
    ("document", "edit"),
    [
        ({"a": 1}, ConfigEdit.delete("b")),
        ({"dflash_config": None}, ConfigEdit.set("dflash_config.markov_rank", 1)),
        ({}, ConfigEdit.delete("dflash_config.mask_token_id")),
    ],
)
def test_an_edit_that_does_not_fit_the_document_raises(
    document: dict[str, object], edit: ConfigEdit
) -> None:
    with pytest.raises(EditError, match=edit.path[0]):
        apply_edits(document, [edit])


def test_an_edit_says_what_it_does() -> None:
    assert str(ConfigEdit.set("architectures", ["Ünï"])) == 'set `architectures` to ["Ünï"]'
    assert str(ConfigEdit.delete("dflash_config.mask_token_id")) == (
        "deleted `dflash_config.mask_token_id`"
    )
    assert ConfigEdit.delete("a.b") == ConfigEdit(("a", "b"), EditKind.DELETE)


@pytest.mark.parametrize("field", ["", "a..b", ".a"])
def test_a_malformed_field_is_refused(field: str) -> None:
    with pytest.raises(ValueError, match="keys joined by"):
        ConfigEdit.delete(field)


def test_every_finding_kind_carries_its_edit_and_pickles_with_it() -> None:
    edit = ConfigEdit.set("markov_rank", 8)
    found = Findings()
    found.error(
        ParallelDraftingConfigError("e", code=sglang_codes.MARKOV_RANK_NESTED_ONLY, edit=edit)
    )
    found.warn(ParallelDraftingConfigWarning("w", edit=edit))
    found.note("n", code=codes.TARGET_NOT_GIVEN, edit=edit)
    for finding in (*found.errors, *found.warnings, *found.notes):
        assert finding.edit == edit  # type: ignore[attr-defined]
        assert pickle.loads(pickle.dumps(finding)).edit == edit
    assert ParallelDraftingConfigError("no fix").edit is None
    assert Note("plain").edit is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"a": [1, 2.5, None, True, "x"]}, True),
        ([], True),
        ((1, 2), False),  # a tuple is no JSON array json.loads gives
        ({1: "a"}, False),
        (object(), False),
        ([1, {2, 3}], False),
    ],
)
def test_only_json_values_go_into_edits(value: object, expected: bool) -> None:
    assert is_json_value(value) is expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("151669", 151669),
        ("0", 0),
        ("05", None),  # a leading zero
        ("+5", None),
        ("-5", None),
        (" 5", None),
        ("5\n", None),
        ("0x10", None),
        ("1e3", None),
        ("５", None),  # a digit, but not an ASCII one  # noqa: RUF001
        ("", None),
        (5, None),
        (True, None),
        (256.0, None),
    ],
)
def test_only_a_string_of_decimal_digits_is_a_quoted_integer(
    value: object, expected: int | None
) -> None:
    assert quoted_integer(value) == expected
