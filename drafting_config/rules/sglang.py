"""SGLang 0.5.23's rules: what its code refuses, or runs wrong, in a draft and its target.

Every rule follows SGLang's own code through :mod:`drafting_config.engines.sglang`, and
each docstring cites the SGLang file and function it follows.  An error means SGLang
certainly fails at start-up (or feeds the drafter other features than it was trained
on); a warning or a note says what is less certain, with the evidence.

* :func:`check_sglang_method`: the methods and formats SGLang lacks (PARD, parallel
  drafting for EAGLE-3, P-EAGLE, the speculators format), the draft class, the model type.
* :func:`check_sglang_config`: the DFlash and DSpark parses, DSpark's required id and
  Markov head, DFlash2's selector.
* :func:`check_sglang_token`: the token id SGLang settles on (the tokenizer fallback,
  the vocabulary bound, the mask string at another id).
* :func:`check_sglang_layers`: the tapped layers (named or derived, in range, as the
  draft class counts them, the last layer, EAGLE-3 from ``eagle_config``) and the target
  class's capture hook; the draft's ``hidden_size`` against the target's.

The library's own token-id rules (:func:`~drafting_config.draft.resolution.resolve`,
vLLM's five-field chain) do not speak for SGLang: :func:`kept_resolution_errors` keeps
only the resolver's errors that are not about the token id.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final

from drafting_config.draft.resolution import Resolution, names_token_id, placeholder_warning
from drafting_config.engines.sglang import (
    DFLASH2_CLASSES,
    DRAFT_CLASSES,
    EAGLE_LAYER_IDS_FIELD,
    MUSE_LAYER_OUTPUT_DRAFTS,
    VERSION,
    Algorithm,
    ConfigLoad,
    DFlashDraft,
    DSparkDraft,
    Hook,
    LastLayer,
    MaskSource,
    MaskTokenId,
    SglangRefuses,
    TargetClass,
    algorithm_of,
    capture_indices,
    class_target_layers,
    config_load,
    draft_class,
    dspark_vocab_bound,
    eagle3_default_layers,
    eagle_layer_ids,
    hook_for,
    model_types,
    parse_dflash_draft_config,
    parse_dspark_draft_config,
    resolve_mask_token_id,
    resolve_target_layer_ids,
    target_class,
    target_depth,
)
from drafting_config.engines.sglang import (
    ENGINE as ENGINE,  # noqa: PLC0414 (re-exported: the engine these rules speak for)
)
from drafting_config.engines.vllm import PEAGLE_ARCHITECTURES, PEAGLE_DRAFT
from drafting_config.rules.engine import Reading, Reads
from drafting_config.rules.subject import Subject
from drafting_config.rules.target import check_target_placeholders
from drafting_config.rules.tokenizer import MASK_TOKEN_TEXT_FIELD, check_tokenizer
from drafting_config.values.errors import (
    ParallelDraftingConfigError,
    ParallelDraftingConfigWarning,
    TargetLayersWarning,
    TokenizerTokenIdWarning,
    describe_value,
)
from drafting_config.values.fields import MISSING, read_path
from drafting_config.values.findings import Findings
from drafting_config.values.integers import exact_int
from drafting_config.values.paths import display_path
from drafting_config.values.sources import EAGLE_CONFIG, TokenIdSource

_NOT_IN_SGLANG: Final = {
    "pard": "PARD (a complete draft LM filling masked slots)",
    "ptd": "parallel token drafting for EAGLE-3",
    "peagle": "P-EAGLE",
}
"""Methods SGLang 0.5.23 has no algorithm for (``srt/speculative/spec_info.py:
SpeculativeAlgorithm``: DFLASH, UNO, DSPARK, EAGLE, EAGLE3, FROZEN_KV_MTP, STANDALONE,
NGRAM), and nothing in it reads ``pard_token`` or ``ptd_token_id``."""

_OFFERS: Final = (
    "SGLang offers DFLASH, DSPARK and sequential EAGLE3 (--speculative-algorithm) for "
    "drafts of its classes DFlashDraftModel, DSparkDraftModel/Qwen3DSparkModel and "
    "LlamaForCausalLMEagle3"
)


# --- what the draft is, to SGLang ---------------------------------------------------------------


def sglang_algorithm(subject: Subject) -> Algorithm | None:
    """The ``--speculative-algorithm`` the verdict assumes: the one of the draft's SGLang
    class (:func:`~drafting_config.engines.sglang.algorithm_of`), else the method the
    draft's token field names when SGLang has it (DFlash, DSpark); ``None`` otherwise.

    Raises:
        ParallelDraftingConfigError: ``architectures`` cannot be read at all.
    """
    algorithm = algorithm_of(subject.get)
    if algorithm is not None:
        return algorithm
    method = subject.resolution.algorithm
    if method == "dflash":
        return Algorithm.DFLASH
    if method == "dspark":
        return Algorithm.DSPARK
    return None


@dataclass(frozen=True)
class SglangDraft:
    """The draft as SGLang parses it for its algorithm."""

    algorithm: Algorithm
    dflash: DFlashDraft
    dspark: DSparkDraft | None = None


def sglang_draft(subject: Subject) -> SglangDraft | None:
    """SGLang's parse of a DFLASH or DSPARK draft (``None`` for EAGLE3 or no algorithm).

    Raises:
        SglangRefuses: where SGLang's parse raises.
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    algorithm = sglang_algorithm(subject)
    if algorithm is None or algorithm is Algorithm.EAGLE3 or _unsupported(subject):
        return None
    if algorithm is Algorithm.DSPARK:
        dspark = parse_dspark_draft_config(subject.get)
        return SglangDraft(algorithm, dspark.base, dspark)
    return SglangDraft(algorithm, parse_dflash_draft_config(subject.get))


