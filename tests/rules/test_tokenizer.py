"""The tokenizer's side of the contract, each rule seen as a verdict: what the tokenizer's
files say the token id is (real text, a placeholder, an unused row), the mask token the draft
names by its text, and the tokenizer files searched until one can classify the id.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from drafting_config import check, resolve
from drafting_config.engines.vllm.resolution import VllmSubject
from drafting_config.files.tokenizer_files import TokenFacts, TokenKind, load_tokenizer_files
from drafting_config.rules.tokenizer import check_tokenizer
from drafting_config.values.errors import (
    PlaceholderTokenIdWarning,
    TokenizerTokenIdWarning,
    describe_value,
)
from drafting_config.values.findings import Findings
from tests.conftest import EXAMPLES, assert_clean, error_fields, load_json, only_error
from tests.engines.vllm import tokens_read  # noqa: F401 (a fixture)
from tests.serve_commands import UNKNOWN_TOKENS
from tests.tokenizer_factory import (
    QWEN3_ADDED,
    Added,
    ConfigStyle,
    base_vocabulary,
    llama3_added,
    write_llama3_like,
    write_qwen3_like,
    write_tokenizer,
)

pytestmark = pytest.mark.usefixtures("tokens_read")
"""The token rules of PTD and PARD drafts, judged on the newest vLLM release that reads their
token (later releases serve such drafts sequentially, the token unused)."""

STYLES: tuple[ConfigStyle, ...] = ("v5", "v4", "legacy", "map-only")

QWEN3_4B = {"vocab_size": 151936, "hidden_size": 2560, "num_hidden_layers": 36}
"""The sizes of a Qwen3-4B target."""

SPECULATORS = load_json(EXAMPLES / "speculators-dflash-qwen3-8b" / "config.json")
"""A speculators DFlash drafter for Qwen3-8B: aux ids [2, 10, 18, 26, 34], target_hidden_size
4096, its draft vocabulary 32000 tokens."""
QWEN3_8B = {"vocab_size": 151936, "hidden_size": 4096, "num_hidden_layers": 36}


# -- C: what the tokenizer says the id is ---------------------------------------------------

QWEN_BASE = 300
"""A Qwen3-like tokenizer with a small base vocabulary: ids 0..299, then its 26 added tokens."""


@pytest.fixture(scope="module")
def qwen(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_qwen3_like(tmp_path_factory.mktemp("qwen"), vocab_size=QWEN_BASE)


@pytest.fixture(scope="module")
def llama(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_llama3_like(tmp_path_factory.mktemp("llama"), vocab_size=200, added_count=56)


def added_id(text: str) -> int:
    return QWEN_BASE + [token.content for token in QWEN3_ADDED].index(text)


def test_an_added_special_token_is_named(llama: Path) -> None:
    verdict = check({"pard_token": 220}, tokenizer=llama)
    text = llama3_added(56)[20].content
    assert text == "<|reserved_special_token_12|>"
    assert verdict.token == TokenFacts(220, TokenKind.SPECIAL, text)
    assert_clean(verdict)


def test_an_added_token_that_is_not_special_warns_as_real_text(qwen: Path) -> None:
    """Qwen3's ``<think>`` is added but not special, so text has it."""
    think = added_id("<think>")
    verdict = check({"pard_token": think}, tokenizer=qwen)
    assert verdict.token == TokenFacts(think, TokenKind.ADDED, "<think>")
    assert verdict.ok  # a warning, not an error
    (warning,) = verdict.warnings
    assert type(warning) is TokenizerTokenIdWarning
    assert str(warning) == (
        f"`pard_token` = {think} is an added token not marked special of the tokenizer in "
        f"{qwen}, '<think>', so every masked slot reads as that text."
    )
    assert warning.fix == "set `pard_token` to a dedicated special token or an unused embedding row"
    assert warning.field == "pard_token"


