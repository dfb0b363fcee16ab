"""vLLM 0.33.0's reading of a draft's token id: :func:`resolve` and its :class:`Resolution`.

:func:`resolve` is the library's resolver, and vLLM's: it reads the draft's file by the
priority table (:func:`~drafting_config.draft.file.read_draft`; a speculators file through
vLLM's translation, :mod:`.speculators`), names the method vLLM serves the draft with, and
runs the chain of the runner serving it over the draft's layer fields.  The pydantic model,
:func:`~drafting_config.get_parallel_drafting_token_id`, the error messages and the command
line's ``check`` and ``explain`` all read its :class:`Resolution`, so they cannot disagree.
:func:`tapped_knowing_target` and :func:`aux_layers` read the layers knowing the target too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Final, cast

from drafting_config.draft.fields import FieldVerdict, shadowed_of, winner_of
from drafting_config.draft.file import (
    ConfigFormat,
    DraftFile,
    FileField,
    read_draft,
    read_fields,
)
from drafting_config.draft.target import TargetFacts
from drafting_config.engines.vllm import codes as vllm_codes
from drafting_config.engines.vllm.names import DEEPSEEK_V41, ENGINE, VERSION
from drafting_config.engines.vllm.runners import (
    TappedLayers,
    runner_of,
    serving_method,
    tapped_layers,
)
from drafting_config.rules.subject import Subject
from drafting_config.values.errors import ParallelDraftingConfigError, ParallelDraftingConfigWarning
from drafting_config.values.fields import FieldGetter, field_getter
from drafting_config.values.findings import Findings
from drafting_config.values.sources import PRIORITY_ORDER, TokenIdField

if TYPE_CHECKING:  # loaded with the first speculators file (translate): most checks read none
    from drafting_config.engines.vllm.speculators import SpeculatorsDraft


@dataclass(frozen=True, init=False)
class Resolution:
    """Everything :func:`resolve` found in one config; never raises, never warns itself."""

    fields: tuple[FieldVerdict, ...]
    """One verdict per token-id field, in priority order (empty if the config is unreadable)."""
    hidden_size: int | None
    """The draft's hidden size (top level, else ``text_config``), if it has a valid one."""
    vocab_size: int | None
    """The draft's vocabulary size (top level, else ``text_config``), if it has a valid one."""
    errors: tuple[ParallelDraftingConfigError, ...]
    """Every failed rule; the config is usable only if this is empty."""
    warnings: tuple[ParallelDraftingConfigWarning, ...]
    """Warnings to emit; only collected for a usable token id."""
    format: ConfigFormat = "hf"
    """The layout of the config."""
    algorithm: str | None = None
    """The drafting method, from the winning field's row of the table (or the speculators
    type); when that field is shared by several methods (or none won), the method vLLM
    guesses from the draft's ``architectures``
    (:func:`~drafting_config.engines.vllm.runners.serving_method`), else ``None``."""
    eagle_mask_token_id: int | None = None
    """``eagle_config.mask_token_id``, checked beside the table but never the token id: some
    model classes read it instead, so it must agree with the winner."""
    speculators: SpeculatorsDraft | None = None
    """For a speculators-format file, what it says beyond the HF config vLLM derives from it
    (the verifier, the proposal)."""
    aux_layer_ids: tuple[int, ...] | None = None
    """The target layers the drafter taps, as capture indices (0: the input of the target's
    first layer; ``i + 1``: the output of layer ``i``), exactly as the chain of the vLLM
    model runner serving the draft's method returns them
    (:mod:`drafting_config.engines.vllm.runners`).  vLLM sorts and de-duplicates them later.
    ``None`` when the config names no layers (vLLM then taps the target model's default
    layers), when the drafter takes no hidden states (PARD), or when vLLM's function would
    fail on the field or return something other than ints (``check()`` reports that).
    :func:`resolve` reads the draft alone; the verdict of :func:`drafting_config.check`
    holds the ids knowing the target too (a ``deepseek_v41`` target's
    ``dspark_target_layer_ids`` are used as given)."""
    aux_layer_source: str | None = None
    """The field :attr:`aux_layer_ids` came from, as the draft's file names it
    (``"dflash_config.target_layer_ids"``; ``"aux_hidden_state_layer_ids"`` for a
    speculators file); ``None`` when :attr:`aux_layer_ids` is."""
    tapped: TappedLayers | None = None
    """The whole result of the serving runner's chain, read from the draft alone (the field
    it stopped at, its raw value, the shift, or why vLLM fails on it), which
    :func:`resolve`'s :attr:`aux_layer_ids` and :attr:`aux_layer_source` summarize;
    ``None`` for a drafter fed no hidden states (PARD) or when a field cannot be read at
    all.  ``check()``'s layer rules start from it rather than run the chain again."""

    draft: DraftFile = field(kw_only=True, compare=False, repr=False)
    """The draft's file as vLLM reads it (for a speculators file, the HF config vLLM derives
    from it), which :attr:`fields` and the sizes summarize; the rules read it."""

    def __init__(  # noqa: PLR0917 - the fields, as the dataclass's own __init__ takes them
        self,
        fields: tuple[FieldVerdict, ...],
        hidden_size: int | None,
        vocab_size: int | None,
        errors: tuple[ParallelDraftingConfigError, ...],
        warnings: tuple[ParallelDraftingConfigWarning, ...],
        format: ConfigFormat = "hf",
        algorithm: str | None = None,
        eagle_mask_token_id: int | None = None,
        speculators: SpeculatorsDraft | None = None,
        aux_layer_ids: tuple[int, ...] | None = None,
        aux_layer_source: str | None = None,
        tapped: TappedLayers | None = None,
        *,
        draft: DraftFile,
    ) -> None:
        # The frozen dataclass's own __init__, in one write of the instance's dict rather than
        # an object.__setattr__ call per field: a sweep resolves every draft.  A test holds
        # the signature to the fields (names, order, defaults).
        vars(self).update(
            fields=fields,
            hidden_size=hidden_size,
            vocab_size=vocab_size,
            errors=errors,
            warnings=warnings,
            format=format,
            algorithm=algorithm,
            eagle_mask_token_id=eagle_mask_token_id,
            speculators=speculators,
            aux_layer_ids=aux_layer_ids,
            aux_layer_source=aux_layer_source,
            tapped=tapped,
            draft=draft,
        )

    def file_field(self, field: str) -> str:
        """Where ``field``, a path of the config the resolver read, sits in the draft's file.

        The field itself for a Hugging Face config; for a speculators file, the key vLLM
        translated it from (see :meth:`SpeculatorsDraft.file_field`). Messages and
        ``error.field`` use it, so that they name what the user can find in the file.
        """
        return field if self.speculators is None else self.speculators.file_field(field)

    def hf_config(self, draft_config: object) -> object:
        """The config vLLM's runners read for ``draft_config``, the config this resolution
        was made from: the HF config vLLM derives from a speculators file, else the config
        itself."""
        return draft_config if self.speculators is None else self.speculators.hf_config

    @property
    def takes_target_hidden_states(self) -> bool:
        """Whether the drafter is fed the target's hidden states (all but PARD drafters)."""
        if self.speculators is not None:
            return self.speculators.spec.fed_target_hidden_states
        winner = self.winner
        return winner is None or winner.source.takes_target_hidden_states

    @property
    def winner(self) -> FieldVerdict | None:
        """The winning field, if the first set field is valid (even if the config has errors)."""
        return winner_of(self.fields)

    @property
    def shadowed(self) -> tuple[FieldVerdict, ...]:
        """The fields that were set, valid, and lost to the winner, in priority order."""
        return shadowed_of(self.fields)

    @property
    def ok(self) -> bool:
        """Whether the config names a usable token id and breaks no rule."""
        return not self.errors

    def raise_first(self) -> None:
        """Raise the first error, if any.

        Raises:
            ParallelDraftingConfigError: the first failed rule.
        """
        if self.errors:
            raise self.errors[0]


