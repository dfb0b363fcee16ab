"""What each engine decides for a draft that starts, where nothing in its files records it
(issue 39): the target layers it guesses (``layers-guessed``), the draft's RoPE against the
target's (``rope-differs-from-target``), DSpark's anchor layout
(``sample-from-anchor-assumed``) and DFlash's causality (``causality-assumed``).  Every
test runs over every shipped release (:data:`drafting_config.engines.RELEASES`); where a
release differs, the expectation is derived from its gate in ``engines/vllm/names.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from drafting_config import Verdict, check
from drafting_config.engines import RELEASES, Engine
from drafting_config.engines.sglang.codes import WEIGHTS_D2T_MISSING
from drafting_config.engines.vllm.names import HONOURS_USE_AUX_HIDDEN_STATE, since
from drafting_config.values.codes import (
    CAUSALITY_ASSUMED,
    LAYERS_GUESSED,
    ROPE_DIFFERS_FROM_TARGET,
    SAMPLE_FROM_ANCHOR_ASSUMED,
    WEIGHTS_LM_HEAD_MISSING,
    WEIGHTS_NOT_MODELLED,
    Code,
    Step,
)
from tests.checkpoint_factory import write_safetensors
from tests.conftest import EXAMPLES, QWEN3_8B_DFLASH_DRAFT, REPO, run_cli

CORPUS = REPO / "tests" / "real_configs"
EAGLE3: dict[str, Any] = json.loads(
    (CORPUS / "drafts" / "sglang--qwen3-8b-eagle3-ascend-fixture.json").read_text()
)
"""A published EAGLE-3 head for Qwen3-8B that names no tapped layers."""
QWEN3_8B: dict[str, Any] = json.loads(
    (CORPUS / "targets" / "qwen3-8b-sglang-fixture.json").read_text()
)
DSPARK: dict[str, Any] = {
    **json.loads((EXAMPLES / "dspark-qwen3-8b" / "config.json").read_text()),
    "markov_head_type": "vanilla",  # which SGLang requires beside markov_rank
}

ALL: list[Engine] = list(RELEASES)
VLLM = [release for release in ALL if release.startswith("vllm==")]
SGLANG = [release for release in ALL if not release.startswith("vllm==")]
LLAMA3_SCALING = {
    "rope_type": "llama3",
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192,
}


def _findings(verdict: Verdict, code: Code) -> dict[str, list[Any]]:
    return {
        "errors": [e for e in verdict.errors if e.code is code],
        "warnings": [w for w in verdict.warnings if w.code is code],
        "notes": [n for n in verdict.notes if getattr(n, "code", None) is code],
    }


def _only(verdict: Verdict, code: Code, kind: str) -> Any:
    found = _findings(verdict, code)
    assert found[kind], f"no {kind} of {code}: {verdict}"
    (finding,) = found[kind]
    assert all(not v for k, v in found.items() if k != kind), found
    return finding


def _none(verdict: Verdict, code: Code) -> None:
    assert not any(_findings(verdict, code).values()), _findings(verdict, code)


def _version(release: Engine) -> str:
    return release.partition("==")[2]


# --- 1. layers the engine guesses ------------------------------------------------------------


@pytest.mark.parametrize("release", ALL)
def test_an_eagle3_head_naming_no_layers_gets_a_note_naming_the_guess_and_depth(
    release: Engine,
) -> None:
    note = _only(check(EAGLE3, target=QWEN3_8B, engine=release), LAYERS_GUESSED, "notes")
    assert "[2, 18, 33]" in note
    assert "depth 36" in note
    assert note.code.step is Step.LAYERS
    assert note.field in (
        "eagle_aux_hidden_state_layer_ids",
        "eagle_config.eagle_aux_hidden_state_layer_ids",
    )
    assert note.field in (note.fix or "")
    assert "vllm-project/vllm#50170" in (note.evidence or "")


@pytest.mark.parametrize("release", ALL)
def test_named_layers_are_no_guess(release: Engine) -> None:
    named = {
        **EAGLE3,
        "eagle_aux_hidden_state_layer_ids": [2, 18, 33],
        "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 17, 32]},
    }
    _none(check(named, target=QWEN3_8B, engine=release), LAYERS_GUESSED)


@pytest.mark.parametrize("release", ALL)
def test_no_target_depth_no_guess_is_named(release: Engine) -> None:
    _none(check(EAGLE3, engine=release), LAYERS_GUESSED)


@pytest.mark.parametrize("release", ALL)
def test_a_width_that_counts_other_layers_than_the_guess_is_a_warning(release: Engine) -> None:
    four = {**EAGLE3, "num_aux_hidden_states": 4}
    warning = _only(check(four, target=QWEN3_8B, engine=release), LAYERS_GUESSED, "warnings")
    assert "`num_aux_hidden_states` = 4" in str(warning)
    assert "[2, 18, 33]" in str(warning)


@pytest.mark.parametrize("release", VLLM)
def test_an_eagle_config_list_vllm_does_not_read_that_names_other_layers_is_a_warning(
    release: Engine,
) -> None:
    listed = {**EAGLE3, "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 17, 32]}}
    warning = _only(check(listed, target=QWEN3_8B, engine=release), LAYERS_GUESSED, "warnings")
    assert "eagle_config.eagle_aux_hidden_state_layer_ids" in str(warning)
    same = {**EAGLE3, "eagle_config": {"eagle_aux_hidden_state_layer_ids": [2, 18, 33]}}
    _only(check(same, target=QWEN3_8B, engine=release), LAYERS_GUESSED, "notes")


@pytest.mark.parametrize("release", VLLM)
def test_an_untapped_eagle3_head_guesses_nothing_from_the_release_that_honours_it(
    release: Engine,
) -> None:
    untapped = {**EAGLE3, "eagle_config": {"use_aux_hidden_state": False}}
    verdict = check(untapped, target=QWEN3_8B, engine=release)
    if since(_version(release), HONOURS_USE_AUX_HIDDEN_STATE):
        _none(verdict, LAYERS_GUESSED)
    else:  # the newer runner taps every eagle3 draft's target
        _only(verdict, LAYERS_GUESSED, "notes")


DFLASH_UNNAMED = {
    **QWEN3_8B_DFLASH_DRAFT,
    "num_hidden_layers": 3,
    "dflash_config": {"mask_token_id": 151669},
}
"""A DFlash drafter of 3 layers naming none: vLLM's 3 defaults fit its fc."""


