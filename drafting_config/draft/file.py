"""A draft's config as written: what its file says, read by the library's priority table.

:func:`read_draft` reads a draft's config once into a :class:`DraftFile`: its field reader,
its format (Hugging Face's, or the speculators library's), one :class:`FieldVerdict` per
token-id field (winner, shadowed, valid, absent, null or invalid), its sizes, and the errors
and warnings of the token id and sizes.  An engine that reads the config through a
translation of its own (vLLM's speculators reader) reads the translated config with
:func:`read_fields`, naming each field where the file holds it (``in_file``).  Names no
engine: each engine's package judges a :class:`DraftFile` as that engine reads it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal, cast

from drafting_config.draft.architectures import (
    DSPARK_MODEL_ARCHITECTURES,
    architecture_names,
    dspark_projector,
)
from drafting_config.draft.eagle_tensors import EagleHeadTensors
from drafting_config.draft.fields import (
    FieldStatus,
    FieldVerdict,
    missing_token_id_message,
    names_token_id,
    placeholder_warning,
    shadowed_of,
    special_token_fields,
    token_id_error,
    winner_of,
)
from drafting_config.values import codes
from drafting_config.values.errors import (
    ConflictingTokenIdWarning,
    ParallelDraftingConfigError,
    ParallelDraftingConfigWarning,
)
from drafting_config.values.fields import (
    MISSING,
    FieldGetter,
    field_getter,
    join_path,
    read_field,
    read_path,
    top_or_text_config,
)
from drafting_config.values.integers import exact_int, positive_int32
from drafting_config.values.sources import EAGLE_CONFIG, PRIORITY_ORDER, TokenIdField

ConfigFormat = Literal["hf", "speculators"]
"""The layout of a draft model's ``config.json``: Hugging Face's, or the speculators library's."""

SPECULATORS_TYPE_FIELD: Final = "speculators_model_type"
"""The top-level field naming a speculators draft's algorithm; its presence marks the format."""

SPECULATORS_CONFIG_FIELD: Final = "speculators_config"
"""The section holding ``proposal_methods`` and the ``verifier``; vLLM detects the format by it."""

SPECULATORS_VERIFIER_FIELD: Final = f"{SPECULATORS_CONFIG_FIELD}.verifier.name_or_path"
"""Where a speculators file names its verifier: the target model, a repo id or a path."""

TRANSFORMER_LAYER_CONFIG_FIELD: Final = "transformer_layer_config"
"""The section of a speculators file holding the draft's own Hugging Face config, which an
engine's translation starts from."""

FileField = Callable[[str], str]
"""Where a field of the config read sits in the draft's file."""


def same_field(field: str) -> str:
    """:data:`FileField` of a config read as written: every field is where it was read."""
    return field


def _no_fields(name: str, default: object) -> object:
    """The reader of a config that holds no fields at all (one :func:`read_draft` refused)."""
    return default


_NAMED_METHOD: Final = "_named_method"
"""The key of :attr:`DraftFile.named_method` in the instance's dict, once read."""


