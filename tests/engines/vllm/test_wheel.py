"""The resolver against vLLM 0.33.0's own functions, taken from the released wheel.

``tools/wheels.py`` downloads ``vllm==0.33.0`` once and takes, with ``ast``:

* the newer runner's ``get_parallel_drafting_token_id``
  (``vllm/v1/worker/gpu/spec_decode/utils.py``) and the older runner's
  ``SpecDecodeBaseProposer._init_parallel_drafting_params``
  (``vllm/v1/spec_decode/llm_base_proposer.py``);
* the newer runner's ``get_eagle3_aux_layers_from_config``
  (``vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py``) and the older runner's
  ``GPUModelRunner._get_eagle3_aux_layers_from_config``
  (``vllm/v1/worker/gpu_model_runner.py``);
* vLLM's reading of the speculators format
  (``vllm/transformers_utils/configs/speculators/``).

They run on every corpus config and on generated ones, beside
:func:`drafting_config.draft.resolution.resolve`. Where the package parts from vLLM on
purpose (README, "Rules"), the tests assert the documented relation:

* a token-id field present with ``null`` counts as unset for the package; vLLM selects
  it (only a top-level ``mask_token_id: null`` falls through), then the newer runner
  raises ``TypeError`` and the older stores ``None``. So the package's token id is vLLM's
  on the config without those nulls;
* the package refuses a token id that is not an int (``"7"``, ``True``, ``7.9``), or out
  of range, where the newer runner coerces it with ``int()``: the field vLLM selects is
  then the package's invalid field, and there is no token id;
* the package's tapped layers are ints or nothing: where vLLM's function raises, or
  returns items that are not ints, the package has no layers and says why. A bool or a
  float in a layer list counts as not an int, although vLLM adds 1 to it silently.
"""

from __future__ import annotations

import copy
import functools
import json
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Final, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drafting_config.draft.fields import FieldStatus
from drafting_config.engines.vllm.resolution import Resolution, resolve
from drafting_config.engines.vllm.speculators import translate
from drafting_config.values.errors import ParallelDraftingConfigError
from drafting_config.values.sources import PRIORITY_ORDER
from tools.engines.vllm.functions import (
    VllmTaps,
    VllmTokenId,
    vllm_speculators,
    vllm_taps,
    vllm_token_id,
)
from tools.wheels import Wheel

pytestmark = pytest.mark.engine_wheels

CORPUS = Path(__file__).resolve().parents[2] / "real_configs"
DRAFTS = sorted((CORPUS / "drafts").glob("*.json"))
READINGS = {
    reading["file"]: reading
    for reading in json.loads((CORPUS / "vllm_readings.json").read_text(encoding="utf-8"))[
        "readings"
    ]
}

TOKEN_FIELDS = tuple(source.value for source in PRIORITY_ORDER)
"""The package's priority table, as paths (``dflash_config.mask_token_id`` first)."""

OLDER_RUNNER_METHODS = frozenset({"ptd", "peagle"})
"""Methods vLLM 0.33.0 serves with the older runner only (``vllm/config/vllm.py``,
``_get_v2_model_runner_unsupported_features``: no parallel drafting for EAGLE); PARD takes
no hidden states; every other method runs on the newer runner by default."""

NO_HIDDEN_STATES_METHODS = frozenset({"pard"})

INT32_LIMIT = 2**31


# --- the wheel's functions -------------------------------------------------------------------


@pytest.fixture(scope="module")
def token_id(vllm_wheel: Wheel) -> VllmTokenId:
    return vllm_token_id(vllm_wheel)


@pytest.fixture(scope="module")
def taps(vllm_wheel: Wheel) -> VllmTaps:
    return vllm_taps(vllm_wheel)


@pytest.fixture(scope="module")
def speculators(vllm_wheel: Wheel) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    return vllm_speculators(vllm_wheel)


