"""The draft as SGLang 0.5.23 parses it: its config loader, its algorithm, the DFlash and
DSpark parses, and the rules that judge a draft by them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from drafting_config.draft.architectures import PEAGLE_CLASSES, eagle3_head_fields
from drafting_config.draft.fields import FieldStatus
from drafting_config.engines.sglang import codes as sglang_codes
from drafting_config.engines.sglang.names import (
    BUNDLED_DRAFT,
    BUNDLING_TARGET,
    DFLASH2_CLASSES,
    DRAFT_CLASSES,
    NOT_IN_SGLANG,
    OFFERS,
    REWRITTEN_TO_HEADS,
    Algorithm,
    SglangRefuses,
)
from drafting_config.engines.sglang.tables import (
    LONGCAT_ARCHITECTURES,
    model_types,
    registered_classes,
)
from drafting_config.rules.subject import Subject
from drafting_config.values import codes
from drafting_config.values.codes import Code
from drafting_config.values.edits import ConfigEdit, quoted_integer
from drafting_config.values.errors import (
    ParallelDraftingConfigError,
    ParallelDraftingConfigWarning,
    bounded_repr,
    describe_value,
)
from drafting_config.values.fields import MISSING, FieldGetter, is_kind, is_list, read_path
from drafting_config.values.findings import Findings
from drafting_config.values.integers import exact_int
from drafting_config.values.sources import TokenIdSource


class ConfigLoad(str, enum.Enum):
    """How ``HfModelConfigParser.parse`` fares with the draft's ``config.json``."""

    PARSED = "parsed"
    """A model type SGLang or its transformers knows, or a LongCat architecture."""
    REMOTE_CODE = "remote code"
    """Unknown, but ``auto_map.AutoConfig`` names remote code: parsed only with
    ``--trust-remote-code``."""
    NOT_STRING = "not a string"
    """``model_type`` is present but null or not a string, and no ``auto_map.AutoConfig``:
    ``AutoConfig.from_pretrained`` raises ``ValueError`` (its ``CONFIG_MAPPING`` lookup
    fails)."""
    UNKNOWN = "unknown"
    """Unknown and no ``auto_map.AutoConfig``: ``AutoConfig.from_pretrained`` raises
    ``ValueError`` ("Unrecognized model ... Should have a `model_type` key ...")."""


def config_load(get: FieldGetter) -> ConfigLoad | None:
    """``HfModelConfigParser.parse`` on the draft's config (``srt/utils/hf_transformers/
    config.py``): ``_try_load_longcat_config`` for a LongCat architecture, else
    ``AutoConfig.from_pretrained`` (transformers), which knows the types of
    :func:`model_types`, and else needs ``auto_map.AutoConfig`` with remote code.
    A ``model_type`` present but not a string (null, a number) is looked up as a key of
    ``CONFIG_MAPPING`` all the same (transformers 5's ``AutoConfig.from_pretrained``:
    ``"model_type" in config_dict``), and the ``KeyError`` becomes ``ValueError``:
    :attr:`ConfigLoad.NOT_STRING`, as vLLM's parse refuses it.  ``None`` when ``model_type``
    is absent: a fragment of a config (token and layer fields alone) is not judged for its
    load path here.

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    model_type = get("model_type", MISSING)
    if model_type is MISSING:
        return None
    listed = get("architectures", None)
    if is_list(listed) and LONGCAT_ARCHITECTURES & {n for n in listed if isinstance(n, str)}:
        return ConfigLoad.PARSED
    if isinstance(model_type, str) and model_types().knows(model_type):
        return ConfigLoad.PARSED
    auto_map = get("auto_map", None)
    if isinstance(auto_map, dict) and "AutoConfig" in auto_map:
        return ConfigLoad.REMOTE_CODE
    return ConfigLoad.UNKNOWN if isinstance(model_type, str) else ConfigLoad.NOT_STRING


# --- the class SGLang loads (srt/models/registry.py) ------------------------------------------

BUNDLED_DSPARK_KEYS: Final = (
    "dspark_block_size",
    "dspark_markov_rank",
    "dspark_noise_token_id",
    "dspark_target_layer_ids",
)
"""The top-level keys that mark a checkpoint bundling a DSpark draft head
(``srt/speculative/dspark_components/dspark_config.py: checkpoint_bundles_dspark_draft``)."""


def bundles_dspark_draft(get: FieldGetter) -> bool:
    """``checkpoint_bundles_dspark_draft`` (``dspark_config.py``): any of
    :data:`BUNDLED_DSPARK_KEYS` set, not null, at the config's top level."""
    return any(get(key, None) is not None for key in BUNDLED_DSPARK_KEYS)


def loaded_class(get: FieldGetter) -> str | None:
    """The class SGLang loads the draft with: after ``_config_draft_model``'s rewrite of
    ``architectures[0]`` (below), the first name of ``architectures`` that SGLang registers
    (``srt/model_loader/utils.py: get_model_architecture``, then ``srt/models/registry.py:
    ModelRegistry.resolve_model_cls``, which takes ``architectures[0]`` when registered,
    else the first registered name of the list); ``None`` when it registers none (it then
    falls back to the Transformers backend, ``resolve_transformers_arch``).

    A DeepSeek-V4 target checkpoint that bundles its DSpark head (``architectures[0]``
    :data:`~drafting_config.engines.sglang.names.BUNDLING_TARGET` and
    :func:`bundles_dspark_draft`) is served as the draft too:
    ``srt/configs/model_config.py: ModelConfig._config_draft_model`` rewrites its
    ``architectures[0]`` to :data:`~drafting_config.engines.sglang.names.BUNDLED_DRAFT` when
    the algorithm is unset or DSPARK (otherwise to the MTP head
    ``DeepseekV4ForCausalLMNextN``, no draft of this package).

    Raises:
        ParallelDraftingConfigError: ``architectures`` cannot be read at all.
    """
    listed = get("architectures", None)
    names = [listed] if isinstance(listed, str) else listed if is_list(listed) else []
    if names and names[0] == BUNDLING_TARGET and bundles_dspark_draft(get):
        return BUNDLED_DRAFT
    registered = registered_classes()
    for name in names:
        if isinstance(name, str) and name in registered:
            return name
    return None


def draft_class(get: FieldGetter) -> str | None:
    """The SGLang draft class that loads the draft (:func:`loaded_class`, when it is one of
    :data:`~drafting_config.engines.sglang.names.DRAFT_CLASSES`); ``None`` when SGLang loads
    another class or none.  A draft class listed after a registered class that is no draft
    is not the one SGLang loads.

    Raises:
        ParallelDraftingConfigError: ``architectures`` cannot be read at all.
    """
    name = loaded_class(get)
    return name if name in DRAFT_CLASSES else None


STANDALONE_HEADS: Final = ("Eagle", "NextN", "MTP")
"""Parts of a registered class's name that mark a head fed by the target (EAGLE, MTP),
not a plain causal LM STANDALONE can run on its own."""


