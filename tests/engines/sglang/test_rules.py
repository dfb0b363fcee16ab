"""SGLang 0.5.23's verdicts (``check(engine="sglang")``): each rule of
``drafting_config/engines/sglang/`` on the smallest config that shows it, beside vLLM's
verdict on the same draft where the two engines disagree."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import drafting_config
from drafting_config.command import main
from drafting_config.engines import ENGINES, RELEASES
from drafting_config.engines.sglang import codes as sglang_codes
from drafting_config.engines.sglang.codes import (
    ARCHITECTURE_NOT_DRAFTER,
    DFLASH_CLASS_DERIVES_LAYERS,
    LAYERS_CAPTURED_IN_ORDER,
    MARKOV_RANK_NESTED_ONLY,
)
from drafting_config.engines.sglang.layers import build_target_layer_ids
from drafting_config.engines.sglang.tables import TARGET_CLASSES, Hook, LastLayer, model_types
from drafting_config.engines.vllm.names import ENGINE as VLLM
from drafting_config.values.codes import (
    METHOD_UNSUPPORTED,
    MODEL_TYPE_UNKNOWN,
    SEQUENTIAL_NOT_PARALLEL,
    TOKEN_MISSING,
    TOKEN_UNUSED,
    Step,
)
from drafting_config.values.edits import ConfigEdit, JsonValue
from drafting_config.verdicts import Verdict
from tests.conftest import QWEN3_8B_DFLASH_DRAFT
from tests.serve_commands import sglang_algorithm
from tests.tokenizer_factory import Added, write_tokenizer

QWEN3_8B: dict[str, Any] = {
    "architectures": ["Qwen3ForCausalLM"],
    "model_type": "qwen3",
    "hidden_size": 4096,
    "num_hidden_layers": 36,
    "vocab_size": 151936,
}

DFLASH: dict[str, Any] = QWEN3_8B_DFLASH_DRAFT

DSPARK: dict[str, Any] = {
    "architectures": ["DSparkDraftModel"],
    "model_type": "qwen3",
    "hidden_size": 4096,
    "num_hidden_layers": 5,
    "vocab_size": 151936,
    "markov_rank": 256,
    "markov_head_type": "vanilla",
    "dflash_config": {"mask_token_id": 151669, "target_layer_ids": [1, 9, 17, 25, 33]},
}


def draft(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    config = copy.deepcopy(base)
    config.update(changes)
    return config


def sglang(config: object, **options: Any) -> Verdict:
    return drafting_config.check(config, engine="sglang", **options)


def messages(verdict: Verdict) -> str:
    return "\n".join(str(e) for e in verdict.errors)


# --- the engine as a choice --------------------------------------------------------------------


def test_the_engine_is_named_on_each_verdict_and_vllm_is_the_default() -> None:
    assert drafting_config.check(DFLASH).engine == f"{VLLM}"
    assert drafting_config.check(DFLASH).algorithm == "dflash"
    verdict = sglang(DFLASH)
    assert (verdict.engine, verdict.algorithm, verdict.ok) == ("sglang 0.5.23", "DFLASH", True)
    many = drafting_config.check_many([DFLASH, DSPARK], engine="sglang")
    assert [v.algorithm for v in many] == ["DFLASH", "DSPARK"]


def test_an_unknown_engine_is_the_callers_mistake() -> None:
    with pytest.raises(
        ValueError,
        match=re.escape(
            "engine must be " + ", ".join(repr(name) for name in (*ENGINES, *RELEASES))
        ),
    ):
        drafting_config.check(DFLASH, engine="tgi")  # type: ignore[arg-type]


# --- the token id ----------------------------------------------------------------------------


def test_a_dflash_draft_naming_no_id_takes_the_tokenizers_mask_added_when_missing(
    tmp_path: Path,
) -> None:
    config = draft(DFLASH, dflash_config={"target_layer_ids": [1, 9, 17, 25, 33]})
    tokenizer = write_tokenizer(tmp_path / "tok", vocab_size=300, added=[Added("<|im_end|>")])
    target = draft(QWEN3_8B, vocab_size=400)
    verdict = sglang(config, target=target, tokenizer=tokenizer)
    assert verdict.ok, messages(verdict)
    assert (verdict.token_id, verdict.token_source) == (301, "tokenizer")  # len(tokenizer)
    assert any("adds it as a special token at id 301" in str(w) for w in verdict.warnings)
    # vLLM refuses the same draft; the library's "names no token id" is not SGLang's.
    assert not drafting_config.check(config).ok
    assert "names no parallel drafting token id" not in messages(verdict)


def test_the_tokenizers_own_mask_token_is_used_and_without_a_tokenizer_a_warning(
    tmp_path: Path,
) -> None:
    config = draft(DFLASH, dflash_config={"target_layer_ids": [1, 9, 17, 25, 33]})
    tokenizer = write_tokenizer(tmp_path / "tok", vocab_size=300, added=[Added("<|MASK|>")])
    verdict = sglang(config, tokenizer=tokenizer)
    assert (verdict.ok, verdict.token_id, verdict.warnings) == (True, 300, ())
    alone = sglang(config)
    assert alone.ok
    assert alone.token_id is None
    [warning] = alone.warnings
    assert warning.field == "dflash_config.mask_token_id"
    assert "--skip-tokenizer-init" in str(warning.evidence)


def test_the_added_mask_must_fit_the_targets_vocabulary(tmp_path: Path) -> None:
    config = draft(DFLASH, dflash_config={"target_layer_ids": [1, 9]})
    tokenizer = write_tokenizer(tmp_path / "tok", vocab_size=300)
    verdict = sglang(config, target=draft(QWEN3_8B, vocab_size=300), tokenizer=tokenizer)
    assert "outside the target's vocabulary of 300" in messages(verdict)


def test_the_mask_string_at_another_id_of_the_tokenizer_is_an_error(tmp_path: Path) -> None:
    tokenizer = write_tokenizer(tmp_path / "tok", vocab_size=300, added=[Added("<|MASK|>")])
    config = draft(DFLASH, dflash_config={"mask_token_id": 299, "target_layer_ids": [1]})
    verdict = sglang(config, tokenizer=tokenizer)
    assert "holds its mask token '<|MASK|>' at id 300" in messages(verdict)


def test_a_null_in_dflash_config_stops_the_search_before_the_top_level() -> None:
    config = draft(DFLASH, mask_token_id=7)
    config["dflash_config"]["mask_token_id"] = None
    assert sglang(config).token_id is None  # the tokenizer decides, not 7
    assert drafting_config.check(config).token_id == 7  # vLLM: null is absent


@pytest.mark.parametrize("value", ["151669", True, 7.0, -1])
def test_dflash_refuses_what_is_not_a_non_negative_integer(value: object) -> None:
    config = draft(DFLASH)
    config["dflash_config"]["mask_token_id"] = value
    verdict = sglang(config)
    assert not verdict.ok
    assert verdict.errors[0].field == "dflash_config.mask_token_id"


def test_dspark_reads_the_noise_token_first_and_coerces_with_int() -> None:
    config = draft(DSPARK, dspark_noise_token_id="100")
    config["dflash_config"]["mask_token_id"] = 200
    verdict = sglang(config)
    assert verdict.ok, messages(verdict)
    assert (verdict.token_id, verdict.token_source) == (100, "dspark_noise_token_id")
    assert drafting_config.check(draft(DSPARK, dspark_noise_token_id=100)).token_id == 151669


def test_dspark_requires_an_id_and_bounds_it_by_the_padded_vocabulary() -> None:
    config = draft(DSPARK)
    del config["dflash_config"]["mask_token_id"]
    (error,) = sglang(config).errors
    assert error.code is TOKEN_MISSING
    assert "DSpark requires mask_token_id" in str(error.evidence)
    big = draft(DSPARK, dspark_noise_token_id=151940)
    assert "outside the target's vocabulary (151936)" in messages(sglang(big, target=QWEN3_8B))
    padded = draft(QWEN3_8B, padded_vocab_size=152064)
    assert sglang(big, target=padded).ok


# --- DSpark's head ---------------------------------------------------------------------------


def test_markov_rank_only_nested_is_an_error_and_a_nested_gated_head_a_warning() -> None:
    nested = draft(DSPARK)
    del nested["markov_rank"], nested["markov_head_type"]
    nested["dflash_config"].update(markov_rank=256, markov_head_type="gated")
    verdict = sglang(nested)
    (error,) = verdict.errors
    assert (error.code, error.field) == (MARKOV_RANK_NESTED_ONLY, "markov_rank")
    assert "the top-level `markov_rank` is not" in str(error)
    assert error.fix == "copy `dflash_config.markov_rank` to the top-level `markov_rank`"
    assert str(error.evidence).startswith("srt/models/dspark.py: build_markov_head")
    [head] = [w for w in verdict.warnings if "builds a vanilla head" in str(w)]
    assert type(head) is drafting_config.ParallelDraftingConfigWarning  # not about layers
    assert head.fix == "copy `dflash_config.markov_head_type` to the top-level `markov_head_type`"
    missing = draft(DSPARK)
    del missing["markov_head_type"]
    assert "markov_head_type" in messages(sglang(missing))


@pytest.mark.parametrize(
    ("rank", "edited"), [(256, True), (True, False), ("256", False), (256.0, False)]
)
def test_the_nested_markov_rank_is_copied_only_as_the_integer_the_file_holds(
    rank: JsonValue, edited: bool
) -> None:
    nested = draft(DSPARK)
    del nested["markov_rank"]
    nested["dflash_config"].update(markov_rank=rank)
    [error] = [e for e in sglang(nested).errors if e.code is MARKOV_RANK_NESTED_ONLY]
    assert error.edit == (ConfigEdit.set("markov_rank", rank) if edited else None)
    assert error.fix == "copy `dflash_config.markov_rank` to the top-level `markov_rank`"


# --- methods and formats SGLang lacks ---------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "lacking", "field"),
    [
        # A class SGLang does not register: no STANDALONE draft model either
        # (test_load_path.py serves a registered causal LM as STANDALONE).
        ({"architectures": ["PardForCausalLM"], "pard_token": 151669}, "PARD", "pard_token"),
        (
            {"architectures": ["PtdForCausalLM"], "ptd_token_id": 5},
            "parallel token drafting for EAGLE-3",
            "ptd_token_id",
        ),
        ({"architectures": ["PEagleDraftModel"], "mask_token_id": 5}, "P-EAGLE", "architectures"),
    ],
)
def test_methods_sglang_lacks_are_errors_naming_what_it_offers(
    config: dict[str, Any], lacking: str, field: str
) -> None:
    (error,) = sglang(config).errors
    assert f"SGLang has no {lacking}" in str(error)
    assert (error.code, error.field) == (METHOD_UNSUPPORTED, field)
    assert error.fix is not None
    assert "DFlashDraftModel (DFLASH)" in error.fix
    assert "LlamaForCausalLMEagle3 (sequential EAGLE3)" in error.fix
    assert error.evidence is not None


def test_an_eagle3_draft_naming_a_ptd_token_is_served_sequentially_the_token_unused() -> None:
    # SpeculativeAlgorithm (srt/speculative/spec_info.py) has no parallel EAGLE-3 mode, and
    # nothing in SGLang reads ptd_token_id: served as EAGLE3, the token is unused.
    config = {"architectures": ["LlamaForCausalLMEagle3"], "ptd_token_id": 5}
    verdict = sglang(config)
    assert verdict.errors == ()
    (warning,) = verdict.warnings
    assert warning.code is TOKEN_UNUSED
    assert warning.field == "ptd_token_id"
    assert "unused by SGLang:" in str(warning)
    assert "as sequential EAGLE3" in str(warning)
    assert "SpeculativeAlgorithm" in str(warning.evidence)
    assert str(warning.evidence).startswith("srt/speculative/eagle_worker_v2.py")
    assert (verdict.mode, verdict.parallel) == ("eagle3", False)
    assert sglang_algorithm(verdict.serve_with) == "EAGLE3"
    required = sglang(config, require_parallel=True)
    (error,) = required.errors
    assert error.code is SEQUENTIAL_NOT_PARALLEL
    assert error.step is Step.TOKEN
    assert required.mode is None


@pytest.mark.parametrize(("layers", "refused"), [(1, False), (2, True), (3, True), (4, False)])
def test_a_dflash_class_deriving_its_layers_from_a_depth_of_2_or_3_is_refused(
    layers: int, refused: bool
) -> None:
    # DFlashDraftModel.__init__ calls build_target_layer_ids(num_layers, num_layers) when
    # the draft names neither layers nor num_target_layers: ValueError below a depth of 4.
    config = copy.deepcopy(QWEN3_8B_DFLASH_DRAFT)
    config["num_hidden_layers"] = layers
    del config["dflash_config"]["target_layer_ids"]
    config.pop("num_target_layers", None)
    codes = [e.code for e in sglang(config).errors]
    assert (DFLASH_CLASS_DERIVES_LAYERS in codes) is refused
    config["num_target_layers"] = 36
    assert DFLASH_CLASS_DERIVES_LAYERS not in [e.code for e in sglang(config).errors]


@pytest.mark.parametrize(
    ("ids", "what"),
    [([1, 9, 9, 17, 25], "repeats a layer"), ([9, 1, 17, 25, 33], "not increasing")],
)
def test_repeated_or_decreasing_layer_ids_are_captured_once_in_layer_order(
    ids: list[int], what: str
) -> None:
    config = copy.deepcopy(QWEN3_8B_DFLASH_DRAFT)
    config["dflash_config"]["target_layer_ids"] = ids
    errors = [
        e for e in sglang(config, target=QWEN3_8B).errors if e.code is LAYERS_CAPTURED_IN_ORDER
    ]
    assert len(errors) == 1
    assert what in str(errors[0])
    assert errors[0].field == "dflash_config.target_layer_ids"
    config["dflash_config"]["target_layer_ids"] = sorted(set(ids))
    codes = [e.code for e in sglang(config, target=QWEN3_8B).errors]
    assert LAYERS_CAPTURED_IN_ORDER not in codes


def test_sglang_says_how_it_serves_a_parallel_drafter() -> None:
    verdict = sglang(QWEN3_8B_DFLASH_DRAFT)
    assert verdict.ok
    assert (verdict.mode, verdict.parallel) == ("dflash", True)
    assert sglang_algorithm(verdict.serve_with) == "DFLASH"


# --- the draft's model_type (HfModelConfigParser.parse) ---------------------------------------


@pytest.mark.parametrize(
    "model_type",
    ["deepseek_v4_dspark_draft", "dflash", "dspark", "qwen3_dspark", "qwen3_dflash2", "nonsense"],
)
def test_a_model_type_sglangs_config_loader_does_not_know_is_an_error(model_type: str) -> None:
    verdict = sglang(draft(DFLASH, model_type=model_type))
    assert not verdict.ok
    (error,) = verdict.errors
    assert (error.field, error.code) == ("model_type", MODEL_TYPE_UNKNOWN)
    assert repr(model_type) in str(error)
    assert "HfModelConfigParser.parse" in str(error.evidence)
    assert "transformers 5.19.0" in str(error)
    assert error.fix is not None
    assert error.fix.startswith("set `model_type` to the type of the draft's layers")


def test_with_auto_map_autoconfig_an_unknown_model_type_is_remote_code_a_warning() -> None:
    auto_map = {"AutoConfig": "configuration_dspark.DSparkConfig"}
    verdict = sglang(draft(DFLASH, model_type="deepseek_v4_dspark_draft", auto_map=auto_map))
    assert verdict.ok
    [warning] = [w for w in verdict.warnings if "--trust-remote-code" in str(w)]
    assert type(warning) is drafting_config.ParallelDraftingConfigWarning  # not about layers
    # AutoModel alone is no config class: transformers still cannot parse the file.
    only_model = {"AutoModel": "dspark_v4.DSparkV4DraftModel"}
    verdict = sglang(draft(DFLASH, model_type="deepseek_v4_dspark_draft", auto_map=only_model))
    assert [e.field for e in verdict.errors] == ["model_type"]


@pytest.mark.parametrize(
    ("model_type", "architectures"),
    [
        ("qwen3", ["DFlashDraftModel"]),  # transformers 5.19.0
        ("qwen3_vl_text", ["DFlashDraftModel"]),  # transformers 5.19.0
        ("muse_glimmer_assistant", ["DFlashDraftModel"]),  # SGLang's _CONFIG_REGISTRY
        ("inkling_model", ["DFlashDraftModel"]),  # registered by srt/configs/inkling.py
        ("dflash", ["LongcatFlashForCausalLM", "DFlashDraftModel"]),  # _try_load_longcat_config
    ],
)
def test_model_types_sglang_parses_are_not_judged(
    model_type: str, architectures: list[str]
) -> None:
    verdict = sglang(draft(DFLASH, model_type=model_type, architectures=architectures))
    assert "model_type" not in [e.field for e in verdict.errors]
    assert not any("model_type" in str(w) for w in verdict.warnings)


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz_0123456789", min_size=1, max_size=12))
def test_any_model_type_is_an_error_exactly_when_neither_sglang_nor_transformers_knows_it(
    model_type: str,
) -> None:
    types = model_types()
    known = (
        model_type in types.config_registry
        or model_type in types.registered
        or model_type in types.transformers_types
    )
    fields = [e.field for e in sglang(draft(DFLASH, model_type=model_type)).errors]
    assert ("model_type" in fields) is not known
    remote = draft(DFLASH, model_type=model_type, auto_map={"AutoConfig": "c.C"})
    assert "model_type" not in [e.field for e in sglang(remote).errors]


# --- the tapped layers ------------------------------------------------------------------------


def test_layers_are_derived_from_the_targets_depth_when_none_are_named() -> None:
    config = draft(DFLASH, dflash_config={"mask_token_id": 151669})
    verdict = sglang(config, target=QWEN3_8B)
    assert verdict.ok, messages(verdict)
    assert verdict.aux_layer_ids == tuple(i + 1 for i in build_target_layer_ids(36, 5))
    assert verdict.aux_layer_source == "derived from the target's depth 36"
    assert not drafting_config.check(config, target=QWEN3_8B).ok  # vLLM taps 3 defaults


@pytest.mark.parametrize(("layers", "repeats"), [(33, False), (34, True), (100_000_000, True)])
def test_more_draft_layers_than_the_derived_span_holds_repeat_ids(
    layers: int, repeats: bool
) -> None:
    """build_target_layer_ids spreads one id per draft layer over [1, L - 3]: a draft deeper
    than that repeats ids, decided from the counts (a list of 10**8 ids once hung here)."""
    config = draft(DFLASH, num_hidden_layers=layers, dflash_config={"mask_token_id": 151669})
    verdict = sglang(config, target=QWEN3_8B, check_weights=False)
    fields = [e.field for e in verdict.errors]
    assert ("num_hidden_layers" in fields) is repeats, messages(verdict)
    if repeats:
        assert "over layers 1 to 33 of the target's 36 repeat" in messages(verdict)
        [error] = [e for e in verdict.errors if e.field == "num_hidden_layers"]
        assert "build_target_layer_ids" in str(error.evidence)
    else:
        assert verdict.aux_layer_ids == tuple(range(2, 35))


def test_a_derived_list_longer_than_any_model_is_not_built() -> None:
    config = draft(DFLASH, num_hidden_layers=10**6, dflash_config={"mask_token_id": 151669})
    verdict = sglang(config, target=draft(QWEN3_8B, num_hidden_layers=10**7))
    assert verdict.aux_layer_ids is None
    assert len(str(verdict.errors)) < 10_000


def test_loop_models_multiply_the_depth() -> None:
    config = draft(DFLASH, dflash_config={"mask_token_id": 1})
    verdict = sglang(config, target=draft(QWEN3_8B, num_hidden_layers=12, num_loops=3))
    assert verdict.aux_layer_source == "derived from the target's depth 36"


def test_num_target_layers_is_the_targets_depth_to_the_draft_class() -> None:
    config = draft(DFLASH, num_target_layers=5)
    verdict = sglang(config, target=QWEN3_8B)
    assert verdict.errors[0].field == "num_target_layers"
    assert "is read by SGLang's draft class as the target's depth" in str(verdict.errors[0])
    assert verdict.errors[0].fix == (
        "set `num_target_layers` to the target's num_hidden_layers, or remove it"
    )
    assert drafting_config.check(config, target=QWEN3_8B).ok  # vLLM does not read it
    assert sglang(draft(DFLASH, num_target_layers=36), target=QWEN3_8B).ok


def test_ids_out_of_the_targets_range_are_refused() -> None:
    config = draft(DFLASH)
    config["dflash_config"]["target_layer_ids"] = [1, 36]
    assert "outside [0, 35]" in messages(sglang(config, target=QWEN3_8B))


@pytest.mark.parametrize(
    ("architecture", "ok"),
    [
        ("Qwen3ForCausalLM", False),  # never captures index L
        ("Qwen3MoeForCausalLM", False),  # IndexError at start-up
        ("Lfm2ForCausalLM", True),  # captures it after the loop
    ],
)
def test_the_last_layer_on_classes_that_never_capture_it(architecture: str, ok: bool) -> None:
    config = draft(DFLASH)
    config["dflash_config"]["target_layer_ids"] = [1, 35]
    target = draft(QWEN3_8B, architectures=[architecture])
    verdict = sglang(config, target=target)
    assert verdict.ok is ok, messages(verdict)
    # vLLM captures index L; it cannot tap an LFM2 target at all (no SupportsEagle3)
    vllm = drafting_config.check(config, target=target)
    tapped = architecture != "Lfm2ForCausalLM"
    assert [error.field for error in vllm.errors] == ([] if tapped else ["target.architectures"])


def test_a_target_class_without_a_hook_is_refused() -> None:
    target = draft(QWEN3_8B, architectures=["Qwen2ForCausalLM"])
    assert "has no DFLASH capture hook" in messages(sglang(DFLASH, target=target))
    broken = draft(QWEN3_8B, architectures=["Qwen3VLForConditionalGeneration"])
    assert "AttributeError" in messages(sglang(DFLASH, target=broken))
    dspark_only = draft(QWEN3_8B, architectures=["BailingMoeV3ForCausalLM"])
    assert not sglang(DFLASH, target=dspark_only).ok
    assert sglang(DSPARK, target=dspark_only).ok


def test_the_drafts_hidden_size_sizes_fc() -> None:
    config = draft(DFLASH, hidden_size=2048, target_hidden_size=4096)
    assert sglang(config, target=QWEN3_8B).errors[0].field == "hidden_size"


def test_eagle3_reads_eagle_config_only_and_the_target_adds_one() -> None:
    config = {
        "architectures": ["LlamaForCausalLMEagle3"],
        "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 17, 32]},
    }
    verdict = sglang(config, target=QWEN3_8B)
    assert verdict.ok, messages(verdict)
    assert (verdict.algorithm, verdict.aux_layer_ids) == ("EAGLE3", (2, 18, 33))
    top = {"architectures": ["LlamaForCausalLMEagle3"], "eagle_aux_hidden_state_layer_ids": [2]}
    [warning] = sglang(top, target=QWEN3_8B).warnings
    assert warning.field == "eagle_aux_hidden_state_layer_ids"
    assert "where SGLang does not read it" in str(warning)
    assert str(warning.fix).startswith(
        "copy the list into `eagle_config.eagle_aux_hidden_state_layer_ids`"
    )


def test_the_target_table_holds_the_classes_the_issue_names() -> None:
    assert TARGET_CLASSES["Qwen3ForCausalLM"].dflash is Hook.PLUS_ONE
    assert TARGET_CLASSES["Qwen3ForCausalLM"].last_layer is LastLayer.NEVER
    assert TARGET_CLASSES["Lfm2ForCausalLM"].dflash is Hook.PLUS_ONE
    assert TARGET_CLASSES["KimiK3LinearForCausalLM"].dflash is Hook.AS_GIVEN
    assert TARGET_CLASSES["Qwen2ForCausalLM"].dflash is None  # EAGLE-3 only
    assert TARGET_CLASSES["LongcatFlashForCausalLM"].dflash is None


# --- the command line -------------------------------------------------------------------------


def test_engine_all_gives_one_verdict_per_engine_and_fails_when_one_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(draft(DFLASH, num_target_layers=5)), encoding="utf-8")
    target = tmp_path / "target.json"
    target.write_text(json.dumps(QWEN3_8B), encoding="utf-8")
    status = main(["check", "--engine", "all", str(path), "--target", str(target), "--json"])
    document = json.loads(capsys.readouterr().out)
    assert [(item["engine"], item["ok"]) for item in document] == [
        (f"{VLLM}", True),
        ("sglang 0.5.23", False),
    ]
    assert status == 1
    assert main(["check", "--engine", "vllm", str(path), "--target", str(target)]) == 0
    text = capsys.readouterr().out
    assert text.endswith("1 checked: 1 valid, 0 invalid\n")
    main(["check", "--engine", "all", str(path), "--target", str(target)])
    text = capsys.readouterr().out
    assert text.startswith(f"{path}: INVALID\n  {VLLM}: serves as dflash (parallel)")
    assert "\n  sglang 0.5.23: fails at " in text
    assert text.endswith(
        f"1 checked: 0 valid, 1 invalid ({VLLM} serves 1, sglang 0.5.23 serves 0)\n"
    )


# --- mask_embedding.pt -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("saved", "problem"),
    [
        ("tensor", "holds a bare tensor"),
        ({"embedding": "tensor"}, "without 'mask_token_id'"),
        ({"embedding": "tensor", "mask_token_id": 7}, "trained for mask_token_id 7"),
        ({"embedding": "tensor", "mask_token_id": 151669}, None),
    ],
)
def test_a_mask_embedding_sglang_cannot_read_is_an_error(
    tmp_path: Path, saved: object, problem: str | None
) -> None:
    torch = pytest.importorskip("torch")
    row = torch.zeros(DFLASH["hidden_size"])  # one row of the target's embeddings
    value: object = row
    if isinstance(saved, dict):
        value = {key: row if item == "tensor" else item for key, item in saved.items()}
    torch.save(value, tmp_path / "mask_embedding.pt")
    (tmp_path / "config.json").write_text(json.dumps(DFLASH), encoding="utf-8")
    verdict = sglang(tmp_path)
    if problem is None:
        assert verdict.ok, messages(verdict)
    else:
        assert problem in messages(verdict)


def test_a_mask_embedding_beside_a_config_file_of_another_name_is_not_read(
    tmp_path: Path,
) -> None:
    """SGLang loads a model from a directory: a ``drafts/qwen3-4b-dflash.json`` has no
    ``mask_embedding.pt`` beside it, as it has no weights for vLLM's rules either."""
    torch = pytest.importorskip("torch")
    torch.save(torch.zeros(8), tmp_path / "mask_embedding.pt")  # a bare tensor: refused
    (tmp_path / "qwen3-4b-dflash.json").write_text(json.dumps(DFLASH), encoding="utf-8")
    (tmp_path / "config.json").write_text(json.dumps(DFLASH), encoding="utf-8")
    assert sglang(tmp_path / "qwen3-4b-dflash.json").ok
    assert "holds a bare tensor" in messages(sglang(tmp_path / "config.json"))


