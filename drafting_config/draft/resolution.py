"""Resolving the parallel-drafting token id from a draft model's HF config.

:func:`resolve` is the one resolver.  It reads every field of the priority
table, gives each a :class:`FieldVerdict` (winner, shadowed, valid, absent,
null or invalid, with the reason), reads and checks the draft's sizes, and
collects (without emitting) the warnings a suspicious config deserves.  The
pydantic model, :func:`~drafting_config.get_parallel_drafting_token_id`, the
error messages and the command line's ``check`` and ``explain`` all read its
:class:`Resolution`, so they cannot disagree.

Validity rules live here once: :func:`token_id_error` for a token id,
:func:`~drafting_config.values.integers.positive_int32` for a size.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Literal, TypeVar

from drafting_config.draft.speculators import (
    MASK_TOKEN_FIELD,
    SpeculatorsDraft,
    is_speculators,
    translate,
)
from drafting_config.engines.vllm import TappedLayers, runner_of, serving_method, tapped_layers
from drafting_config.values.errors import (
    ConflictingTokenIdWarning,
    ParallelDraftingConfigError,
    ParallelDraftingConfigWarning,
    PlaceholderTokenIdWarning,
    describe_value,
)
from drafting_config.values.fields import (
    MISSING,
    FieldGetter,
    field_getter,
    is_list,
    join_path,
    read_field,
    read_path,
    top_or_text_config,
)
from drafting_config.values.integers import INT32_LIMIT, exact_int, int_hint, positive_int32
from drafting_config.values.sources import (
    EAGLE_CONFIG,
    PLACEHOLDER_FIELDS,
    PRIORITY_ORDER,
    TokenIdField,
    describe_order,
)

ConfigFormat = Literal["hf", "speculators"]
"""The layout of a draft model's ``config.json``: Hugging Face's, or the speculators library's."""


class FieldStatus(str, enum.Enum):
    """What one token-id field contributed to a resolution."""

    WINNER = "winner"
    """The first set field, and valid: its value is the token id."""
    SHADOWED = "shadowed"
    """Set and valid, but a higher-priority field won."""
    VALID = "valid"
    """Set and valid, but unused because a higher-priority field is invalid."""
    ABSENT = "absent"
    """Not in the config."""
    NULL = "null"
    """Set to null (``None``), which counts as absent."""
    INVALID = "invalid"
    """Set, but not a usable token id (or unreadable); :attr:`FieldVerdict.error` says why."""


@dataclass(frozen=True)
class FieldVerdict:
    """The verdict on one token-id field of a config."""

    source: TokenIdField
    """The field."""
    status: FieldStatus
    """What it contributed."""
    value: object
    """The raw value read from the config (:data:`~drafting_config.values.fields.MISSING`
    if absent)."""
    token_id: int | None = None
    """The value as a token id, for a winner, shadowed or valid field."""
    error: ParallelDraftingConfigError | None = None
    """Why the field is invalid, for an invalid field."""


