"""SGLang's tables, as data: ``sglang-VERSION.json`` beside this module, one file per release,
read once: the model types its config loader parses, and every target class's capture hooks.

A release's model types are derived from its wheel by ``python -m tools.engine_tables
sglang VERSION`` (``tools/engines/sglang/tables.py``, a dev tool; the ``engine_wheels`` tests derive
them again and compare), which keeps the shipped file's target classes: their hooks are
checked against the wheel by those tests; what id ``L - 1`` does in each class's
forward loop is read by hand.  Layer ids are capture indices (see
:mod:`drafting_config.engines.sglang.layers`).
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType
from typing import Any, Final

from drafting_config.engines.sglang.names import VERSION
from drafting_config.engines.transformers import package_text, transformers_tables

# --- the config loader (srt/utils/hf_transformers/config.py: HfModelConfigParser.parse) -------


def data_file(version: str) -> str:
    """The file of ``version``'s tables, in this package."""
    return f"sglang-{version}.json"


DATA_FILE: Final = data_file(VERSION)
"""The file of the release this package reads."""

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


@cache
def _raw(version: str = VERSION) -> dict[str, Any]:
    """The parsed file of ``version``'s tables."""
    text = package_text(__package__, data_file(version))
    raw: dict[str, Any] = json.loads(text)
    return raw


@cache
def model_types(version: str = VERSION) -> ModelTypes:
    """The model types of ``version``'s file, with transformers' model types for the version
    SGLang requires (:func:`~drafting_config.engines.transformers.transformers_tables`)."""
    raw = _raw(version)
    required = raw["transformers"]
    return ModelTypes(
        config_registry=frozenset(raw["config_registry"]),
        registered=frozenset(raw["registered"]),
        transformers=required,
        transformers_types=transformers_tables().model_types_of(required),
    )


# --- the model registry (srt/models/registry.py) ---------------------------------------------


@cache
def registered_classes(version: str = VERSION) -> frozenset[str]:
    """Every model class ``version`` registers under its name: each ``EntryClass`` of a
    top-level module of ``srt/models/`` (``srt/models/registry.py:
    import_model_classes``)."""
    return frozenset(_raw(version)["classes"])


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


def target_classes(version: str = VERSION) -> Mapping[str, TargetClass]:
    """The ``target_classes`` of ``version``'s file: each class's DFlash, DSpark and EAGLE-3
    hooks (``null``: none) and what id ``L - 1`` does."""

    def hook(text: str | None) -> Hook | None:
        return None if text is None else Hook(text)

    return MappingProxyType(
        {
            name: TargetClass(
                hook(row["dflash"]),
                hook(row["dspark"]),
                hook(row["eagle3"]),
                LastLayer(row["last_layer"]),
            )
            for name, row in _raw(version)["target_classes"].items()
        }
    )


TARGET_CLASSES: Final = target_classes()
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


# --- the launch (srt/server_args.py, srt/speculative/spec_info.py) ---------------------------


@dataclass(frozen=True)
class LaunchNames:
    """What a launch of ``python -m sglang.launch_server`` may say, for one release."""

    server_options: frozenset[str]
    """Every option ``ServerArgs.add_cli_args`` registers (``srt/server_args.py``)."""
    speculative_options: tuple[str, ...]
    """Those of the ``spec`` namespace (``srt/arg_groups/fields/spec.py: Spec``)."""
    algorithms: tuple[str, ...]
    """The members of ``SpeculativeAlgorithm`` (``srt/speculative/spec_info.py``)."""
    aliases: tuple[str, ...]
    """The reserved aliases ``from_string`` reads as ``EAGLE``
    (``srt/speculative/spec_registry.py: _RESERVED_ALIASES``)."""

    def algorithm(self, name: str) -> str | None:
        """The member ``SpeculativeAlgorithm.from_string(name)`` returns (any case; a
        reserved alias is ``EAGLE``), or ``None``: it raises "Unknown speculative algorithm
        name" (no plugin registered)."""
        upper = name.upper()
        if upper in self.algorithms:
            return upper
        if upper in self.aliases:
            return "EAGLE"
        return None


@cache
def launch_names(version: str = VERSION) -> LaunchNames:
    """The ``launch`` part of ``version``'s file."""
    raw = _raw(version)["launch"]
    return LaunchNames(
        server_options=frozenset(raw["server_options"]),
        speculative_options=tuple(raw["speculative_options"]),
        algorithms=tuple(raw["algorithms"]),
        aliases=tuple(raw["aliases"]),
    )