def test_an_id_past_the_tokenizer_is_an_unused_row(qwen: Path) -> None:
    first_free = QWEN_BASE + len(QWEN3_ADDED)
    for token_id in (first_free, first_free + 1, 151669):
        verdict = check({"dflash_config": {"mask_token_id": token_id}}, tokenizer=qwen)
        assert verdict.token == TokenFacts(token_id, TokenKind.UNUSED, None)
        assert_clean(verdict)


def test_a_gap_in_the_ids_is_an_unused_row(tmp_path: Path) -> None:
    write_tokenizer(tmp_path, vocab_size=50, vocab_holes=[10])
    verdict = check({"pard_token": 10}, tokenizer=tmp_path)
    assert verdict.token == TokenFacts(10, TokenKind.UNUSED, None)
    assert_clean(verdict)


def test_an_ordinary_token_warns_quoting_its_text(qwen: Path) -> None:
    texts, _ = base_vocabulary(QWEN_BASE)
    verdict = check({"pard_token": 7}, tokenizer=qwen)
    assert verdict.token == TokenFacts(7, TokenKind.ORDINARY, texts[7])
    assert verdict.ok  # a warning, not an error
    (warning,) = verdict.warnings
    assert type(warning) is TokenizerTokenIdWarning
    assert str(warning) == (
        f"`pard_token` = 7 is an ordinary token of the tokenizer in {qwen}, {texts[7]!r}, "
        "so every masked slot reads as that text."
    )
    assert str(warning.code) == "token-is-ordinary"


@pytest.mark.parametrize(("role", "text"), [("pad", "<|endoftext|>"), ("eos", "<|im_end|>")])
def test_the_tokenizers_pad_or_eos_token_warns(qwen: Path, role: str, text: str) -> None:
    token_id = added_id(text)
    verdict = check({"mask_token_id": token_id}, tokenizer=qwen)
    assert verdict.token == TokenFacts(token_id, TokenKind.SPECIAL, text)
    (warning,) = verdict.warnings
    assert type(warning) is PlaceholderTokenIdWarning
    assert str(warning) == (
        f"`mask_token_id` = {token_id} is also a{'n' * (role == 'eos')} {role} token id "
        f"(tokenizer {text!r}): the masked slots may read as that token."
    )
    assert warning.fix == "set `mask_token_id` to a dedicated mask token id, not a special token's"


SPECIALS = {"unk": "<unk>", "bos": "<s>", "eos": "</s>", "pad": "<pad>", "cls": "<cls>"}


def write_with_roles(directory: Path, style: ConfigStyle, *, tokenizer_json: bool = True) -> Path:
    """A tokenizer naming every role: <unk> is id 0 of the vocabulary, the others are added
    from id 100 on (<s>, </s>, <pad>, <cls>)."""
    return write_tokenizer(
        directory,
        vocab_size=100,
        vocab_first=["<unk>"],
        added=[Added(text) for role, text in SPECIALS.items() if role != "unk"],
        specials=SPECIALS,
        config_style=style,
        tokenizer_json=tokenizer_json,
    )


ROLE_IDS = {"unk": 0, "bos": 100, "eos": 101, "pad": 102}


@pytest.mark.parametrize("style", STYLES)
def test_pad_eos_bos_and_unk_warn_in_every_layout_of_the_config_files(
    tmp_path: Path, style: ConfigStyle
) -> None:
    write_with_roles(tmp_path, style)
    for role, token_id in ROLE_IDS.items():
        verdict = check({"pard_token": token_id}, tokenizer=tmp_path)
        placeholders = [w for w in verdict.warnings if type(w) is PlaceholderTokenIdWarning]
        assert len(placeholders) == 1, (role, [str(w) for w in verdict.warnings])
        assert f" {role} token id (tokenizer {SPECIALS[role]!r})" in str(placeholders[0])
        assert verdict.token is not None
        assert verdict.token.kind is TokenKind.SPECIAL
    # cls is named too, but is no placeholder a mask id is mistaken for
    assert_clean(check({"pard_token": 103}, tokenizer=tmp_path))


