"""vLLM 0.33.0's load path: parsing, the registry before and after vLLM renames
the draft's architectures, construction, the speculator set-up, tapping the target, and
the ``null`` vLLM reads.  Each rule is in :mod:`drafting_config.rules.vllm`; its evidence
is the vLLM file and function its docstring cites."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drafting_config import (
    ParallelDraftingConfig,
    ParallelDraftingConfigError,
    ParallelDraftingConfigWarning,
    Verdict,
    check,
    get_parallel_drafting_token_id,
)
from drafting_config.engines import ENGINES
from drafting_config.engines.vllm import codes as vllm_codes
from drafting_config.engines.vllm import load_path
from drafting_config.engines.vllm.codes import REMOTE_CODE_DRAFTER
from drafting_config.engines.vllm.load_path import hf_config_override
from drafting_config.engines.vllm.names import VERSIONS
from drafting_config.engines.vllm.tables import vllm_tables
from drafting_config.values import codes
from drafting_config.values.codes import Step
from drafting_config.values.fields import field_getter
from tests.conftest import QWEN3_8B_DFLASH_DRAFT, only_error
from tests.engines.vllm import PARALLEL_SWITCH, PEAGLE, TWO_RUNNERS
from tests.serve_commands import vllm_switch
from tests.test_real_configs import CORPUS

QWEN3_8B_TARGET = {
    "architectures": ["Qwen3ForCausalLM"],
    "model_type": "qwen3",
    "vocab_size": 151936,
    "hidden_size": 4096,
    "num_hidden_layers": 36,
}
LFM2_TARGET = {**QWEN3_8B_TARGET, "architectures": ["Lfm2ForCausalLM"], "model_type": "lfm2"}

DFLASH: dict[str, Any] = QWEN3_8B_DFLASH_DRAFT
DSPARK: dict[str, Any] = {
    **DFLASH,
    "architectures": ["DSparkDraftModel"],
    "markov_rank": 256,
    "dflash_config": {**DFLASH["dflash_config"], "projector_type": "dspark"},
}


def errors(verdict: Verdict) -> list[str]:
    return [str(error) for error in verdict.errors]


def load_warnings(verdict: Verdict) -> list[str]:
    return [str(w) for w in verdict.warnings if type(w) is ParallelDraftingConfigWarning]


def clean(config: dict[str, Any], **options: Any) -> None:
    verdict = check(config, check_tokenizer=False, **options)
    assert verdict.errors == (), errors(verdict)
    assert load_warnings(verdict) == []


def test_the_well_formed_drafts_pass_every_step() -> None:
    clean(DFLASH, target=QWEN3_8B_TARGET)
    clean(DSPARK, target=QWEN3_8B_TARGET)


# --- parsing: HFConfigParser.parse ------------------------------------------------------------


def test_a_model_type_no_transformers_version_knows_is_an_error() -> None:
    error = only_error(check({**DFLASH, "model_type": "dflash"}))
    assert error.field == "model_type"
    accepted = vllm_tables().transformers_versions
    assert str(error) == (
        "The draft's config has `model_type` 'dflash', which neither vLLM nor the "
        f"transformers it accepts ({accepted[0]} to {accepted[-1]}) knows, and `auto_map` "
        "names no AutoConfig, so vLLM fails parsing it at start-up."
    )
    assert error.code is codes.MODEL_TYPE_UNKNOWN
    assert error.evidence is not None
    assert "HFConfigParser.parse" in error.evidence
    assert error.fix == 'set `model_type` to the type of the draft\'s layers, such as "qwen3"'


def test_an_auto_config_makes_an_unknown_model_type_a_remote_code_warning() -> None:
    # SpecForge's DeepSeek-V4 DSpark names only AutoModel: still an error.
    only_auto_model = {**DFLASH, "model_type": "dspark_v4", "auto_map": {"AutoModel": "m.M"}}
    assert only_error(check(only_auto_model)).field == "model_type"
    config = {**DFLASH, "model_type": "dspark_v4", "auto_map": {"AutoConfig": "m.C"}}
    verdict = check(config)
    assert verdict.errors == ()
    (warning,) = load_warnings(verdict)
    assert "--trust-remote-code" in warning


def rewritten_by_override(model_type: str) -> bool:
    """Whether vLLM's ``hf_config_override`` rewrites a DFlash draft of this model type into
    another class (``bailing_hybrid`` -> ``BailingMoeV25MTPModel``)."""
    overridden = hf_config_override(field_getter({**DFLASH, "model_type": model_type}, ""))
    return overridden is not None and list(overridden[1]) != DFLASH["architectures"]


def test_a_model_type_only_later_transformers_versions_know_is_a_warning_naming_them() -> None:
    tables = vllm_tables()
    later = next(
        t
        for t, first in sorted(tables.model_types.items())
        if first != "5.16.1"
        and t not in tables.config_registry
        and not rewritten_by_override(t)  # hf_config_override keeps its class
    )
    verdict = check({**DFLASH, "model_type": later})
    assert verdict.errors == ()
    (warning,) = load_warnings(verdict)
    assert f"is known to transformers {tables.model_types[later]} and later only" in warning


def test_vllms_own_config_registry_parses_its_model_types() -> None:
    assert "k3_dspark" in vllm_tables().config_registry
    verdict = check({"model_type": "k3_dspark", "architectures": ["Foo"], "mask_token_id": 5})
    assert "model_type" not in {error.field for error in verdict.errors}


def test_a_whole_config_without_model_type_is_an_error_and_a_fragment_is_not_judged() -> None:
    without = {key: value for key, value in DFLASH.items() if key != "model_type"}
    error = only_error(check(without))
    assert error.field == "model_type"
    assert "has no `model_type`, and is no speculators file" in str(error)
    assert check({"dflash_config": {"mask_token_id": 5}}).errors == ()


# --- the registry, before and after vLLM renames the architectures ------------------------------


def test_an_architecture_nothing_resolves_is_an_error() -> None:
    error = only_error(check({**DFLASH, "architectures": ["DominoDraftModel"]}))
    assert (error.field, error.code, error.step) == (
        "architectures",
        codes.ARCHITECTURE_UNSUPPORTED,
        Step.REGISTRY,
    )
    assert "['DominoDraftModel'] names no class of vLLM's registry" in str(error)
    assert error.fix is not None
    assert error.fix.startswith("name an architecture vLLM registers")
    assert error.evidence is not None
    assert "ModelConfig.__post_init__" in error.evidence
    assert "_raise_for_unsupported raises ValueError" in error.evidence


def test_a_drafter_class_only_remote_code_supplies_is_an_error() -> None:
    # The real engine on SpecForge's Domino and DSpine drafts (engine_runs): "Model
    # architectures [...] are not supported for now"; with remote code, no drafter either.
    remote = {**DFLASH, "architectures": ["DominoDraftModel"], "auto_map": {"AutoModel": "m.M"}}
    error = only_error(check(remote))
    assert error.field == "architectures"
    assert error.code is REMOTE_CODE_DRAFTER
    assert error.step is Step.REGISTRY
    assert "vLLM builds no dflash drafter from it" in str(error)
    assert error.evidence is not None
    assert "_raise_for_unsupported" in error.evidence
    assert "no combine_hidden_states" in error.evidence
    dspark = {**DSPARK, "architectures": ["DSpineDraftModel"], "auto_map": {"AutoModel": "m.M"}}
    evidence = only_error(check(dspark)).evidence
    assert evidence is not None
    assert "rewrites an unlisted DSpark class" in evidence


def test_an_eagle3_class_only_remote_code_supplies_is_an_error_too() -> None:
    # EAGLE-3 is a drafter method: the Transformers backend's class has no drafter interface.
    remote = {"architectures": ["MyEagle3Drafter"], "auto_map": {"AutoModel": "m.M"}}
    error = only_error(check({**remote, "model_type": "llama", "ptd_token_id": 5}))
    assert (error.code, error.field) == (REMOTE_CODE_DRAFTER, "architectures")
    assert "no eagle3 drafter" in str(error)


def test_an_architecture_only_remote_code_or_the_transformers_backend_serves_is_a_warning() -> None:
    # A plain draft model (PARD) is served by the Transformers backend: a warning.
    remote = {"architectures": ["MyForCausalLM"], "auto_map": {"AutoModel": "m.M"}}
    verdict = check({**remote, "model_type": "llama", "pard_token": 5})
    assert verdict.errors == ()
    assert any("--trust-remote-code" in warning for warning in load_warnings(verdict))
    tables = vllm_tables()
    exported = next(c for c in sorted(tables.model_classes) if tables.registered(c) is None)
    verdict = check({**DFLASH, "architectures": [exported]})
    assert verdict.errors == ()
    assert "Transformers backend" in load_warnings(verdict)[0]
    assert {w.code for w in verdict.warnings} >= {vllm_codes.ARCHITECTURE_FALLBACK}


def test_a_name_vllm_renames_for_its_method_is_checked_again() -> None:
    # A DFlash draft named like a causal LM: EAGLEConfig makes it DFlashQwen3ForCausalLM.
    error = only_error(check({**DFLASH, "architectures": ["Qwen3ForCausalLM"]}))
    assert (error.field, error.code) == (
        "architectures",
        vllm_codes.RENAMED_ARCHITECTURE_UNSUPPORTED,
    )
    assert str(error) == (
        "vLLM renames `architectures` ['Qwen3ForCausalLM'] to ['DFlashQwen3ForCausalLM'] for "
        "dflash, a name its registry lacks: it refuses the draft."
    )
    assert error.evidence is not None
    assert "EAGLEConfig.__init__" in error.evidence
    assert "update_arch_" in error.evidence
    # An HF-format P-EAGLE draft served as eagle3 becomes the unregistered Eagle3PEagleDraftModel.
    peagle = {"architectures": ["PEagleDraftModel"], "model_type": "llama", "ptd_token_id": 5}
    assert "['Eagle3PEagleDraftModel']" in str(only_error(check(peagle, engine=PEAGLE)))
    assert only_error(check(peagle)).code is codes.METHOD_UNSUPPORTED  # no P-EAGLE at all
    # MuseGlimmer's rename is registered.
    glimmer = {"architectures": ["MuseGlimmerAssistantModel"], "model_type": "qwen3"}
    assert check({**glimmer, "mask_token_id": 5}).errors == ()


def test_a_class_naming_no_token_is_renamed_for_the_mode_it_is_served_in() -> None:
    # SpecForge's P-EAGLE draft names no token id: vLLM still serves it as eagle3 (the real
    # engine: "Model architectures ['Eagle3PEagleDraftModel'] are not supported for now").
    peagle = {"architectures": ["PEagleDraftModel"], "model_type": "llama", "hidden_size": 64}
    errors = check(peagle, require_parallel=True, engine=PEAGLE).errors
    renamed = [e for e in errors if e.code is vllm_codes.RENAMED_ARCHITECTURE_UNSUPPORTED]
    assert len(renamed) == 1
    assert "['Eagle3PEagleDraftModel']" in str(renamed[0])
    assert renamed[0].step is Step.REGISTRY


def test_a_dspark_list_vllm_does_not_keep_is_re_typed_with_a_warning() -> None:
    config = {**DSPARK, "model_type": "llama"}  # DSparkDraftModel of a non-qwen3 type
    verdict = check(config)
    assert verdict.errors == ()
    (warning,) = [w for w in verdict.warnings if w.code is vllm_codes.DSPARK_ARCHITECTURE_REPLACED]
    assert "replaces it with DeepSeek-V4's bundled draft, DSparkDraftModel" in str(warning)
    assert warning.field == "architectures"


def test_a_speculators_class_is_the_one_its_updater_writes_and_must_be_registered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # SpeculatorsConfig is never renamed, but vLLM's updater writes the class
    # (speculators/algos.py), which the registry must hold: all do in the shipped releases.
    from tests.engines.vllm.test_speculators import CONFIGS

    config = CONFIGS["dflash"]()
    assert check(config, check_tokenizer=False).errors == ()
    real = load_path.resolve_architecture

    def without_dflash(name: str, has_auto_model: bool, version: str) -> load_path.Resolved:
        if name == "DFlashDraftModel":
            return load_path.Resolved.UNSUPPORTED
        return real(name, has_auto_model, version)

    monkeypatch.setattr(load_path, "resolve_architecture", without_dflash)
    # the registry's answer per list is cached (a pure function of the tables): uncached here
    monkeypatch.setattr(load_path, "_unresolved_names", load_path._unresolved_names.__wrapped__)
    error = only_error(check(config, check_tokenizer=False))
    assert error.code is vllm_codes.RENAMED_ARCHITECTURE_UNSUPPORTED
    assert "speculators updater writes `architectures` = ['DFlashDraftModel']" in str(error)


DEEPSEEK_V4_TARGET = CORPUS / "synthesized_targets" / "deepseek-v4-flash.json"


def test_a_deepseek_v4_checkpoint_bundling_its_dspark_draft_is_served_as_dspark() -> None:
    # vLLM with "method": "dspark" and no draft model takes the target checkpoint as the draft
    # (SpeculativeConfig.__post_init__) and replaces its architectures with DSparkDraftModel:
    # the bundled draft, no replacement to warn about.
    bundle = json.loads(DEEPSEEK_V4_TARGET.read_text(encoding="utf-8"))
    bundle |= {
        "dspark_block_size": 5,
        "dspark_markov_rank": 256,
        "dspark_noise_token_id": 128799,
        "dspark_target_layer_ids": [40, 41, 42],
    }
    for target in (None, bundle):
        verdict = check(bundle, target=target, check_tokenizer=False)
        assert verdict.ok, [str(e) for e in verdict.errors]
        assert (verdict.mode, vllm_switch(verdict.serve_with)) == ("dspark", {"method": "dspark"})
        assert not {w.code for w in verdict.warnings} & {
            vllm_codes.DSPARK_ARCHITECTURE_REPLACED,
            vllm_codes.ARCHITECTURE_FALLBACK,
        }


def test_a_dspark_draft_with_its_mask_id_in_dflash_config_is_labelled_dspark() -> None:
    config = {**DSPARK, "dflash_config": {"mask_token_id": 151669, "target_layer_ids": [1, 9]}}
    verdict = check(config)
    assert verdict.resolution is not None
    assert verdict.resolution.algorithm == "dspark"
    assert verdict.errors == ()


# --- construction -----------------------------------------------------------------------------


def test_a_qwen3_dspark_draft_without_a_top_level_markov_rank_cannot_be_built() -> None:
    nested = {key: value for key, value in DSPARK.items() if key != "markov_rank"}
    nested["dflash_config"] = {**DSPARK["dflash_config"], "markov_rank": 256}
    error = only_error(check(nested))
    assert error.field == "markov_rank"
    assert str(error) == (
        "`markov_rank` is not set, only in `dflash_config`, where vLLM does not read it, and "
        "vLLM's Qwen3DSparkModel reads it, so building the draft raises AttributeError."
    )
    assert error.fix == 'set `markov_rank` at the top level: `"markov_rank": 256`'
    assert error.evidence == (
        "vllm/model_executor/models/qwen3_dspark.py: Qwen3DSparkModel.__init__ "
        "(config.markov_rank; Qwen3Config has no such field) raises AttributeError"
    )


def test_a_dflash2_draft_needs_its_candidate_head_keys() -> None:
    config = {**DFLASH, "architectures": ["DFlash2DraftModel"]}
    found = {error.field for error in check(config).errors}
    assert {
        "dflash_config.conv_kernel_size",
        "dflash_config.conv_group_size",
        "dflash_config.selector_rank",
        "dflash_config.selector_top_k",
    } == found


def test_a_null_section_the_dflash_model_updates_cannot_be_built() -> None:
    error = only_error(check({**DFLASH, "eagle_config": None}))
    assert (error.field, error.code) == ("eagle_config", vllm_codes.DFLASH_CONFIG_NULL)
    assert "raises AttributeError" in str(error)
    assert error.evidence is not None
    assert "DFlashQwen3Model.__init__" in error.evidence


def test_every_failing_step_is_listed_not_only_the_first() -> None:
    config = {
        **DSPARK,
        "model_type": "qwen3_dspark",
        "architectures": ["Qwen3DSparkModel"],
        "dflash_config": {**DSPARK["dflash_config"], "sample_from_anchor": True},
    }
    del config["markov_rank"]
    fields = [error.field for error in check(config).errors]
    assert fields == ["model_type", "dflash_config.sample_from_anchor", "markov_rank"]


# --- the speculator: sample_from_anchor -----------------------------------------------------------


def test_sample_from_anchor_is_refused_by_the_newer_runner() -> None:
    config = {**DFLASH, "dflash_config": {**DFLASH["dflash_config"], "sample_from_anchor": True}}
    verdict = check(config, engine=TWO_RUNNERS)
    error = only_error(verdict)
    assert error.field == "dflash_config.sample_from_anchor"
    assert error.code is vllm_codes.SAMPLE_FROM_ANCHOR_UNSUPPORTED
    assert error.evidence is not None
    assert "sample_from_anchor=True is not supported for DFlash" in error.evidence
    assert any("older model runner" in note for note in verdict.notes)
    verdict = check(config)  # one runner: the same error, no note on another runner
    assert only_error(verdict).code is vllm_codes.SAMPLE_FROM_ANCHOR_UNSUPPORTED
    assert "runner" not in str(only_error(verdict))
    assert not any("runner" in note for note in verdict.notes)
    dspark = {**DSPARK, "dflash_config": {**DSPARK["dflash_config"], "sample_from_anchor": 1}}
    evidence = only_error(check(dspark)).evidence
    assert evidence is not None
    assert "which DSparkSpeculator.__init__ calls" in evidence
    off = {**DFLASH, "dflash_config": {**DFLASH["dflash_config"], "sample_from_anchor": False}}
    assert check(off).errors == ()


# --- tapping the target ---------------------------------------------------------------------------


def test_a_target_without_supports_eagle3_cannot_be_tapped() -> None:
    error = only_error(check(DFLASH, target=LFM2_TARGET, check_tokenizer=False))
    assert error.field == "target.architectures"
    assert "'Lfm2ForCausalLM'" in str(error)
    assert error.code is codes.TARGET_NOT_TAPPABLE
    assert error.evidence is not None
    assert 'raises RuntimeError "Model does not support EAGLE3 interface"' in error.evidence


def test_an_unregistered_target_is_a_warning_and_a_pard_draft_taps_nothing() -> None:
    target = {**QWEN3_8B_TARGET, "architectures": ["SomeUnregisteredForCausalLM"]}
    verdict = check(DFLASH, target=target, check_tokenizer=False)
    assert verdict.errors == ()
    assert "Transformers backend" in load_warnings(verdict)[0]
    pard = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "pard_token": 5}
    assert check(pard, target=LFM2_TARGET, check_tokenizer=False).errors == ()


def test_an_eagle3_draft_without_aux_hidden_states_needs_no_tapping() -> None:
    eagle = {
        "architectures": ["LlamaForCausalLMEagle3"],
        "model_type": "llama",
        "ptd_token_id": 5,
        "eagle_config": {"use_aux_hidden_state": False},
    }
    assert check(eagle, target=LFM2_TARGET, check_tokenizer=False).errors == ()
    tapped = {**eagle, "eagle_config": {}}
    assert only_error(check(tapped, target=LFM2_TARGET, check_tokenizer=False)).field == (
        "target.architectures"
    )


# --- the null vLLM reads ------------------------------------------------------------------------


def test_a_present_null_above_the_winner_is_an_error_in_check_only() -> None:
    config = {**DFLASH, "mask_token_id": 151669}
    config["dflash_config"] = {**DFLASH["dflash_config"], "mask_token_id": None}
    error = only_error(check(config))
    assert error.field == "dflash_config.mask_token_id"
    assert error.code is vllm_codes.TOKEN_FIELD_NULL
    assert error.evidence is not None
    assert "int(None)" in error.evidence
    assert error.fix is not None
    assert error.fix.startswith("delete the `dflash_config.mask_token_id` key")
    # The token-id entry points keep treating null as unset.
    assert ParallelDraftingConfig.from_hf_config(config).token_id == 151669
    assert get_parallel_drafting_token_id(config) == 151669


def test_a_top_level_mask_token_id_null_is_skipped_as_vllm_skips_it() -> None:
    config = {**DFLASH, "mask_token_id": None}
    assert check(config).errors == ()
    above = {**DFLASH, "dflash_config": {"target_layer_ids": [1]}, "mask_token_id": None}
    above |= {"dspark_noise_token_id": None, "pard_token": 7}
    assert only_error(check(above, engine=PARALLEL_SWITCH)).field == "dspark_noise_token_id"


# --- never a traceback --------------------------------------------------------------------------

_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.text(max_size=20),
    st.lists(st.one_of(st.text(max_size=20), st.integers(), st.none()), max_size=3),
    st.dictionaries(st.text(max_size=12), st.text(max_size=5), max_size=3),
)


@given(
    values=st.fixed_dictionaries(
        {
            "model_type": _VALUES,
            "architectures": _VALUES,
            "auto_map": _VALUES,
            "markov_rank": _VALUES,
            "eagle_config": _VALUES,
        }
    ),
    sample=_VALUES,
)
def test_the_load_path_rules_never_raise(values: dict[str, object], sample: object) -> None:
    config = {
        **DSPARK,
        **values,
        "dflash_config": {**DSPARK["dflash_config"], "sample_from_anchor": sample},
    }
    verdict = check(config, target=QWEN3_8B_TARGET, check_tokenizer=False)
    assert all(isinstance(error, ParallelDraftingConfigError) for error in verdict.errors)


@pytest.mark.parametrize("name", ["AquilaForCausalLM"])
def test_a_previously_supported_name_says_until_which_version(name: str) -> None:
    error = only_error(check({**DFLASH, "architectures": [name], "model_type": "llama"}))
    version = vllm_tables().previously_supported[name]
    assert error.fix is not None
    assert f"{name} was served until vLLM {version}" in error.fix


# --- the served context -------------------------------------------------------------------------

LONG_TARGET = {**QWEN3_8B_TARGET, "max_position_embeddings": 131072}


@pytest.mark.parametrize("rope", ["rope_scaling", "rope_parameters"])
def test_a_draft_whose_rope_cannot_stretch_lowers_the_servers_max_model_len(rope: str) -> None:
    yarn = {"rope_type": "yarn", "factor": 16.0, "original_max_position_embeddings": 4096}
    draft = {**DSPARK, "max_position_embeddings": 65536, rope: yarn}
    verdict = check(draft, target=LONG_TARGET, check_tokenizer=False)
    assert verdict.errors == ()
    (warning,) = verdict.warnings
    assert "lowers the server's max_model_len from the target's 131072 to the draft's 65536" in (
        str(warning)
    )
    assert warning.evidence is not None
    assert "_limit_max_model_len_to_draft" in warning.evidence


def test_a_cache_only_rope_draft_shares_the_targets_positions() -> None:
    for rope in ({"rope_type": "linear", "factor": 2.0}, {"type": "default"}, None):
        draft = {**DSPARK, "max_position_embeddings": 4096, "rope_scaling": rope}
        assert load_warnings(check(draft, target=LONG_TARGET, check_tokenizer=False)) == []


def test_a_scaling_factor_lengthens_the_derived_context() -> None:
    # dynamic multiplies max_position_embeddings by its factor (_get_and_verify_max_len).
    draft = {
        **DSPARK,
        "max_position_embeddings": 32768,
        "rope_scaling": {"rope_type": "dynamic", "factor": 4.0},
    }
    assert load_warnings(check(draft, target=LONG_TARGET, check_tokenizer=False)) == []
    draft["rope_scaling"] = {"rope_type": "dynamic", "factor": 2.0}
    assert (
        "to the draft's 65536"
        in load_warnings(check(draft, target=LONG_TARGET, check_tokenizer=False))[0]
    )


_ROPE_VALUES = st.one_of(
    _VALUES,
    st.fixed_dictionaries(
        {},
        optional={
            "rope_type": _VALUES,
            "type": _VALUES,
            "factor": st.one_of(_VALUES, st.floats(), st.integers()),
        },
    ),
)


@given(
    draft_rope=_ROPE_VALUES,
    target_rope=_ROPE_VALUES,
    key=st.sampled_from(["rope_scaling", "rope_parameters"]),
)
def test_hostile_rope_parameters_in_the_draft_or_the_target_never_raise(
    draft_rope: object, target_rope: object, key: str
) -> None:
    """A RoPE type that is a list or a dict, or a factor of inf, once made check() raise
    (unhashable type; int(inf)) for every draft checked against such a target."""
    draft = {**DSPARK, "max_position_embeddings": 65536, key: draft_rope}
    target = {**LONG_TARGET, key: target_rope}
    for engine in ENGINES:
        verdict = check(draft, target=target, check_tokenizer=False, engine=engine)
        assert all(isinstance(error, ParallelDraftingConfigError) for error in verdict.errors)


@pytest.mark.parametrize(
    "rope",
    [
        {"rope_type": ["yarn"], "factor": 4.0},
        {"type": {"yarn": 1}, "factor": 4.0},
        {"rope_type": "dynamic", "factor": float("inf")},
        {"rope_type": "dynamic", "factor": 1e308},
    ],
)
def test_an_unusable_rope_type_or_factor_gives_a_verdict(rope: dict[str, object]) -> None:
    draft = {**DSPARK, "max_position_embeddings": 65536, "rope_scaling": rope}
    assert check(draft, target={**LONG_TARGET, "rope_scaling": rope}, check_tokenizer=False).ok


@pytest.mark.parametrize("rank", ["256", 256.0, [256], -1])
def test_a_markov_rank_nn_embedding_refuses_is_an_error(rank: object) -> None:
    errors = check({**DSPARK, "markov_rank": rank}, check_tokenizer=False).errors
    assert [(e.field, e.code) for e in errors] == [("markov_rank", codes.MARKOV_RANK_INVALID)]
    assert errors[0].evidence is not None
    assert "nn.Embedding(vocab_size, markov_rank)" in errors[0].evidence


@pytest.mark.parametrize("rank", [256, 1, True])
def test_a_markov_rank_nn_embedding_takes_is_no_error(rank: object) -> None:
    assert check({**DSPARK, "markov_rank": rank}, check_tokenizer=False).ok


def test_architectures_as_a_string_is_an_error_naming_the_list_to_write() -> None:
    error = only_error(check({**DFLASH, "architectures": "DFlashDraftModel"}))
    assert (error.field, error.code) == ("architectures", vllm_codes.ARCHITECTURES_STRING)
    assert error.fix == 'make it a one-item list: `"architectures": ["DFlashDraftModel"]`'


def test_a_rope_factor_beyond_float_range_gives_a_verdict_for_both_engines() -> None:
    """An int factor of 401 digits once raised OverflowError from ``math.isfinite`` inside
    the target's reading, so ``check()`` raised for every draft against such a target."""
    rope = {"rope_type": "dynamic", "factor": 10**400}
    for engine in ENGINES:
        for key in ("rope_scaling", "rope_parameters"):
            target = {**LONG_TARGET, key: rope}
            verdict = check(
                QWEN3_8B_DFLASH_DRAFT, target=target, check_tokenizer=False, engine=engine
            )
            assert verdict.ok, errors(verdict)
    huge_length = {**LONG_TARGET, "max_position_embeddings": 10**400}
    assert check(DSPARK, target=huge_length, check_tokenizer=False).ok