@dataclass(frozen=True)
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
    (:func:`~drafting_config.engines.vllm.serving_method`), else ``None``."""
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
    (:mod:`drafting_config.engines.vllm`).  vLLM sorts and de-duplicates them later.
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
        for verdict in self.fields:  # a loop, not next() over a generator: read per draft
            if verdict.status is FieldStatus.WINNER:
                return verdict
        return None

    @property
    def shadowed(self) -> tuple[FieldVerdict, ...]:
        """The fields that were set, valid, and lost to the winner, in priority order."""
        return tuple(f for f in self.fields if f.status is FieldStatus.SHADOWED)

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


def missing_token_id_message(order: Sequence[TokenIdField] = PRIORITY_ORDER) -> str:
    """The error text for a config that sets none of the token-id fields."""
    return (
        "The draft model's config names no parallel drafting token id: set one of "
        f"{describe_order(order)} (checked in that order; a field set to null counts as unset)."
    )


def token_id_error(
    field: str, value: object, vocab_size: int | None
) -> ParallelDraftingConfigError | int:
    """``value`` as a token id read from ``field``, or the error saying why it is not one.

    A token id is an int (see :mod:`drafting_config.values.integers`: nothing is coerced)
    in ``[0, vocab_size)``, or in ``[0, 2**31)`` when the vocabulary size is unknown.
    """
    token_id = exact_int(value)
    if token_id is None:
        return ParallelDraftingConfigError(
            f"`{field}` must be an integer token id, got {describe_value(value)}. "
            f"Expected {_expected_range(vocab_size)}.{_type_hint(value)}",
            field=field,
        )
    if not 0 <= token_id < (INT32_LIMIT if vocab_size is None else vocab_size):
        shown = describe_value(token_id).removesuffix(" (int)")
        return ParallelDraftingConfigError(
            f"`{field}` = {shown} is out of range: expected {_expected_range(vocab_size)}.",
            field=field,
        )
    return token_id


def resolve(hf_config: object, *, order: Sequence[TokenIdField] = PRIORITY_ORDER) -> Resolution:
    """Read, validate and explain the parallel-drafting token id of ``hf_config``.

    Args:
        hf_config: a ``transformers`` ``PreTrainedConfig``, a mapping such as a
            parsed ``config.json``, or any object with attributes.
        order: the priority table; :data:`~drafting_config.values.sources.PRIORITY_ORDER`
            unless a test builds another.

    Never raises for bad input: every failure is in :attr:`Resolution.errors`.
    """
    try:
        get = field_getter(hf_config, "")
    except ParallelDraftingConfigError as error:
        return Resolution((), None, None, (error,), ())
    speculators_format = False
    try:
        speculators_format = is_speculators(get)
        speculators = translate(get) if speculators_format else None
    except ParallelDraftingConfigError as error:
        return _refused(get, error, speculators_format=speculators_format)
    in_file: _FileField = _same
    if speculators is not None:  # read what vLLM's runners read after its translation
        get = field_getter(speculators.hf_config, "")
        in_file = speculators.file_field
    errors: list[ParallelDraftingConfigError] = []
    read = _attempt(errors, lambda: top_or_text_config(get)) or _top_level(get)
    hidden_size = _attempt(errors, lambda: _model_size(read, "hidden_size", in_file))
    vocab_size = _attempt(errors, lambda: _model_size(read, "vocab_size", in_file))

    fields, first_set = _field_verdicts(get, order, vocab_size, in_file)
    errors += [f.error for f in fields if f.error is not None]
    winner = first_set if first_set is not None and first_set.status is FieldStatus.WINNER else None
    if first_set is None:
        errors.append(_missing_token_id(order, speculators))
    eagle = _attempt(errors, lambda: _eagle_mask_token_id(get, vocab_size, in_file))

    warnings: list[ParallelDraftingConfigWarning] = []
    if winner is not None and winner.token_id is not None:
        token_id = winner.token_id
        warnings += [
            _conflict(hf_config, winner.source, token_id, f.source, f.token_id, in_file=in_file)
            for f in fields
            if f.status is FieldStatus.SHADOWED and f.token_id != token_id
        ]
        if eagle is not None and eagle != token_id:
            warnings.append(_eagle_disagrees(winner.source, token_id, eagle, in_file))
        try:
            warnings.extend(_placeholder_warnings(read, winner.source, token_id, in_file))
        except ParallelDraftingConfigError as error:
            errors.append(error)
    algorithm = _algorithm(get, winner, speculators)
    tapped = _tapped(get, algorithm)
    aux_layer_ids, aux_layer_source = _aux_layers(tapped, in_file)
    return Resolution(
        fields=fields,
        hidden_size=hidden_size,
        vocab_size=vocab_size,
        errors=tuple(errors),
        warnings=tuple(warnings),
        format="hf" if speculators is None else "speculators",
        algorithm=algorithm,
        eagle_mask_token_id=eagle,
        speculators=speculators,
        aux_layer_ids=aux_layer_ids,
        aux_layer_source=aux_layer_source,
        tapped=tapped,
    )


def _refused(
    get: FieldGetter, error: ParallelDraftingConfigError, *, speculators_format: bool
) -> Resolution:
    """The resolution of a config refused before its token id is read: a speculators file
    keeps its format, and one refused for an algorithm that is not parallel drafting
    (``eagle3``) keeps that algorithm and the layers vLLM would tap for it."""
    if not speculators_format:
        return Resolution((), None, None, (error,), ())
    try:
        translated = translate(get, parallel_only=False)
    except ParallelDraftingConfigError:
        return Resolution((), None, None, (error,), (), format="speculators")
    tapped = _tapped(field_getter(translated.hf_config, ""), translated.algorithm)
    aux_layer_ids, aux_layer_source = _aux_layers(tapped, translated.file_field)
    return Resolution(
        (),
        None,
        None,
        (error,),
        (),
        format="speculators",
        algorithm=translated.algorithm,
        aux_layer_ids=aux_layer_ids,
        aux_layer_source=aux_layer_source,
        tapped=tapped,
    )


_FileField = Callable[[str], str]
"""Where a field of the config the resolver reads sits in the draft's file."""