class Raised:
    """A call that raised: the exception's type."""

    def __init__(self, error: BaseException) -> None:
        self.kind = type(error)

    def __repr__(self) -> str:
        return f"Raised({self.kind.__name__})"


def outcome(call: Callable[[], object]) -> object:
    """What a call of vLLM's code returns, or :class:`Raised`."""
    try:
        return call()
    except Exception as error:
        return Raised(error)


def carried(data: Mapping[str, Any]) -> object:
    """A parsed config.json as vLLM's runners see it: an attribute object whose sections
    stay dicts."""
    return SimpleNamespace(**copy.deepcopy(dict(data)))


class Marker:
    """Stands for a token-id field's value, to see which field vLLM selects."""

    def __init__(self, field: str) -> None:
        self.field = field


def _token_paths(data: Mapping[str, Any]) -> list[tuple[str | None, str]]:
    return [
        (section or None, key)
        for section, _, key in (field.rpartition(".") for field in TOKEN_FIELDS)
    ]


def _edit_token_fields(
    data: Mapping[str, Any], edit: Callable[[str, object], object | None]
) -> dict[str, Any]:
    """``data`` with each present token-id field's value replaced by ``edit(field, value)``,
    or deleted where that is ``None``."""
    edited = copy.deepcopy(dict(data))
    for section, key in _token_paths(data):
        holder = edited.get(section) if section is not None else edited
        if not isinstance(holder, dict) or key not in holder:
            continue
        field = key if section is None else f"{section}.{key}"
        new = edit(field, holder[key])
        if new is None:
            del holder[key]
        else:
            holder[key] = new
    return edited


