"""The tapped-layer chains against a re-expression of vLLM 0.33.0's two functions.

The two reference functions below are written here, from reading vLLM 0.33.0's
``get_eagle3_aux_layers_from_config`` (``v1/worker/gpu/spec_decode/eagle/eagle3_utils.py``,
the newer runner) and ``GPUModelRunner._get_eagle3_aux_layers_from_config``
(``v1/worker/gpu_model_runner.py``, the older one); they are not copied from vLLM.
They read a ``SimpleNamespace`` with ``getattr``, as vLLM reads an HF config, and also
say which field the value came from.

For every present, absent, empty and malformed combination of the layer fields, each
function of :mod:`drafting_config.engines.vllm` must give what its runner's function
gives: the same ids from the same field when the function returns ints, and ``None``
with a problem when it raises or returns anything but ints.  One deliberate
difference: a bool is not a layer id.  vLLM shifts ``True`` to 2 without complaint;
the reference is therefore fed each bool item as a fractional float, which vLLM also
shifts without raising and which is no int either.  A whole-number float (``9.0``) is
a layer id: vLLM's models compare it equal to their int layer index.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from drafting_config import ParallelDraftingConfig, check, resolve
from drafting_config.engines.vllm.load_path import derived_max_model_len
from drafting_config.engines.vllm.runners import (
    NEWER_RUNNER_FIELDS,
    OLDER_RUNNER_FIELDS,
    Runner,
    TappedLayers,
    runner_of,
    serving_method,
    tapped_layers,
)
from drafting_config.files.json_files import load_config_json
from drafting_config.values.errors import TargetLayersWarning
from drafting_config.values.fields import field_getter
from drafting_config.values.integers import exact_int
from tests.conftest import REPO
from tests.engines.vllm import TWO_RUNNERS
from tests.foreign import Unusable

# --- vLLM 0.33.0, re-expressed --------------------------------------------------------------------


def _plus_one(ids: Any) -> list[Any]:
    return [i + 1 for i in ids]


def newer_runner(hf: Any) -> tuple[tuple[Any, ...] | None, str | None]:
    """The newer runner's function: (its result, the field the result came from)."""
    ids: Any = getattr(hf, "eagle_aux_hidden_state_layer_ids", None)
    source = "eagle_aux_hidden_state_layer_ids"
    if not ids:
        dflash = getattr(hf, "dflash_config", None)
        if isinstance(dflash, dict) and dflash:
            ids = _plus_one(dflash.get("target_layer_ids") or [])
            source = "dflash_config.target_layer_ids"
    if not ids:
        dspark = getattr(hf, "dspark_target_layer_ids", None)
        if dspark:
            # A DeepSeek-V4.1 draft reads its ids as capture indices already.
            v41 = getattr(hf, "model_type", None) == "deepseek_v41"
            ids = list(dspark) if v41 else _plus_one(dspark)
            source = "dspark_target_layer_ids"
    if not ids:
        top = getattr(hf, "target_layer_ids", None)
        if top:
            ids, source = _plus_one(top), "target_layer_ids"
    if not ids:
        for section_name in ("dflash_config", "eagle_config"):
            section = getattr(hf, section_name, None)
            if isinstance(section, dict) and section:
                ids, source = section.get("layer_ids"), f"{section_name}.layer_ids"
                if ids:
                    break
    if ids and isinstance(ids, (list, tuple)):
        return tuple(ids), source
    return None, None


def older_runner(hf: Any) -> tuple[tuple[Any, ...] | None, str | None]:
    """The older runner's function: (its result, the field the result came from)."""
    ids: Any = getattr(hf, "eagle_aux_hidden_state_layer_ids", None)
    source = "eagle_aux_hidden_state_layer_ids"
    if not ids:
        dflash = getattr(hf, "dflash_config", None)
        eagle = getattr(hf, "eagle_config", None)
        if isinstance(dflash, dict) and dflash:
            ids = _plus_one(dflash.get("target_layer_ids") or [])
            source = "dflash_config.target_layer_ids"
        if isinstance(eagle, dict) and eagle:  # replaces the DFlash ids, even with None
            ids = eagle.get("eagle_aux_hidden_state_layer_ids")
            source = "eagle_config.eagle_aux_hidden_state_layer_ids"
    if ids and isinstance(ids, (list, tuple)):
        return tuple(ids), source
    return None, None


