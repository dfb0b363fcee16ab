"""SGLang's verdict on a draft: the rules of every module of this package, run in the order
SGLang's load path meets them (:func:`judge`).  Imported by the package's entry points on
first use, so a check that asks only for vLLM never loads SGLang's rules."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Final

from drafting_config.draft.architectures import eagle3_head_fields
from drafting_config.draft.fields import FieldStatus
from drafting_config.draft.file import DraftFile
from drafting_config.engines.interface import PeekedReads, Reading, Reads, with_eagle_head
from drafting_config.engines.sglang.config import (
    check_sglang_config,
    check_sglang_method,
    check_sglang_standalone,
    ignored_token,
    sglang_algorithm,
    standalone_class,
)
from drafting_config.engines.sglang.launch import check_sglang_launch
from drafting_config.engines.sglang.layers import check_sglang_layers, sglang_layers
from drafting_config.engines.sglang.names import Algorithm, SglangRefuses
from drafting_config.engines.sglang.running import (
    check_sglang_assumed_defaults,
    check_sglang_guessed_layers,
    check_sglang_rope,
)
from drafting_config.engines.sglang.serving import serve_command
from drafting_config.engines.sglang.token import (
    check_sglang_mask_embedding,
    check_sglang_placeholders,
    check_sglang_token,
    sglang_token,
    sglang_token_fields,
)
from drafting_config.engines.sglang.weights import check_sglang_eagle3_weights, models_weights
from drafting_config.rules.subject import Subject
from drafting_config.rules.target import check_target_placeholders
from drafting_config.rules.tokenizer import check_token_in_tokenizer
from drafting_config.values import codes
from drafting_config.values.errors import ParallelDraftingConfigError, ParallelDraftingConfigWarning
from drafting_config.values.findings import Findings

RULES: Final[tuple[Callable[..., None], ...]] = (
    check_sglang_method,
    check_sglang_config,
    check_sglang_token,
    check_sglang_placeholders,
    check_target_placeholders,
    check_sglang_layers,
    check_sglang_guessed_layers,
    check_sglang_rope,
    check_sglang_assumed_defaults,
    check_token_in_tokenizer,
    check_sglang_eagle3_weights,
    check_sglang_mask_embedding,
    check_sglang_standalone,
    check_sglang_launch,
)
"""The rules :func:`judge` runs, in its order (a test holds the two equal), each where the
load path meets it; the docs' rules table is generated from them
(:mod:`drafting_config.cli.rules_page`)."""


def resolver_findings(draft: DraftFile) -> Findings:
    """The errors of the draft's file that speak for SGLang: those beside its token id
    (:meth:`~drafting_config.draft.file.DraftFile.errors_beside_token`), which SGLang reads
    its own way (:mod:`.token`); none for a speculators file, a format SGLang has not."""
    if draft.format == "speculators":
        return Findings()
    return Findings(draft.errors_beside_token())


def judge(
    subject: Subject, found: Findings, reads: Reads, *, require_parallel: bool = False
) -> Reading:
    """SGLang 0.5.23's verdict on the draft (see :mod:`drafting_config.engines.interface`): the
    method and the config parses, then, for DFLASH, the served tokenizer (``--tokenizer``,
    else the target's, else the draft's), with which SGLang settles the token id; the token,
    placeholder and layer rules; the tokenizer's rules for that id; and the
    ``mask_embedding.pt`` beside a local draft.  Where SGLang settles on no id of its own,
    the placeholder rules judge the one the draft's file names.  An EAGLE3 draft is served
    sequentially: a token field it names is unused (a warning), and with
    ``require_parallel`` that is an error (:func:`_sequential_findings`)."""
    draft = subject.draft
    if not (draft.fields or draft.format == "speculators"):  # SGLang refuses the latter
        return Reading(token_fields=())
    named = draft.token
    if named is not None:
        subject = replace(subject, token_id=named[0], token_field=named[1])
    reads = PeekedReads(reads)
    subject = _told_by_tensors(subject, found, reads)
    algorithm: Algorithm | None = None
    token_id = source = None
    layers: tuple[tuple[int, ...] | None, str | None] = (None, None)
    facts = None
    with found.collect():
        algorithm = sglang_algorithm(subject)
        for rule in (check_sglang_method, check_sglang_config):
            rule(subject, found)
    if algorithm is Algorithm.DFLASH:
        subject = replace(subject, tokenizer=reads.served_tokenizer(found))
    with found.collect():
        check_sglang_token(subject, found)
    try:
        token = sglang_token(subject)
    except ParallelDraftingConfigError:  # recorded by check_sglang_token
        token = None
    if token is not None and token.token_id is not None and token.source is not None:
        token_id, source = token.token_id, token.source
        subject = replace(subject, token_id=token_id, token_field=source)
    with found.collect():
        for rule in (check_sglang_placeholders, check_target_placeholders, check_sglang_layers):
            rule(subject, found)
        for rule in (check_sglang_guessed_layers, check_sglang_rope, check_sglang_assumed_defaults):
            rule(subject, found)
        layers = _layers_reading(subject)
    if subject.tokenizer is not None and token_id is not None:
        with found.collect():  # SGLang's own rules judge the mask token's text (.token)
            check_token_in_tokenizer(subject, found)
        facts = subject.tokenizer.describe(token_id)
    directory = reads.weights_directory()
    if directory is not None:
        _weights_findings(subject, algorithm, found, reads)
        embedding = reads.mask_embedding(directory)
        with found.collect():
            check_sglang_mask_embedding(replace(subject, mask_embedding=embedding), found)
    if algorithm in _SEQUENTIAL:
        with found.collect():
            check_sglang_standalone(subject, found)
            _sequential_findings(subject, found, algorithm, require_parallel)
    check_sglang_launch(subject, algorithm, found)
    try:
        token_fields = sglang_token_fields(subject, token)
    except ParallelDraftingConfigError:  # a field that cannot be read: recorded already
        token_fields = ()
    return Reading(
        algorithm=None if algorithm is None else algorithm.value,
        token_id=token_id,
        token_source=source,
        aux_layer_ids=layers[0],
        aux_layer_source=layers[1],
        token=facts,
        algorithm_assumed=True,
        mode=None if algorithm is None else _MODES[algorithm],
        parallel=None if algorithm is None else algorithm not in _SEQUENTIAL,
        serve_with=None
        if algorithm is None or found.errors
        else serve_command(algorithm, reads.serve_names()),
        token_fields=token_fields,
    )


_UNSET: Final = frozenset({FieldStatus.ABSENT, FieldStatus.NULL})


def _told_by_tensors(subject: Subject, found: Findings, reads: PeekedReads) -> Subject:
    """``subject``, its draft an EAGLE head where its checkpoint's tensor names say so
    (:func:`~drafting_config.engines.interface.with_eagle_head`), when they may decide the
    algorithm (:func:`_tensors_decide`)."""
    with found.collect():
        if _tensors_decide(subject):
            return replace(subject, draft=with_eagle_head(subject.draft, reads))
    return subject


def _tensors_decide(subject: Subject) -> bool:
    """Whether the checkpoint's tensor names may change the algorithm: a Hugging Face config
    of a plain causal LM (:func:`~.config.standalone_class`) naming no token field and no
    EAGLE-3 field, which would be served as STANDALONE.

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    draft = subject.draft
    if draft.format != "hf" or any(f.status not in _UNSET for f in draft.fields):
        return False
    return standalone_class(subject.get) is not None and not eagle3_head_fields(subject.get)


