"""The pydantic model: construction, immutability, serialization round trips."""

from __future__ import annotations

import copy
import json
import pickle
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError, model_validator

from drafting_config import (
    ConfigFileError,
    ParallelDraftingConfig,
    ParallelDraftingConfigError,
    ShadowedTokenId,
    TokenIdSource,
)
from drafting_config.files import repo_ids
from drafting_config.files.repo_ids import RepoIdError
from tests.conftest import CARRIERS, VALID_EXAMPLES, Carrier, load_json


@pytest.fixture(params=[p.parent.name for p in VALID_EXAMPLES])
def example(request: pytest.FixtureRequest) -> dict[str, Any]:
    return load_json(next(p for p in VALID_EXAMPLES if p.parent.name == request.param))


def test_from_hf_config_and_model_validate_agree(example: dict[str, Any], carrier: Carrier) -> None:
    hf_config = carrier(example)
    if "speculators_config" in example and carrier is CARRIERS["namespace"]:
        # The speculators format's sections must be JSON objects (vLLM requires dicts).
        with pytest.raises(ParallelDraftingConfigError) as info:
            ParallelDraftingConfig.from_hf_config(hf_config)
        assert info.value.field == "speculators_config"
        with pytest.raises(ValidationError):
            ParallelDraftingConfig.model_validate(hf_config)
        return
    assert ParallelDraftingConfig.from_hf_config(
        hf_config
    ) == ParallelDraftingConfig.model_validate(hf_config)


def test_json_round_trip(example: dict[str, Any]) -> None:
    config = ParallelDraftingConfig.from_hf_config(example)
    text = config.model_dump_json()
    assert ParallelDraftingConfig.model_validate_json(text) == config
    assert ParallelDraftingConfig.model_validate(config.model_dump()) == config
    assert ParallelDraftingConfig.model_validate(config.model_dump(mode="json")) == config


def test_pickle_and_copy_round_trip(example: dict[str, Any]) -> None:
    config = ParallelDraftingConfig.from_hf_config(example)
    for clone in (pickle.loads(pickle.dumps(config)), copy.deepcopy(config), copy.copy(config)):
        assert clone == config
        assert hash(clone) == hash(config)


def test_round_trip_keeps_shadowed_fields() -> None:
    config = ParallelDraftingConfig.from_hf_config(
        {"dspark_noise_token_id": 151669, "ptd_token_id": 151669, "vocab_size": 151936}
    )
    assert config.model_dump(mode="json") == {
        "token_id": 151669,
        "source": "dspark_noise_token_id",
        "shadowed": [{"source": "ptd_token_id", "token_id": 151669}],
        "hidden_size": None,
        "vocab_size": 151936,
        "format": "hf",
        "algorithm": "dspark",
        "aux_layer_ids": None,
        "aux_layer_source": None,
    }
    assert ParallelDraftingConfig.model_validate_json(config.model_dump_json()) == config


@pytest.mark.parametrize("field", ["token_id", "source", "shadowed", "hidden_size", "vocab_size"])
def test_fields_cannot_be_assigned(field: str) -> None:
    config = ParallelDraftingConfig.from_hf_config({"pard_token": 1, "hidden_size": 8})
    with pytest.raises(ValidationError, match="frozen"):
        setattr(config, field, 2)
    assert config.token_id == 1


def test_shadowed_items_are_frozen_too() -> None:
    config = ParallelDraftingConfig.from_hf_config({"pard_token": 1, "ptd_token_id": 1})
    with pytest.raises(ValidationError, match="frozen"):
        config.shadowed[0].token_id = 5  # type: ignore[misc]


def test_configs_are_hashable_and_usable_as_keys() -> None:
    a = ParallelDraftingConfig.from_hf_config({"pard_token": 1})
    b = ParallelDraftingConfig.from_hf_config({"pard_token": 1})
    c = ParallelDraftingConfig.from_hf_config({"ptd_token_id": 1})
    assert a == b
    assert a != c
    assert len({a, b, c}) == 2


