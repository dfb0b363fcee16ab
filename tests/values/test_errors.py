"""Every error and warning, with what its message must say."""

from __future__ import annotations

import pickle
import re
import warnings
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import ValidationError

from drafting_config import (
    PRIORITY_ORDER,
    ConflictingTokenIdWarning,
    ParallelDraftingConfig,
    ParallelDraftingConfigError,
    ParallelDraftingConfigWarning,
    PlaceholderTokenIdWarning,
    get_parallel_drafting_token_id,
)
from tests.foreign import RaisingGet

EVERY_FIELD_IN_ORDER = re.compile(
    ", ".join(re.escape(f"`{s.value}`") for s in PRIORITY_ORDER[:-1])
    + re.escape(f", or `{PRIORITY_ORDER[-1].value}`")
)


def raises(hf_config: object) -> ParallelDraftingConfigError:
    with pytest.raises(ParallelDraftingConfigError) as info:
        ParallelDraftingConfig.from_hf_config(hf_config)
    return info.value


def test_error_is_a_value_error() -> None:
    assert issubclass(ParallelDraftingConfigError, ValueError)
    assert issubclass(ParallelDraftingConfigWarning, UserWarning)
    assert issubclass(ConflictingTokenIdWarning, ParallelDraftingConfigWarning)
    assert issubclass(PlaceholderTokenIdWarning, ParallelDraftingConfigWarning)


@pytest.mark.parametrize(
    "hf_config",
    [
        {},
        {"hidden_size": 2560, "vocab_size": 151936},
        SimpleNamespace(hidden_size=2560),
        {"dflash_config": {"target_layer_ids": [1]}},
        dict.fromkeys(s.value for s in PRIORITY_ORDER if s.section is None),
    ],
)
def test_none_set_names_every_field_in_priority_order(hf_config: object) -> None:
    error = raises(hf_config)
    assert EVERY_FIELD_IN_ORDER.search(str(error)), str(error)
    assert error.field is None


@pytest.mark.parametrize(
    ("value", "shown", "hint"),
    [
        ("7", "'7' (str)", "without quotes"),
        ("128256", "'128256' (str)", "without quotes"),
        (True, "True (bool)", "booleans"),
        (False, "False (bool)", "booleans"),
        (7.0, "7.0 (float)", "even whole ones"),
        (7.9, "7.9 (float)", "floats"),
        (float("nan"), "nan (float)", "floats"),
        ([7], "[7] (list)", "integer id"),
        ({"id": 7}, "{'id': 7} (dict)", "integer id"),
    ],
)
@pytest.mark.parametrize("field", ["dflash_config.mask_token_id", "pard_token", "ptd_token_id"])
def test_winner_that_is_not_an_int(field: str, value: object, shown: str, hint: str) -> None:
    config: dict[str, Any] = (
        {"dflash_config": {"mask_token_id": value}} if "." in field else {field: value}
    )
    error = raises(config)
    message = str(error)
    assert message.startswith(f"`{field}` must be an integer token id, got {shown}; ")
    assert message.endswith("expected an int in [0, 2**31), as engines feed token ids as int32.")
    assert error.fix is not None
    assert error.fix.startswith(f"write `{field}`") or error.fix.startswith(f"set `{field}`")
    assert hint in error.fix
    assert error.field == field


@pytest.mark.parametrize(
    ("config", "field", "expected"),
    [
        (
            {"pard_token": -1},
            "pard_token",
            "`pard_token` = -1 is out of range: expected an int in [0, 2**31)",
        ),
        ({"mask_token_id": 2**31}, "mask_token_id", "= 2147483648 is out of range"),
        ({"ptd_token_id": 2**31 - 1}, None, None),  # the largest int32 is fine
        (
            {"pard_token": 151936, "vocab_size": 151936},
            "pard_token",
            "`pard_token` = 151936 is out of range: expected an int in [0, 151936), below the "
            "draft's vocab_size",
        ),
        (
            {"pard_token": 128256, "text_config": {"vocab_size": 128256}},
            "pard_token",
            "expected an int in [0, 128256), below the draft's vocab_size",
        ),
        (
            {"pard_token": 10**400},
            "pard_token",
            "`pard_token` = <int of 1329 bits> is out of range",
        ),
    ],
)
def test_winner_out_of_range(
    config: dict[str, Any], field: str | None, expected: str | None
) -> None:
    if expected is None:
        assert ParallelDraftingConfig.from_hf_config(config).token_id == 2**31 - 1
        return
    error = raises(config)
    assert expected in str(error)
    assert error.field == field


def test_shadowed_fields_are_validated_too() -> None:
    # A broken field is a broken config even when a higher-priority one wins.
    error = raises({"dflash_config": {"mask_token_id": 151669}, "pard_token": "151669"})
    assert error.field == "pard_token"
    assert "'151669' (str)" in str(error)


@pytest.mark.parametrize("field", ["hidden_size", "vocab_size"])
@pytest.mark.parametrize(
    "value", [0, -4, 2**31, pytest.param(10**5000, id="huge"), "4096", 4096.0, True, [4096]]
)
def test_model_sizes_must_be_positive_int32s(field: str, value: object) -> None:
    error = raises({"pard_token": 1, field: value})
    assert str(error).startswith(f"`{field}` must be a positive int below 2**31, got ")
    assert error.field == field
    nested = raises({"pard_token": 1, "text_config": {field: value}})
    assert nested.field == f"text_config.{field}"


@pytest.mark.parametrize("text_config", [[1], "qwen3", 5])
def test_text_config_of_the_wrong_kind_is_an_error(text_config: object) -> None:
    assert raises({"pard_token": 1, "text_config": text_config}).field == "text_config"


