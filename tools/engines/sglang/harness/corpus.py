"""What the SGLang harness runs: each corpus draft and bundled example, its target and the
``--speculative-algorithm`` it is served with.

The drafts and their targets are the vLLM harness's (:data:`tools.harness.corpus.CASES`:
a public target where one fits, else a synthesized one, marked ``target_synthesized``; a
failure at the target or capture stage on a synthesized target is no reading of the draft).
SGLang takes the algorithm from ``--speculative-algorithm`` alone and has no
parallel-drafting switch, so each draft runs once, under the algorithm of the vLLM method it
asks for (:data:`ALGORITHM_OF_METHOD`): DFlash-family drafts under ``DFLASH``,
DSpark-family under ``DSPARK``, EAGLE-3 drafts under ``EAGLE3`` (sequential in SGLang 0.5.23),
plain causal LMs (PARD) under ``STANDALONE``, SGLang's plain draft model.

:data:`LIVE_SAMPLE` is what CI runs live: one DFLASH draft SGLang serves, one DSPARK and one
EAGLE3 draft, and one draft it refuses at class resolution, all on public targets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from tools.harness.corpus import CASES as VLLM_CASES

__all__ = ["ALGORITHM_OF_METHOD", "CASES", "LIVE_SAMPLE", "Case"]

ALGORITHM_OF_METHOD: Final[dict[str, str]] = {
    "dflash": "DFLASH",
    "dspark": "DSPARK",
    "eagle3": "EAGLE3",
    "draft_model": "STANDALONE",
}
"""SGLang's ``--speculative-algorithm`` for each vLLM ``method`` a corpus case asks for."""


@dataclass(frozen=True)
class Case:
    """One draft with its target (paths relative to the repository's root) and algorithm."""

    name: str
    draft: str
    target: str
    target_synthesized: bool
    algorithm: str


CASES: Final[tuple[Case, ...]] = tuple(
    Case(
        case.name,
        case.draft,
        case.target,
        case.target_synthesized,
        ALGORITHM_OF_METHOD[case.modes[0].method],
    )
    for case in VLLM_CASES
)
"""Every corpus draft and bundled example draft, in the vLLM harness's order."""

LIVE_SAMPLE: Final[tuple[str, ...]] = (
    "specforge--qwen3-8b-dflash",
    "specforge--qwen3-8b-dspark",
    "sglang--qwen3-8b-eagle3-ascend-fixture",
    "specforge--qwen3-8b-domino",
)
"""The cases CI runs live (by name): DFLASH, DSPARK, EAGLE3 and a refused draft."""
