"""The rules of a token id (draft/fields.py)."""

from __future__ import annotations

from drafting_config import ParallelDraftingConfigError
from drafting_config.draft.fields import token_id_error
from drafting_config.values.edits import ConfigEdit


def test_a_quoted_token_id_is_unquoted_by_the_token_rule_and_nothing_else_is() -> None:
    quoted = token_id_error("mask_token_id", "151669", None)
    assert isinstance(quoted, ParallelDraftingConfigError)
    assert quoted.edit == ConfigEdit.set("mask_token_id", 151669)
    for value in ("0x10", " 5", 7.0, True, "05"):
        error = token_id_error("mask_token_id", value, None)
        assert isinstance(error, ParallelDraftingConfigError)
        assert error.edit is None, value