REFERENCES = {Runner.NEWER: newer_runner, Runner.OLDER: older_runner}


# --- the layer fields, present, absent, empty and malformed ---------------------------------------

_ABSENT = object()

_items = st.one_of(
    st.integers(-3, 40),
    st.integers(-3, 40),
    st.sampled_from([True, False, 1.5, 2.0, "3", None, [1], {"a": 1}]),
)
_values = st.one_of(
    st.just(_ABSENT),
    st.sampled_from([None, [], 0, "", False, {}, "abc", 5, True, {"a": 1}, 1.5]),
    st.lists(st.integers(-3, 40), min_size=1, max_size=5),
    st.lists(_items, min_size=1, max_size=4),
)


def _section(keys: tuple[str, ...]) -> st.SearchStrategy[object]:
    filled = st.fixed_dictionaries({}, optional=dict.fromkeys(keys, _values)).map(
        lambda d: {k: v for k, v in d.items() if v is not _ABSENT}
    )
    return st.one_of(st.just(_ABSENT), st.sampled_from([None, {}, [1, 2], "x"]), filled)


_configs = st.fixed_dictionaries(
    {},
    optional={
        "eagle_aux_hidden_state_layer_ids": _values,
        "dflash_config": _section(("target_layer_ids", "layer_ids", "mask_token_id")),
        "dspark_target_layer_ids": _values,
        "target_layer_ids": _values,
        "eagle_config": _section(("layer_ids", "eagle_aux_hidden_state_layer_ids", "other")),
        "model_type": st.sampled_from(["deepseek_v41", "qwen3", None]),
    },
).map(lambda d: {k: v for k, v in d.items() if v is not _ABSENT})


def _bools_as_floats(value: object) -> object:
    """The config with every bool *item of a list* made a float (see the module docstring)."""
    if isinstance(value, dict):
        return {key: _bools_as_floats(item) for key, item in value.items()}
    if isinstance(value, list):
        return [0.5 if isinstance(item, bool) else item for item in value]
    return value


def _expected(config: dict[str, object], runner: Runner) -> tuple[object, str | None]:
    """What the reference gives: ``"raises"``, ``"not ints"``, ``None`` or the int ids."""
    shown = SimpleNamespace(**{k: _bools_as_floats(v) for k, v in config.items()})
    try:
        ids, source = REFERENCES[runner](shown)
    except Exception:
        return "raises", None
    if ids is None:
        return None, None
    ids = type(ids)(
        int(item) if type(item) is float and item.is_integer() else item for item in ids
    )
    if not all(exact_int(item) is not None for item in ids):
        return "not ints", source
    return ids, source


def _ours(config: Mapping[str, object], runner: Runner) -> TappedLayers:
    return tapped_layers(field_getter(config, ""), runner)


_EDGES = (
    {"dflash_config": {"target_layer_ids": [1, 9]}, "eagle_config": {"other": 1}},
    {
        "dflash_config": {"target_layer_ids": [1]},
        "eagle_config": {"eagle_aux_hidden_state_layer_ids": [4]},
    },
    {
        "dflash_config": {"target_layer_ids": [True]},
        "eagle_config": {"eagle_aux_hidden_state_layer_ids": [4]},
    },
    {
        "dflash_config": {"target_layer_ids": ["1"]},
        "eagle_config": {"eagle_aux_hidden_state_layer_ids": [4]},
    },
    {"dflash_config": {"layer_ids": []}, "eagle_config": {"layer_ids": [3]}},
    {"dflash_config": {"layer_ids": "ab"}, "eagle_config": {"layer_ids": [3]}},
    {"dspark_target_layer_ids": "ab", "model_type": "deepseek_v41"},
    {"dspark_target_layer_ids": [1, 2], "model_type": "deepseek_v41", "target_layer_ids": [7]},
    {"eagle_aux_hidden_state_layer_ids": [], "dflash_config": {}, "target_layer_ids": [2.0]},
)