_PEAGLE_ARCHITECTURES: Final = frozenset({PEAGLE_DRAFT, *PEAGLE_ARCHITECTURES.values()})
"""P-EAGLE drafts' architectures (vLLM's classes); SGLang registers none of them."""


def _unsupported(subject: Subject) -> str | None:
    """What SGLang lacks for this draft (a method or the speculators format), or ``None``."""
    resolution = subject.resolution
    if resolution.speculators is not None or resolution.format == "speculators":
        return "speculators format"
    listed = subject.get("architectures", None)
    if isinstance(listed, list) and _PEAGLE_ARCHITECTURES & {
        name for name in listed if isinstance(name, str)
    }:
        return _NOT_IN_SGLANG["peagle"]
    method = resolution.algorithm
    if method in _NOT_IN_SGLANG and draft_class(subject.get) not in _FAMILY_CLASSES:
        return _NOT_IN_SGLANG[method]
    winner = resolution.winner
    if winner is not None and winner.source is TokenIdSource.PTD_TOKEN_ID:
        return _NOT_IN_SGLANG["ptd"]
    return None


_FAMILY_CLASSES: Final = frozenset(
    name for name, algorithm in DRAFT_CLASSES.items() if algorithm is not Algorithm.EAGLE3
)


def kept_resolution_errors(resolution: Resolution) -> list[ParallelDraftingConfigError]:
    """The resolver's errors that speak for SGLang too: all but those about the token id
    (its five-field chain, its "names no token id", ``eagle_config.mask_token_id``), which
    :func:`check_sglang_config` and :func:`check_sglang_token` judge as SGLang reads them."""
    if resolution.format == "speculators":  # vLLM's translation; SGLang has no such format
        return []
    token_errors = {id(f.error) for f in resolution.fields if f.error is not None}
    token_fields = {resolution.file_field(f.source.value) for f in resolution.fields}
    token_fields.add(resolution.file_field(f"{EAGLE_CONFIG}.mask_token_id"))
    kept = []
    for error in resolution.errors:
        if id(error) in token_errors or error.field in token_fields:
            continue
        if error.field is None and resolution.fields and resolution.winner is None:
            continue  # "names no parallel drafting token id"
        kept.append(error)
    return kept


# --- methods, formats, classes ---------------------------------------------------------------


