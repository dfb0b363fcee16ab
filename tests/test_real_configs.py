"""The corpus of real published draft configs in ``tests/real_configs/``.

Each draft there has one reading in ``vllm_readings.json``: what vLLM (the release its
``vllm_version`` names) does with it, read from vLLM's source (not run). These tests hold the
package to those readings, and hold the corpus itself together: every file has a reading and a
line in ``SOURCES.md``, and every reading names a file that exists. What vLLM itself does
when run on each draft (the harness's ``engine_runs`` in the same file) is tested in
``tests/tools/test_vllm_engine_runs.py``.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final, cast

import pytest

import drafting_config
from drafting_config import ParallelDraftingConfig
from drafting_config.engines.vllm.names import Release
from drafting_config.files.json_files import load_config_json
from drafting_config.runtime.vllm import get_parallel_drafting_token_id

CORPUS = Path(__file__).parent / "real_configs"
READINGS_FILE = CORPUS / "vllm_readings.json"


def _readings() -> list[dict[str, Any]]:
    document = json.loads(READINGS_FILE.read_text(encoding="utf-8"))
    readings: list[dict[str, Any]] = document["readings"]
    return readings


READINGS = _readings()

READ_ON: Final = cast(
    Release,
    "vllm==" + str(json.loads(READINGS_FILE.read_text(encoding="utf-8"))["vllm_version"]),
)
"""The release the readings were taken on, which the verdicts compared with them speak for."""


def _id(reading: dict[str, Any]) -> str:
    return str(reading["file"]).removeprefix("drafts/").removesuffix(".json")


def _config_files(folder: str) -> set[str]:
    return {f"{folder}/{path.name}" for path in (CORPUS / folder).iterdir()}


def test_every_draft_has_exactly_one_reading() -> None:
    files = [reading["file"] for reading in READINGS]
    assert len(files) == len(set(files))
    assert set(files) == _config_files("drafts")


def test_every_target_named_by_a_reading_exists_and_every_target_is_named() -> None:
    named = {reading["target"] for reading in READINGS if reading["target"] is not None}
    assert named == _config_files("targets")


def test_sources_names_every_file() -> None:
    sources = (CORPUS / "SOURCES.md").read_text(encoding="utf-8")
    for name in sorted(_config_files("drafts") | _config_files("targets")):
        assert f"| {name.split('/')[1]} |" in sources, name


def test_the_corpus_spans_at_least_four_publishers() -> None:
    assert len({reading["publisher"] for reading in READINGS}) >= 4
    assert len(READINGS) >= 15


@pytest.mark.parametrize("reading", READINGS, ids=_id)
def test_check_resolves_the_token_id_vllm_resolves(reading: dict[str, Any]) -> None:
    target = reading["target"]
    verdict = drafting_config.check(
        CORPUS / reading["file"],
        target=None if target is None else CORPUS / target,
        engine=READ_ON,
    )
    # vLLM resolves an id, or raises (ValueError; TypeError on a present null); check()
    # gives the same id, or none.
    if reading["token_exception"] is None:
        assert verdict.token_id == reading["token_id"]
    else:
        assert reading["token_exception"] in ("ValueError", "TypeError")
        assert verdict.token_id is None


def _expected_layers(reading: dict[str, Any]) -> tuple[int, ...] | None:
    layers = reading["aux_layer_ids"]
    return None if layers is None else tuple(layers)


@contextmanager
def _warnings_aside() -> Iterator[None]:
    # The token entry points warn about placeholders (LongCat's mask id is its eos id);
    # the warnings are check()'s business, and these tests are about the token id.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", drafting_config.ParallelDraftingConfigWarning)
        yield


def _target(reading: dict[str, Any]) -> Path | None:
    target = reading["target"]
    return None if target is None else CORPUS / target


@pytest.mark.parametrize("reading", READINGS, ids=_id)
def test_the_token_entry_points_resolve_the_token_id_vllm_resolves(
    reading: dict[str, Any],
) -> None:
    # The model and the drop-ins check the token id and nothing more, so a config whose
    # token id vLLM resolves is never refused by them.
    config = load_config_json(CORPUS / reading["file"])
    if reading["token_exception"] is None:
        with _warnings_aside():
            model = ParallelDraftingConfig.from_hf_config(config)
            assert get_parallel_drafting_token_id(config) == reading["token_id"]
        assert model.token_id == reading["token_id"]
    else:
        # vLLM raises ValueError; the drop-in raises our error, a ValueError.
        with pytest.raises(drafting_config.ParallelDraftingConfigError):
            get_parallel_drafting_token_id(config)
        with pytest.raises(drafting_config.ParallelDraftingConfigError):
            ParallelDraftingConfig.from_hf_config(config)


@pytest.mark.parametrize("reading", READINGS, ids=_id)
def test_check_resolves_the_tapped_layers_the_serving_runner_returns(
    reading: dict[str, Any],
) -> None:
    verdict = drafting_config.check(
        CORPUS / reading["file"], target=_target(reading), engine=READ_ON
    )
    assert verdict.resolution is not None
    assert verdict.resolution.aux_layer_ids == _expected_layers(reading)
    assert verdict.resolution.aux_layer_source == reading["aux_layer_source"]


@pytest.mark.parametrize("reading", [r for r in READINGS if r["token_exception"] is None], ids=_id)
def test_the_model_resolves_the_tapped_layers_the_serving_runner_returns(
    reading: dict[str, Any],
) -> None:
    with _warnings_aside():
        model = ParallelDraftingConfig.from_hf_config(load_config_json(CORPUS / reading["file"]))
    assert model.aux_layer_ids == _expected_layers(reading)
    assert model.aux_layer_source == reading["aux_layer_source"]


@pytest.mark.parametrize("reading", READINGS, ids=_id)
def test_check_reports_exactly_the_recorded_errors(reading: dict[str, Any]) -> None:
    # On a broken draft, the recorded errors and only them: every step of vLLM's load path
    # that certainly fails on the load path, in the order check() lists them, each as its
    # code and field (the facts; the wording of a message may change without a reading).
    verdict = drafting_config.check(
        CORPUS / reading["file"], target=_target(reading), engine=READ_ON
    )
    assert [f"{error.code} {error.field}" for error in verdict.errors] == reading["check_errors"]


def test_no_error_is_recorded_for_a_draft_vllm_loads_for_parallel_drafting() -> None:
    # The readings themselves keep the rule: a false error on a draft vLLM serves is
    # the worst defect this project can have.
    served = [r for r in READINGS if r["vllm_loads"] and r["token_exception"] is None]
    assert served
    assert [r["file"] for r in served if r["check_errors"]] == []


@pytest.mark.parametrize("reading", READINGS, ids=_id)
def test_check_gives_the_recorded_warnings(reading: dict[str, Any]) -> None:
    # Among them, a target placeholder on a published file: TorchSpec's Qwen3-8B DFlash mask id
    # is the target's bos_token_id, which only the target config reveals.
    verdict = drafting_config.check(
        CORPUS / reading["file"], target=_target(reading), engine=READ_ON
    )
    assert [type(warning).__name__ for warning in verdict.warnings] == reading["check_warnings"]


@pytest.mark.parametrize("reading", READINGS, ids=_id)
def test_the_method_read_from_the_config_never_contradicts_the_reading(
    reading: dict[str, Any],
) -> None:
    # From the token field, else vLLM's guess from `architectures` (z-lab's MuseGlimmer
    # assistant: dflash); None where vLLM needs the model's name or the user's method.
    verdict = drafting_config.check(
        CORPUS / reading["file"], target=_target(reading), engine=READ_ON
    )
    assert verdict.resolution is not None
    assert verdict.resolution.algorithm in (reading["method"], None)


def test_every_draft_vllm_does_not_load_says_why_and_check_says_so() -> None:
    # OK means vLLM serves it.  Each failing reading names the step and the vLLM
    # file; check() gives an error, or a warning where only remote code could rescue the
    # draft (--trust-remote-code), or needs the target's architecture (next test).
    for reading in READINGS:
        if reading["vllm_loads"]:
            continue
        assert reading["why_not_loaded"], reading["file"]
        assert ".py" in reading["why_not_loaded"], reading["file"]
        if "target_architectures" in reading:
            continue
        assert reading["check_errors"] or reading["check_warnings"], reading["file"]


@pytest.mark.parametrize("reading", [r for r in READINGS if "target_architectures" in r], ids=_id)
def test_a_target_vllm_cannot_tap_is_an_error_with_the_draft(reading: dict[str, Any]) -> None:
    # The LFM2.5 and LongCat targets: no public copy of their config.json was found, so the
    # draft is checked against a target of their architecture alone.
    target = {"architectures": reading["target_architectures"]}
    verdict = drafting_config.check(CORPUS / reading["file"], target=target)
    (error,) = verdict.errors
    assert error.field == "target.architectures"
    assert repr(reading["target_architectures"][0]) in str(error)
    assert "Model does not support EAGLE3 interface" in (error.evidence or "")
