"""What SGLang 0.5.23 does with a draft, as plain functions and tables, one module per topic,
each function citing the SGLang code it follows (read for facts from the released wheel,
never copied; ``srt/`` stands for ``sglang/srt/``):

* **Names** (:mod:`.names`). SGLang takes the algorithm from ``--speculative-algorithm``
  alone; a draft fits the algorithm of its model class.
* **Tables** (:mod:`.tables`): ``sglang-VERSION.json``, the model types its config loader
  parses and the target classes' capture hooks (derived from every ``EntryClass`` of
  ``srt/models/``).
* **The config** (:mod:`.config`). The config loader, and ``parse_dflash_draft_config``
  (``srt/speculative/dflash_utils.py``) and ``parse_dspark_draft_config``
  (``srt/speculative/dspark_components/dspark_config.py``) as SGLang reads and refuses
  them, with the rules that judge a draft by them.
* **The token id** (:mod:`.token`): ``DFlashWorkerV2._resolve_mask_token_id``
  (``srt/speculative/dflash_worker_v2.py``): the configured id, else the served
  tokenizer's ``<|MASK|>``, added to it when missing; and ``mask_embedding.pt``.
* **The tapped layers** (:mod:`.layers`): ``build_target_layer_ids`` and
  ``resolve_target_layer_ids`` (``dflash_utils.py``), the DSPARK replacement list and
  EAGLE-3's ``eagle_config`` list (``spec_aux_hidden_state.py``), and the target class's
  capture hook, in capture indices.

:mod:`.token` and :mod:`.layers` read :mod:`.config`'s parses and not each other.  This
module is the engine's entry point (:data:`ENGINE`, :func:`resolver_findings`,
:func:`judge`), of the shape :class:`~drafting_config.engines.interface.EngineRules` gives.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from drafting_config.engines.sglang.names import ENGINE as ENGINE
from drafting_config.engines.sglang.names import SERVE_OPTION as SERVE_OPTION
from drafting_config.engines.sglang.names import VERSION as VERSION

if TYPE_CHECKING:
    from drafting_config.draft.file import DraftFile
    from drafting_config.engines.interface import LaunchFacts, Reading, Reads
    from drafting_config.rules.subject import Subject
    from drafting_config.values.findings import Findings
    from drafting_config.values.launch import Launch


def resolver_findings(draft: DraftFile) -> Findings:
    """:func:`.judging.resolver_findings`, its module loaded on first use (a check that asks
    only for vLLM never loads SGLang's rules)."""
    from drafting_config.engines.sglang import judging  # noqa: PLC0415 (loaded when asked)

    return judging.resolver_findings(draft)


def launch_facts(launch: Launch) -> LaunchFacts:
    """:func:`.launch.launch_facts`: whether ``launch`` runs SGLang's server, its target and
    draft (its module loaded on first use)."""
    from drafting_config.engines.sglang import launch as launches  # noqa: PLC0415

    return launches.launch_facts(launch)


def judge(
    subject: Subject, found: Findings, reads: Reads, *, require_parallel: bool = False
) -> Reading:
    """:func:`.judging.judge`, SGLang 0.5.23's verdict on the draft, its module loaded on
    first use."""
    from drafting_config.engines.sglang import judging  # noqa: PLC0415 (loaded when asked)

    return judging.judge(subject, found, reads, require_parallel=require_parallel)