def _same(field: str) -> str:
    """:data:`_FileField` of a Hugging Face config: every field is where it was read."""
    return field


def _missing_token_id(
    order: Sequence[TokenIdField], speculators: SpeculatorsDraft | None
) -> ParallelDraftingConfigError:
    """The error for a config that sets no token-id field, naming what the user's file lacks.

    A speculators file names its token id in its top-level ``mask_token_id``, which vLLM
    (``vllm/transformers_utils/configs/speculators/algos.py``) copies into the HF field the
    resolver reads; the HF fields are not what that user can set.
    """
    if speculators is None or speculators.spec.mask_token_source is None:
        return ParallelDraftingConfigError(missing_token_id_message(order))
    return ParallelDraftingConfigError(
        f"`{MASK_TOKEN_FIELD}` is missing or null: a speculators {speculators.algorithm} draft "
        f"names its parallel drafting token id there (vLLM copies it to "
        f"`{speculators.spec.mask_token_source.value}`); set it to the mask token's id.",
        field=MASK_TOKEN_FIELD,
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
    tapped: TappedLayers | None, in_file: _FileField
) -> tuple[tuple[int, ...] | None, str | None]:
    """The tapped layers and where they came from, as the draft's file names it."""
    if tapped is None or tapped.ids is None or tapped.field is None:
        return None, None
    return tapped.ids, in_file(tapped.field)


def _algorithm(
    get: FieldGetter, winner: FieldVerdict | None, speculators: SpeculatorsDraft | None
) -> str | None:
    """The speculators type, else the method vLLM serves the draft with
    (:func:`~drafting_config.engines.vllm.serving_method`): the winning field's, or vLLM's
    guess from the draft's ``architectures`` when the field names none (a MuseGlimmer
    assistant naming its id in the generic ``mask_token_id`` is DFlash)."""
    if speculators is not None:
        return speculators.algorithm
    method = None if winner is None else winner.source.algorithm
    try:
        return serving_method(get, method)
    except ParallelDraftingConfigError:  # an unreadable field: the field's own method
        return method


_SET: Final = frozenset(
    {FieldStatus.WINNER, FieldStatus.SHADOWED, FieldStatus.VALID, FieldStatus.INVALID}
)


