"""Tokenizer files read offline: what sits at an id, where a text sits, the named special tokens.

Tokenizers are written with the ``tokenizers`` library (tests/tokenizer_factory.py),
and the facts read from them are checked against that library and, in slow
tests, against transformers' ``AutoTokenizer``.
"""

from __future__ import annotations

import importlib
import json
import os
import pickle
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drafting_config import check
from drafting_config.files.json_files import ConfigFileError
from drafting_config.files.tokenizer_files import (
    MAX_TOKENIZER_FILE_BYTES,
    SPECIAL_TOKEN_ROLES,
    TOKENIZER_FILE_NAMES,
    AddedToken,
    SpecialToken,
    TokenFacts,
    TokenizerFiles,
    TokenKind,
    _key,
    _token_text,
    _unigram_pieces,
    load_tokenizer_files,
)
from drafting_config.values.errors import ParallelDraftingConfigError
from tests.conftest import EXAMPLES, REPO
from tests.tokenizer_factory import (
    QWEN3_ADDED,
    QWEN3_BASE_VOCAB,
    ROLES,
    Added,
    ConfigStyle,
    ModelKind,
    base_vocabulary,
    write_llama3_like,
    write_qwen3_like,
    write_tokenizer,
)

STYLES: tuple[ConfigStyle, ...] = ("v5", "v4", "legacy", "map-only")
MODELS: tuple[ModelKind, ...] = ("BPE", "WordPiece", "Unigram")


def _load(directory: Path) -> TokenizerFiles:
    files = load_tokenizer_files(directory)
    assert files is not None
    return files


def _facts(files: TokenizerFiles, token_id: int) -> TokenFacts:
    facts = files.describe(token_id)
    assert facts is not None
    return facts


# -- real layouts, small ---------------------------------------------------------------


def test_qwen3_layout(tmp_path: Path) -> None:
    base = 300
    files = _load(write_qwen3_like(tmp_path, vocab_size=base))
    texts, _ = base_vocabulary(base)
    assert files.length == base + len(QWEN3_ADDED) == 326
    assert files.model_type == "BPE"
    assert files.files == ("tokenizer.json", "tokenizer_config.json")
    assert _facts(files, 0) == TokenFacts(0, TokenKind.ORDINARY, texts[0])
    assert _facts(files, base - 1) == TokenFacts(base - 1, TokenKind.ORDINARY, texts[-1])
    assert _facts(files, base) == TokenFacts(base, TokenKind.SPECIAL, "<|endoftext|>")
    assert _facts(files, base + 2) == TokenFacts(base + 2, TokenKind.SPECIAL, "<|im_end|>")
    assert _facts(files, base + 14) == TokenFacts(base + 14, TokenKind.ADDED, "<tool_call>")
    assert _facts(files, 325) == TokenFacts(325, TokenKind.ADDED, "</think>")
    # Past the tokenizer, below the embedding table's end: DFlash's mask row.
    for unused in (326, 327, 593, 10**9):
        assert _facts(files, unused) == TokenFacts(unused, TokenKind.UNUSED, None)
    assert dict(files.special_tokens) == {
        "pad": SpecialToken("pad", "<|endoftext|>", base),
        "eos": SpecialToken("eos", "<|im_end|>", base + 2),
    }
    assert files.id_of("<think>") == base + 24
    assert files.id_of(texts[7]) == 7
    assert files.id_of("<|MASK|>") is None
    assert [t.id for t in files.added_tokens] == list(range(base, 326))
    assert sum(t.special for t in files.added_tokens) == 14


def test_llama3_layout_has_special_tokens_up_to_the_vocab_size(tmp_path: Path) -> None:
    files = _load(write_llama3_like(tmp_path, vocab_size=200, added_count=56))
    assert files.length == 256
    assert all(_facts(files, i).kind is TokenKind.SPECIAL for i in range(200, 256))
    assert _facts(files, 220) == TokenFacts(220, TokenKind.SPECIAL, "<|reserved_special_token_12|>")
    assert _facts(files, 256).kind is TokenKind.UNUSED
    assert files.special_tokens["bos"] == SpecialToken("bos", "<|begin_of_text|>", 200)
    assert files.special_tokens["eos"] == SpecialToken("eos", "<|eot_id|>", 209)
    assert set(files.special_tokens) == {"bos", "eos"}


def test_unigram_layout_with_specials_inside_the_vocabulary(tmp_path: Path) -> None:
    first = ["<unk>", "<s>", "</s>"]
    write_tokenizer(
        tmp_path,
        model="Unigram",
        vocab_size=50,
        vocab_first=first,
        added=[Added(t) for t in first] + [Added("<extra_0>")],
        specials={"unk": "<unk>", "bos": "<s>", "eos": "</s>"},
    )
    files = _load(tmp_path)
    texts, _ = base_vocabulary(50, first=first)
    assert files.model_type == "Unigram"
    assert files.length == 51
    assert _facts(files, 1) == TokenFacts(1, TokenKind.SPECIAL, "<s>")
    assert _facts(files, 50) == TokenFacts(50, TokenKind.SPECIAL, "<extra_0>")
    assert _facts(files, 10) == TokenFacts(10, TokenKind.ORDINARY, texts[10])
    assert files.id_of(texts[10]) == 10
    assert files.id_of(texts[49]) == 49
    assert files.id_of("nope") is None
    assert {role: t.id for role, t in files.special_tokens.items()} == {
        "unk": 0,
        "bos": 1,
        "eos": 2,
    }


