"""A draft's file as written (:func:`read_draft`), which every engine starts from."""

from __future__ import annotations

from typing import get_args

from drafting_config import FieldStatus, TokenIdSource, resolve
from drafting_config.draft.file import read_draft
from drafting_config.engines import ENGINE_NAMES, ENGINES, RELEASES, Engine, EngineName


def test_a_hugging_face_file_reads_as_the_resolver_reads_it() -> None:
    config = {"dflash_config": {"mask_token_id": 7}, "mask_token_id": 8, "vocab_size": 100}
    draft = read_draft(config)
    resolution = resolve(config)
    assert draft.format == "hf"
    assert draft.fields == resolution.fields
    assert [str(w) for w in draft.warnings] == [str(w) for w in resolution.warnings]
    assert draft.errors == resolution.errors == ()
    assert draft.token == (7, "dflash_config.mask_token_id")
    assert [f.source for f in draft.shadowed] == [TokenIdSource.MASK_TOKEN_ID]


def test_a_speculators_file_is_read_as_written_not_as_vllm_translates_it() -> None:
    config = {"speculators_model_type": "dflash", "speculators_config": {}, "mask_token_id": 5}
    draft = read_draft(config)
    assert draft.format == "speculators"
    assert draft.token == (5, "mask_token_id")  # the file's own top-level field


def test_an_unreadable_config_has_no_fields_and_one_error() -> None:
    draft = read_draft(["not", "a", "config"])
    assert draft.fields == ()
    assert len(draft.errors) == 1
    assert draft.errors_beside_token() == list(draft.errors)


def test_the_errors_beside_the_token_id_leave_out_the_token_fields() -> None:
    draft = read_draft({"pard_token": "5", "hidden_size": 0})
    assert [f.status for f in draft.fields if f.source is TokenIdSource.PARD_TOKEN] == [
        FieldStatus.INVALID
    ]
    assert {e.field for e in draft.errors} == {"hidden_size", "pard_token"}
    assert [e.field for e in draft.errors_beside_token()] == ["hidden_size"]
    # With no field set at all, "names no token id" is about the token id too.
    assert read_draft({}).errors_beside_token() == []


def test_the_method_a_file_names_follows_its_field_and_its_dspark_classes() -> None:
    def method(config: dict[str, object]) -> str | None:
        return read_draft(config).named_method

    assert method({"dflash_config": {"mask_token_id": 1}}) == "dflash"
    assert method({"pard_token": 1}) == "pard"
    assert method({"mask_token_id": 1}) is None  # a field several methods share
    assert method({"mask_token_id": 1, "architectures": ["Gemma4DSparkModel"]}) == "dspark"
    assert method({"dflash_config": {"mask_token_id": 1, "projector_type": "dspark"}}) == "dspark"
    assert method({"pard_token": 1, "architectures": ["Gemma4DSparkModel"]}) == "pard"


def test_the_engines_are_one_list() -> None:
    assert tuple(ENGINES) == get_args(EngineName)
    assert (*ENGINES, *RELEASES) == get_args(Engine)
    assert {name: rules.ENGINE for name, rules in ENGINES.items()} == ENGINE_NAMES
