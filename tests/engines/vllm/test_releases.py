"""vLLM 0.32.0 beside 0.33.0, and 0.33.0 beside 0.34.0: ``engine="vllm==VERSION"`` gives that
release's verdicts (F-J, for 0.34.0, at the end).

Every rule that differs between the two releases (docs/contributing.md, "Adding an engine
release") has a draft/target pair here whose verdicts differ on the two releases:

* A (data): ``GraniteMoeForCausalLM`` implements ``SupportsEagle3`` from 0.33.0 on
  (``granitemoe.py``), so it can be tapped there only; ``GraniteForCausalLM`` in both.
* B (gate): 0.33.0 lowers the served ``max_model_len`` to a DFlash/DSpark draft whose RoPE
  cannot stretch (``VllmConfig._limit_max_model_len_to_draft``); 0.32.0 has no such step.
* C (gate): 0.32.0's newer model runner taps the target for every ``eagle3`` draft;
  0.33.0 honours ``eagle_config.use_aux_hidden_state: false`` (``requires_aux_hidden_states``).
* D (data): ``MuseSparkDSparkModel``, ``DFlash2BeamDraftModel`` and the XPress classes are
  registered from 0.33.0 on, and ``muse_spark_dspark`` is in its ``_CONFIG_REGISTRY``.
* E (data): 0.32.0 accepts transformers up to 5.19.0, 0.33.0 up to 5.20.2: a model type
  first known to transformers 5.20.0 is a warning on 0.33.0 and an error on 0.32.0.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final, cast

import pytest

from drafting_config import Verdict, check
from drafting_config.engines import ENGINES, RELEASES, engine_rules
from drafting_config.engines.transformers import transformers_tables, version_key
from drafting_config.engines.vllm import codes as vllm_codes
from drafting_config.engines.vllm.names import (
    ENGINE,
    REFUSES_PARALLEL_SWITCH,
    REFUSES_PEAGLE,
    VERSIONS,
    Release,
    last_before,
)
from drafting_config.values import codes
from tests.conftest import EXAMPLES, QWEN3_8B_DFLASH_DRAFT, load_json, only_error
from tests.engines.vllm.test_layers import SPECULATORS
from tests.engines.vllm.test_load_path import (
    DFLASH,
    DSPARK,
    LONG_TARGET,
    QWEN3_8B_TARGET,
    rewritten_by_override,
)
from tests.installed_engines import Install, fake_installs
from tests.serve_commands import vllm_switch
from tests.test_real_configs import CORPUS


def verdicts(draft: dict[str, Any], **options: Any) -> tuple[Verdict, Verdict]:
    """The draft's verdicts on vLLM 0.32.0 and 0.33.0."""
    older = check(draft, engine="vllm==0.32.0", check_tokenizer=False, **options)
    newer = check(draft, engine="vllm==0.33.0", check_tokenizer=False, **options)
    return older, newer


def test_each_release_is_named_in_its_verdict() -> None:
    older, newer = verdicts(QWEN3_8B_DFLASH_DRAFT)
    assert (older.engine, newer.engine) == ("vllm 0.32.0", "vllm 0.33.0")
    assert check(QWEN3_8B_DFLASH_DRAFT, check_tokenizer=False).engine == ENGINE
    assert f"vllm {VERSIONS[-1]}" == ENGINE
    assert list(VERSIONS) == sorted(VERSIONS, key=version_key)  # oldest first, the newest named
    assert {"0.32.0", "0.33.0", "0.34.0"} <= set(VERSIONS)  # the releases this module compares
    assert {name for name in RELEASES if name.startswith("vllm==")} == {
        f"vllm=={version}" for version in VERSIONS
    }
    for version in VERSIONS:
        assert check(QWEN3_8B_DFLASH_DRAFT, engine=cast(Release, f"vllm=={version}")).engine == (
            f"vllm {version}"
        )


def test_a_release_the_package_does_not_ship_is_refused() -> None:
    with pytest.raises(
        ValueError, match=r"engine must be .*'vllm==0\.32\.0'.*got 'vllm==0\.31\.0'"
    ):
        check(QWEN3_8B_DFLASH_DRAFT, engine="vllm==0.31.0")  # type: ignore[arg-type]