# --- parse_dflash_draft_config's refusals, each naming its field and the value --------------

DOMINO_SECTION: dict[str, Any] = {
    "mask_token_id": 151669,
    "target_layer_ids": [1, 9, 17, 25, 33],
    "projector_type": "domino",
    "shift_label": True,
    "pure_draft_prefix_len": 1,
    "gru_hidden_dim": 256,
    "emb_dim": 128,
}


@pytest.mark.parametrize(
    ("changes", "field", "says"),
    [
        (
            {"attention_sink_bias": "yes"},
            "dflash_config.attention_sink_bias",
            "`dflash_config.attention_sink_bias` = 'yes' (str) must be a bool",
        ),
        (
            {"selector_rank": 4},
            "dflash_config.selector_rank",
            "`dflash_config.selector_rank` = 4 but `dflash_config.selector_top_k` = 0: "
            "SGLang refuses one set without the other",
        ),
        (
            {"block_size": "many"},
            "dflash_config.block_size",
            "`dflash_config.block_size` = 'many' (str) is not a number",
        ),
        (
            {"shift_label": 1},
            "dflash_config.shift_label",
            "`dflash_config.shift_label` = 1 (int) must be a bool for Domino",
        ),
        (
            {"emb_dim": None},
            "dflash_config.emb_dim",
            "`dflash_config.emb_dim` = None is required for Domino",
        ),
        (
            {"num_target_layers": 0},
            "dflash_config.num_target_layers",
            "`dflash_config.num_target_layers` = 0 (int) must be positive",
        ),
    ],
)
def test_each_refusal_of_the_dflash_parse_names_its_field_value_and_reason(
    changes: dict[str, Any], field: str, says: str
) -> None:
    config = draft(DFLASH)
    config["dflash_config"] = {**DOMINO_SECTION, **changes}
    assert sglang(draft(DFLASH, dflash_config=DOMINO_SECTION)).ok
    verdict = sglang(config)
    (error,) = verdict.errors
    assert error.field == field
    assert says in str(error)
    assert error.fix is not None
    assert f"`{field}`" in error.fix
    assert error.evidence == (
        "srt/speculative/dflash_utils.py: parse_dflash_draft_config raises ValueError"
    )


