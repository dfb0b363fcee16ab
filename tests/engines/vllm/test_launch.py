"""vLLM's launch rules (:mod:`drafting_config.engines.vllm.launch`): a user's ``vllm serve``
line judged against the draft, per release.  Each rule has a test that fails without it;
releases are derived from :data:`~drafting_config.engines.vllm.names.VERSIONS` and the gates
of :mod:`~drafting_config.engines.vllm.names`."""

from __future__ import annotations

import json
from typing import Any, Final

import pytest

from drafting_config import check
from drafting_config.engines.vllm import codes as vllm_codes
from drafting_config.engines.vllm.launch import launch_facts, read_launch
from drafting_config.engines.vllm.names import (
    CHECKS_DECLARED_SPECULATOR,
    DROPS_HETEROGENEOUS_VOCAB,
    REFUSES_PARALLEL_SWITCH,
    VERSIONS,
    last_before,
    since,
)
from drafting_config.engines.vllm.tables import vllm_tables
from drafting_config.values import codes
from drafting_config.values.launch import Launch, LaunchError
from drafting_config.verdicts import Verdict
from tests.conftest import EXAMPLES
from tests.engines.vllm.test_draft_models import QWEN2_1_5B, QWEN2_32B
from tests.engines.vllm.test_layers import OMNI

DFLASH: Final = str(EXAMPLES / "dflash-qwen3-4b")
DSPARK: Final = str(EXAMPLES / "dspark-qwen3-8b")
PTD: Final = str(EXAMPLES / "ptd-eagle3-llama3-8b")
PARD: Final = str(EXAMPLES / "pard-llama3-1b")

REFUSING: Final = next(v for v in VERSIONS if since(v, REFUSES_PARALLEL_SWITCH))
OLDER: Final = last_before(REFUSES_PARALLEL_SWITCH)


def _check(draft: object, config: dict[str, Any], version: str, *extra: str) -> Verdict:
    words = ("--speculative-config", json.dumps(config), *extra)
    return check(
        draft,
        engine=f"vllm=={version}",  # type: ignore[arg-type]
        launch=words,
        check_tokenizer=False,
        check_weights=False,
    )


def _codes(verdict: Verdict) -> list[str]:
    return [e.code.name for e in verdict.errors if e.code is not None]


def _warned(verdict: Verdict) -> list[str]:
    return [w.code.name for w in verdict.warnings if w.code is not None]


def _launch_of(draft: str, tokens: int = 15, **more: object) -> dict[str, Any]:
    return {"method": "dflash", "model": draft, "num_speculative_tokens": tokens, **more}


@pytest.mark.parametrize("version", VERSIONS)
def test_a_launch_that_fits_the_draft_adds_no_finding(version: str) -> None:
    verdict = _check(DFLASH, _launch_of(DFLASH), version)
    assert verdict.ok, [str(e) for e in verdict.errors]
    assert not [w for w in verdict.warnings if w.code and w.code.name.startswith("launch-")]


@pytest.mark.parametrize("version", VERSIONS)
def test_a_dflash_launch_without_num_speculative_tokens_is_an_error(version: str) -> None:
    verdict = _check(DFLASH, {"method": "dflash", "model": DFLASH}, version)
    (error,) = verdict.errors
    assert error.code is vllm_codes.LAUNCH_TOKENS_MISSING
    assert error.field == "--speculative-config.num_speculative_tokens"
    assert error.fix is not None
    assert '"num_speculative_tokens": 15' in error.fix
    assert "_verify_args" in (error.evidence or "")


@pytest.mark.parametrize("version", VERSIONS)
def test_dspark_takes_its_tokens_and_its_model_from_elsewhere(version: str) -> None:
    # DSpark's tokens default to its block size, and without "model" the draft comes from
    # the target's checkpoint: neither is an error.
    assert "launch-tokens-missing" not in _codes(
        _check(DSPARK, {"method": "dspark", "model": DSPARK}, version)
    )
    assert "launch-model-missing" not in _codes(
        _check(DSPARK, {"method": "dspark", "num_speculative_tokens": 7}, version)
    )


@pytest.mark.parametrize("version", VERSIONS)
def test_tokens_without_a_model_is_an_error_citing_the_release(version: str) -> None:
    verdict = _check(DFLASH, {"method": "dflash", "num_speculative_tokens": 15}, version)
    (error,) = verdict.errors
    assert error.code is vllm_codes.LAUNCH_MODEL_MISSING
    where = (
        "DraftModelSpeculatorConfig"
        if since(version, REFUSES_PARALLEL_SWITCH)
        else ("__post_init__")
    )
    assert where in (error.evidence or "")
    assert version in (error.evidence or "")