# --- XPress drafts ------------------------------------------------------------------------------

XPRESS: dict[str, Any] = {**DFLASH, "architectures": ["Qwen3XPressModel"]}


def _fields(verdict: Verdict) -> list[str | None]:
    return [error.field for error in verdict.errors]


@pytest.mark.parametrize("architecture", ["Qwen3XPressModel", "DFlashQwen3XPressModel"])
def test_an_xpress_draft_with_a_top_level_sample_from_anchor_is_refused(architecture: str) -> None:
    draft = {**XPRESS, "architectures": [architecture], "sample_from_anchor": True}
    verdict = check(draft, check_tokenizer=False)
    assert _fields(verdict) == ["sample_from_anchor"]
    assert verdict.errors[0].code is vllm_codes.SAMPLE_FROM_ANCHOR_UNSUPPORTED
    assert "XPressSpeculator.__init__" in (verdict.errors[0].evidence or "")
    assert "sample_from_anchor" not in _fields(check({**XPRESS}, check_tokenizer=False))
    off = {**XPRESS, "sample_from_anchor": False}
    assert "sample_from_anchor" not in _fields(check(off, check_tokenizer=False))
    # Not an XPress draft: the top-level key is not read (dflash_config's is).
    plain = {**DFLASH, "sample_from_anchor": True}
    assert "sample_from_anchor" not in _fields(check(plain, check_tokenizer=False))