def _weights_findings(
    subject: Subject, algorithm: Algorithm | None, found: Findings, reads: Reads
) -> None:
    """The checkpoint's rules where :mod:`.weights` models the draft's EAGLE-3 class (from
    the safetensors headers); elsewhere a note that only those loaders are modelled."""
    if algorithm is Algorithm.EAGLE3 and _weights_modelled(subject):
        with found.collect():
            files = reads.checkpoint(found)
            if files is not None and files.headers is not None:
                check_sglang_eagle3_weights(subject, files.headers, found)
        return
    found.note(
        "weights not checked for SGLang: only its EAGLE-3 heads' loaders are modelled",
        code=codes.WEIGHTS_NOT_MODELLED,
    )


def _weights_modelled(subject: Subject) -> bool:
    """Whether the draft's EAGLE-3 class is one :mod:`.weights` models (``False`` where its
    ``architectures`` cannot be read: the rules above record that)."""
    try:
        return models_weights(subject.get)
    except ParallelDraftingConfigError:
        return False


def _layers_reading(subject: Subject) -> tuple[tuple[int, ...] | None, str | None]:
    """The tapped layers and their source for the verdict, ``(None, None)`` where SGLang
    refuses them (:func:`check_sglang_config` and :func:`check_sglang_layers` record that)."""
    try:
        reading = sglang_layers(subject)
    except SglangRefuses:
        return None, None
    return reading.ids, reading.source