@pytest.mark.parametrize("style", ["v4", "legacy"])
def test_added_tokens_decoder_alone_is_enough_to_warn(tmp_path: Path, style: ConfigStyle) -> None:
    write_with_roles(tmp_path, style, tokenizer_json=False)
    assert not (tmp_path / "tokenizer.json").exists()
    verdict = check({"pard_token": ROLE_IDS["pad"]}, tokenizer=tmp_path)
    assert verdict.token == TokenFacts(ROLE_IDS["pad"], TokenKind.SPECIAL, "<pad>")
    assert [type(w) for w in verdict.warnings] == [PlaceholderTokenIdWarning]
    # without a base vocabulary, an id that is no added token cannot be described
    assert check({"pard_token": 50}, tokenizer=tmp_path).token is None


def test_the_tokenizer_rule_without_a_token_id_finds_nothing(qwen: Path) -> None:
    # A resolution with no winner (or one whose id is unusable) is no finding, never an
    # AttributeError on the missing winner.
    tokenizer = load_tokenizer_files(qwen)
    assert tokenizer is not None
    for draft in ({}, {"pard_token": "5"}):
        found = Findings()
        check_tokenizer(replace(VllmSubject.of(resolve(draft)), tokenizer=tokenizer), found)
        assert found == Findings()


# -- C: the mask token by name --------------------------------------------------------------


def test_dflash_config_mask_token_at_another_id_is_an_error(qwen: Path) -> None:
    think = added_id("<think>")
    draft = {"dflash_config": {"mask_token_id": 151669, "mask_token": "<think>"}}
    error = only_error(check(draft, tokenizer=qwen))
    assert error.field == "dflash_config.mask_token"
    assert str(error) == (
        f"`dflash_config.mask_token` = '<think>' is id {think} in the tokenizer but "
        "`dflash_config.mask_token_id` = 151669, so SGLang refuses to start and other engines "
        "feed the wrong id."
    )
    assert "_resolve_mask_token_id" in str(error.evidence)
    assert error.fix == (
        "make `dflash_config.mask_token_id` and `dflash_config.mask_token` name the same token"
    )


def test_dflash_config_mask_token_at_the_same_id_or_unknown_is_fine(qwen: Path) -> None:
    special = added_id("<|object_ref_start|>")
    same = {"dflash_config": {"mask_token_id": special, "mask_token": "<|object_ref_start|>"}}
    assert_clean(check(same, tokenizer=qwen))
    # SGLang's default name, which the speculators trainer adds at training time
    unknown = {"dflash_config": {"mask_token_id": 151669, "mask_token": "<|MASK|>"}}
    assert_clean(check(unknown, tokenizer=qwen))


@pytest.mark.parametrize("value", [151669, ["<|MASK|>"], True])
def test_a_mask_token_that_is_not_text_is_an_error(qwen: Path, value: object) -> None:
    draft = {"dflash_config": {"mask_token_id": 151669, "mask_token": value}}
    error = only_error(check(draft, tokenizer=qwen))
    assert error.field == "dflash_config.mask_token"
    assert str(error) == (
        f"`dflash_config.mask_token` must be the mask token's text, got {describe_value(value)}."
    )


def test_the_tokenizers_own_mask_token_elsewhere_warns(tmp_path: Path) -> None:
    write_tokenizer(tmp_path, vocab_size=100, added=[Added("<mask>")], specials={"mask": "<mask>"})
    verdict = check({"pard_token": 150}, tokenizer=tmp_path)
    (warning,) = verdict.warnings
    assert type(warning) is TokenizerTokenIdWarning
    assert "`pard_token` = 150, but the tokenizer's mask_token '<mask>' is id 100" in str(warning)
    same = check({"pard_token": 100}, tokenizer=tmp_path)
    assert_clean(same)
    assert same.token == TokenFacts(100, TokenKind.SPECIAL, "<mask>")