@pytest.mark.parametrize(("topc", "refused"), [(-1, True), (0, False), (512, False), (10**9, True)])
def test_an_xpress_topc_outside_the_draft_vocabulary_is_refused(topc: int, refused: bool) -> None:
    verdict = check({**XPRESS, "xpress_topc": topc}, check_tokenizer=False)
    assert ("xpress_topc" in _fields(verdict)) is refused
    if refused:
        error = next(e for e in verdict.errors if e.field == "xpress_topc")
        assert f"outside [0, {XPRESS['vocab_size']}]" in str(error)
        assert error.code is vllm_codes.XPRESS_TOPC_OUT_OF_RANGE
        assert "XPressSpeculatorConfig.apply_options" in (error.evidence or "")  # 0.34.0's
        older = check({**XPRESS, "xpress_topc": topc}, engine=TWO_RUNNERS, check_tokenizer=False)
        (error,) = [e for e in older.errors if e.field == "xpress_topc"]
        assert "SpeculativeConfig.__post_init__" in (error.evidence or "")  # 0.33.0's
    draft_vocab = {**XPRESS, "xpress_topc": 600, "draft_vocab_size": 512}
    assert "xpress_topc" in _fields(check(draft_vocab, check_tokenizer=False))


def test_the_xpress_rules_need_a_release_that_registers_xpress() -> None:
    draft = {**XPRESS, "sample_from_anchor": True, "xpress_topc": -1}
    older = check(draft, engine="vllm==0.32.0", check_tokenizer=False)
    assert not {"sample_from_anchor", "xpress_topc"} & set(_fields(older))
    assert any(e.code is codes.ARCHITECTURE_UNSUPPORTED for e in older.errors)  # unregistered