def test_architectures_sglang_has_no_class_for_are_an_error() -> None:
    """No draft class and no DFlash or DSpark field: an error on ``architectures``. A DFlash
    or DSpark section under a class SGLang lacks (SpecForge's Domino and DSpine drafts) is
    an error too: SGLang loads another class, and DFlashWorkerV2.__init__ /
    DSparkWorkerV2.__init__ read `candidate_selector` / `sample_from_anchor` from it."""
    plain = {**QWEN3_8B, "architectures": ["MyModelForCausalLM"]}  # not registered
    verdict = sglang(plain)
    assert [e.field for e in verdict.errors] == ["architectures"]
    assert "`architectures` = ['MyModelForCausalLM'] has no SGLang draft class" in (
        messages(verdict)
    )
    verdict = sglang(draft(DFLASH, architectures=["DominoDraftModel"]))
    [error] = verdict.errors
    assert (error.field, error.code) == ("architectures", ARCHITECTURE_NOT_DRAFTER)
    assert "DFlashWorkerV2.__init__ raises AttributeError" in str(error.evidence)
    assert "`candidate_selector`" in str(error.evidence)
    assert "DFLASH worker fails at start-up" in str(error)
    assert error.fix == (
        "set `architectures` to ['DFlashDraftModel'] when the checkpoint's weights are that class's"
    )
    assert verdict.serve_with is None or sglang_algorithm(verdict.serve_with) == "DFLASH"
    assert not any("no draft class" in str(w) for w in verdict.warnings)
    assert sglang(draft(DFLASH)).ok