@pytest.mark.parametrize("release", VLLM)
def test_vllm_guessing_for_a_dflash_drafter_unlike_its_trainers_is_a_warning(
    release: Engine,
) -> None:
    verdict = check(DFLASH_UNNAMED, target=QWEN3_8B, engine=release)
    warning = _only(verdict, LAYERS_GUESSED, "warnings")
    assert "[2, 18, 33]" in str(warning)
    assert "spread layers evenly" in str(warning)


@pytest.mark.parametrize("release", SGLANG)
def test_sglang_derives_a_dflash_drafters_layers_and_says_so(release: Engine) -> None:
    note = _only(check(DFLASH_UNNAMED, target=QWEN3_8B, engine=release), LAYERS_GUESSED, "notes")
    assert "[2, 18, 34]" in note  # build_target_layer_ids(36, 3) = 1, 17, 33, captured + 1
    assert note.field == "dflash_config.target_layer_ids"
    assert "build_target_layer_ids" in (note.evidence or "")


# --- 2. RoPE against the target ---------------------------------------------------------------

LLAMA_TARGET = {
    **QWEN3_8B,
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "rope_theta": 500000.0,
    "rope_scaling": LLAMA3_SCALING,
}


@pytest.mark.parametrize("release", ALL)
def test_a_head_that_lost_the_targets_llama3_scaling_is_a_warning(release: Engine) -> None:
    converted = {**EAGLE3, "rope_theta": 500000.0, "rope_scaling": None}
    verdict = check(converted, target=LLAMA_TARGET, engine=release)
    warning = _only(verdict, ROPE_DIFFERS_FROM_TARGET, "warnings")
    assert "default, theta 500000" in str(warning)
    assert "llama3 x8, theta 500000" in str(warning)
    assert warning.code.step is Step.TARGET
    assert "vllm-project/speculators#574" in (warning.evidence or "")


@pytest.mark.parametrize("release", ALL)
def test_the_same_rope_spelled_another_way_is_no_warning(release: Engine) -> None:
    v5 = {
        **EAGLE3,
        "rope_scaling": None,
        "rope_theta": None,
        "rope_parameters": {**LLAMA3_SCALING, "rope_theta": 500000},
    }
    _none(check(v5, target=LLAMA_TARGET, engine=release), ROPE_DIFFERS_FROM_TARGET)
    legacy = {**EAGLE3, "rope_theta": 5e5, "rope_scaling": {**LLAMA3_SCALING, "type": "llama3"}}
    _none(check(legacy, target=LLAMA_TARGET, engine=release), ROPE_DIFFERS_FROM_TARGET)


@pytest.mark.parametrize("release", ALL)
def test_another_theta_is_a_warning_and_the_targets_own_is_none(release: Engine) -> None:
    _none(check(EAGLE3, target=QWEN3_8B, engine=release), ROPE_DIFFERS_FROM_TARGET)
    other = {**EAGLE3, "rope_theta": 10000}
    warning = _only(
        check(other, target=QWEN3_8B, engine=release), ROPE_DIFFERS_FROM_TARGET, "warnings"
    )
    assert warning.field == "rope_theta"
    assert "theta 10000" in str(warning)
    assert "theta 1e+06" in str(warning)