def test_model_validate_returns_an_existing_instance_unchanged() -> None:
    config = ParallelDraftingConfig.from_hf_config({"pard_token": 1})
    assert ParallelDraftingConfig.model_validate(config) is config


def test_direct_construction_is_validated_strictly() -> None:
    config = ParallelDraftingConfig(
        token_id=5,
        source=TokenIdSource.PARD_TOKEN,
        shadowed=(ShadowedTokenId(source=TokenIdSource.PTD_TOKEN_ID, token_id=6),),
        vocab_size=10,
    )
    assert config.shadowed[0].token_id == 6


@pytest.mark.parametrize(
    ("fields", "complaint"),
    [
        ({"token_id": "5", "source": "pard_token"}, "valid integer"),
        ({"token_id": 5.0, "source": "pard_token"}, "valid integer"),
        ({"token_id": True, "source": "pard_token"}, "valid integer"),
        ({"token_id": -1, "source": "pard_token"}, "greater than or equal to 0"),
        ({"token_id": 2**31, "source": "pard_token"}, "less than 2147483648"),
        ({"token_id": 5, "source": "eos_token_id"}, "dflash_config.mask_token_id"),
        ({"token_id": 5, "source": "pard_token", "extra": 1}, "Extra inputs"),
        ({"token_id": 5, "source": "pard_token", "hidden_size": 0}, "greater than 0"),
        (
            {"token_id": 5, "source": "pard_token", "vocab_size": 5},
            "`token_id` = 5 is out of range",
        ),
        (
            {
                "token_id": 5,
                "source": "pard_token",
                "shadowed": [{"source": "mask_token_id", "token_id": 1}],
            },
            "lower priority than `source`",
        ),
        (
            {
                "token_id": 5,
                "source": "mask_token_id",
                "shadowed": [
                    {"source": "pard_token", "token_id": 1},
                    {"source": "pard_token", "token_id": 1},
                ],
            },
            "each once",
        ),
    ],
)
def test_serialized_form_is_validated(fields: dict[str, Any], complaint: str) -> None:
    with pytest.raises(ValidationError, match=complaint.replace("(", r"\(").replace("[", r"\[")):
        ParallelDraftingConfig.model_validate(fields)


def test_json_schema_describes_every_field() -> None:
    schema = ParallelDraftingConfig.model_json_schema()
    properties = schema["properties"]
    assert set(properties) == set(ParallelDraftingConfig.model_fields)
    assert set(properties) >= {"token_id", "source", "shadowed", "hidden_size", "vocab_size"}
    assert all(p.get("description") for p in properties.values())
    assert properties["token_id"]["minimum"] == 0
    assert properties["token_id"]["exclusiveMaximum"] == 2**31
    assert schema["$defs"]["TokenIdSource"]["enum"] == [s.value for s in TokenIdSource]
    assert schema["required"] == ["token_id", "source"]


def test_token_id_source_is_a_str_enum() -> None:
    assert isinstance(TokenIdSource.PARD_TOKEN, str)
    assert TokenIdSource("dflash_config.mask_token_id") is TokenIdSource.DFLASH_MASK_TOKEN_ID
    assert str(TokenIdSource.DFLASH_MASK_TOKEN_ID) == "dflash_config.mask_token_id"
    assert TokenIdSource.DFLASH_MASK_TOKEN_ID.section == "dflash_config"
    assert TokenIdSource.DFLASH_MASK_TOKEN_ID.key == "mask_token_id"
    assert TokenIdSource.PARD_TOKEN.section is None
    assert TokenIdSource.PARD_TOKEN.key == "pard_token"


class Tagged(ParallelDraftingConfig):
    """A subclass with a defaulted extra field and a validator of its own."""

    tag: str = "default"

    @model_validator(mode="after")
    def _no_pard(self) -> Tagged:
        if self.source is TokenIdSource.PARD_TOKEN:
            raise ValueError("this engine does not run PARD drafters")
        return self