_MODES: Final = {
    Algorithm.DFLASH: "dflash",
    Algorithm.DSPARK: "dspark",
    Algorithm.EAGLE3: "eagle3",
    Algorithm.EAGLE: "eagle",
    Algorithm.STANDALONE: "standalone",
}
"""The verdict's mode for each ``--speculative-algorithm`` (DFLASH and DSPARK draft the
masked slots in one pass, ``srt/speculative/spec_info.py``; EAGLE3 and STANDALONE one token
a step)."""

_SEQUENTIAL: Final = frozenset({Algorithm.EAGLE3, Algorithm.EAGLE, Algorithm.STANDALONE})
"""The algorithms that draft one token a step."""

_SEQUENTIAL_WORKERS: Final = {
    Algorithm.EAGLE3: "srt/speculative/eagle_worker_v2.py: EAGLEWorkerV2",
    Algorithm.EAGLE: "srt/speculative/eagle_worker_v2.py: EAGLEWorkerV2",
    Algorithm.STANDALONE: "srt/speculative/standalone_worker_v2.py: StandaloneWorkerV2",
}


def _sequential_findings(
    subject: Subject, found: Findings, algorithm: Algorithm, require_parallel: bool
) -> None:
    """A draft SGLang serves sequentially, as EAGLE3 or as STANDALONE: a token field it
    names is unused there (:func:`~drafting_config.engines.sglang.config.ignored_token`), a
    warning; with ``require_parallel``, being served sequentially at all is an error
    (``srt/speculative/spec_info.py: SpeculativeAlgorithm`` has no parallel EAGLE-3 mode and
    no PARD)."""
    ignored = ignored_token(subject)
    evidence = (
        f"{_SEQUENTIAL_WORKERS[algorithm]} drafts one token a step; "
        "srt/speculative/spec_info.py: SpeculativeAlgorithm has no parallel mode for it"
    )
    if require_parallel:
        found.error(
            ParallelDraftingConfigError(
                f"SGLang serves this draft as sequential {algorithm.value}, having no parallel "
                "mode for it, and parallel drafting is required.",
                field=ignored,
                code=codes.SEQUENTIAL_NOT_PARALLEL,
                fix="serve it with vLLM, or train a DFlash or DSpark drafter for SGLang",
                evidence=evidence,
            )
        )
    elif ignored is not None:
        found.warn(
            ParallelDraftingConfigWarning(
                f"`{ignored}` is unused by SGLang: it serves this draft as sequential "
                f"{algorithm.value}, which reads no parallel-drafting token.",
                field=ignored,
                code=codes.TOKEN_UNUSED,
                evidence=evidence,
            )
        )