@pytest.mark.parametrize("rank", ["256", 256.0, 256.5, True])
def test_a_top_level_markov_rank_sglang_converts_with_int_is_served(rank: object) -> None:
    """build_markov_head (srt/models/dspark.py) reads int(markov_rank): a string, a float or
    a bool it converts is no error (it once was, asking to set the field it had)."""
    config = copy.deepcopy(DSPARK)
    config["markov_rank"] = rank
    verdict = sglang(config)
    assert not [e for e in verdict.errors if e.field == "markov_rank"], messages(verdict)


@pytest.mark.parametrize("rank", ["abc", 0, -3, "0", float("nan"), [256], {"rank": 256}])
def test_a_top_level_markov_rank_int_cannot_make_positive_is_an_error(rank: object) -> None:
    config = copy.deepcopy(DSPARK)
    config["markov_rank"] = rank
    verdict = sglang(config)
    assert [e.field for e in verdict.errors if e.field == "markov_rank"] == ["markov_rank"]


# --- quoted values are bounded ------------------------------------------------------------------


@pytest.mark.parametrize(
    "section",
    [
        {"mask_token": "x" * 900_000},
        {"mask_token_id": 151669, "target_layer_ids": list(range(10_000))},
        {"mask_token_id": 151669, "target_layer_ids": [1, 10**5000]},
        {"mask_token_id": 10**5000},
    ],
)
def test_every_quoted_value_is_bounded(section: dict[str, object]) -> None:
    """A 900,000-character mask token once gave a 900 KB warning, and a layer-range message
    printed whole lists and 4,300-digit ints (which ``str()`` refuses past that)."""
    config = draft(DFLASH, num_target_layers=10**5000, dflash_config=section)
    verdict = sglang(config, target=QWEN3_8B)
    texts = [str(f) for f in (*verdict.errors, *verdict.warnings)] + list(verdict.notes)
    assert texts
    assert max(map(len, texts)) < 2_000, max(texts, key=len)[:300]


