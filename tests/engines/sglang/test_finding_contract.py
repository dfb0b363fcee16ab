"""Every finding SGLang's rules build follows the finding contract, on every bundled example
and every corpus draft (with its reading's target and alone, with and without
``require_parallel``), and on one draft for each SGLang finding that no published draft
shows (:func:`_rule_drafts`):

* a declared code;
* a message of one sentence (the fault, the value, what SGLang does), with no source
  citation (``.py``), no engine version and no ``Fix:``, of bounded length
  (:data:`MAX_MESSAGE`);
* evidence (the SGLang file and function behind it) wherever the message states what
  SGLang does: every error and warning, and every note but those saying what the checker
  did not check;
* a fix, where one is given, that is one lower-case imperative clause.

A finding is SGLang's when a function of ``drafting_config.engines.sglang`` builds it (an
error or warning constructed there, a note recorded there): those the shared rules build
for an SGLang verdict (the draft's file, placeholders, the tokenizer) are the core's.
"""

from __future__ import annotations

import copy
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import drafting_config
from drafting_config.engines.sglang.names import VERSION
from drafting_config.values.codes import CODES, Code
from drafting_config.values.errors import ParallelDraftingConfigError, ParallelDraftingConfigWarning
from drafting_config.values.findings import Findings
from tests.conftest import EXAMPLES, QWEN3_8B_DFLASH_DRAFT

CORPUS = Path(__file__).resolve().parents[2] / "real_configs"
READINGS: list[dict[str, Any]] = json.loads(
    (CORPUS / "sglang_readings.json").read_text(encoding="utf-8")
)["readings"]

MAX_MESSAGE = 140
"""The longest message allowed.  The contract aims at ``CODE field: message`` within 160
characters for a path of usual length, a message of about 60 to 130 characters.  On this
data SGLang's longest messages are 135 to 138 characters: the derived layers' (three
counts) and an ``architectures`` list quoting a 24-character class name
(``['DeepseekDFlashDraftModel']``, fixed text about 110); the values quoted are what
varies, so the bound leaves room for a few more of their characters, no more.  A message
above it has grown a second fact, a citation or advice, which belong in ``evidence`` and
``fix``."""

_SENTENCE_BREAK = re.compile(r"[.!?]\s+[A-Z(]")
_QUOTED = re.compile(r"`[^`]*`|'[^']*'|\"[^\"]*\"|\[[^\]]*\]")


def _without(config: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {key: value for key, value in config.items() if key not in keys}


QWEN3_8B: dict[str, Any] = json.loads(
    (CORPUS / "targets" / "qwen3-8b.json").read_text(encoding="utf-8")
)


def _rule_drafts() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """One draft for each SGLang finding no published draft shows, from the bundled DFlash
    example's config, against Qwen3-8B: each refusal of SGLang's DFlash and DSpark parses (a
    field of the wrong type, a value out of range, a pair set by half, Domino's and DSpark's
    own fields), the Markov head read from a nested section, the draft class's layers, the
    capture order and the target's last layer, and a target class without a hook."""
    base = QWEN3_8B_DFLASH_DRAFT
    nested = base["dflash_config"]
    domino = {
        **nested,
        "projector_type": "domino",
        "shift_label": True,
        "pure_draft_prefix_len": 1,
        "gru_hidden_dim": 256,
        "emb_dim": 128,
    }
    sections: list[dict[str, Any]] = [
        {"block_size": "many"},
        {"block_size": 0},
        {"selector_rank": 4},
        {"output_multiplier": "x"},
        {"output_multiplier": -1},
        {"attention_sink_bias": "yes"},
        {"attention_value_scale": True},
        {"target_layer_ids": 7},
        {"target_layer_ids": ["a"]},
        {"target_layer_ids": []},
        {"target_layer_ids": [9, 1, 17, 25, 33]},
        {"target_layer_ids": [1, 9, 17, 25, 35]},
        {"mask_token": ""},
        {"mask_token_id": "151669"},
        {"mask_token_id": -1},
        {**domino, "shift_label": 1},
        {**domino, "pure_draft_prefix_len": 2},
        {**domino, "gru_hidden_dim": None},
        {**domino, "emb_dim": None},
        {**domino, "block_size": 1},
    ]
    drafts = [{**base, "dflash_config": {**nested, **changes}} for changes in sections]
    unnamed = {**_without(base, "num_target_layers"), "dflash_config": {"mask_token_id": 1}}
    drafts += [
        {**unnamed, "num_hidden_layers": 2},
        {**unnamed, "num_hidden_layers": 34},
        {**base, "hidden_size": 2048},
        {**base, "architectures": ["DFlash2DraftModel"]},
        {**base, "model_type": "dspark", "auto_map": {"AutoConfig": "c.C"}},
        {"architectures": ["LlamaForCausalLMEagle3"], "eagle_aux_hidden_state_layer_ids": [2]},
        {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "draft_vocab_size": 32000},
    ]
    dspark = {
        **base,
        "architectures": ["DSparkDraftModel"],
        "markov_rank": 256,
        "markov_head_type": "vanilla",
    }
    dspark_changes: list[dict[str, Any]] = [
        {"markov_rank": -1},
        {"markov_rank": 0},
        {"markov_head_type": "lstm"},
        {"markov_head_type": None},
        {"dspark_target_layer_ids": []},
        {"dspark_target_layer_ids": ["a"]},
        {"dspark_target_layer_ids": [1, 9]},
        {"dspark_noise_token_id": -5},
        {"dspark_noise_token_id": 10**6},
        {"num_hidden_layers": None},
        {"dflash_config": {"target_layer_ids": nested["target_layer_ids"]}},
    ]
    drafts += [{**dspark, **changes} for changes in dspark_changes]
    drafts.append(
        {
            **_without(dspark, "markov_rank", "markov_head_type"),
            "dflash_config": {**nested, "markov_rank": 256, "markov_head_type": "gated"},
        }
    )
    runs = [(copy.deepcopy(draft), QWEN3_8B) for draft in drafts]
    for architecture in ("Qwen2ForCausalLM", "Qwen3VLForConditionalGeneration"):
        runs.append((copy.deepcopy(base), {**QWEN3_8B, "architectures": [architecture]}))
    return runs


def _runs() -> Iterator[tuple[object, object]]:
    for reading in READINGS:
        target = reading["target"]
        yield CORPUS / reading["file"], None if target is None else CORPUS / target
        if target is not None:
            yield CORPUS / reading["file"], None
    for config in sorted(EXAMPLES.rglob("config.json")):
        folder = config.parent
        if folder.name == "target":
            continue
        pair = folder.parent / "target" if folder.name == "draft" else None
        yield folder, pair
        if pair is not None:
            yield folder, None
    yield from _rule_drafts()


def _caller() -> str:
    """The module of the function that called the one calling this."""
    return str(sys._getframe(2).f_globals.get("__name__", ""))


@pytest.fixture(scope="module")
def findings() -> list[tuple[str, object]]:
    """Every SGLang finding of the runs, once per message: its kind and the finding."""
    built: dict[int, str] = {}  # id of a finding -> the module that built it
    alive: list[object] = []  # every finding built, kept so that no id is reused
    real_init = ParallelDraftingConfigError.__init__  # the one both classes inherit
    real_note = Findings.note

    def init(self: Any, message: str, **fields: Any) -> None:
        built[id(self)] = _caller()
        alive.append(self)
        real_init(self, message, **fields)

    def note(self: Findings, text: str, **fields: Any) -> None:
        real_note(self, text, **fields)
        built[id(self.notes[-1])] = _caller()
        alive.append(self.notes[-1])

    found: dict[tuple[str, str], tuple[str, object]] = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ParallelDraftingConfigError, "__init__", init)
        patch.setattr(ParallelDraftingConfigWarning, "__init__", init)
        patch.setattr(Findings, "note", note)
        for draft, target in _runs():
            for require_parallel in (False, True):
                verdict = drafting_config.check(
                    draft, target=target, engine="sglang", require_parallel=require_parallel
                )
                for kind, items in (
                    ("error", verdict.errors),
                    ("warning", verdict.warnings),
                    ("note", verdict.notes),
                ):
                    for item in items:
                        if built.get(id(item), "").startswith("drafting_config.engines.sglang"):
                            found.setdefault((kind, str(item)), (kind, item))
    return list(found.values())


