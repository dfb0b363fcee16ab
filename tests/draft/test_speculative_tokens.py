"""The number of tokens a draft's file says to draft a step (:func:`draft_speculative_tokens`),
the ``N`` its serve command gives the engine."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from drafting_config.draft.file import read_draft
from drafting_config.draft.speculative_tokens import draft_speculative_tokens
from drafting_config.files.json_files import load_config_json

EXAMPLES = Path(__file__).parents[2] / "examples"


def _tokens(config: dict[str, object]) -> int | None:
    return draft_speculative_tokens(read_draft(config))


def _dflash(**fields: object) -> dict[str, object]:
    return {"architectures": ["DFlashDraftModel"], "dflash_config": {"mask_token_id": 7}, **fields}


def _speculators(tokens: object) -> dict[str, object]:
    return {
        "speculators_model_type": "dflash",
        "speculators_config": {"proposal_methods": [{"speculative_tokens": tokens}]},
        "block_size": 16,
    }


def test_a_dflash_draft_drafts_one_token_less_than_its_block() -> None:
    # The anchor takes one position of the trained block; the masked slots the rest.
    assert _tokens(_dflash(block_size=16)) == 15


def test_the_dflash_section_block_size_comes_before_the_top_level_one() -> None:
    config = _dflash(block_size=16)
    config["dflash_config"] = {"mask_token_id": 7, "block_size": 8}
    assert _tokens(config) == 7


def test_a_speculators_file_gives_its_own_number_not_its_block() -> None:
    assert _tokens(_speculators(5)) == 5


def test_n_predict_is_the_number_of_a_multi_token_predictor() -> None:
    assert _tokens({"architectures": ["MLPSpeculatorPreTrainedModel"], "n_predict": 3}) == 3


def test_a_block_size_names_no_number_for_a_draft_that_is_not_dflash() -> None:
    # A plain causal LM's block_size (or a DSpark draft's) is no DFlash block.
    assert _tokens({"architectures": ["LlamaForCausalLM"], "block_size": 16}) is None


def test_an_eagle3_head_says_nothing() -> None:
    config = {"architectures": ["LlamaForCausalLMEagle3"], "draft_vocab_size": 32000}
    assert _tokens(config) is None


def test_a_block_of_one_leaves_no_slot_to_draft() -> None:
    assert _tokens(_dflash(block_size=1)) is None


def test_the_bundled_examples_give_their_numbers() -> None:
    def example(name: str) -> int | None:
        return draft_speculative_tokens(read_draft(load_config_json(EXAMPLES / name)))

    assert example("dflash-qwen3-4b") == 15  # block_size 16
    assert example("speculators-dflash-qwen3-8b") == 15  # speculative_tokens 15
    assert example("ptd-eagle3-llama3-8b") is None


@given(st.integers(min_value=2, max_value=2**31 - 1))
def test_every_dflash_block_of_two_or_more_drafts_its_masked_slots(block: int) -> None:
    assert _tokens(_dflash(block_size=block)) == block - 1


@given(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(max_value=0),
        st.floats(allow_nan=True),
        st.text(max_size=4),
        st.lists(st.integers(), max_size=2),
    )
)
def test_a_value_that_is_no_positive_integer_names_no_number(value: object) -> None:
    # Never coerced: "16", 16.0 and true are no block size of this function's.
    assert _tokens(_dflash(block_size=value)) is None
    assert _tokens(_speculators(value)) is None
    assert _tokens({"n_predict": value}) is None


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=3),
        lambda children: (
            st.lists(children, max_size=3)
            | st.dictionaries(st.text(max_size=3), children, max_size=3)
        ),
        max_leaves=8,
    )
)
def test_any_speculators_section_gives_a_number_or_none_and_never_raises(section: object) -> None:
    config = {"speculators_model_type": "dflash", "speculators_config": section}
    tokens = _tokens(config)
    assert tokens is None or tokens > 0