def test_wordpiece_layout_with_a_mask_token(tmp_path: Path) -> None:
    first = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    write_tokenizer(
        tmp_path,
        model="WordPiece",
        vocab_size=40,
        vocab_first=first,
        added=[Added(t) for t in first],
        specials={"pad": "[PAD]", "unk": "[UNK]", "mask": "[MASK]"},
        config_style="v4",
    )
    files = _load(tmp_path)
    assert files.length == 40
    assert files.special_tokens["mask"] == SpecialToken("mask", "[MASK]", 4)
    assert _facts(files, 4) == TokenFacts(4, TokenKind.SPECIAL, "[MASK]")


@pytest.mark.parametrize("style", STYLES)
def test_every_config_style_names_the_same_special_tokens(
    tmp_path: Path, style: ConfigStyle
) -> None:
    files = _load(write_qwen3_like(tmp_path, vocab_size=100, config_style=style))
    assert {role: (t.text, t.id) for role, t in files.special_tokens.items()} == {
        "pad": ("<|endoftext|>", 100),
        "eos": ("<|im_end|>", 102),
    }
    expected_files = {
        "v5": ("tokenizer.json", "tokenizer_config.json"),
        "v4": ("tokenizer.json", "tokenizer_config.json"),
        "legacy": TOKENIZER_FILE_NAMES,
        "map-only": TOKENIZER_FILE_NAMES,
    }
    assert files.files == expected_files[style]


def _write_json(directory: Path, name: str, data: object) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_text(json.dumps(data))


def _tokenizer_json(vocab: object, added: Sequence[object] = ()) -> dict[str, object]:
    """A minimal ``tokenizer.json``; ``vocab`` and ``added`` may be malformed on purpose."""
    return {"added_tokens": list(added), "model": {"type": "BPE", "vocab": vocab, "merges": []}}


def test_special_tokens_map_wins_only_without_added_tokens_decoder(tmp_path: Path) -> None:
    # As in transformers 5: the map is legacy, read when the config has no decoder.
    vocab = {"a": 0, "<pad>": 1, "<other>": 2}
    for name, decoder, expected in [
        ("without", None, "<other>"),
        ("with", {"1": {"content": "<pad>", "special": True}}, "<pad>"),
    ]:
        directory = tmp_path / name
        _write_json(directory, "tokenizer.json", _tokenizer_json(vocab))
        config: dict[str, object] = {"pad_token": "<pad>", "eos_token": "a"}
        if decoder is not None:
            config["added_tokens_decoder"] = decoder
        _write_json(directory, "tokenizer_config.json", config)
        _write_json(directory, "special_tokens_map.json", {"pad_token": {"content": "<other>"}})
        files = _load(directory)
        assert files.special_tokens["pad"].text == expected
        assert files.special_tokens["eos"] == SpecialToken("eos", "a", 0)


def test_null_special_tokens_are_absent_and_the_map_can_unset_one(tmp_path: Path) -> None:
    _write_json(tmp_path, "tokenizer.json", _tokenizer_json({"a": 0, "b": 1}))
    _write_json(tmp_path, "tokenizer_config.json", {"bos_token": None, "pad_token": "a"})
    _write_json(tmp_path, "special_tokens_map.json", {"pad_token": None, "eos_token": "b"})
    files = _load(tmp_path)
    assert dict(files.special_tokens) == {"eos": SpecialToken("eos", "b", 1)}


def test_named_tokens_missing_from_the_files_are_appended_as_transformers_does(
    tmp_path: Path,
) -> None:
    _write_json(tmp_path, "tokenizer.json", _tokenizer_json({"a": 0, "b": 1}))
    config = {
        "mask_token": "<|MASK|>",
        "pad_token": "<pad>",
        "eos_token": "b",
        "additional_special_tokens": ["<x>", {"content": "<pad>"}],
    }
    _write_json(tmp_path, "tokenizer_config.json", config)
    files = _load(tmp_path)
    # Roles in transformers' order (bos, eos, unk, sep, pad, cls, mask), then the extras.
    assert dict(files.special_tokens) == {
        "eos": SpecialToken("eos", "b", 1),
        "pad": SpecialToken("pad", "<pad>", 2),
        "mask": SpecialToken("mask", "<|MASK|>", 3),
    }
    assert files.length == 5
    assert [(t.id, t.text, t.special) for t in files.added_tokens] == [
        (1, "b", True),
        (2, "<pad>", True),
        (3, "<|MASK|>", True),
        (4, "<x>", True),
    ]
    assert _facts(files, 0) == TokenFacts(0, TokenKind.ORDINARY, "a")
    assert _facts(files, 1) == TokenFacts(1, TokenKind.SPECIAL, "b")  # named: special
    assert _facts(files, 3) == TokenFacts(3, TokenKind.SPECIAL, "<|MASK|>")
    assert files.id_of("<x>") == 4


def test_appended_tokens_follow_the_role_order_whichever_file_names_them(tmp_path: Path) -> None:
    _write_json(tmp_path, "tokenizer.json", _tokenizer_json({"a": 0}))
    _write_json(tmp_path, "tokenizer_config.json", {"mask_token": "<M>"})
    _write_json(tmp_path, "special_tokens_map.json", {"pad_token": "<P>", "bos_token": "<B>"})
    files = _load(tmp_path)
    assert [(t.role, t.id) for t in files.special_tokens.values()] == [
        ("bos", 1),
        ("pad", 2),
        ("mask", 3),
    ]