@dataclass
class DraftFile:
    """A draft's config as read by the library's priority table; never raises, never warns
    itself.  Never changed once built (only :attr:`readings` fills): not a frozen dataclass,
    whose ``__init__`` costs a call per field on every draft of a sweep."""

    fields: tuple[FieldVerdict, ...]
    """One verdict per token-id field, in priority order (empty if the config is unreadable)."""
    hidden_size: int | None
    """The draft's hidden size (top level, else ``text_config``), if it has a valid one."""
    vocab_size: int | None
    """The draft's vocabulary size (top level, else ``text_config``), if it has a valid one."""
    errors: tuple[ParallelDraftingConfigError, ...]
    """Every failed rule of the token id and sizes."""
    warnings: tuple[ParallelDraftingConfigWarning, ...]
    """Warnings to emit; only collected for a usable token id."""
    format: ConfigFormat = "hf"
    """The layout of the file."""
    eagle_mask_token_id: int | None = None
    """``eagle_config.mask_token_id``, checked beside the table but never the token id: some
    model classes read it instead, so it must agree with the winner."""
    config: object = field(default=None, compare=False, repr=False)
    """The config as given."""
    get: FieldGetter = field(default=_no_fields, compare=False, repr=False)
    """The reader of the config read (the file's, or an engine's translation of it)."""
    in_file: FileField = field(default=same_field, compare=False, repr=False)
    """Where a field of the config read sits in the draft's file."""
    fed_target_hidden_states: bool | None = field(default=None, compare=False, repr=False)
    """Whether the drafter is fed the target's hidden states, when the format says so (a
    speculators algorithm); ``None``: the winning field's row of the table says."""
    readings: dict[str, object] = field(default_factory=dict, compare=False, repr=False)
    """What each engine made of this file, by the engine's name: an engine reads a file once
    however many of its steps ask for it."""
    eagle_head: EagleHeadTensors | None = field(default=None, compare=False, repr=False)
    """The EAGLE head its checkpoint's tensor names say the draft is, where an engine looked
    (:func:`~drafting_config.draft.eagle_tensors.eagle_head_tensors`); ``None``: not looked,
    or no EAGLE head."""

    def file_field(self, field: str) -> str:
        """Where ``field``, a path of the config read, sits in the draft's file: the field
        itself for a config read as written, else the key it was translated from.  Messages
        and ``error.field`` use it, so that they name what the user can find in the file."""
        return self.in_file(field)

    @property
    def winner(self) -> FieldVerdict | None:
        """The winning field, if the first set field is valid (even if the config has errors)."""
        return winner_of(self.fields)

    @property
    def shadowed(self) -> tuple[FieldVerdict, ...]:
        """The fields that were set, valid, and lost to the winner, in priority order."""
        return shadowed_of(self.fields)

    @property
    def token(self) -> tuple[int, str] | None:
        """The winner's token id and its field, as the draft's file names it."""
        winner = self.winner
        if winner is None or winner.token_id is None:
            return None
        return winner.token_id, self.file_field(winner.source.value)

    @property
    def named_method(self) -> str | None:
        """The drafting method the file names: the winning field's row of the table, except
        that a DFlash field (or none) on a DSpark architecture
        (:data:`~drafting_config.draft.architectures.DSPARK_MODEL_ARCHITECTURES`), or a DFlash
        field with ``dflash_config.projector_type`` ``"dspark"``, names DSpark; a field that
        cannot be read leaves the winner's.  ``None`` when no field won or the winning field
        is shared by several methods.  Read once per file (kept in the instance's dict: a
        ``functools.cached_property`` takes a lock on its first read on Python 3.11, which
        cost more than reading the method)."""
        known = self.__dict__
        if _NAMED_METHOD not in known:
            known[_NAMED_METHOD] = self._named_method()
        return cast("str | None", known[_NAMED_METHOD])

    def _named_method(self) -> str | None:
        winner = self.winner
        method = None if winner is None else winner.source.algorithm
        if method not in (None, "dflash"):
            return method
        try:
            if architecture_names(self.get) & DSPARK_MODEL_ARCHITECTURES:
                return "dspark"
            if method == "dflash" and dspark_projector(self.get):
                return "dspark"
        except ParallelDraftingConfigError:
            pass
        return method

    @property
    def takes_target_hidden_states(self) -> bool:
        """Whether the drafter is fed the target's hidden states (all but PARD drafters)."""
        if self.fed_target_hidden_states is not None:
            return self.fed_target_hidden_states
        winner = self.winner
        return winner is None or winner.source.takes_target_hidden_states

    def errors_beside_token(self) -> list[ParallelDraftingConfigError]:
        """The errors that are not about the token id (its fields, "names no token id",
        ``eagle_config.mask_token_id``): an unreadable config, its sizes; what an engine
        that reads the token id its own way keeps."""
        token_errors = {id(f.error) for f in self.fields if f.error is not None}
        token_fields = {self.file_field(f.source.value) for f in self.fields}
        token_fields.add(self.file_field(f"{EAGLE_CONFIG}.mask_token_id"))
        kept = []
        for error in self.errors:
            if id(error) in token_errors or error.field in token_fields:
                continue
            if error.field is None and self.fields and self.winner is None:
                continue  # "names no parallel drafting token id"
            kept.append(error)
        return kept


