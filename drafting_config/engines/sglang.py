"""What SGLang 0.5.23 does with a draft, as plain functions and tables: one module, each
function citing the SGLang code it follows (read for facts from the released wheel,
never copied; ``srt/`` stands for ``sglang/srt/``).

* **The algorithm.** SGLang takes it from ``--speculative-algorithm`` alone; a draft
  fits the algorithm of its model class (:data:`DRAFT_CLASSES`, :func:`draft_class`,
  :func:`algorithm_of`).
* **The DFlash parse.** :func:`parse_dflash_draft_config` reads what
  ``srt/speculative/dflash_utils.py: parse_dflash_draft_config`` reads (the mask token's
  id and text, the layer list, the counts), and raises where it raises;
  :func:`parse_dspark_draft_config` adds DSpark's fields in DSpark's order
  (``srt/speculative/dspark_components/dspark_config.py``).
* **The token id.** :func:`resolve_mask_token_id` follows
  ``srt/speculative/dflash_worker_v2.py: DFlashWorkerV2._resolve_mask_token_id``: the
  configured id, else the served tokenizer's ``<|MASK|>``, added to it when missing.
* **The tapped layers.** :func:`build_target_layer_ids` and
  :func:`resolve_target_layer_ids` (``dflash_utils.py``), the DSPARK replacement list
  (``srt/model_executor/model_runner_components/spec_aux_hidden_state.py:
  _resolve_dflash_aux_hidden_state``), EAGLE-3's ``eagle_config`` list
  (``_resolve_eagle_aux_hidden_state``), and the target classes' capture hooks
  (:data:`TARGET_CLASSES`, derived from every ``EntryClass`` of ``srt/models/``).

Layer ids are reported in *capture indices*, the convention of the whole package: index
0 is the input of the target's first layer, ``i + 1`` the output of layer ``i``.  A
DFlash id ``i`` names the output of layer ``i``; SGLang's usual target class stores
``i + 1`` and records the input of layer ``i + 1`` (the same hidden state).  An
``L``-layer target has capture indices 0 to ``L``, but the Qwen2/Qwen3/Llama-family loops
never reach index ``L``.

Every function reads a draft's config through a
:data:`~drafting_config.values.fields.FieldGetter` as SGLang reads the
``PretrainedConfig`` transformers builds from ``config.json`` (a nested section is a
``dict``; a missing ``text_config`` is the config itself), and raises
:class:`SglangRefuses` where SGLang raises, naming the field.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from types import MappingProxyType
from typing import Final

from drafting_config.engines.vllm_data import vllm_tables
from drafting_config.files.tokenizer_files import TokenizerFiles
from drafting_config.values.errors import ParallelDraftingConfigError, describe_value
from drafting_config.values.fields import MISSING, FieldGetter, is_kind, is_list

VERSION: Final = "0.5.23"
"""The SGLang release this module reads."""

ENGINE: Final = f"sglang {VERSION}"
"""How a verdict names the engine it speaks for."""


class SglangRefuses(ParallelDraftingConfigError):
    """SGLang raises on the draft at the step the message names (a config field, the
    tokenizer, the target class)."""


class Algorithm(str, enum.Enum):
    """The values of ``--speculative-algorithm`` a draft of this package can be served with
    (``srt/speculative/spec_info.py: SpeculativeAlgorithm``)."""

    DFLASH = "DFLASH"
    DSPARK = "DSPARK"
    EAGLE3 = "EAGLE3"


# --- the draft's model class ----------------------------------------------------------------

DRAFT_CLASSES: Final[Mapping[str, Algorithm]] = MappingProxyType(
    {
        # srt/models/dflash.py: EntryClass
        "DFlashDraftModel": Algorithm.DFLASH,
        "DFlashLagunaForCausalLM": Algorithm.DFLASH,
        "MuseGlimmerAssistantModel": Algorithm.DFLASH,
        "DFlash2DraftModel": Algorithm.DFLASH,
        "DFlash2BeamDraftModel": Algorithm.DFLASH,
        "MiniMaxDFlash2DraftModel": Algorithm.DFLASH,
        "LiLiCorrDraftModel": Algorithm.DFLASH,  # srt/models/lilicorr.py
        # srt/models/dspark.py: EntryClass (DSparkDraftMixin), and its subclasses
        "Qwen3DSparkModel": Algorithm.DSPARK,
        "LingDSparkModel": Algorithm.DSPARK,
        "DSparkDraftModel": Algorithm.DSPARK,
        "Lfm2DSparkDraftModel": Algorithm.DSPARK,  # srt/models/lfm2_dspark.py
        "DSparkMiniMaxDraftModel": Algorithm.DSPARK,  # srt/models/dspark_minimax.py
        "DeepseekV4ForCausalLMDSpark": Algorithm.DSPARK,  # srt/models/deepseek_v4_dspark.py
        # srt/models/llama_eagle3.py, srt/models/kimi_k25_eagle3.py
        "LlamaForCausalLMEagle3": Algorithm.EAGLE3,
        "Eagle3DeepseekV2ForCausalLM": Algorithm.EAGLE3,
    }
)
"""SGLang's draft model classes of the DFlash family and of EAGLE-3 (each registered
under its class name, ``srt/models/registry.py: import_model_classes``), with the
algorithm each serves: a DSpark class subclasses ``DSparkDraftMixin``, a DFlash class
``DFlashDraftModel``."""

DFLASH2_CLASSES: Final = frozenset(
    {"DFlash2DraftModel", "DFlash2BeamDraftModel", "MiniMaxDFlash2DraftModel"}
)
"""Candidate-head classes: ``DFlash2DraftModel.__init__`` requires
``dflash_config.selector_rank``."""

MUSE_LAYER_OUTPUT_DRAFTS: Final = frozenset({"DFlash2DraftModel", "MuseGlimmerAssistantModel"})
"""Drafts whose ids SGLang adds 1 to on a ``muse_glimmer`` target
(``spec_aux_hidden_state.py: _MUSE_LAYER_OUTPUT_DRAFT_ARCHITECTURES``)."""

# --- the config loader (srt/utils/hf_transformers/config.py: HfModelConfigParser.parse) -------

DATA_FILE: Final = "sglang-0.5.23.json"
"""SGLang's model types as data, beside this module: derived from the wheel by
``tests/sglang_tables.py``, derived again and compared by the ``engine_wheels`` tests."""

LONGCAT_ARCHITECTURES: Final = frozenset(
    {"LongcatCausalLM", "LongcatFlashForCausalLM", "LongcatFlashNgramForCausalLM"}
)
"""``_LONGCAT_ARCHS`` (``config.py``): ``_try_load_longcat_config`` loads a config naming
one of them with SGLang's own LongCat config class, before ``AutoConfig`` is asked."""