def check_sglang_method(subject: Subject, found: Findings) -> None:
    """Methods and formats SGLang 0.5.23 lacks are errors naming what it offers, and so is
    a ``model_type`` SGLang's config loader cannot parse, and ``architectures`` that name no
    SGLang draft class.

    * No PARD, no parallel drafting for EAGLE-3 (``ptd_token_id``), no P-EAGLE:
      ``srt/speculative/spec_info.py: SpeculativeAlgorithm`` has none of them.
    * No speculators format: nothing in SGLang reads ``speculators_model_type``.
    * The draft's class is ``architectures[0]`` (``srt/models/registry.py:
      ModelRegistry.resolve_model_cls``); without a DFlash, DSpark or EAGLE-3 draft class
      SGLang loads another class (``TransformersForCausalLM`` for an unregistered name),
      which has no draft interface: an error even when a DFlash or DSpark field picks the
      algorithm, since the worker reads that interface as it starts
      (:data:`_WORKER_NEEDS`).
    * A ``model_type`` SGLang's config loader does not know
      (:func:`~drafting_config.engines.sglang.config_load`): ``HfModelConfigParser.parse``
      (``srt/utils/hf_transformers/config.py``) calls ``AutoConfig.from_pretrained``,
      which raises ``ValueError`` for it: an error, or a warning when
      ``auto_map.AutoConfig`` names remote code (served with --trust-remote-code).

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    lacking = _unsupported(subject)
    if lacking is not None:
        found.error(
            ParallelDraftingConfigError(
                f"SGLang {VERSION} has no {lacking}, so it cannot serve this draft. {_OFFERS}."
            )
        )
        return
    _config_load_findings(subject, found)  # the config is loaded before the class is chosen
    algorithm = sglang_algorithm(subject)
    if algorithm is None:
        listed = subject.get("architectures", None)
        found.error(
            ParallelDraftingConfigError(
                f"SGLang {VERSION} has no draft class among `architectures` = "
                f"{describe_value(listed)}, and the draft names no DFlash or DSpark field: "
                "SGLang cannot serve it as a parallel drafter (its registry, "
                f"srt/models/registry.py, loads architectures[0]). {_OFFERS}.",
                field="architectures",
            )
        )
        return
    if draft_class(subject.get) is None and algorithm in _WORKER_NEEDS:
        listed = subject.get("architectures", None)
        worker, attribute, fix = _WORKER_NEEDS[algorithm]
        found.error(
            ParallelDraftingConfigError(
                f"SGLang {VERSION} has no draft class among `architectures` = "
                f"{describe_value(listed)}: it loads another class (srt/models/registry.py: "
                "resolve_model_cls, falling back to TransformersForCausalLM through "
                "srt/model_loader/utils.py: resolve_transformers_arch), which has no "
                f"`{attribute}`, and {worker}.__init__ reads it from the draft model "
                f"(AttributeError). Fix: set `architectures` to [{fix!r}] when the "
                f"checkpoint's weights are that class's (SGLang's draft classes: "
                f"{', '.join(sorted(DRAFT_CLASSES))}). The verdict assumes "
                f"--speculative-algorithm {algorithm.value}.",
                field="architectures",
            )
        )


_WORKER_NEEDS: Final[dict[Algorithm, tuple[str, str, str]]] = {
    # srt/speculative/dflash_worker_v2.py: DFlashWorkerV2.__init__
    # (`self.selector = self.draft_model.candidate_selector`)
    Algorithm.DFLASH: (
        "srt/speculative/dflash_worker_v2.py: DFlashWorkerV2",
        "candidate_selector",
        "DFlashDraftModel",
    ),
    # srt/speculative/dspark_components/dspark_worker_v2.py: DSparkWorkerV2.__init__
    # (`bool(self.draft_model.sample_from_anchor)`)
    Algorithm.DSPARK: (
        "srt/speculative/dspark_components/dspark_worker_v2.py: DSparkWorkerV2",
        "sample_from_anchor",
        "DSparkDraftModel",
    ),
}
"""What each algorithm's worker reads from the draft model as it starts, which no class but
SGLang's draft classes has: the step where a draft of another class fails. Only DFLASH and
DSPARK: without an SGLang class, the algorithm comes from the draft's DFlash or DSpark field
(:func:`sglang_algorithm`)."""


def _config_load_findings(subject: Subject, found: Findings) -> None:
    """See :func:`check_sglang_method`: the draft's ``model_type`` as SGLang's config
    loader reads it."""
    load = config_load(subject.get)
    if load is None or load is ConfigLoad.PARSED:
        return
    model_type = subject.get("model_type", None)
    types = model_types()
    where = (
        "HfModelConfigParser.parse, srt/utils/hf_transformers/config.py, through "
        "transformers' AutoConfig.from_pretrained"
    )
    known = (
        f"known neither to SGLang {VERSION}'s _CONFIG_REGISTRY "
        "(srt/utils/hf_transformers/common.py) and the other config classes it registers, "
        f"nor to transformers {types.transformers} (the version SGLang {VERSION} requires)"
    )
    if load is ConfigLoad.UNKNOWN:
        found.error(
            ParallelDraftingConfigError(
                f"`model_type` = {model_type!r} is {known}, and `auto_map` names no "
                f"AutoConfig: SGLang fails loading the draft's config with ValueError "
                f"({where}). Fix: set `model_type` to the type of the draft's layers, such "
                'as "qwen3", as published checkpoints do.',
                field="model_type",
            )
        )
    else:
        found.warn(
            ParallelDraftingConfigWarning(
                f"`model_type` = {model_type!r} is {known}: SGLang parses the draft's "
                "config only through `auto_map.AutoConfig`'s remote code, with "
                f"--trust-remote-code ({where})."
            )
        )


# --- the config parses -------------------------------------------------------------------------


def check_sglang_config(subject: Subject, found: Findings) -> None:
    """What SGLang's parses refuse, and DSpark's and DFlash2's model classes require.

    * ``parse_dflash_draft_config`` / ``parse_dspark_draft_config`` raise
      (``srt/speculative/dflash_utils.py``, ``dspark_components/dspark_config.py``):
      errors, naming the field.
    * DSPARK: ``markov_rank`` must be above 0 (``_resolve_dflash_aux_hidden_state`` in
      ``spec_aux_hidden_state.py``), the id is required ("DSpark requires mask_token_id",
      ``resolve_runtime_config``), and the Markov head is built from the top-level
      ``markov_rank`` and ``markov_head_type`` only (``srt/models/dspark.py:
      build_markov_head``: a rank only nested raises; a head type only nested builds a
      vanilla head, a warning when it is not ``vanilla``).
    * DFlash2 classes require ``dflash_config.selector_rank``
      (``srt/models/dflash.py: DFlash2DraftModel.__init__``).
    * ``hidden_size`` and ``num_hidden_layers`` are read unconditionally by the draft
      class (``DFlashDraftModel.__init__``): missing, an ``AttributeError``.

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    try:
        parsed = sglang_draft(subject)
    except SglangRefuses as error:
        found.error(error)
        return
    if parsed is None:
        return
    get = subject.get
    for field in ("hidden_size", "num_hidden_layers"):
        if get(field, None) is None and read_path(get, f"text_config.{field}") is None:
            found.error(
                ParallelDraftingConfigError(
                    f"The draft sets no `{field}`: SGLang's draft class reads it "
                    "unconditionally (srt/models/dflash.py: DFlashDraftModel.__init__) and "
                    "fails at start-up.",
                    field=field,
                )
            )
    name = draft_class(get)
    if name in DFLASH2_CLASSES and not parsed.dflash.selector_rank:
        found.error(
            ParallelDraftingConfigError(
                f"A {name} draft needs `dflash_config.selector_rank` (and selector_top_k): "
                "SGLang's DFlash2DraftModel.__init__ (srt/models/dflash.py) raises without it.",
                field="dflash_config.selector_rank",
            )
        )
    if parsed.dspark is not None:
        _dspark_findings(subject, parsed.dspark, found)