def resolve(hf_config: object, *, order: Sequence[TokenIdField] = PRIORITY_ORDER) -> Resolution:
    """Read, validate and explain the parallel-drafting token id of ``hf_config``.

    Args:
        hf_config: a ``transformers`` ``PreTrainedConfig``, a mapping such as a
            parsed ``config.json``, or any object with attributes.
        order: the priority table; :data:`~drafting_config.values.sources.PRIORITY_ORDER`
            unless a test builds another.

    Never raises for bad input: every failure is in :attr:`Resolution.errors`.
    """
    return resolve_file(read_draft(hf_config, order=order), order=order)


def resolve_file(draft: DraftFile, *, order: Sequence[TokenIdField] = PRIORITY_ORDER) -> Resolution:
    """:func:`resolve` of a draft's file already read as written: a Hugging Face file as
    read, a speculators file through vLLM's translation."""
    if not draft.fields:  # unreadable: no field, no method
        return Resolution((), None, None, draft.errors, (), draft=draft)
    if draft.format == "hf":
        return _resolution(draft, None)
    from drafting_config.engines.vllm.speculators import translate  # noqa: PLC0415 - see above

    missing: ParallelDraftingConfigError | None = None
    try:
        speculators = translate(draft.get)
    except ParallelDraftingConfigError as error:
        if error.code is not vllm_codes.SPECULATORS_NOT_PARALLEL:
            return _refused(draft.get, (error,))
        # a sequential algorithm (eagle3): no token id, but vLLM serves it sequentially
        try:
            speculators = translate(draft.get, parallel_only=False)
        except ParallelDraftingConfigError as broken:
            return _refused(draft.get, (error, broken))
        missing = error
    translated = read_fields(
        draft.config,
        field_getter(speculators.hf_config, ""),
        order=order,
        format="speculators",
        in_file=speculators.file_field,
        missing=lambda: missing or _missing_token_id(speculators),  # made only when asked
        fed_target_hidden_states=speculators.spec.fed_target_hidden_states,
    )
    return _resolution(translated, speculators)


