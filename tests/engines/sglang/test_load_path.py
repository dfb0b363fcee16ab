"""What SGLang 0.5.23 loads for a draft and how it serves it, along its load path: the
DeepSeek-V4 checkpoint that bundles its DSpark head, the plain causal LM served as
STANDALONE, the class it takes from ``architectures``, the config loader's ``model_type``
and defaults, ``mask_embedding.pt``, and the layer failures listed together (issue 29)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Final

import pytest

import drafting_config
from drafting_config.values.codes import (
    SEQUENTIAL_NOT_PARALLEL,
    TOKEN_UNUSED,
    VOCAB_DIFFERS_FROM_TARGET,
)
from drafting_config.verdicts import Verdict
from tests.conftest import QWEN3_8B_DFLASH_DRAFT
from tests.engines.sglang.test_finding_contract import _violations
from tests.serve_commands import sglang_algorithm

CORPUS = Path(__file__).resolve().parents[2] / "real_configs"
DEEPSEEK_V4: dict[str, Any] = json.loads(
    (CORPUS / "synthesized_targets" / "deepseek-v4-flash.json").read_text(encoding="utf-8")
)
BUNDLED = {
    "dspark_block_size": 5,
    "dspark_markov_rank": 256,
    "dspark_noise_token_id": 128799,
    "dspark_target_layer_ids": [40, 41, 42],
}


def sglang(config: object, **options: Any) -> Verdict:
    options.setdefault("check_weights", False)
    return drafting_config.check(config, engine="sglang", **options)


def codes(verdict: Verdict) -> list[str]:
    return [str(e.code) for e in verdict.errors]


# --- a DeepSeek-V4 checkpoint bundling its DSpark head -----------------------------------------


def test_a_deepseek_v4_checkpoint_bundling_its_dspark_head_is_served_as_dspark() -> None:
    # model_config.py: _config_draft_model rewrites DeepseekV4ForCausalLM to
    # DeepseekV4ForCausalLMDSpark, which sizes its projection by dspark_target_layer_ids.
    config = {**DEEPSEEK_V4, **BUNDLED}
    for target in (None, DEEPSEEK_V4):
        verdict = sglang(config, target=target)
        assert verdict.errors == (), [str(e) for e in verdict.errors]
        assert (verdict.ok, verdict.mode) == (True, "dspark")
        assert sglang_algorithm(verdict.serve_with) == "DSPARK"
        assert (verdict.token_id, verdict.token_source) == (128799, "dspark_noise_token_id")


@pytest.mark.parametrize("key", sorted(BUNDLED))
def test_any_one_of_the_four_dspark_keys_marks_the_bundle(key: str) -> None:
    # checkpoint_bundles_dspark_draft: any one key not null. The class needs a Markov rank
    # and DSpark a token id, whatever key marks the bundle.
    config = {**DEEPSEEK_V4, key: BUNDLED[key], "markov_rank": 256, "mask_token_id": 128799}
    verdict = sglang(config)
    assert (verdict.mode, verdict.algorithm) == ("dspark", "DSPARK"), codes(verdict)
    assert verdict.ok, [str(e) for e in verdict.errors]


def test_a_deepseek_v4_checkpoint_without_the_keys_is_no_dspark_draft() -> None:
    # Null keys do not count; without them SGLang loads the MTP head instead.
    nulls = dict.fromkeys(BUNDLED)
    for config in (DEEPSEEK_V4, {**DEEPSEEK_V4, **nulls}):
        verdict = sglang(config)
        assert not verdict.ok
        assert verdict.mode is None  # nor a STANDALONE draft: an MTP head is no plain LM


def test_only_architectures_0_is_rewritten() -> None:
    config = {**copy.deepcopy(DEEPSEEK_V4), **BUNDLED}
    config["architectures"] = ["DeepseekV3ForCausalLM", "DeepseekV4ForCausalLM"]
    assert sglang(config).mode != "dspark"


# --- the class SGLang takes from architectures --------------------------------------------------

DFLASH: Final = QWEN3_8B_DFLASH_DRAFT  # shallow copies only ({**DFLASH, ...})


def test_sglang_loads_the_first_registered_class_of_architectures() -> None:
    # registry.py: resolve_model_cls takes the first registered name; a registered class
    # that is no drafter, listed first, is the one loaded.
    first = sglang({**DFLASH, "architectures": ["Qwen3ForCausalLM", "DFlashDraftModel"]})
    assert codes(first) == ["architecture-not-drafter"]
    assert first.errors[0].field == "architectures"
    # An unregistered name is skipped (registry.py: _normalize_archs).
    skipped = sglang({**DFLASH, "architectures": ["MyDraftModel", "DFlashDraftModel"]})
    assert skipped.ok, [str(e) for e in skipped.errors]


# --- STANDALONE: a plain causal LM as the draft model --------------------------------------------

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
LLAMA_TARGET: dict[str, Any] = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 4096,
    "num_hidden_layers": 32,
    "vocab_size": 128256,
}


def test_a_pard_draft_is_served_as_standalone_its_token_unused() -> None:
    # standalone_worker_v2.py: StandaloneDraftWorker builds any registered causal LM with
    # its own embeddings and lm_head; nothing in SGLang reads pard_token.
    verdict = sglang(EXAMPLES / "pard-llama3-1b")
    assert verdict.errors == ()
    assert sglang_algorithm(verdict.serve_with) == "STANDALONE"
    assert (verdict.ok, verdict.mode, verdict.parallel) == (
        True,
        "standalone",
        False,
    )
    (warning,) = verdict.warnings
    assert (warning.code, warning.field) == (TOKEN_UNUSED, "pard_token")
    assert "as sequential STANDALONE" in str(warning)
    assert str(warning.evidence).startswith("srt/speculative/standalone_worker_v2.py")


def test_with_require_parallel_a_standalone_draft_is_an_error() -> None:
    verdict = sglang(EXAMPLES / "pard-llama3-1b", require_parallel=True)
    (error,) = verdict.errors
    assert (error.code, error.field) == (SEQUENTIAL_NOT_PARALLEL, "pard_token")
    assert error.fix is not None
    assert verdict.mode is None


def test_a_standalone_draft_must_share_the_targets_vocabulary() -> None:
    # StandaloneWorkerV2._validate_vocab_compatibility raises ValueError.
    config = json.loads((EXAMPLES / "pard-llama3-1b" / "config.json").read_text("utf-8"))
    assert sglang(config, target=LLAMA_TARGET).ok
    verdict = sglang(config, target={**LLAMA_TARGET, "vocab_size": 128000})
    (error,) = verdict.errors
    assert (error.code, error.field) == (VOCAB_DIFFERS_FROM_TARGET, "vocab_size")
    assert "128256" in str(error)
    assert "128000" in str(error)
    assert "_validate_vocab_compatibility" in str(error.evidence)


@pytest.mark.parametrize(
    ("architectures", "mode"),
    [
        (["LlamaForCausalLM"], "standalone"),
        (["Qwen3ForCausalLM"], "standalone"),
        (["Qwen3MoeForCausalLM"], None),  # rewritten to its MTP head as a draft
        (["LlamaForCausalLMEagle"], "eagle"),  # an EAGLE head, fed by the target
        (["MyModelForCausalLM"], None),  # registered by no SGLang module
    ],
)
def test_standalone_serves_registered_plain_causal_lms(
    architectures: list[str], mode: str | None
) -> None:
    config = {**LLAMA_TARGET, "architectures": architectures, "model_type": "llama"}
    verdict = sglang(config)
    assert verdict.mode == mode
    assert verdict.ok is (mode is not None)


# --- the config loader ---------------------------------------------------------------------------


@pytest.mark.parametrize("model_type", [None, 7, ["qwen3"]])
def test_a_model_type_that_is_no_string_fails_sglangs_config_loader(model_type: object) -> None:
    # transformers 5's AutoConfig.from_pretrained looks a present model_type up in
    # CONFIG_MAPPING whatever it is: KeyError, raised as ValueError; vLLM refuses it too.
    verdict = sglang({**DFLASH, "model_type": model_type})
    assert [(str(e.code), e.field) for e in verdict.errors] == [
        ("model-type-not-string", "model_type")
    ]
    assert verdict.errors[0].fix is not None
    if model_type is not None:
        vllm = drafting_config.check({**DFLASH, "model_type": model_type}, check_weights=False)
        assert "model-type-not-string" in [str(e.code) for e in vllm.errors]


def test_a_model_type_that_is_no_string_with_remote_code_is_a_warning() -> None:
    config = {**DFLASH, "model_type": None, "auto_map": {"AutoConfig": "m.Config"}}
    verdict = sglang(config)
    assert verdict.ok
    assert "model-type-remote-code" in [str(w.code) for w in verdict.warnings]


@pytest.mark.parametrize("field", ["hidden_size", "num_hidden_layers"])
def test_a_size_the_file_omits_takes_the_config_classs_default(field: str) -> None:
    # AutoConfig builds a Qwen3Config, whose defaults the draft class reads: SGLang starts;
    # the width may not be the draft's, a warning.
    config = {key: value for key, value in DFLASH.items() if key != field}
    verdict = sglang(config)
    assert verdict.ok, [str(e) for e in verdict.errors]
    [warning] = [w for w in verdict.warnings if str(w.code) == "size-from-config-default"]
    assert warning.field == field
    assert "'qwen3' config class" in str(warning)
    assert warning.fix == f"set `{field}` to the draft model's " + (
        "hidden size" if field == "hidden_size" else "number of layers"
    )


# --- mask_embedding.pt -------------------------------------------------------------------------


def _with_mask_embedding(tmp_path: Path, saved: object) -> Path:
    torch = pytest.importorskip("torch")
    torch.save(saved, tmp_path / "mask_embedding.pt")
    (tmp_path / "config.json").write_text(json.dumps(DFLASH), encoding="utf-8")
    return tmp_path


def test_a_per_position_mask_embedding_is_refused(tmp_path: Path) -> None:
    # DFlashWorkerV2._maybe_merge_trained_mask_embedding raises NotImplementedError.
    torch = pytest.importorskip("torch")
    saved = {"embedding": torch.zeros(4096), "mask_token_id": 151669, "per_position": True}
    verdict = sglang(_with_mask_embedding(tmp_path, saved), check_weights=True)
    [error] = [e for e in verdict.errors if str(e.code) == "mask-embedding-invalid"]
    assert "per_position" in str(error)
    assert "NotImplementedError" in str(error.evidence)
    assert error.fix is not None
    saved["per_position"] = False
    assert sglang(_with_mask_embedding(tmp_path, saved), check_weights=True).ok


@pytest.mark.parametrize(
    ("shape", "refused"),
    [((4096,), False), ((16,), True), ((1, 4096), True), ((1,), True), ((), True)],
)
def test_a_mask_embedding_must_be_one_row_of_hidden_size_values(
    tmp_path: Path, shape: tuple[int, ...], refused: bool
) -> None:
    # It is copied into embed_module.weight[token_id]: another shape raises RuntimeError,
    # one value fills the row.
    torch = pytest.importorskip("torch")
    saved = {"embedding": torch.zeros(shape), "mask_token_id": 151669}
    verdict = sglang(_with_mask_embedding(tmp_path, saved), check_weights=True)
    sizes = [e for e in verdict.errors if str(e.code) == "mask-embedding-size"]
    assert bool(sizes) is refused
    assert verdict.ok is not refused
    if refused:
        assert sizes[0].field == "hidden_size"
        assert "[4096]" in str(sizes[0])
        one_value = shape in {(), (1,)}  # fills the row with that value; else copy_ raises
        assert ("silently fills" in str(sizes[0])) is one_value
        assert ("raises RuntimeError" in str(sizes[0].evidence)) is not one_value


# --- the finding contract, for the findings above ----------------------------------------------


def test_the_findings_of_these_rules_follow_the_finding_contract(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    pard = EXAMPLES / "pard-llama3-1b"
    pard_config = json.loads((pard / "config.json").read_text("utf-8"))
    verdicts = [
        sglang(pard),
        sglang(pard, require_parallel=True),
        sglang(pard_config, target={**LLAMA_TARGET, "vocab_size": 128000}),
        sglang({**DFLASH, "model_type": None}),
        sglang({**DFLASH, "model_type": None, "auto_map": {"AutoConfig": "m.Config"}}),
        sglang({key: value for key, value in DFLASH.items() if key != "hidden_size"}),
        sglang({**DFLASH, "architectures": ["Qwen3ForCausalLM", "DFlashDraftModel"]}),
    ]
    for saved in (
        {"embedding": torch.zeros(4096), "mask_token_id": 151669, "per_position": True},
        {"embedding": torch.zeros(16), "mask_token_id": 151669},
        {"embedding": torch.zeros(1), "mask_token_id": 151669},
        {"embedding": [0.0] * 4096, "mask_token_id": 151669},
    ):
        verdicts.append(sglang(_with_mask_embedding(tmp_path, saved), check_weights=True))
    found = [
        (kind, finding)
        for verdict in verdicts
        for kind, findings in (("error", verdict.errors), ("warning", verdict.warnings))
        for finding in findings
    ]
    reached = {str(getattr(finding, "code", None)) for _, finding in found}
    assert {
        "token-unused",
        "sequential-not-parallel",
        "vocab-differs-from-target",
        "model-type-not-string",
        "size-from-config-default",
        "mask-embedding-invalid",
        "mask-embedding-size",
    } <= reached
    broken = {str(f): wrong for kind, f in found if (wrong := _violations(kind, f))}
    assert broken == {}


# --- layer failures -------------------------------------------------------------------------------

QWEN3_TARGET: dict[str, Any] = {
    "architectures": ["Qwen3ForCausalLM"],
    "model_type": "qwen3",
    "hidden_size": 4096,
    "num_hidden_layers": 36,
    "vocab_size": 151936,
}


def _with_layers(ids: list[int], **changes: Any) -> dict[str, Any]:
    config = copy.deepcopy(DFLASH)
    config["dflash_config"]["target_layer_ids"] = ids
    config.update(changes)
    return config


def test_every_certain_layer_failure_is_listed_not_only_the_first() -> None:
    # The target worker refuses id 40 of a 36-layer target; the draft's hidden size is not
    # the target's either: both are listed.
    verdict = sglang(_with_layers([1, 9, 17, 25, 40]), target={**QWEN3_TARGET, "hidden_size": 2048})
    assert codes(verdict) == ["layer-id-out-of-range", "hidden-size-mismatch"]


@pytest.mark.parametrize("target", [None, QWEN3_TARGET])
def test_a_negative_layer_id_is_blamed_on_the_layer_ids_with_a_fix_that_fixes_it(
    target: dict[str, Any] | None,
) -> None:
    config = _with_layers([1, 9, 17, 25, -1], num_target_layers=36)
    verdict = sglang(config, target=target)
    (error,) = verdict.errors
    assert (str(error.code), error.field) == (
        "layer-id-out-of-range",
        "dflash_config.target_layer_ids",
    )
    assert error.fix == "replace -1 with 35, the same layer counted from 0"
    fixed = sglang(_with_layers([1, 9, 17, 25, 35], num_target_layers=36), target=target)
    assert "layer-id-out-of-range" not in codes(fixed)
    without_depth = sglang(_with_layers([1, 9, 17, 25, -1]), target=target)
    assert without_depth.errors[0].field == "dflash_config.target_layer_ids"


@pytest.mark.parametrize(
    "extra",
    [
        {"num_loops": 1.0},
        {"num_loops": -1},
        {"num_loops": True},
        {"padded_vocab_size": "152064"},
        {"padded_vocab_size": 0},
    ],
)
def test_the_targets_num_loops_and_padded_vocab_size_never_fail_an_sglang_verdict(
    extra: dict[str, object],
) -> None:
    # Values that are no positive int32 count as unset (drafting_config/draft/target.py): the
    # depth stays num_hidden_layers (spec_aux_hidden_state.py multiplies by int(num_loops),
    # 1 for 1.0), DSpark's bound the vocab_size.
    verdict = sglang(DFLASH, target={**QWEN3_TARGET, **extra})
    assert verdict.ok, [str(e) for e in verdict.errors]
    assert verdict.aux_layer_ids == (2, 10, 18, 26, 34)


def test_a_null_noise_token_above_the_winner_is_read_as_null_not_skipped_unread() -> None:
    # parse_dspark_draft_config skips a null `dspark_noise_token_id` and reads on: it was
    # read (null), unlike the fields below the winner.
    config = json.loads((EXAMPLES / "dspark-qwen3-8b" / "config.json").read_text())
    config["dspark_noise_token_id"] = None
    verdict = drafting_config.check(config, engine="sglang", check_tokenizer=False)
    rows = [(row.field, row.status) for row in verdict.token_fields or ()]
    assert rows[0] == ("dspark_noise_token_id", "null")
    assert rows[-1] == ("mask_token_id", "winner")
    config["dspark_config"] = {"mask_token_id": 7}
    verdict = drafting_config.check(config, engine="sglang", check_tokenizer=False)
    rows = [(row.field, row.status) for row in verdict.token_fields or ()]
    assert rows[0] == ("dspark_noise_token_id", "null")
    assert rows[1] == ("dspark_config.mask_token_id", "winner")
    assert rows[-1] == ("mask_token_id", "not read")