def test_a_token_named_for_a_role_becomes_special_an_extra_one_keeps_its_flag(
    tmp_path: Path,
) -> None:
    added = [
        {"id": 2, "content": "<think>", "special": False},
        {"id": 3, "content": "[MASK]", "special": False},
    ]
    _write_json(tmp_path, "tokenizer.json", _tokenizer_json({"a": 0, "b": 1}, added))
    config = {"pad_token": "<think>", "extra_special_tokens": {"m": "[MASK]", "b": "b"}}
    _write_json(tmp_path, "tokenizer_config.json", config)
    files = _load(tmp_path)
    assert _facts(files, 2) == TokenFacts(2, TokenKind.SPECIAL, "<think>")
    assert _facts(files, 3) == TokenFacts(3, TokenKind.ADDED, "[MASK]")
    assert _facts(files, 1) == TokenFacts(1, TokenKind.SPECIAL, "b")
    assert list(files.special_tokens) == ["pad"]


def test_without_tokenizer_json_the_decoder_gives_the_added_tokens(tmp_path: Path) -> None:
    write_qwen3_like(tmp_path, vocab_size=100, config_style="v4")
    (tmp_path / "tokenizer.json").unlink()
    files = _load(tmp_path)
    assert files.length is None
    assert files.model_type is None
    assert files.files == ("tokenizer_config.json",)
    assert _facts(files, 100) == TokenFacts(100, TokenKind.SPECIAL, "<|endoftext|>")
    assert _facts(files, 124) == TokenFacts(124, TokenKind.ADDED, "<think>")
    assert files.describe(5) is None  # the base vocabulary is not in these files
    assert files.describe(126) is None
    assert files.special_tokens["eos"] == SpecialToken("eos", "<|im_end|>", 102)
    assert files.id_of("<think>") == 124
    assert files.id_of("a") is None


def test_names_only_without_tokenizer_json(tmp_path: Path) -> None:
    _write_json(tmp_path, "special_tokens_map.json", {"eos_token": "</s>", "unk_token": "<unk>"})
    files = _load(tmp_path)
    assert files.length is None
    assert {role: t.id for role, t in files.special_tokens.items()} == {"eos": None, "unk": None}
    assert files.describe(0) is None


def test_tokenizer_json_added_tokens_win_over_the_decoder(tmp_path: Path) -> None:
    added = [{"id": 2, "content": "<eos>", "special": True}]
    _write_json(tmp_path, "tokenizer.json", _tokenizer_json({"a": 0, "b": 1}, added))
    decoder = {"7": {"content": "<eos>", "special": True}}
    _write_json(tmp_path, "tokenizer_config.json", {"added_tokens_decoder": decoder})
    files = _load(tmp_path)
    assert files.added_tokens == (AddedToken(2, "<eos>", True),)
    assert files.describe(7) == TokenFacts(7, TokenKind.UNUSED, None)


def test_gaps_in_the_vocabulary_are_unused(tmp_path: Path) -> None:
    write_tokenizer(tmp_path, model="WordPiece", vocab_size=30, vocab_holes=[5, 6, 20])
    files = _load(tmp_path)
    texts, _ = base_vocabulary(30)
    assert files.length == 33
    assert _facts(files, 4) == TokenFacts(4, TokenKind.ORDINARY, texts[4])
    for hole in (5, 6, 20):
        assert _facts(files, hole) == TokenFacts(hole, TokenKind.UNUSED, None)
    assert _facts(files, 7) == TokenFacts(7, TokenKind.ORDINARY, texts[5])
    assert _facts(files, 32) == TokenFacts(32, TokenKind.ORDINARY, texts[29])
    assert files.id_of(texts[5]) == 7


def test_added_tokens_may_leave_gaps(tmp_path: Path) -> None:
    added = [
        {"id": 3, "content": "<a>", "special": True},
        {"id": 9, "content": "<b>", "special": False},
    ]
    _write_json(tmp_path, "tokenizer.json", _tokenizer_json({"x": 0, "y": 1, "z": 2}, added))
    files = _load(tmp_path)
    assert files.length == 10
    assert [_facts(files, i).kind for i in range(11)] == [
        *[TokenKind.ORDINARY] * 3,
        TokenKind.SPECIAL,
        *[TokenKind.UNUSED] * 5,
        TokenKind.ADDED,
        TokenKind.UNUSED,
    ]


def test_an_added_token_at_a_vocabulary_id_is_the_added_token(tmp_path: Path) -> None:
    added = [{"id": 1, "content": "<s>", "special": True}]
    _write_json(tmp_path, "tokenizer.json", _tokenizer_json({"a": 0, "<s>": 1}, added))
    files = _load(tmp_path)
    assert files.length == 2
    assert _facts(files, 1) == TokenFacts(1, TokenKind.SPECIAL, "<s>")


def test_an_empty_vocabulary(tmp_path: Path) -> None:
    _write_json(tmp_path, "tokenizer.json", _tokenizer_json({}))
    files = _load(tmp_path)
    assert files.length == 0
    assert _facts(files, 0).kind is TokenKind.UNUSED
    assert files.id_of("") is None
    _write_json(tmp_path, "tokenizer.json", {"model": {"vocab": []}, "added_tokens": None})
    files = _load(tmp_path)
    assert (files.length, files.model_type, files.added_tokens) == (0, None, ())
    assert files.id_of("a") is None


def test_the_highest_allowed_ids(tmp_path: Path) -> None:
    top = 2**31 - 1
    added = [{"id": top, "content": "<last>", "special": True}]
    _write_json(tmp_path, "tokenizer.json", _tokenizer_json({"a": 0, "b": top - 1}, added))
    decoder = {str(top): {"content": "<last>", "special": True}}
    _write_json(tmp_path, "tokenizer_config.json", {"added_tokens_decoder": decoder})
    files = _load(tmp_path)
    assert files.length == 2**31
    assert _facts(files, top) == TokenFacts(top, TokenKind.SPECIAL, "<last>")
    assert _facts(files, top - 1) == TokenFacts(top - 1, TokenKind.ORDINARY, "b")
    assert _facts(files, 1) == TokenFacts(1, TokenKind.UNUSED, None)


