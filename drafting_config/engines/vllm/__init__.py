"""vLLM 0.32.0, 0.33.0 and 0.34.0, one package: its names (:mod:`.names`), tables (:mod:`.tables`),
runners and
layer chains (:mod:`.runners`), the speculators translation (:mod:`.speculators`), the token
chain (:mod:`.resolution`), the checkpoint table (:mod:`.architectures`), the load path
(:mod:`.load_path`), the layer rules (:mod:`.layers`) and the checkpoint rules
(:mod:`.checkpoint`), each importing only those before it; this module is the engine's
entry point (:data:`ENGINE`, :data:`RULES`, :func:`judge`, for the newest release), of the
shape :class:`~drafting_config.engines.interface.EngineRules` gives; :data:`RELEASES` holds
the same for each release the package reads.  A release is one tables file
(``vllm-VERSION.json``) and one string of :data:`~.names.Release`; what differs between
releases beyond the tables is gated in the rules on the release (:func:`~.names.since`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Final, get_args

from drafting_config.draft.fields import FieldStatus
from drafting_config.draft.file import DraftFile
from drafting_config.engines.interface import (
    LaunchFacts,
    PeekedReads,
    Reading,
    Reads,
    WeightsFacts,
    with_eagle_head,
)
from drafting_config.engines.vllm import codes as vllm_codes
from drafting_config.engines.vllm.draft_models import check_draft_model_vocab
from drafting_config.engines.vllm.drafters import check_eagle3_width, check_projector_type
from drafting_config.engines.vllm.eagle_heads import check_unlisted_eagle_head
from drafting_config.engines.vllm.layers import check_layers
from drafting_config.engines.vllm.load_path import (
    check_architecture_registered,
    check_architectures_listed,
    check_config_parses,
    check_construction,
    check_declared_speculator,
    check_null_token_fields,
    check_peagle,
    check_sample_from_anchor,
    check_served_context,
    check_speculators_layer_config,
    check_target_tapped,
    check_xpress,
)
from drafting_config.engines.vllm.modes import (
    PARALLEL_SWITCH_EVIDENCE,
    ServedMode,
    names_token_field,
    on_release,
    parallel_fix,
    sequential_note,
    sequential_refused,
    served_mode,
    tensors_decide,
)
from drafting_config.engines.vllm.names import ENGINE as ENGINE
from drafting_config.engines.vllm.names import (
    REFUSES_PARALLEL_SWITCH,
    Release,
    engine_name,
    last_before,
    since,
)
from drafting_config.engines.vllm.names import SERVE_OPTION as SERVE_OPTION
from drafting_config.engines.vllm.names import VERSION as VERSION
from drafting_config.engines.vllm.resolution import (
    Resolution,
    VllmRule,
    VllmSubject,
    aux_layers,
    resolution_of,
    served_as,
)
from drafting_config.engines.vllm.running import (
    check_assumed_causality,
    check_assumed_sample_from_anchor,
    check_guessed_layers,
    check_rope_against_target,
)
from drafting_config.engines.vllm.serving import serve_command
from drafting_config.files.tokenizer_files import TOKENIZER_JSON_NAME, TokenFacts
from drafting_config.rules.subject import Subject
from drafting_config.rules.target import check_target_placeholders, check_target_sizes
from drafting_config.rules.tokenizer import check_tokenizer
from drafting_config.values.codes import SEQUENTIAL_NOT_PARALLEL, TOKEN_UNUSED, Step
from drafting_config.values.errors import ParallelDraftingConfigError, ParallelDraftingConfigWarning
from drafting_config.values.findings import Findings
from drafting_config.values.launch import Launch
from drafting_config.values.paths import display_path

_UNSET: Final = frozenset({FieldStatus.ABSENT, FieldStatus.NULL})

RULES: Final[tuple[VllmRule, ...]] = (
    check_config_parses,
    check_architectures_listed,
    check_architecture_registered,
    check_unlisted_eagle_head,
    check_peagle,
    check_declared_speculator,
    check_null_token_fields,
    check_sample_from_anchor,
    check_xpress,
    check_construction,
    check_speculators_layer_config,
    check_projector_type,
    check_target_sizes,
    check_draft_model_vocab,
    check_target_placeholders,
    check_target_tapped,
    check_served_context,
    check_layers,
    check_eagle3_width,
    check_guessed_layers,
    check_rope_against_target,
    check_assumed_sample_from_anchor,
    check_assumed_causality,
)
"""The rules of the draft against its target, in the order their findings are listed; the
first field that cannot be read at all stops them (it is the draft's error)."""


def launch_facts(launch: Launch) -> LaunchFacts:
    """:func:`.launch.launch_facts`: whether ``launch`` runs vLLM's server, its target and
    draft (its module loaded on first use: a check given no launch never loads it)."""
    from drafting_config.engines.vllm import launch as launches  # noqa: PLC0415

    return launches.launch_facts(launch)


def resolver_findings(draft: DraftFile) -> Findings:
    """Every error and warning of :func:`~drafting_config.resolve` on the draft's file: its
    token-id chain is vLLM's."""
    resolution = resolution_of(draft)
    return Findings(list(resolution.errors), list(resolution.warnings))


def judge(
    subject: Subject,
    found: Findings,
    reads: Reads,
    *,
    require_parallel: bool = False,
    version: str = VERSION,
) -> Reading:
    """vLLM ``version``'s verdict on the draft (see :mod:`drafting_config.engines.interface`): its
    :func:`~drafting_config.resolve`, the rules of :data:`RULES`, then the tokenizer beside
    the draft that knows the token id (:func:`~drafting_config.rules.tokenizer.check_tokenizer`),
    then the checkpoint (:func:`~drafting_config.engines.vllm.checkpoint.check_checkpoint`);
    the token id is the resolver's winner, the tapped layers the serving runner's, knowing
    the target.  A draft that asks for no parallel drafting is judged in the sequential
    mode vLLM serves it in (:func:`~drafting_config.engines.vllm.modes.served_mode`), unless
    ``require_parallel``."""
    facts = subject.target
    resolution, asked, mode, reads = _modes(subject.draft, reads, version)
    token_unused = mode.name != asked.name
    if not mode.asks_parallel:
        resolution = _judged_sequentially(resolution, mode, found, require_parallel, version)
    elif token_unused:
        resolution = _token_unused(resolution, mode, found, require_parallel)
    named = None if token_unused else resolution.draft.token  # the resolver's winner
    vllm_subject = VllmSubject(
        draft=resolution.draft,
        target=facts,
        token_id=None if named is None else named[0],
        token_field=None if named is None else named[1],
        separate_model=mode.name == "draft-model",  # its own hidden states, never the target's
        resolution=resolution,
        version=version,
        token_unused=token_unused,
    )
    if facts is not None and facts.vocab_size is facts.hidden_size is facts.num_layers is None:
        found.note(
            "target compared on nothing: it gives no vocab_size, hidden_size or "
            "num_hidden_layers (nor in text_config)",
            code=vllm_codes.TARGET_HAS_NO_SIZES,
        )
    aux = resolution.aux_layer_ids, resolution.aux_layer_source
    winner = None if token_unused else resolution.winner
    token = weights = None
    if resolution.fields:
        with found.collect():
            for rule in RULES:
                rule(vllm_subject, found)
            aux = aux_layers(vllm_subject)  # the layers as vLLM resolves them knowing the target
        if token_unused:
            _drop_token_unused_if_refused(found)
        if subject.launch is not None:
            # Imported here: a check given no launch never loads the launch rules.
            from drafting_config.engines.vllm.launch import check_launch  # noqa: PLC0415

            check_launch(replace(vllm_subject, launch=subject.launch), mode, found)
        if winner is not None:
            token = _tokenizer_facts(vllm_subject, found, reads)
        weights = _weights_facts(vllm_subject, found, reads)
    return Reading(
        algorithm=resolution.algorithm,
        token_id=None if winner is None else winner.token_id,
        token_source=None if winner is None else winner.source.value,
        aux_layer_ids=aux[0],
        aux_layer_source=aux[1],
        token=token,
        weights=weights,
        shadowed=resolution.shadowed,
        mode=mode.name,
        parallel=mode.parallel,
        serve_with=None
        if found.errors
        else serve_command(mode, subject.draft, reads.serve_names(), found, version),
    )


def _modes(
    draft: DraftFile, reads: Reads, version: str
) -> tuple[Resolution, ServedMode, ServedMode, Reads]:
    """The draft's resolution (an EAGLE head under its base class told by its tensors, when
    the config cannot tell it), the mode it asks for, the mode ``version`` serves it in, and
    ``reads`` for the rules: :class:`PeekedReads` where the tensors were looked at (so that
    the checkpoint is read once), else ``reads`` itself."""
    resolution = resolution_of(draft)
    asked = served_mode(resolution, version)
    if tensors_decide(resolution, asked):
        reads = PeekedReads(reads)
        headed = with_eagle_head(draft, reads)
        if headed is not draft:
            resolution = resolution_of(headed)
            asked = served_mode(resolution, version)
    mode = on_release(asked, version)
    if mode.name != asked.name and not names_token_field(resolution):
        mode = replace(asked, parallel=False)  # no token to leave unused: judged as asked
    return resolution, asked, mode, reads


def _judged_sequentially(
    resolution: Resolution,
    mode: ServedMode,
    found: Findings,
    require_parallel: bool,
    version: str,
) -> Resolution:
    """A draft that names no token field and no parallel-only class, as vLLM serves it: in
    the sequential mode of its class, where no token id is read, so the resolver's "names no
    parallel drafting token id" is no error (with ``require_parallel`` it is, under the
    code ``sequential-not-parallel``), and an EAGLE-3 class is read as method ``eagle3``.
    A speculators ``eagle3`` file is served as sequential EAGLE-3 (``update_eagle3`` in
    ``vllm/transformers_utils/configs/speculators/algos.py`` reads no token id): its
    refusal as not parallel drafting (``speculators-not-parallel``) is that missing id.
    From :data:`~.names.REFUSES_PARALLEL_SWITCH` on no switch drafts such a draft in
    parallel: the note's fix and the ``require_parallel`` error say so
    (:func:`_switch_refused`)."""
    refused = since(version, REFUSES_PARALLEL_SWITCH)
    missing = {id(error) for error in resolution.draft.errors} - {
        id(error) for error in resolution.draft.errors_beside_token()
    }
    missing |= {
        id(error)
        for error in resolution.errors
        if error.code is vllm_codes.SPECULATORS_NOT_PARALLEL
    }
    if require_parallel:
        for index, error in enumerate(found.errors):
            if id(error) in missing:
                found.errors[index] = (
                    _switch_refused(mode, error.field)
                    if refused
                    else ParallelDraftingConfigError(
                        sequential_refused(mode),
                        field=error.field,
                        code=SEQUENTIAL_NOT_PARALLEL,
                        fix=parallel_fix(mode),
                        evidence=PARALLEL_SWITCH_EVIDENCE,
                    )
                )
        return resolution
    found.errors[:] = [error for error in found.errors if id(error) not in missing]
    head = resolution.draft.eagle_head
    found.note(
        sequential_note(mode, None if head is None else head.evidence),
        code=vllm_codes.SERVED_SEQUENTIALLY,
        fix=_OLDER_FIX.format(last=last_before(REFUSES_PARALLEL_SWITCH))
        if refused and mode.method != "eagle"  # EAGLE-1 has no parallel mode on any release
        else parallel_fix(mode),
        evidence=_VERIFY_ARGS if refused else PARALLEL_SWITCH_EVIDENCE,
    )
    if mode.method == "eagle3" and resolution.algorithm is None:
        return served_as(resolution, "eagle3")
    return resolution


def _token_unused(
    resolution: Resolution, mode: ServedMode, found: Findings, require_parallel: bool
) -> Resolution:
    """A PTD or PARD draft on a release that refuses ``"parallel_drafting": true`` for its
    method (:data:`~.names.REFUSES_PARALLEL_SWITCH`; ``SpeculativeConfig._verify_args`` in
    ``vllm/config/speculative.py``): vLLM serves the draft in the sequential mode of its
    class, as EAGLE-3 or as a draft model, and reads no token id, so the token's own errors
    and warnings go and its field gets a warning (``token-unused``) naming the last release
    that drafts it in parallel; with ``require_parallel``, an error
    (``sequential-not-parallel``).  A PTD draft is read as method ``eagle3`` (the newer
    runner's layers); a PARD one keeps its method, a draft model fed no hidden states."""
    draft = resolution.draft
    if draft.errors:
        token_errors = {id(error) for error in draft.errors} - {
            id(error) for error in draft.errors_beside_token()
        }
        found.errors[:] = [error for error in found.errors if id(error) not in token_errors]
    if found.warnings:
        token_fields = {draft.file_field(verdict.source.value) for verdict in resolution.fields}
        found.warnings[:] = [w for w in found.warnings if w.field not in token_fields]
    named = resolution.winner or next(
        (verdict for verdict in resolution.fields if verdict.status not in _UNSET), None
    )
    field = None if named is None else resolution.file_field(named.source.value)
    served = "EAGLE-3" if mode.method == "eagle3" else "a draft model"
    last = last_before(REFUSES_PARALLEL_SWITCH)
    evidence = _VERIFY_ARGS
    if require_parallel:
        found.error(_switch_refused(mode, field))
    else:
        found.warn(
            ParallelDraftingConfigWarning(
                f"`{field}` is unused: vLLM serves this draft sequentially, as {served}, having "
                "no parallel mode for it.",
                field=field,
                code=TOKEN_UNUSED,
                fix=f"serve it with vLLM {last} or older to draft it in parallel",
                evidence=evidence,
            )
        )
    if mode.method == "eagle3":
        return served_as(resolution, "eagle3")
    return resolution  # PARD: a draft model, fed no hidden states


_REFUSING_STEPS: Final = frozenset({Step.PARSE, Step.REGISTRY})
"""The load-path steps whose errors say vLLM cannot load the draft's class at all."""


def _drop_token_unused_if_refused(found: Findings) -> None:
    """No ``token-unused`` warning for a draft vLLM refuses as it parses its config or
    resolves its class (an error at :data:`_REFUSING_STEPS`: ``DominoDraftModel``, an
    unknown ``model_type``): that draft is served in no mode, so "served sequentially, its
    token unused" is not what happens; the error says what does."""
    if any(error.code is not None and error.code.step in _REFUSING_STEPS for error in found.errors):
        found.warnings[:] = [w for w in found.warnings if w.code is not TOKEN_UNUSED]


_VERIFY_ARGS: Final = (
    "vllm/config/speculative.py: SpeculativeConfig._verify_args raises ValueError "
    '"parallel_drafting is only supported by the dflash and dspark methods"'
)
"""Where vLLM from :data:`~.names.REFUSES_PARALLEL_SWITCH` on refuses the switch."""

_OLDER_FIX: Final = "serve it with vLLM {last} or older, or train a DFlash or DSpark drafter"


def _switch_refused(mode: ServedMode, field: str | None) -> ParallelDraftingConfigError:
    """The ``require_parallel`` error on a release that refuses ``"parallel_drafting": true``
    for the draft's method (``eagle3``, ``draft_model``): the config stage fails
    (``parallel-switch-refused``), where the older releases read the token."""
    served = "EAGLE-3" if mode.method == "eagle3" else "a draft model"
    return ParallelDraftingConfigError(
        f'vLLM refuses "parallel_drafting": true for {served}, so it serves this draft only '
        "sequentially, which --require-parallel refuses.",
        field=field,
        code=vllm_codes.PARALLEL_SWITCH_REFUSED,
        fix=_OLDER_FIX.format(last=last_before(REFUSES_PARALLEL_SWITCH)),
        evidence=_VERIFY_ARGS,
    )


@dataclass(frozen=True)
class VllmRelease:
    """One vLLM release's rules, of the shape
    :class:`~drafting_config.engines.interface.EngineRules` gives."""

    version: str

    @property
    def ENGINE(self) -> str:
        """``"vllm VERSION"``."""
        return engine_name(self.version)

    @property
    def SERVE_OPTION(self) -> str:
        """:data:`~.names.SERVE_OPTION`."""
        return SERVE_OPTION

    def launch_facts(self, launch: Launch) -> LaunchFacts:
        """:func:`~.launch.launch_facts`: a launch is parsed alike in every release."""
        return launch_facts(launch)

    def resolver_findings(self, draft: DraftFile) -> Findings:
        """:func:`resolver_findings`: the token chain is the same in every release."""
        return resolver_findings(draft)

    def judge(
        self, subject: Subject, found: Findings, reads: Reads, *, require_parallel: bool = False
    ) -> Reading:
        """:func:`judge` for this release."""
        return judge(subject, found, reads, require_parallel=require_parallel, version=self.version)


RELEASES: Final[Mapping[Release, VllmRelease]] = MappingProxyType(
    {release: VllmRelease(release.removeprefix("vllm==")) for release in get_args(Release)}
)
"""Each release the package reads, by the name ``engine=`` gives it (``"vllm==0.32.0"``)."""


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
            code=vllm_codes.TOKENIZER_CANNOT_CLASSIFY,
        )
    return token


def _weights_facts(subject: VllmSubject, found: Findings, reads: Reads) -> WeightsFacts | None:
    """Check the checkpoint beside the draft against its config
    (:mod:`drafting_config.engines.vllm.checkpoint`)."""
    files = reads.checkpoint(found)
    if files is None or (files.headers is None and files.mask_embedding is None):
        return None  # nothing for the checkpoint rules to compare, nor any facts to give
    # Imported here: a --no-weights sweep, or a draft with no weights beside it, never loads
    # the checkpoint rules.
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
