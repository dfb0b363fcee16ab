"""Every documented fix, applied, removes its finding (issue 30, point 6).

One row per (code, engine): a broken config that yields the code, and the config with the
fix applied, which must not.  For a code whose finding carries an edit (what ``check --fix``
writes), the fixed config is not written here: it is the edit applied to the broken one, so
the row proves the edit itself.  A rule that builds an edit without a row here fails
:func:`test_every_rule_that_builds_an_edit_has_a_row`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import pytest

from drafting_config import check
from drafting_config.engines import Engine
from drafting_config.values.edits import ConfigEdit, apply_edits

_ROOT: Final = Path(__file__).resolve().parent.parent


def _example(path: str) -> dict[str, object]:
    loaded = json.loads((_ROOT / "examples" / path / "config.json").read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


DFLASH: Final = _example("dflash-qwen3-4b")
"""A DFlash draft both engines serve (token 151669, layers 1, 9, 17, 25, 33 of 36)."""
TARGET: Final = _example("pair-qwen3-4b/target")
"""Its Qwen3-4B target: 36 layers, hidden_size 2560, vocab_size 151936."""
DSPARK: Final = {**_example("dspark-qwen3-8b"), "markov_head_type": "vanilla"}
"""A DSpark draft both engines serve (hidden_size 4096)."""
TARGET_8B: Final = {**TARGET, "hidden_size": 4096}
EAGLE3: Final = {
    "architectures": ["LlamaForCausalLMEagle3"],
    "model_type": "llama",
    "vocab_size": 128256,
    "hidden_size": 4096,
    "num_hidden_layers": 1,
    "intermediate_size": 14336,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "max_position_embeddings": 8192,
    "rms_norm_eps": 1e-5,
}
"""A sequential EAGLE-3 draft both engines serve."""
LAYERS: Final = [1, 9, 17, 25, 33]
TOKEN: Final = 151669


def _dflash(**nested: object) -> dict[str, object]:
    """The DFlash draft with its ``dflash_config`` replaced by ``nested``."""
    return {**DFLASH, "dflash_config": nested}


def _without(config: dict[str, object], *keys: str) -> dict[str, object]:
    return {key: value for key, value in config.items() if key not in keys}


EDIT: Final = object()
"""The fixed config of a row is the broken one with the finding's edit applied."""


@dataclass(frozen=True)
class Row:
    code: str
    engine: Engine
    broken: dict[str, object]
    fixed: dict[str, object] | object
    target: dict[str, object] | None = None

    @property
    def id(self) -> str:
        return f"{self.code}-{self.engine}"


