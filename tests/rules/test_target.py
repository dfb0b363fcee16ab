"""The draft/target/tokenizer contract (sizes, placeholders, the tokenizer), each rule seen as a
verdict.

Every rule is checked through :func:`drafting_config.check`, the one entry point the
CLI and the Python API share: a broken rule is an error (or, for the tokenizer's
softer rules, a warning) whose ``.field`` names the draft's field and whose
message gives the draft's value and the target's.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import pytest

from drafting_config import PRIORITY_ORDER, TokenIdSource, check
from drafting_config.values.errors import (
    PlaceholderTokenIdWarning,
)
from tests.conftest import EXAMPLES, assert_clean, error_fields, load_json, only_error
from tests.engines.vllm import tokens_read  # noqa: F401 (a fixture)
from tests.foreign import int_enum
from tests.serve_commands import UNKNOWN_TOKENS
from tests.tokenizer_factory import (
    ConfigStyle,
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
    # An EAGLE-3 head with parallel token drafting of 151936 rows for a target of 152064:
    # fine both ways as long as the id indexes both tables.
    draft = {"ptd_token_id": 151665, "vocab_size": 151936}
    assert_clean(check(draft, target={"vocab_size": 152064}))
    assert error_fields(check(draft, target={"vocab_size": 151665})) == ["ptd_token_id"]


def test_a_pard_draft_of_another_vocabulary_is_refused_by_vllm() -> None:
    # A PARD drafter of Qwen2.5-0.5B (151936 rows) for Qwen2.5-7B (152064): vLLM serves PARD
    # as method draft_model, whose vocabulary must equal the target's
    # (SpeculativeConfig._verify_args -> verify_equal_vocab_size_if_draft_model).
    draft = {"pard_token": 151665, "vocab_size": 151936}
    assert error_fields(check(draft, target={"vocab_size": 152064})) == ["vocab_size"]
    assert error_fields(check(draft, target={"vocab_size": 151665})) == [
        "pard_token",
        "vocab_size",
    ]


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
    assert error_fields(check(draft, target=target)) == [
        "mask_token_id",
        "hidden_size",
        "target_layer_ids",
    ]


def test_a_targets_top_level_sizes_win_over_its_text_config() -> None:
    target = {"vocab_size": 1000, "text_config": {"vocab_size": 10, "num_hidden_layers": 2}}
    verdict = check({"mask_token_id": 500, "target_layer_ids": [1]}, target=target)
    assert_clean(verdict)
    assert error_fields(check({"mask_token_id": 500, "target_layer_ids": [2]}, target=target)) == [
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
    assert error_fields(verdict) == [field]
    assert verdict.target == "<config object>"


def test_a_target_config_object_with_lying_ints_counts_their_true_values() -> None:
    target = {"vocab_size": int_enum(1000), "num_hidden_layers": int_enum(36)}
    assert_clean(check({"mask_token_id": 999, "target_layer_ids": [35]}, target=target))
    assert error_fields(check({"mask_token_id": 1000}, target=target)) == ["mask_token_id"]


def test_every_broken_rule_is_an_error_at_once() -> None:
    draft = {
        "dflash_config": {"mask_token_id": 151669, "target_layer_ids": [1, 9, 17, 25, 33]},
        "num_target_layers": 36,
        "hidden_size": 4096,
        "draft_vocab_size": 151936,
    }
    llama = {"vocab_size": 128256, "hidden_size": 4096, "num_hidden_layers": 32}
    verdict = check(draft, target=llama)
    assert error_fields(verdict) == [
        "dflash_config.mask_token_id",
        "draft_vocab_size",
        "dflash_config.target_layer_ids",
    ]
    assert not verdict.ok


# -- counts that disagree, and targets that say nothing ----------------------------------------


# -- placeholders in the target's config -----------------------------------------------------


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
    role = field.rpartition(".")[2].removesuffix("_token_id")
    assert str(warning).startswith(
        f"`dflash_config.mask_token_id` = 151643 is also a{'n' * (role == 'eos')} {role} token "
        "id (target"
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
        UNKNOWN_TOKENS,
    )
    sized = check({"pard_token": 5}, target=QWEN3_4B, check_tokenizer=False)
    assert not any("compared on nothing" in note for note in sized.notes)