@pytest.mark.parametrize("model_type", [{}, [], [1]])
def test_a_dspark_draft_whose_model_type_is_not_hashable_is_refused_not_a_crash(
    model_type: object,
) -> None:
    # _is_deepseek_v4 once tested `model_type in DEEPSEEK_V4_TYPES` on an unhashable value.
    draft = {
        "architectures": ["DSparkDraftModel"],
        "model_type": model_type,
        "dflash_config": {"mask_token_id": 248070, "projector_type": "dspark"},
    }
    verdict = check(draft, check_tokenizer=False)
    assert codes.MODEL_TYPE_NOT_STRING in [error.code for error in verdict.errors]


# --- hf_config_override before the registry (issue 38, point 3) ---------------------------------


MLA_DFLASH: dict[str, Any] = {
    **DFLASH,
    "architectures": ["DFlashDraftModel"],
    "model_type": "deepseek_v3",
}
"""A DFlash draft of a DeepSeek MLA target that kept its target's ``model_type``."""


@pytest.mark.parametrize("release", [f"vllm=={version}" for version in VERSIONS])
def test_a_draft_of_a_rewritten_model_type_is_renamed_from_its_mtp_class(release: str) -> None:
    # hf_config_override: deepseek_v3 -> DeepSeekMTPModel, then EAGLEConfig's DFlash prefix;
    # the real 0.33.0 and 0.34.0 refuse 'DFlashDeepSeekMTPModel' (vllm_readings.json)
    error = only_error(check(MLA_DFLASH, engine=release))  # type: ignore[arg-type]
    expected = (vllm_codes.RENAMED_ARCHITECTURE_UNSUPPORTED, "architectures")
    assert (error.code, error.field) == expected
    assert "['DFlashDeepSeekMTPModel']" in str(error)
    assert len(str(error)) <= 140
    assert "hf_config_override" in (error.evidence or "")
    assert "DeepSeekMTPModel" in (error.evidence or "")