# --- 3. training choices the engine assumes ---------------------------------------------------


@pytest.mark.parametrize("release", ALL)
def test_a_dspark_draft_that_does_not_record_its_anchor_layout_gets_a_note(release: Engine) -> None:
    note = _only(
        check(DSPARK, target=QWEN3_8B, engine=release), SAMPLE_FROM_ANCHOR_ASSUMED, "notes"
    )
    assert note.field == "sample_from_anchor"
    assert "assumes true" in note
    assert "sample_from_anchor" in (note.evidence or "")
    for recorded in (True, False):
        stated = {**DSPARK, "sample_from_anchor": recorded}
        verdict = check(stated, target=QWEN3_8B, engine=release)
        _none(verdict, SAMPLE_FROM_ANCHOR_ASSUMED)


@pytest.mark.parametrize("release", ALL)
def test_a_dflash_draft_that_records_no_causality_gets_a_note(release: Engine) -> None:
    note = _only(check(QWEN3_8B_DFLASH_DRAFT, engine=release), CAUSALITY_ASSUMED, "notes")
    assert "non-causal" in note
    assert "dflash.py" in (note.evidence or "")
    stamped = {**QWEN3_8B_DFLASH_DRAFT, "is_causal": False}
    _none(check(stamped, engine=release), CAUSALITY_ASSUMED)


@pytest.mark.parametrize("release", VLLM)
def test_vllm_reads_the_dflash_causal_stamp(release: Engine) -> None:
    stamped = {
        **QWEN3_8B_DFLASH_DRAFT,
        "dflash_config": {**QWEN3_8B_DFLASH_DRAFT["dflash_config"], "causal": True},
    }
    _none(check(stamped, engine=release), CAUSALITY_ASSUMED)


@pytest.mark.parametrize("release", SGLANG)
def test_sglang_ignores_the_dflash_causal_stamp_and_is_causal_without_layer_types(
    release: Engine,
) -> None:
    stamped = {
        **QWEN3_8B_DFLASH_DRAFT,
        "dflash_config": {**QWEN3_8B_DFLASH_DRAFT["dflash_config"], "causal": True},
    }
    warning = _only(check(stamped, engine=release), CAUSALITY_ASSUMED, "warnings")
    assert warning.field == "dflash_config.causal"
    # A model type whose transformers config fills no layer_types (tests/tools/
    # test_sglang_weight_runs.py reads the causality SGLang builds).
    bare = {**QWEN3_8B_DFLASH_DRAFT, "is_causal": True, "model_type": "llama"}
    warning = _only(check(bare, engine=release), CAUSALITY_ASSUMED, "warnings")
    assert warning.field == "is_causal"
    typed = {**bare, "layer_types": ["full_attention"] * 5}
    _none(check(typed, engine=release), CAUSALITY_ASSUMED)


@pytest.mark.parametrize("release", SGLANG)
def test_sglang_honours_is_causal_where_transformers_fills_layer_types(release: Engine) -> None:
    # Qwen3Config fills layer_types when the file has none, so SGLang's DFlash drafter reads
    # is_causal: the harness's dflash-qwen3-4b+causal reading runs every layer causal.
    assert QWEN3_8B_DFLASH_DRAFT["model_type"] == "qwen3"
    bare = {**QWEN3_8B_DFLASH_DRAFT, "is_causal": True}
    _none(check(bare, engine=release), CAUSALITY_ASSUMED)


def test_the_assumed_defaults_are_said_once_in_a_sweeps_footer(
    capsys: pytest.CaptureFixture[str],
) -> None:
    drafts = [EXAMPLES / "dspark-qwen3-8b", EXAMPLES / "dspark-noise-qwen3-8b"]
    run = run_cli(capsys, "check", "--engine", "all", "--no-tokenizer", *drafts)
    anchor = [line for line in run.lines if "`sample_from_anchor` is not recorded" in line]
    causal = [line for line in run.lines if "no causality is recorded" in line]
    assert anchor == [line for line in anchor if line.startswith("note (2 drafts): ")]
    assert causal == [line for line in causal if line.startswith("note (2 drafts): ")]
    assert len(anchor) == len(causal) == 1


def test_the_published_corpus_gets_no_new_error_or_warning_from_these_rules() -> None:
    """The corpus drafts name their layers and their target's RoPE: the new rules add at
    most notes there (their counts are in the closing note of issue 39)."""
    document = json.loads((CORPUS / "vllm_readings.json").read_text())
    codes = (
        LAYERS_GUESSED,
        ROPE_DIFFERS_FROM_TARGET,
        SAMPLE_FROM_ANCHOR_ASSUMED,
        CAUSALITY_ASSUMED,
    )
    for reading in document["readings"]:
        target = None if reading["target"] is None else CORPUS / reading["target"]
        for release in ALL:
            verdict = check(
                CORPUS / reading["file"], target=target, engine=release, check_tokenizer=False
            )
            for code in codes:
                found = _findings(verdict, code)
                assert not found["errors"], (reading["file"], release, found)
                assert not found["warnings"], (reading["file"], release, found)