ROWS: Final = [
    # --- fixes with an edit: check --fix applies them ---
    Row("architectures-string", "vllm", {**DFLASH, "architectures": "DFlashDraftModel"}, EDIT),
    Row(
        "token-field-null",
        "vllm",
        {**_dflash(mask_token_id=None, target_layer_ids=LAYERS), "mask_token_id": TOKEN},
        EDIT,
    ),
    Row(
        "dflash-config-null",
        "vllm",
        {**DFLASH, "dflash_config": None, "mask_token_id": TOKEN, "target_layer_ids": LAYERS},
        EDIT,
    ),
    Row(
        "layer-ids-floats",
        "vllm",
        _dflash(mask_token_id=TOKEN, target_layer_ids=[float(i) for i in LAYERS]),
        EDIT,
    ),
    Row(
        "markov-rank-nested-only",
        "sglang",
        {**_without(DSPARK, "markov_rank"), "dflash_config": {"markov_rank": 256}},
        EDIT,
    ),
    Row(
        "markov-head-type-nested",
        "sglang",
        {**_without(DSPARK, "markov_head_type"), "dflash_config": {"markov_head_type": "gated"}},
        EDIT,
    ),
    Row(
        "constructor-field-missing",
        "vllm",
        {**_without(DSPARK, "markov_rank"), "dflash_config": {"markov_rank": 256}},
        EDIT,
    ),
    Row(
        "k3-num-target-layers-float",
        "vllm",
        {
            "architectures": ["K3DSparkModel"],
            "model_type": "k3_dspark",
            "target_layer_ids": [1, 2, 3],
            "num_target_layers": 3.0,
            "mask_token_id": 5,
            "vocab_size": 1000,
            "hidden_size": 64,
        },
        EDIT,
    ),
    # a token id written as a string of decimal digits: the one change of type
    Row(
        "token-not-int",
        "vllm",
        _dflash(mask_token_id=str(TOKEN), target_layer_ids=LAYERS),
        EDIT,
    ),
    Row(
        "token-not-int",
        "sglang",
        _dflash(mask_token_id=str(TOKEN), target_layer_ids=LAYERS),
        EDIT,
    ),
    # --- fixes that stay advice: the fixed config is the one the fix describes ---
    Row(
        "token-out-of-range", "vllm", _dflash(mask_token_id=200000, target_layer_ids=LAYERS), DFLASH
    ),
    Row("token-missing", "vllm", _dflash(target_layer_ids=LAYERS), DFLASH),
    Row("token-not-named", "sglang", _dflash(target_layer_ids=LAYERS), DFLASH),
    Row(
        "token-placeholder", "vllm", _dflash(mask_token_id=151643, target_layer_ids=LAYERS), DFLASH
    ),
    Row(
        "token-placeholder",
        "sglang",
        _dflash(mask_token_id=151643, target_layer_ids=LAYERS),
        DFLASH,
    ),
    Row("token-fields-disagree", "vllm", {**DFLASH, "mask_token_id": TOKEN + 1}, DFLASH),
    Row(
        "token-outside-target-vocab",
        "vllm",
        {**DSPARK, "mask_token_id": 151900},
        DSPARK,
        {**TARGET_8B, "vocab_size": 151800},
    ),
    Row(
        "token-outside-target-vocab",
        "sglang",
        {**DSPARK, "mask_token_id": 151900},
        DSPARK,
        {**TARGET_8B, "vocab_size": 151800},
    ),
    Row(
        "layer-ids-unordered",
        "vllm",
        _dflash(mask_token_id=TOKEN, target_layer_ids=[9, 1, 17, 25, 33]),
        DFLASH,
    ),
    Row(
        "layers-captured-in-order",
        "sglang",
        _dflash(mask_token_id=TOKEN, target_layer_ids=[9, 1, 17, 25, 33]),
        DFLASH,
    ),
    Row(
        "layer-id-out-of-range",
        "vllm",
        _dflash(mask_token_id=TOKEN, target_layer_ids=[1, 9, 17, 25, 40]),
        DFLASH,
        TARGET,
    ),
    Row(
        "layer-id-out-of-range",
        "sglang",
        _dflash(mask_token_id=TOKEN, target_layer_ids=[1, 9, 17, 25, 40]),
        DFLASH,
        TARGET,
    ),
    Row(
        "last-layer-never-captured",
        "sglang",
        _dflash(mask_token_id=TOKEN, target_layer_ids=[1, 9, 17, 25, 35]),
        DFLASH,
        TARGET,
    ),
    Row("layer-ids-invalid", "vllm", _dflash(mask_token_id=TOKEN, target_layer_ids="1,9"), DFLASH),
    Row(
        "layer-ids-invalid", "sglang", _dflash(mask_token_id=TOKEN, target_layer_ids="1,9"), DFLASH
    ),
    Row("hidden-size-mismatch", "vllm", {**DFLASH, "hidden_size": 4096}, DFLASH, TARGET),
    Row("hidden-size-mismatch", "sglang", {**DFLASH, "hidden_size": 4096}, DFLASH, TARGET),
    Row("model-type-not-string", "vllm", {**DFLASH, "model_type": 3}, DFLASH),
    Row(
        "sample-from-anchor-unsupported",
        "vllm",
        _dflash(mask_token_id=TOKEN, target_layer_ids=LAYERS, sample_from_anchor=True),
        DFLASH,
    ),
    Row("markov-head-type-missing", "sglang", _without(DSPARK, "markov_head_type"), DSPARK),
    Row("markov-head-type-invalid", "sglang", {**DSPARK, "markov_head_type": "lstm"}, DSPARK),
    Row("markov-rank-invalid", "vllm", {**DSPARK, "markov_rank": -1}, DSPARK),
    Row("markov-rank-invalid", "sglang", {**DSPARK, "markov_rank": -1}, DSPARK),
    Row("constructor-field-missing", "vllm", _without(DSPARK, "markov_rank"), DSPARK),
    Row(
        "dflash2-selector-missing",
        "sglang",
        {**DFLASH, "architectures": ["DFlash2DraftModel"]},
        {
            **DFLASH,
            "architectures": ["DFlash2DraftModel"],
            "dflash_config": {
                "mask_token_id": TOKEN,
                "target_layer_ids": LAYERS,
                "selector_rank": 64,
                "selector_top_k": 4,
            },
        },
    ),
    Row(
        "eagle-layer-ids-misplaced",
        "sglang",
        {**EAGLE3, "eagle_aux_hidden_state_layer_ids": [1, 15, 28]},
        {**EAGLE3, "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 15, 28]}},
    ),
    Row("architecture-unsupported", "vllm", {**DFLASH, "architectures": ["FooDraftModel"]}, DFLASH),
    Row(
        "architecture-not-drafter", "sglang", {**DFLASH, "architectures": ["FooDraftModel"]}, DFLASH
    ),
    Row(
        "token-eagle-disagrees",
        "vllm",
        {**DFLASH, "eagle_config": {"mask_token_id": TOKEN + 1}},
        DFLASH,
    ),
    Row(
        "projector-unimplemented",
        "vllm",
        _dflash(mask_token_id=TOKEN, target_layer_ids=LAYERS, projector_type="domino"),
        DFLASH,
    ),
    Row(
        "domino-fields-invalid",
        "sglang",
        _dflash(mask_token_id=TOKEN, target_layer_ids=LAYERS, projector_type="domino"),
        DFLASH,
    ),
    Row("draft-config-field-invalid", "sglang", {**DFLASH, "block_size": 0}, DFLASH),
    Row("int-field-invalid", "vllm", {**DFLASH, "hidden_size": "2560"}, DFLASH),
    Row("int-field-invalid", "sglang", {**DFLASH, "hidden_size": "2560"}, DFLASH),
    Row("num-target-layers-not-count", "vllm", {**DFLASH, "num_target_layers": 3.5}, DFLASH),
    Row(
        "num-target-layers-unexplained",
        "vllm",
        {**DFLASH, "num_target_layers": 30},
        DFLASH,
        TARGET,
    ),
    Row(
        "default-layers-mismatch",
        "vllm",
        {**DFLASH, "num_target_layers": 30, "dflash_config": {"mask_token_id": TOKEN}},
        DFLASH,
        TARGET,
    ),
    Row(
        "dflash-class-derives-layers",
        "sglang",
        {
            **_without(DFLASH, "num_target_layers"),
            "num_hidden_layers": 2,
            "dflash_config": {"mask_token_id": TOKEN},
        },
        {**DFLASH, "num_hidden_layers": 2},
    ),
]


def _codes(
    engine: Engine, config: dict[str, object], target: dict[str, object] | None
) -> dict[str, list[object]]:
    """The findings of one verdict, by code name."""
    verdict = check(
        config, target=target, engine=engine, check_tokenizer=False, check_weights=False
    )
    found: dict[str, list[object]] = {}
    for finding in (*verdict.errors, *verdict.warnings, *verdict.notes):
        code = getattr(finding, "code", None)
        if code is not None:
            found.setdefault(code.name, []).append(finding)
    return found


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_the_fix_applied_removes_the_finding(row: Row) -> None:
    broken = _codes(row.engine, row.broken, row.target)
    assert row.code in broken, f"the broken config does not yield {row.code}: {sorted(broken)}"
    if row.fixed is EDIT:
        edits = []
        for finding in broken[row.code]:
            edit = getattr(finding, "edit", None)
            assert isinstance(edit, ConfigEdit), f"{row.code} carries no edit: {finding}"
            edits.append(edit)
        fixed = apply_edits(row.broken, edits)
    else:
        assert isinstance(row.fixed, dict)
        fixed = row.fixed
    after = _codes(row.engine, fixed, row.target)
    assert row.code not in after, f"{row.code} is still there after the fix: {fixed}"


def test_every_rule_that_builds_an_edit_has_a_row() -> None:
    """A finding that carries an edit is proven by a row here (``check --fix`` writes it)."""
    source = "\n".join(
        path.read_text(encoding="utf-8") for path in (_ROOT / "drafting_config").rglob("*.py")
    )
    # ``code=`` then, within the same call (no other ``code=`` between), ``edit=``.
    building = set(
        re.findall(
            r"code=(?:\w+_)?codes\.(\w+),\n(?:(?![^\n]*code=)[^\n]*\n){0,8}?\s*edit=ConfigEdit\.",
            source,
        )
    )
    assert building, "no rule builds an edit: the pattern above no longer matches the rules"
    from drafting_config.engines import CODES

    with_edits = {name.lower().replace("_", "-") for name in building}  # each constant's code
    assert with_edits <= set(CODES)
    assert with_edits == {row.code for row in ROWS if row.fixed is EDIT}