def _violations(kind: str, finding: object) -> list[str]:
    message = str(finding)
    code = getattr(finding, "code", None)
    evidence = getattr(finding, "evidence", None)
    fix = getattr(finding, "fix", None)
    wrong = []
    if not isinstance(code, Code) or CODES.get(code.name) is not code:
        wrong.append("no declared code")
    if ".py" in message or VERSION in message or "Fix:" in message:
        wrong.append("a citation, the engine's version or advice in the message")
    if _SENTENCE_BREAK.search(_QUOTED.sub("_", message)):
        wrong.append("more than one sentence")
    if kind != "note" and not message.endswith("."):
        wrong.append("an error or warning that is not a sentence")
    if len(message) > MAX_MESSAGE:
        wrong.append(f"longer than {MAX_MESSAGE} characters ({len(message)})")
    states_behaviour = kind != "note" or "not checked" not in message
    if states_behaviour and not (isinstance(evidence, str) and "srt/" in evidence):
        wrong.append("no evidence of the SGLang code behind it")
    if fix is not None and (not fix[:1].islower() or fix.endswith(".") or ". " in fix):
        wrong.append("a fix that is not one lower-case clause")
    return wrong


def test_every_sglang_finding_follows_the_finding_contract(
    findings: list[tuple[str, object]],
) -> None:
    broken = {
        f"{kind} {message!r}": wrong
        for kind, finding in findings
        for message in [str(finding)]
        if (wrong := _violations(kind, finding))
    }
    assert broken == {}


def test_the_runs_reach_the_findings_of_every_sglang_rule(
    findings: list[tuple[str, object]],
) -> None:
    """The contract test is not vacuous: its runs reach each of SGLang's rules (the method,
    the config loader, both parses, the Markov head, the token, the layers, the target
    class, the sequential mode, the weights note), all but the ones that need a tokenizer
    or a ``mask_embedding.pt`` (tests/engines/sglang/test_rules.py builds those)."""
    reached = {getattr(finding, "code").name for _, finding in findings}  # noqa: B009
    assert {
        "method-unsupported",
        "architecture-unsupported",
        "architecture-not-drafter",
        "model-type-unknown",
        "draft-config-field-invalid",
        "domino-fields-invalid",
        "layer-ids-invalid",
        "mask-token-text-invalid",
        "token-not-int",
        "token-out-of-range",
        "markov-rank-invalid",
        "markov-head-type-missing",
        "markov-head-type-invalid",
        "markov-rank-nested-only",
        "token-outside-target-vocab",
        "token-not-named",
        "layer-id-out-of-range",
        "tapped-width-mismatch",
        "size-from-config-default",
        "token-unused",
        "sequential-not-parallel",
        "weights-not-modelled",
        "token-missing",
        "markov-head-type-nested",
        "dflash2-selector-missing",
        "model-type-remote-code",
        "derived-layers-invalid",
        "dflash-class-derives-layers",
        "layers-captured-in-order",
        "last-layer-never-captured",
        "hidden-size-mismatch",
        "eagle-layer-ids-misplaced",
        "target-not-tappable",
        "target-hook-broken",
    } <= reached