def test_a_broken_contract_and_a_broken_tokenizer_rule_are_reported_together(qwen: Path) -> None:
    pad = added_id("<|endoftext|>")
    draft = {"dflash_config": {"mask_token_id": pad, "mask_token": "<think>"}}
    verdict = check(draft, target={"vocab_size": pad}, tokenizer=qwen)
    assert error_fields(verdict) == ["dflash_config.mask_token_id", "dflash_config.mask_token"]
    assert [type(w) for w in verdict.warnings] == [PlaceholderTokenIdWarning]


# -- the tokenizer never goes silent ---------------------------------------------------------


def config_only_tokenizer(directory: Path, config: dict[str, Any]) -> Path:
    """A model directory whose tokenizer files cannot classify a base-vocabulary id: a
    ``tokenizer_config.json`` with ``added_tokens_decoder`` and no ``tokenizer.json``."""
    write_tokenizer(
        directory,
        vocab_size=QWEN_BASE,
        added=QWEN3_ADDED,
        specials={"eos": "<|im_end|>"},
        config_style="v4",
        tokenizer_json=False,
    )
    (directory / "config.json").write_text(json.dumps(config))
    return directory


def test_files_that_cannot_classify_the_id_fall_through_to_the_targets(
    tmp_path: Path, qwen: Path
) -> None:
    draft = config_only_tokenizer(tmp_path / "draft", {"pard_token": 7})
    target = tmp_path / "target"
    target.mkdir()
    for name in ("tokenizer.json", "tokenizer_config.json"):
        (target / name).write_bytes((qwen / name).read_bytes())
    (target / "config.json").write_text(json.dumps({"vocab_size": 151936}))
    verdict = check(draft, target=target)
    texts, _ = base_vocabulary(QWEN_BASE)
    assert verdict.token == TokenFacts(7, TokenKind.ORDINARY, texts[7])
    assert [type(w) for w in verdict.warnings] == [TokenizerTokenIdWarning]
    assert f"of the tokenizer in {target}" in str(verdict.warnings[0])
    assert not any("cannot classify" in note for note in verdict.notes)


def test_a_note_says_when_no_tokenizer_files_can_classify_the_id(tmp_path: Path) -> None:
    draft = config_only_tokenizer(tmp_path / "draft", {"pard_token": 7})
    target = config_only_tokenizer(tmp_path / "target", {"vocab_size": 151936})
    verdict = check(draft, target=target)
    assert verdict.token is None
    assert verdict.warnings == ()
    assert verdict.notes[-2:] == (
        f"tokenizer cannot classify token id 7: the tokenizer files found ({draft}: "
        "tokenizer_config.json) have no tokenizer.json and do not list it as an added token",
        UNKNOWN_TOKENS,  # a PARD draft names no number of tokens to draft
    )
    alone = check(draft, tokenizer=draft)
    assert alone.notes[-2].startswith("tokenizer cannot classify token id 7:")


def test_files_that_can_classify_the_id_are_used_without_falling_through(
    tmp_path: Path,
) -> None:
    """``added_tokens_decoder`` places the eos token: no need for the target's files."""
    eos = added_id("<|im_end|>")
    draft = config_only_tokenizer(tmp_path / "draft", {"pard_token": eos})
    target = tmp_path / "target"
    target.mkdir()
    (target / "config.json").write_text(json.dumps({"vocab_size": 151936}))
    (target / "tokenizer.json").write_text("{ not json")  # an error, were it read
    verdict = check(draft, target=target)
    assert verdict.errors == ()
    assert verdict.token is not None
    assert verdict.token.kind is TokenKind.SPECIAL
    assert [type(w) for w in verdict.warnings] == [PlaceholderTokenIdWarning]
    assert not check({"pard_token": 7}, tokenizer=target).ok  # the files are broken
