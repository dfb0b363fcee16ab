"""The finding contract (issue 30, points 2-3) on what vLLM's rules say about real drafts.

Every bundled example and every corpus draft (``tests/real_configs/``, against its target),
and a few drafts made to break each rule the corpus leaves silent (:data:`MADE`), are
checked for vLLM, in each release the package reads, with and without
``require_parallel``; every error and warning built in the vLLM modules this test covers
(:data:`COVERED`) must carry a declared code, a message of one sentence naming no source
file and at most :data:`MAX_MESSAGE_CHARS` long, evidence (the engine's file and function)
wherever the message says what vLLM does, and a fix that is one lower-case clause.

Which module built a finding is read from the stack when it is constructed (the test
wraps the findings' constructor), so the test judges exactly the findings of the covered
modules, whichever rule records them.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, Final

import pytest

from drafting_config import check
from drafting_config.engines.vllm.names import VERSIONS
from drafting_config.values.codes import CODES
from drafting_config.values.errors import _FindingFields
from tests.conftest import EXAMPLES
from tests.engines.vllm.test_draft_models import QWEN2_1_5B, QWEN2_32B
from tests.engines.vllm.test_drafters import EAGLE3
from tests.engines.vllm.test_drafters import QWEN3_8B as QWEN3_8B_FILE
from tests.engines.vllm.test_layers import (
    K3,
    OMNI,
    QWEN3_4B,
    QWEN3_8B,
    SPECULATORS,
    TORCHSPEC_DSPARK,
    draft,
)
from tests.test_real_configs import CORPUS, READINGS

COVERED: Final = frozenset(
    f"drafting_config.engines.vllm{module}"
    for module in (
        "",
        ".architectures",
        ".checkpoint",
        ".draft_models",
        ".drafters",
        ".eagle_heads",
        ".layers",
        ".modes",
        ".names",
        ".resolution",
        ".runners",
        ".tables",
    )
)
"""The modules whose findings this test holds to the contract (``load_path`` and
``speculators`` have their own)."""

MAX_MESSAGE_CHARS: Final = 140
"""The longest message allowed.  The longest on these drafts is 139 characters (the
``num_target_layers`` of the failing example pair, which fits neither reading); the rest
run from about 95 to 138.  140 keeps ``CODE field: message`` near the 160 characters
issue 30 aims for with a path of usual length, and fails a message that regrows the
engine's source citation or the advice that now sit in ``evidence`` and ``fix`` (the
messages before them ran to 300 characters)."""

_ENGINES: Final = ("vllm", *(f"vllm=={version}" for version in VERSIONS[:-1]))
"""The default release and every older shipped one."""

Model = Path | dict[str, Any]

MADE: Final[dict[str, tuple[dict[str, Any], Model | None]]] = {
    "layer ids repeated or decreasing": (draft("target_layer_ids", [9, 1]), QWEN3_4B),
    "layer ids not a list": (draft("dflash_config.target_layer_ids", "1,9"), QWEN3_4B),
    "a bool layer id": (draft("eagle_aux_hidden_state_layer_ids", [1, True]), QWEN3_4B),
    "whole-number float layer ids": (draft("target_layer_ids", [1.0, 9.0]), QWEN3_4B),
    "layer id -1": (draft("target_layer_ids", [-1, 9]), QWEN3_4B),
    "layer id -2, no target": (draft("target_layer_ids", [-2, 9]), None),
    "a Qwen3-Omni target's layers": (
        draft("eagle_aux_hidden_state_layer_ids", [2, 10], dspark_target_layer_ids=[1, 48]),
        OMNI,
    ),
    "a K3 float count": ({**K3, "num_target_layers": 5.0}, None),
    "a K3 count of other layers": ({**K3, "num_target_layers": 93}, None),
    "num_target_layers not a count": (
        draft("target_layer_ids", [1, 9], num_target_layers="36"),
        QWEN3_4B,
    ),
    "target_num_hidden_layers of another target": (
        {**TORCHSPEC_DSPARK, "target_num_hidden_layers": 28},
        QWEN3_8B,
    ),
    "an EAGLE-3 fc sized for other taps": (
        {**EAGLE3, "eagle_aux_hidden_state_layer_ids": [2, 10, 18, 33]},
        QWEN3_8B_FILE,
    ),
    "a speculators null mask_token_id": ({**SPECULATORS, "mask_token_id": None}, None),
    "a draft model of another vocabulary": (QWEN2_1_5B, QWEN2_32B),
    "an EAGLE-3 head without architectures": (
        {"model_type": "llama", "hidden_size": 4096, "draft_vocab_size": 32000},
        None,
    ),
}
"""Drafts that break the rules no bundled or corpus draft breaks, each with its target."""


@dataclass(frozen=True)
class Built:
    """One finding of a covered module, with where it was checked."""

    case: str
    module: str
    finding: _FindingFields
    """An error or a warning."""


def _cases() -> Iterator[tuple[str, Model, Model | None]]:
    """(name, draft, target) for every bundled example, corpus draft and made draft."""
    for config in sorted(EXAMPLES.rglob("config.json")):
        folder = config.parent
        if folder.name == "target":
            continue
        target = folder.parent / "target" if folder.name == "draft" else None
        yield str(folder.relative_to(EXAMPLES.parent)), folder, target
    for reading in READINGS:
        target = reading["target"]
        yield reading["file"], CORPUS / reading["file"], None if target is None else CORPUS / target
    for name, (made, made_target) in MADE.items():
        yield name, made, made_target


def _builder(finding: _FindingFields) -> str:
    """The module of the first frame outside the finding's own constructors."""
    frame: FrameType | None = sys._getframe(2)
    while frame is not None and frame.f_locals.get("self") is finding:
        frame = frame.f_back
    return "?" if frame is None else str(frame.f_globals.get("__name__", "?"))