def _with_edges(test: Any) -> Any:
    for edge in _EDGES:
        test = example(config=edge)(test)
    return test


@pytest.mark.parametrize("runner", list(Runner))
@_with_edges
@given(config=_configs)
def test_each_chain_equals_its_runners_function(runner: Runner, config: dict[str, object]) -> None:
    expected, source = _expected(config, runner)
    ours = _ours(config, runner)
    if expected in {"raises", "not ints"}:
        assert ours.ids is None
        assert ours.problem is not None
        assert ours.field is not None
        if source is not None:
            assert ours.field == source
    elif expected is None:
        assert ours.ids is None
    else:
        assert ours.problem is None
        assert ours.ids == expected
        assert ours.field == source


@pytest.mark.parametrize("runner", list(Runner))
@given(config=_configs)
def test_a_chain_reads_a_parsed_file_as_it_reads_an_object(
    runner: Runner, config: dict[str, object]
) -> None:
    """A parsed config.json and an object with the same fields give the same taps."""
    as_object = SimpleNamespace(**config)
    assert tapped_layers(field_getter(as_object, ""), runner) == _ours(config, runner)


# --- the chains, field by field -------------------------------------------------------------------


def test_each_function_reads_vllms_fields_in_vllms_order() -> None:
    assert list(NEWER_RUNNER_FIELDS) == [
        "eagle_aux_hidden_state_layer_ids",
        "dflash_config.target_layer_ids",
        "dspark_target_layer_ids",
        "target_layer_ids",
        "dflash_config.layer_ids",
        "eagle_config.layer_ids",
    ]
    assert list(OLDER_RUNNER_FIELDS) == [
        "eagle_aux_hidden_state_layer_ids",
        "dflash_config.target_layer_ids",
        "eagle_config.eagle_aux_hidden_state_layer_ids",
    ]


@pytest.mark.parametrize(
    ("config", "ids", "field"),
    [
        (
            {"eagle_aux_hidden_state_layer_ids": [0, 18, 36]},
            (0, 18, 36),
            "eagle_aux_hidden_state_layer_ids",
        ),
        (
            {"dflash_config": {"target_layer_ids": [1, 9, 17]}},
            (2, 10, 18),
            "dflash_config.target_layer_ids",
        ),
        ({"target_layer_ids": [1, 9, 17, 25, 33]}, (2, 10, 18, 26, 34), "target_layer_ids"),
        ({"dspark_target_layer_ids": [1, 2]}, (2, 3), "dspark_target_layer_ids"),
        (
            {"dspark_target_layer_ids": [1, 2], "model_type": "deepseek_v41"},
            (1, 2),
            "dspark_target_layer_ids",
        ),
        ({"dflash_config": {"layer_ids": [3, 4]}}, (3, 4), "dflash_config.layer_ids"),
        ({"eagle_config": {"layer_ids": [3, 4]}}, (3, 4), "eagle_config.layer_ids"),
        # An empty list counts as absent; the next field is read.
        (
            {"eagle_aux_hidden_state_layer_ids": [], "target_layer_ids": [1]},
            (2,),
            "target_layer_ids",
        ),
        # The first truthy value wins, even when a later field also names layers.
        (
            {"dflash_config": {"target_layer_ids": [1]}, "target_layer_ids": [5]},
            (2,),
            "dflash_config.target_layer_ids",
        ),
    ],
)
def test_the_newer_chain(config: dict[str, object], ids: tuple[int, ...], field: str) -> None:
    taps = _ours(config, Runner.NEWER)
    assert (taps.ids, taps.field, taps.problem) == (ids, field, None)
    if "." not in field:
        assert taps.value == config[field]


def test_the_older_chain_reads_neither_dspark_nor_top_level_target_layer_ids() -> None:
    config = {"target_layer_ids": [1, 9], "dspark_target_layer_ids": [1]}
    assert _ours(config, Runner.OLDER) == TappedLayers(None, None)
    assert _ours(config, Runner.NEWER).ids == (2,)  # dspark_target_layer_ids comes first