def is_speculators(get: FieldGetter) -> bool:
    """Whether a draft config is in the speculators format.

    True when ``speculators_model_type`` or ``speculators_config`` is set and not null
    (vLLM switches to its speculators reader on the latter; the former names the algorithm),
    and the top-level ``model_type`` is missing or null.  vLLM reads a draft's config as
    speculators only then, whether the file is the draft of ``--speculative-config`` or
    ``--model`` (whose draft config is parsed the same way): ``HFConfigParser.parse`` in
    ``vllm/transformers_utils/config.py`` takes a set ``model_type`` first and reads the
    file as that model type's Hugging Face config, speculators fields ignored.

    Args:
        get: the config's field reader, called like ``dict.get(name, default)``
            (see :func:`drafting_config.values.fields.field_getter`).
    """
    return (
        get(SPECULATORS_TYPE_FIELD, None) is not None
        or get(SPECULATORS_CONFIG_FIELD, None) is not None
    ) and get("model_type", None) is None


def speculators_verifier(draft: DraftFile) -> str | None:
    """The verifier a speculators-format file names (:data:`SPECULATORS_VERIFIER_FIELD`, a
    non-empty string), as written: the target its verdicts are checked against when none is
    given, whatever any engine makes of the rest of the file.  ``None`` for a file of another
    format, or a verifier absent, unreadable or no non-empty string (each engine's rules say
    what they make of that).  Never raises."""
    if draft.format != "speculators":
        return None
    section, _, key = SPECULATORS_VERIFIER_FIELD.rpartition(".")
    try:
        verifier = read_path(draft.get, section)
        value = None if verifier is None else field_getter(verifier, section)(key, None)
    except ParallelDraftingConfigError:
        return None
    return value if type(value) is str and value else None


def read_draft(config: object, *, order: Sequence[TokenIdField] = PRIORITY_ORDER) -> DraftFile:
    """Read a draft's config as written (see :class:`DraftFile`); never raises.

    Args:
        config: a ``transformers`` ``PreTrainedConfig``, a mapping such as a parsed
            ``config.json``, or any object with attributes.
        order: the priority table; :data:`~drafting_config.values.sources.PRIORITY_ORDER`
            unless a test builds another.
    """
    try:
        get = field_getter(config, "")
    except ParallelDraftingConfigError as error:
        return DraftFile((), None, None, (error,), (), config=config)
    try:
        speculators = is_speculators(get)
    except ParallelDraftingConfigError as error:
        return DraftFile((), None, None, (error,), (), config=config, get=get)
    return read_fields(config, get, order=order, format="speculators" if speculators else "hf")