def _dspark_findings(subject: Subject, dspark: DSparkDraft, found: Findings) -> None:
    get = subject.get
    if dspark.markov_rank <= 0:
        found.error(
            ParallelDraftingConfigError(
                f"A DSpark draft needs markov_rank > 0 (got {dspark.markov_rank}): SGLang's "
                "_resolve_dflash_aux_hidden_state (spec_aux_hidden_state.py) raises "
                "ValueError at start-up.",
                field=dspark.markov_rank_field or "markov_rank",
            )
        )
    elif draft_class(get) != "DeepseekV4ForCausalLMDSpark":
        top = get("markov_rank", None)
        top_rank = _python_int(top)
        if top is None:
            found.error(
                ParallelDraftingConfigError(
                    f"`{dspark.markov_rank_field}` = {dspark.markov_rank}, but SGLang's "
                    "DSpark model builds its Markov head from the top-level `markov_rank` "
                    "only (srt/models/dspark.py: build_markov_head) and raises ValueError "
                    "without it. Set `markov_rank` at the top level too.",
                    field="markov_rank",
                )
            )
        elif top_rank is None or top_rank <= 0:
            found.error(
                ParallelDraftingConfigError(
                    f"`markov_rank` = {describe_value(top)}: SGLang's DSpark model builds its "
                    "Markov head from int(markov_rank) (srt/models/dspark.py: "
                    "build_markov_head), which must be above 0; it raises otherwise. Set "
                    "`markov_rank` to a positive integer.",
                    field="markov_rank",
                )
            )
        head_field = dspark.markov_head_type_field
        if (
            dspark.markov_head_type not in (None, "vanilla")
            and head_field is not None
            and head_field != "markov_head_type"
            and get("markov_head_type", None) is None
        ):
            found.warn(
                ParallelDraftingConfigWarning(
                    f"`{head_field}` = {dspark.markov_head_type!r}, but SGLang's DSpark model "
                    "reads the top-level `markov_head_type` only (build_markov_head in "
                    "srt/models/dspark.py, default 'vanilla'): it builds a vanilla head "
                    "and the checkpoint's head weights will not fit. Set `markov_head_type` "
                    "at the top level too."
                )
            )
    if dspark.mask_token_id is None:
        found.error(
            ParallelDraftingConfigError(
                "A DSpark draft must name its token id (dspark_noise_token_id, "
                "dspark_config/dflash_config.mask_token_id or mask_token_id): SGLang's "
                "resolve_runtime_config (dspark_config.py) raises 'DSpark requires "
                "mask_token_id to be set in the draft model config.'",
                field="mask_token_id",
            )
        )
        return
    target = subject.target
    bound = (
        None if target is None else dspark_vocab_bound(target.padded_vocab_size, target.vocab_size)
    )
    if bound is not None and dspark.mask_token_id >= bound:
        field = dspark.mask_token_id_field or "mask_token_id"
        found.error(
            ParallelDraftingConfigError(
                f"`{field}` = {dspark.mask_token_id} is outside the target's vocabulary "
                f"({bound}): SGLang's resolve_runtime_config (dspark_config.py) raises "
                "ValueError at start-up.",
                field=field,
            )
        )


# --- the token id ----------------------------------------------------------------------------


@dataclass(frozen=True)
class SglangToken:
    """The token id SGLang feeds the masked slots, and where it comes from."""

    token_id: int | None
    source: str | None
    """The draft's field, or ``"tokenizer"``."""
    added: bool = False
    """SGLang adds the mask token to the served tokenizer."""
    text: str | None = None
    """The mask token's text (DFlash)."""