def _field_verdicts(
    get: FieldGetter, order: Sequence[TokenIdField], vocab_size: int | None, in_file: _FileField
) -> tuple[tuple[FieldVerdict, ...], FieldVerdict | None]:
    """One verdict per field, and the first set one; the first set field wins if valid, later
    valid ones are shadowed by it, or merely valid when it is invalid."""
    verdicts: list[FieldVerdict] = []
    first_set: FieldVerdict | None = None
    absent = _ABSENT if order is PRIORITY_ORDER else None
    for index, source in enumerate(order):
        try:
            value = _read_source(get, source)
        except ParallelDraftingConfigError as error:
            verdict = FieldVerdict(source, FieldStatus.INVALID, MISSING, error=error)
        else:
            if value is MISSING and absent is not None:
                verdict = absent[index]  # most rows of a config: one frozen verdict, reused
            else:
                verdict = _judge(source, value, vocab_size, first_set, in_file)
        if first_set is None and verdict.status in _SET:
            first_set = verdict
        verdicts.append(verdict)
    return tuple(verdicts), first_set


_ABSENT: Final = tuple(FieldVerdict(row, FieldStatus.ABSENT, MISSING) for row in PRIORITY_ORDER)
"""The verdict of each row of the table in force when the config lacks its field."""


def _judge(
    source: TokenIdField,
    value: object,
    vocab_size: int | None,
    first_set: FieldVerdict | None,
    in_file: _FileField,
) -> FieldVerdict:
    if value is MISSING:
        return FieldVerdict(source, FieldStatus.ABSENT, value)
    if value is None:
        return FieldVerdict(source, FieldStatus.NULL, value)
    checked = token_id_error(in_file(source.value), value, vocab_size)
    if isinstance(checked, ParallelDraftingConfigError):
        return FieldVerdict(source, FieldStatus.INVALID, value, error=checked)
    if first_set is None:
        status = FieldStatus.WINNER
    elif first_set.status is FieldStatus.WINNER:
        status = FieldStatus.SHADOWED
    else:
        status = FieldStatus.VALID
    return FieldVerdict(source, status, value, token_id=checked)


def _read_source(get: FieldGetter, source: TokenIdField) -> object:
    """The raw value of ``source``: :data:`MISSING` if it or its section is absent or null."""
    return read_field(get, source.section, source.key, MISSING)


def _top_level(get: FieldGetter) -> Callable[[str], tuple[object, str]]:
    """Reads fields at the top level only (when ``text_config`` is unusable)."""
    return lambda name: (get(name, None), name)


_T = TypeVar("_T")


def _attempt(errors: list[ParallelDraftingConfigError], read: Callable[[], _T]) -> _T | None:
    """``read()``, or ``None`` with its error recorded."""
    try:
        return read()
    except ParallelDraftingConfigError as error:
        errors.append(error)
        return None


def _model_size(
    read: Callable[[str], tuple[object, str]], name: str, in_file: _FileField
) -> int | None:
    """A size field as an int in ``[1, 2**31)``, from the top level else ``text_config``."""
    value, field = read(name)
    return None if value is None else positive_int32(in_file(field), value)


def _eagle_mask_token_id(
    get: FieldGetter, vocab_size: int | None, in_file: _FileField
) -> int | None:
    """``eagle_config.mask_token_id``, which some model classes read instead of the winner."""
    field = join_path(EAGLE_CONFIG, "mask_token_id")
    value = read_path(get, field)
    if value is None:
        return None
    checked = token_id_error(in_file(field), value, vocab_size)
    if isinstance(checked, ParallelDraftingConfigError):
        raise checked
    return checked


def _placeholder_warnings(
    read: Callable[[str], tuple[object, str]],
    source: TokenIdField,
    token_id: int,
    in_file: _FileField,
) -> list[ParallelDraftingConfigWarning]:
    """A warning for each special-token field (top level, else text_config) equal to the id."""
    return [
        placeholder_warning(in_file(source.value), token_id, in_file(field), value)
        for field, value in special_token_fields(read)
        if names_token_id(value, token_id)
    ]


