"""The method vLLM 0.33 guesses from a draft's ``architectures``, where the token field
names none (``SpeculativeConfig.__post_init__`` in ``vllm/config/speculative.py``)."""

from __future__ import annotations

import copy
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given

from drafting_config import check, resolve
from drafting_config.engines.vllm import Runner, serving_method, tapped_layers
from drafting_config.files.json_files import load_config_json
from drafting_config.values.errors import TargetLayersWarning
from drafting_config.values.fields import field_getter
from tests.conftest import REPO
from tests.engines.test_vllm import _configs
from tests.foreign import Unusable

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


# --- z-lab's MuseGlimmer assistant draft --------------------------------------------------------


def test_the_muse_glimmer_draft_gets_the_two_runner_warning() -> None:
    """vLLM serves it as DFlash (by its architecture), on either runner; the newer runner
    reads its top-level ``target_layer_ids``, the older one reads no field of it."""
    verdict = check(MUSE_GLIMMER)
    assert verdict.errors == ()
    assert verdict.resolution is not None
    assert verdict.resolution.algorithm == "dflash"
    assert verdict.resolution.aux_layer_ids == (2, 14, 26, 38, 50)
    assert [str(w) for w in verdict.warnings if isinstance(w, TargetLayersWarning)] == [
        "vLLM's two model runners read different target layers for this DFlash draft: the "
        "newer one taps capture indices [2, 14, 26, 38, 50] (from `target_layer_ids`), the "
        "older one finds none and taps the target model's default layers. vLLM serves DFlash "
        "with the older runner when VLLM_USE_V2_MODEL_RUNNER=0 or the newer one lacks a "
        "feature in use; make the fields agree."
    ]


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