def test_a_draft_whose_model_type_is_not_rewritten_keeps_its_class() -> None:
    assert check({**MLA_DFLASH, "model_type": "qwen3"}).errors == ()


def test_a_glm_moe_dsa_draft_is_renamed_from_deepseek_v32s_mtp_class() -> None:
    error = only_error(check({**MLA_DFLASH, "model_type": "glm_moe_dsa"}))
    assert "['DFlashDeepseekV32MTPModel']" in str(error)


def test_ripples_dflash2_draft_with_nope_layers_is_its_own_class_from_0_34_0() -> None:
    draft = {**DFLASH, "architectures": ["DFlash2DraftModel"], "no_rope_layers": [1]}
    assert load_path.hf_config_override(field_getter(draft, ""), "0.34.0") == (
        "qwen3",
        ("DFlash2RicursiveDraftModel",),
    )
    assert load_path.hf_config_override(field_getter(draft, ""), "0.33.0") == (
        "qwen3",
        ("DFlash2DraftModel",),
    )


@pytest.mark.parametrize("version", VERSIONS)
def test_a_rewrite_that_reads_the_config_is_not_kept_by_model_type_and_class(
    version: str,
) -> None:
    # hf_config_override's rewrites are kept per model type, class list and release, except
    # where one reads another field: a Nemotron-H config becomes its MTP head only with
    # num_nextn_predict_layers > 0, an Intern-S2 preview's head by its text config's type.
    def override(config: dict[str, Any]) -> object:
        return hf_config_override(field_getter(config, ""), version)

    nemotron = {"model_type": "nemotron_h", "architectures": ["NemotronHForCausalLM"]}
    for _ in range(2):  # the second time as the first: nothing kept from the other config
        assert override({**nemotron, "num_nextn_predict_layers": 1}) == (
            "nemotron_h_mtp",
            ("NemotronHMTPModel",),
        )
        assert override(nemotron) == ("nemotron_h", ("NemotronHForCausalLM",))
    intern = {"model_type": "intern_s2_preview", "architectures": ["InternS2ForCausalLM"]}
    moe = {**intern, "text_config": {"model_type": "qwen3_5_moe_text"}}
    for _ in range(2):
        assert override(moe) == ("qwen3_5_mtp", ("Qwen3_5MoeMTP",))
        assert override(intern) == ("qwen3_5_mtp", ("Qwen3_5MTP",))


@pytest.mark.parametrize("version", VERSIONS)
def test_the_drafts_classes_are_read_once_per_verdict(
    version: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every load-path rule asks for the draft's classes (as given, as overridden, as served):
    # read once per subject (load_path._Classes, kept in VllmSubject.derived), not per rule.
    real = load_path._architecture_names
    reads: list[object] = []

    def counted(get: Any) -> tuple[str, ...]:
        reads.append(get)
        return real(get)

    monkeypatch.setattr(load_path, "_architecture_names", counted)
    verdict = check(QWEN3_8B_DFLASH_DRAFT, check_tokenizer=False, engine=f"vllm=={version}")  # type: ignore[arg-type]
    assert verdict.errors == ()
    assert len(reads) == 1