def special_token_fields(
    read: Callable[[str], tuple[object, str]],
) -> list[tuple[str, object]]:
    """Each set field of :data:`~drafting_config.values.sources.PLACEHOLDER_FIELDS` with its raw
    value, for a draft's config or a target's.

    Args:
        read: the config's reader of top-level fields, else ``text_config`` ones
            (:func:`~drafting_config.values.fields.top_or_text_config`).
    """
    found: list[tuple[str, object]] = []
    for name in PLACEHOLDER_FIELDS:
        value, field = read(name)
        if value is not None:
            found.append((field, value))
    return found


def names_token_id(value: object, token_id: int) -> bool:
    """Whether a special-token field (an id, or a list of ids such as a list of eos ids)
    holds ``token_id``.  Only ints are compared (see
    :func:`~drafting_config.values.integers.exact_int`)."""
    if is_list(value):
        return any(exact_int(item) == token_id for item in value)
    return exact_int(value) == token_id


def _type_hint(value: object) -> str:
    kind = type(value)
    if issubclass(kind, str):
        return " Strings are not converted: write the number without quotes."
    if issubclass(kind, float):
        return " Floats are not converted, not even whole ones such as 7.0."
    if issubclass(kind, bool):
        return " Booleans are not token ids."
    return int_hint(value)


def _expected_range(vocab_size: int | None) -> str:
    if vocab_size is None:
        return "an int in [0, 2**31) (engines feed token ids as int32)"
    return f"an int in [0, {vocab_size}) (the draft model's vocab_size is {vocab_size})"


def _conflict(
    hf_config: object,
    winner: TokenIdField,
    token_id: int,
    other: TokenIdField,
    value: int | None,
    *,
    in_file: _FileField,
) -> ConflictingTokenIdWarning:
    winner_field, other_field = in_file(winner.value), in_file(other.value)
    message = (
        f"`{winner_field}` = {token_id} and `{other_field}` = {value} disagree; "
        f"`{winner_field}` wins because it has higher priority. "
        f"Remove `{other_field}` or set it to {token_id}."
    )
    # Some transformers model classes give `mask_token_id` a class default, which
    # an object reports like any other value although config.json never set it.
    config_class = type(hf_config)
    if winner.section is None and _class_default(config_class, winner.key) == token_id:
        message += (
            f" Note: {token_id} is also the class default of {config_class.__name__}."
            f"{winner.key}, so it may not come from config.json at all."
        )
    return ConflictingTokenIdWarning(message)


def _eagle_disagrees(
    winner: TokenIdField, token_id: int, eagle: int, in_file: _FileField
) -> ConflictingTokenIdWarning:
    field = in_file(join_path(EAGLE_CONFIG, "mask_token_id"))
    return ConflictingTokenIdWarning(
        f"`{in_file(winner.value)}` = {token_id} and `{field}` = {eagle} disagree. Engines feed "
        f"{token_id}, but some model classes (vLLM's Qwen3 DFlash/DSpark) merge `{EAGLE_CONFIG}` "
        f"into `dflash_config` and embed their mask slots as {eagle}, and nothing fails. "
        f"Set `{field}` to {token_id} or remove it."
    )


def placeholder_warning(
    source: str, token_id: int, field: str, value: object, *, whose: str = "config's"
) -> PlaceholderTokenIdWarning:
    """The warning for a token id equal to a special-token field of the draft's config (or,
    with ``whose="target's"``, of the target's)."""
    return PlaceholderTokenIdWarning(
        f"The parallel drafting token id {token_id} (from `{source}`) equals the "
        f"{whose} `{field}` ({describe_value(value)}): a placeholder copied from a special "
        "token makes every masked slot look like that token and ruins acceptance rates. "
        "Use a dedicated mask token id."
    )


def _class_default(config_class: type, name: str) -> int | None:
    """The class-level int default of ``name``, if the class has one."""
    return exact_int(getattr(config_class, name, None))
