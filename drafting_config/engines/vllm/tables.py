"""vLLM's tables, as data: ``vllm-VERSION.json`` beside this module, one file per release,
each read once, lazily, by :func:`vllm_tables`.

A release's file is derived from vLLM's wheel by ``python -m tools.engine_tables vllm
VERSION`` (``tools/engines/vllm/tables.py``, a dev tool; the ``engine_wheels`` tests derive it
again from the downloaded wheels and compare).  It holds:

* every name of every table of ``vllm/model_executor/models/registry.py``
  (``_TEXT_GENERATION_MODELS`` ... ``_TRANSFORMERS_BACKEND_MODELS``, which ``_VLLM_MODELS``
  merges into ``ModelRegistry``), with its module and class, and the names vLLM names only
  to refuse (``_PREVIOUSLY_SUPPORTED_MODELS``, ``_OOT_SUPPORTED_MODELS``);
* the registered names whose class implements ``SupportsEagle3``
  (``model_executor/models/interfaces.py``), which a target must to be tapped;
* the model types of ``_CONFIG_REGISTRY`` (``vllm/transformers_utils/config.py``);
* what a launch may say: the fields ``--speculative-config`` takes (``SpeculativeConfig``'s,
  ``vllm/config/speculative.py``), its ``method`` values, and every option ``vllm serve``
  registers (``make_arg_parser``, ``vllm/entrypoints/common/cli_args.py``);
* the transformers versions the release accepts (``>=5.16.1,<5.21.0`` for 0.33.0), whose
  model types and classes :mod:`drafting_config.engines.transformers` holds.

Nothing here imports vLLM or transformers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache, cached_property

from drafting_config.engines.transformers import package_text, transformers_tables
from drafting_config.engines.vllm.names import VERSION


def data_file(version: str) -> str:
    """The file of ``version``'s tables, in this package."""
    return f"vllm-{version}.json"


@dataclass(frozen=True)
class VllmTables:
    """The tables of one release's file, typed."""

    registry: dict[str, dict[str, tuple[str, str]]]
    """Each registry table's name to its rows: an architecture name to ``(module, class)``,
    the module as the table writes it (relative to ``vllm.model_executor.models`` unless it
    starts with ``vllm.``)."""
    previously_supported: dict[str, str]
    """``_PREVIOUSLY_SUPPORTED_MODELS``: a name to the last vLLM version that served it."""
    out_of_tree: dict[str, str]
    """``_OOT_SUPPORTED_MODELS``: a name to the plugin that serves it now."""
    supports_eagle3: frozenset[str]
    """The registered names whose class implements ``SupportsEagle3``."""
    config_registry: frozenset[str]
    """The model types of vLLM's ``_CONFIG_REGISTRY``."""
    transformers_versions: tuple[str, ...]
    """The transformers versions of the range the release accepts, oldest first."""
    transformers_range: str
    """That range, as vLLM's wheel requires it."""
    model_types: dict[str, str]
    """Each model type of transformers' ``CONFIG_MAPPING_NAMES`` to the first version of the
    range that knows it (no later version drops one)."""
    model_classes: dict[str, str]
    """Each model class transformers exports to the first version of the range that does."""
    speculative_fields: tuple[str, ...] = ()
    """The keys ``--speculative-config`` takes: ``SpeculativeConfig``'s init fields (a
    ``@config`` dataclass, which forbids any other)."""
    methods: tuple[str, ...] = ()
    """The values of its ``method`` (``SpeculativeMethod``)."""
    serve_options: frozenset[str] = frozenset()
    """Every option string ``vllm serve`` registers (``--max-model-len``, ``-tp``)."""

    def registered(self, name: str) -> tuple[str, str] | None:
        """``(module, class)`` of a name of vLLM's registry (its effective row: the last
        table ``_VLLM_MODELS`` merges it from), or ``None``."""
        return self._merged.get(name)

    @cached_property
    def _merged(self) -> dict[str, tuple[str, str]]:
        """The registry's tables merged as ``_VLLM_MODELS`` merges them (a later table's row
        wins), once per release: every draft asks of every name it lists."""
        merged: dict[str, tuple[str, str]] = {}
        for rows in self.registry.values():
            merged.update(rows)
        return merged


def _in_range(first: dict[str, str], versions: tuple[str, ...]) -> dict[str, str]:
    """Each name some version of the range knows, to the first version of the range that
    knows it (the range is a run of the versions transformers' tables list)."""
    listed = transformers_tables().versions
    position = {version: index for index, version in enumerate(listed)}  # not index() per name
    oldest, newest = position[versions[0]], position[versions[-1]]
    return {
        name: listed[max(position[version], oldest)]
        for name, version in first.items()
        if position[version] <= newest
    }


@cache
def vllm_tables(version: str = VERSION) -> VllmTables:
    """The tables of vLLM ``version``, read from the package's data file on first use."""
    text = package_text(__package__, data_file(version))
    raw = json.loads(text)
    accepted = raw["transformers"]
    versions = tuple(accepted["versions"])
    transformers = transformers_tables()
    return VllmTables(
        registry={
            table: {name: (row[0], row[1]) for name, row in rows.items()}
            for table, rows in raw["registry"].items()
        },
        previously_supported=raw["previously_supported"],
        out_of_tree=raw["out_of_tree"],
        supports_eagle3=frozenset(raw["supports_eagle3"]),
        config_registry=frozenset(raw["config_registry"]),
        transformers_versions=versions,
        transformers_range=accepted["range"],
        model_types=_in_range(transformers.model_types, versions),
        model_classes=_in_range(transformers.model_classes, versions),
        speculative_fields=tuple(raw["launch"]["speculative_config"]["fields"]),
        methods=tuple(raw["launch"]["speculative_config"]["methods"]),
        serve_options=frozenset(raw["launch"]["serve_options"]),
    )