def test_vocabulary_entries_sharing_an_id(tmp_path: Path) -> None:
    _write_json(tmp_path, "tokenizer.json", _tokenizer_json({"a": 0, "b": 0, "c": 1}))
    files = _load(tmp_path)
    assert _facts(files, 0).text == "b"  # the later entry, as when tokenizers inverts the map
    assert (files.id_of("a"), files.id_of("b")) == (0, 0)


def test_unigram_pieces_repeated(tmp_path: Path) -> None:
    vocab: list[list[object]] = [["a", 0.0], ["b", -1], ["a", -2.5]]
    _write_json(tmp_path, "tokenizer.json", _tokenizer_json(vocab))
    _write_json(tmp_path, "tokenizer_config.json", {"unk_token": "a"})
    files = _load(tmp_path)
    assert files.id_of("a") == 2
    assert files.special_tokens["unk"].id == 2
    assert _facts(files, 0).text == "a"


# -- the directory ---------------------------------------------------------------------


def test_a_directory_without_tokenizer_files_gives_none(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}")
    assert load_tokenizer_files(tmp_path) is None


def test_str_bytes_and_path_like_directories(tmp_path: Path) -> None:
    write_qwen3_like(tmp_path, vocab_size=10)
    for argument in (tmp_path, str(tmp_path), os.fsencode(tmp_path)):
        files = load_tokenizer_files(argument)
        assert files is not None
        assert (files.directory, files.length) == (str(tmp_path), 36)


def test_a_missing_directory_or_a_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigFileError) as info:
        load_tokenizer_files(tmp_path / "nope")
    assert info.value.problem.startswith("no such directory")
    (tmp_path / "tokenizer.json").write_text("{}")
    with pytest.raises(ConfigFileError) as info:
        load_tokenizer_files(tmp_path / "tokenizer.json")
    assert info.value.problem == "not a directory; expected a model or tokenizer directory."
    with pytest.raises(ParallelDraftingConfigError, match=r"^`directory` must be a path"):
        load_tokenizer_files(7)  # type: ignore[arg-type]


def test_an_oversized_tokenizer_json_is_refused_unread(tmp_path: Path) -> None:
    with (tmp_path / "tokenizer.json").open("wb") as file:
        file.truncate(MAX_TOKENIZER_FILE_BYTES + 1)  # sparse: costs nothing
    with pytest.raises(ConfigFileError) as info:
        load_tokenizer_files(tmp_path)
    assert info.value.path == str(tmp_path / "tokenizer.json")
    assert info.value.problem.startswith(
        "the file (67,108,865 bytes) is over the 67,108,864-byte limit for a tokenizer.json"
    )


@pytest.mark.slow
def test_a_tokenizer_json_of_exactly_the_limit_is_read(tmp_path: Path) -> None:
    data = json.dumps(_tokenizer_json({"a": 0})).encode()
    padded = data[:-1] + b" " * (MAX_TOKENIZER_FILE_BYTES - len(data)) + b"}"
    (tmp_path / "tokenizer.json").write_bytes(padded)
    assert _load(tmp_path).length == 1


def test_a_directory_named_tokenizer_json(tmp_path: Path) -> None:
    (tmp_path / "tokenizer.json").mkdir()
    with pytest.raises(ConfigFileError) as info:
        load_tokenizer_files(tmp_path)
    assert info.value.path == str(tmp_path / "tokenizer.json")
    assert info.value.problem == "this is a directory; expected a tokenizer.json file."


# -- malformed files: the file and the JSON path of the bad part -------------------------