# --- A: the tappable targets (the supports_eagle3 table) ----------------------------------------


def test_a_granite_moe_target_is_tapped_from_0_33_0_on() -> None:
    granite_moe = {**QWEN3_8B_TARGET, "architectures": ["GraniteMoeForCausalLM"]}
    older, newer = verdicts(DFLASH, target=granite_moe)
    error = only_error(older)
    assert error.field == "target.architectures"
    assert error.code is codes.TARGET_NOT_TAPPABLE
    assert newer.errors == ()
    granite = {**QWEN3_8B_TARGET, "architectures": ["GraniteForCausalLM"]}
    assert [v.errors for v in verdicts(DFLASH, target=granite)] == [(), ()]


# --- B: the served context ---------------------------------------------------------------------


def test_only_0_33_0_lowers_the_served_length_to_a_draft_whose_rope_cannot_stretch() -> None:
    yarn = {"rope_type": "yarn", "factor": 16.0, "original_max_position_embeddings": 4096}
    draft = {**DSPARK, "max_position_embeddings": 65536, "rope_scaling": yarn}
    older, newer = verdicts(draft, target=LONG_TARGET)
    assert older.errors == newer.errors == ()
    assert older.warnings == ()
    (warning,) = newer.warnings
    assert str(warning).startswith("vLLM's newer model runner lowers the server's")


# --- C: an EAGLE-3 draft without aux hidden states ------------------------------------------------


def test_0_32_0_taps_the_target_of_every_eagle3_draft() -> None:
    eagle = {
        "architectures": ["LlamaForCausalLMEagle3"],
        "model_type": "llama",
        "ptd_token_id": 5,
        "eagle_config": {"use_aux_hidden_state": False},
    }
    lfm2 = {**QWEN3_8B_TARGET, "architectures": ["Lfm2ForCausalLM"], "model_type": "lfm2"}
    older, newer = verdicts(eagle, target=lfm2)
    assert only_error(older).field == "target.architectures"
    assert newer.errors == ()


# --- D: the draft classes new in 0.33.0 ---------------------------------------------------------


@pytest.mark.parametrize(
    "architecture",
    ["MuseSparkDSparkModel", "DFlash2BeamDraftModel", "Qwen3XPressModel", "DFlashQwen3XPressModel"],
)
def test_the_draft_classes_new_in_0_33_0_are_unregistered_in_0_32_0(architecture: str) -> None:
    draft = {**DFLASH, "architectures": [architecture]}
    older, newer = verdicts(draft)
    refused = (codes.ARCHITECTURE_UNSUPPORTED, vllm_codes.RENAMED_ARCHITECTURE_UNSUPPORTED)
    assert any(e.code in refused and architecture in str(e) for e in older.errors), [
        str(e) for e in older.errors
    ]
    assert [e for e in newer.errors if e.code in refused] == []


def test_muse_spark_dspark_parses_from_0_33_0_on() -> None:
    draft = {**DSPARK, "model_type": "muse_spark_dspark"}
    older, newer = verdicts(draft)
    assert any(e.field == "model_type" for e in older.errors), [str(e) for e in older.errors]
    assert not any(e.field == "model_type" for e in newer.errors)


# --- E: the transformers range ----------------------------------------------------------------


def test_a_model_type_new_in_transformers_5_20_0_is_an_error_on_0_32_0_only() -> None:
    tables = transformers_tables()
    new = sorted(
        t
        for t, first in tables.model_types.items()
        if first == "5.20.0" and not rewritten_by_override(t)
    )[0]
    older, newer = verdicts({**DFLASH, "model_type": new})
    error = only_error(older)
    assert error.field == "model_type"
    assert newer.errors == ()
    (warning,) = newer.warnings
    assert "is known to transformers 5.20.0 and later only" in str(warning)


# --- a bare name: the installed release ---------------------------------------------------------


@pytest.fixture
def install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Install]:
    yield from fake_installs(monkeypatch, tmp_path)


