"""The corpus, for SGLang 0.5.23: each draft of ``tests/real_configs/drafts/`` has one
reading in ``sglang_readings.json`` (what SGLang does with it), and
``check(engine="sglang")`` gives that reading: the algorithm, the token id, the tapped
layers, whether SGLang serves it, the exact errors and the warnings' classes.  The vLLM
readings are held by ``tests/test_real_configs.py``; the drafts on which the engines
disagree are listed in ``test_the_engines_disagree_where_the_readings_say``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import drafting_config

CORPUS = Path(__file__).resolve().parents[2] / "real_configs"
READINGS: list[dict[str, Any]] = json.loads(
    (CORPUS / "sglang_readings.json").read_text(encoding="utf-8")
)["readings"]
VLLM: dict[str, dict[str, Any]] = {
    reading["file"]: reading
    for reading in json.loads((CORPUS / "vllm_readings.json").read_text(encoding="utf-8"))[
        "readings"
    ]
}


def _id(reading: dict[str, Any]) -> str:
    return str(reading["file"]).removeprefix("drafts/").removesuffix(".json")


def _check(reading: dict[str, Any], engine: str) -> drafting_config.Verdict:
    target = reading["target"]
    return drafting_config.check(
        CORPUS / reading["file"],
        target=None if target is None else CORPUS / target,
        engine=engine,  # type: ignore[arg-type]
        check_weights=False,
    )


def test_every_draft_has_exactly_one_sglang_reading() -> None:
    files = [reading["file"] for reading in READINGS]
    assert len(files) == len(set(files))
    assert {f"drafts/{path.name}" for path in (CORPUS / "drafts").iterdir()} == set(files)


@pytest.mark.parametrize("reading", READINGS, ids=_id)
def test_check_gives_sglangs_reading(reading: dict[str, Any]) -> None:
    verdict = _check(reading, "sglang")
    assert verdict.engine == "sglang 0.5.23"
    assert verdict.algorithm == reading["algorithm"]
    assert (verdict.token_id, verdict.token_source) == (
        reading["token_id"],
        reading["token_source"],
    )
    layers = None if verdict.aux_layer_ids is None else list(verdict.aux_layer_ids)
    assert (layers, verdict.aux_layer_source) == (
        reading["aux_layer_ids"],
        reading["aux_layer_source"],
    )
    assert verdict.ok is reading["sglang_serves"]
    assert (reading["failing_step"] is None) is reading["sglang_serves"]
    assert [f"{e.code} {e.field}" for e in verdict.errors] == reading["check_errors"]
    assert [type(w).__name__ for w in verdict.warnings] == reading["check_warnings"]


DISAGREE = {
    # SGLang serves, vLLM refuses: layers derived from the target's depth
    "torchspec--qwen3_8b_dflash": (False, True),
    # (A model_type neither engine's config loader knows, without auto_map.AutoConfig, fails
    # both: torchspec--dflash_draft_config, torchspec--kimi_k3_dflash2_mla_swa and
    # specforge--deepseek-v4-flash-dspark-official agree now.)
    # SGLang serves, vLLM refuses: a present null dflash_config.mask_token_id (vLLM's
    # get_parallel_drafting_token_id raises TypeError on int(None))
    "specforge--qwen3.5-27b-dflash": (False, True),
    # no SGLang class for vLLM's K3 DSpark
    "torchspec--kimi_k3_dspark_mla": (True, False),
    # (An EAGLE-3 draft both serve sequentially, sglang--qwen3-8b-eagle3-ascend-fixture, and
    # SpecForge's Domino and DSpine drafts, which neither registers, agree now.)
}


def test_the_engines_disagree_where_the_readings_say() -> None:
    found = {}
    for reading in READINGS:
        vllm = _check(reading, "vllm").ok
        if vllm is not reading["sglang_serves"]:
            found[_id(reading)] = (vllm, reading["sglang_serves"])
    assert found == DISAGREE