BAD_PARTS: list[tuple[str, str, object, str]] = [
    # (file, case, content, the start of the problem)
    ("tokenizer.json", "root array", [], "the JSON root is an array"),
    ("tokenizer.json", "no model", {"added_tokens": []}, "`model` must be an object; got None"),
    ("tokenizer.json", "model type", {"model": {"type": 5, "vocab": {}}}, "`model.type` must be"),
    ("tokenizer.json", "no vocab", {"model": {"type": "BPE"}}, "`model.vocab` must be an object"),
    ("tokenizer.json", "vocab str", {"model": {"vocab": "a"}}, "`model.vocab` must be an object"),
    (
        "tokenizer.json",
        "id as string",
        _tokenizer_json({"a": 0, "b": "1"}),
        "`model.vocab[\"b\"]` must be an integer id; got '1' (str)",
    ),
    ("tokenizer.json", "negative id", _tokenizer_json({"a": -1}), '`model.vocab["a"]`'),
    ("tokenizer.json", "bool id", _tokenizer_json({"a": True}), '`model.vocab["a"]`'),
    ("tokenizer.json", "float id", _tokenizer_json({"a": 1.0}), '`model.vocab["a"]`'),
    ("tokenizer.json", "huge id", _tokenizer_json({"a": 0, "b": 2**31}), '`model.vocab["b"]`'),
    (
        "tokenizer.json",
        "odd key",
        _tokenizer_json({"x\n" + "y" * 100: None}),
        '`model.vocab["x\\n' + "y" * 32 + '..."]` must be an integer id',
    ),
    (
        "tokenizer.json",
        "unigram short pair",
        _tokenizer_json([["a", 0.0], ["b"]]),
        "`model.vocab[1]` must be a [piece, score] pair",
    ),
    ("tokenizer.json", "unigram score", _tokenizer_json([["a", "x"]]), "`model.vocab[0]`"),
    ("tokenizer.json", "unigram bool", _tokenizer_json([["a", False]]), "`model.vocab[0]`"),
    ("tokenizer.json", "unigram piece", _tokenizer_json([[1, 0.0]]), "`model.vocab[0]`"),
    ("tokenizer.json", "unigram string", _tokenizer_json([["a", 0], "ab"]), "`model.vocab[1]`"),
    (
        "tokenizer.json",
        "unigram object",
        _tokenizer_json([{"a": 1, "b": 2}]),
        "`model.vocab[0]`",
    ),
    (
        "tokenizer.json",
        "added not a list",
        {"model": {"vocab": {}}, "added_tokens": {}},
        "`added_tokens` must be a list",
    ),
    (
        "tokenizer.json",
        "added entry",
        _tokenizer_json({}, [1]),
        "`added_tokens[0]` must be an object",
    ),
    (
        "tokenizer.json",
        "added id missing",
        _tokenizer_json({}, [{"content": "a"}]),
        "`added_tokens[0].id` must be an integer id; got None",
    ),
    (
        "tokenizer.json",
        "added id bool",
        _tokenizer_json({}, [{"id": 0, "content": "a"}, {"id": True, "content": "b"}]),
        "`added_tokens[1].id` must be an integer id; got True (bool)",
    ),
    (
        "tokenizer.json",
        "added id too big",
        _tokenizer_json({}, [{"id": 2**31, "content": "a"}]),
        "`added_tokens[0].id` must be an integer id; got 2147483648 (int)",
    ),
    (
        "tokenizer.json",
        "added id negative",
        _tokenizer_json({}, [{"id": -1, "content": "a"}]),
        "`added_tokens[0].id` must be an integer id; got -1 (int)",
    ),
    (
        "tokenizer.json",
        "added content",
        _tokenizer_json({}, [{"id": 0, "content": None}]),
        "`added_tokens[0].content` must be a string",
    ),
    (
        "tokenizer.json",
        "added special",
        _tokenizer_json({}, [{"id": 0, "content": "a", "special": "yes"}]),
        "`added_tokens[0].special` must be true or false; got 'yes' (str)",
    ),
    (
        "tokenizer.json",
        "added ids collide",
        _tokenizer_json(
            {},
            [{"id": 4, "content": "<a>"}, {"id": 5, "content": "<b>"}, {"id": 4, "content": "<c>"}],
        ),
        "`added_tokens[2].id` is 4, already the id of `added_tokens[0]` ('<a>')",
    ),
    ("tokenizer_config.json", "pad int", {"pad_token": 5}, "`pad_token` must be a token string"),
    (
        "tokenizer_config.json",
        "eos content",
        {"eos_token": {"content": 5}},
        "`eos_token.content` must be a string; got 5 (int)",
    ),
    (
        "tokenizer_config.json",
        "decoder list",
        {"added_tokens_decoder": []},
        "`added_tokens_decoder` must be an object keyed by token id; got [] (list).",
    ),
    (
        "tokenizer_config.json",
        "decoder key",
        {"added_tokens_decoder": {"1x": {"content": "a"}}},
        '`added_tokens_decoder["1x"]`: the key must be a token id',
    ),
    (
        "tokenizer_config.json",
        "decoder key too big",
        {"added_tokens_decoder": {str(2**31): {"content": "a"}}},
        '`added_tokens_decoder["2147483648"]`: the key must be a token id',
    ),
    (
        # 11 digits is a small id with leading zeros, but never a key transformers writes.
        "tokenizer_config.json",
        "decoder key too long",
        {"added_tokens_decoder": {"00000000005": {"content": "a"}}},
        '`added_tokens_decoder["00000000005"]`: the key must be a token id',
    ),
    (
        "tokenizer_config.json",
        "decoder id twice",
        {"added_tokens_decoder": {"5": {"content": "a"}, "05": {"content": "b"}}},
        "`added_tokens_decoder[\"05\"]`: id 5 is also the key '5', and transformers keeps",
    ),
    (
        "tokenizer_config.json",
        "decoder content",
        {"added_tokens_decoder": {"5": {"special": True}}},
        '`added_tokens_decoder["5"].content` must be a string; got None',
    ),
    (
        "special_tokens_map.json",
        "mask list",
        {"mask_token": ["<mask>"]},
        '`mask_token` must be a token string, an object with "content", or null',
    ),
    ("special_tokens_map.json", "not json", "{'a': 1}", "not valid JSON"),
]


@pytest.mark.parametrize(
    ("file_name", "content", "problem"),
    [(f, c, p) for f, _, c, p in BAD_PARTS],
    ids=[case for _, case, _, _ in BAD_PARTS],
)
def test_malformed_parts_are_named_by_file_and_json_path(
    tmp_path: Path, file_name: str, content: object, problem: str
) -> None:
    if isinstance(content, str):
        (tmp_path / file_name).write_text(content)
    else:
        _write_json(tmp_path, file_name, content)
    with pytest.raises(ConfigFileError) as info:
        load_tokenizer_files(tmp_path)
    error = info.value
    assert error.path == str(tmp_path / file_name)
    assert error.problem.startswith(problem), error.problem
    assert "\n" not in str(error)
    assert pickle.loads(pickle.dumps(error)).problem == error.problem


# -- arguments -------------------------------------------------------------------------


class _LyingInt(int):
    def __int__(self) -> int:
        return 0

    def __index__(self) -> int:
        raise RuntimeError("never called")

    def __lt__(self, other: object) -> bool:
        raise RuntimeError("never called")


@pytest.fixture(scope="module")
def small_files() -> Iterator[TokenizerFiles]:
    with tempfile.TemporaryDirectory() as directory:
        yield _load(write_qwen3_like(Path(directory), vocab_size=50))