@pytest.mark.parametrize("version", VERSIONS)
def test_a_dflash_draft_launched_as_dspark_is_a_method_error(version: str) -> None:
    verdict = _check(DFLASH, _launch_of(DFLASH, method="dspark"), version)
    assert _codes(verdict) == ["launch-method-mismatch"]
    assert verdict.errors[0].fix == 'set "method": "dflash" in --speculative-config'


@pytest.mark.parametrize("version", VERSIONS)
def test_a_dspark_draft_launched_as_dflash_is_a_method_error(version: str) -> None:
    config = {"method": "dflash", "model": DSPARK, "num_speculative_tokens": 7}
    assert "launch-method-mismatch" in _codes(_check(DSPARK, config, version))


@pytest.mark.parametrize("version", VERSIONS)
def test_a_draft_model_launched_with_a_drafter_method_is_a_method_error(version: str) -> None:
    config = {"method": "eagle3", "model": PARD, "num_speculative_tokens": 3}
    assert "launch-method-mismatch" in _codes(_check(PARD, config, version))


@pytest.mark.parametrize("version", VERSIONS)
def test_an_eagle3_head_launched_as_eagle_is_a_method_error(version: str) -> None:
    config = {"method": "eagle", "model": PTD, "num_speculative_tokens": 3}
    assert "launch-method-mismatch" in _codes(_check(PTD, config, version))


@pytest.mark.parametrize("version", VERSIONS)
def test_a_launch_without_method_is_judged_as_the_release_guesses_it(version: str) -> None:
    # A model path with "dflash" in it is guessed dflash by every release: no error.
    assert _check(DFLASH, {"model": DFLASH, "num_speculative_tokens": 15}, version).ok


def test_the_declared_speculator_decides_the_guess_from_its_release_on() -> None:
    # A DFlash draft under a neutral name: the older releases guess draft_model from the
    # name; from the release that checks the declared speculator on, its class
    # (DFlashDraftModel's row declares dflash) decides.
    neutral = {"model": "/models/drafter", "num_speculative_tokens": 15}
    guessed = {v: "launch-method-mismatch" in _codes(_check(DFLASH, neutral, v)) for v in VERSIONS}
    assert guessed == {v: not since(v, CHECKS_DECLARED_SPECULATOR) for v in VERSIONS}
    error = _check(DFLASH, neutral, OLDER).errors[0]
    assert "guess" in str(error)
    assert "'draft_model'" in str(error)


@pytest.mark.parametrize("version", VERSIONS)
def test_a_method_the_release_does_not_have_is_an_error(version: str) -> None:
    verdict = _check(DFLASH, _launch_of(DFLASH, method="medusa2"), version)
    assert _codes(verdict) == ["launch-method-unknown"]


def test_a_method_is_known_per_release() -> None:
    # "custom_class" is a method until the release that replaces it by custom speculators.
    known = {v: "custom_class" in vllm_tables(v).methods for v in VERSIONS}
    assert any(known.values())
    assert not all(known.values())
    for version, has in known.items():
        config = _launch_of(DFLASH, method="custom_class")
        assert ("launch-method-unknown" in _codes(_check(DFLASH, config, version))) is not has


def test_parallel_drafting_for_eagle3_is_refused_from_the_release_that_refuses_it() -> None:
    config = {
        "method": "eagle3",
        "model": PTD,
        "num_speculative_tokens": 3,
        "parallel_drafting": True,
    }
    for version in VERSIONS:
        refused = "launch-parallel-refused" in _codes(_check(PTD, config, version))
        assert refused is since(version, REFUSES_PARALLEL_SWITCH), version
    error = next(
        e
        for e in _check(PTD, config, REFUSING).errors
        if e.code is vllm_codes.LAUNCH_PARALLEL_REFUSED
    )
    assert error.field == "--speculative-config.parallel_drafting"
    assert REFUSING in (error.fix or "")
    assert REFUSING in (error.evidence or "")


def test_parallel_drafting_stays_allowed_for_dflash() -> None:
    for version in VERSIONS:
        verdict = _check(DFLASH, _launch_of(DFLASH, parallel_drafting=True), version)
        assert "launch-parallel-refused" not in _codes(verdict)


