"""vLLM 0.33.0, one package: its names (:mod:`.names`), tables (:mod:`.tables`), runners and
layer chains (:mod:`.runners`), the speculators translation (:mod:`.speculators`), the token
chain (:mod:`.resolution`), the checkpoint table (:mod:`.architectures`), the load path
(:mod:`.load_path`), the layer rules (:mod:`.layers`) and the checkpoint rules
(:mod:`.checkpoint`), each importing only those before it; this module is the engine's
entry point (:data:`ENGINE`, :data:`RULES`, :func:`judge`), of the shape
:class:`~drafting_config.engines.interface.EngineRules` gives.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from drafting_config.draft.file import DraftFile
from drafting_config.engines.interface import Reading, Reads, WeightsFacts
from drafting_config.engines.vllm.layers import check_layers
from drafting_config.engines.vllm.load_path import (
    check_architecture_registered,
    check_architectures_listed,
    check_config_parses,
    check_construction,
    check_null_token_fields,
    check_sample_from_anchor,
    check_served_context,
    check_target_tapped,
)
from drafting_config.engines.vllm.names import ENGINE as ENGINE
from drafting_config.engines.vllm.names import VERSION as VERSION
from drafting_config.engines.vllm.resolution import VllmRule, VllmSubject, aux_layers, resolution_of
from drafting_config.files.tokenizer_files import TOKENIZER_JSON_NAME, TokenFacts
from drafting_config.rules.subject import Subject
from drafting_config.rules.target import check_target_placeholders, check_target_sizes
from drafting_config.rules.tokenizer import check_tokenizer
from drafting_config.values import codes
from drafting_config.values.errors import ParallelDraftingConfigError
from drafting_config.values.findings import Findings
from drafting_config.values.paths import display_path

RULES: Final[tuple[VllmRule, ...]] = (
    check_config_parses,
    check_architectures_listed,
    check_architecture_registered,
    check_null_token_fields,
    check_sample_from_anchor,
    check_construction,
    check_target_sizes,
    check_target_placeholders,
    check_target_tapped,
    check_served_context,
    check_layers,
)
"""The rules of the draft against its target, in the order their findings are listed; the
first field that cannot be read at all stops them (it is the draft's error)."""


def resolver_findings(draft: DraftFile) -> Findings:
    """Every error and warning of :func:`~drafting_config.resolve` on the draft's file: its
    token-id chain is vLLM's."""
    resolution = resolution_of(draft)
    return Findings(list(resolution.errors), list(resolution.warnings))


def judge(subject: Subject, found: Findings, reads: Reads) -> Reading:
    """vLLM 0.33.0's verdict on the draft (see :mod:`drafting_config.engines.interface`): its
    :func:`~drafting_config.resolve`, the rules of :data:`RULES`, then the tokenizer beside
    the draft that knows the token id (:func:`~drafting_config.rules.tokenizer.check_tokenizer`),
    then the checkpoint (:func:`~drafting_config.engines.vllm.checkpoint.check_checkpoint`);
    the token id is the resolver's winner, the tapped layers the serving runner's, knowing
    the target."""
    resolution, facts = resolution_of(subject.draft), subject.target
    vllm_subject = VllmSubject.of(resolution, facts)
    if facts is not None and facts.vocab_size is facts.hidden_size is facts.num_layers is None:
        found.note(
            "target compared on nothing: it gives no vocab_size, hidden_size or "
            "num_hidden_layers (nor in text_config)",
            code=codes.TARGET_HAS_NO_SIZES,
        )
    aux = resolution.aux_layer_ids, resolution.aux_layer_source
    token = weights = None
    if resolution.fields:
        with found.collect():
            for rule in RULES:
                rule(vllm_subject, found)
            aux = aux_layers(vllm_subject)  # the layers as vLLM resolves them knowing the target
        if resolution.winner is not None:
            token = _tokenizer_facts(vllm_subject, found, reads)
        weights = _weights_facts(vllm_subject, found, reads)
    winner = resolution.winner
    return Reading(
        algorithm=resolution.algorithm,
        token_id=None if winner is None else winner.token_id,
        token_source=None if winner is None else winner.source.value,
        aux_layer_ids=aux[0],
        aux_layer_source=aux[1],
        token=token,
        weights=weights,
        shadowed=resolution.shadowed,
    )


def _tokenizer_facts(subject: VllmSubject, found: Findings, reads: Reads) -> TokenFacts | None:
    """Check the token id against the tokenizer files that know it; a note says when the
    files cannot classify the id."""
    token_id = subject.token_id
    if token_id is None:
        return None
    try:
        files = reads.tokenizer_knowing(token_id, found)
        if files is None:
            return None
        check_tokenizer(replace(subject, tokenizer=files), found)
    except ParallelDraftingConfigError as error:
        found.error(error)
        return None
    token = files.describe(token_id)
    if token is None:
        found.note(
            f"tokenizer cannot classify token id {token_id}: the tokenizer files found "
            f"({display_path(files.directory)}: {', '.join(files.files)}) have no "
            f"{TOKENIZER_JSON_NAME} and do not list it as an added token",
            code=codes.TOKENIZER_CANNOT_CLASSIFY,
        )
    return token


def _weights_facts(subject: VllmSubject, found: Findings, reads: Reads) -> WeightsFacts | None:
    """Check the checkpoint beside the draft against its config
    (:mod:`drafting_config.engines.vllm.checkpoint`)."""
    files = reads.checkpoint(found)
    if files is None:
        return None
    # Imported here: a --no-weights sweep never loads the checkpoint rules.
    from drafting_config.engines.vllm.checkpoint import (  # noqa: PLC0415
        check_checkpoint,
        weights_facts,
    )

    subject = replace(subject, checkpoint=files.headers, mask_embedding=files.mask_embedding)
    with found.collect():
        check_checkpoint(subject, found)
    try:
        return weights_facts(subject, files.shown)
    except ParallelDraftingConfigError:  # a field that cannot be read: an error above
        return None