def test_describe_takes_an_int_subclass_as_its_own_value(small_files: TokenizerFiles) -> None:
    assert small_files.describe(_LyingInt(50)) == TokenFacts(50, TokenKind.SPECIAL, "<|endoftext|>")
    assert type(_facts(small_files, _LyingInt(3)).id) is int


@pytest.mark.parametrize(
    ("value", "phrase"),
    [
        (True, "`token_id` must be an int; got True (bool)"),
        ("5", "`token_id` must be an int; got '5' (str)"),
        (5.0, "`token_id` must be an int; got 5.0 (float)"),
        (None, "`token_id` must be an int; got None"),
        (mock.Mock(spec=int), "`token_id` must be an int; got <Mock"),
        (-1, "`token_id` must not be negative; got -1."),
    ],
)
def test_describe_refuses_what_is_not_a_token_id(
    small_files: TokenizerFiles, value: object, phrase: str
) -> None:
    with pytest.raises(ParallelDraftingConfigError) as info:
        small_files.describe(value)  # type: ignore[arg-type]
    assert str(info.value).startswith(phrase)


@pytest.mark.parametrize(
    "value", [5, b"<think>", None, mock.Mock(spec=str)], ids=["int", "bytes", "None", "mock-str"]
)
def test_id_of_refuses_what_is_not_text(small_files: TokenizerFiles, value: object) -> None:
    with pytest.raises(ParallelDraftingConfigError, match=r"^`text` must be a token string"):
        small_files.id_of(value)  # type: ignore[arg-type]


def test_token_kind_is_a_str_enum() -> None:
    assert [k.value for k in TokenKind] == ["special", "added", "unused", "ordinary"]
    assert json.dumps({"kind": TokenKind.UNUSED}) == '{"kind": "unused"}'
    assert str(TokenKind.ORDINARY) == "ordinary"
    assert TokenKind("special") is TokenKind.SPECIAL


def test_results_are_frozen(small_files: TokenizerFiles) -> None:
    with pytest.raises(AttributeError):
        small_files.length = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        small_files.special_tokens["pad"] = SpecialToken("pad", "x", 1)  # type: ignore[index]
    assert "added_tokens" not in repr(small_files)
    assert "special_tokens=" in repr(small_files)
    assert SPECIAL_TOKEN_ROLES == ROLES


# -- properties --------------------------------------------------------------------------

_POOL = ["<|endoftext|>", "<|im_end|>", "<think>", "[MASK]", "<|MASK|>", "<s>", "<unk>", "!", "#"]
_texts = st.sampled_from(_POOL) | st.text(min_size=1, max_size=5)


@st.composite
def _layouts(draw: st.DrawFn, *, with_specials: bool) -> dict[str, object]:
    added = draw(st.lists(st.tuples(_texts, st.booleans()), max_size=6, unique_by=lambda t: t[0]))
    return {
        "model": draw(st.sampled_from(MODELS)),
        "vocab_size": draw(st.integers(1, 40)),
        "vocab_first": draw(st.lists(st.sampled_from(_POOL), max_size=3, unique=True)),
        "added": [Added(text, special) for text, special in added],
        "specials": draw(st.dictionaries(st.sampled_from(ROLES), _texts, max_size=5))
        if with_specials
        else {},
        "extra_specials": draw(st.lists(_texts, max_size=2)) if with_specials else [],
        "config_style": draw(st.sampled_from(STYLES)),
        "seed": draw(st.integers(0, 3)),
    }


@settings(max_examples=60)
@given(_layouts(with_specials=False))
def test_facts_agree_with_the_tokenizers_library(layout: dict[str, object]) -> None:
    # Without named special tokens, which only transformers treats specially (below).
    from tokenizers import Tokenizer

    with tempfile.TemporaryDirectory() as name:
        directory = write_tokenizer(Path(name), **layout)  # type: ignore[arg-type]
        files = _load(directory)
        backend = Tokenizer.from_file(str(directory / "tokenizer.json"))
    decoder = backend.get_added_tokens_decoder()
    assert files.length == backend.get_vocab_size(with_added_tokens=True)
    assert files.length is not None
    for token_id in range(files.length + 3):
        facts = _facts(files, token_id)
        text = backend.id_to_token(token_id)
        assert facts.text == text
        if token_id in decoder:
            expected = TokenKind.SPECIAL if decoder[token_id].special else TokenKind.ADDED
        else:
            expected = TokenKind.UNUSED if text is None else TokenKind.ORDINARY
        assert facts.kind is expected
    for text in [*backend.get_vocab(with_added_tokens=True), *_POOL, "absent"]:
        assert files.id_of(text) == backend.token_to_id(text)
    assert files.special_tokens == {}


@st.composite
def _raw_layouts(draw: st.DrawFn) -> tuple[dict[str, int], list[AddedToken]]:
    """A vocabulary with arbitrary distinct ids, and added tokens at arbitrary distinct ids."""
    ids = draw(st.lists(st.integers(0, 60), unique=True, max_size=30))
    vocab = {f"v{i}": i for i in ids}
    added_ids = draw(st.lists(st.integers(0, 70), unique=True, max_size=8))
    added = [
        AddedToken(i, draw(st.sampled_from([f"<a{i}>", f"v{i}", "<shared>"])), draw(st.booleans()))
        for i in added_ids
    ]
    return vocab, added