def test_a_ptd_draft_launched_without_the_switch_is_warned_where_the_switch_exists() -> None:
    config = {"method": "eagle3", "model": PTD, "num_speculative_tokens": 3}
    for version in VERSIONS:
        warned = "launch-parallel-off" in _warned(_check(PTD, config, version))
        assert warned is not since(version, REFUSES_PARALLEL_SWITCH), version
    switched = {**config, "parallel_drafting": True}
    assert "launch-parallel-off" not in _warned(_check(PTD, switched, OLDER))


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("tokens", [0, -3])
def test_a_number_of_tokens_not_positive_is_refused(version: str, tokens: int) -> None:
    # SpeculativeConfig.num_speculative_tokens is Field(default=None, gt=0): pydantic refuses
    # it at config (tests/real_configs/launch_readings.json, case vllm-tokens-zero).
    verdict = _check(DFLASH, _launch_of(DFLASH, tokens=tokens), version)
    (error,) = verdict.errors
    assert error.code is vllm_codes.LAUNCH_TOKENS_REFUSED
    assert error.field == "--speculative-config.num_speculative_tokens"
    assert f"gt=0; vLLM {version}" in (error.evidence or "")


@pytest.mark.parametrize("version", VERSIONS)
def test_another_number_of_tokens_than_the_draft_block_is_a_warning(version: str) -> None:
    verdict = _check(DFLASH, _launch_of(DFLASH, tokens=7), version)
    assert verdict.ok
    (warning,) = [w for w in verdict.warnings if w.code is codes.LAUNCH_TOKENS_DIFFER]
    assert "15" in str(warning)


@pytest.mark.parametrize("version", VERSIONS)
def test_tokens_not_a_multiple_of_n_predict_are_refused(version: str) -> None:
    draft = {**json.loads((EXAMPLES / "pard-llama3-1b/config.json").read_text()), "n_predict": 2}
    config = {"method": "draft_model", "model": PARD, "num_speculative_tokens": 5}
    assert "launch-tokens-refused" in _codes(_check(draft, config, version))
    config["num_speculative_tokens"] = 4
    assert "launch-tokens-refused" not in _codes(_check(draft, config, version))


@pytest.mark.parametrize("version", VERSIONS)
def test_the_draft_tensor_parallel_size_is_judged(version: str) -> None:
    # tensor_parallel_size is not a key; a draft size neither 1 nor the target's; one that
    # does not divide the draft's 32 heads (the target's -tp 3).
    assert "launch-draft-tp" in _codes(
        _check(DFLASH, _launch_of(DFLASH, tensor_parallel_size=2), version)
    )
    assert "launch-draft-tp" in _codes(
        _check(DFLASH, _launch_of(DFLASH, draft_tensor_parallel_size=2), version, "-tp", "4")
    )
    assert "launch-draft-tp" in _codes(_check(DFLASH, _launch_of(DFLASH), version, "-tp", "3"))
    assert "launch-draft-tp" not in _codes(
        _check(DFLASH, _launch_of(DFLASH, draft_tensor_parallel_size=1), version, "-tp", "3")
    )


@pytest.mark.parametrize("version", VERSIONS)
def test_a_max_model_len_above_the_draft_is_refused(version: str) -> None:
    verdict = _check(DFLASH, _launch_of(DFLASH, max_model_len=40961), version)
    assert _codes(verdict) == ["launch-max-model-len"]
    assert _check(DFLASH, _launch_of(DFLASH, max_model_len=40960), version).ok


def test_use_heterogeneous_vocab_is_judged_while_it_exists() -> None:
    base = {"model": PARD, "num_speculative_tokens": 3, "use_heterogeneous_vocab": True}
    for version in VERSIONS:
        wrong = _codes(_check(PARD, {**base, "method": "eagle3"}, version))
        sampled = _codes(
            _check(
                PARD,
                {**base, "method": "draft_model", "draft_sample_method": "probabilistic"},
                version,
            )
        )
        if since(version, DROPS_HETEROGENEOUS_VOCAB):
            assert "launch-option-unknown" in wrong
            assert "launch-option-unknown" in sampled
        else:
            assert "launch-vocab-setting" in wrong
            assert "launch-vocab-setting" in sampled
            greedy = _codes(_check(PARD, {**base, "method": "draft_model"}, version))
            assert "launch-vocab-setting" not in greedy


@pytest.mark.parametrize("version", VERSIONS)
def test_an_option_or_key_the_release_does_not_know_is_an_error(version: str) -> None:
    verdict = _check(DFLASH, _launch_of(DFLASH, speed="max"), version, "--frobnicate", "1")
    assert _codes(verdict) == ["launch-option-unknown", "launch-option-unknown"]
    assert [e.field for e in verdict.errors] == ["--frobnicate", "--speculative-config.speed"]
    assert all(version in (e.evidence or "") for e in verdict.errors)