def standalone_class(get: FieldGetter) -> str | None:
    """The plain causal LM SGLang's STANDALONE algorithm serves as the draft model: the class
    SGLang loads (:func:`loaded_class`), registered, not one of its draft classes, a
    ``...ForCausalLM`` that is no EAGLE or MTP head (:data:`STANDALONE_HEADS`), nor a target
    class SGLang rewrites to its MTP head when loaded as a draft
    (:data:`~drafting_config.engines.sglang.names.REWRITTEN_TO_HEADS`).
    ``StandaloneDraftWorker`` (``srt/speculative/standalone_worker_v2.py``) builds it with
    the ordinary ``TpModelWorker``, its own embeddings and ``lm_head``, and feeds it no
    hidden state of the target: any registered causal LM.  ``None`` otherwise (a class
    only the Transformers backend would build is not judged as served).

    Raises:
        ParallelDraftingConfigError: ``architectures`` cannot be read at all.
    """
    name = loaded_class(get)
    listed = get("architectures", None)
    first = listed if isinstance(listed, str) else listed[0] if is_list(listed) and listed else None
    if (
        name is None
        or first in REWRITTEN_TO_HEADS
        or name in DRAFT_CLASSES
        or not name.endswith("ForCausalLM")
        or any(head in name for head in STANDALONE_HEADS)
    ):
        return None
    return name


def algorithm_of(get: FieldGetter) -> Algorithm | None:
    """The ``--speculative-algorithm`` the draft's SGLang class serves (see
    :func:`draft_class`), or ``None`` when SGLang has no class for it."""
    name = draft_class(get)
    return None if name is None else DRAFT_CLASSES[name]


# --- the DFlash parse (srt/speculative/dflash_utils.py) ----------------------------------------

DEFAULT_MASK_TOKEN: Final = "<|MASK|>"
"""``DEFAULT_DFLASH_MASK_TOKEN``: the mask token's text when the draft names none."""

_DSPARK_CONFIG: Final = "srt/speculative/dspark_components/dspark_config.py"
_DFLASH_PARSE: Final = (
    "srt/speculative/dflash_utils.py: parse_dflash_draft_config raises ValueError"
)
_DSPARK_PARSE: Final = f"{_DSPARK_CONFIG}: parse_dspark_draft_config raises ValueError"
"""The evidence of a refusal of SGLang's DFlash and DSpark parses."""
_REFUSES: Final = "SGLang refuses the draft at start-up"


@dataclass(frozen=True)
class DFlashDraft:
    """What ``parse_dflash_draft_config`` returns (``DFlashDraftConfig``), with the field
    each value came from, as the draft's config names it."""

    num_hidden_layers: int | None
    num_target_layers: int | None
    num_target_layers_field: str | None
    block_size: int | None
    selector_rank: int
    target_layer_ids: tuple[int, ...] | None
    target_layer_ids_field: str | None
    """``dflash_config.target_layer_ids`` or ``target_layer_ids``: where the search stopped
    (``None`` when neither is present)."""
    mask_token: str
    mask_token_field: str | None
    """Where the mask token's text came from; ``None`` for :data:`DEFAULT_MASK_TOKEN`."""
    mask_token_id: int | None
    mask_token_id_field: str | None
    """Where the id search stopped: a present ``dflash_config.mask_token_id`` (even null),
    else ``mask_token_id``; ``None`` when neither is present."""


def dflash_section(get: FieldGetter, name: str = "dflash_config") -> dict[object, object]:
    """``_get_dflash_config`` (``dflash_utils.py``; ``_get_nested_config`` in
    ``dspark_config.py``): the section as a dict; absent, null or not convertible by
    ``dict()``: empty."""
    section = get(name, None)
    if section is None:
        return {}
    if isinstance(section, dict):
        return section
    try:
        return dict(section)  # type: ignore[call-overload, no-any-return]
    except Exception:
        return {}


def text_config(get: FieldGetter) -> FieldGetter:
    """``_get_text_config``: the draft's ``text_config`` when set, else the config itself."""
    section = get("text_config", None)
    if section is None or not (is_kind(section, dict) or hasattr(section, "__dict__")):
        return get
    if isinstance(section, dict):
        return section.get
    return lambda name, default: getattr(section, name, default)


def _nested_or_top(
    section: dict[object, object], get: FieldGetter, key: str, prefix: str = "dflash_config"
) -> tuple[object, str | None]:
    """``section.get(key, _cfg_get(config, key, None))``: a key present in the section stops
    the search, even with null; the field it came from (``None`` when absent from both)."""
    if key in section:
        return section[key], f"{prefix}.{key}"
    value = get(key, MISSING)
    if value is MISSING:
        return None, None
    return value, key


def optional_int(value: object, field: str, *, minimum: int | None, reader: str) -> int | None:
    """``_parse_optional_int``: ``None`` stays ``None``; anything else goes through
    ``int()`` (``"16"`` and ``16.9`` give 16) and must be at least ``minimum``.  ``reader``
    is the refusal's evidence (the SGLang file and function that raise).

    Raises:
        SglangRefuses: ``int()`` fails, or the number is below ``minimum``.
    """
    if value is None:
        return None
    try:
        number: int = int(value)  # type: ignore[call-overload]
    except Exception:
        raise SglangRefuses(
            f"`{field}` = {describe_value(value)} is not a number SGLang can read as an integer, "
            "so it refuses the draft at start-up.",
            field=field,
            code=sglang_codes.DRAFT_CONFIG_FIELD_INVALID,
            fix=f"set `{field}` to an integer",
            evidence=reader,
        ) from None
    if minimum is not None and number < minimum:
        expected = "positive" if minimum == 1 else f">= {minimum}"
        raise SglangRefuses(
            f"`{field}` = {describe_value(value)} must be {expected}: {_REFUSES}.",
            field=field,
            code=sglang_codes.DRAFT_CONFIG_FIELD_INVALID,
            fix=f"set `{field}` to a positive integer"
            if minimum == 1
            else f"set `{field}` to an integer {expected}",
            evidence=reader,
        )
    return number


def _refuse(
    field: str,
    value: object,
    must: str,
    reader: str = _DFLASH_PARSE,
    *,
    code: Code,
    fix: str | None = None,
    edit: ConfigEdit | None = None,
) -> SglangRefuses:
    """SGLang's parse refusing ``field``: ``must`` says what the value should be, ``reader``
    is the evidence (:data:`_DFLASH_PARSE`, :data:`_DSPARK_PARSE`)."""
    return SglangRefuses(
        f"`{field}` = {describe_value(value)} {must}: {_REFUSES}.",
        field=field,
        code=code,
        fix=fix,
        evidence=reader,
        edit=edit,
    )