def sglang_token(subject: Subject) -> SglangToken:
    """The id SGLang settles on for the draft, with the served tokenizer
    ``subject.tokenizer`` when read: DSpark's parsed id, DFlash's configured id or the
    tokenizer's (:func:`~drafting_config.engines.sglang.resolve_mask_token_id`).

    Raises:
        SglangRefuses: SGLang refuses the id (its vocabulary bound, the tokenizer).
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    parsed = sglang_draft(subject)
    if parsed is None:
        return SglangToken(None, None)
    if parsed.dspark is not None:
        return SglangToken(parsed.dspark.mask_token_id, parsed.dspark.mask_token_id_field)
    draft = parsed.dflash
    target = subject.target
    resolved: MaskTokenId | None = resolve_mask_token_id(
        draft.mask_token,
        draft.mask_token_id,
        vocab_size=None if target is None else target.vocab_size,
        tokenizer=subject.tokenizer,
    )
    if resolved is None:
        return SglangToken(None, None, text=draft.mask_token)
    if resolved.source is MaskSource.CONFIG:
        return SglangToken(resolved.token_id, draft.mask_token_id_field, text=draft.mask_token)
    added = resolved.source is MaskSource.ADDED
    return SglangToken(resolved.token_id, "tokenizer", added=added, text=draft.mask_token)


def check_sglang_token(subject: Subject, found: Findings) -> None:
    """SGLang's token-id rules for a DFlash draft (``DFlashWorkerV2._resolve_mask_token_id``
    in ``srt/speculative/dflash_worker_v2.py``), with the served tokenizer when read:

    * the id (configured or the tokenizer's) must be below the target's ``vocab_size``;
    * the served tokenizer must not hold the mask string at another id;
    * no configured id: the tokenizer's ``<|MASK|>``; when SGLang adds it (a warning,
      with its text: it changes the served tokenizer); when no tokenizer was read, a
      warning that the served tokenizer picks the id at start-up (SGLang fails only with
      ``--skip-tokenizer-init``);
    * the id equal to a special-token field of the draft's config: a warning.

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    try:
        token = sglang_token(subject)
    except SglangRefuses as error:
        found.error(error)
        return
    if token.text is None:  # DSpark (checked with the parse) or no DFlash-family draft
        return
    if token.token_id is None:
        found.warn(
            TokenizerTokenIdWarning(
                f"The draft names no mask token id: SGLang takes {token.text!r} from the "
                "served tokenizer (the target's, or --tokenizer) at start-up, adding it when "
                "missing (DFlashWorkerV2._resolve_mask_token_id), and fails only with "
                "--skip-tokenizer-init. No tokenizer was read here, so the id is unknown."
            )
        )
        return
    if token.added:
        found.warn(
            TokenizerTokenIdWarning(
                f"The draft names no mask token id and the served tokenizer has no "
                f"{token.text!r}: SGLang adds it as a special token at id {token.token_id} "
                "(DFlashWorkerV2._resolve_mask_token_id), which changes the served "
                "tokenizer. Name the id in `dflash_config.mask_token_id` to make it explicit."
            )
        )
    if token.source == "tokenizer":
        found.note(f"SGLang takes token id {token.token_id} ({token.text!r}) from the tokenizer")


def check_sglang_placeholders(subject: Subject, found: Findings) -> None:
    """A warning for each special-token field of the draft's config equal to SGLang's id
    (the resolver's placeholder warnings, for the id SGLang uses)."""
    token_id, source = subject.token_id, subject.token_field
    if token_id is None or source is None:
        return
    for field in ("pad_token_id", "bos_token_id", "eos_token_id"):
        value = subject.get(field, None)
        if value is not None and names_token_id(value, token_id):
            found.warn(placeholder_warning(source, token_id, field, value))


# --- the tapped layers -------------------------------------------------------------------------


@dataclass(frozen=True)
class SglangLayers:
    """The capture indices SGLang taps, and where they came from."""

    ids: tuple[int, ...] | None
    source: str | None
    """The draft's field; for a derived list, ``"derived from the target's depth L"``."""


def _dspark_list(parsed: SglangDraft) -> bool:
    """Whether DSPARK replaces the DFlash list with ``dspark_target_layer_ids``."""
    dspark = parsed.dspark
    return dspark is not None and dspark.target_layer_ids_field == "dspark_target_layer_ids"