def test_a_key_is_known_per_release() -> None:
    # xpress_topc came in a later release than the oldest shipped.
    knows = {v: "xpress_topc" in vllm_tables(v).speculative_fields for v in VERSIONS}
    assert not all(knows.values())
    for version, known in knows.items():
        verdict = _check(DFLASH, _launch_of(DFLASH, xpress_topc=4), version)
        assert ("launch-option-unknown" in _codes(verdict)) is not known


@pytest.mark.parametrize("version", VERSIONS)
def test_serve_options_are_read_as_vllm_reads_them(version: str) -> None:
    # underscores, --no- flags, short aliases, unique prefixes, the frontend's options and
    # FlexibleArgumentParser's -O3 all pass.
    extra = (
        "--max_model_len",
        "4096",
        "--no-enforce-eager",
        "-tp",
        "1",
        "--gpu-memory-util",
        "0.8",
        "--host",
        "0.0.0.0",
        "--port",
        "8000",
        "--api-key",
        "k",
        "-O3",
    )
    assert _check(DFLASH, _launch_of(DFLASH), version, *extra).ok


def test_an_option_every_release_dropped_is_refused() -> None:
    # --swap-space is in no shipped release's parser.
    for version in VERSIONS:
        verdict = _check(DFLASH, _launch_of(DFLASH), version, "--swap-space", "4")
        assert _codes(verdict) == ["launch-option-unknown"]


def test_a_whole_launch_gives_the_target_and_the_draft() -> None:
    line = (
        f"vllm serve Qwen/Qwen3-4B --speculative-config "
        f"'{json.dumps(_launch_of(DFLASH))}' --max-model-len 8192"
    )
    facts = launch_facts(Launch(tuple(__import__("shlex").split(line))))
    assert (facts.ours, facts.target, facts.draft) == (True, "Qwen/Qwen3-4B", DFLASH)
    verdict = check(DFLASH, launch=line, check_weights=False, check_tokenizer=False)
    assert verdict.target == "Qwen/Qwen3-4B"


def test_the_dotted_form_sets_one_key() -> None:
    read = read_launch(
        Launch(
            (
                "--speculative-config",
                '{"method": "dflash"}',
                "--speculative-config.num_speculative_tokens",
                "7",
            )
        )
    )
    assert read.config == {"method": "dflash", "num_speculative_tokens": 7}


def test_another_programs_launch_is_an_error_of_the_verdict() -> None:
    verdict = check(
        DFLASH, launch="python -m sglang.launch_server --model-path X", check_weights=False
    )
    assert "launch-other-engine" in _codes(verdict)


def test_a_launch_of_another_draft_is_a_warning() -> None:
    verdict = _check(DFLASH, _launch_of(DSPARK), VERSIONS[-1])
    assert "launch-draft-differs" in _warned(verdict)


def test_malformed_json_is_the_callers_error() -> None:
    with pytest.raises(LaunchError, match=r"--speculative-config: .* is not JSON"):
        check(DFLASH, launch=("--speculative-config", '{"method": '))
    with pytest.raises(LaunchError, match="expected a JSON object"):
        check(DFLASH, launch=("--speculative-config", "[1]"))


_CONTRACT_CASES: Final = (
    (DFLASH, {"method": "dflash", "model": DFLASH}),
    (DFLASH, {"method": "dflash", "num_speculative_tokens": 15}),
    (DFLASH, _launch_of(DFLASH, method="dspark", tokens=7, speed=1, max_model_len=10**6)),
    (DFLASH, _launch_of(DFLASH, method="medusa2")),
    (DFLASH, _launch_of(DFLASH, tensor_parallel_size=2, draft_tensor_parallel_size=3)),
    (DFLASH, {"model": "/models/drafter", "num_speculative_tokens": 15}),
    (PTD, {"method": "eagle3", "model": PTD, "num_speculative_tokens": 3}),
    (
        PTD,
        {"method": "eagle3", "model": PTD, "num_speculative_tokens": 3, "parallel_drafting": True},
    ),
    (
        PARD,
        {
            "method": "eagle3",
            "model": PARD,
            "num_speculative_tokens": 3,
            "use_heterogeneous_vocab": True,
        },
    ),
)