def test_the_older_chains_eagle_config_replaces_dflash_ids_even_when_missing() -> None:
    config = {"dflash_config": {"target_layer_ids": [1, 9]}, "eagle_config": {"other": 1}}
    assert _ours(config, Runner.OLDER).ids is None
    assert _ours(config, Runner.NEWER).ids == (2, 10)
    config["eagle_config"] = {"eagle_aux_hidden_state_layer_ids": [4]}
    taps = _ours(config, Runner.OLDER)
    assert (taps.ids, taps.field) == ((4,), "eagle_config.eagle_aux_hidden_state_layer_ids")


@pytest.mark.parametrize(
    ("config", "field", "problem"),
    [
        (
            {"eagle_aux_hidden_state_layer_ids": "2,18"},
            "eagle_aux_hidden_state_layer_ids",
            "is '2,18' (str), not a list, so vLLM stops looking",
        ),
        (
            {"dflash_config": {"target_layer_ids": ["1", 9]}},
            "dflash_config.target_layer_ids",
            "has item 0 = '1' (str), so vLLM fails adding 1 to each id",
        ),
        (
            {"target_layer_ids": [True, 9]},
            "target_layer_ids",
            "has item 0 = True (bool), not an int layer id",
        ),
        (
            {"eagle_aux_hidden_state_layer_ids": [True, 9]},
            "eagle_aux_hidden_state_layer_ids",
            "has item 0 = True (bool), not an int layer id",
        ),
        (
            {"target_layer_ids": 5},
            "target_layer_ids",
            "is 5 (int), not a list, so vLLM fails adding 1 to each id",
        ),
    ],
)
def test_a_broken_field_gives_no_ids_and_a_problem_naming_the_value(
    config: dict[str, object], field: str, problem: str
) -> None:
    taps = _ours(config, Runner.NEWER)
    assert taps.ids is None
    assert taps.field == field
    assert taps.problem is not None
    assert taps.problem.startswith(problem)


def test_a_truthy_value_that_is_not_a_list_stops_the_chain() -> None:
    taps = _ours({"eagle_aux_hidden_state_layer_ids": 7, "target_layer_ids": [1]}, Runner.NEWER)
    assert (taps.ids, taps.field) == (None, "eagle_aux_hidden_state_layer_ids")
    assert taps.problem is not None


# --- which runner, and what the resolver and the model expose -------------------------------------


def test_the_runner_of_each_method() -> None:
    assert runner_of("dflash") is Runner.NEWER
    assert runner_of("dspark") is Runner.NEWER
    assert runner_of("ptd") is Runner.OLDER
    assert runner_of("peagle") is Runner.OLDER
    assert runner_of("pard") is None
    assert runner_of(None) is Runner.NEWER
    assert runner_of("something new") is Runner.NEWER
    assert runner_of("dflash2") is Runner.NEWER


@pytest.mark.parametrize(
    ("config", "ids", "source"),
    [
        (
            {"dflash_config": {"mask_token_id": 5, "target_layer_ids": [1, 9, 17, 25, 33]}},
            (2, 10, 18, 26, 34),
            "dflash_config.target_layer_ids",
        ),
        # PTD is served by the older runner, which never reads top-level target_layer_ids.
        ({"ptd_token_id": 5, "target_layer_ids": [1, 9]}, None, None),
        (
            {"ptd_token_id": 5, "eagle_aux_hidden_state_layer_ids": [1, 9]},
            (1, 9),
            "eagle_aux_hidden_state_layer_ids",
        ),
        # The generic mask_token_id: the newer runner, vLLM's default.
        ({"mask_token_id": 5, "target_layer_ids": [1, 9]}, (2, 10), "target_layer_ids"),
        # PARD drafters take no hidden states.
        ({"pard_token": 5, "eagle_aux_hidden_state_layer_ids": [1, 9]}, None, None),
    ],
)
def test_the_resolver_and_the_model_expose_the_serving_runners_layers(
    config: dict[str, object], ids: tuple[int, ...] | None, source: str | None
) -> None:
    resolution = resolve(config)
    assert (resolution.aux_layer_ids, resolution.aux_layer_source) == (ids, source)
    model = ParallelDraftingConfig.from_hf_config(config)
    assert (model.aux_layer_ids, model.aux_layer_source) == (ids, source)
    assert ParallelDraftingConfig.model_validate_json(model.model_dump_json()) == model


