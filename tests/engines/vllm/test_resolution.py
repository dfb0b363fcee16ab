"""Property tests: arbitrary junk in any field gives a config or our error, nothing else."""

from __future__ import annotations

import subprocess
import sys
import warnings
from types import SimpleNamespace
from typing import Any
from unittest.mock import Mock

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from drafting_config import (
    PRIORITY_ORDER,
    ParallelDraftingConfig,
    ParallelDraftingConfigError,
    check,
)
from drafting_config.engines.vllm import codes as vllm_codes
from drafting_config.engines.vllm.resolution import resolve
from drafting_config.values.codes import CODES
from drafting_config.values.errors import (
    MAX_TYPE_NAME_CHARS,
    MAX_VALUE_CHARS,
    ConflictingTokenIdWarning,
    PlaceholderTokenIdWarning,
    describe_value,
    foreign_error,
)
from tests.conftest import EXAMPLES, load_json
from tests.foreign import Unusable, int_enum
from tests.values.test_sources import oracle

TOKEN_FIELDS = [source.value for source in PRIORITY_ORDER if source.section is None]
SECTIONS = sorted({source.section for source in PRIORITY_ORDER if source.section is not None})
OTHER_FIELDS = ["hidden_size", "vocab_size", "pad_token_id", "bos_token_id", "eos_token_id"]


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.integers(min_value=0, max_value=2**31 + 5),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.binary(max_size=8),
    st.builds(pow, st.just(10), st.just(5000)),  # too long for repr()
    st.builds(Unusable),
    st.builds(object),
    st.builds(int_enum, st.integers(0, 2**31 + 5)),
    st.builds(Mock, spec=st.just(int)),
)
junk: st.SearchStrategy[object] = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.tuples(inner, inner),
        st.dictionaries(st.sampled_from(["mask_token_id", "vocab_size", "x"]), inner, max_size=3),
        st.builds(
            lambda d: SimpleNamespace(**d),
            st.dictionaries(st.sampled_from(["mask_token_id", "y"]), inner, max_size=2),
        ),
    ),
    max_leaves=8,
)
ABSENT = "<absent>"
# Mostly absent or plausible, sometimes junk: so that both outcomes are common.
absent, ids = st.just(ABSENT), st.integers(0, 300_000)
plausible = st.one_of(absent, absent, absent, st.none(), ids, ids, junk)
plausible_section = st.one_of(
    st.just(ABSENT),
    st.fixed_dictionaries({}, optional={"mask_token_id": plausible, "vocab_size": plausible}),
    junk,
)


@st.composite
def junk_configs(draw: st.DrawFn) -> dict[str, Any]:
    config: dict[str, Any] = {}
    for name in [*TOKEN_FIELDS, *OTHER_FIELDS, *SECTIONS, "text_config", "eagle_config"]:
        section = name in (*SECTIONS, "text_config", "eagle_config")
        value = draw(plausible_section if section else plausible)
        if value is not ABSENT:
            config[name] = value
    return config