def read_fields(
    config: object,
    get: FieldGetter,
    *,
    order: Sequence[TokenIdField] = PRIORITY_ORDER,
    format: ConfigFormat = "hf",
    in_file: FileField = same_field,
    missing: Callable[[], ParallelDraftingConfigError | None] | None = None,
    fed_target_hidden_states: bool | None = None,
) -> DraftFile:
    """The token-id fields and sizes of the config ``get`` reads, by the priority table.

    Args:
        config: the object ``get`` reads (its class's defaults explain a conflict).
        in_file: where each field read sits in the draft's file (an engine's translation).
        missing: makes the error for a config that sets no token-id field, when the file
            names its token id elsewhere than the table's fields (a speculators file); asked
            only of such a config (``None``, or its ``None``: the table's error).
    """
    errors: list[ParallelDraftingConfigError] = []
    try:
        read = top_or_text_config(get)
    except ParallelDraftingConfigError as error:
        errors.append(error)
        read = _top_level(get)
    hidden_size = _model_size(read, "hidden_size", in_file, errors)
    vocab_size = _model_size(read, "vocab_size", in_file, errors)

    fields, first_set = _field_verdicts(get, order, vocab_size, in_file)
    for verdict in fields:
        if verdict.error is not None:
            errors.append(verdict.error)
    winner = first_set if first_set is not None and first_set.status is _WINNER else None
    if first_set is None:
        errors.append(
            (None if missing is None else missing())
            or ParallelDraftingConfigError(
                missing_token_id_message(order), code=codes.TOKEN_MISSING
            )
        )
    try:
        eagle = _eagle_mask_token_id(get, vocab_size, in_file)
    except ParallelDraftingConfigError as error:
        errors.append(error)
        eagle = None

    warnings: list[ParallelDraftingConfigWarning] = []
    if winner is not None and winner.token_id is not None:
        token_id = winner.token_id
        warnings += [
            _conflict(config, winner.source, token_id, f.source, f.token_id, in_file=in_file)
            for f in fields
            if f.status is _SHADOWED and f.token_id != token_id
        ]
        if eagle is not None and eagle != token_id:
            warnings.append(_eagle_disagrees(winner.source, token_id, eagle, in_file))
        try:
            warnings.extend(_placeholder_warnings(read, winner.source, token_id, in_file))
        except ParallelDraftingConfigError as error:
            errors.append(error)
    return DraftFile(
        config=config,
        fields=fields,
        hidden_size=hidden_size,
        vocab_size=vocab_size,
        errors=tuple(errors),
        warnings=tuple(warnings),
        format=format,
        eagle_mask_token_id=eagle,
        get=get,
        in_file=in_file,
        fed_target_hidden_states=fed_target_hidden_states,
    )


_WINNER, _SHADOWED, _VALID, _ABSENT_STATUS, _NULL, _INVALID = (
    FieldStatus.WINNER,
    FieldStatus.SHADOWED,
    FieldStatus.VALID,
    FieldStatus.ABSENT,
    FieldStatus.NULL,
    FieldStatus.INVALID,
)
"""The statuses read as module globals: Python 3.11 reads an enum member as a class
attribute about ten times slower, and each field of each draft gets one."""

_SET: Final = frozenset({_WINNER, _SHADOWED, _VALID, _INVALID})


def _field_verdicts(
    get: FieldGetter, order: Sequence[TokenIdField], vocab_size: int | None, in_file: FileField
) -> tuple[tuple[FieldVerdict, ...], FieldVerdict | None]:
    """One verdict per field, and the first set one; the first set field wins if valid, later
    valid ones are shadowed by it, or merely valid when it is invalid."""
    verdicts: list[FieldVerdict] = []
    first_set: FieldVerdict | None = None
    rows = _ROWS if order is PRIORITY_ORDER else tuple((row, None) for row in order)
    for source, absent in rows:
        section = source.section
        try:  # the value, MISSING if it or its section is absent or null
            if section is None:
                value = get(source.key, MISSING)
            else:
                value = read_field(get, section, source.key, MISSING)
        except ParallelDraftingConfigError as error:
            verdict = FieldVerdict(source, _INVALID, MISSING, error=error)
        else:
            if value is MISSING and absent is not None:
                verdict = absent  # most rows of a config: one frozen verdict, reused
            else:
                verdict = _judge(source, value, vocab_size, first_set, in_file)
        if first_set is None and verdict.status in _SET:
            first_set = verdict
        verdicts.append(verdict)
    return tuple(verdicts), first_set


_ROWS: Final = tuple(
    (row, FieldVerdict(row, FieldStatus.ABSENT, MISSING)) for row in PRIORITY_ORDER
)
"""Each row of the table in force, with its verdict when the config lacks its field."""


def _judge(
    source: TokenIdField,
    value: object,
    vocab_size: int | None,
    first_set: FieldVerdict | None,
    in_file: FileField,
) -> FieldVerdict:
    if value is MISSING:
        return FieldVerdict(source, _ABSENT_STATUS, value)
    if value is None:
        return FieldVerdict(source, _NULL, value)
    checked = token_id_error(in_file(source.value), value, vocab_size)
    if isinstance(checked, ParallelDraftingConfigError):
        return FieldVerdict(source, _INVALID, value, error=checked)
    if first_set is None:
        status = _WINNER
    elif first_set.status is _WINNER:
        status = _SHADOWED
    else:
        status = _VALID
    return FieldVerdict(source, status, value, token_id=checked)


