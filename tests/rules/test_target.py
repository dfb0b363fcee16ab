"""The draft/target/tokenizer contract (issue 10 B and C), each rule seen as a verdict.

Every rule is checked through :func:`drafting_config.check`, the one entry point the
CLI and the Python API share: a broken rule is an error (or, for the tokenizer's
softer rules, a warning) whose ``.field`` names the draft's field and whose
message gives the draft's value and the target's.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from drafting_config import PRIORITY_ORDER, TokenIdSource, Verdict, check, resolve
from drafting_config.files.tokenizer_files import TokenFacts, TokenKind, load_tokenizer_files
from drafting_config.rules.subject import Subject
from drafting_config.rules.tokenizer import check_tokenizer
from drafting_config.values.errors import (
    ParallelDraftingConfigError,
    PlaceholderTokenIdWarning,
    TokenizerTokenIdWarning,
    describe_value,
)
from drafting_config.values.findings import Findings
from tests.conftest import EXAMPLES, load_json
from tests.foreign import int_enum
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

STYLES: tuple[ConfigStyle, ...] = ("v5", "v4", "legacy", "map-only")

QWEN3_4B = {"vocab_size": 151936, "hidden_size": 2560, "num_hidden_layers": 36}
"""The sizes of a Qwen3-4B target."""

SPECULATORS = load_json(EXAMPLES / "speculators-dflash-qwen3-8b" / "config.json")
"""A speculators DFlash drafter for Qwen3-8B: aux ids [2, 10, 18, 26, 34], target_hidden_size
4096, its draft vocabulary 32000 tokens."""
QWEN3_8B = {"vocab_size": 151936, "hidden_size": 4096, "num_hidden_layers": 36}


# -- helpers --------------------------------------------------------------------------------


def at(path: str, value: object) -> dict[str, Any]:
    """``{"a": {"b": value}}`` for the path ``"a.b"``."""
    section, _, key = path.rpartition(".")
    return {section: {key: value}} if section else {key: value}


def merged(*parts: Mapping[str, Any]) -> dict[str, Any]:
    """The parts merged, nested sections too."""
    out: dict[str, Any] = {}
    for part in parts:
        for key, value in part.items():
            if isinstance(value, Mapping) and isinstance(out.get(key), dict):
                out[key] = merged(out[key], value)
            else:
                out[key] = copy.deepcopy(value)
    return out


def speculators(algorithm: str = "dflash", **top: object) -> dict[str, Any]:
    """The bundled speculators drafter, as another algorithm or with top-level fields changed
    (``None`` removes one)."""
    draft = copy.deepcopy(SPECULATORS)
    draft["speculators_model_type"] = algorithm
    draft["speculators_config"]["algorithm"] = algorithm
    for key, value in top.items():
        if value is None:
            draft.pop(key, None)
        else:
            draft[key] = value
    return draft


def only_error(verdict: Verdict) -> ParallelDraftingConfigError:
    assert len(verdict.errors) == 1, [str(e) for e in verdict.errors]
    return verdict.errors[0]


def fields(verdict: Verdict) -> list[str | None]:
    return [error.field for error in verdict.errors]


def assert_clean(verdict: Verdict) -> None:
    assert verdict.errors == (), [str(e) for e in verdict.errors]
    assert verdict.warnings == (), [str(w) for w in verdict.warnings]


# -- B: the token id is below the target's vocab size --------------------------------------


@pytest.mark.parametrize("source", PRIORITY_ORDER, ids=str)
def test_a_token_id_at_the_targets_vocab_size_is_an_error_naming_the_field(
    source: TokenIdSource,
) -> None:
    target = {"vocab_size": 1000}
    assert_clean(check(at(source.value, 999), target=target))
    error = only_error(check(at(source.value, 1000), target=target))
    assert error.field == source.value
    message = str(error)
    assert f"`{source.value}` = 1000 is outside the target's vocabulary" in message
    assert "the target's vocab_size is 1000" in message


def test_the_draft_may_have_a_larger_vocabulary_than_its_target_only_if_the_id_fits() -> None:
    # A PARD drafter of Qwen2.5-0.5B (151936 rows) for Qwen2.5-7B (152064): fine both ways
    # as long as the id indexes both tables.
    draft = {"pard_token": 151665, "vocab_size": 151936}
    assert_clean(check(draft, target={"vocab_size": 152064}))
    assert fields(check(draft, target={"vocab_size": 151665})) == ["pard_token"]


def test_the_vocab_rule_reads_the_winner_only() -> None:
    # A shadowed field past the target's vocabulary is not what engines feed.
    draft = {"mask_token_id": 5, "ptd_token_id": 5000}
    verdict = check(draft, target={"vocab_size": 1000})
    assert verdict.errors == ()
    assert verdict.token_id == 5


# -- B: draft_vocab_size is at most the target's vocab size --------------------------------


def test_draft_vocab_size_above_the_targets_is_an_error_with_both_values() -> None:
    draft = {"mask_token_id": 5, "draft_vocab_size": 32001}
    assert_clean(check({**draft, "draft_vocab_size": 32000}, target={"vocab_size": 32000}))
    error = only_error(check(draft, target={"vocab_size": 32000}))
    assert error.field == "draft_vocab_size"
    assert "`draft_vocab_size` = 32001 is larger than the target's vocab_size (32000)" in str(error)


@pytest.mark.parametrize("value", [0, -3, "32000", True, 32000.0, 2**31])
def test_a_malformed_draft_vocab_size_is_an_error_naming_it(value: object) -> None:
    error = only_error(check({"mask_token_id": 5, "draft_vocab_size": value}, target=QWEN3_4B))
    assert error.field == "draft_vocab_size"
    assert "`draft_vocab_size`" in str(error)


def test_the_speculators_draft_vocab_size_is_checked_against_the_target() -> None:
    assert_clean(check(speculators(), target=QWEN3_8B))
    verdict = check(speculators(mask_token_id=5), target={**QWEN3_8B, "vocab_size": 31999})
    error = only_error(verdict)
    assert error.field == "draft_vocab_size"
    assert "= 32000" in str(error)
    assert "(31999)" in str(error)


# -- B: hidden sizes of drafters fed the target's hidden states -----------------------------

FED = [s for s in PRIORITY_ORDER if s.takes_target_hidden_states]
NOT_FED = [s for s in PRIORITY_ORDER if not s.takes_target_hidden_states]


def test_pard_is_the_only_drafter_not_fed_hidden_states() -> None:
    assert [s.algorithm for s in NOT_FED] == ["pard"]


@pytest.mark.parametrize("source", FED, ids=str)
def test_a_drafter_fed_hidden_states_must_match_the_targets_hidden_size(
    source: TokenIdSource,
) -> None:
    draft = {**at(source.value, 5), "hidden_size": 4096}
    assert_clean(check(draft, target={"hidden_size": 4096}))
    error = only_error(check(draft, target=QWEN3_4B))
    assert error.field == "hidden_size"
    message = str(error)
    assert "`hidden_size` = 4096 does not match the target's hidden_size (2560)" in message


@pytest.mark.parametrize("source", NOT_FED, ids=str)
def test_a_pard_drafter_may_have_any_hidden_size(source: TokenIdSource) -> None:
    draft = {**at(source.value, 5), "hidden_size": 1024, "target_hidden_size": 8}
    assert_clean(check(draft, target=QWEN3_4B))


def test_target_hidden_size_wins_over_the_drafts_hidden_size() -> None:
    # An EAGLE3 head with parallel token drafting: its own width 1024, fed 2560-wide states.
    draft = {"ptd_token_id": 5, "hidden_size": 1024, "target_hidden_size": 2560}
    assert_clean(check(draft, target=QWEN3_4B))
    error = only_error(check({**draft, "target_hidden_size": 4096}, target=QWEN3_4B))
    assert error.field == "target_hidden_size"
    assert "`target_hidden_size` = 4096 does not match the target's hidden_size (2560)" in str(
        error
    )
    # a null target_hidden_size counts as unset: the draft's own size is compared
    error = only_error(check({**draft, "target_hidden_size": None}, target=QWEN3_4B))
    assert error.field == "hidden_size"


@pytest.mark.parametrize("value", [0, "2560", 2560.0, False, [2560]])
def test_a_malformed_target_hidden_size_is_an_error_naming_it(value: object) -> None:
    draft = {"ptd_token_id": 5, "target_hidden_size": value}
    error = only_error(check(draft, target=QWEN3_4B))
    assert error.field == "target_hidden_size"


def test_without_sizes_on_either_side_nothing_is_compared() -> None:
    assert_clean(check({"mask_token_id": 5, "hidden_size": 4096}, target={"vocab_size": 10}))
    assert_clean(check({"mask_token_id": 5}, target=QWEN3_4B))


def test_the_draft_hidden_size_falls_back_to_its_text_config() -> None:
    draft = {"mask_token_id": 5, "text_config": {"hidden_size": 4096}}
    error = only_error(check(draft, target=QWEN3_4B))
    assert "= 4096" in str(error)
    assert "(2560)" in str(error)


def test_a_speculators_peagle_drafter_is_fed_hidden_states_although_its_id_is_pard_token() -> None:
    draft = speculators("peagle")
    verdict = check(draft, target=QWEN3_8B)
    assert verdict.resolution is not None
    assert (verdict.resolution.algorithm, verdict.resolution.winner is not None) == ("peagle", True)
    assert verdict.resolution.winner is not None
    assert verdict.resolution.winner.source is TokenIdSource.PARD_TOKEN
    assert_clean(verdict)
    error = only_error(check(draft, target={**QWEN3_8B, "hidden_size": 2560}))
    assert error.field == "target_hidden_size"
    assert "= 4096" in str(error)
    assert "(2560)" in str(error)


def test_a_speculators_drafter_without_target_hidden_size_compares_its_own_width() -> None:
    draft = speculators(target_hidden_size=None)
    assert_clean(check(draft, target=QWEN3_8B))  # transformer_layer_config.hidden_size 4096
    error = only_error(check(draft, target={**QWEN3_8B, "hidden_size": 5120}))
    assert "= 4096" in str(error)
    assert "(5120)" in str(error)


# -- B: the target's sizes, multimodal targets ---------------------------------------------


def test_a_multimodal_targets_sizes_come_from_its_text_config() -> None:
    target = {"model_type": "qwen2_5_vl", "text_config": QWEN3_4B, "vision_config": {}}
    assert_clean(check(load_json(EXAMPLES / "dflash-qwen3-4b" / "config.json"), target=target))
    draft = {"mask_token_id": 151936, "hidden_size": 4096, "target_layer_ids": [1, 36]}
    assert fields(check(draft, target=target)) == [
        "mask_token_id",
        "hidden_size",
        "target_layer_ids",
    ]


def test_a_targets_top_level_sizes_win_over_its_text_config() -> None:
    target = {"vocab_size": 1000, "text_config": {"vocab_size": 10, "num_hidden_layers": 2}}
    verdict = check({"mask_token_id": 500, "target_layer_ids": [1]}, target=target)
    assert_clean(verdict)
    assert fields(check({"mask_token_id": 500, "target_layer_ids": [2]}, target=target)) == [
        "target_layer_ids"
    ]


@pytest.mark.parametrize(
    ("target", "field"),
    [
        ({"vocab_size": "151936"}, "target.vocab_size"),
        ({"hidden_size": 0}, "target.hidden_size"),
        ({"num_hidden_layers": True}, "target.num_hidden_layers"),
        ({"text_config": {"vocab_size": -1}}, "target.text_config.vocab_size"),
        ({"text_config": "qwen3"}, "target.text_config"),
    ],
)
def test_a_malformed_target_is_an_error_naming_the_targets_field(
    target: dict[str, object], field: str
) -> None:
    verdict = check({"mask_token_id": 5, "num_target_layers": 36}, target=target)
    assert fields(verdict) == [field]
    assert verdict.target == "<config object>"


def test_a_target_config_object_with_lying_ints_counts_their_true_values() -> None:
    target = {"vocab_size": int_enum(1000), "num_hidden_layers": int_enum(36)}
    assert_clean(check({"mask_token_id": 999, "target_layer_ids": [35]}, target=target))
    assert fields(check({"mask_token_id": 1000}, target=target)) == ["mask_token_id"]


def test_every_broken_rule_is_an_error_at_once() -> None:
    draft = {
        "dflash_config": {"mask_token_id": 151669, "target_layer_ids": [1, 9, 17, 25, 33]},
        "num_target_layers": 36,
        "hidden_size": 4096,
        "draft_vocab_size": 151936,
    }
    llama = {"vocab_size": 128256, "hidden_size": 4096, "num_hidden_layers": 32}
    verdict = check(draft, target=llama)
    assert fields(verdict) == [
        "dflash_config.mask_token_id",
        "draft_vocab_size",
        "dflash_config.target_layer_ids",
    ]
    assert not verdict.ok


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
    """Issue 16, point 5: Qwen3's ``<think>`` is added but not special, so text has it."""
    think = added_id("<think>")
    verdict = check({"pard_token": think}, tokenizer=qwen)
    assert verdict.token == TokenFacts(think, TokenKind.ADDED, "<think>")
    assert verdict.ok  # a warning, not an error
    (warning,) = verdict.warnings
    assert type(warning) is TokenizerTokenIdWarning
    assert str(warning) == (
        f"`pard_token` = {think} is an added token not marked special of the tokenizer in "
        f"{qwen}, '<think>': it is real text, so every masked slot will read as that text. "
        "Use an unused embedding row or a dedicated special token."
    )


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
        f"`pard_token` = 7 is an ordinary token of the tokenizer in {qwen}, {texts[7]!r}: "
        "it is real text, so every masked slot will read as that text. Use an unused "
        "embedding row or a dedicated special token."
    )