@dataclass(frozen=True)
class ModelTypes:
    """The model types SGLang 0.5.23's config loader parses without remote code."""

    config_registry: frozenset[str]
    """``_CONFIG_REGISTRY`` (``srt/utils/hf_transformers/common.py``): each is registered
    with ``AutoConfig`` at import."""
    registered: frozenset[str]
    """Model types SGLang registers with ``AutoConfig`` / ``CONFIG_MAPPING`` elsewhere in
    ``srt/`` (Cosmos3, Inkling, Muse Spark, ...)."""
    transformers: str
    """The transformers version SGLang's wheel requires (``==``)."""
    transformers_types: frozenset[str]
    """That version's ``CONFIG_MAPPING_NAMES`` keys."""

    def knows(self, model_type: str) -> bool:
        """Whether ``AutoConfig.from_pretrained`` finds a class for ``model_type``."""
        return (
            model_type in self.config_registry
            or model_type in self.registered
            or model_type in self.transformers_types
        )


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


@cache
def model_types() -> ModelTypes:
    """The tables of :data:`DATA_FILE`, with transformers' model types for the version
    SGLang requires (read from :func:`~drafting_config.engines.vllm_data.vllm_tables`,
    which holds each type's first version for 5.16.1 to 5.20.2; no later one drops any)."""
    raw = json.loads(files(__package__).joinpath(DATA_FILE).read_text(encoding="utf-8"))
    version = raw["transformers"]
    tables = vllm_tables()
    if version not in tables.transformers_versions:  # pragma: no cover - a data mistake
        raise ValueError(f"no model types of transformers {version} in {tables}")
    return ModelTypes(
        config_registry=frozenset(raw["config_registry"]),
        registered=frozenset(raw["registered"]),
        transformers=version,
        transformers_types=frozenset(
            name
            for name, first in tables.model_types.items()
            if _version_key(first) <= _version_key(version)
        ),
    )


class ConfigLoad(str, enum.Enum):
    """How ``HfModelConfigParser.parse`` fares with the draft's ``config.json``."""

    PARSED = "parsed"
    """A model type SGLang or its transformers knows, or a LongCat architecture."""
    REMOTE_CODE = "remote code"
    """Unknown, but ``auto_map.AutoConfig`` names remote code: parsed only with
    ``--trust-remote-code``."""
    UNKNOWN = "unknown"
    """Unknown and no ``auto_map.AutoConfig``: ``AutoConfig.from_pretrained`` raises
    ``ValueError`` ("Unrecognized model ... Should have a `model_type` key ...")."""