@given(_raw_layouts())
def test_facts_follow_the_files_for_any_ids(raw: tuple[dict[str, int], list[AddedToken]]) -> None:
    vocab, added = raw
    entries: list[object] = [{"id": t.id, "content": t.text, "special": t.special} for t in added]
    with tempfile.TemporaryDirectory() as name:
        _write_json(Path(name), "tokenizer.json", _tokenizer_json(vocab, entries))
        files = _load(Path(name))
    added_by_id = {token.id: token for token in added}
    all_ids = [*vocab.values(), *added_by_id]
    assert files.length == (max(all_ids) + 1 if all_ids else 0)
    assert files.added_tokens == tuple(sorted(added, key=lambda token: token.id))
    text_of = {i: t for t, i in vocab.items()}
    for token_id in range(files.length + 2):
        facts = _facts(files, token_id)
        token = added_by_id.get(token_id)
        if token is not None:
            kind = TokenKind.SPECIAL if token.special else TokenKind.ADDED
            assert (facts.kind, facts.text) == (kind, token.text)
        elif token_id in text_of:
            assert (facts.kind, facts.text) == (TokenKind.ORDINARY, text_of[token_id])
        else:
            assert (facts.kind, facts.text) == (TokenKind.UNUSED, None)
    first_added: dict[str, int] = {}
    for token in added:
        first_added.setdefault(token.text, token.id)
    for text in {*vocab, *first_added, "absent"}:
        assert files.id_of(text) == first_added.get(text, vocab.get(text))


# -- full size ----------------------------------------------------------------------------


@pytest.fixture(scope="session")
def qwen3_tokenizer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Qwen3-sized tokenizer (151,643 BPE tokens with merges, 26 added): about 12 MB."""
    return write_qwen3_like(tmp_path_factory.mktemp("qwen3-tokenizer"))


@pytest.mark.slow
def test_a_qwen3_sized_tokenizer_loads_quickly_and_right(qwen3_tokenizer: Path) -> None:
    from tokenizers import Tokenizer

    assert (qwen3_tokenizer / "tokenizer.json").stat().st_size > 7_000_000
    start = time.process_time()
    files = _load(qwen3_tokenizer)
    facts = [_facts(files, i) for i in (0, 151642, 151643, 151645, 151667, 151669)]
    elapsed = time.process_time() - start
    # ~0.3 s of CPU here; the bound only catches a lost order of magnitude.
    assert elapsed < 3.0, elapsed
    assert files.length == QWEN3_BASE_VOCAB + 26 == 151669
    backend = Tokenizer.from_file(str(qwen3_tokenizer / "tokenizer.json"))
    assert [f.text for f in facts] == [
        backend.id_to_token(0),
        backend.id_to_token(151642),
        "<|endoftext|>",
        "<|im_end|>",
        "<think>",
        None,
    ]
    assert [f.kind for f in facts] == [
        TokenKind.ORDINARY,
        TokenKind.ORDINARY,
        TokenKind.SPECIAL,
        TokenKind.SPECIAL,
        TokenKind.ADDED,
        TokenKind.UNUSED,
    ]
    assert files.special_tokens["pad"].id == 151643
    assert files.special_tokens["eos"].id == 151645
    text = backend.id_to_token(100_000)
    assert text is not None
    assert files.id_of(text) == 100_000


@pytest.mark.slow
def test_reading_tokenizer_files_imports_neither_transformers_nor_tokenizers(
    qwen3_tokenizer: Path,
) -> None:
    import subprocess

    code = (
        "import sys; from drafting_config.tokenizer_files import load_tokenizer_files as load; "
        f"f = load({str(qwen3_tokenizer)!r}); f.describe(5); f.id_of('<think>'); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('transformers', 'tokenizers', 'torch', 'huggingface_hub')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=_env()
    )
    assert result.stdout.strip() == "[]"


def _env() -> dict[str, str]:
    root = str(REPO)
    return {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}


def _assert_agrees_with_transformers(directory: Path) -> None:
    """Our facts equal those of the tokenizer transformers' AutoTokenizer builds."""
    # Through importlib: the repository's transformers stub declares only what the package uses.
    auto_tokenizer: Any = importlib.import_module("transformers").AutoTokenizer
    files = _load(directory)
    tokenizer = auto_tokenizer.from_pretrained(str(directory))
    assert files.length == len(tokenizer)
    for role in ROLES:
        ours = files.special_tokens.get(role)
        assert (ours.text if ours else None) == getattr(tokenizer, f"{role}_token"), role
        assert (ours.id if ours else None) == getattr(tokenizer, f"{role}_token_id"), role
    decoder = tokenizer.added_tokens_decoder
    assert [(t.id, t.text, t.special) for t in files.added_tokens] == [
        (i, t.content, t.special) for i, t in sorted(decoder.items())
    ]
    for token_id in range(len(tokenizer) + 2):
        facts = _facts(files, token_id)
        text = tokenizer.convert_ids_to_tokens(token_id)
        assert facts.text == text, token_id
        if token_id in decoder:
            expected = TokenKind.SPECIAL if decoder[token_id].special else TokenKind.ADDED
        else:
            expected = TokenKind.UNUSED if text is None else TokenKind.ORDINARY
        assert facts.kind is expected, token_id


@pytest.mark.slow
@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("model", MODELS)
def test_facts_agree_with_transformers_auto_tokenizer(
    tmp_path: Path, style: ConfigStyle, model: ModelKind
) -> None:
    specials = {
        "pad": "<|endoftext|>",
        "eos": "<|im_end|>",
        "unk": "<unk>",
        "bos": "<s>",  # in the base vocabulary only
        "mask": "<|MASK|>",  # in no file: appended on load
    }
    _write_mixed_tokenizer(tmp_path, model, style, specials)
    _assert_agrees_with_transformers(tmp_path)