def parse_dflash_draft_config(get: FieldGetter) -> DFlashDraft:  # noqa: PLR0912
    """``parse_dflash_draft_config`` (``srt/speculative/dflash_utils.py``), which every
    DFlash and DSpark draft goes through (the target worker, the draft class and the DFlash
    worker all call it): each ``dflash_config`` key present stops the search before the
    top level, and every check it makes raises here too.

    Raises:
        SglangRefuses: where SGLang raises, naming the field.
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    section = dflash_section(get)
    text = text_config(get)
    num_hidden_layers = optional_int(
        text("num_hidden_layers", None), "num_hidden_layers", minimum=1, reader=_DFLASH_PARSE
    )
    raw, num_target_field = _nested_or_top(section, get, "num_target_layers")
    num_target_layers = optional_int(
        raw, num_target_field or "num_target_layers", minimum=1, reader=_DFLASH_PARSE
    )
    raw, field = _nested_or_top(section, get, "block_size")
    block_size = optional_int(raw, field or "block_size", minimum=1, reader=_DFLASH_PARSE)
    pairs: dict[str, int] = {}
    for first, second in (
        ("conv_kernel_size", "conv_group_size"),
        ("selector_rank", "selector_top_k"),
    ):
        for key in (first, second):
            number = optional_int(
                section.get(key, 0), f"dflash_config.{key}", minimum=0, reader=_DFLASH_PARSE
            )
            pairs[key] = 0 if number is None else number
        if bool(pairs[first]) != bool(pairs[second]):
            raise SglangRefuses(
                f"`dflash_config.{first}` = {bounded_repr(pairs[first])} but "
                f"`dflash_config.{second}` = {bounded_repr(pairs[second])}: SGLang refuses one "
                "set without the other at start-up.",
                field=f"dflash_config.{first}",
                code=sglang_codes.DRAFT_CONFIG_FIELD_INVALID,
                fix=f"set both `dflash_config.{first}` and `dflash_config.{second}`, or neither",
                evidence=_DFLASH_PARSE,
            )
    _dflash_floats(section)
    raw, layers_field = _nested_or_top(section, get, "target_layer_ids")
    layer_ids: tuple[int, ...] | None = None
    if raw is not None:
        assert layers_field is not None
        if not is_list(raw):
            raise _refuse(
                layers_field,
                raw,
                "must be a list of layer ids",
                code=codes.LAYER_IDS_INVALID,
                fix=f"set `{layers_field}` to the target layer ids the draft was trained on",
            )
        parsed: list[int] = []
        for index, item in enumerate(raw):
            try:
                parsed.append(int(item))  # type: ignore[call-overload]
            except Exception:
                raise _refuse(
                    layers_field,
                    raw,
                    f"has item {index} that is not an integer",
                    code=codes.LAYER_IDS_INVALID,
                    fix=f"make every item of `{layers_field}` an integer layer id",
                ) from None
        if not parsed:
            raise _refuse(
                layers_field,
                raw,
                "must not be empty",
                code=codes.LAYER_IDS_INVALID,
                fix=f"set `{layers_field}` to the target layer ids the draft was trained on",
            )
        layer_ids = tuple(parsed)
    mask_token, mask_field = _nested_or_top(section, get, "mask_token")
    if mask_token is None:
        mask_token, mask_field = DEFAULT_MASK_TOKEN, None
    if not isinstance(mask_token, str) or not mask_token:
        raise _refuse(
            mask_field or "dflash_config.mask_token",
            mask_token,
            "must be a non-empty string",
            code=codes.MASK_TOKEN_TEXT_INVALID,
            fix=f"set `{mask_field or 'dflash_config.mask_token'}` to the mask token's text, "
            f"or remove it to use {DEFAULT_MASK_TOKEN}",
        )
    raw, id_field = _nested_or_top(section, get, "mask_token_id")
    mask_token_id: int | None = None
    if raw is not None:
        assert id_field is not None
        if not isinstance(raw, int) or isinstance(raw, bool):  # numbers.Integral, not bool
            quoted = quoted_integer(raw)  # "151669": the one change of type an edit makes
            raise _refuse(
                id_field,
                raw,
                "must be an integer (not a bool, string or float)",
                code=codes.TOKEN_NOT_INT,
                fix=f"set `{id_field}` to the mask token's id as a JSON integer",
                edit=ConfigEdit.set(id_field, quoted) if quoted is not None else None,
            )
        if raw < 0:
            raise _refuse(
                id_field,
                raw,
                "must be non-negative",
                code=codes.TOKEN_OUT_OF_RANGE,
                fix=f"set `{id_field}` to the mask token's id the draft was trained with",
            )
        mask_token_id = int(raw)
    _dflash_mimo_extras(section)
    projector, _ = _nested_or_top(section, get, "projector_type")
    if projector == "domino":
        _domino(section, get, block_size)
    return DFlashDraft(
        num_hidden_layers=num_hidden_layers,
        num_target_layers=num_target_layers,
        num_target_layers_field=num_target_field,
        block_size=block_size,
        selector_rank=pairs["selector_rank"],
        target_layer_ids=layer_ids,
        target_layer_ids_field=layers_field,
        mask_token=mask_token,
        mask_token_field=mask_field,
        mask_token_id=mask_token_id,
        mask_token_id_field=id_field,
    )


def _dflash_floats(section: dict[object, object]) -> None:
    """``output_multiplier`` (``float()``, positive) and ``final_logit_softcapping``
    (``float(value or 0.0)``) of ``parse_dflash_draft_config``."""
    for key, default in (("output_multiplier", 1.0), ("final_logit_softcapping", None)):
        value = section.get(key, default)
        field = f"dflash_config.{key}"
        try:
            number = float(value or 0.0)  # type: ignore[arg-type]
        except Exception:
            raise _refuse(
                field,
                value,
                "is not a number",
                code=sglang_codes.DRAFT_CONFIG_FIELD_INVALID,
                fix=f"set `{field}` to a number",
            ) from None
        if key == "output_multiplier" and number <= 0:
            raise _refuse(
                field,
                value,
                "must be positive",
                code=sglang_codes.DRAFT_CONFIG_FIELD_INVALID,
                fix=f"set `{field}` to a positive number",
            )


def _dflash_mimo_extras(section: dict[object, object]) -> None:
    """``attention_sink_bias`` (a bool) and ``attention_value_scale`` (int, float or
    null, not a bool) of ``parse_dflash_draft_config``."""
    sink = section.get("attention_sink_bias", False)
    if not isinstance(sink, bool):
        raise _refuse(
            "dflash_config.attention_sink_bias",
            sink,
            "must be a bool",
            code=sglang_codes.DRAFT_CONFIG_FIELD_INVALID,
            fix="set `dflash_config.attention_sink_bias` to true or false",
        )
    scale = section.get("attention_value_scale")
    if scale is not None and (isinstance(scale, bool) or not isinstance(scale, (int, float))):
        raise _refuse(
            "dflash_config.attention_value_scale",
            scale,
            "must be a number or null (not a bool)",
            code=sglang_codes.DRAFT_CONFIG_FIELD_INVALID,
            fix="set `dflash_config.attention_value_scale` to a number, or remove it",
        )


def _domino(section: dict[object, object], get: FieldGetter, block_size: int | None) -> None:
    """The Domino checks of ``parse_dflash_draft_config`` (``projector_type`` ``domino``)."""
    shift_label, shift_field = _nested_or_top(section, get, "shift_label")
    raw, field = _nested_or_top(section, get, "pure_draft_prefix_len")
    prefix = optional_int(
        raw, field or "dflash_config.pure_draft_prefix_len", minimum=0, reader=_DFLASH_PARSE
    )
    raw, field = _nested_or_top(section, get, "gru_hidden_dim")
    gru = optional_int(
        raw, field or "dflash_config.gru_hidden_dim", minimum=1, reader=_DFLASH_PARSE
    )
    nested = optional_int(
        section.get("emb_dim"), "dflash_config.emb_dim", minimum=1, reader=_DFLASH_PARSE
    )
    top = optional_int(get("emb_dim", None), "emb_dim", minimum=1, reader=_DFLASH_PARSE)
    if nested is not None and top is not None and nested != top:
        raise _refuse(
            "dflash_config.emb_dim",
            nested,
            f"differs from the top-level `emb_dim` = {bounded_repr(top)}",
            code=sglang_codes.DOMINO_FIELDS_INVALID,
            fix="set `dflash_config.emb_dim` and `emb_dim` to the same width, or remove one",
        )
    if not isinstance(shift_label, bool):
        raise _refuse(
            shift_field or "dflash_config.shift_label",
            shift_label,
            "must be a bool for Domino",
            code=sglang_codes.DOMINO_FIELDS_INVALID,
            fix=f"set `{shift_field or 'dflash_config.shift_label'}` to true or false",
        )
    if prefix != 1:
        raise _refuse(
            "dflash_config.pure_draft_prefix_len",
            prefix,
            "must be 1 for Domino",
            code=sglang_codes.DOMINO_FIELDS_INVALID,
            fix="set `dflash_config.pure_draft_prefix_len` to 1",
        )
    if gru is None:
        raise _refuse(
            "dflash_config.gru_hidden_dim",
            None,
            "is required for Domino",
            code=sglang_codes.DOMINO_FIELDS_INVALID,
            fix="set `dflash_config.gru_hidden_dim` to the GRU width the draft was trained with",
        )
    if nested is None and top is None:
        raise _refuse(
            "dflash_config.emb_dim",
            None,
            "is required for Domino",
            code=sglang_codes.DOMINO_FIELDS_INVALID,
            fix="set `dflash_config.emb_dim` to the embedding width the draft was trained with",
        )
    if block_size is not None and block_size <= 1:
        raise _refuse(
            "block_size",
            block_size,
            "must be above 1 for Domino",
            code=sglang_codes.DOMINO_FIELDS_INVALID,
            fix="set `block_size` to the block size the draft was trained with",
        )


# --- the DSpark parse (srt/speculative/dspark_components/dspark_config.py) ---------------------

MARKOV_HEAD_TYPES: Final = ("vanilla", "gated", "rnn")
"""``SUPPORTED_DSPARK_MARKOV_HEAD_TYPES``."""

_HEAD_TYPES_TEXT: Final = f"{', '.join(MARKOV_HEAD_TYPES[:-1])} or {MARKOV_HEAD_TYPES[-1]}"
DFLASH_TOKEN_ORDER: Final = ("dflash_config.mask_token_id", "mask_token_id")
"""Where ``parse_dflash_draft_config`` looks for the token id, in its order
(``_nested_or_top``: a key present in ``dflash_config`` stops the search, even null); with
neither, SGLang takes the served tokenizer's mask token (:mod:`.token`)."""