class NeedsEngine(ParallelDraftingConfig):
    """A subclass with a required extra field, which no HF config fills."""

    engine: str


def test_a_subclass_is_built_and_validated_like_model_validate() -> None:
    config = Tagged.from_hf_config({"ptd_token_id": 5})
    assert isinstance(config, Tagged)
    assert (config.token_id, config.tag) == (5, "default")
    assert config == Tagged.model_validate({"ptd_token_id": 5})


def test_a_subclass_validator_runs_from_an_hf_config() -> None:
    with pytest.raises(ParallelDraftingConfigError, match="does not run PARD drafters"):
        Tagged.from_hf_config({"pard_token": 5})
    with pytest.raises(ValidationError, match="does not run PARD drafters"):
        Tagged.model_validate({"pard_token": 5})


def test_a_required_extra_field_of_a_subclass_is_an_error_naming_it() -> None:
    with pytest.raises(ParallelDraftingConfigError) as info:
        NeedsEngine.from_hf_config({"pard_token": 5})
    assert info.value.field == "engine"
    with pytest.raises(ValidationError, match="engine"):
        NeedsEngine.model_validate({"pard_token": 5})


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"num_target_layers": "4"}, None),
        (
            {"dflash_config": {"mask_token_id": 5, "target_layer_ids": [3, 1]}},
            "dflash_config.target_layer_ids",
        ),
        ({"target_layer_ids": [True, 2]}, "target_layer_ids"),
    ],
)
def test_the_model_leaves_the_layer_rules_to_check(
    extra: dict[str, Any], field: str | None
) -> None:
    """The model resolves the token id and the sizes only; ``check()`` judges the
    layers, which need the target."""
    from drafting_config import check

    draft = {"mask_token_id": 5, **extra}
    assert ParallelDraftingConfig.from_hf_config(draft).token_id == 5
    errors = check(draft, check_tokenizer=False).errors
    assert [error.field for error in errors] == ([] if field is None else [field])


# --- Exact edges of ParallelDraftingConfig.from_pretrained ----------------------------------------


def test_repo_ids_are_looked_up_offline_unless_download_is_asked(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"pard_token": 5}))
    calls: list[tuple[str, str, bool]] = []

    def snapshot(repo_id: str, *, revision: str, download: bool, **_: object) -> Path:
        calls.append((repo_id, revision, download))
        return tmp_path

    monkeypatch.setattr(repo_ids, "_snapshot", snapshot)
    assert ParallelDraftingConfig.from_pretrained("org/name").token_id == 5
    assert (
        ParallelDraftingConfig.from_pretrained("org/name", revision="v1", download=True).token_id
        == 5
    )
    assert calls == [("org/name", "main", False), ("org/name", "v1", True)]


def test_a_bad_revision_is_refused_even_for_a_local_path(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"pard_token": 5}))
    with pytest.raises(RepoIdError, match="revision"):
        ParallelDraftingConfig.from_pretrained(tmp_path, revision="a..b")


def test_an_os_pathlike_is_always_a_path_never_a_repo_id(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``from_pretrained(pathlib.Path("org/draft"))`` reads the path, as check() does, even
    when the repo id ``org/draft`` is cached."""
    monkeypatch.chdir(tmp_path)
    looked_up: list[str] = []

    def snapshot(repo_id: str, **_: object) -> Path:
        looked_up.append(repo_id)
        return tmp_path

    monkeypatch.setattr(repo_ids, "_snapshot", snapshot)
    (tmp_path / "config.json").write_text(json.dumps({"pard_token": 5}))
    assert ParallelDraftingConfig.from_pretrained("org/draft").token_id == 5  # text: a repo id
    with pytest.raises(ConfigFileError, match="no such file or directory"):
        ParallelDraftingConfig.from_pretrained(Path("org/draft"))
    assert looked_up == ["org/draft"]