def speculators_file(algorithm: str, **top: object) -> dict[str, object]:
    return {
        "speculators_model_type": algorithm,
        "speculators_config": {
            "proposal_methods": [{"speculative_tokens": 7}],
            "verifier": {"name_or_path": "Qwen/Qwen3-8B"},
        },
        "transformer_layer_config": {"model_type": "qwen3", "vocab_size": 151936},
        **top,
    }


@pytest.mark.parametrize("algorithm", ["dflash", "dflash2", "dspark"])
def test_the_speculators_translation_feeds_the_same_chains(algorithm: str) -> None:
    """vLLM copies ``aux_hidden_state_layer_ids`` as given into the first field of both
    chains; a 0 (the input of the target's first layer) is a capture index like any other."""
    config = speculators_file(algorithm, mask_token_id=151669, aux_hidden_state_layer_ids=[1, 18])
    resolution = resolve(config)
    assert resolution.errors == ()
    assert resolution.aux_layer_ids == (1, 18)
    assert resolution.aux_layer_source == "aux_hidden_state_layer_ids"
    translated = json.loads(json.dumps(resolution.speculators.hf_config))  # type: ignore[union-attr]
    for runner in Runner:
        expected, _ = _expected(translated, runner)
        assert expected == (1, 18)


def test_a_peagle_speculators_file_reads_its_eagle_layers_on_the_older_runner() -> None:
    config = speculators_file(
        "peagle", mask_token_id=128020, eagle_aux_hidden_state_layer_ids=[2, 16, 29]
    )
    resolution = resolve(config)
    assert resolution.aux_layer_ids == (2, 16, 29)
    assert resolution.aux_layer_source == "eagle_aux_hidden_state_layer_ids"


@given(config=_configs, token=st.sampled_from(["mask_token_id", "ptd_token_id", "pard_token"]))
def test_the_resolution_holds_the_serving_runners_whole_result(
    config: dict[str, object], token: str
) -> None:
    """``Resolution.tapped`` is the serving runner's chain run once over the draft, the one
    result that ``aux_layer_ids`` summarizes and ``check()``'s layer rules start from."""
    resolution = resolve({**config, token: 3})
    runner = runner_of(resolution.algorithm)
    if runner is None:  # PARD: fed no hidden states
        assert resolution.tapped is None
        return
    assert resolution.tapped == _ours(config | {token: 3}, runner)
    assert resolution.aux_layer_ids == resolution.tapped.ids


# --- The method vLLM 0.33 guesses from a draft's ``architectures``, where the token field ---------


MUSE_GLIMMER = REPO / "tests" / "real_configs" / "drafts" / "z-lab--assistant-config.json"


def generic(**fields: object) -> dict[str, object]:
    """A draft naming its token id in the generic top-level ``mask_token_id``."""
    return {"mask_token_id": 7, "vocab_size": 100, **fields}


@pytest.mark.parametrize(
    ("architectures", "model_type", "method"),
    [
        (["MuseGlimmerAssistantModel"], "muse_glimmer_assistant", "dflash"),
        (["Qwen3DSparkModel"], "qwen3_dspark", "dspark"),
        (["Qwen3OmniDSparkModel"], None, "dspark"),
        (["MuseSparkDSparkModel"], None, "dspark"),
        (["Gemma4DSparkModel"], None, "dspark"),
        (["DSparkDraftModel"], "qwen3", "dspark"),
        # vLLM's guess by architecture stops here: these need a name or the user's method.
        (["DSparkDraftModel"], "dspark", None),
        (["DFlashDraftModel"], "qwen3", None),
        (["K3DSparkModel"], "k3_dspark", None),
        (["LlamaForCausalLM"], "llama", None),
        # The dflash test comes before the dspark one, whatever the list's order.
        (["Qwen3DSparkModel", "MuseGlimmerAssistantModel"], None, "dflash"),
        # Anything but a list of strings guesses nothing, and never raises.
        ("MuseGlimmerAssistantModel", None, None),
        ([["MuseGlimmerAssistantModel"]], None, None),
        ([], None, None),
        (None, None, None),
    ],
)
def test_a_generic_token_field_takes_vllms_guess_from_the_architectures(
    architectures: object, model_type: object, method: str | None
) -> None:
    config = generic(architectures=architectures, model_type=model_type)
    assert resolve(config).algorithm == method
    assert check(config).resolution is not None


