"""The EAGLE-3 input width and the DFlash projector types, each judged
by the released vLLM 0.33.0's run through the harness on the same configs: 4 taps with fc
sized for 3 fails at combine ("a and b must have same reduction dim, but got [2, 16384] X
[12288, 4096]"), and passes with ``num_aux_hidden_states: 4``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from drafting_config import check
from drafting_config.engines.vllm.codes import EAGLE3_WIDTH, PROJECTOR_UNIMPLEMENTED
from drafting_config.values.codes import Step
from tests.conftest import QWEN3_8B_DFLASH_DRAFT

ROOT = Path(__file__).resolve().parents[3]
EAGLE3: dict[str, Any] = json.loads(
    (ROOT / "tests/real_configs/drafts/sglang--qwen3-8b-eagle3-ascend-fixture.json").read_text()
)
QWEN3_8B = ROOT / "tests/real_configs/targets/qwen3-8b-sglang-fixture.json"


def test_an_eagle3_fc_sized_for_other_taps_than_the_runner_taps_is_a_width_error() -> None:
    four = {**EAGLE3, "eagle_aux_hidden_state_layer_ids": [2, 10, 18, 33]}
    (error,) = check(four, target=QWEN3_8B).errors
    assert error.code is EAGLE3_WIDTH
    assert error.step is Step.WIDTH
    assert error.field == "eagle_aux_hidden_state_layer_ids"
    assert "taps 4 target layers" in str(error)
    assert "sized for 3 (the default)" in str(error)
    assert "`num_aux_hidden_states` to 4" in (error.fix or "")
    assert "llama_eagle3.py" in (error.evidence or "")
    # sized for what it taps: served (the harness passes every stage)
    assert check({**four, "num_aux_hidden_states": 4}, target=QWEN3_8B).ok
    # eagle_config's list sizes fc when num_aux_hidden_states is absent
    listed = {**four, "eagle_config": {"eagle_aux_hidden_state_layer_ids": [2, 10, 18, 33]}}
    assert check(listed, target=QWEN3_8B).ok
    # the same width error with parallel drafting on (PTD)
    ptd = {**four, "ptd_token_id": 151669}
    assert [e.code for e in check(ptd, target=QWEN3_8B).errors] == [EAGLE3_WIDTH]


def test_three_taps_and_the_default_size_agree() -> None:
    three = {**EAGLE3, "eagle_aux_hidden_state_layer_ids": [2, 18, 33]}
    assert check(three, target=QWEN3_8B).ok


def test_a_domino_projector_vllm_does_not_implement_is_an_error() -> None:
    domino = {
        **QWEN3_8B_DFLASH_DRAFT,
        "dflash_config": {**QWEN3_8B_DFLASH_DRAFT["dflash_config"], "projector_type": "domino"},
    }
    (error,) = check(domino).errors
    assert error.code is PROJECTOR_UNIMPLEMENTED
    assert error.field == "dflash_config.projector_type"
    assert "fails loading Domino's tensors" in str(error)
    assert "prefix_gru" in (error.evidence or "")
    assert (error.fix or "").startswith("serve the draft with SGLang")
    other = {
        **QWEN3_8B_DFLASH_DRAFT,
        "dflash_config": {**QWEN3_8B_DFLASH_DRAFT["dflash_config"], "projector_type": "mlp2"},
    }
    verdict = check(other)
    assert verdict.ok
    assert [w.code for w in verdict.warnings] == [PROJECTOR_UNIMPLEMENTED]
