"""The mode each vLLM verdict judges, the one the draft asks for, and how vLLM serves it:
the released engine's own runs (``engine_runs``) are the proof that a
sequential EAGLE-3 draft is served, and that a parallel-only draft without its token is not.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from drafting_config import check
from drafting_config.engines.vllm.codes import PARALLEL_SWITCH_REFUSED, SERVED_SEQUENTIALLY
from drafting_config.engines.vllm.names import REFUSES_PARALLEL_SWITCH, last_before
from drafting_config.engines.vllm.tables import vllm_tables
from drafting_config.values.codes import SEQUENTIAL_NOT_PARALLEL, TOKEN_UNUSED, Step
from drafting_config.values.findings import Note
from tests.engines.vllm import PARALLEL_SWITCH, PEAGLE
from tests.engines.vllm.test_layers import QWEN3_8B as QWEN3_8B_TARGET
from tests.engines.vllm.test_layers import SPECULATORS
from tests.serve_commands import vllm_switch

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "tests" / "real_configs"
EAGLE3_FIXTURE = CORPUS / "drafts" / "sglang--qwen3-8b-eagle3-ascend-fixture.json"
QWEN3_8B = CORPUS / "targets" / "qwen3-8b-sglang-fixture.json"
QWEN3_LM: dict[str, Any] = {
    "architectures": ["Qwen3ForCausalLM"],
    "model_type": "qwen3",
    "hidden_size": 1024,
    "vocab_size": 151936,
}


def test_a_sequential_eagle3_draft_is_ok_with_a_note_naming_the_parallel_switch() -> None:
    # vLLM 0.33.0 builds it and passes every stage (engine_runs, method eagle3).
    verdict = check(EAGLE3_FIXTURE, target=QWEN3_8B, engine=PARALLEL_SWITCH)
    assert verdict.errors == ()
    assert (verdict.mode, verdict.parallel) == ("eagle3", False)
    assert vllm_switch(verdict.serve_with) == {"method": "eagle3"}
    (note,) = [n for n in verdict.notes if isinstance(n, Note) and n.code is SERVED_SEQUENTIALLY]
    assert "sequentially, as EAGLE-3 (method 'eagle3')" in note
    assert '"parallel_drafting": true' in (note.fix or "")
    assert "`ptd_token_id`" in (note.fix or "")
    assert "SpeculativeConfig.parallel_drafting" in (note.evidence or "")
    # read as vLLM's eagle3 method: the EAGLE-3 runner's layers, the target's defaults here
    assert verdict.resolution is not None
    assert verdict.resolution.algorithm is None  # the library's reading stays the draft's own
    # a release with no parallel EAGLE-3 says so, and names no switch it refuses
    (later,) = [n for n in check(EAGLE3_FIXTURE, target=QWEN3_8B).notes if "sequentially" in n]
    assert isinstance(later, Note)
    assert later.fix == (
        f"serve it with vLLM {last_before(REFUSES_PARALLEL_SWITCH)} or older, or train a DFlash "
        "or DSpark drafter"
    )


def test_require_parallel_makes_a_sequential_draft_an_error_of_the_token_step() -> None:
    # With "parallel_drafting": true, vLLM's speculator raises "For parallel drafting, the
    # draft model config must have ..." (engine_runs, eagle3 +parallel).
    verdict = check(EAGLE3_FIXTURE, target=QWEN3_8B, require_parallel=True, engine=PARALLEL_SWITCH)
    (error,) = verdict.errors
    assert error.code is SEQUENTIAL_NOT_PARALLEL
    assert error.step is Step.TOKEN
    # 0.34.0 refuses the switch itself, at the config stage (engine_runs, eagle3 +parallel)
    (refused,) = check(EAGLE3_FIXTURE, target=QWEN3_8B, require_parallel=True).errors
    assert refused.code is PARALLEL_SWITCH_REFUSED
    assert refused.step is Step.PARSE
    assert "--require-parallel" in str(error)
    assert "`ptd_token_id`" in (error.fix or "")
    assert (verdict.mode, verdict.parallel, verdict.serve_with) == (None, None, None)


def test_a_sequential_eagle3_draft_is_judged_along_its_whole_load_path() -> None:
    # Served as eagle3, the target must be tappable: Lfm2 does not implement SupportsEagle3.
    target = {"architectures": ["Lfm2ForCausalLM"], "hidden_size": 4096, "vocab_size": 151936}
    verdict = check(EAGLE3_FIXTURE, target=target)
    assert [e.field for e in verdict.errors] == ["target.architectures"]
    assert "Model does not support EAGLE3 interface" in (verdict.errors[0].evidence or "")


def test_a_plain_causal_lm_is_a_sequential_draft_model() -> None:
    verdict = check(QWEN3_LM, engine=PARALLEL_SWITCH)
    assert verdict.errors == ()
    assert (verdict.mode, verdict.parallel) == ("draft-model", False)
    assert vllm_switch(verdict.serve_with) == {"method": "draft_model"}
    assert any(isinstance(n, Note) and "`pard_token`" in (n.fix or "") for n in verdict.notes)


@pytest.mark.parametrize("config", [{}, {"hidden_size": 8}, {"architectures": ["NoSuchModel"]}])
def test_a_config_naming_nothing_vllm_drafts_with_still_lacks_its_token(
    config: dict[str, Any],
) -> None:
    verdict = check(config)
    assert not verdict.ok
    assert "names no parallel drafting token id" in str(verdict.errors[0])


def test_a_bad_token_field_stays_an_error_in_the_parallel_mode_it_asks_for() -> None:
    # vLLM would serve it sequentially (engine_runs: draft_model passes), but the author
    # asked for PARD and would silently get another drafter.
    verdict = check(ROOT / "examples" / "invalid" / "pard-token-as-string", engine=PARALLEL_SWITCH)
    assert [e.field for e in verdict.errors][:1] == ["pard_token"]
    assert verdict.mode is None
    # a release with no PARD reads no token: a draft model, the token unused (a warning)
    verdict = check(ROOT / "examples" / "invalid" / "pard-token-as-string")
    assert verdict.errors == ()
    assert [(w.code, w.field) for w in verdict.warnings] == [(TOKEN_UNUSED, "pard_token")]
    assert (verdict.mode, verdict.parallel) == ("draft-model", False)


@pytest.mark.parametrize(
    ("example", "mode", "serve_with"),
    [
        ("dflash-qwen3-4b", "dflash", {"method": "dflash"}),
        ("dspark-qwen3-8b", "dspark", {"method": "dspark"}),
        ("pard-llama3-1b", "pard", {"method": "draft_model", "parallel_drafting": True}),
        (
            "ptd-eagle3-llama3-8b",
            "eagle3-parallel",
            {"method": "eagle3", "parallel_drafting": True},
        ),
    ],
)
def test_each_parallel_example_says_how_vllm_serves_it(
    example: str, mode: str, serve_with: dict[str, object]
) -> None:
    verdict = check(ROOT / "examples" / example, engine=PARALLEL_SWITCH)
    assert verdict.ok, verdict.errors
    assert (verdict.mode, verdict.parallel) == (mode, True)
    assert vllm_switch(verdict.serve_with) == serve_with


@pytest.mark.parametrize(
    ("example", "mode", "method"),
    [
        ("pard-llama3-1b", "draft-model", "draft_model"),
        ("ptd-eagle3-llama3-8b", "eagle3", "eagle3"),
    ],
)
def test_the_default_release_serves_ptd_and_pard_sequentially(
    example: str, mode: str, method: str
) -> None:
    # vLLM 0.34.0 refuses "parallel_drafting": true but for dflash and dspark
    # (SpeculativeConfig._verify_args): never a serve command it refuses
    verdict = check(ROOT / "examples" / example)
    assert verdict.ok, verdict.errors
    assert (verdict.mode, verdict.parallel) == (mode, False)
    assert vllm_switch(verdict.serve_with) == {"method": method}
    assert [w.code for w in verdict.warnings] == [TOKEN_UNUSED]


def test_dflash2_and_peagle_classes_are_their_own_modes() -> None:
    dflash2 = check(CORPUS / "drafts" / "z-lab--dflash2-config.json")
    assert dflash2.mode == "dflash2"
    assert vllm_switch(dflash2.serve_with) == {"method": "dflash"}
    # Only the speculators format's P-EAGLE is served (an HF-format PEagleDraftModel is
    # renamed to the unregistered Eagle3PEagleDraftModel: engine_runs, a config failure).
    peagle = {
        **SPECULATORS,
        "speculators_model_type": "peagle",
        "eagle_aux_hidden_state_layer_ids": [2, 18, 33],
    }
    del peagle["aux_hidden_state_layer_ids"]
    verdict = check(peagle, target=QWEN3_8B_TARGET, engine=PEAGLE)
    assert verdict.ok, verdict.errors
    assert (verdict.mode, verdict.parallel) == ("peagle", True)
    assert vllm_switch(verdict.serve_with) == {"method": "eagle3", "parallel_drafting": True}


def test_the_targets_num_loops_and_padded_vocab_size_never_fail_a_vllm_verdict() -> None:
    # No vLLM rule reads them; only SGLang's depth and DSpark bound do.
    target = json.loads(QWEN3_8B.read_text())
    for extra in ({"num_loops": 1.0}, {"padded_vocab_size": "152064"}, {"num_loops": -1}):
        verdict = check(EAGLE3_FIXTURE, target={**target, **extra})
        assert verdict.errors == (), extra


@pytest.mark.parametrize(
    "architecture",
    [
        "DeepseekForCausalLM",  # vLLM's own class; transformers exports none of that name
        "ArceeForCausalLM",  # transformers' class, served by vLLM's Transformers backend
        "ChatGLMModel",  # vLLM's own class, not named ...ForCausalLM
    ],
)
def test_either_kind_of_causal_lm_is_a_draft_model(architecture: str) -> None:
    tables = vllm_tables()
    text_models = tables.registry["_TEXT_GENERATION_MODELS"]
    in_vllm = architecture in text_models
    in_transformers = architecture in tables.model_classes
    assert in_vllm != in_transformers  # each case is only one of the two
    verdict = check({**QWEN3_LM, "architectures": [architecture]}, check_tokenizer=False)
    assert (verdict.mode, verdict.parallel) == ("draft-model", False)