def sglang_layers(subject: Subject) -> SglangLayers:  # noqa: PLR0911
    """The capture indices SGLang's target class records for the draft (see
    :mod:`drafting_config.engines.sglang` for the convention), knowing the target when
    given; ``(None, None)`` when they cannot be known.

    Raises:
        SglangRefuses: SGLang refuses the list (a range check).
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    algorithm = sglang_algorithm(subject)
    if algorithm is Algorithm.EAGLE3 and _unsupported(subject) is None:
        return _eagle3_layers(subject)
    parsed = sglang_draft(subject)
    if parsed is None:
        return SglangLayers(None, None)
    target = subject.target
    depth = None if target is None or target.num_layers is None else target.num_layers
    cls = _target_hooks(subject)
    hook = None if cls is None else hook_for(cls, parsed.algorithm)
    if parsed.dspark is not None and _dspark_list(parsed):
        ids = parsed.dspark.target_layer_ids
        assert ids is not None
        return SglangLayers(capture_indices(hook, ids, depth=depth), "dspark_target_layer_ids")
    draft = parsed.dflash
    if depth is None:
        if draft.target_layer_ids is None:
            return SglangLayers(None, None)
        ids = capture_indices(hook, draft.target_layer_ids, depth=None)
        return SglangLayers(ids, draft.target_layer_ids_field)
    runtime_depth = target_depth(depth, target.num_loops if target is not None else None)
    layers = resolve_target_layer_ids(draft, runtime_depth, draft.num_hidden_layers or 1)
    mapped = (
        hook is Hook.MUSE
        and target is not None
        and target.model_type == "muse_glimmer"
        and draft_class(subject.get) in MUSE_LAYER_OUTPUT_DRAFTS
        and parsed.dspark is None
    )
    ids = capture_indices(hook, layers.ids, depth=runtime_depth, muse_mapped=mapped)
    if layers.field is None:
        return SglangLayers(ids, f"derived from the target's depth {runtime_depth}")
    return SglangLayers(ids, layers.field)


def _eagle3_layers(subject: Subject) -> SglangLayers:
    use, raw = eagle_layer_ids(subject.get)
    target = subject.target
    depth = None if target is None else target.num_layers
    if not use:
        return SglangLayers(None, None)
    if raw is None:
        if depth is None:
            return SglangLayers(None, None)
        return SglangLayers(eagle3_default_layers(depth), f"the target's defaults (depth {depth})")
    ids = _ints(raw)
    if ids is None:
        return SglangLayers(None, None)
    cls = _target_hooks(subject)
    hook = Hook.PLUS_ONE if cls is None else cls.eagle3
    return SglangLayers(capture_indices(hook, ids, depth=depth), EAGLE_LAYER_IDS_FIELD)


def _ints(value: object) -> tuple[int, ...] | None:
    if not isinstance(value, (list, tuple)):
        return None
    ids = [exact_int(item) for item in value]
    return None if any(i is None for i in ids) else tuple(i for i in ids if i is not None)


def _target_hooks(subject: Subject) -> TargetClass | None:
    target = subject.target
    if target is None:
        return None
    found = target_class(target.architectures)
    return None if found is None else found[1]


def check_sglang_layers(subject: Subject, found: Findings) -> None:
    """SGLang's layer rules, against the target when given.

    * The runtime list: the draft's (``dflash_config.target_layer_ids``, else
      ``target_layer_ids``), each id in ``[0, L)``, or derived from the target's depth
      ``L`` (``num_hidden_layers * num_loops``) when none is named
      (``DFlashDraftConfig.resolve_target_layer_ids``, ``build_target_layer_ids`` in
      ``srt/speculative/dflash_utils.py``; ``_resolve_dflash_aux_hidden_state``).
    * The draft class sizes ``fc`` by its own reading: ``num_target_layers`` as the
      target's depth, else one past the highest id, else its ``num_hidden_layers``
      (``srt/models/dflash.py: DFlashDraftModel.__init__``): an id at or above
      ``num_target_layers`` raises there, and a count that differs from the runtime
      list's fails the first forward pass ("DFLASH target_hidden feature dim mismatch").
    * The target class must have a capture hook for the algorithm
      (``attention_backend_setup.py: configure_aux_hidden_state_capture``); Qwen3-VL
      dense and Cosmos3 hooks fail with AttributeError.
    * Id ``L - 1`` on a class that never captures index ``L`` (Qwen2/Qwen3/Llama loops:
      one feature short), or whose setter raises on it (Qwen3-MoE, Qwen3-Next, Qwen3.5).
    * ``fc`` is ``len(ids) * hidden_size`` of the draft (``target_hidden_size`` is not
      read), so the draft's ``hidden_size`` must be the target's.
    * EAGLE-3 reads ``eagle_config.eagle_aux_hidden_state_layer_ids`` only
      (``_resolve_eagle_aux_hidden_state``): a top-level list is not read (a warning).

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    algorithm = sglang_algorithm(subject)
    if algorithm is None or _unsupported(subject) is not None:
        return
    target = subject.target
    if algorithm is Algorithm.EAGLE3:
        _eagle3_findings(subject, found)
    else:
        try:
            parsed = sglang_draft(subject)
        except SglangRefuses:
            return  # check_sglang_config reports it
        if parsed is None:
            return
        _class_count_findings(parsed.dflash, subject, found)
        try:
            layers = sglang_layers(subject)
        except SglangRefuses as error:
            found.error(error)
            return
        if target is not None and target.num_layers is not None:
            _last_layer_findings(subject, parsed, found)
        if layers.ids is not None:
            _class_vs_runtime(parsed, layers, found)
    if target is None:
        return
    _hook_findings(subject, algorithm, found)
    hidden = exact_int(subject.get("hidden_size", None))
    if (
        algorithm is not Algorithm.EAGLE3
        and hidden is not None
        and target.hidden_size is not None
        and hidden != target.hidden_size
    ):
        found.error(
            ParallelDraftingConfigError(
                f"`hidden_size` = {hidden}, but the target's hidden_size is "
                f"{target.hidden_size}: SGLang's DFlash draft class sizes fc for its own "
                "hidden_size per tapped layer (srt/models/dflash.py: DFlashDraftModel."
                "__init__; target_hidden_size is not read), so the first forward pass "
                "fails ('DFLASH target_hidden feature dim mismatch').",
                field="hidden_size",
            )
        )


