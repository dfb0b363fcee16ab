"""The speculators format: a draft's ``config.json`` read the way vLLM 0.33 reads it.

The ``speculators`` library saves a draft model as ``speculators_model_type``
(the algorithm), ``transformer_layer_config`` (the draft's own Hugging Face
config), ``speculators_config`` (proposal methods and the verifier, i.e. the
target model) and algorithm fields at the top level: ``mask_token_id``,
``aux_hidden_state_layer_ids``, ``draft_vocab_size``, ``target_hidden_size``.

vLLM does not read those top-level fields directly.  It starts from
``transformer_layer_config`` and writes each algorithm's fields where its
runners and model classes look for them; :data:`SPECULATORS_ALGORITHMS` holds
that translation as data, one row per algorithm, and :func:`translate`
applies it.  The result's ``hf_config`` is the Hugging Face-shaped config
that the resolver then reads like any other draft config, so the token id and
sizes it finds are the ones vLLM ends up with.

Where vLLM raises a bare ``KeyError`` or ``TypeError`` for a missing or
malformed key, :func:`translate` raises a
:class:`~drafting_config.values.errors.ParallelDraftingConfigError` whose ``field``
is the key's full path from the file's root, such as
``speculators_config.proposal_methods[0].speculative_tokens``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Final, cast

from drafting_config.draft.file import (
    SPECULATORS_CONFIG_FIELD,
    SPECULATORS_TYPE_FIELD,
    SPECULATORS_VERIFIER_FIELD,
    TRANSFORMER_LAYER_CONFIG_FIELD,
)
from drafting_config.engines.vllm import codes as vllm_codes
from drafting_config.values.errors import ParallelDraftingConfigError, describe_value, foreign_error
from drafting_config.values.fields import MISSING, FieldGetter, field_getter, is_kind, is_list
from drafting_config.values.integers import INT32_LIMIT, exact_int
from drafting_config.values.sources import TokenIdSource

MASK_TOKEN_FIELD: Final = "mask_token_id"
"""The top-level mask token id of a speculators draft (before translation)."""

AUX_LAYER_IDS_FIELD: Final = "aux_hidden_state_layer_ids"
"""The top-level target layers of DFlash and DSpark speculators drafts, as capture indices
(0: the input of the target's first layer; ``i + 1``: the output of layer ``i``)."""

EAGLE_LAYER_IDS_FIELD: Final = "eagle_aux_hidden_state_layer_ids"
"""The HF field of the target layers whose hidden states vLLM's runner captures."""

VERIFIER_FIELD: Final = SPECULATORS_VERIFIER_FIELD
"""The target model (a hub repo id or a local path), required by vLLM."""

SPECULATIVE_TOKENS_FIELD: Final = "speculators_config.proposal_methods[0].speculative_tokens"
"""The number of tokens drafted per step, required by vLLM."""

_BASE: Final = "vllm/transformers_utils/configs/speculators/base.py"
_ALGOS: Final = "vllm/transformers_utils/configs/speculators/algos.py"
_VALIDATES: Final = f"{_BASE}: SpeculatorsConfig.validate_speculators_config raises ValueError"

_DRAFT_VOCAB_SIZE: Final = "draft_vocab_size"
_TARGET_HIDDEN_SIZE: Final = "target_hidden_size"


@dataclass(frozen=True)
class SpeculatorsAlgorithm:
    """What vLLM 0.33 does with the draft of one ``speculators_model_type``."""

    name: str
    """The ``speculators_model_type`` value."""

    parallel_drafting: bool
    """Whether the draft fills masked slots with a parallel-drafting token."""

    vllm_method: str
    """The ``speculative_config.method`` vLLM runs it with (``peagle`` runs as ``eagle3``
    with parallel drafting on)."""

    mask_token_source: TokenIdSource | None
    """The HF field the top-level ``mask_token_id`` is written to, i.e. where the resolver
    finds it; ``None`` when vLLM does not read ``mask_token_id``."""

    mask_token_required: bool
    """vLLM reads ``mask_token_id`` unconditionally (a bare ``KeyError`` when it is absent);
    otherwise it copies it only when it is set and not null."""

    target_layer_ids_field: str | None
    """The HF field that receives ``aux - 1`` (a layer index) for each capture index of
    ``aux_hidden_state_layer_ids`` (then required), which are also copied as given to
    ``eagle_aux_hidden_state_layer_ids``; ``None`` when vLLM does not read
    ``aux_hidden_state_layer_ids``."""

    copies_eagle_layer_ids: bool
    """vLLM copies a top-level ``eagle_aux_hidden_state_layer_ids`` when it is not empty."""

    always_sets_draft_vocab_size: bool
    """vLLM sets ``draft_vocab_size`` even when the file has none (to null, hiding any value in
    ``transformer_layer_config``); otherwise it copies it only when it is set and not null."""

    fed_target_hidden_states: bool = True
    """The drafter reads the target's hidden states, so its ``target_hidden_size`` (or
    ``hidden_size``) must be the target's ``hidden_size``."""

    model_types: Mapping[str, str] | None = None
    """The ``transformer_layer_config.model_type`` values vLLM's updater for this type
    accepts, each with the architecture it writes for it, the first being what a missing
    key counts as; any other value, ``null`` included, makes it raise ``ValueError``.
    ``None``: it does not read ``model_type``."""

    architecture: str | None = None
    """The architecture the updater writes when :attr:`model_types` does not choose it (for
    ``dspark``, when the file's top-level ``architectures`` names none of
    :attr:`kept_architectures`)."""

    kept_architectures: frozenset[str] = frozenset()
    """The names of the file's top-level ``architectures`` the updater keeps (``dspark``)."""

    updater: str = ""
    """The function of ``vllm/transformers_utils/configs/speculators/algos.py`` that
    translates this type (``update_dflash``, ...), for messages."""


_DFLASH: Final = SpeculatorsAlgorithm(
    name="dflash",
    parallel_drafting=True,
    vllm_method="dflash",
    mask_token_source=TokenIdSource.DFLASH_MASK_TOKEN_ID,
    mask_token_required=True,
    target_layer_ids_field="dflash_config.target_layer_ids",
    copies_eagle_layer_ids=False,
    always_sets_draft_vocab_size=True,
    architecture="DFlashDraftModel",
    updater="update_dflash",
)

_EAGLE3_ARCHITECTURES: Final[Mapping[str, str]] = MappingProxyType(
    {"llama": "Eagle3LlamaForCausalLM", "qwen3": "Eagle3Qwen3ForCausalLM"}
)
"""``eagle3_arch_map`` in ``update_eagle3``
(``vllm/transformers_utils/configs/speculators/algos.py``), ``llama`` first:
``pre_trained_config.get("model_type", "llama")``."""

_PEAGLE_ARCHITECTURES: Final[Mapping[str, str]] = MappingProxyType(
    {"llama": "PeagleLlamaForCausalLM", "qwen3": "PeagleQwen3ForCausalLM"}
)
"""``peagle_arch_map`` in ``update_peagle`` (same file), ``llama`` first."""

_ROWS: Final = (
    _DFLASH,
    # vLLM reads dflash2 as dflash (update_dflash2 calls update_dflash first)
    replace(_DFLASH, name="dflash2", architecture="DFlash2DraftModel", updater="update_dflash2"),
    SpeculatorsAlgorithm(
        name="dspark",
        parallel_drafting=True,
        vllm_method="dspark",
        mask_token_source=TokenIdSource.MASK_TOKEN_ID,
        mask_token_required=False,
        target_layer_ids_field="target_layer_ids",
        copies_eagle_layer_ids=False,
        always_sets_draft_vocab_size=False,
        architecture="Qwen3DSparkModel",
        kept_architectures=frozenset({"Qwen3DSparkModel", "Qwen3OmniDSparkModel"}),
        updater="update_dspark",
    ),
    SpeculatorsAlgorithm(
        name="peagle",
        parallel_drafting=True,
        vllm_method="eagle3",
        mask_token_source=TokenIdSource.PARD_TOKEN,
        mask_token_required=True,
        target_layer_ids_field=None,
        copies_eagle_layer_ids=True,
        always_sets_draft_vocab_size=True,
        model_types=_PEAGLE_ARCHITECTURES,
        updater="update_peagle",
    ),
    SpeculatorsAlgorithm(
        name="eagle3",
        parallel_drafting=False,
        vllm_method="eagle3",
        mask_token_source=None,
        mask_token_required=False,
        target_layer_ids_field=None,
        copies_eagle_layer_ids=True,
        always_sets_draft_vocab_size=True,
        model_types=_EAGLE3_ARCHITECTURES,
        updater="update_eagle3",
    ),
)

SPECULATORS_ALGORITHMS: Final[Mapping[str, SpeculatorsAlgorithm]] = MappingProxyType(
    {row.name: row for row in _ROWS}
)
"""Every ``speculators_model_type`` known here, by name, in declaration order."""

PARALLEL_DRAFTING_ALGORITHMS: Final = tuple(row.name for row in _ROWS if row.parallel_drafting)
"""The speculators algorithms that draft in parallel: the ones :func:`translate` accepts."""

_PARALLEL_NAMES: Final = ", ".join(PARALLEL_DRAFTING_ALGORITHMS)
"""Those algorithms as the messages list them."""


@dataclass(frozen=True)
class SpeculatorsDraft:
    """A speculators-format draft config, translated the way vLLM 0.33 translates it."""

    algorithm: str
    """The ``speculators_model_type`` (``"dflash"``, ``"dflash2"``, ``"dspark"``, ``"peagle"``)."""

    hf_config: dict[str, object]
    """The Hugging Face-shaped config vLLM's runners read: a shallow copy of
    ``transformer_layer_config`` with the algorithm's token, size and layer fields written
    where vLLM writes them (see :class:`SpeculatorsAlgorithm`), and the ``architectures``
    its updater writes.  Other fields vLLM sets (norm and Markov-head options) are not
    reproduced."""

    verifier: str
    """``speculators_config.verifier.name_or_path``: the target model, a repo id or a path."""

    speculative_tokens: int
    """``speculators_config.proposal_methods[0].speculative_tokens``: tokens drafted per step."""

    origins: Mapping[str, str]
    """For each field of :attr:`hf_config` that vLLM copies from the file's top level, that
    key (``{"dflash_config.mask_token_id": "mask_token_id", ...}``); see :meth:`file_field`."""

    def file_field(self, hf_field: str) -> str:
        """Where a field of :attr:`hf_config` sits in the speculators file, for messages.

        The top-level key vLLM copied it from (``mask_token_id`` for DFlash's
        ``dflash_config.mask_token_id``), else its place in ``transformer_layer_config``.
        """
        origin = self.origins.get(hf_field)
        return origin if origin is not None else f"{TRANSFORMER_LAYER_CONFIG_FIELD}.{hf_field}"

    @property
    def spec(self) -> SpeculatorsAlgorithm:
        """The table row of this draft's algorithm."""
        return SPECULATORS_ALGORITHMS[self.algorithm]

    def __getstate__(self) -> dict[str, object]:
        # A mappingproxy does not pickle; a Verdict must (ProcessPoolExecutor.map(check, ...)).
        return {**self.__dict__, "origins": dict(self.origins)}

    def __setstate__(self, state: dict[str, object]) -> None:
        origins = cast("dict[str, str]", state["origins"])
        self.__dict__.update(state, origins=MappingProxyType(origins))


def translate(get: FieldGetter, *, parallel_only: bool = True) -> SpeculatorsDraft:
    """Translate a speculators-format draft config the way vLLM 0.33 does.

    Checks, in order: the algorithm, the proposal's ``speculative_tokens``, the verifier,
    ``transformer_layer_config`` (and its ``model_type`` for ``peagle`` and ``eagle3``),
    then the algorithm's own fields
    (``aux_hidden_state_layer_ids``, refused only where vLLM's translation fails, then
    ``mask_token_id``).  Token ids and sizes are
    copied as they are: validating them is the resolver's job, on ``hf_config``.

    Args:
        get: the config's field reader, called like ``dict.get(name, default)``.
        parallel_only: refuse an algorithm that is not parallel drafting (``eagle3``);
            ``False`` translates it too, for what vLLM reads beside the token id.

    Raises:
        ParallelDraftingConfigError: ``field`` is the full path, from the file's root, of
            the first key that is missing or malformed; ``speculators_model_type`` when
            the algorithm is missing, unknown or, with ``parallel_only``, ``eagle3``.
    """
    algorithm = _algorithm(get, parallel_only=parallel_only)
    speculators_config = _section(
        get, SPECULATORS_CONFIG_FIELD, SPECULATORS_CONFIG_FIELD, needed_for=SPECULATIVE_TOKENS_FIELD
    )
    speculative_tokens = _speculative_tokens(speculators_config)
    verifier = _verifier(speculators_config)
    hf_config = _transformer_layer_config(get)
    hf_config["architectures"] = _written_architectures(hf_config, algorithm, get)
    origins: dict[str, str] = {}  # hf_config field -> the top-level key it was copied from

    if algorithm.always_sets_draft_vocab_size:
        hf_config[_DRAFT_VOCAB_SIZE] = get(_DRAFT_VOCAB_SIZE, None)
        origins[_DRAFT_VOCAB_SIZE] = _DRAFT_VOCAB_SIZE
    else:
        _copy_when_set(get, _DRAFT_VOCAB_SIZE, hf_config, _DRAFT_VOCAB_SIZE, origins)
    _copy_when_set(get, _TARGET_HIDDEN_SIZE, hf_config, _TARGET_HIDDEN_SIZE, origins)
    for section in _WRITTEN_SECTIONS[algorithm.name]:
        hf_config[section] = {}  # vLLM assigns these sections afresh

    if algorithm.target_layer_ids_field is not None:
        raw = _required(get, AUX_LAYER_IDS_FIELD, algorithm)
        hf_config[EAGLE_LAYER_IDS_FIELD] = raw  # as given: capture indices
        _write(hf_config, algorithm.target_layer_ids_field, _minus_one(raw))
        origins[EAGLE_LAYER_IDS_FIELD] = AUX_LAYER_IDS_FIELD
        origins[algorithm.target_layer_ids_field] = AUX_LAYER_IDS_FIELD
    if algorithm.copies_eagle_layer_ids:
        eagle_layer_ids = get(EAGLE_LAYER_IDS_FIELD, None)
        if not _json_falsy(eagle_layer_ids):
            hf_config[EAGLE_LAYER_IDS_FIELD] = eagle_layer_ids
            origins[EAGLE_LAYER_IDS_FIELD] = EAGLE_LAYER_IDS_FIELD

    if algorithm.mask_token_source is not None:
        destination = algorithm.mask_token_source.value
        if algorithm.mask_token_required:
            _write(hf_config, destination, _required(get, MASK_TOKEN_FIELD, algorithm))
            origins[destination] = MASK_TOKEN_FIELD
        else:
            _copy_when_set(get, MASK_TOKEN_FIELD, hf_config, destination, origins)

    return SpeculatorsDraft(
        algorithm=algorithm.name,
        hf_config=hf_config,
        verifier=verifier,
        speculative_tokens=speculative_tokens,
        origins=MappingProxyType(origins),
    )


# --- the required structure --------------------------------------------------------------------


def _algorithm(get: FieldGetter, *, parallel_only: bool) -> SpeculatorsAlgorithm:
    value = get(SPECULATORS_TYPE_FIELD, MISSING)
    parallel = _PARALLEL_NAMES
    if value is MISSING or value is None:
        raise ParallelDraftingConfigError(
            f"`{SPECULATORS_TYPE_FIELD}` is {_absent(value)}, so vLLM cannot tell the "
            "speculators draft's algorithm and refuses the file at start-up.",
            field=SPECULATORS_TYPE_FIELD,
            code=vllm_codes.SPECULATORS_TYPE_MISSING,
            fix=f"set `{SPECULATORS_TYPE_FIELD}` to the draft's algorithm: {parallel} "
            "(parallel drafting) or eagle3",
            evidence=f"{_BASE}: SpeculatorsConfig.extract_transformers_pre_trained_config "
            "raises ValueError",
        )
    name = _exact_str(value)
    row = None if name is None else SPECULATORS_ALGORITHMS.get(name)
    if row is None:
        others = ", ".join(r.name for r in _ROWS if not r.parallel_drafting)
        raise ParallelDraftingConfigError(
            f"`{SPECULATORS_TYPE_FIELD}` = {describe_value(value)} is none of the algorithms "
            f"vLLM translates, {parallel} (parallel drafting) or {others}, so it refuses the "
            "file at start-up.",
            field=SPECULATORS_TYPE_FIELD,
            code=vllm_codes.SPECULATORS_TYPE_UNKNOWN,
            fix=f"set `{SPECULATORS_TYPE_FIELD}` to the draft's algorithm",
            evidence=f"{_BASE}: SpeculatorsConfig.extract_transformers_pre_trained_config "
            "raises ValueError",
        )
    if parallel_only and not row.parallel_drafting:
        raise ParallelDraftingConfigError(
            f"`{SPECULATORS_TYPE_FIELD}` is {row.name!r}: {row.name} is not parallel drafting, "
            "so the draft has no parallel-drafting mask token, and vLLM drafts it "
            "sequentially.",
            field=SPECULATORS_TYPE_FIELD,
            code=vllm_codes.SPECULATORS_NOT_PARALLEL,
            evidence=f"{_ALGOS}: {row.updater} reads no mask token; parallel-drafting "
            f"algorithms: {parallel}",
        )
    return row


def _speculative_tokens(speculators_config: FieldGetter) -> int:
    methods_field = f"{SPECULATORS_CONFIG_FIELD}.proposal_methods"
    methods = speculators_config("proposal_methods", MISSING)
    if methods is MISSING:
        raise _missing(methods_field, SPECULATIVE_TOKENS_FIELD)
    if not is_list(methods):
        raise ParallelDraftingConfigError(
            f"`{methods_field}` = {describe_value(methods)} is not a non-empty JSON array of "
            "proposal methods, so vLLM refuses the file at start-up.",
            field=methods_field,
            code=vllm_codes.SPECULATORS_METHODS_INVALID,
            fix=f'make `{methods_field}` an array such as `[{{"proposal_type": "greedy", '
            '"speculative_tokens": 3}]`',
            evidence=_VALIDATES,
        )
    first = next(iter(methods), MISSING)
    if first is MISSING:
        raise _missing(f"{methods_field}[0]", SPECULATIVE_TOKENS_FIELD, empty=methods_field)
    method_field = f"{methods_field}[0]"
    method = _mapping_reader(first, method_field)
    tokens = method("speculative_tokens", MISSING)
    if tokens is MISSING:
        raise _missing(SPECULATIVE_TOKENS_FIELD, SPECULATIVE_TOKENS_FIELD)
    count = exact_int(tokens)
    if count is None or not 1 <= count < INT32_LIMIT:
        raise ParallelDraftingConfigError(
            f"`{SPECULATIVE_TOKENS_FIELD}` = {describe_value(tokens)} is not a positive int "
            "below 2**31, so vLLM has no number of tokens to draft per step and refuses it at "
            "start-up.",
            field=SPECULATIVE_TOKENS_FIELD,
            code=vllm_codes.SPECULATORS_TOKENS_INVALID,
            fix=f"set `{SPECULATIVE_TOKENS_FIELD}` to the number of tokens drafted per step, "
            "such as 3",
            evidence=f"{_BASE}: SpeculatorsConfig.build_vllm_speculative_config; "
            "vllm/config/speculative.py: SpeculativeConfig (num_speculative_tokens)",
        )
    return count


def _verifier(speculators_config: FieldGetter) -> str:
    verifier_field = f"{SPECULATORS_CONFIG_FIELD}.verifier"
    verifier = _section(speculators_config, "verifier", verifier_field, needed_for=VERIFIER_FIELD)
    value = verifier("name_or_path", MISSING)
    if value is MISSING:
        raise _missing(VERIFIER_FIELD, VERIFIER_FIELD)
    name = _exact_str(value)
    if not name:
        raise ParallelDraftingConfigError(
            f"`{VERIFIER_FIELD}` = {describe_value(value)} is not a non-empty string, so the "
            "speculators file names no target model for vLLM to verify with.",
            field=VERIFIER_FIELD,
            code=vllm_codes.SPECULATORS_VERIFIER_INVALID,
            fix=f"set `{VERIFIER_FIELD}` to the target model's hub repo id or local path",
            evidence=_VALIDATES,
        )
    return name


def _transformer_layer_config(get: FieldGetter) -> dict[str, object]:
    """A shallow copy of ``transformer_layer_config``."""
    field = TRANSFORMER_LAYER_CONFIG_FIELD
    section = get(field, MISSING)
    if section is MISSING:
        raise ParallelDraftingConfigError(
            f"`{field}` is missing, so vLLM has no config to build the draft from and "
            "refuses the file at start-up.",
            field=field,
            code=vllm_codes.SPECULATORS_LAYER_CONFIG_MISSING,
            fix=f"add the draft's own Hugging Face config (model_type, hidden_size, "
            f"vocab_size, ...) as `{field}`",
            evidence=f'{_VALIDATES} "Must provide transformer_layer_config"',
        )
    if type(section) is not dict and not is_kind(section, Mapping):
        raise _not_an_object(field, section)
    try:
        items = list(cast("Mapping[object, object]", section).items())
    except Exception as error:  # a mapping whose reads raise
        raise foreign_error(f"Could not list the fields of `{field}`", error, field=field) from None
    for key, _ in items:
        if type(key) is not str and not is_kind(key, str):  # a parsed file's keys: str
            raise ParallelDraftingConfigError(
                f"`{field}` has the key {describe_value(key)}, not a string, so it is no JSON "
                "object vLLM can build the draft's config from.",
                field=field,
                code=vllm_codes.SPECULATORS_KEYS_NOT_STRINGS,
                fix=f"make every key of `{field}` a string",
                evidence=f"{_BASE}: SpeculatorsConfig.__init__",
            )
    return dict(cast("list[tuple[str, object]]", items))


def _written_architectures(
    layer_config: Mapping[str, object], algorithm: SpeculatorsAlgorithm, get: FieldGetter
) -> list[str]:
    """The architecture the algorithm's vLLM updater writes
    (``vllm/transformers_utils/configs/speculators/algos.py``): by
    ``transformer_layer_config.model_type`` for ``eagle3`` and ``peagle``, which refuse a
    type they do not map (``update_eagle3`` and ``update_peagle`` raise ``ValueError``:
    "Unsupported model_type ... speculator"); for ``dspark``, those of the file's top-level
    ``architectures`` that ``update_dspark`` keeps, else its default; else the one name the
    updater writes.  No updater leaves ``transformer_layer_config``'s own list."""
    accepted = algorithm.model_types
    if accepted is None:
        listed = get("architectures", None)
        names = [name for name in listed if is_kind(name, str)] if is_list(listed) else []
        kept = [name for name in names if name in algorithm.kept_architectures]
        return kept or ([algorithm.architecture] if algorithm.architecture else [])
    first = next(iter(accepted))
    value = layer_config.get("model_type", first)
    name = _exact_str(value)
    if name is not None and name in accepted:
        return [accepted[name]]
    field = f"{TRANSFORMER_LAYER_CONFIG_FIELD}.model_type"
    listed = " or ".join(repr(name) for name in accepted)
    raise ParallelDraftingConfigError(
        f"`{field}` is {describe_value(value)}, which vLLM's `{algorithm.updater}` maps to no "
        f"{algorithm.name} class (it accepts only {listed}, {first!r} when the key is "
        "missing), so it refuses the file at start-up.",
        field=field,
        code=vllm_codes.SPECULATORS_CLASS_UNSUPPORTED,
        fix=f"set `{field}` to {listed}, the layers the draft was trained with",
        evidence=f'{_ALGOS}: {algorithm.updater} raises ValueError "Unsupported model_type"',
    )


# --- reading helpers ---------------------------------------------------------------------------


def _section(
    get: FieldGetter, name: str, path: str, *, needed_for: str | None = None
) -> FieldGetter:
    """The reader of a required nested section, which must be a JSON object (a mapping)."""
    value = get(name, MISSING)
    if value is MISSING:
        raise _missing(path, needed_for)
    return _mapping_reader(value, path)


def _mapping_reader(value: object, path: str) -> FieldGetter:
    if type(value) is not dict and not is_kind(value, Mapping):  # a parsed file's: a dict
        raise _not_an_object(path, value)
    return field_getter(value, path)


def _required(get: FieldGetter, field: str, algorithm: SpeculatorsAlgorithm) -> object:
    value = get(field, MISSING)
    if value is MISSING:
        raise ParallelDraftingConfigError(
            f"`{field}` is missing, and vLLM's translation of a speculators {algorithm.name} "
            "draft reads it unconditionally, so it fails at start-up.",
            field=field,
            code=vllm_codes.SPECULATORS_FIELD_MISSING,
            fix=f"set `{field}`",
            evidence=f"{_ALGOS}: {algorithm.updater} raises KeyError",
        )
    return value


def _minus_one(value: object) -> list[object]:
    """``[i - 1 for i in value]``, as vLLM writes DFlash's and DSpark's layer indices from
    the capture indices in ``aux_hidden_state_layer_ids`` (``update_dflash`` and
    ``update_dspark`` in ``vllm/transformers_utils/configs/speculators/algos.py``).

    Only what makes vLLM fail here is refused: the layer rules (ints, order, range) are
    ``check()``'s, on the list the serving runner reads.  vLLM iterates whatever it is
    given, so an empty string or an empty JSON object becomes an empty list, as ``[]``
    does (and then names no target layers).

    Raises:
        ParallelDraftingConfigError: ``value`` is not a list, an empty string or an empty
            object, or holds an item that is not a number, where vLLM fails with a bare
            ``TypeError``.
    """
    if is_kind(value, (str, dict)) and not value:  # "" or {}: nothing to iterate
        return []
    if not is_list(value):
        raise ParallelDraftingConfigError(
            f"`{AUX_LAYER_IDS_FIELD}` is no JSON array of target layer ids (got "
            f"{describe_value(value)}), and vLLM computes id - 1 for each and fails on it.",
            field=AUX_LAYER_IDS_FIELD,
            code=vllm_codes.SPECULATORS_AUX_IDS_INVALID,
            fix=f"set `{AUX_LAYER_IDS_FIELD}` to the tapped layers' capture indices, such as "
            "[2, 18, 34]",
            evidence=f"{_ALGOS}: update_dflash and update_dspark raise TypeError",
        )
    shifted: list[object] = []
    for index, item in enumerate(value):
        if type(item) is not int and not isinstance(item, (int, float)):
            raise ParallelDraftingConfigError(
                f"`{AUX_LAYER_IDS_FIELD}` item {index} is {describe_value(item)}, not a "
                "layer id, and vLLM computes id - 1 for each and fails on it.",
                field=AUX_LAYER_IDS_FIELD,
                code=vllm_codes.SPECULATORS_AUX_IDS_INVALID,
                fix=f"make every item of `{AUX_LAYER_IDS_FIELD}` an integer capture index",
                evidence=f"{_ALGOS}: update_dflash and update_dspark raise TypeError",
            )
        shifted.append(item - 1)
    return shifted


def _copy_when_set(
    get: FieldGetter,
    field: str,
    hf_config: dict[str, object],
    destination: str,
    origins: dict[str, str],
) -> None:
    value = get(field, None)
    if value is not None:
        _write(hf_config, destination, value)
        origins[destination] = field


def _written_sections(algorithm: SpeculatorsAlgorithm) -> tuple[str, ...]:
    """The nested sections the translation writes into (``dflash_config`` for DFlash)."""
    paths = (
        algorithm.target_layer_ids_field,
        algorithm.mask_token_source.value if algorithm.mask_token_source else None,
    )
    sections = (path.rpartition(".")[0] for path in paths if path is not None)
    return tuple(dict.fromkeys(section for section in sections if section))


_WRITTEN_SECTIONS: Final = {row.name: _written_sections(row) for row in _ROWS}
""":func:`_written_sections` of each algorithm, made once."""


def _write(hf_config: dict[str, object], path: str, value: object) -> None:
    """Write ``value`` at a top-level or ``section.key`` path of ``hf_config``; the section
    is one :func:`translate` created."""
    section, _, key = path.rpartition(".")
    if section:
        cast("dict[str, object]", hf_config[section])[key] = value
    else:
        hf_config[key] = value


def _exact_str(value: object) -> str | None:
    """``value`` if it is a ``str`` (by its type, as :func:`exact_int` tests ints), else None."""
    return cast("str", value) if type(value) is str or is_kind(value, str) else None


def _json_falsy(value: object) -> bool:
    """``not value`` for JSON values (null, false, 0, "", [], {}); anything else counts as
    set (vLLM tests the parsed JSON's truth)."""
    if value is None or is_kind(value, (bool, int, float, str, list, tuple, dict)):
        return not value
    return False


def _absent(value: object) -> str:
    return "missing" if value is MISSING else "null"


def _missing(
    path: str, needed_for: str | None, *, empty: str | None = None
) -> ParallelDraftingConfigError:
    """The error for a missing required key (or, with ``empty``, an empty array)."""
    reason = "which vLLM requires"
    if needed_for is not None and needed_for != path:
        reason = f"through which vLLM reads `{needed_for}`"
    what = f"`{empty}` is empty, so `{path}` is missing" if empty else f"`{path}` is missing"
    return ParallelDraftingConfigError(
        f"{what}, {reason}, so it refuses the file at start-up.",
        field=path,
        code=vllm_codes.SPECULATORS_FIELD_MISSING,
        fix=f"add `{path}`",
        evidence=f"{_VALIDATES} (on its KeyError or IndexError)",
    )


def _not_an_object(path: str, value: object) -> ParallelDraftingConfigError:
    return ParallelDraftingConfigError(
        f"`{path}` = {describe_value(value)} is not a JSON object, so vLLM fails reading it "
        "as a dict at start-up.",
        field=path,
        code=vllm_codes.SPECULATORS_SECTION_NOT_OBJECT,
        fix=f"make `{path}` a JSON object",
        evidence=_VALIDATES,
    )
