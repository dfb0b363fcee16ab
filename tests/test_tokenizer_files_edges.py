"""Exact edges of the tokenizer-file messages (found by mutation testing)."""

from __future__ import annotations

import pytest

from drafting_config.files.json_files import ConfigFileError
from drafting_config.files.tokenizer_files import _key, _token_text, _unigram_pieces


def test_a_bad_unigram_entry_is_named_and_shown() -> None:
    with pytest.raises(ConfigFileError) as info:
        _unigram_pieces("tokenizer.json", [["a", 0.5], ["b"]])
    assert info.value.problem == "`model.vocab[1]` must be a [piece, score] pair; got ['b'] (list)."


def test_a_token_that_is_neither_text_nor_an_object_is_shown() -> None:
    with pytest.raises(ConfigFileError) as info:
        _token_text("tokenizer.json", "added_tokens[3]", 5)
    assert info.value.problem == (
        '`added_tokens[3]` must be a token string, an object with "content", or null; got 5 (int).'
    )


def test_keys_are_shown_whole_up_to_forty_characters() -> None:
    assert _key("k" * 38) == '"' + "k" * 38 + '"'  # 40 characters with the quotes
    assert _key("k" * 39) == '"' + "k" * 35 + '..."'
    assert _key('a"b') == '"a\\"b"'