def _class_count_findings(draft: DFlashDraft, subject: Subject, found: Findings) -> None:
    """The draft class's own range check, against ``num_target_layers`` or its stand-ins."""
    depth = class_target_layers(draft)
    if draft.target_layer_ids is None:
        return
    for index, layer_id in enumerate(draft.target_layer_ids):
        if not 0 <= layer_id < depth:
            field = draft.num_target_layers_field or "num_target_layers"
            found.error(
                ParallelDraftingConfigError(
                    f"`{draft.target_layer_ids_field}` = {list(draft.target_layer_ids)}: item "
                    f"{index} is {layer_id}, but `{field}` = {depth}. SGLang's DFlash draft "
                    "class reads num_target_layers as the target's depth and refuses ids at "
                    "or above it (srt/models/dflash.py: DFlashDraftModel.__init__). Set "
                    "num_target_layers to the target's num_hidden_layers, or remove it.",
                    field=field,
                )
            )
            return


def _class_vs_runtime(parsed: SglangDraft, layers: SglangLayers, found: Findings) -> None:
    """The draft class sizes ``fc`` for one count; the target worker taps another."""
    draft = parsed.dflash
    if draft.target_layer_ids is not None:
        class_count = len(draft.target_layer_ids)
    else:
        class_count = draft.num_hidden_layers or 1
    assert layers.ids is not None
    if len(layers.ids) != class_count:
        found.error(
            ParallelDraftingConfigError(
                f"SGLang taps {len(layers.ids)} target layers ({layers.source}) but its draft "
                f"class sizes fc for {class_count} (srt/models/dflash.py: DFlashDraftModel."
                "__init__): the first forward pass fails ('DFLASH target_hidden feature dim "
                "mismatch').",
                field=layers.source if layers.source in ("dspark_target_layer_ids",) else None,
            )
        )


def _last_layer_findings(subject: Subject, parsed: SglangDraft, found: Findings) -> None:
    target = subject.target
    assert target is not None
    assert target.num_layers is not None
    cls = _target_hooks(subject)
    draft = parsed.dflash
    if cls is None or draft.target_layer_ids is None:
        return
    if (
        parsed.dspark is not None
        and parsed.dspark.target_layer_ids_field == "dspark_target_layer_ids"
    ):
        return
    last = target.num_layers - 1
    if last not in draft.target_layer_ids:
        return
    name = target.architectures[0]
    field = draft.target_layer_ids_field
    if cls.last_layer is LastLayer.NEVER:
        found.error(
            ParallelDraftingConfigError(
                f"`{field}` names layer {last}, the target's last: SGLang's {name} adds 1 "
                f"and captures before layer {last + 1}, which its loop never reaches "
                "(srt/models/: the model's forward captures inside the layer loop only), so "
                "the drafter gets one feature fewer than fc expects and the first forward "
                "pass fails. vLLM captures it; SGLang cannot.",
                field=field,
            )
        )
    elif cls.last_layer in (LastLayer.INDEX_ERROR, LastLayer.VALUE_ERROR):
        found.error(
            ParallelDraftingConfigError(
                f"`{field}` names layer {last}, the target's last: SGLang's {name} "
                f"raises {cls.last_layer.value} at start-up on it (its "
                "set_dflash_layers_to_capture indexes or range-checks the layers).",
                field=field,
            )
        )


def _hook_findings(subject: Subject, algorithm: Algorithm, found: Findings) -> None:
    target = subject.target
    assert target is not None
    found_class = target_class(target.architectures)
    if found_class is None:
        return
    name, cls = found_class
    hook = None if cls is None else hook_for(cls, algorithm)
    if hook is None:
        found.error(
            ParallelDraftingConfigError(
                f"The target's class {name} has no {algorithm.value} capture hook in SGLang "
                f"{VERSION} (set_{'eagle3' if algorithm is Algorithm.EAGLE3 else 'dflash'}"
                "_layers_to_capture): configure_aux_hidden_state_capture "
                "(srt/model_executor/model_runner_components/attention_backend_setup.py) "
                "refuses it at start-up."
            )
        )
    elif hook is Hook.BROKEN:
        found.error(
            ParallelDraftingConfigError(
                f"The target's class {name} has a DFlash hook in SGLang {VERSION} that "
                "calls a method its language model lacks: AttributeError at start-up."
            )
        )