@pytest.mark.parametrize(
    ("hf_config", "shown"),
    [
        (None, "got None"),
        (151669, "got 151669 (int)"),
        ("config.json", "got 'config.json' (str)"),
        ([{"pard_token": 1}], "got [{'pard_token': 1}] (list)"),
        ((1, 2), "got (1, 2) (tuple)"),
        (b"{}", "got b'{}' (bytes)"),
    ],
)
def test_things_that_are_not_configs(hf_config: object, shown: str) -> None:
    message = str(raises(hf_config))
    assert message.startswith("The draft model's config must be a transformers PreTrainedConfig")
    assert shown in message


def test_a_path_points_at_from_pretrained(tmp_path: Path) -> None:
    error = raises(tmp_path / "config.json")
    assert error.fix is not None
    assert "from_pretrained" in error.fix
    assert "from_pretrained" not in str(error)


class RaisingProperty:
    @property
    def dflash_config(self) -> object:
        raise RuntimeError("weights not loaded")


class RecursingProperty:
    dflash_config = None

    @property
    def mask_token_id(self) -> object:
        return self.mask_token_id


class UnprintableError(Exception):
    def __str__(self) -> str:
        raise RuntimeError("cannot print")


class RaisingUnprintably:
    @property
    def dflash_config(self) -> object:
        raise UnprintableError


@pytest.mark.parametrize(
    ("hf_config", "field", "detail"),
    [
        (RaisingProperty(), "dflash_config", "RuntimeError: weights not loaded"),
        (RaisingUnprintably(), "dflash_config", "UnprintableError: <unprintable>"),
        (RecursingProperty(), "mask_token_id", "RecursionError"),
        (RaisingGet(), "speculators_model_type", "OSError: disk gone"),  # the first read
        ({"dflash_config": RaisingGet()}, "dflash_config.mask_token_id", "OSError"),
        (
            {"pard_token": RaisingProperty()},
            "pard_token",
            "must be an integer token id, got <",
        ),
    ],
)
def test_foreign_exceptions_become_config_errors(
    hf_config: object, field: str, detail: str
) -> None:
    error = raises(hf_config)
    assert error.field == field
    assert detail in str(error)


def test_model_validate_carries_the_same_text() -> None:
    with pytest.raises(ValidationError) as info:
        ParallelDraftingConfig.model_validate({"pard_token": "7"})
    assert isinstance(info.value, ValueError)
    assert "`pard_token` must be an integer token id, got '7' (str)" in str(info.value)


def test_errors_pickle_with_their_field() -> None:
    error = raises({"pard_token": "7"})
    clone = pickle.loads(pickle.dumps(error))
    assert type(clone) is ParallelDraftingConfigError
    assert (str(clone), clone.field) == (str(error), "pard_token")


# --- warnings -------------------------------------------------------------------------------------


def test_conflict_warning_names_both_fields_and_the_winner() -> None:
    with pytest.warns(ConflictingTokenIdWarning) as record:
        config = ParallelDraftingConfig.from_hf_config(
            {"dflash_config": {"mask_token_id": 151669}, "pard_token": 151670}
        )
    assert config.token_id == 151669
    (warning,) = record
    assert str(warning.message) == (
        "`dflash_config.mask_token_id` = 151669 and `pard_token` = 151670 disagree, and "
        "`dflash_config.mask_token_id` wins by priority."
    )
    assert isinstance(warning.message, ConflictingTokenIdWarning)
    assert warning.message.fix == "remove `pard_token` or set it to 151669"
    assert warning.message.field == "pard_token"


@pytest.mark.parametrize(
    ("special", "value"),
    [
        ("pad_token_id", 151643),
        ("bos_token_id", 151643),
        ("eos_token_id", 151643),
        ("eos_token_id", [151645, 151643]),
        ("eos_token_id", (151643,)),
    ],
)
def test_placeholder_warning_names_the_special_field(special: str, value: object) -> None:
    with pytest.warns(PlaceholderTokenIdWarning) as record:
        config = ParallelDraftingConfig.from_hf_config({"pard_token": 151643, special: value})
    assert config.token_id == 151643  # a warning, not an error
    (warning,) = record
    message = str(warning.message)
    role = special.removesuffix("_token_id")
    assert message.startswith(f"`pard_token` = 151643 is also a{'n' * (role == 'eos')} {role} ")
    assert "token id (config)" in message
    assert isinstance(warning.message, PlaceholderTokenIdWarning)
    assert warning.message.field == "pard_token"
    assert warning.message.fix == (
        "set `pard_token` to a dedicated mask token id, not a special token's"
    )


def test_placeholder_in_text_config_is_found() -> None:
    with pytest.warns(PlaceholderTokenIdWarning, match=r"`text_config\.pad_token_id`"):
        ParallelDraftingConfig.from_hf_config(
            {"mask_token_id": 0, "text_config": {"pad_token_id": 0}}
        )


@pytest.mark.parametrize("special", [None, True, "151643", [None, "x"], 151642])
def test_no_placeholder_warning_for_other_values(special: object) -> None:
    config = ParallelDraftingConfig.from_hf_config({"pard_token": 151643, "pad_token_id": special})
    assert config.token_id == 151643


def test_warnings_point_at_the_caller() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ParallelDraftingConfig.from_hf_config({"pard_token": 2, "ptd_token_id": 3})
        get_parallel_drafting_token_id({"pard_token": 2, "ptd_token_id": 3})
        ParallelDraftingConfig.model_validate({"pard_token": 2, "ptd_token_id": 3})
    assert [Path(w.filename).name for w in caught] == ["test_errors.py"] * 3
    assert len({w.lineno for w in caught}) == 3