def resolution_of(draft: DraftFile) -> Resolution:
    """:func:`resolve_file` of ``draft``, made once per file: the checker, the findings and the
    rules of one verdict share it (kept in :attr:`DraftFile.readings`)."""
    known = draft.readings.get(ENGINE)
    if isinstance(known, Resolution):
        return known
    resolution = resolve_file(draft)
    draft.readings[ENGINE] = resolution
    return resolution


def _resolution(draft: DraftFile, speculators: SpeculatorsDraft | None) -> Resolution:
    algorithm = _algorithm(draft.get, draft.winner, speculators)
    tapped = _tapped(draft.get, algorithm)
    aux_layer_ids, aux_layer_source = _aux_layers(tapped, draft.in_file)
    return Resolution(
        fields=draft.fields,
        hidden_size=draft.hidden_size,
        vocab_size=draft.vocab_size,
        errors=draft.errors,
        warnings=draft.warnings,
        format=draft.format,
        algorithm=algorithm,
        eagle_mask_token_id=draft.eagle_mask_token_id,
        speculators=speculators,
        aux_layer_ids=aux_layer_ids,
        aux_layer_source=aux_layer_source,
        tapped=tapped,
        draft=draft,
    )


def served_as(resolution: Resolution, algorithm: str) -> Resolution:
    """``resolution`` of a draft that names no method of its own, read as vLLM reads it when
    served with ``algorithm`` (a sequential EAGLE-3 class is ``"eagle3"``): the method, and
    the layers that method's runner taps."""
    tapped = _tapped(resolution.draft.get, algorithm)
    aux_layer_ids, aux_layer_source = _aux_layers(tapped, resolution.draft.in_file)
    return replace(
        resolution,
        algorithm=algorithm,
        tapped=tapped,
        aux_layer_ids=aux_layer_ids,
        aux_layer_source=aux_layer_source,
    )