DSPARK_TOKEN_ORDER: Final = (
    "dspark_noise_token_id",
    "dspark_config.mask_token_id",
    "dflash_config.mask_token_id",
    "text_config.mask_token_id",
    "mask_token_id",
)
"""Where ``parse_dspark_draft_config`` looks for the token id, in its order (a null
``dspark_noise_token_id`` is skipped; any other key present stops the search, even null;
``dspark_config`` is merged over ``dflash_config``)."""


@dataclass(frozen=True)
class DSparkDraft:
    """What ``parse_dspark_draft_config`` returns (``DSparkDraftConfig``), with fields."""

    base: DFlashDraft
    mask_token_id: int | None
    mask_token_id_field: str | None
    """The field the id came from (the DFlash parse's when the search reached it)."""
    markov_rank: int
    markov_rank_field: str | None
    markov_head_type: str | None
    markov_head_type_field: str | None
    target_layer_ids: tuple[int, ...] | None
    target_layer_ids_field: str | None
    uses_prefixed: bool


def _dspark_chain(
    get: FieldGetter, merged: dict[object, object], key: str, default: object
) -> tuple[object, str | None]:
    """``dspark_cfg.get(key, _cfg_get(text_config, key, _cfg_get(config, key, default)))``,
    and the field the value came from."""
    if key in merged:
        section = (
            "dspark_config" if key in dflash_section(get, "dspark_config") else "dflash_config"
        )
        return merged[key], f"{section}.{key}"
    text = get("text_config", None)
    if text is not None:
        value = text.get(key, MISSING) if isinstance(text, dict) else getattr(text, key, MISSING)
        if value is not MISSING:
            return value, f"text_config.{key}"
    value = get(key, MISSING)
    if value is not MISSING:
        return value, key
    return default, None