def test_sglang_parses_a_drafts_config_once_per_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every SGLang rule asks for the parse; it once ran about six times a draft."""
    from drafting_config.engines.sglang import config

    calls: list[object] = []
    real = config.parse_dflash_draft_config

    def counting(get: Any) -> Any:
        calls.append(get)
        return real(get)

    monkeypatch.setattr(config, "parse_dflash_draft_config", counting)
    for base in (DFLASH, DSPARK):
        calls.clear()
        verdict = sglang(base, target=QWEN3_8B)
        assert verdict.algorithm in ("DFLASH", "DSPARK")
        assert len(calls) == 1


def test_a_speculators_file_without_model_type_is_refused_at_parse() -> None:
    # SGLang's harness stops there: AutoConfig raises "Unrecognized model ... Should have a
    # `model_type` key" (tests/real_configs/sglang_engine_runs.json).
    (error,) = sglang(
        {"speculators_model_type": "dflash", "architectures": ["DFlashSpeculator"]}
    ).errors
    assert (error.code, error.field, error.step) == (
        sglang_codes.MODEL_TYPE_MISSING,
        "model_type",
        Step.PARSE,
    )
    assert error.fix is not None
    assert "vLLM" in error.fix


def test_a_nested_emb_dim_that_differs_from_the_top_level_one_is_refused() -> None:
    config = draft(DFLASH, dflash_config=DOMINO_SECTION)
    assert sglang({**config, "emb_dim": 128}).ok  # the same width twice
    verdict = sglang({**config, "emb_dim": 64})
    (error,) = verdict.errors
    assert error.field == "dflash_config.emb_dim"
    assert "differs from the top-level `emb_dim` = 64" in str(error)
    assert error.code is sglang_codes.DOMINO_FIELDS_INVALID
    # Only the top-level width: taken.
    only_top = {**DOMINO_SECTION}
    del only_top["emb_dim"]
    assert sglang({**draft(DFLASH, dflash_config=only_top), "emb_dim": 64}).ok


def test_a_domino_draft_without_shift_label_is_refused_naming_the_nested_field() -> None:
    section = {key: value for key, value in DOMINO_SECTION.items() if key != "shift_label"}
    (error,) = sglang(draft(DFLASH, dflash_config=section)).errors
    assert error.field == "dflash_config.shift_label"
    assert "must be a bool for Domino" in str(error)
    assert error.fix == "set `dflash_config.shift_label` to true or false"