def _refused(get: FieldGetter, errors: tuple[ParallelDraftingConfigError, ...]) -> Resolution:
    """The resolution of a speculators file refused before its token id is read: it keeps
    its format and its errors (for a sequential algorithm, ``eagle3``, the refusal as not
    parallel drafting, then what vLLM's translation fails on)."""
    from drafting_config.engines.vllm.speculators import translate  # noqa: PLC0415 - see above

    refused = DraftFile((), None, None, errors, (), format="speculators", get=get)
    try:
        translated = translate(get, parallel_only=False)
    except ParallelDraftingConfigError:
        return Resolution((), None, None, errors, (), format="speculators", draft=refused)
    translated_get = field_getter(translated.hf_config, "")
    tapped = _tapped(translated_get, translated.algorithm)
    aux_layer_ids, aux_layer_source = _aux_layers(tapped, translated.file_field)
    return Resolution(
        (),
        None,
        None,
        errors,
        (),
        format="speculators",
        algorithm=translated.algorithm,
        aux_layer_ids=aux_layer_ids,
        aux_layer_source=aux_layer_source,
        tapped=tapped,
        draft=refused,
    )


def _missing_token_id(speculators: SpeculatorsDraft) -> ParallelDraftingConfigError | None:
    """The error for a speculators file that sets no token id, naming what the user's file
    lacks (``None``: the table's, for an algorithm with no mask token).

    A speculators file names its token id in its top-level ``mask_token_id``, which vLLM
    (``vllm/transformers_utils/configs/speculators/algos.py``) copies into the HF field the
    resolver reads; the HF fields are not what that user can set.
    """
    if speculators.spec.mask_token_source is None:
        return None
    from drafting_config.engines.vllm.speculators import MASK_TOKEN_FIELD  # noqa: PLC0415

    return ParallelDraftingConfigError(
        f"`{MASK_TOKEN_FIELD}` is missing or null, so vLLM finds no parallel-drafting token "
        f"id for this speculators {speculators.algorithm} draft and refuses it.",
        field=MASK_TOKEN_FIELD,
        code=vllm_codes.SPECULATORS_TOKEN_MISSING,
        fix=f"set `{MASK_TOKEN_FIELD}` to the mask token's id",
        evidence="vllm/transformers_utils/configs/speculators/algos.py: copies "
        f"`{MASK_TOKEN_FIELD}` to `{speculators.spec.mask_token_source.value}`",
    )


def _tapped(get: FieldGetter, algorithm: str | None) -> TappedLayers | None:
    """The serving runner's chain run over the draft (see :attr:`Resolution.tapped`).

    Never raises: a field that cannot be read gives ``None``, and ``check()`` reports it
    (this resolver checks only the token id and sizes).
    """
    runner = runner_of(algorithm)
    if runner is None:  # PARD: no hidden states
        return None
    try:
        return tapped_layers(get, runner)
    except ParallelDraftingConfigError:
        return None


def _aux_layers(
    tapped: TappedLayers | None, in_file: FileField
) -> tuple[tuple[int, ...] | None, str | None]:
    """The tapped layers and where they came from, as the draft's file names it."""
    if tapped is None or tapped.ids is None or tapped.field is None:
        return None, None
    return tapped.ids, in_file(tapped.field)


def _algorithm(
    get: FieldGetter, winner: FieldVerdict | None, speculators: SpeculatorsDraft | None
) -> str | None:
    """The speculators type, else the method vLLM serves the draft with
    (:func:`~drafting_config.engines.vllm.runners.serving_method`): the winning field's, or vLLM's
    guess from the draft's ``architectures`` when the field names none (a MuseGlimmer
    assistant naming its id in the generic ``mask_token_id`` is DFlash)."""
    if speculators is not None:
        return speculators.algorithm
    method = None if winner is None else winner.source.algorithm
    try:
        return serving_method(get, method)
    except ParallelDraftingConfigError:  # an unreadable field: the field's own method
        return method