def parse_dspark_draft_config(get: FieldGetter) -> DSparkDraft:  # noqa: PLR0912
    """``parse_dspark_draft_config``: the DFlash parse first (its checks apply), then
    DSpark's own fields, ``dspark_``-prefixed top-level keys first, each through
    ``int()`` without a type check.

    Raises:
        SglangRefuses: where SGLang raises, naming the field.
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    base = parse_dflash_draft_config(get)
    merged = {**dflash_section(get), **dflash_section(get, "dspark_config")}
    prefixed = {
        key: get(key, None)
        for key in (
            "dspark_block_size",
            "dspark_markov_rank",
            "dspark_markov_head_type",
            "dspark_noise_token_id",
            "dspark_target_layer_ids",
        )
    }
    uses_prefixed = any(
        prefixed[key] is not None
        for key in (
            "dspark_block_size",
            "dspark_markov_rank",
            "dspark_noise_token_id",
            "dspark_target_layer_ids",
        )
    )
    rank_field: str | None = "dspark_markov_rank"
    raw: object = prefixed["dspark_markov_rank"]
    if raw is None:
        raw, rank_field = _dspark_chain(get, merged, "markov_rank", 0)
    rank = optional_int(raw, rank_field or "markov_rank", minimum=None, reader=_DSPARK_PARSE)
    rank = 0 if rank is None else rank
    if rank < 0:
        raise _refuse(
            rank_field or "markov_rank",
            raw,
            "must be >= 0",
            _DSPARK_PARSE,
            code=codes.MARKOV_RANK_INVALID,
            fix=f"set `{rank_field or 'markov_rank'}` to the rank of the draft's Markov head",
        )
    head_field: str | None = "dspark_markov_head_type"
    head: object = prefixed["dspark_markov_head_type"]
    if head is None:
        head, head_field = _dspark_chain(get, merged, "markov_head_type", None)
    if rank > 0 and head is None and not uses_prefixed:
        raise SglangRefuses(
            f"`{rank_field or 'markov_rank'}` = {bounded_repr(rank)} is set but "
            f"`markov_head_type` is not, so {_REFUSES}.",
            field="markov_head_type",
            code=sglang_codes.MARKOV_HEAD_TYPE_MISSING,
            fix="set `markov_head_type` to the head the draft was trained with: "
            f"{_HEAD_TYPES_TEXT}",
            evidence=_DSPARK_PARSE,
        )
    head_type = None
    if head is not None:
        head_type = str(head).lower()
        if head_type not in MARKOV_HEAD_TYPES:
            raise _refuse(
                head_field or "markov_head_type",
                head,
                f"must be one of {', '.join(MARKOV_HEAD_TYPES)}",
                _DSPARK_PARSE,
                code=sglang_codes.MARKOV_HEAD_TYPE_INVALID,
                fix=f"set `{head_field or 'markov_head_type'}` to the head the draft was trained "
                f"with: {_HEAD_TYPES_TEXT}",
            )
    id_field: str | None = "dspark_noise_token_id"
    raw = prefixed["dspark_noise_token_id"]
    if raw is None:
        raw, id_field = _dspark_chain(get, merged, "mask_token_id", MISSING)
        if raw is MISSING:
            raw, id_field = base.mask_token_id, base.mask_token_id_field
    token_id = optional_int(raw, id_field or "mask_token_id", minimum=None, reader=_DSPARK_PARSE)
    if token_id is not None and token_id < 0:
        raise _refuse(
            id_field or "mask_token_id",
            raw,
            "must be non-negative",
            _DSPARK_PARSE,
            code=codes.TOKEN_OUT_OF_RANGE,
            fix=f"set `{id_field or 'mask_token_id'}` to the mask token's id the draft was "
            "trained with",
        )
    optional_int(
        prefixed["dspark_block_size"], "dspark_block_size", minimum=None, reader=_DSPARK_PARSE
    )
    layers = prefixed["dspark_target_layer_ids"]
    layer_ids, layers_field = base.target_layer_ids, base.target_layer_ids_field
    if layers is not None:
        if not is_list(layers) or not layers:
            raise _refuse(
                "dspark_target_layer_ids",
                layers,
                "must be a non-empty list of ints",
                _DSPARK_PARSE,
                code=codes.LAYER_IDS_INVALID,
                fix="set `dspark_target_layer_ids` to the target layer ids the draft was "
                "trained on",
            )
        parsed = []
        for index, item in enumerate(layers):
            try:
                parsed.append(int(item))  # type: ignore[call-overload]
            except Exception:
                raise _refuse(
                    "dspark_target_layer_ids",
                    layers,
                    f"has item {index} that is not an integer",
                    _DSPARK_PARSE,
                    code=codes.LAYER_IDS_INVALID,
                    fix="make every item of `dspark_target_layer_ids` an integer layer id",
                ) from None
        layer_ids, layers_field = tuple(parsed), "dspark_target_layer_ids"
    return DSparkDraft(
        base=base,
        mask_token_id=token_id,
        mask_token_id_field=id_field,
        markov_rank=rank,
        markov_rank_field=rank_field,
        markov_head_type=head_type,
        markov_head_type_field=head_field,
        target_layer_ids=layer_ids,
        target_layer_ids_field=layers_field,
        uses_prefixed=uses_prefixed,
    )


# --- what the draft is, to SGLang ---------------------------------------------------------------


def dspark_vocab_bound(padded_vocab_size: object, vocab_size: int | None) -> int | None:
    """The bound of DSpark's token id: the target's ``text_config.padded_vocab_size``, else
    its ``vocab_size`` (``srt/speculative/dspark_worker_v2.py: DSparkWorkerV2.__init__``,
    checked in ``dspark_config.py: resolve_runtime_config``)."""
    if (
        isinstance(padded_vocab_size, int)
        and not isinstance(padded_vocab_size, bool)
        and (padded_vocab_size > 0)
    ):
        return padded_vocab_size
    return vocab_size


def sglang_algorithm(subject: Subject) -> Algorithm | None:
    """The ``--speculative-algorithm`` the verdict assumes: the one of the draft's SGLang
    class (:func:`~drafting_config.engines.sglang.names.algorithm_of`), else the method the
    draft's file names (:attr:`~drafting_config.draft.file.DraftFile.named_method`) when SGLang
    has it (DFlash, DSpark), else STANDALONE for a plain causal LM (:func:`standalone_class`,
    a PARD draft among them); ``None`` otherwise.

    Raises:
        ParallelDraftingConfigError: ``architectures`` cannot be read at all.
    """
    algorithm = algorithm_of(subject.get)
    if algorithm is not None:
        return algorithm
    method = subject.draft.named_method
    if method == "dflash":
        return Algorithm.DFLASH
    if method == "dspark":
        return Algorithm.DSPARK
    if standalone_class(subject.get) is not None:
        return _plain_class_algorithm(subject)
    return None


def _plain_class_algorithm(subject: Subject) -> Algorithm:
    """The algorithm of a draft under a plain causal-LM class: EAGLE3 for an EAGLE-3 head
    (its config's fields, or its checkpoint's tensors), EAGLE for an EAGLE-1 head (its
    tensors), else STANDALONE.

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    if eagle3_head_fields(subject.get):  # an EAGLE-3 head under its base class
        return Algorithm.EAGLE3
    head = subject.draft.eagle_head  # or one its checkpoint's tensor names tell
    if head is not None:
        return Algorithm.EAGLE3 if head.kind == "eagle3" else Algorithm.EAGLE
    return Algorithm.STANDALONE


@dataclass(frozen=True)
class SglangDraft:
    """The draft as SGLang parses it for its algorithm."""

    algorithm: Algorithm
    dflash: DFlashDraft
    dspark: DSparkDraft | None = None


def sglang_draft(subject: Subject) -> SglangDraft | None:
    """SGLang's parse of a DFLASH or DSPARK draft (``None`` for EAGLE3, STANDALONE or no
    algorithm).

    Raises:
        SglangRefuses: where SGLang's parse raises.
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    algorithm = sglang_algorithm(subject)
    if algorithm not in (Algorithm.DFLASH, Algorithm.DSPARK) or _unsupported(subject):
        return None
    readings = subject.draft.readings  # every rule of a verdict asks: parse the file once
    known = readings.get(_PARSED)
    if not isinstance(known, (SglangDraft, ParallelDraftingConfigError)):
        try:
            known = _parse(algorithm, subject.get)
        except ParallelDraftingConfigError as error:  # SglangRefuses, or an unreadable field
            known = error
        readings[_PARSED] = known
    if isinstance(known, ParallelDraftingConfigError):
        raise known
    return known


_PARSED: Final = "sglang: parsed"
"""The key of SGLang's parse in :attr:`DraftFile.readings`."""


def _parse(algorithm: Algorithm, get: FieldGetter) -> SglangDraft:
    if algorithm is Algorithm.DSPARK:
        dspark = parse_dspark_draft_config(get)
        return SglangDraft(algorithm, dspark.base, dspark)
    return SglangDraft(algorithm, parse_dflash_draft_config(get))