@pytest.mark.parametrize(("role", "text"), [("pad", "<|endoftext|>"), ("eos", "<|im_end|>")])
def test_the_tokenizers_pad_or_eos_token_warns(qwen: Path, role: str, text: str) -> None:
    token_id = added_id(text)
    verdict = check({"mask_token_id": token_id}, tokenizer=qwen)
    assert verdict.token == TokenFacts(token_id, TokenKind.SPECIAL, text)
    (warning,) = verdict.warnings
    assert type(warning) is PlaceholderTokenIdWarning
    assert str(warning) == (
        f"`mask_token_id` = {token_id} is the tokenizer's {role} token ({text!r}): a "
        "placeholder copied from a special token makes every masked slot look like it and "
        "ruins acceptance rates."
    )


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
        assert f"is the tokenizer's {role} token ({SPECIALS[role]!r})" in str(placeholders[0])
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
        check_tokenizer(Subject(resolve(draft), draft.get, draft, tokenizer=tokenizer), found)
        assert found == Findings()


# -- C: the mask token by name --------------------------------------------------------------


def test_dflash_config_mask_token_at_another_id_is_an_error(qwen: Path) -> None:
    think = added_id("<think>")
    draft = {"dflash_config": {"mask_token_id": 151669, "mask_token": "<think>"}}
    error = only_error(check(draft, tokenizer=qwen))
    assert error.field == "dflash_config.mask_token"
    assert str(error) == (
        f"`dflash_config.mask_token` = '<think>' is id {think} in the tokenizer, but "
        "`dflash_config.mask_token_id` = 151669: SGLang refuses to start on this mismatch "
        "and other engines feed one id while the model expects the other."
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
    assert fields(verdict) == ["dflash_config.mask_token_id", "dflash_config.mask_token"]
    assert [type(w) for w in verdict.warnings] == [PlaceholderTokenIdWarning]


# -- counts that disagree, and targets that say nothing ----------------------------------------


# -- placeholders in the target's config (issue 16, point 4) ----------------------------------


@pytest.mark.parametrize(
    ("target", "field"),
    [
        ({**QWEN3_8B, "bos_token_id": 151643}, "bos_token_id"),
        ({**QWEN3_8B, "pad_token_id": 151643}, "pad_token_id"),
        ({**QWEN3_8B, "eos_token_id": [151645, 151643]}, "eos_token_id"),
        ({"text_config": {**QWEN3_8B, "bos_token_id": 151643}}, "text_config.bos_token_id"),
    ],
)
def test_the_targets_special_tokens_are_placeholders_too(
    target: dict[str, Any], field: str
) -> None:
    """TorchSpec's Qwen3-8B DFlash drafter uses 151643, Qwen3-8B's bos_token_id."""
    draft = {"dflash_config": {"mask_token_id": 151643, "target_layer_ids": [1, 9, 17]}}
    verdict = check(draft, target=target)
    assert verdict.errors == ()
    (warning,) = verdict.warnings
    assert type(warning) is PlaceholderTokenIdWarning
    assert str(warning).startswith(
        "The parallel drafting token id 151643 (from `dflash_config.mask_token_id`) equals the "
        f"target's `{field}` ("
    )
    assert check(draft).warnings == ()  # the draft's own config has no such field
    assert check({**draft, "dflash_config": {"mask_token_id": 151669}}, target=target).ok


def test_a_target_placeholder_of_another_id_or_type_is_not_one() -> None:
    draft = {"dflash_config": {"mask_token_id": 151643, "target_layer_ids": [1]}}
    for value in (151645, "151643", [151645], True, None):
        assert check(draft, target={**QWEN3_8B, "eos_token_id": value}).warnings == ()


def test_a_target_without_sizes_is_noted_as_compared_on_nothing() -> None:
    verdict = check({"pard_token": 5}, target={"model_type": "llama"}, check_tokenizer=False)
    assert verdict.ok
    assert verdict.notes == (
        "target compared on nothing: it gives no vocab_size, hidden_size or "
        "num_hidden_layers (nor in text_config)",
    )
    sized = check({"pard_token": 5}, target=QWEN3_4B, check_tokenizer=False)
    assert not any("compared on nothing" in note for note in sized.notes)


# -- the tokenizer never goes silent (issue 16, point 5) --------------------------------------


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
    assert verdict.notes[-1] == (
        f"tokenizer cannot classify token id 7: the tokenizer files found ({draft}: "
        "tokenizer_config.json) have no tokenizer.json and do not list it as an added token"
    )
    alone = check(draft, tokenizer=draft)
    assert alone.notes[-1].startswith("tokenizer cannot classify token id 7:")


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