@pytest.mark.parametrize("release", SGLANG)
def test_a_fill_in_layout_recorded_only_where_sglang_does_not_read_it_is_a_warning(
    release: Engine,
) -> None:
    nested = {**DSPARK, "dflash_config": {"sample_from_anchor": False}}
    warning = _only(
        check(nested, target=QWEN3_8B, engine=release), SAMPLE_FROM_ANCHOR_ASSUMED, "warnings"
    )
    assert warning.field == "dflash_config.sample_from_anchor"
    both = {**nested, "sample_from_anchor": False}
    _none(check(both, target=QWEN3_8B, engine=release), SAMPLE_FROM_ANCHOR_ASSUMED)


# --- 4. SGLang's EAGLE-3 weights --------------------------------------------------------------

SMALL_HEAD = {
    **EAGLE3,
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 16,
    "vocab_size": 1000,
    "draft_vocab_size": 100,
}


def _head(tmp_path: Path, config: dict[str, Any], *names: str) -> Path:
    """A draft directory: ``config`` and a checkpoint holding the EAGLE-3 tensors ``names``."""
    shapes = {
        "fc.weight": (64, 3 * 64),
        "midlayer.self_attn.q_proj.weight": (64, 128),
        "norm.weight": (64,),
        "lm_head.weight": (100, 64),
        "d2t": (100,),
        "t2d": (1000,),
    }
    directory = tmp_path / "head"
    directory.mkdir()
    (directory / "config.json").write_text(json.dumps(config))
    kept = {name: ("I64" if name in ("d2t",) else "BF16", shapes[name]) for name in names}
    write_safetensors(directory / "model.safetensors", kept)
    return directory


BODY = ("fc.weight", "midlayer.self_attn.q_proj.weight", "norm.weight")


@pytest.mark.parametrize("release", SGLANG)
def test_an_eagle3_head_with_a_draft_vocabulary_and_no_lm_head_is_an_error(
    release: Engine, tmp_path: Path
) -> None:
    verdict = check(
        _head(tmp_path, SMALL_HEAD, *BODY, "d2t"), engine=release, check_tokenizer=False
    )
    error = _only(verdict, WEIGHTS_LM_HEAD_MISSING, "errors")
    assert error.field == "draft_vocab_size"
    assert "llama_eagle3.py" in (error.evidence or "")
    assert not [n for n in verdict.notes if getattr(n, "code", None) is WEIGHTS_NOT_MODELLED]


@pytest.mark.parametrize("release", SGLANG)
def test_an_eagle3_head_borrowing_the_targets_lm_head_needs_none(
    release: Engine, tmp_path: Path
) -> None:
    borrowed = {key: value for key, value in SMALL_HEAD.items() if key != "draft_vocab_size"}
    verdict = check(_head(tmp_path, borrowed, *BODY), engine=release, check_tokenizer=False)
    _none(verdict, WEIGHTS_LM_HEAD_MISSING)
    _none(verdict, WEIGHTS_D2T_MISSING)


@pytest.mark.parametrize("release", SGLANG)
def test_a_reduced_vocabulary_without_d2t_is_a_warning(release: Engine, tmp_path: Path) -> None:
    without = check(
        _head(tmp_path, SMALL_HEAD, *BODY, "lm_head.weight"), engine=release, check_tokenizer=False
    )
    warning = _only(without, WEIGHTS_D2T_MISSING, "warnings")
    assert warning.field == "draft_vocab_size"


@pytest.mark.parametrize("release", SGLANG)
def test_a_whole_eagle3_checkpoint_is_clean_and_dflash_keeps_the_not_modelled_note(
    release: Engine, tmp_path: Path
) -> None:
    whole = _head(tmp_path, SMALL_HEAD, *BODY, "lm_head.weight", "d2t", "t2d")
    verdict = check(whole, engine=release, check_tokenizer=False)
    for code in (WEIGHTS_LM_HEAD_MISSING, WEIGHTS_D2T_MISSING, WEIGHTS_NOT_MODELLED):
        _none(verdict, code)
    dflash = tmp_path / "dflash"
    dflash.mkdir()
    (dflash / "config.json").write_text(json.dumps(QWEN3_8B_DFLASH_DRAFT))
    write_safetensors(dflash / "model.safetensors", {"fc.weight": ("BF16", (8, 8))})
    notes = check(dflash, engine=release, check_tokenizer=False).notes
    assert WEIGHTS_NOT_MODELLED in [getattr(note, "code", None) for note in notes]