def config_load(get: FieldGetter) -> ConfigLoad | None:
    """``HfModelConfigParser.parse`` on the draft's config (``srt/utils/hf_transformers/
    config.py``): ``_try_load_longcat_config`` for a LongCat architecture, else
    ``AutoConfig.from_pretrained`` (transformers), which knows the types of
    :func:`model_types`, and else needs ``auto_map.AutoConfig`` with remote code.
    ``None`` when ``model_type`` is not a string (transformers then guesses from the
    repository's name: not judged here).

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    model_type = get("model_type", None)
    if not isinstance(model_type, str):
        return None
    listed = get("architectures", None)
    if is_list(listed) and LONGCAT_ARCHITECTURES & {n for n in listed if isinstance(n, str)}:
        return ConfigLoad.PARSED
    if model_types().knows(model_type):
        return ConfigLoad.PARSED
    auto_map = get("auto_map", None)
    if isinstance(auto_map, dict) and "AutoConfig" in auto_map:
        return ConfigLoad.REMOTE_CODE
    return ConfigLoad.UNKNOWN


def draft_class(get: FieldGetter) -> str | None:
    """The SGLang draft class that loads the draft: the first of its ``architectures``
    that is one (``srt/models/registry.py: ModelRegistry.resolve_model_cls`` takes
    ``architectures[0]`` when registered); ``None`` when none is.

    Raises:
        ParallelDraftingConfigError: ``architectures`` cannot be read at all.
    """
    listed = get("architectures", None)
    names = [listed] if isinstance(listed, str) else listed if is_list(listed) else []
    for name in names:
        if isinstance(name, str) and name in DRAFT_CLASSES:
            return name
    return None


def algorithm_of(get: FieldGetter) -> Algorithm | None:
    """The ``--speculative-algorithm`` the draft's SGLang class serves (see
    :func:`draft_class`), or ``None`` when SGLang has no class for it."""
    name = draft_class(get)
    return None if name is None else DRAFT_CLASSES[name]


# --- the DFlash parse (srt/speculative/dflash_utils.py) ----------------------------------------

DEFAULT_MASK_TOKEN: Final = "<|MASK|>"
"""``DEFAULT_DFLASH_MASK_TOKEN``: the mask token's text when the draft names none."""