def test_a_token_field_that_names_a_method_keeps_it() -> None:
    config = {
        "dspark_noise_token_id": 7,
        "vocab_size": 100,
        "architectures": ["MuseGlimmerAssistantModel"],
    }
    assert resolve(config).algorithm == "dspark"


def test_an_invalid_token_field_still_gets_the_guess() -> None:
    resolution = resolve(generic(mask_token_id="7", architectures=["MuseGlimmerAssistantModel"]))
    assert not resolution.ok
    assert resolution.algorithm == "dflash"


class _RaisingArchitectures:
    mask_token_id = 7
    vocab_size = 100

    @property
    def architectures(self) -> list[str]:
        raise RuntimeError("half-built config")


@pytest.mark.parametrize(
    "config",
    [
        SimpleNamespace(mask_token_id=7, vocab_size=100, architectures=Unusable()),
        _RaisingArchitectures(),
    ],
)
def test_an_unreadable_architectures_guesses_nothing(config: object) -> None:
    assert (
        serving_method(field_getter({"architectures": ["Qwen3DSparkModel"]}, ""), None) == "dspark"
    )
    resolution = resolve(config)
    assert resolution.algorithm is None
    assert resolution.winner is not None


def test_the_model_name_is_not_guessed_from(tmp_path: Path) -> None:
    """vLLM also guesses from the ``model`` string it is given; check() is given a path,
    which is not that string (see :mod:`drafting_config.engines.vllm`)."""
    folder = tmp_path / "qwen3-8b-dflash-b16"
    folder.mkdir()
    (folder / "config.json").write_text('{"mask_token_id": 7, "vocab_size": 100}')
    verdict = check(folder, check_tokenizer=False, check_weights=False)
    assert verdict.resolution is not None
    assert verdict.resolution.algorithm is None


# --- z-lab's MuseGlimmer assistant draft ----------------------------------------------------------


def test_the_muse_glimmer_draft_gets_the_two_runner_warning() -> None:
    """vLLM serves it as DFlash (by its architecture), on either runner; the newer runner
    reads its top-level ``target_layer_ids``, the older one reads no field of it."""
    verdict = check(MUSE_GLIMMER, engine=TWO_RUNNERS)
    assert verdict.errors == ()
    assert verdict.resolution is not None
    assert verdict.resolution.algorithm == "dflash"
    assert verdict.resolution.aux_layer_ids == (2, 14, 26, 38, 50)
    assert [str(w) for w in verdict.warnings if isinstance(w, TargetLayersWarning)] == [
        "vLLM's newer runner taps [2, 14, 26, 38, 50] from `target_layer_ids` and its older "
        "one, which may serve it too, the target's defaults."
    ]
    # the default release has one runner: no warning
    assert [w for w in check(MUSE_GLIMMER).warnings if isinstance(w, TargetLayersWarning)] == []


def _muse_glimmer_rewrite(config: dict[str, Any]) -> dict[str, Any]:
    """vLLM's ``hf_config_override`` for ``muse_glimmer_assistant`` (config/speculative.py,
    lines 1159-1167), re-expressed: ``{"causal": False} | (dflash_config or {})``."""
    rewritten = copy.deepcopy(config)
    rewritten["dflash_config"] = {"causal": False} | (config.get("dflash_config") or {})
    return rewritten


def _gemma4_dspark_rewrite(config: dict[str, Any]) -> dict[str, Any]:
    """vLLM's normalisation of a ``Gemma4DSparkModel`` draft (config/speculative.py, lines
    1568-1579), re-expressed."""
    rewritten = copy.deepcopy(config)
    if config.get("dspark_target_layer_ids") is None and config.get("target_layer_ids") is not None:
        rewritten["dspark_target_layer_ids"] = config["target_layer_ids"]
    return rewritten


def _outcome(config: dict[str, Any], runner: Runner) -> tuple[object, bool]:
    taps = tapped_layers(field_getter(config, ""), runner)
    return taps.ids, taps.problem is not None