def _write_mixed_tokenizer(
    directory: Path, model: ModelKind, style: ConfigStyle, specials: dict[str, str]
) -> None:
    """80 base tokens, then added tokens of every kind: special, not special, one that is
    in the base vocabulary, and extra specials (one of them added, one not)."""
    write_tokenizer(
        directory,
        vocab_size=80,
        model=model,
        vocab_first=["<unk>", "<s>"],
        added=[*QWEN3_ADDED[:4], Added("<unk>"), Added("[MASK]", special=False)],
        specials=specials,
        extra_specials=["[MASK]", "<extra>"],
        config_style=style,
    )


def _drop_added_tokens(directory: Path, keep: int = 0) -> None:
    """Rewrite tokenizer.json with only its first ``keep`` added tokens (no list at all
    for 0), as some published tokenizers are: the config's ``added_tokens_decoder``
    then has the rest."""
    data = json.loads((directory / "tokenizer.json").read_text())
    if keep:
        data["added_tokens"] = data["added_tokens"][:keep]
    else:
        del data["added_tokens"]
    (directory / "tokenizer.json").write_text(json.dumps(data))


@pytest.mark.slow
@pytest.mark.parametrize("keep", [0, 2])
@pytest.mark.parametrize("style", ["v4", "legacy"])
@pytest.mark.parametrize("model", MODELS)
def test_added_tokens_decoder_fills_in_for_a_tokenizer_json_without_added_tokens(
    tmp_path: Path, style: ConfigStyle, model: ModelKind, keep: int
) -> None:
    # transformers adds the tokens of added_tokens_decoder that tokenizer.json lacks, so
    # the eos id, the named specials and the kinds of ids come from the config then.
    specials = {"pad": "<|endoftext|>", "eos": "<|im_end|>", "unk": "<unk>", "mask": "<M>"}
    _write_mixed_tokenizer(tmp_path, model, style, specials)
    _drop_added_tokens(tmp_path, keep)
    files = _load(tmp_path)
    assert files.special_tokens["eos"].id == 82  # from added_tokens_decoder, as transformers
    assert _facts(files, 84) == TokenFacts(84, TokenKind.ADDED, "[MASK]")
    _assert_agrees_with_transformers(tmp_path)
    # check() sees the eos token at 82: a draft whose mask id is 82 gets the warning.
    dflash = {"architectures": ["DFlashDraftModel"], "model_type": "qwen3", "vocab_size": 100}
    verdict = check({**dflash, "dflash_config": {"mask_token_id": 82}}, tokenizer=tmp_path)
    assert any("eos" in str(warning) for warning in verdict.warnings), verdict.warnings


@pytest.mark.slow
@settings(max_examples=25)
@given(_layouts(with_specials=True), st.integers(0, 3))
def test_facts_agree_with_transformers_when_tokenizer_json_lacks_added_tokens(
    layout: dict[str, object], keep: int
) -> None:
    # Only the layouts with an added_tokens_decoder: without one, transformers 5 itself
    # fails on a tokenizer.json that has no added_tokens (a KeyError).
    with_decoder = layout["config_style"] in ("v4", "legacy")
    with tempfile.TemporaryDirectory() as name:
        directory = write_tokenizer(Path(name), **layout)  # type: ignore[arg-type]
        if with_decoder and layout.get("tokenizer_json", True) and _read_added(directory)[keep:]:
            _drop_added_tokens(directory, keep)
        _assert_agrees_with_transformers(directory)


def _read_added(directory: Path) -> list[object]:
    added: list[object] = json.loads((directory / "tokenizer.json").read_text())["added_tokens"]
    return added


@pytest.mark.slow
@settings(max_examples=25)
@given(_layouts(with_specials=True))
def test_facts_agree_with_transformers_for_any_layout(layout: dict[str, object]) -> None:
    with tempfile.TemporaryDirectory() as name:
        _assert_agrees_with_transformers(write_tokenizer(Path(name), **layout))  # type: ignore[arg-type]


def test_the_bundled_example_tokenizer() -> None:
    files = _load(EXAMPLES / "tokenizer-small")
    assert files.length == 326
    assert _facts(files, 326) == TokenFacts(326, TokenKind.UNUSED, None)  # the mask row
    assert _facts(files, 300) == TokenFacts(300, TokenKind.SPECIAL, "<|endoftext|>")
    assert _facts(files, 324) == TokenFacts(324, TokenKind.ADDED, "<think>")
    assert _facts(files, 299).kind is TokenKind.ORDINARY
    assert {role: t.id for role, t in files.special_tokens.items()} == {"eos": 302, "pad": 300}
    assert sum(t.special for t in files.added_tokens) == 14


def test_the_example_tokenizer_is_what_its_script_writes(tmp_path: Path) -> None:
    write_qwen3_like(tmp_path, vocab_size=300, config_style="v4")
    bundled = EXAMPLES / "tokenizer-small"
    assert sorted(p.name for p in bundled.iterdir()) == sorted(p.name for p in tmp_path.iterdir())
    for path in bundled.iterdir():
        assert path.read_bytes() == (tmp_path / path.name).read_bytes(), path.name
    script = (EXAMPLES / "make_small_tokenizer.py").read_text()
    assert "BASE_VOCAB = 300" in script
    assert 'config_style="v4"' in script


def test_an_added_tokens_decoder_key_too_long_to_convert_is_a_file_error(tmp_path: Path) -> None:
    key = "1" * 5000  # Python refuses to convert it; the file itself parses
    (tmp_path / "tokenizer_config.json").write_text(
        json.dumps({"added_tokens_decoder": {key: {"content": "x", "special": True}}})
    )
    with pytest.raises(ConfigFileError, match="the key must be a token id"):
        load_tokenizer_files(tmp_path)


# --- Exact edges of the tokenizer-file messages ---------------------------------------------------


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