def test_launch_findings_keep_the_finding_contract() -> None:
    # A declared code, the field at fault, a message of one short sentence naming no release
    # and no file, a lower-case fix, evidence naming the engine's file.
    seen = set()
    for draft, config in _CONTRACT_CASES:
        for version in VERSIONS:
            verdict = _check(draft, config, version, "--frobnicate", "-tp", "3")
            for finding in (*verdict.errors, *verdict.warnings):
                code = finding.code
                if code is None or not code.name.startswith("launch-"):
                    continue
                seen.add(code.name)
                message = str(finding)
                assert len(message) <= 140, message
                assert message.endswith("."), message
                assert ".py" not in message, message
                assert not any(v in message for v in VERSIONS), message
                assert finding.field, message
                assert finding.fix, message
                assert finding.fix[0].islower(), finding.fix
                assert not finding.fix.endswith("."), finding.fix
                if code is not codes.LAUNCH_DRAFT_DIFFERS:
                    assert ".py" in (finding.evidence or ""), (message, finding.evidence)
    assert {
        "launch-option-unknown",
        "launch-method-unknown",
        "launch-method-mismatch",
        "launch-parallel-refused",
        "launch-parallel-off",
        "launch-tokens-missing",
        "launch-model-missing",
        "launch-tokens-differ",
        "launch-draft-tp",
        "launch-max-model-len",
        "launch-vocab-setting",
    } <= seen


def test_an_accepted_heterogeneous_vocab_lets_a_draft_model_of_another_vocabulary_through() -> None:
    config = {
        "method": "draft_model",
        "model": "Qwen/Qwen2-1.5B",
        "num_speculative_tokens": 3,
        "use_heterogeneous_vocab": True,
    }
    for version in VERSIONS:
        verdict = check(
            QWEN2_1_5B,
            target=QWEN2_32B,
            engine=f"vllm=={version}",  # type: ignore[arg-type]
            launch=("--speculative-config", json.dumps(config)),
        )
        refused = "vocab-differs-from-target" in _codes(verdict)
        assert refused is since(version, DROPS_HETEROGENEOUS_VOCAB), version
        plain = check(QWEN2_1_5B, target=QWEN2_32B, engine=f"vllm=={version}")  # type: ignore[arg-type]
        assert "vocab-differs-from-target" in _codes(plain)


@pytest.mark.parametrize("version", VERSIONS)
def test_a_qwen3_omni_dspark_draft_must_be_launched_with_its_block(version: str) -> None:
    draft = json.loads((EXAMPLES / "dspark-qwen3-8b/config.json").read_text())
    draft["architectures"] = ["Qwen3OmniDSparkModel"]
    block = draft.get("block_size") or draft["dspark_block_size"]

    def launched(tokens: int) -> list[str]:
        config = {"method": "dspark", "model": "/d/omni-dspark", "num_speculative_tokens": tokens}
        verdict = check(
            draft,
            target=OMNI,
            engine=f"vllm=={version}",  # type: ignore[arg-type]
            launch=("--speculative-config", json.dumps(config)),
        )
        return _codes(verdict)

    assert "launch-tokens-refused" in launched(block - 1)
    assert "launch-tokens-refused" not in launched(block)


@pytest.mark.parametrize("version", VERSIONS)
def test_parallel_drafting_for_dflash_is_a_note_that_it_is_ignored(version: str) -> None:
    for switch in (True, False):
        verdict = _check(DFLASH, _launch_of(DFLASH, parallel_drafting=switch), version)
        assert verdict.ok
        (note,) = [
            n for n in verdict.notes if getattr(n, "code", None) is vllm_codes.LAUNCH_OPTION_IGNORED
        ]
        assert getattr(note, "field", None) == "--speculative-config.parallel_drafting"
    assert not [
        n
        for n in _check(DFLASH, _launch_of(DFLASH), version).notes
        if getattr(n, "code", None) is vllm_codes.LAUNCH_OPTION_IGNORED
    ]


@pytest.mark.parametrize("version", VERSIONS)
def test_a_dspark_draft_under_a_neutral_name_is_guessed_dspark(version: str) -> None:
    # 0.32.0 and 0.33.0 guess dspark from a qwen3 DSparkDraftModel; the newer release from
    # its class's declared speculator.
    config = {"model": "/models/drafter", "num_speculative_tokens": 8}
    assert "launch-method-mismatch" not in _codes(_check(DSPARK, config, version))


def test_the_other_draft_message_stays_short_whatever_the_paths() -> None:
    far = "/" + "very-long-folder-name/" * 10 + "draft"
    verdict = _check(DFLASH, _launch_of(far), VERSIONS[-1])
    (warning,) = [w for w in verdict.warnings if w.code is codes.LAUNCH_DRAFT_DIFFERS]
    assert len(str(warning)) <= 140
    assert far in (warning.fix or "")