_DFLASH_PARSE: Final = "SGLang's parse_dflash_draft_config (srt/speculative/dflash_utils.py)"
_DSPARK_PARSE: Final = (
    "SGLang's parse_dspark_draft_config (srt/speculative/dspark_components/dspark_config.py)"
)


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
    ``int()`` (``"16"`` and ``16.9`` give 16) and must be at least ``minimum``.

    Raises:
        SglangRefuses: ``int()`` fails, or the number is below ``minimum``.
    """
    if value is None:
        return None
    try:
        number: int = int(value)  # type: ignore[call-overload]
    except Exception:
        raise SglangRefuses(
            f"`{field}` = {describe_value(value)} is not a number {reader} can read with "
            "int(): it raises ValueError at start-up.",
            field=field,
        ) from None
    if minimum is not None and number < minimum:
        expected = "positive" if minimum == 1 else f">= {minimum}"
        raise SglangRefuses(
            f"`{field}` = {describe_value(value)} must be {expected}: {reader} raises "
            "ValueError at start-up.",
            field=field,
        )
    return number


def _refuse(field: str, value: object, must: str, reader: str = _DFLASH_PARSE) -> SglangRefuses:
    return SglangRefuses(
        f"`{field}` = {describe_value(value)} {must}: {reader} raises ValueError at start-up.",
        field=field,
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
                f"`dflash_config.{first}` = {pairs[first]} and `dflash_config.{second}` = "
                f"{pairs[second]}: set both or neither; {_DFLASH_PARSE} raises ValueError "
                "at start-up.",
                field=f"dflash_config.{first}",
            )
    _dflash_floats(section)
    raw, layers_field = _nested_or_top(section, get, "target_layer_ids")
    layer_ids: tuple[int, ...] | None = None
    if raw is not None:
        assert layers_field is not None
        if not is_list(raw):
            raise _refuse(layers_field, raw, "must be a list of layer ids")
        parsed: list[int] = []
        for index, item in enumerate(raw):
            try:
                parsed.append(int(item))  # type: ignore[call-overload]
            except Exception:
                raise _refuse(
                    layers_field, raw, f"has item {index} that int() cannot read"
                ) from None
        if not parsed:
            raise _refuse(layers_field, raw, "must not be empty")
        layer_ids = tuple(parsed)
    mask_token, mask_field = _nested_or_top(section, get, "mask_token")
    if mask_token is None:
        mask_token, mask_field = DEFAULT_MASK_TOKEN, None
    if not isinstance(mask_token, str) or not mask_token:
        raise _refuse(
            mask_field or "dflash_config.mask_token", mask_token, "must be a non-empty string"
        )
    raw, id_field = _nested_or_top(section, get, "mask_token_id")
    mask_token_id: int | None = None
    if raw is not None:
        assert id_field is not None
        if not isinstance(raw, int) or isinstance(raw, bool):  # numbers.Integral, not bool
            raise _refuse(id_field, raw, "must be an integer (not a bool, string or float)")
        if raw < 0:
            raise _refuse(id_field, raw, "must be non-negative")
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
            raise _refuse(field, value, "is not a number float() can read") from None
        if key == "output_multiplier" and number <= 0:
            raise _refuse(field, value, "must be positive")


def _dflash_mimo_extras(section: dict[object, object]) -> None:
    """``attention_sink_bias`` (a bool) and ``attention_value_scale`` (int, float or
    null, not a bool) of ``parse_dflash_draft_config``."""
    sink = section.get("attention_sink_bias", False)
    if not isinstance(sink, bool):
        raise _refuse("dflash_config.attention_sink_bias", sink, "must be a bool")
    scale = section.get("attention_value_scale")
    if scale is not None and (isinstance(scale, bool) or not isinstance(scale, (int, float))):
        raise _refuse(
            "dflash_config.attention_value_scale", scale, "must be a number or null (not a bool)"
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
        raise _refuse("dflash_config.emb_dim", nested, f"differs from the top-level emb_dim {top}")
    if not isinstance(shift_label, bool):
        raise _refuse(
            shift_field or "dflash_config.shift_label", shift_label, "must be a bool for Domino"
        )
    if prefix != 1:
        raise _refuse("dflash_config.pure_draft_prefix_len", prefix, "must be 1 for Domino")
    if gru is None:
        raise _refuse("dflash_config.gru_hidden_dim", None, "is required for Domino")
    if nested is None and top is None:
        raise _refuse("dflash_config.emb_dim", None, "is required for Domino")
    if block_size is not None and block_size <= 1:
        raise _refuse("block_size", block_size, "must be above 1 for Domino")


# --- the DSpark parse (srt/speculative/dspark_components/dspark_config.py) ---------------------

MARKOV_HEAD_TYPES: Final = ("vanilla", "gated", "rnn")
"""``SUPPORTED_DSPARK_MARKOV_HEAD_TYPES``."""

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
        raise _refuse(rank_field or "markov_rank", raw, "must be >= 0", _DSPARK_PARSE)
    head_field: str | None = "dspark_markov_head_type"
    head: object = prefixed["dspark_markov_head_type"]
    if head is None:
        head, head_field = _dspark_chain(get, merged, "markov_head_type", None)
    if rank > 0 and head is None and not uses_prefixed:
        raise SglangRefuses(
            f"The DSpark draft sets markov_rank = {rank} but no `markov_head_type` (one of "
            f"{', '.join(MARKOV_HEAD_TYPES)}): {_DSPARK_PARSE} raises ValueError at start-up.",
            field="markov_head_type",
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
            )
    id_field: str | None = "dspark_noise_token_id"
    raw = prefixed["dspark_noise_token_id"]
    if raw is None:
        raw, id_field = _dspark_chain(get, merged, "mask_token_id", MISSING)
        if raw is MISSING:
            raw, id_field = base.mask_token_id, base.mask_token_id_field
    token_id = optional_int(raw, id_field or "mask_token_id", minimum=None, reader=_DSPARK_PARSE)
    if token_id is not None and token_id < 0:
        raise _refuse(id_field or "mask_token_id", raw, "must be non-negative", _DSPARK_PARSE)
    optional_int(
        prefixed["dspark_block_size"], "dspark_block_size", minimum=None, reader=_DSPARK_PARSE
    )
    layers = prefixed["dspark_target_layer_ids"]
    layer_ids, layers_field = base.target_layer_ids, base.target_layer_ids_field
    if layers is not None:
        if not is_list(layers) or not layers:
            raise _refuse(
                "dspark_target_layer_ids", layers, "must be a non-empty list of ints", _DSPARK_PARSE
            )
        parsed = []
        for index, item in enumerate(layers):
            try:
                parsed.append(int(item))  # type: ignore[call-overload]
            except Exception:
                raise _refuse(
                    "dspark_target_layer_ids",
                    layers,
                    f"has item {index} that int() cannot read",
                    _DSPARK_PARSE,
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


# --- the tapped layers -------------------------------------------------------------------------


def build_target_layer_ids(num_target_layers: int, num_draft_layers: int) -> tuple[int, ...]:
    """``build_target_layer_ids`` (``dflash_utils.py``): the DFlash layer ids SGLang taps
    when the draft names none, one per draft layer: the middle layer for one, else evenly
    from 1 to ``L - 3``.

    Raises:
        SglangRefuses: a count below 1, or several draft layers on a target of fewer
            than 4 layers.
    """
    if num_target_layers <= 0 or num_draft_layers <= 0:
        raise SglangRefuses(
            f"SGLang derives the tapped layers from {num_target_layers} target layers and "
            f"{num_draft_layers} draft layers, and both must be positive "
            "(build_target_layer_ids in srt/speculative/dflash_utils.py raises ValueError)."
        )
    if num_draft_layers == 1:
        return (num_target_layers // 2,)
    start, end = 1, num_target_layers - 3
    if end < start:
        raise SglangRefuses(
            f"The draft names no target layers, so SGLang derives {num_draft_layers} of them "
            f"from the target's {num_target_layers} layers, which needs at least 4 "
            "(build_target_layer_ids in srt/speculative/dflash_utils.py raises ValueError)."
        )
    span = end - start
    return tuple(
        round(start + (i * span) / (num_draft_layers - 1)) for i in range(num_draft_layers)
    )


@dataclass(frozen=True)
class RuntimeLayers:
    """The DFlash layer ids SGLang's target worker taps (before the target class's hook)."""

    ids: tuple[int, ...]
    field: str | None
    """The field they came from, as the draft's config names it; ``None`` when derived."""
    derived_from: int | None = None
    """The target depth they were derived from (:func:`build_target_layer_ids`)."""