def _top_level(get: FieldGetter) -> Callable[[str], tuple[object, str]]:
    """Reads fields at the top level only (when ``text_config`` is unusable)."""
    return lambda name: (get(name, None), name)


def _model_size(
    read: Callable[[str], tuple[object, str]],
    name: str,
    in_file: FileField,
    errors: list[ParallelDraftingConfigError],
) -> int | None:
    """A size field as an int in ``[1, 2**31)``, from the top level else ``text_config``;
    ``None`` when unset, or with its error recorded."""
    try:
        value, field = read(name)
        return None if value is None else positive_int32(in_file(field), value)
    except ParallelDraftingConfigError as error:
        errors.append(error)
        return None


_EAGLE_MASK_TOKEN_ID: Final = join_path(EAGLE_CONFIG, "mask_token_id")
"""Where some model classes read the token id instead of the winner."""


def _eagle_mask_token_id(
    get: FieldGetter, vocab_size: int | None, in_file: FileField
) -> int | None:
    """``eagle_config.mask_token_id``, which some model classes read instead of the winner."""
    value = read_field(get, EAGLE_CONFIG, "mask_token_id")
    if value is None:
        return None
    field = _EAGLE_MASK_TOKEN_ID
    checked = token_id_error(in_file(field), value, vocab_size)
    if isinstance(checked, ParallelDraftingConfigError):
        raise checked
    return checked


def _placeholder_warnings(
    read: Callable[[str], tuple[object, str]],
    source: TokenIdField,
    token_id: int,
    in_file: FileField,
) -> list[ParallelDraftingConfigWarning]:
    """A warning for each special-token field (top level, else text_config) equal to the id."""
    return [
        placeholder_warning(in_file(source.value), token_id, in_file(field))
        for field, value in special_token_fields(read)
        if names_token_id(value, token_id)
    ]


def _conflict(
    hf_config: object,
    winner: TokenIdField,
    token_id: int,
    other: TokenIdField,
    value: int | None,
    *,
    in_file: FileField,
) -> ConflictingTokenIdWarning:
    winner_field, other_field = in_file(winner.value), in_file(other.value)
    message = (
        f"`{winner_field}` = {token_id} and `{other_field}` = {value} disagree, and "
        f"`{winner_field}` wins by priority"
    )
    # Some transformers model classes give `mask_token_id` a class default, which
    # an object reports like any other value although config.json never set it.
    config_class = type(hf_config)
    if winner.section is None and _class_default(config_class, winner.key) == token_id:
        message += (
            f", though {token_id} is also {config_class.__name__}'s class default for "
            f"`{winner.key}` and may not come from config.json"
        )
    return ConflictingTokenIdWarning(
        message + ".",
        field=other_field,
        code=codes.TOKEN_FIELDS_DISAGREE,
        fix=f"remove `{other_field}` or set it to {token_id}",
    )


def _eagle_disagrees(
    winner: TokenIdField, token_id: int, eagle: int, in_file: FileField
) -> ConflictingTokenIdWarning:
    field = in_file(_EAGLE_MASK_TOKEN_ID)
    return ConflictingTokenIdWarning(
        f"`{in_file(winner.value)}` = {token_id} and `{field}` = {eagle} disagree, so vLLM's "
        f"Qwen3 DFlash and DSpark classes embed the masked slots as {eagle} while the engine "
        f"feeds {token_id}, and nothing fails.",
        field=field,
        code=codes.TOKEN_EAGLE_DISAGREES,
        fix=f"set `{field}` to {token_id} or remove it",
        evidence="vllm/model_executor/models/qwen3_dflash.py: DFlashQwen3Model.__init__ merges "
        "`eagle_config` into `dflash_config`",
    )


def _class_default(config_class: type, name: str) -> int | None:
    """The class-level int default of ``name``, if the class has one."""
    return exact_int(getattr(config_class, name, None))
