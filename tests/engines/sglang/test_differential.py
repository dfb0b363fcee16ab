"""SGLang 0.5.23's own functions, taken from its wheel, against the package's SGLang
chains (``drafting_config/engines/sglang/``) on every corpus config and on generated
configs: the same values where SGLang returns, a refusal where SGLang raises.

The functions: ``parse_dflash_draft_config``, ``parse_dspark_draft_config``,
``build_target_layer_ids``, ``_resolve_dflash_aux_hidden_state`` /
``_resolve_eagle_aux_hidden_state`` (via ``tools/wheels.py``) and
``DFlashWorkerV2._resolve_mask_token_id`` (extracted here, on a stand-in tokenizer built
from the same ``tokenizer.json``).  Skipped, saying why, when no wheel can be had.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from drafting_config.engines.sglang import codes as sglang_codes
from drafting_config.engines.sglang.config import (
    parse_dflash_draft_config,
    parse_dspark_draft_config,
)
from drafting_config.engines.sglang.layers import (
    build_target_layer_ids,
    eagle_layer_ids,
    resolve_target_layer_ids,
    target_depth,
)
from drafting_config.engines.sglang.names import SglangRefuses
from drafting_config.engines.sglang.token import resolve_mask_token_id
from drafting_config.files.tokenizer_files import load_tokenizer_files
from drafting_config.values.fields import field_getter
from tests.tokenizer_factory import Added, write_tokenizer
from tools.engines.sglang.functions import SglangFunctions, sglang_functions
from tools.wheels import Wheel

pytestmark = pytest.mark.engine_wheels

CORPUS = Path(__file__).resolve().parents[2] / "real_configs"
DRAFTS = sorted((CORPUS / "drafts").glob("*.json"))
QWEN3_8B = json.loads((CORPUS / "targets" / "qwen3-8b.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def sglang(sglang_wheel: Wheel) -> SglangFunctions:
    return sglang_functions(sglang_wheel)


def _theirs(function: Any, *args: Any, **kwargs: Any) -> tuple[str, Any]:
    try:
        return "ok", function(*args, **kwargs)
    except Exception as error:  # SGLang raises ValueError, TypeError, ...
        return "raises", error


def _mine(function: Any, *args: Any) -> tuple[str, Any]:
    try:
        return "ok", function(*args)
    except SglangRefuses as error:
        return "raises", error


def _list(value: Any) -> list[int] | None:
    return None if value is None else list(value)


def compare_dflash(sglang: SglangFunctions, config: dict[str, Any]) -> None:
    theirs = _theirs(sglang.parse_dflash_draft_config, draft_hf_config=config)
    mine = _mine(parse_dflash_draft_config, field_getter(config, ""))
    assert theirs[0] == mine[0], (config, theirs, mine)
    if theirs[0] == "raises":
        return
    t, m = theirs[1], mine[1]
    assert (t.mask_token_id, t.mask_token) == (m.mask_token_id, m.mask_token)
    assert _list(t.target_layer_ids) == _list(m.target_layer_ids)
    assert (t.num_target_layers, t.num_hidden_layers, t.block_size, t.selector_rank) == (
        m.num_target_layers,
        m.num_hidden_layers,
        m.block_size,
        m.selector_rank,
    )


def compare_dspark(sglang: SglangFunctions, config: dict[str, Any]) -> None:
    theirs = _theirs(sglang.parse_dspark_draft_config, draft_hf_config=config)
    mine = _mine(parse_dspark_draft_config, field_getter(config, ""))
    assert theirs[0] == mine[0], (config, theirs, mine)
    if theirs[0] == "raises":
        return
    t, m = theirs[1], mine[1]
    assert (t.mask_token_id, t.markov_rank, t.markov_head_type) == (
        m.mask_token_id,
        m.markov_rank,
        m.markov_head_type,
    )
    assert _list(t.target_layer_ids) == _list(m.target_layer_ids)


def compare_layers(sglang: SglangFunctions, config: dict[str, Any], target: dict[str, Any]) -> None:
    """The runtime list of the target worker (before the target class's hook)."""
    theirs = _theirs(sglang.dflash_aux_hidden_state, config, target)
    get = field_getter(config, "")

    def runtime() -> tuple[int, ...] | None:
        draft = parse_dflash_draft_config(get)
        if draft.num_hidden_layers is None:
            raise SglangRefuses("DFLASH requires draft num_hidden_layers")
        depth = target_depth(target["num_hidden_layers"], target.get("num_loops"))
        ids = resolve_target_layer_ids(draft, depth, draft.num_hidden_layers).ids
        assert ids is not None  # a target was given: the layers are derived
        return ids

    mine = _mine(runtime)
    if theirs[0] == "ok" and _captured(theirs[1].dflash_target_layer_ids) < len(
        theirs[1].dflash_target_layer_ids
    ):
        # SGLang's list repeats an id (the draft derives more ids than the target has
        # layers between 1 and L - 3): the function returns it, but the target captures
        # each layer once, so the draft's fc gets fewer features than it is sized for and
        # the first forward pass fails. The checker refuses the draft there: a derived list
        # when it derives it, a list the draft names (resolved as SGLang resolves it) by the
        # capture-order rule (layers-captured-in-order, layers._capture_order_findings).
        if mine[0] == "ok":
            assert list(mine[1]) == list(theirs[1].dflash_target_layer_ids), (config, mine)
            assert len(set(mine[1])) < len(mine[1]), (config, mine)
            return
        assert mine[1].code is sglang_codes.DERIVED_LAYERS_INVALID, (config, theirs, mine)
        return
    assert theirs[0] == mine[0], (config, theirs, mine)
    if theirs[0] == "ok":
        assert list(theirs[1].dflash_target_layer_ids) == list(mine[1])


def _captured(layer_ids: Any) -> int:
    """How many hidden states SGLang's target captures for ``layer_ids``: its target
    classes' ``set_dflash_layers_to_capture`` (``srt/models/qwen3.py`` and the others) set
    ``layers_to_capture = [id + 1 for id in layer_ids]``, and their ``forward`` captures
    layer ``i`` when ``i in self.layers_to_capture``, once per layer whatever the repeats
    (a model that packs its captures, ``AuxHiddenStatePacker``, raises "captured 1 of 2").
    """
    capture = [layer_id + 1 for layer_id in layer_ids]
    return sum(1 for layer in range(max(capture, default=0) + 1) if layer in capture)


@pytest.mark.parametrize("path", DRAFTS, ids=lambda path: path.stem)
def test_the_corpus_reads_the_same(sglang: SglangFunctions, path: Path) -> None:
    config = json.loads(path.read_text(encoding="utf-8"))
    compare_dflash(sglang, config)
    compare_dspark(sglang, config)
    compare_layers(sglang, config, QWEN3_8B)
    theirs = sglang.eagle_aux_hidden_state(config, QWEN3_8B)
    use, ids = eagle_layer_ids(field_getter(config, ""))
    assert (theirs.eagle_use_aux_hidden_state, theirs.eagle_aux_hidden_state_layer_ids) == (
        use,
        ids,
    )


# --- generated configs -------------------------------------------------------------------------

ABSENT = object()
values = st.one_of(
    st.none(),
    st.integers(-3, 200),
    st.booleans(),
    st.sampled_from(["7", "x", "", "16"]),
    st.floats(-2, 50, allow_nan=False),
)
layer_lists = st.one_of(
    st.none(),
    st.integers(0, 3),
    st.lists(st.one_of(st.integers(-2, 40), st.sampled_from(["3", True, 2.5])), max_size=6),
)


def _put(config: dict[str, Any], key: str, value: object) -> None:
    if value is not ABSENT:
        config[key] = value


@st.composite
def configs(draw: st.DrawFn) -> dict[str, Any]:
    config: dict[str, Any] = {}
    section: dict[str, Any] = {}
    maybe = st.one_of(st.just(ABSENT), values)
    for key in ("mask_token_id", "num_target_layers", "block_size"):
        _put(section, key, draw(maybe))
        _put(config, key, draw(maybe))
    _put(section, "target_layer_ids", draw(st.one_of(st.just(ABSENT), layer_lists)))
    _put(config, "target_layer_ids", draw(st.one_of(st.just(ABSENT), layer_lists)))
    _put(section, "mask_token", draw(st.one_of(st.just(ABSENT), st.sampled_from(["<m>", "", 3]))))
    for key in ("selector_rank", "selector_top_k", "markov_rank"):
        _put(section, key, draw(st.one_of(st.just(ABSENT), st.integers(-1, 3))))
    _put(section, "markov_head_type", draw(st.sampled_from([ABSENT, "vanilla", "GATED", "x"])))
    _put(config, "markov_rank", draw(st.one_of(st.just(ABSENT), st.integers(-1, 3))))
    _put(config, "dspark_noise_token_id", draw(st.one_of(st.just(ABSENT), values)))
    _put(config, "dspark_target_layer_ids", draw(st.one_of(st.just(ABSENT), layer_lists)))
    _put(config, "num_hidden_layers", draw(st.one_of(st.just(ABSENT), st.integers(0, 6))))
    if draw(st.booleans()):
        config["dflash_config"] = section
    elif draw(st.booleans()):
        config["dspark_config"] = section
    return config


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(config=configs(), depth=st.integers(1, 40))
# --hypothesis-seed=3 found it: two draft layers derived over layers 1 to 1 of a 4-layer target.
@example(config={"num_hidden_layers": 2}, depth=4)
# A named list that repeats a layer (found by a local run): the capture-order rule refuses it.
@example(config={"target_layer_ids": [0, 0], "num_hidden_layers": 1}, depth=4)
@example(config={"target_layer_ids": [3, "3"]}, depth=8)
def test_generated_configs_read_the_same(
    sglang: SglangFunctions, config: dict[str, Any], depth: int
) -> None:
    compare_dflash(sglang, config)
    compare_dspark(sglang, config)
    compare_layers(sglang, config, {"num_hidden_layers": depth})


@given(target=st.integers(1, 80), draft=st.integers(1, 8))
def test_build_target_layer_ids_agrees(sglang: SglangFunctions, target: int, draft: int) -> None:
    theirs = _theirs(sglang.build_target_layer_ids, target, draft)
    mine = _mine(build_target_layer_ids, target, draft)
    assert theirs[0] == mine[0]
    if theirs[0] == "ok":
        assert list(theirs[1]) == list(mine[1])


# --- DFlashWorkerV2._resolve_mask_token_id (srt/speculative/dflash_worker_v2.py) ---------------


class _Tokenizer:
    """What ``_resolve_mask_token_id`` reads of a Hugging Face tokenizer, from the same
    ``tokenizer.json`` / ``tokenizer_config.json`` the package reads."""

    def __init__(self, directory: Path) -> None:
        data = json.loads((directory / "tokenizer.json").read_text(encoding="utf-8"))
        self.vocab: dict[str, int] = dict(data["model"]["vocab"])
        self.vocab.update({token["content"]: token["id"] for token in data["added_tokens"]})
        config = json.loads((directory / "tokenizer_config.json").read_text(encoding="utf-8"))
        self.mask_token = config.get("mask_token")
        self.mask_token_id = self.vocab.get(self.mask_token) if self.mask_token else None

    def get_vocab(self) -> dict[str, int]:
        return dict(self.vocab)

    def __len__(self) -> int:
        return max(self.vocab.values()) + 1

    def add_special_tokens(self, tokens: dict[str, str]) -> int:
        text = tokens["mask_token"]
        added = text not in self.vocab
        if added:
            self.vocab[text] = len(self)
        self.mask_token, self.mask_token_id = text, self.vocab[text]
        return int(added)

    def convert_tokens_to_ids(self, text: str) -> int | None:
        return self.vocab.get(text)


@pytest.fixture(scope="module")
def resolve_mask(sglang_wheel: Wheel) -> Any:
    extracted = sglang_wheel.extract(
        "sglang/srt/speculative/dflash_worker_v2.py",
        ["DFlashWorkerV2._resolve_mask_token_id"],
        stand_ins={
            "get_parallel": lambda: SimpleNamespace(tp_rank=1),
            "logger": logging.getLogger("sglang-extract"),
        },
    )
    return extracted["DFlashWorkerV2._resolve_mask_token_id"]


@pytest.mark.parametrize(
    ("added", "specials", "mask_token", "configured", "vocab_size"),
    [
        ((), {}, "<|MASK|>", None, 400),  # added at len(tokenizer)
        ((Added("<|MASK|>"),), {}, "<|MASK|>", None, 400),  # found in the vocabulary
        ((Added("<m>"),), {"mask": "<m>"}, "<m>", None, 400),  # the tokenizer's mask_token
        ((), {}, "<|MASK|>", None, 300),  # added past the target's vocabulary
        ((Added("<|MASK|>"),), {}, "<|MASK|>", 299, 400),  # another id: a mismatch
        ((Added("<|MASK|>"),), {}, "<|MASK|>", 300, 400),  # the same id
        ((), {}, "<|MASK|>", 350, 340),  # configured past the vocabulary
    ],
)
def test_the_mask_id_resolution_agrees(  # noqa: PLR0917
    resolve_mask: Any,
    tmp_path: Path,
    added: tuple[Added, ...],
    specials: dict[str, str],
    mask_token: str,
    configured: int | None,
    vocab_size: int,
) -> None:
    directory = write_tokenizer(tmp_path / "tok", vocab_size=300, added=added, specials=specials)
    fake_self = SimpleNamespace(
        target_worker=SimpleNamespace(
            model_runner=SimpleNamespace(model_config=SimpleNamespace(vocab_size=vocab_size)),
            tokenizer=_Tokenizer(directory),
        )
    )
    theirs = _theirs(resolve_mask, fake_self, mask_token=mask_token, mask_token_id=configured)
    files = load_tokenizer_files(directory)
    mine = _mine(
        lambda: resolve_mask_token_id(
            mask_token, configured, vocab_size=vocab_size, tokenizer=files
        )
    )
    assert theirs[0] == mine[0], (theirs, mine)
    if theirs[0] == "ok":
        assert theirs[1] == mine[1].token_id