def config_or_error(hf_config: object) -> ParallelDraftingConfig | ParallelDraftingConfigError:
    """Resolve with warnings silenced; our error is returned, any other exception escapes."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ParallelDraftingConfig.from_hf_config(hf_config)
        except ParallelDraftingConfigError as error:
            return error


@given(junk_configs(), st.sampled_from(["mapping", "namespace"]))
def test_junk_gives_a_config_or_our_error(raw: dict[str, Any], shape: str) -> None:
    config = config_or_error(raw if shape == "mapping" else SimpleNamespace(**raw))
    if isinstance(config, ParallelDraftingConfigError):
        assert str(config)
        event(f"error about {config.field}")
        return
    event("resolved")
    # It resolved: the winner is what the hand-written rule picks, and valid.
    expected = oracle(raw)
    assert expected is not None
    assert (config.source.value, config.token_id) == expected
    assert type(config.token_id) is int
    assert 0 <= config.token_id < (config.vocab_size or 2**31)
    assert ParallelDraftingConfig.model_validate_json(config.model_dump_json()) == config


token_ids = st.one_of(st.none(), st.integers(min_value=0, max_value=2**31 - 1))


@given(
    st.fixed_dictionaries(
        {"dflash_config": st.fixed_dictionaries({"mask_token_id": token_ids})},
        optional=dict.fromkeys(TOKEN_FIELDS, token_ids),
    )
)
def test_valid_ids_resolve_as_the_oracle_says(raw: dict[str, Any]) -> None:
    config = config_or_error(raw)
    if isinstance(config, ParallelDraftingConfigError):
        assert oracle(raw) is None
        return
    assert (config.source.value, config.token_id) == oracle(raw)
    shadowed = {s.source.value: s.token_id for s in config.shadowed}
    set_fields = {k: v for k, v in raw.items() if k in TOKEN_FIELDS and v is not None}
    assert shadowed == {k: v for k, v in set_fields.items() if k != config.source.value}


@given(junk)
def test_describe_value_never_raises_and_stays_short(value: object) -> None:
    text = describe_value(value)
    assert text.endswith(f"({type(value).__name__})") or text == "None"
    assert len(text) <= MAX_VALUE_CHARS + MAX_TYPE_NAME_CHARS + len(" ()")


@pytest.mark.parametrize("field", [*TOKEN_FIELDS, *OTHER_FIELDS, *SECTIONS, "text_config"])
@pytest.mark.parametrize(
    "make",
    [
        Unusable,
        lambda: [Unusable()],
        lambda: {"mask_token_id": Unusable(), "vocab_size": Unusable()},
    ],
)
def test_hostile_values_anywhere_give_our_error_or_a_config(field: str, make: Any) -> None:
    # Generated junk rarely contains these (hypothesis favours distinct values),
    # so every field gets them explicitly: no __eq__, __bool__ or __repr__ is trusted.
    for base in ({"pard_token": 5}, {"pard_token": 5, "eos_token_id": [5]}, {}):
        outcome = config_or_error({**base, field: make()})
        if isinstance(outcome, ParallelDraftingConfig):
            assert outcome.token_id == 5


def test_deeply_nested_junk_is_described_without_recursing() -> None:
    deep: list[object] = []
    for _ in range(200_000):
        deep = [deep]
    cyclic: list[object] = []
    cyclic.append(cyclic)
    for value in (deep, cyclic):
        for field in ("pard_token", "dflash_config", "vocab_size", "text_config"):
            with pytest.raises(ParallelDraftingConfigError) as info:
                ParallelDraftingConfig.from_hf_config({"ptd_token_id": 1, field: value})
            assert info.value.field == field
            assert "(list)" in str(info.value)


# --- Exact texts of the warnings and errors users read --------------------------------------------


def test_the_eagle_disagreement_warning_says_what_to_do() -> None:
    with pytest.warns(ConflictingTokenIdWarning) as record:
        config = ParallelDraftingConfig.from_hf_config(
            {"dflash_config": {"mask_token_id": 5}, "eagle_config": {"mask_token_id": 6}}
        )
    assert config.token_id == 5
    [warning] = record
    assert str(warning.message) == (
        "`dflash_config.mask_token_id` = 5 and `eagle_config.mask_token_id` = 6 disagree, so "
        "vLLM's Qwen3 DFlash and DSpark classes embed the masked slots as 6 while the engine "
        "feeds 5, and nothing fails."
    )
    assert isinstance(warning.message, ConflictingTokenIdWarning)
    assert warning.message.fix == "set `eagle_config.mask_token_id` to 5 or remove it"
    assert warning.message.field == "eagle_config.mask_token_id"


def test_the_placeholder_warning_shows_the_special_value() -> None:
    with pytest.warns(PlaceholderTokenIdWarning) as record:
        ParallelDraftingConfig.from_hf_config({"pard_token": 2, "eos_token_id": [7, 2]})
    [warning] = record
    assert str(warning.message) == (
        "`pard_token` = 2 is also an eos token id (config): the masked slots may read as "
        "that token."
    )
    assert isinstance(warning.message, PlaceholderTokenIdWarning)
    assert warning.message.code is CODES["token-placeholder"]


class _RaisingConfig:
    @property
    def pard_token(self) -> int:
        raise RuntimeError("boom")


def test_an_unreadable_field_is_named_with_what_it_raised() -> None:
    with pytest.raises(ParallelDraftingConfigError) as info:
        ParallelDraftingConfig.from_hf_config(_RaisingConfig())
    assert info.value.field == "pard_token"
    assert str(info.value) == (
        "Could not read `pard_token` from the draft model's config: RuntimeError: boom"
    )


def test_a_foreign_error_is_quoted_up_to_200_characters() -> None:
    whole = foreign_error("Reading x", RuntimeError("a" * 200), field="x")
    assert str(whole) == "Reading x: RuntimeError: " + "a" * 200
    assert whole.field == "x"
    cut = foreign_error("Reading x", RuntimeError("a" * 201), field=None)
    assert str(cut) == "Reading x: RuntimeError: " + "a" * 197 + "..."


def test_an_unusable_text_config_is_an_error_and_the_sizes_are_read_at_the_top_level() -> None:
    config = {"hidden_size": 4096, "vocab_size": 1000, "text_config": 5, "mask_token_id": 7}
    resolution = resolve(config)
    assert (resolution.hidden_size, resolution.vocab_size) == (4096, 1000)
    assert [error.field for error in resolution.errors] == ["text_config"]


def test_eagle_config_mask_token_id_is_kept_beside_the_winner() -> None:
    config = {"vocab_size": 1000, "mask_token_id": 7, "eagle_config": {"mask_token_id": 8}}
    resolution = resolve(config)
    assert resolution.eagle_mask_token_id == 8
    assert resolve({"vocab_size": 1000, "mask_token_id": 7}).eagle_mask_token_id is None


def test_a_speculators_draft_with_a_null_mask_token_id_is_refused_with_a_fix() -> None:
    # vLLM copies the speculators file's mask_token_id into the HF field it reads
    # (speculators/algos.py); a null there leaves no parallel-drafting token id.
    config = load_json(EXAMPLES / "speculators-dflash-qwen3-8b" / "config.json")
    (error,) = check({**config, "mask_token_id": None}).errors
    assert error.code is vllm_codes.SPECULATORS_TOKEN_MISSING
    assert error.field == "mask_token_id"
    assert str(error) == (
        "`mask_token_id` is missing or null, so vLLM finds no parallel-drafting token id for "
        "this speculators dflash draft and refuses it."
    )
    assert error.fix == "set `mask_token_id` to the mask token's id"
    assert "`dflash_config.mask_token_id`" in (error.evidence or "")


SPECULATORS_MODULE = "drafting_config.engines.vllm.speculators"


def _loads_speculators(draft: str) -> bool:
    """Whether a ``check`` of ``draft``, in a fresh interpreter, loads vLLM's speculators
    translation."""
    code = (
        "import sys; from drafting_config import check; check(sys.argv[1], check_weights=False, "
        f"check_tokenizer=False); print({SPECULATORS_MODULE!r} in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, draft], capture_output=True, text=True, check=True
    )
    return result.stdout.strip().splitlines()[-1] == "True"


def test_the_speculators_translation_is_loaded_with_the_first_speculators_file() -> None:
    assert not _loads_speculators(str(EXAMPLES / "dflash-qwen3-4b" / "config.json"))
    assert _loads_speculators(str(EXAMPLES / "speculators-dflash-qwen3-8b" / "config.json"))