def resolve_target_layer_ids(
    draft: DFlashDraft, target_num_layers: int, draft_num_layers: int
) -> RuntimeLayers:
    """``DFlashDraftConfig.resolve_target_layer_ids`` (``dflash_utils.py``): the named
    list, each id in ``[0, L)``, else the list derived from the depth ``L``.

    Raises:
        SglangRefuses: an id out of range, or no list and too shallow a depth.
    """
    if draft.target_layer_ids is None:
        derived = build_target_layer_ids(target_num_layers, draft_num_layers)
        return RuntimeLayers(derived, None, target_num_layers)
    field = draft.target_layer_ids_field
    for index, layer_id in enumerate(draft.target_layer_ids):
        if not 0 <= layer_id < target_num_layers:
            raise SglangRefuses(
                f"`{field}` = {list(draft.target_layer_ids)}: item {index} is {layer_id}, "
                f"outside [0, {target_num_layers - 1}] for a target of {target_num_layers} "
                "layers (resolve_target_layer_ids in srt/speculative/dflash_utils.py raises "
                "ValueError at start-up).",
                field=field,
            )
    return RuntimeLayers(draft.target_layer_ids, field)


def target_depth(num_hidden_layers: int, num_loops: object) -> int:
    """The depth SGLang's target worker uses: ``num_hidden_layers * num_loops`` for loop
    models (``_resolve_dflash_aux_hidden_state``; ``num_loops`` default 1)."""
    loops = num_loops if isinstance(num_loops, int) and not isinstance(num_loops, bool) else 1
    return num_hidden_layers * max(loops, 1)


def class_target_layers(draft: DFlashDraft) -> int:
    """The target depth SGLang's DFlash draft class sizes ``fc`` by
    (``srt/models/dflash.py: DFlashDraftModel.__init__``): ``num_target_layers``, else one
    past the highest named id, else the draft's own ``num_hidden_layers``."""
    if draft.num_target_layers is not None:
        return draft.num_target_layers
    if draft.target_layer_ids is not None:
        return max(draft.target_layer_ids) + 1
    return draft.num_hidden_layers or 1


EAGLE_LAYER_IDS_FIELD: Final = "eagle_config.eagle_aux_hidden_state_layer_ids"


def eagle_layer_ids(get: FieldGetter) -> tuple[bool, object]:
    """``_resolve_eagle_aux_hidden_state`` (``spec_aux_hidden_state.py``): whether the
    target captures aux hidden states (``eagle_config.use_aux_hidden_state``, default
    true), and ``eagle_config["eagle_aux_hidden_state_layer_ids"]`` as found (``None``
    when absent: any failure to read it gives ``None``).  The top level is never read."""
    section = get("eagle_config", None)
    if section is None:
        return True, None
    if not isinstance(section, dict):
        return True, None
    use = section.get("use_aux_hidden_state", True)
    return bool(use), section.get("eagle_aux_hidden_state_layer_ids")


# --- the token id (srt/speculative/dflash_worker_v2.py) -----------------------------------------


class MaskSource(str, enum.Enum):
    """Where SGLang's DFlash worker takes the token id from."""

    CONFIG = "config"
    """The draft's configured id."""
    TOKENIZER_MASK = "tokenizer mask_token"
    """The served tokenizer's ``mask_token``, when it is the draft's mask string."""
    TOKENIZER_VOCAB = "tokenizer vocabulary"
    """The id of the mask string in the served tokenizer's vocabulary."""
    ADDED = "added to the tokenizer"
    """Not in the tokenizer: SGLang adds the mask string as a special token, at
    ``len(tokenizer)``."""


@dataclass(frozen=True)
class MaskTokenId:
    """The id ``DFlashWorkerV2._resolve_mask_token_id`` settles on, and how."""

    token_id: int
    source: MaskSource