def _unsupported(subject: Subject) -> str | None:
    """What SGLang lacks for this draft (a method or the speculators format), or ``None``."""
    draft = subject.draft
    if draft.format == "speculators":
        return _SPECULATORS
    listed = subject.get("architectures", None)
    if isinstance(listed, list) and PEAGLE_CLASSES & {
        name for name in listed if isinstance(name, str)
    }:  # SGLang registers none of P-EAGLE's classes
        return NOT_IN_SGLANG["peagle"]
    winner = draft.winner
    method = None if winner is None else winner.source.algorithm
    sequential = (method == "ptd" and algorithm_of(subject.get) is Algorithm.EAGLE3) or (
        sglang_algorithm(subject) is Algorithm.STANDALONE
    )
    if sequential:
        # served as sequential EAGLE3, or a PARD (or other) causal LM as STANDALONE: the
        # token unused (ignored_token)
        return None
    if method in NOT_IN_SGLANG and draft_class(subject.get) not in _FAMILY_CLASSES:
        return NOT_IN_SGLANG[method]
    if winner is not None and winner.source is TokenIdSource.PTD_TOKEN_ID:
        return NOT_IN_SGLANG["ptd"]
    return None


def ignored_token(subject: Subject) -> str | None:
    """The token field of a draft SGLang serves sequentially, which it never reads:
    ``srt/speculative/spec_info.py: SpeculativeAlgorithm`` has no parallel EAGLE-3 mode and
    no PARD, and nothing in SGLang 0.5.23 reads ``ptd_token_id`` or ``pard_token`` (its
    EAGLE-3 worker, ``srt/speculative/eagle_worker_v2.py``, and STANDALONE's,
    ``standalone_worker_v2.py``, draft one token a step).  ``None`` otherwise.

    Raises:
        ParallelDraftingConfigError: ``architectures`` cannot be read at all.
    """
    if sglang_algorithm(subject) not in (Algorithm.EAGLE3, Algorithm.STANDALONE):
        return None
    for verdict in subject.draft.fields:
        if verdict.status not in (FieldStatus.ABSENT, FieldStatus.NULL):
            return subject.draft.file_field(verdict.source.value)
    return None


_FAMILY_CLASSES: Final = frozenset(
    name
    for name, algorithm in DRAFT_CLASSES.items()
    if algorithm not in (Algorithm.EAGLE3, Algorithm.EAGLE)
)


# --- methods, formats, classes ---------------------------------------------------------------