def test_a_bare_name_means_the_installed_release_if_shipped(install: Install) -> None:
    first, *_, last = [name for name in RELEASES if name.startswith("vllm==")]
    oldest, newest = first.removeprefix("vllm=="), last.removeprefix("vllm==")
    assert engine_rules("vllm")[0] is ENGINES["vllm"]  # none installed: the newest
    install("vllm", oldest)
    assert engine_rules("vllm") == (RELEASES[first], None)
    verdict = check(QWEN3_8B_DFLASH_DRAFT, check_tokenizer=False)
    assert verdict.engine == f"vllm {oldest}"
    assert not any("installed" in note for note in verdict.notes)
    assert check(QWEN3_8B_DFLASH_DRAFT, engine=last).engine == f"vllm {newest}"
    assert engine_rules("sglang")[0] is ENGINES["sglang"]


# --- vLLM 0.34.0 beside 0.33.0 ----------------------------------------------------------------
#
# F (gate REFUSES_PARALLEL_SWITCH): PTD and PARD are served sequentially, their token unused.
# G (gate REFUSES_PEAGLE): P-EAGLE is refused.
# H (gate ONE_MODEL_RUNNER): one runner, so no runner disagreement and no older-runner note.
# I (gate CHECKS_DECLARED_SPECULATOR): the method must be the one the draft's class declares.
# J (data): Gemma, OLMoE, StableLM and Aria targets tapped through the Transformers backend;
#   DFlash2RicursiveDraftModel registered; transformers up to 5.22.x.

ENGINE_0_34: Final = "vllm==0.34.0"


def last_two(draft: Any, **options: Any) -> tuple[Verdict, Verdict]:
    """The draft's verdicts on vLLM 0.33.0 and 0.34.0."""
    older = check(draft, engine="vllm==0.33.0", check_tokenizer=False, **options)
    newer = check(draft, engine=ENGINE_0_34, check_tokenizer=False, **options)
    return older, newer


@pytest.mark.parametrize(
    ("example", "field", "mode", "method"),
    [
        ("ptd-eagle3-llama3-8b", "ptd_token_id", "eagle3", "eagle3"),
        ("pard-llama3-1b", "pard_token", "draft-model", "draft_model"),
    ],
)
def test_f_ptd_and_pard_drafts_serve_sequentially_from_0_34_0(
    example: str, field: str, mode: str, method: str
) -> None:
    older, newer = last_two(EXAMPLES / example)
    assert older.ok
    assert newer.ok
    assert vllm_switch(older.serve_with) == {"method": method, "parallel_drafting": True}
    assert older.parallel is True
    assert older.warnings == ()
    assert (newer.mode, newer.parallel) == (mode, False)
    assert vllm_switch(newer.serve_with) == {"method": method}  # never the refused switch
    (warning,) = newer.warnings
    assert (warning.code, warning.field) == (codes.TOKEN_UNUSED, field)
    last = last_before(REFUSES_PARALLEL_SWITCH)
    assert warning.fix == f"serve it with vLLM {last} or older to draft it in parallel"
    assert "vllm/config/speculative.py: SpeculativeConfig._verify_args" in (warning.evidence or "")
    assert newer.token_id is None  # vLLM reads no token
    required = last_two(EXAMPLES / example, require_parallel=True)
    assert required[0].ok
    error = only_error(required[1])
    assert (error.code, error.field) == (vllm_codes.PARALLEL_SWITCH_REFUSED, field)


def test_f_an_unused_token_is_not_judged() -> None:
    lm = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "pard_token": "7"}
    older, newer = last_two(lm)
    assert only_error(older).field == "pard_token"
    assert newer.errors == ()
    assert [w.code for w in newer.warnings] == [codes.TOKEN_UNUSED]


@pytest.mark.parametrize(
    "draft", ["torchspec--domino_draft_config", "torchspec--glm52_dspark_draft_config"]
)
def test_f_a_draft_refused_at_parse_or_registry_gets_no_token_unused_warning(draft: str) -> None:
    # A class vLLM cannot load falls back to the PARD mode, which 0.34.0 serves
    # sequentially; but the draft is served in no mode, so its token is not "unused".
    older, newer = last_two(CORPUS / "drafts" / f"{draft}.json")
    assert not older.ok
    assert not newer.ok
    assert codes.TOKEN_UNUSED not in {w.code for w in newer.warnings}
    assert {e.code.step for e in newer.errors if e.code is not None} & {
        codes.Step.PARSE,
        codes.Step.REGISTRY,
    }