def without_nulls(data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` without the token-id fields present with ``null`` (the package's reading)."""
    return _edit_token_fields(data, lambda field, value: value)  # None deletes the key


def vllm_selected_field(token_id: VllmTokenId, data: Mapping[str, Any]) -> str | None:
    """The field vLLM's older runner selects on ``data`` (whose token fields hold no null),
    read by running it on markers: it stores the selected value as it is."""
    marked = _edit_token_fields(data, lambda field, value: Marker(field))
    stored = outcome(lambda: token_id.older(carried(marked)))
    if isinstance(stored, Raised):
        assert stored.kind is ValueError
        return None
    assert isinstance(stored, Marker)
    return stored.field


def status_of(resolution: Resolution, field: str) -> FieldStatus:
    (verdict,) = [f for f in resolution.fields if f.source.value == field]
    return verdict.status


# --- the token id ----------------------------------------------------------------------------


def assert_token_id_relation(
    token_id: VllmTokenId, resolution: Resolution, hf_data: Mapping[str, Any]
) -> None:
    """The package's token id on a config is vLLM's, as the module docstring says.

    ``hf_data`` is the HF config vLLM's runners read (for a speculators file, vLLM's own
    translation of it); ``resolution`` the package's resolution of the file.
    """
    stripped = without_nulls(hf_data)
    field = vllm_selected_field(token_id, stripped)
    newer = outcome(lambda: token_id.newer(carried(stripped)))
    older = outcome(lambda: token_id.older(carried(stripped)))
    if field is None:  # vLLM: ValueError, no field set
        assert isinstance(newer, Raised)
        assert newer.kind is ValueError
        assert resolution.winner is None
        assert all(f.status in (FieldStatus.ABSENT, FieldStatus.NULL) for f in resolution.fields)
        assert not resolution.ok
    else:
        value = older  # the older runner stores the raw value
        bound = INT32_LIMIT if resolution.vocab_size is None else resolution.vocab_size
        if type(value) is int and 0 <= value < bound:
            assert newer == value
            assert resolution.winner is not None
            assert resolution.winner.source.value == field
            assert resolution.winner.token_id == value
        else:  # vLLM coerces or fails; the package refuses the field it selects
            assert status_of(resolution, field) is FieldStatus.INVALID
            assert resolution.winner is None
            assert any(error.field is not None for error in resolution.errors)
    # A present null is the documented divergence: where vLLM's older runner selects one
    # (any field but a top-level mask_token_id) it stores None and the newer one raises
    # TypeError, while the package reads past it, as above.
    if outcome(lambda: token_id.older(carried(hf_data))) is None:
        assert stripped != dict(hf_data)
        with pytest.raises(TypeError):
            token_id.newer(carried(hf_data))


# --- the tapped layers -----------------------------------------------------------------------


LAYER_FIELDS = (
    (None, "eagle_aux_hidden_state_layer_ids"),
    (None, "dspark_target_layer_ids"),
    (None, "target_layer_ids"),
    ("dflash_config", "target_layer_ids"),
    ("dflash_config", "layer_ids"),
    ("eagle_config", "layer_ids"),
    ("eagle_config", "eagle_aux_hidden_state_layer_ids"),
)
"""Every field either runner's function reads layer ids from (a superset does no harm)."""

NOT_AN_INT = "not an int"


def strict_layer_items(data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` with each bool or fractional float item of a layer list replaced by a string.

    vLLM adds 1 to a bool or a float without complaint (``False + 1`` is ``1``); the
    package refuses a bool and a fractional float as it refuses a string, which vLLM fails
    on (a field it shifts) or returns as it is (a field it does not). A whole-number float
    is a layer id to both (vLLM's models compare ``9.0 == 9``). The
    replacement keeps every list as truthy as it was, so vLLM's functions stop at the same
    field.
    """
    strict = copy.deepcopy(dict(data))
    for section, key in LAYER_FIELDS:
        holder = strict.get(section) if section is not None else strict
        if isinstance(holder, dict) and isinstance(holder.get(key), list):
            holder[key] = [NOT_AN_INT if _not_a_layer_id(item) else item for item in holder[key]]
    return strict


def _not_a_layer_id(item: object) -> bool:
    return isinstance(item, bool) or (isinstance(item, float) and not item.is_integer())


def _as_ids(values: object) -> tuple[int, ...] | None:
    """vLLM's result as layer ids: ints, and whole-number floats as the ints they equal."""
    if not isinstance(values, tuple):
        return None
    ids = []
    for item in values:
        if type(item) is float and item.is_integer():
            item = int(item)  # noqa: PLW2901
        if type(item) is not int:
            return None
        ids.append(item)
    return tuple(ids)


def serving_function(taps: VllmTaps, algorithm: str | None) -> Callable[[object], object] | None:
    if algorithm in NO_HIDDEN_STATES_METHODS:
        return None
    return taps.older if algorithm in OLDER_RUNNER_METHODS else taps.newer


def assert_tapped_layers_relation(
    taps: VllmTaps, resolution: Resolution, hf_data: Mapping[str, Any]
) -> None:
    """The package's tapped layers are what the wheel's function of the runner serving the
    draft returns, when that is a tuple of ints; otherwise the package has none."""
    function = serving_function(taps, resolution.algorithm)
    if function is None:
        assert resolution.aux_layer_ids is None
        assert resolution.tapped is None
        return
    theirs = outcome(lambda: function(carried(strict_layer_items(hf_data))))
    ids = _as_ids(theirs)
    if ids is not None:
        assert resolution.aux_layer_ids == ids
        assert resolution.aux_layer_source is not None
        return
    assert resolution.aux_layer_ids is None
    assert resolution.aux_layer_source is None
    if theirs is None:  # no field, or vLLM stopped at a value that is not a list
        assert resolution.tapped is None or resolution.tapped.ids is None
    else:  # vLLM raises, or returns items that are not ints: the package says why
        assert resolution.tapped is not None
        assert resolution.tapped.problem is not None, theirs


# --- the corpus -------------------------------------------------------------------------------


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _hf_config_vllm_reads(
    speculators: Callable[[Mapping[str, Any]], dict[str, Any]], data: Mapping[str, Any]
) -> dict[str, Any]:
    """The HF config vLLM's runners read: vLLM's own translation of a speculators file."""
    return speculators(data) if "speculators_config" in data else dict(data)


@pytest.mark.parametrize("path", DRAFTS, ids=lambda path: path.stem)
def test_every_corpus_draft_resolves_as_vllm_s_own_functions_do(
    path: Path,
    token_id: VllmTokenId,
    taps: VllmTaps,
    speculators: Callable[[Mapping[str, Any]], dict[str, Any]],
) -> None:
    data = _load(path)
    hf_data = _hf_config_vllm_reads(speculators, data)
    resolution = resolve(data)
    assert_token_id_relation(token_id, resolution, hf_data)
    assert_tapped_layers_relation(taps, resolution, hf_data)


@pytest.mark.parametrize("path", DRAFTS, ids=lambda path: path.stem)
def test_the_corpus_readings_are_what_vllm_s_own_functions_return(
    path: Path,
    token_id: VllmTokenId,
    taps: VllmTaps,
    speculators: Callable[[Mapping[str, Any]], dict[str, Any]],
) -> None:
    # The readings in vllm_readings.json were written from vLLM's source by hand; here the
    # wheel's functions produce them, on both the attribute object and a transformers
    # PreTrainedConfig (the class vLLM's configs derive from).
    from transformers.configuration_utils import PreTrainedConfig
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    reading = READINGS[f"drafts/{path.name}"]
    hf_data = _hf_config_vllm_reads(speculators, _load(path))
    # The config class of the draft's model_type, as vLLM builds it (a bare PreTrainedConfig
    # cannot standardize a yarn rope_scaling: it has no max_position_embeddings field).
    model_type = hf_data.get("model_type")
    config_class = PreTrainedConfig
    if isinstance(model_type, str) and model_type in CONFIG_MAPPING:
        config_class = CONFIG_MAPPING[model_type]
    with warnings.catch_warnings():  # transformers' deprecations of legacy RoPE fields
        warnings.simplefilter("ignore", FutureWarning)
        pretrained = config_class.from_dict(copy.deepcopy(hf_data))
    for hf_config in (carried(hf_data), pretrained):
        newer = outcome(functools.partial(token_id.newer, hf_config))
        if reading["token_exception"] is None:
            assert newer == reading["token_id"]
        else:
            assert isinstance(newer, Raised)
            assert newer.kind.__name__ == reading["token_exception"]
        runner = taps.older if reading["serving_runner"] == "older" else taps.newer
        layers = runner(hf_config)
        assert (None if layers is None else list(layers)) == reading["aux_layer_ids"]


def assert_writes_agree(ours: Mapping[str, object], theirs: Mapping[str, object]) -> None:
    """Every field the package's translation writes (sections key by key) holds what vLLM's
    own translation writes there; the package leaves out fields it does not read."""
    for key, value in ours.items():
        assert key in theirs, key
        if isinstance(value, dict) and isinstance(theirs[key], dict):
            assert_writes_agree(value, cast("Mapping[str, object]", theirs[key]))
        else:
            assert theirs[key] == value, key


def test_the_speculators_translation_writes_what_vllm_writes(
    speculators: Callable[[Mapping[str, Any]], dict[str, Any]],
) -> None:
    # Every field the package's translation writes holds what vLLM's own translation
    # writes there (the package does not reproduce the fields it does not read).
    files = [path for path in DRAFTS if "speculators_config" in _load(path)]
    assert files
    for path in files:
        data = _load(path)
        resolution = resolve(data)
        assert resolution.format == "speculators"
        theirs = speculators(data)
        if resolution.speculators is not None:
            assert_writes_agree(resolution.speculators.hf_config, theirs)


# --- generated configs ---------------------------------------------------------------------------

ABSENT: Any = object()

token_values = st.one_of(
    st.integers(-3, 1_100),
    st.integers(2**31 - 2, 2**31 + 2),
    st.none(),
    st.sampled_from(["7", "", True, False, 7.9, 0.0, [7], {"id": 7}]),
)
layer_items = st.one_of(
    st.integers(-2, 80), st.booleans(), st.floats(0, 80, allow_nan=False), st.text(max_size=2)
)
layer_values = st.one_of(
    st.none(),
    st.lists(st.integers(-2, 80), max_size=6),
    st.lists(layer_items, max_size=4),
    st.integers(0, 5),
    st.text(max_size=3),
    st.just([]),
    st.tuples(st.integers(0, 80)).map(list),
)


def _optional(values: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.just(ABSENT), values)


@st.composite
def hf_configs(draw: st.DrawFn) -> dict[str, Any]:
    """A draft's config.json with any mix of the token-id and tapped-layer fields."""
    data: dict[str, Any] = {"hidden_size": 64}
    fields = {
        "vocab_size": _optional(st.sampled_from([1_000, 200_000])),
        "model_type": _optional(st.sampled_from(["qwen3", "llama", "deepseek_v41"])),
        "mask_token_id": _optional(token_values),
        "dspark_noise_token_id": _optional(token_values),
        "pard_token": _optional(token_values),
        "ptd_token_id": _optional(token_values),
        "eagle_aux_hidden_state_layer_ids": _optional(layer_values),
        "dspark_target_layer_ids": _optional(layer_values),
        "target_layer_ids": _optional(layer_values),
    }
    for key, values in fields.items():
        value = draw(values)
        if value is not ABSENT:
            data[key] = value
    for section, keys in {
        "dflash_config": {
            "mask_token_id": token_values,
            "target_layer_ids": layer_values,
            "layer_ids": layer_values,
        },
        "eagle_config": {
            "layer_ids": layer_values,
            "eagle_aux_hidden_state_layer_ids": layer_values,
        },
    }.items():
        shape = draw(st.sampled_from(["absent", "null", "dict"]))
        if shape == "null":
            data[section] = None
        elif shape == "dict":
            data[section] = {
                key: value
                for key, values in keys.items()
                if (value := draw(_optional(values))) is not ABSENT
            }
    return data


@given(data=hf_configs())
def test_generated_configs_resolve_as_vllm_s_own_functions_do(
    token_id: VllmTokenId, taps: VllmTaps, data: dict[str, Any]
) -> None:
    resolution = resolve(data)
    assert_token_id_relation(token_id, resolution, data)
    assert_tapped_layers_relation(taps, resolution, data)


@st.composite
def speculators_configs(draw: st.DrawFn) -> dict[str, Any]:
    """A speculators-format config.json, valid or not where vLLM reads it."""
    algorithm = draw(st.sampled_from(["dflash", "dflash2", "dspark", "peagle", "eagle3"]))
    data: dict[str, Any] = {
        "speculators_model_type": algorithm,
        "speculators_config": {
            "proposal_methods": [{"speculative_tokens": 3}],
            "verifier": {"name_or_path": "Qwen/Qwen3-8B"},
        },
        "transformer_layer_config": {
            "model_type": draw(st.sampled_from(["qwen3", "llama", "mistral"])),
            "hidden_size": 64,
            "vocab_size": draw(st.sampled_from([1_000, 200_000])),
        },
    }
    for key, values in {
        "mask_token_id": token_values,
        "aux_hidden_state_layer_ids": layer_values,
        "eagle_aux_hidden_state_layer_ids": layer_values,
        "draft_vocab_size": st.sampled_from([None, 500]),
    }.items():
        value = draw(_optional(values))
        if value is not ABSENT:
            data[key] = value
    return data


@given(data=speculators_configs())
def test_generated_speculators_files_resolve_as_vllm_reads_them(
    token_id: VllmTokenId,
    taps: VllmTaps,
    speculators: Callable[[Mapping[str, Any]], dict[str, Any]],
    data: dict[str, Any],
) -> None:
    resolution = resolve(data)
    assert resolution.format == "speculators"
    theirs = outcome(lambda: speculators(data))
    if isinstance(theirs, Raised):  # vLLM refuses the file: so does the package
        assert resolution.speculators is None
        assert not resolution.ok
        return
    assert isinstance(theirs, dict)
    if data["speculators_model_type"] == "eagle3":  # not parallel drafting: refused
        assert not resolution.ok
        assert_tapped_layers_relation(taps, resolution, theirs)
        return
    assert resolution.speculators is not None
    assert_writes_agree(resolution.speculators.hf_config, theirs)
    assert_token_id_relation(token_id, resolution, theirs)
    assert_tapped_layers_relation(taps, resolution, theirs)


SPECULATORS_BASE: Final[dict[str, Any]] = {
    "speculators_config": {
        "proposal_methods": [{"speculative_tokens": 3}],
        "verifier": {"name_or_path": "Qwen/Qwen3-8B"},
    },
    "transformer_layer_config": {"model_type": "qwen3", "hidden_size": 64, "vocab_size": 1000},
    "mask_token_id": 7,
}


@pytest.mark.parametrize(
    ("algorithm", "model_type"),
    [
        ("peagle", "mistral"),
        ("peagle", None),
        ("peagle", "Qwen3"),
        ("peagle", "qwen2"),
        ("eagle3", "mistral"),
        ("eagle3", "qwen3_moe"),
    ],
)
def test_a_peagle_file_of_a_model_type_vllm_cannot_translate_is_refused(
    speculators: Callable[[Mapping[str, Any]], dict[str, Any]],
    algorithm: str,
    model_type: object,
) -> None:
    data = copy.deepcopy(SPECULATORS_BASE) | {"speculators_model_type": algorithm}
    data["transformer_layer_config"]["model_type"] = model_type
    theirs = outcome(lambda: speculators(data))
    assert isinstance(theirs, Raised)
    assert theirs.kind is ValueError
    with pytest.raises(ParallelDraftingConfigError) as caught:
        translate(data.get, parallel_only=False)
    assert caught.value.field == "transformer_layer_config.model_type"
    assert f"update_{algorithm}" in str(caught.value)
    if algorithm == "peagle":
        resolution = resolve(data)
        assert not resolution.ok
        assert [error.field for error in resolution.errors] == [
            "transformer_layer_config.model_type"
        ]


@pytest.mark.parametrize("algorithm", ["peagle", "eagle3"])
@pytest.mark.parametrize("model_type", ["llama", "qwen3", ABSENT])
def test_the_model_types_vllm_translates_are_translated(
    speculators: Callable[[Mapping[str, Any]], dict[str, Any]],
    algorithm: str,
    model_type: object,
) -> None:
    data = copy.deepcopy(SPECULATORS_BASE) | {"speculators_model_type": algorithm}
    del data["transformer_layer_config"]["model_type"]
    if model_type is not ABSENT:
        data["transformer_layer_config"]["model_type"] = model_type
    theirs = speculators(data)
    ours = translate(data.get, parallel_only=False)
    assert_writes_agree(ours.hf_config, theirs)


@pytest.mark.parametrize("algorithm", ["dflash", "dflash2", "dspark"])
@pytest.mark.parametrize("layers", ["", {}, []])
def test_an_empty_non_list_of_layers_is_translated_as_vllm_translates_it(
    speculators: Callable[[Mapping[str, Any]], dict[str, Any]],
    algorithm: str,
    layers: object,
) -> None:
    data = copy.deepcopy(SPECULATORS_BASE) | {
        "speculators_model_type": algorithm,
        "aux_hidden_state_layer_ids": layers,
    }
    theirs = speculators(data)
    section = theirs["dflash_config"] if algorithm != "dspark" else theirs
    assert section["target_layer_ids"] == []
    resolution = resolve(data)
    assert resolution.speculators is not None
    assert resolution.errors == ()
    assert_writes_agree(resolution.speculators.hf_config, theirs)