def test_vllms_rewrite_of_the_muse_glimmer_draft_changes_neither_runners_layers() -> None:
    config = load_config_json(MUSE_GLIMMER)
    rewritten = _muse_glimmer_rewrite(config)
    assert rewritten["dflash_config"] == {"causal": False}
    assert _outcome(rewritten, Runner.NEWER) == ((2, 14, 26, 38, 50), False)
    assert _outcome(rewritten, Runner.OLDER) == (None, False)
    for runner in Runner:
        assert _outcome(rewritten, runner) == _outcome(config, runner)


@given(config=_configs)
def test_vllms_config_rewrites_never_change_what_a_chain_returns(config: dict[str, Any]) -> None:
    """Why the chains read the draft's own config (see :mod:`drafting_config.engines.vllm`).
    A ``Gemma4DSparkModel`` draft has its own ``model_type``, never ``deepseek_v41``."""
    for runner in Runner:
        expected = _outcome(config, runner)
        try:
            muse = _muse_glimmer_rewrite(config)
        except TypeError:  # a truthy dflash_config that is no dict: vLLM fails on it too
            pass
        else:
            assert _outcome(muse, runner) == expected
        if config.get("model_type") != "deepseek_v41":
            assert _outcome(_gemma4_dspark_rewrite(config), runner) == expected


# --- the served length: _get_and_verify_max_len (vllm/config/model.py) ---------------------------


def _max_len(config: dict[str, Any]) -> int | None:
    return derived_max_model_len(field_getter(config, ""))


@pytest.mark.parametrize(
    ("rope", "expected"),
    [
        # One entry: its factor multiplies, unless its type is one vLLM leaves unscaled.
        ({"rope_type": "dynamic", "factor": 4.0}, 4096 * 4),
        ({"rope_type": "yarn", "factor": 4.0}, 4096),
        # Several entries (one per layer type): the last scaled entry with a factor wins ...
        (
            {
                "full": {"rope_type": "linear", "factor": 2.0},
                "sliding": {"rope_type": "linear", "factor": 3.0},
            },
            4096 * 3,
        ),
        # ... an entry without a factor keeps the previous one ...
        (
            {"full": {"rope_type": "linear", "factor": 2.0}, "sliding": {"rope_type": "default"}},
            4096 * 2,
        ),
        # ... an unscaled type does not overwrite it ...
        (
            {
                "full": {"rope_type": "linear", "factor": 2.0},
                "sliding": {"rope_type": "yarn", "factor": 8.0},
            },
            4096 * 2,
        ),
        # ... and a null factor becomes 1.0.
        (
            {
                "full": {"rope_type": "linear", "factor": 2.0},
                "sliding": {"rope_type": "linear", "factor": None},
            },
            4096,
        ),
        # A factor beyond float range leaves no length (vLLM's int() would raise).
        ({"rope_type": "dynamic", "factor": 10**400}, None),
        ({"rope_type": "dynamic", "factor": float("inf")}, None),
        ({"rope_type": "dynamic", "factor": "2"}, None),
    ],
)
def test_the_derived_length_follows_vllms_loop_over_rope_entries(
    rope: dict[str, object], expected: int | None
) -> None:
    config = {"model_type": "llama", "max_position_embeddings": 4096, "rope_parameters": rope}
    assert _max_len(config) == expected


@pytest.mark.parametrize("model_type", ["gemma3", "gemma3_text"])
def test_gemma3s_length_is_not_scaled_again(model_type: str) -> None:
    rope = {"rope_type": "linear", "factor": 8.0}
    config = {"model_type": model_type, "max_position_embeddings": 131072, "rope_scaling": rope}
    assert _max_len(config) == 131072
    assert _max_len({**config, "model_type": "llama"}) == 131072 * 8


def test_a_length_beyond_float_range_is_no_length() -> None:
    rope = {"rope_type": "dynamic", "factor": 2.0}
    assert _max_len({"max_position_embeddings": 10**400, "rope_scaling": rope}) is None
    assert _max_len({"max_position_embeddings": 10**400}) is None
    assert _max_len({"max_position_embeddings": 2**62}) == 2**62