def test_g_p_eagle_is_refused_from_0_34_0() -> None:
    peagle = CORPUS / "drafts" / "specforge--qwen3-8b-peagle.json"
    older, newer = last_two(peagle)
    assert [e.code for e in older.errors][1:] == [vllm_codes.RENAMED_ARCHITECTURE_UNSUPPORTED]
    (error,) = [e for e in newer.errors if e.field == "architectures"]
    assert error.code is codes.METHOD_UNSUPPORTED
    assert "P-EAGLE" in str(error)
    assert error.fix == (
        f"serve it with vLLM {last_before(REFUSES_PEAGLE)} or older, or train a DFlash or DSpark "
        "drafter"
    )
    assert "registry.py" in (error.evidence or "")
    speculators = {**SPECULATORS, "speculators_model_type": "peagle"}
    speculators["eagle_aux_hidden_state_layer_ids"] = speculators.pop("aux_hidden_state_layer_ids")
    older, newer = last_two(speculators)
    assert older.errors == ()
    error = only_error(newer)
    assert (error.code, error.field) == (codes.METHOD_UNSUPPORTED, "speculators_model_type")
    assert "update_peagle" in (error.evidence or "")


def test_h_one_runner_from_0_34_0() -> None:
    assistant = CORPUS / "drafts" / "z-lab--assistant-config.json"
    older, newer = last_two(assistant)
    assert [w.code for w in older.warnings] == [vllm_codes.RUNNERS_DISAGREE_ON_LAYERS]
    assert newer.warnings == ()
    assert newer.errors == ()
    anchored = {**DFLASH, "dflash_config": {**DFLASH["dflash_config"], "sample_from_anchor": True}}
    older, newer = last_two(anchored)
    assert (
        only_error(older).code
        is only_error(newer).code
        is vllm_codes.SAMPLE_FROM_ANCHOR_UNSUPPORTED
    )
    assert any("older model runner" in note for note in older.notes)
    assert not any("runner" in note for note in newer.notes)
    for verdict in last_two(anchored)[1:]:  # no 0.34.0 finding names the deleted runner
        for finding in (*verdict.errors, *verdict.warnings):
            assert "older" not in str(finding)
            assert "gpu_model_runner" not in (finding.evidence or "")
            assert "v1/spec_decode/" not in (finding.evidence or "")


def test_i_a_method_the_class_does_not_declare_is_refused_from_0_34_0() -> None:
    config = load_json(EXAMPLES / "dflash-qwen3-4b" / "config.json")
    config["dflash_config"] = {**config["dflash_config"], "projector_type": "dspark"}
    older, newer = last_two(config)
    assert older.errors == ()
    assert [w.code for w in older.warnings] == [vllm_codes.DSPARK_ARCHITECTURE_REPLACED]
    error = only_error(newer)
    assert (error.code, error.field) == (vllm_codes.METHOD_NOT_DECLARED, "architectures")
    assert "_resolve_checkpoint_config_class" in (error.evidence or "")
    assert check(EXAMPLES / "dflash-qwen3-4b", engine=ENGINE_0_34).errors == ()  # as declared


@pytest.mark.parametrize(
    "architecture",
    ["GemmaForCausalLM", "OlmoeForCausalLM", "StableLmForCausalLM", "AriaForConditionalGeneration"],
)
def test_j_targets_tapped_through_the_transformers_backend_from_0_34_0(architecture: str) -> None:
    target = {**QWEN3_8B_TARGET, "architectures": [architecture]}
    older, newer = last_two(DFLASH, target=target)
    assert only_error(older).code is codes.TARGET_NOT_TAPPABLE
    assert newer.errors == ()


def test_j_the_registry_and_the_transformers_range_of_0_34_0() -> None:
    ricursive = {**DFLASH, "architectures": ["DFlash2RicursiveDraftModel"]}
    older, newer = last_two(ricursive)
    assert any(e.code is codes.ARCHITECTURE_UNSUPPORTED for e in older.errors)
    assert not any(e.code is codes.ARCHITECTURE_UNSUPPORTED for e in newer.errors)
    tables = transformers_tables()
    new = sorted(t for t, first in tables.model_types.items() if first == "5.22.0")[0]
    older, newer = last_two({**DFLASH, "model_type": new})
    assert only_error(older).field == "model_type"
    assert newer.errors == ()