def _eagle3_findings(subject: Subject, found: Findings) -> None:
    get = subject.get
    top = get("eagle_aux_hidden_state_layer_ids", None)
    _, nested = eagle_layer_ids(get)
    if top is not None and nested is None:
        found.warn(
            TargetLayersWarning(
                "`eagle_aux_hidden_state_layer_ids` is set at the top level, but SGLang reads "
                f"`{EAGLE_LAYER_IDS_FIELD}` only (_resolve_eagle_aux_hidden_state in "
                "spec_aux_hidden_state.py) and taps the target's default layers instead. "
                "Copy the list into eagle_config (SGLang's target classes add 1 to each id)."
            )
        )


# --- mask_embedding.pt (srt/speculative/dflash_worker_v2.py) ------------------------------------


def check_sglang_mask_embedding(subject: Subject, found: Findings) -> None:
    """The ``mask_embedding.pt`` beside a local DFlash draft, as SGLang reads it
    (``DFlashWorkerV2._maybe_merge_trained_mask_embedding``): ``torch.load(...,
    weights_only=True)``, then ``saved["embedding"]`` and ``int(saved["mask_token_id"])``,
    which must equal the id SGLang resolved.  A bare tensor, a dict without either key, a
    different id, or a file torch refuses: SGLang fails at start-up.
    """
    read = subject.mask_embedding
    if read is None or sglang_algorithm(subject) is not Algorithm.DFLASH:
        return
    shown = display_path(read.path)  # a path from the disk: printed escaped
    if read.unavailable is not None:
        found.note(f"{shown} not checked for SGLang: {read.unavailable}")
        return
    if read.problem is not None:
        found.error(read.problem)
        return
    contents = read.contents
    assert contents is not None
    why = None
    if not contents.is_dict:
        why = "holds a bare tensor, but SGLang reads saved['embedding'] from a dict"
    elif contents.embedding is None:
        why = "is a dict without 'embedding'"
    elif contents.stored_token_id is MISSING:
        why = "is a dict without 'mask_token_id', which SGLang reads with int()"
    else:
        stored = exact_int(contents.stored_token_id)
        token_id = subject.token_id
        if stored is not None and token_id is not None and stored != token_id:
            why = f"was trained for mask_token_id {stored}, but SGLang's id is {token_id}"
    if why is not None:
        found.error(
            ParallelDraftingConfigError(
                f"{shown} {why}: SGLang's DFlash worker fails at start-up "
                "(DFlashWorkerV2._maybe_merge_trained_mask_embedding in "
                "srt/speculative/dflash_worker_v2.py). SGLang expects "
                "{'embedding': tensor, 'mask_token_id': id}."
            )
        )


# --- the entry point ----------------------------------------------------------------------------


def resolver_findings(resolution: Resolution) -> Findings:
    """The resolver's errors that speak for SGLang (:func:`kept_resolution_errors`); its
    warnings are about vLLM's token-id chain."""
    return Findings(kept_resolution_errors(resolution))


def judge(subject: Subject, found: Findings, reads: Reads) -> Reading:
    """SGLang 0.5.23's verdict on the draft (see :mod:`drafting_config.rules.engine`): the
    method and the config parses, then, for DFLASH, the served tokenizer (``--tokenizer``,
    else the target's, else the draft's), with which SGLang settles the token id; the token,
    placeholder and layer rules; the tokenizer's rules for that id; and the
    ``mask_embedding.pt`` beside a local draft."""
    resolution = subject.resolution
    if not (resolution.fields or resolution.format == "speculators"):  # SGLang refuses the latter
        return Reading()
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
        subject = replace(subject, engine_token=(token_id, source))
    with found.collect():
        for rule in (check_sglang_placeholders, check_target_placeholders, check_sglang_layers):
            rule(subject, found)
        reading = sglang_layers(subject)
        layers = reading.ids, reading.source
    if subject.tokenizer is not None and token_id is not None:
        tokenizer_found = Findings()
        with tokenizer_found.collect():
            check_tokenizer(subject, tokenizer_found)
        found.errors += [e for e in tokenizer_found.errors if e.field != MASK_TOKEN_TEXT_FIELD]
        found.warnings += tokenizer_found.warnings
        facts = subject.tokenizer.describe(token_id)
    directory = reads.weights_directory()
    if directory is not None:
        found.note("weights not checked for SGLang: its loaders are not modelled")
        embedding = reads.mask_embedding(directory)
        with found.collect():
            check_sglang_mask_embedding(replace(subject, mask_embedding=embedding), found)
    return Reading(
        algorithm=None if algorithm is None else algorithm.value,
        token_id=token_id,
        token_source=source,
        aux_layer_ids=layers[0],
        aux_layer_source=layers[1],
        token=facts,
    )


def _python_int(value: object) -> int | None:
    """``int(value)`` as SGLang calls it on a config value (a string, a float or a bool is
    converted, ``"256"`` and ``256.5`` give 256), or ``None`` where ``int()`` raises or the
    value is no JSON scalar."""
    if not isinstance(value, (str, int, float)):
        return None
    try:
        return int(value)
    except (ValueError, OverflowError):  # "abc", NaN, inf
        return None
