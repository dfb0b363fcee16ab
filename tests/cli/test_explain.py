"""``explain``: several drafts, ``--engine``, and each engine's own order of the token-id
fields (SGLang's from its package's data, then the served tokenizer's mask token)."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path
from typing import Any

import pytest

from drafting_config import PRIORITY_ORDER
from drafting_config.engines import ENGINE_NAMES
from drafting_config.engines.sglang.config import (
    DFLASH_TOKEN_ORDER,
    DSPARK_TOKEN_ORDER,
    parse_dflash_draft_config,
    parse_dspark_draft_config,
)
from drafting_config.engines.vllm.names import ENGINE as VLLM
from drafting_config.engines.vllm.names import VERSIONS, engine_name
from tests.conftest import REPO, Run, run_cli
from tests.tokenizer_factory import write_qwen3_like

SGLANG = ENGINE_NAMES["sglang"]
"""How a verdict names the SGLang release it speaks for."""

DFLASH = REPO / "examples/dflash-qwen3-4b"
DSPARK = REPO / "examples/dspark-noise-qwen3-8b"
EAGLE3 = REPO / "examples/ptd-eagle3-llama3-8b"


ROW = re.compile(r" {4}(\d+) +(.+?) {2,}(.+?) {2,}(.+)")


def rows(run: Run, engine: str) -> list[list[str]]:
    """The token-id table printed under ``engine``'s line: field, value and status."""
    start = next(i for i, line in enumerate(run.lines) if line.startswith(f"  {engine}: "))
    table = []
    for line in run.lines[start + 2 :]:
        match = ROW.fullmatch(line)
        if match is None:
            break
        table.append(list(match.groups()[1:]))
    return table


def draft(tmp_path: Path, config: dict[str, Any]) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return tmp_path


DFLASH_CONFIG: dict[str, Any] = {
    "architectures": ["DFlashDraftModel"],
    "model_type": "qwen3",
    "dflash_config": {"mask_token_id": None, "target_layer_ids": [1]},
    "mask_token_id": 7,
    "vocab_size": 300,
    "hidden_size": 16,
    "num_hidden_layers": 1,
}


def test_explain_takes_several_drafts_one_block_each(capsys: pytest.CaptureFixture[str]) -> None:
    run = run_cli(capsys, "explain", "--no-tokenizer", DFLASH, DSPARK)
    assert run.status == 0
    assert [line for line in run.lines if not line.startswith(" ")] == [
        f"{DFLASH}: OK",
        f"{DSPARK}: OK",
    ]
    assert [row[0] for row in rows(run, f"{VLLM}")] == [f.value for f in PRIORITY_ORDER]


def test_explain_for_sglang_shows_its_dflash_order_then_the_tokenizer(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A present null `dflash_config.mask_token_id` stops SGLang's search: the top-level id
    is not read, and the served tokenizer's `<|MASK|>` is added (vLLM reads the same file
    in its own order, and fails on the null)."""
    path = draft(tmp_path / "draft", DFLASH_CONFIG)
    tokenizer = write_qwen3_like(tmp_path / "tokenizer", vocab_size=300)
    run = run_cli(capsys, "explain", "--engine", "all", "--tokenizer", tokenizer, path)
    assert rows(run, SGLANG) == [
        [DFLASH_TOKEN_ORDER[0], "null", "null"],
        [DFLASH_TOKEN_ORDER[1], "7", "not read"],
        ["tokenizer '<|MASK|>'", "326", "added"],
    ]
    vllm = rows(run, f"{VLLM}")
    assert [row[0] for row in vllm] == [f.value for f in PRIORITY_ORDER]
    assert vllm[:2] == [
        ["dflash_config.mask_token_id", "null", "null"],
        ["mask_token_id", "7", "winner"],
    ]
    alone = run_cli(capsys, "explain", "--engine", "sglang", path)
    assert rows(alone, SGLANG)[-1] == ["tokenizer '<|MASK|>'", "-", "not checked"]


def test_explain_for_sglang_shows_its_dspark_order(capsys: pytest.CaptureFixture[str]) -> None:
    run = run_cli(capsys, "explain", "--engine", "sglang", "--no-tokenizer", DSPARK)
    table = rows(run, SGLANG)
    assert [row[0] for row in table] == list(DSPARK_TOKEN_ORDER)
    assert table[0] == ["dspark_noise_token_id", "151669", "winner"]
    assert {row[2] for row in table[1:]} == {"absent"}


def test_explain_for_sglang_says_eagle3_reads_no_token_id(
    capsys: pytest.CaptureFixture[str],
) -> None:
    run = run_cli(capsys, "explain", "--engine", "sglang", "--no-tokenizer", EAGLE3)
    index = run.lines.index(f"  {SGLANG}: serves as eagle3 (sequential)")
    assert run.lines[index + 1] == "    reads no token id"


def test_explain_takes_a_release(capsys: pytest.CaptureFixture[str]) -> None:
    oldest = VERSIONS[0]
    run = run_cli(capsys, "explain", "--engine", f"vllm=={oldest}", "--no-tokenizer", DFLASH)
    assert run.status == 0
    assert run.lines[2].startswith(f"  {engine_name(oldest)}: serves as dflash (parallel)")


def test_explain_json_gives_each_engines_fields(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = draft(tmp_path / "draft", DFLASH_CONFIG)
    one = run_cli(capsys, "explain", "--json", "--engine", "sglang", "--no-tokenizer", path).json
    assert isinstance(one, dict)  # one draft, one engine: one object, as before
    assert [(f["field"], f["value"], f["status"]) for f in one["fields"]] == [
        ("dflash_config.mask_token_id", None, "null"),
        ("mask_token_id", 7, "not read"),
        ("tokenizer '<|MASK|>'", None, "not checked"),
    ]
    several = run_cli(capsys, "explain", "--json", "--engine", "all", path, DFLASH).json
    assert [(item["path"], item["engine"]) for item in several] == [
        (str(path), f"{VLLM}"),
        (str(path), SGLANG),
        (str(DFLASH), f"{VLLM}"),
        (str(DFLASH), SGLANG),
    ]
    assert [f["field"] for f in several[0]["fields"]] == [f.value for f in PRIORITY_ORDER]


# -- the order is SGLang's parse's ------------------------------------------------------------


def _config(present: tuple[str, ...]) -> dict[str, Any]:
    config: dict[str, Any] = {}
    for rank, field in enumerate(present, 10):
        section, dot, key = field.partition(".")
        if dot:
            config.setdefault(section, {})[key] = rank
        else:
            config[field] = rank
    return config


@pytest.mark.parametrize(
    ("order", "parse"),
    [
        (DFLASH_TOKEN_ORDER, lambda get: parse_dflash_draft_config(get).mask_token_id_field),
        (DSPARK_TOKEN_ORDER, lambda get: parse_dspark_draft_config(get).mask_token_id_field),
    ],
    ids=["dflash", "dspark"],
)
def test_each_order_is_where_sglangs_parse_takes_the_id_from(order: Any, parse: Any) -> None:
    """For every set of fields present, the parse takes the id from the first of the order."""
    for size in range(1, len(order) + 1):
        for present in itertools.combinations(order, size):
            config = _config(present)
            assert parse(config.get) == present[0], present