@pytest.fixture(scope="module")
def built() -> list[Built]:
    """Every error and warning of the covered modules, over every case, engine and mode."""
    modules: dict[int, str] = {}
    original = _FindingFields.__init__

    def recording(self: _FindingFields, message: str, **kwargs: Any) -> None:
        original(self, message, **kwargs)
        modules[id(self)] = _builder(self)

    found: list[Built] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_FindingFields, "__init__", recording)
        for name, draft, target in _cases():
            for engine in _ENGINES:
                for require_parallel in (False, True):
                    verdict = check(
                        draft,
                        target=target,
                        engine=engine,  # type: ignore[arg-type]
                        require_parallel=require_parallel,
                    )
                    for finding in (*verdict.errors, *verdict.warnings):
                        module = modules.get(id(finding), "?")
                        if module in COVERED:
                            found.append(Built(name, module, finding))
    return found


def test_the_drafts_exercise_the_covered_modules(built: list[Built]) -> None:
    # The contract is held on real findings: every rule of the covered modules these drafts
    # break speaks, in each module.
    modules = {item.module.rpartition(".")[2] for item in built}
    assert {"layers", "checkpoint", "drafters", "resolution", "vllm"} <= modules
    assert {str(item.finding.code) for item in built} >= {
        "default-layers-mismatch",
        "eagle3-width",
        "fc-weight-width-mismatch",
        "k3-layer-fields-invalid",
        "k3-num-target-layers-float",
        "layer-id-minus-one",
        "layer-id-out-of-range",
        "layer-ids-floats",
        "layer-ids-invalid",
        "layer-ids-unordered",
        "num-target-layers-not-count",
        "num-target-layers-not-depth",
        "num-target-layers-unexplained",
        "omni-layer-ids-invalid",
        "projector-unimplemented",
        "runners-disagree-on-layers",
        "sequential-not-parallel",
        "speculators-token-missing",
    }


def test_every_finding_has_a_declared_code(built: list[Built]) -> None:
    for item in built:
        code = item.finding.code
        assert code is not None, (item.case, str(item.finding))
        assert CODES.get(code.name) is code, (item.case, code)


_QUOTED: Final = re.compile(r"`[^`]*`|'[^']*'|\"[^\"]*\"|\[[^\]]*\]")
"""Code spans, quoted strings and lists, which may hold a value's own punctuation."""


def _prose(message: str) -> str:
    return _QUOTED.sub("X", message)


def test_every_message_is_one_short_sentence_without_a_source_file(built: list[Built]) -> None:
    for item in built:
        message = str(item.finding)
        where = (item.case, message)
        assert message.endswith("."), where
        assert not re.search(r"[.;!?] ", _prose(message)), where  # one sentence
        assert ".py" not in message, where
        for version in VERSIONS:  # the engine's line names the release
            assert version not in message, where
        assert len(message) <= MAX_MESSAGE_CHARS, (len(message), *where)


def test_evidence_backs_every_message_that_says_what_vllm_does(built: list[Built]) -> None:
    for item in built:
        message, evidence = str(item.finding), item.finding.evidence
        if "vLLM" in message:
            assert evidence is not None, (item.case, message)
            assert ".py" in evidence, (item.case, evidence)


def test_every_fix_is_one_lower_case_clause(built: list[Built]) -> None:
    for item in built:
        fix = item.finding.fix
        if fix is None:
            continue
        assert fix[0].islower(), (item.case, fix)
        assert not fix.endswith("."), (item.case, fix)
        assert not re.search(r"[.;!?] ", _prose(fix)), (item.case, fix)


def test_every_finding_names_its_field_or_none(built: list[Built]) -> None:
    for item in built:
        field = item.finding.field
        assert field is None or (field and " " not in field), (item.case, field)