@dataclass
class VllmSubject(Subject):
    """A draft as vLLM's rules see it: its :class:`Resolution` beside the subject's facts;
    :attr:`draft` is the resolution's file, as vLLM reads it.  Never changed once built, as
    :class:`Subject`."""

    resolution: Resolution = field(kw_only=True)
    """What :func:`resolve` made of the draft's config."""
    version: str = field(default=VERSION, kw_only=True)
    """The vLLM release the rules judge for (one of :data:`~.names.VERSIONS`)."""
    token_unused: bool = field(default=False, kw_only=True)
    """Whether the release serves the draft sequentially although it names a token field, so
    that no token id is read (PTD and PARD from :data:`~.names.REFUSES_PARALLEL_SWITCH` on)."""
    derived: dict[str, object] = field(default_factory=dict, init=False, compare=False, repr=False)
    """What vLLM's rules derive from this subject, by name (its classes along the load path,
    :mod:`.load_path`): made once per subject however many rules ask; a subject made by
    ``dataclasses.replace`` starts empty."""

    @property
    def vllm(self) -> str:
        """How a message names the release: ``"vLLM 0.33.0"``."""
        return f"vLLM {self.version}"

    @classmethod
    def of(
        cls, resolution: Resolution, target: TargetFacts | None = None, version: str = VERSION
    ) -> VllmSubject:
        """The subject of ``resolution`` against ``target``, its token id the resolver's
        winner (the tokenizer and checkpoint facts are added with ``dataclasses.replace``)."""
        token = resolution.draft.token
        return cls(
            draft=resolution.draft,
            target=target,
            token_id=None if token is None else token[0],
            token_field=None if token is None else token[1],
            resolution=resolution,
            version=version,
        )


def tapped_knowing_target(subject: VllmSubject) -> TappedLayers | None:
    """What the chain of the runner serving the draft on the subject's release reads,
    knowing the target: the resolver's reading (:attr:`Resolution.tapped`), except where the
    release serves the method with another runner (P-EAGLE from
    :data:`~.names.ONE_MODEL_RUNNER` on), and except that a ``deepseek_v41`` target's
    ``dspark_target_layer_ids`` are used as given (vLLM gives the draft the target's
    ``model_type``, ``config/speculative.py``); ``None`` for a drafter fed no hidden states
    (PARD).

    Read once per subject (kept in :attr:`VllmSubject.derived`: the layer, running and
    drafter rules and the verdict's layers all ask).

    Raises:
        ParallelDraftingConfigError: a field of the draft cannot be read at all (on every
            ask).
    """
    derived = subject.derived
    if _TAPPED in derived:
        return cast("TappedLayers | None", derived[_TAPPED])
    resolution, target = subject.resolution, subject.target
    runner = runner_of(resolution.algorithm, subject.version)
    if runner is None:  # PARD: a complete LM, fed no hidden states
        derived[_TAPPED] = None
        return None
    model_type = DEEPSEEK_V41 if target is not None and target.model_type == DEEPSEEK_V41 else None
    taps = resolution.tapped  # the resolver's run, unless the target or the release changes it
    if taps is None or model_type is not None or runner is not runner_of(resolution.algorithm):
        taps = tapped_layers(subject.get, runner, model_type=model_type)
    derived[_TAPPED] = taps
    return taps


_TAPPED: Final = "tapped_knowing_target"
"""The key of :func:`tapped_knowing_target`'s reading in :attr:`VllmSubject.derived`."""


def aux_layers(subject: VllmSubject) -> tuple[tuple[int, ...] | None, str | None]:
    """The capture indices the serving runner taps knowing the target, and the field they
    came from as the draft's file names it (see :attr:`Resolution.aux_layer_ids`);
    ``(None, None)`` when it taps the target model's defaults, fails, or the drafter takes
    no hidden states.

    Raises:
        ParallelDraftingConfigError: a field of the draft cannot be read at all.
    """
    taps = tapped_knowing_target(subject)
    if taps is None or taps.ids is None or taps.field is None:
        return None, None
    return taps.ids, subject.resolution.file_field(taps.field)


VllmRule = Callable[[VllmSubject, Findings], None]
"""A rule of vLLM's: reads the subject and its resolution, records what it finds."""