def check_sglang_method(subject: Subject, found: Findings) -> None:
    """Methods and formats SGLang 0.5.23 lacks are errors naming what it offers, and so is
    a ``model_type`` SGLang's config loader cannot parse, and ``architectures`` that name no
    SGLang draft class.

    * No PARD, no parallel drafting for EAGLE-3 (``ptd_token_id``), no P-EAGLE:
      ``srt/speculative/spec_info.py: SpeculativeAlgorithm`` has none of them.
    * No speculators format: nothing in SGLang reads ``speculators_model_type``; a
      speculators file has no ``model_type``, so SGLang's config loader
      (``HfModelConfigParser.parse``, ``srt/utils/hf_transformers/config.py``) already
      refuses it: ``AutoConfig.from_pretrained`` raises "Unrecognized model" (its harness
      stops there, at the config stage).
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
    if lacking == _SPECULATORS and subject.get("model_type", None) is None:
        found.error(
            ParallelDraftingConfigError(
                "The speculators-format file has no `model_type`, so SGLang's config loader "
                "refuses it at start-up.",
                field="model_type",
                code=sglang_codes.MODEL_TYPE_MISSING,
                fix="serve it with vLLM, which reads the speculators format, or export the "
                "draft as a Hugging Face config of an SGLang draft class",
                evidence="srt/utils/hf_transformers/config.py: HfModelConfigParser.parse calls "
                "AutoConfig.from_pretrained, which raises ValueError 'Unrecognized model'",
            )
        )
        return
    if lacking is not None:
        found.error(
            ParallelDraftingConfigError(
                f"SGLang has no {lacking}, so it cannot serve this draft.",
                field=_lacking_field(subject, lacking),
                code=codes.METHOD_UNSUPPORTED,
                fix=OFFERS,
                evidence=_NO_SPECULATORS
                if lacking == _SPECULATORS
                else "srt/speculative/spec_info.py: SpeculativeAlgorithm has no such algorithm",
            )
        )
        return
    _config_load_findings(subject, found)  # the config is loaded before the class is chosen
    algorithm = sglang_algorithm(subject)
    if algorithm is None:
        listed = subject.get("architectures", None)
        found.error(
            ParallelDraftingConfigError(
                f"`architectures` = {bounded_repr(listed)} has no SGLang draft class, and no "
                "DFlash or DSpark field is set: SGLang cannot serve it.",
                field="architectures",
                code=codes.ARCHITECTURE_UNSUPPORTED,
                fix=OFFERS,
                evidence="srt/models/registry.py: ModelRegistry.resolve_model_cls loads "
                "architectures[0]",
            )
        )
        return
    if draft_class(subject.get) is None and algorithm is Algorithm.EAGLE3:
        found.error(_eagle3_under_base_class(subject))
        return
    if draft_class(subject.get) is None and algorithm is Algorithm.EAGLE:
        found.error(_eagle_under_base_class(subject))
        return
    if draft_class(subject.get) is None and algorithm in _WORKER_NEEDS:
        listed = subject.get("architectures", None)
        worker, attribute, fix = _WORKER_NEEDS[algorithm]
        found.error(
            ParallelDraftingConfigError(
                f"`architectures` = {bounded_repr(listed)} has no SGLang draft class, so SGLang's "
                f"{algorithm.value} worker fails at start-up.",
                field="architectures",
                code=sglang_codes.ARCHITECTURE_NOT_DRAFTER,
                fix=f"set `architectures` to [{bounded_repr(fix)}] when the checkpoint's weights "
                "are that class's",
                evidence="srt/models/registry.py: resolve_model_cls loads another class, falling "
                "back to TransformersForCausalLM (srt/model_loader/utils.py: "
                "resolve_transformers_arch); "
                f"{worker}.__init__ raises AttributeError (no `{attribute}`)",
            )
        )


def _eagle3_under_base_class(subject: Subject) -> ParallelDraftingConfigError:
    """An EAGLE-3 head published under its base class (``LlamaForCausalLM`` with
    ``draft_vocab_size``...: :func:`~drafting_config.draft.architectures.eagle3_head_fields`),
    served with ``--speculative-algorithm EAGLE3``: SGLang loads ``architectures[0]``, the
    plain class (``srt/models/registry.py: ModelRegistry.resolve_model_cls``), and
    ``EAGLEWorkerV2.init_lm_head`` (``srt/speculative/eagle_worker_v2.py``) calls the draft
    model's ``set_embed`` and reads its ``hot_token_id``, which only its EAGLE-3 classes
    have (``srt/models/llama_eagle3.py``): AttributeError at start-up.  Public reports:
    sgl-project/sglang#36528 (a plain ``Qwen2ForCausalLM`` under EAGLE3 fails on
    ``set_embed``, a plain ``LlamaForCausalLM`` on ``hot_token_id``); the original EAGLE-3
    heads name ``LlamaForCausalLM`` (NickL77/BaldEagle#6)."""
    listed = subject.get("architectures", None)
    fields = eagle3_head_fields(subject.get)
    head = subject.draft.eagle_head
    message = (
        f"`architectures` = {bounded_repr(listed)} is no EAGLE-3 class, yet `{fields[0]}` "
        "marks an EAGLE-3 head: SGLang's EAGLE3 worker fails."
        if fields or head is None
        else f"`architectures` = {bounded_repr(listed)} is a plain class, but tensors "
        f"{head.evidence} mark an EAGLE-3 head: SGLang's EAGLE3 worker fails."
    )
    return ParallelDraftingConfigError(
        message,
        field="architectures",
        code=sglang_codes.ARCHITECTURE_NOT_DRAFTER,
        fix='set `architectures` to ["LlamaForCausalLMEagle3"] when the checkpoint is an '
        "EAGLE-3 head's",
        evidence="srt/models/registry.py: ModelRegistry.resolve_model_cls loads "
        "architectures[0]; srt/speculative/eagle_worker_v2.py: EAGLEWorkerV2.init_lm_head "
        "calls set_embed and reads hot_token_id, which a plain class lacks (AttributeError)",
    )


EAGLE_CLASSES: Final = MappingProxyType(
    {
        name.removesuffix("Eagle"): name
        for name, algorithm in DRAFT_CLASSES.items()
        if algorithm is Algorithm.EAGLE
    }
)
"""SGLang's EAGLE(-1/-2) head class for each base class it has one for, by name
(``LlamaForCausalLM``: ``LlamaForCausalLMEagle``; its EAGLE classes of
:data:`~drafting_config.engines.sglang.names.DRAFT_CLASSES`)."""


def _eagle_under_base_class(subject: Subject) -> ParallelDraftingConfigError:
    """An EAGLE-1 head published under its base class (``LlamaForCausalLM``, one layer),
    which only its checkpoint's tensor names tell
    (:attr:`~drafting_config.draft.file.DraftFile.eagle_head`: ``fc.weight`` beside
    unprefixed ``layers.0.*``), served with ``--speculative-algorithm EAGLE``: SGLang loads
    ``architectures[0]``, the plain class (``srt/models/registry.py:
    ModelRegistry.resolve_model_cls``), whose ``load_weights`` (``srt/models/llama.py``,
    ``qwen2.py``: ``_legacy_load_weights``, the default) matches none of the head's
    unprefixed names to its ``model.``-prefixed parameters and skips them all (its EAGLE
    classes prefix ``model.``, ``srt/models/llama_eagle.py: LlamaForCausalLMEagle.load_weights``),
    and whose ``forward`` never reads the target's hidden states (no ``fc``): the draft runs
    on weights never loaded.  Public reports: sgl-project/sglang#10948 (a Qwen2.5 EAGLE-2
    head that does not work), SafeAILab/EAGLE#117 (the head's tensor names)."""
    listed = subject.get("architectures", None)
    head = subject.draft.eagle_head
    evidence = "" if head is None else f" {head.evidence}"
    base = loaded_class(subject.get)
    eagle_class = EAGLE_CLASSES.get(base or "")
    fix = (
        f'set `architectures` to ["{eagle_class}"], SGLang\'s EAGLE class of this base'
        if eagle_class is not None
        else "serve it with vLLM, or export the head under an SGLang EAGLE class"
    )
    return ParallelDraftingConfigError(
        f"`architectures` = {bounded_repr(listed)} is no EAGLE class, but tensors{evidence} "
        "mark an EAGLE head: SGLang loads none of them.",
        field="architectures",
        code=sglang_codes.ARCHITECTURE_NOT_DRAFTER,
        fix=fix,
        evidence="srt/models/registry.py: ModelRegistry.resolve_model_cls loads "
        "architectures[0]; srt/models/llama.py: LlamaForCausalLM._legacy_load_weights skips "
        "every name not among its model.-prefixed parameters",
    )


_SPECULATORS: Final = "speculators format"
_NO_SPECULATORS: Final = "srt/: nothing in SGLang reads speculators_model_type"


def _lacking_field(subject: Subject, lacking: str) -> str | None:
    """The field that asks for what SGLang lacks (:func:`_unsupported`): the speculators
    file's ``speculators_model_type``, P-EAGLE's ``architectures``, else the token field that
    names the method (``pard_token``, ``ptd_token_id``)."""
    if lacking == _SPECULATORS:
        return "speculators_model_type"
    if lacking == NOT_IN_SGLANG["peagle"]:
        return "architectures"
    winner = subject.draft.winner
    return None if winner is None else subject.draft.file_field(winner.source.value)


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
    # SGLang's _CONFIG_REGISTRY (srt/utils/hf_transformers/common.py) and the config classes
    # it registers elsewhere, and the transformers release SGLang requires
    known = f"is unknown to SGLang and to transformers {types.transformers}"
    where = (
        "srt/utils/hf_transformers/config.py: HfModelConfigParser.parse, through transformers' "
        "AutoConfig.from_pretrained"
    )
    fix = 'set `model_type` to the type of the draft\'s layers, such as "qwen3"'
    if load is ConfigLoad.NOT_STRING:
        found.error(
            ParallelDraftingConfigError(
                f"`model_type` = {describe_value(model_type)} is not a string, so SGLang fails "
                "loading the draft's config.",
                field="model_type",
                code=codes.MODEL_TYPE_NOT_STRING,
                fix=fix,
                evidence=f"{where}, raises ValueError (CONFIG_MAPPING has no such key)",
            )
        )
    elif load is ConfigLoad.UNKNOWN:
        found.error(
            ParallelDraftingConfigError(
                f"`model_type` = {bounded_repr(model_type)} {known}, so SGLang cannot load the "
                "draft's config.",
                field="model_type",
                code=codes.MODEL_TYPE_UNKNOWN,
                fix=f"{fix}, as published checkpoints do",
                evidence=f"{where}, raises ValueError (no `auto_map.AutoConfig` to fall back on)",
            )
        )
    else:
        found.warn(
            ParallelDraftingConfigWarning(
                f"`model_type` = {bounded_repr(model_type)} {known}: SGLang parses it only with "
                "--trust-remote-code.",
                field="model_type",
                code=codes.MODEL_TYPE_REMOTE_CODE,
                fix=f"serve it with --trust-remote-code, or {fix}",
                evidence=f"{where}, then `auto_map.AutoConfig`'s remote code",
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
    * ``hidden_size`` and ``num_hidden_layers`` are read by the draft class
      (``DFlashDraftModel.__init__``): missing from the file, the config class's default
      applies (a warning, :func:`_default_size_findings`).

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
    _default_size_findings(subject, found)
    name = draft_class(get)
    if name in DFLASH2_CLASSES and not parsed.dflash.selector_rank:
        found.error(
            ParallelDraftingConfigError(
                f"A {name} draft has no `dflash_config.selector_rank`, so SGLang refuses it at "
                "start-up.",
                field="dflash_config.selector_rank",
                code=sglang_codes.DFLASH2_SELECTOR_MISSING,
                fix="set `dflash_config.selector_rank` and `dflash_config.selector_top_k` to the "
                "candidate selector's sizes the draft was trained with",
                evidence="srt/models/dflash.py: DFlash2DraftModel.__init__ raises ValueError",
            )
        )
    if parsed.dspark is not None:
        _dspark_findings(subject, parsed.dspark, found)


_SIZE_NAMES: Final = {"hidden_size": "hidden size", "num_hidden_layers": "number of layers"}

_BUILD_MARKOV_HEAD: Final = "srt/models/dspark.py: build_markov_head"


def _default_size_findings(subject: Subject, found: Findings) -> None:
    """``hidden_size`` and ``num_hidden_layers``, which the draft class reads
    (``srt/models/dflash.py: DFlashDraftModel.__init__``), unset in the file: the config
    class ``AutoConfig`` builds for the ``model_type`` supplies its default (transformers'
    ``Qwen3Config``: 4096 and 36), so SGLang starts, with a width that may not be the
    draft's: a warning.  A config SGLang cannot load (:func:`config_load`) is refused
    there; a fragment without ``model_type`` is not judged."""
    get = subject.get
    load = config_load(get)
    if load not in (ConfigLoad.PARSED, ConfigLoad.REMOTE_CODE):
        return
    model_type = get("model_type", None)
    for field in ("hidden_size", "num_hidden_layers"):
        if get(field, None) is None and read_path(get, f"text_config.{field}") is None:
            found.warn(
                ParallelDraftingConfigWarning(
                    f"`{field}` is not set, so SGLang's draft class takes the default of the "
                    f"{bounded_repr(model_type)} config class, which may not be the draft's.",
                    field=field,
                    code=sglang_codes.SIZE_FROM_CONFIG_DEFAULT,
                    fix=f"set `{field}` to the draft model's {_SIZE_NAMES[field]}",
                    evidence="srt/models/dflash.py: DFlashDraftModel.__init__ reads it from the "
                    "config transformers' AutoConfig.from_pretrained builds",
                )
            )


def _dspark_findings(subject: Subject, dspark: DSparkDraft, found: Findings) -> None:
    get = subject.get
    if dspark.markov_rank <= 0:
        found.error(
            ParallelDraftingConfigError(
                f"`{dspark.markov_rank_field or 'markov_rank'}` = "
                f"{bounded_repr(dspark.markov_rank)}, but a DSpark draft needs a rank above 0: "
                f"{_REFUSES}.",
                field=dspark.markov_rank_field or "markov_rank",
                code=codes.MARKOV_RANK_INVALID,
                fix="set `markov_rank` to the rank of the draft's Markov head, above 0",
                evidence="srt/model_executor/model_runner_components/spec_aux_hidden_state.py: "
                "_resolve_dflash_aux_hidden_state raises ValueError",
            )
        )
    elif draft_class(get) != BUNDLED_DRAFT:
        top = get("markov_rank", None)
        top_rank = _python_int(top)
        # the edit copies the value as the file holds it, and only an integer (never `true`,
        # `"256"` or `256.0` made one): else the fix stays advice
        nested = read_path(get, dspark.markov_rank_field or "markov_rank", only_dicts=True)
        if top is None:
            found.error(
                ParallelDraftingConfigError(
                    f"`{dspark.markov_rank_field}` = {bounded_repr(dspark.markov_rank)} is set but "
                    "the top-level `markov_rank` is not, so SGLang's DSpark model fails at "
                    "start-up.",
                    field="markov_rank",
                    code=sglang_codes.MARKOV_RANK_NESTED_ONLY,
                    edit=ConfigEdit.set("markov_rank", nested) if type(nested) is int else None,
                    fix=f"copy `{dspark.markov_rank_field}` to the top-level `markov_rank`",
                    evidence=f"{_BUILD_MARKOV_HEAD} raises ValueError",
                )
            )
        elif top_rank is None or top_rank <= 0:
            found.error(
                ParallelDraftingConfigError(
                    f"`markov_rank` = {describe_value(top)} is not an integer above 0, so SGLang's "
                    "DSpark model fails at start-up.",
                    field="markov_rank",
                    code=codes.MARKOV_RANK_INVALID,
                    fix="set `markov_rank` to the rank of the draft's Markov head, above 0",
                    evidence=f"{_BUILD_MARKOV_HEAD} raises on int(markov_rank)",
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
                    f"`{head_field}` = {bounded_repr(dspark.markov_head_type)} is set but the "
                    "top-level `markov_head_type` is not, so SGLang builds a vanilla head.",
                    field="markov_head_type",
                    code=sglang_codes.MARKOV_HEAD_TYPE_NESTED,
                    edit=ConfigEdit.set("markov_head_type", dspark.markov_head_type),
                    fix=f"copy `{head_field}` to the top-level `markov_head_type`",
                    evidence=f"{_BUILD_MARKOV_HEAD} reads the top-level markov_head_type, "
                    "default 'vanilla', which the checkpoint's head weights do not fit",
                )
            )
    if dspark.mask_token_id is None:
        found.error(
            ParallelDraftingConfigError(
                "The DSpark draft names no mask token id, so SGLang refuses it at start-up.",
                field="mask_token_id",
                code=codes.TOKEN_MISSING,
                fix="set `dspark_noise_token_id`, `dflash_config.mask_token_id` or "
                "`mask_token_id` to the mask token's id the draft was trained with",
                evidence=f"{_DSPARK_CONFIG}: resolve_runtime_config raises ValueError "
                "('DSpark requires mask_token_id to be set in the draft model config.')",
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
                f"`{field}` = {bounded_repr(dspark.mask_token_id)} is outside the target's "
                f"vocabulary ({bounded_repr(bound)}): {_REFUSES}.",
                field=field,
                code=codes.TOKEN_OUTSIDE_TARGET_VOCAB,
                fix=f"set `{field}` to the mask token's id in the target's vocabulary",
                evidence=f"{_DSPARK_CONFIG}: resolve_runtime_config raises ValueError",
            )
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


# --- STANDALONE (srt/speculative/standalone_worker_v2.py) --------------------------------------


def check_sglang_standalone(subject: Subject, found: Findings) -> None:
    """A draft served as STANDALONE must share the target's vocabulary:
    ``StandaloneWorkerV2._validate_vocab_compatibility``
    (``srt/speculative/standalone_worker_v2.py``) raises ValueError when the draft's
    ``vocab_size`` (its ``ModelConfig``'s, the text config's) differs from the target's, and
    when the two tokenizers map tokens to other ids (not judged here: it needs both
    tokenizers).

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    if sglang_algorithm(subject) is not Algorithm.STANDALONE or _unsupported(subject):
        return
    target = subject.target
    if target is None or target.vocab_size is None:
        return
    text = text_config(subject.get)
    field = "vocab_size" if text is subject.get else "text_config.vocab_size"
    vocab = exact_int(text("vocab_size", None))
    if vocab is None or vocab == target.vocab_size:
        return
    found.error(
        ParallelDraftingConfigError(
            f"`{field}` = {bounded_repr(vocab)} differs from the target's "
            f"{bounded_repr(target.vocab_size)}, so SGLang's STANDALONE worker refuses the draft "
            "at start-up.",
            field=field,
            code=codes.VOCAB_DIFFERS_FROM_TARGET,
            fix="serve a draft model trained with the target's tokenizer and vocabulary",
            evidence="srt/speculative/standalone_worker_v2.py: "
            "StandaloneWorkerV2._validate_vocab_compatibility raises ValueError",
        )
    )