def resolve_mask_token_id(
    mask_token: str,
    mask_token_id: int | None,
    *,
    vocab_size: int | None,
    tokenizer: TokenizerFiles | None,
) -> MaskTokenId | None:
    """``DFlashWorkerV2._resolve_mask_token_id``: the configured id, below the target's
    ``vocab_size`` and not contradicted by the mask string's id in the served tokenizer;
    without one, the tokenizer's ``mask_token`` when it is the mask string, else the
    string's id in its vocabulary, else the id SGLang gives it by adding it
    (``len(tokenizer)``).  ``None`` when the answer needs a tokenizer that was not read
    (``tokenizer=None``), or a tokenizer whose length is unknown.

    Raises:
        SglangRefuses: the id is at or past ``vocab_size``, or the tokenizer holds the
            mask string at another id.
    """
    if mask_token_id is not None:
        _below_vocab(mask_token_id, vocab_size, mask_token)
        found = None if tokenizer is None else tokenizer.id_of(mask_token)
        if found is not None and found != mask_token_id:
            raise SglangRefuses(
                f"The draft's mask token id is {mask_token_id}, but the served tokenizer "
                f"holds its mask token {mask_token!r} at id {found}: SGLang refuses to start "
                "(DFLASH config mismatch, DFlashWorkerV2._resolve_mask_token_id in "
                "srt/speculative/dflash_worker_v2.py).",
                field="dflash_config.mask_token",
            )
        return MaskTokenId(mask_token_id, MaskSource.CONFIG)
    if tokenizer is None:
        return None
    mask = tokenizer.special_tokens.get("mask")
    resolved: MaskTokenId | None = None
    if mask is not None and mask.text == mask_token and mask.id is not None:
        resolved = MaskTokenId(mask.id, MaskSource.TOKENIZER_MASK)
    if resolved is None:
        found = tokenizer.id_of(mask_token)
        if found is not None:
            resolved = MaskTokenId(found, MaskSource.TOKENIZER_VOCAB)
    if resolved is None:
        if tokenizer.length is None:
            return None
        resolved = MaskTokenId(tokenizer.length, MaskSource.ADDED)
    _below_vocab(resolved.token_id, vocab_size, mask_token)
    return resolved


def _below_vocab(token_id: int, vocab_size: int | None, mask_token: str) -> None:
    if vocab_size is not None and token_id >= vocab_size:
        raise SglangRefuses(
            f"SGLang's DFlash mask token id is {token_id} ({mask_token!r}), outside the "
            f"target's vocabulary of {vocab_size}: SGLang does not resize the target's "
            "embeddings and refuses to start (DFlashWorkerV2._resolve_mask_token_id in "
            "srt/speculative/dflash_worker_v2.py).",
            field="dflash_config.mask_token_id",
        )


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


# --- the target classes (srt/models/*: set_*_layers_to_capture) ------------------------------


class Hook(str, enum.Enum):
    """What a target class's capture hook does with the ids it is given, in capture
    indices (see the module docstring)."""

    PLUS_ONE = "+1"
    """Stores ``id + 1`` and captures before that layer, or stores ``id`` and captures
    after layer ``id``: capture index ``id + 1``."""
    AS_GIVEN = "given"
    """Captures after layer ``id`` (Kimi-K3, Bailing-V3, Beam, Inkling, Muse Spark,
    DeepSeek-V4): capture index ``id + 1``."""
    BEFORE = "before"
    """Stores ``id`` and captures before layer ``id``: capture index ``id``."""
    MUSE = "muse"
    """``MuseGlimmerForCausalLM``: as :attr:`BEFORE`, range-checked to ``[0, L)``; the
    target worker adds 1 first for DFlash2/MuseGlimmer-assistant drafts
    (``_map_muse_target_layer_ids``)."""
    BROKEN = "broken"
    """The hook delegates to a model without the method: ``AttributeError`` at start-up
    (``qwen3_vl.py: Qwen3VLForConditionalGeneration``, ``cosmos3.py``)."""
    FIRST_IS_ONE = "first1"
    """EAGLE-3 of the DeepSeek-V2 family: ``+1`` when the first id is 1, else as given
    (capture before layer ``id``)."""
    MAX_IS_DEPTH = "maxL"
    """EAGLE-3 of gpt-oss: as given when the highest id is ``L``, else ``+1``."""
    UNKNOWN = "?"
    """Not resolved by reading the class."""


class LastLayer(str, enum.Enum):
    """What the class does with DFlash id ``L - 1`` (capture index ``L``)."""

    CAPTURED = "captured"
    """Recorded: after the loop, or after each layer."""
    NEVER = "never"
    """Passes SGLang's range check but the loop never reaches it: one feature fewer
    than ``fc`` expects."""
    INDEX_ERROR = "IndexError"
    """The setter indexes ``self.layers[L]``: ``IndexError`` at start-up."""
    VALUE_ERROR = "ValueError"
    """The setter refuses ids outside ``[0, L - 1)``: ``ValueError`` at start-up."""
    UNKNOWN = "?"
    """Not a target with a capture loop (MTP/EAGLE heads), or unresolved."""


@dataclass(frozen=True)
class TargetClass:
    """One SGLang model class's capture hooks (``None``: no such hook)."""

    dflash: Hook | None
    """``set_dflash_layers_to_capture``."""
    dspark: Hook | None
    """``set_dspark_layers_to_capture`` (DSPARK prefers it over the DFlash hook)."""
    eagle3: Hook | None
    """``set_eagle3_layers_to_capture``."""
    last_layer: LastLayer


_TARGET_TABLE: Final = """
ApertusForCausalLM                      -      -      +1     ?
BailingMoEForCausalLM                   -      -      +1     ?
BailingMoeForCausalLM                   -      -      +1     ?
BailingMoeV2ForCausalLM                 -      -      +1     ?
BailingMoeV3ForCausalLM                 -      given  -      captured
BeamForCausalLM                         given  -      -      captured
Cosmos3ForConditionalGeneration         broken -      +1     ?
DeepseekV2ForCausalLM                   +1     -      first1 never
DeepseekV32ForCausalLM                  +1     -      first1 never
DeepseekV3ForCausalLM                   +1     -      first1 never
DeepseekV3ForCausalLMNextN              +1     -      first1 ?
DeepseekV4ForCausalLM                   -      given  -      ?
DeepseekV4ForCausalLMNextN              -      given  -      ?
EmbeddingGemmaModel                     -      -      +1     ?
ExaoneMoEForCausalLM                    -      -      +1     ?
ExaoneMoEForCausalLMMTP                 -      -      +1     ?
ExaoneMoeForCausalLM                    -      -      +1     ?
Gemma3ForCausalLM                       -      -      +1     ?
Gemma3ForConditionalGeneration          -      -      +1     ?
Gemma4AssistantForCausalLM              +1     -      +1     captured
Gemma4ForCausalLM                       +1     -      +1     captured
Gemma4ForConditionalGeneration          +1     -      +1     captured
Gemma4UnifiedAssistantForCausalLM       +1     -      +1     captured
Gemma4UnifiedForConditionalGeneration   +1     -      +1     captured
Glm4MoeForCausalLM                      -      -      +1     ?
Glm4MoeForCausalLMNextN                 -      -      +1     ?
Glm4MoeLiteForCausalLM                  +1     -      first1 never
Glm4MoeLiteForCausalLMNextN             +1     -      first1 ?
Glm5NextForConditionalGeneration        +1     -      +1     never
Glm5NextForConditionalGenerationNextN   +1     -      first1 ?
GlmMoeDsaForCausalLM                    +1     -      first1 never
GlmMoeDsaForCausalLMNextN               +1     -      first1 ?
GptOssForCausalLM                       +1     -      maxL   captured
IQuestCoderForCausalLM                  +1     -      +1     never
InklingForConditionalGeneration         given  -      -      captured
InternLM3ForCausalLM                    +1     -      +1     never
InternS1ProForConditionalGeneration     +1     -      +1     IndexError
InternS2MobiusForConditionalGeneration  +1     -      +1     IndexError
InternS2PreviewForConditionalGeneration +1     -      +1     IndexError
KimiK25ForConditionalGeneration         +1     -      first1 never
KimiK3ForConditionalGeneration          given  given  -      captured
KimiK3LinearForCausalLM                 given  given  -      captured
KimiLinearForCausalLM                   -      given  -      captured
LagunaForCausalLM                       +1     -      -      captured
Lfm2BidirectionalModel                  before -      -      ?
Lfm2ForCausalLM                         +1     -      -      captured
Lfm2MoeForCausalLM                      +1     -      -      captured
Lfm2VlForConditionalGeneration          +1     -      -      captured
Llama4ForCausalLM                       +1     -      +1     never
Llama4ForConditionalGeneration          -      -      ?      ?
LlamaForCausalLM                        +1     -      +1     never
LlamaForCausalLMEagle                   +1     -      +1     ?
LlamaForCausalLMEagle3                  +1     -      +1     ?
LongcatFlashForCausalLM                 -      -      +1     ?
LongcatFlashForCausalLMNextN            -      -      +1     ?
MellumForCausalLM                       +1     -      +1     IndexError
MiMoV2FlashForCausalLM                  +1     -      -      captured
MiMoV2ForCausalLM                       +1     -      -      captured
MiMoV2MTP                               +1     -      -      ?
MindSporeForCausalLM                    -      -      ?      ?
MiniMaxM2ForCausalLM                    -      -      +1     ?
MiniMaxM3SparseForCausalLM              -      -      +1     ?
MiniMaxM3SparseForConditionalGeneration +1     given  +1     captured
Ministral3ForCausalLM                   +1     -      +1     never
MistralForCausalLM                      +1     -      +1     never
MistralForCausalLMEagle                 +1     -      +1     ?
MistralLarge3ForCausalLM                +1     -      first1 never
MistralLarge3ForCausalLMEagle           +1     -      first1 never
MuseGlimmerForCausalLM                  muse   -      -      never
MuseGlimmerForConditionalGeneration     muse   -      -      never
MuseSparkForConditionalGeneration       given  -      -      captured
NanbeigeForCausalLM                     +1     -      -      never
NemotronHForCausalLM                    +1     -      -      captured
NemotronHForCausalLMMTP                 +1     -      -      ?
NemotronHPuzzleForCausalLM              +1     -      -      captured
NemotronH_Nano_Omni_Reasoning_V3        +1     -      -      captured
NemotronH_Nano_VL_V2                    +1     -      -      captured
NemotronH_Omni_Reasoning_V3             +1     -      -      captured
Phi3ForCausalLM                         +1     -      +1     never
Qwen2ForCausalLM                        -      -      +1     ?
Qwen2ForCausalLMEagle                   -      -      +1     ?
Qwen2MoeForCausalLM                     -      -      +1     ?
Qwen2_5_VLForConditionalGeneration      -      -      +1     ?
Qwen3ForCausalLM                        +1     -      +1     never
Qwen3MoeForCausalLM                     +1     -      +1     IndexError
Qwen3MoeForCausalLMMTP                  +1     -      +1     IndexError
Qwen3NextForCausalLM                    +1     -      +1     IndexError
Qwen3NextForCausalLMMTP                 +1     -      +1     IndexError
Qwen3VLForConditionalGeneration         broken -      +1     ?
Qwen3VLMoeForConditionalGeneration      +1     -      +1     IndexError
Qwen3_5ForCausalLM                      +1     -      +1     ValueError
Qwen3_5ForConditionalGeneration         +1     -      +1     IndexError
Qwen3_5MoeForCausalLM                   +1     -      +1     ValueError
Qwen3_5MoeForConditionalGeneration      +1     -      +1     IndexError
Qwen4ExpForConditionalGeneration        +1     -      +1     IndexError
SarvamMoEForCausalLM                    -      -      +1     ?
TeleFLMForCausalLM                      +1     -      +1     never
"""


def _target_classes(table: str) -> Mapping[str, TargetClass]:
    def hook(text: str) -> Hook | None:
        return None if text == "-" else Hook(text)

    classes = {}
    for line in table.strip().splitlines():
        name, dflash, dspark, eagle3, last = line.split()
        classes[name] = TargetClass(hook(dflash), hook(dspark), hook(eagle3), LastLayer(last))
    return MappingProxyType(classes)


TARGET_CLASSES: Final = _target_classes(_TARGET_TABLE)
"""Every registered SGLang model class with a DFlash, DSpark or EAGLE-3 capture hook (97
of the 290 ``EntryClass`` names of ``srt/models/``, hooks inherited included), read from
each class's ``set_*_layers_to_capture`` and its model's forward loop.  Columns: the
DFlash hook, the DSpark hook, the EAGLE-3 hook, what id ``L - 1`` does.  A class not
listed has no hook: ``configure_aux_hidden_state_capture``
(``srt/model_executor/model_runner_components/attention_backend_setup.py``) refuses it
for DFLASH and DSPARK ("implements neither set_dspark_layers_to_capture nor
set_dflash_layers_to_capture"), and EAGLE3 fails likewise."""


def target_class(architectures: tuple[str, ...]) -> tuple[str, TargetClass | None] | None:
    """The target's SGLang class (``architectures[0]``, as ``resolve_model_cls`` takes it)
    and its hooks (``None`` when it has none); ``None`` without architectures."""
    if not architectures:
        return None
    name = architectures[0]
    return name, TARGET_CLASSES.get(name)


def hook_for(cls: TargetClass, algorithm: Algorithm) -> Hook | None:
    """The hook ``configure_aux_hidden_state_capture`` calls: DSPARK's own when the class
    has one, else the DFlash hook; EAGLE3's hook for EAGLE3."""
    if algorithm is Algorithm.EAGLE3:
        return cls.eagle3
    if algorithm is Algorithm.DSPARK and cls.dspark is not None:
        return cls.dspark
    return cls.dflash


def capture_indices(
    hook: Hook | None, ids: tuple[int, ...], *, depth: int | None, muse_mapped: bool = False
) -> tuple[int, ...] | None:
    """The capture indices a hook records for layer ids (``None`` when unresolved): see
    :class:`Hook`.  Without a target class (``hook=None``) the common ``+1``."""
    if hook in (None, Hook.PLUS_ONE, Hook.AS_GIVEN):
        return tuple(i + 1 for i in ids)
    if hook is Hook.BEFORE or (hook is Hook.MUSE and not muse_mapped):
        return ids
    if hook is Hook.MUSE:
        return tuple(i + 1 for i in ids)
    if hook is Hook.FIRST_IS_ONE:
        return tuple(i + 1 for i in ids) if ids and ids[0] == 1 else ids
    if hook is Hook.MAX_IS_DEPTH and depth is not None:
        return ids if ids and max(ids) == depth else tuple(i + 1 for i in ids)
    return None


def eagle3_default_layers(num_layers: int) -> tuple[int, ...]:
    """The capture indices an EAGLE-3 hook records without ids: ``[2, L // 2, L - 3]``,
    unshifted (``srt/models/qwen3.py: Qwen3ForCausalLM.set_eagle3_layers_to_capture``)."""
    return (2, num_layers // 2, num_layers - 3)
