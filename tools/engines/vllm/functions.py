"""vLLM's own functions, taken from its released wheel (``vllm_wheel``, vLLM 0.33.0) with
:mod:`tools.wheels`, for the differential tests:

* ``vllm_token_id(wheel) -> VllmTokenId``: ``.newer(hf_config)`` is the newer runner's
  ``get_parallel_drafting_token_id``; ``.older(hf_config)`` runs the older runner's
  ``_init_parallel_drafting_params`` on a bare proposer (no hidden-state tensor) and
  returns the raw value it stores.
* ``vllm_taps(wheel) -> VllmTaps``: ``.newer(hf_config)`` / ``.older(hf_config)`` are the
  two runners' tapped-layer functions, called on a speculative config holding
  ``hf_config``.
* ``vllm_speculators(wheel)``: vLLM's translation of a speculators-format
  ``config.json`` (a dict) into the dict of the HF config it builds.
* ``vllm_registry(wheel) -> dict[str, tuple[str, str]]``: every architecture vLLM's
  registry serves (``_VLLM_MODELS``, the merge of every table in
  ``vllm/model_executor/models/registry.py``), to (module, class);
  ``vllm_registry_tables(wheel)`` gives each table by name.
* ``vllm_class_ancestors(wheel, module, class_name) -> frozenset[str]``: the names of
  every class a model class inherits from, followed across vLLM's modules.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Final, cast

from tools.wheels import Wheel, WheelSpec

__all__ = [
    "VLLM",
    "VLLM_MODELS_PACKAGE",
    "VLLM_NEWER_TAPS_FILE",
    "VLLM_OLDER_TAPS_FILE",
    "VLLM_PROPOSER_FILE",
    "VLLM_REGISTRY_FILE",
    "VLLM_REGISTRY_TABLE",
    "VLLM_SPECULATORS_DIR",
    "VLLM_TOKEN_ID_FILE",
    "VllmTaps",
    "VllmTokenId",
    "vllm_class_ancestors",
    "vllm_registry",
    "vllm_registry_tables",
    "vllm_speculators",
    "vllm_taps",
    "vllm_token_id",
]


VLLM: Final = WheelSpec("vllm", "0.33.0")
"""The release the differential tests run vLLM's functions of (the ``vllm_wheel`` fixture)."""


VLLM_TOKEN_ID_FILE: Final = "vllm/v1/worker/gpu/spec_decode/utils.py"
VLLM_PROPOSER_FILE: Final = "vllm/v1/spec_decode/llm_base_proposer.py"
VLLM_NEWER_TAPS_FILE: Final = "vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py"
VLLM_OLDER_TAPS_FILE: Final = "vllm/v1/worker/gpu_model_runner.py"
VLLM_SPECULATORS_DIR: Final = "vllm/transformers_utils/configs/speculators/"
VLLM_REGISTRY_FILE: Final = "vllm/model_executor/models/registry.py"
VLLM_MODELS_PACKAGE: Final = "vllm.model_executor.models"


class _Proposer:
    """A bare proposer, as vLLM's own unit tests build one (``object.__new__``)."""


@dataclass(frozen=True)
class VllmTokenId:
    """vLLM 0.33.0's two token-id functions, from the wheel."""

    get_parallel_drafting_token_id: Callable[[object], int]
    init_parallel_drafting_params: Callable[[object], None]

    def newer(self, hf_config: object) -> int:
        """The newer runner: ``get_parallel_drafting_token_id(hf_config)``."""
        return self.get_parallel_drafting_token_id(hf_config)

    def older(self, hf_config: object) -> object:
        """The older runner: what ``_init_parallel_drafting_params`` stores (no hidden
        states, so no tensor and no torch)."""
        proposer: Any = object.__new__(_Proposer)
        proposer.draft_model_config = SimpleNamespace(hf_config=hf_config)
        proposer.pass_hidden_states_to_model = False
        self.init_parallel_drafting_params(proposer)
        return proposer.parallel_drafting_token_id


def vllm_token_id(wheel: Wheel) -> VllmTokenId:
    newer = wheel.extract(VLLM_TOKEN_ID_FILE, ["get_parallel_drafting_token_id"])
    older = wheel.extract(
        VLLM_PROPOSER_FILE, ["SpecDecodeBaseProposer._init_parallel_drafting_params"]
    )
    return VllmTokenId(
        newer["get_parallel_drafting_token_id"],
        older["SpecDecodeBaseProposer._init_parallel_drafting_params"],
    )


@dataclass(frozen=True)
class VllmTaps:
    """vLLM 0.33.0's two tapped-layer functions, from the wheel."""

    get_eagle3_aux_layers_from_config: Callable[[object], tuple[int, ...] | None]
    older_method: Callable[[object], tuple[int, ...] | None]

    def newer(self, hf_config: object) -> tuple[int, ...] | None:
        """The newer runner: ``get_eagle3_aux_layers_from_config(spec_config)``."""
        spec_config = SimpleNamespace(draft_model_config=SimpleNamespace(hf_config=hf_config))
        return self.get_eagle3_aux_layers_from_config(spec_config)

    def older(self, hf_config: object) -> tuple[int, ...] | None:
        """The older runner: ``GPUModelRunner._get_eagle3_aux_layers_from_config(self)``."""
        spec_config = SimpleNamespace(draft_model_config=SimpleNamespace(hf_config=hf_config))
        return self.older_method(SimpleNamespace(speculative_config=spec_config))


def vllm_taps(wheel: Wheel) -> VllmTaps:
    newer = wheel.extract(VLLM_NEWER_TAPS_FILE, ["get_eagle3_aux_layers_from_config"])
    older = wheel.extract(
        VLLM_OLDER_TAPS_FILE, ["GPUModelRunner._get_eagle3_aux_layers_from_config"]
    )
    return VllmTaps(
        newer["get_eagle3_aux_layers_from_config"],
        older["GPUModelRunner._get_eagle3_aux_layers_from_config"],
    )


def vllm_speculators(wheel: Wheel) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    """vLLM's reading of a speculators-format ``config.json`` (a dict): its
    ``SpeculatorsConfig.extract_vllm_speculative_config`` (which validates the file and
    raises where vLLM refuses it), then ``extract_transformers_pre_trained_config`` with the
    algorithm updaters of ``algos.py``. Returns the dict vLLM builds the draft's HF config
    from. The argument is deep-copied (vLLM edits it in place)."""
    algos_file = VLLM_SPECULATORS_DIR + "algos.py"
    updaters = [
        node.name
        for node in wheel.tree(algos_file).body
        if isinstance(node, ast.FunctionDef) and node.name != "register_speculator"
    ]
    algos = wheel.extract(algos_file, ["SUPPORTED_SPECULATORS_TYPES", *updaters])
    methods = [
        "SpeculatorsConfig.validate_speculators_config",
        "SpeculatorsConfig.build_vllm_speculative_config",
        "SpeculatorsConfig.extract_vllm_speculative_config",
        "SpeculatorsConfig.extract_transformers_pre_trained_config",
    ]
    cls = SimpleNamespace()  # the methods' ``cls``: each calls the others through it
    base = wheel.extract(
        VLLM_SPECULATORS_DIR + "base.py",
        methods,
        stand_ins={"SUPPORTED_SPECULATORS_TYPES": algos["SUPPORTED_SPECULATORS_TYPES"]},
    )
    for method in methods:
        function = base[method]
        name = method.rpartition(".")[2]
        setattr(cls, name, lambda *args, _f=function, **kwargs: _f(cls, *args, **kwargs))

    def translate(config: Mapping[str, Any]) -> dict[str, Any]:
        cls.extract_vllm_speculative_config(copy.deepcopy(dict(config)))
        result: dict[str, Any] = cls.extract_transformers_pre_trained_config(
            copy.deepcopy(dict(config))
        )
        return result

    return translate


VLLM_REGISTRY_TABLE: Final = "_VLLM_MODELS"
"""The table vLLM's registry serves from, composed of the others (``{**_TEXT_..., ...}``)."""


def vllm_registry_tables(wheel: Wheel) -> dict[str, dict[str, tuple[str, str]]]:
    """Each module-level table of ``vllm/model_executor/models/registry.py`` (a dict literal
    of ``"Architecture": ("module", "Class")`` entries, or of ``**other_table`` splats,
    merged in order as Python merges them), by its variable name."""
    tables: dict[str, dict[str, tuple[str, str]]] = {}
    for statement in wheel.tree(VLLM_REGISTRY_FILE).body:
        if not (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and isinstance(statement.value, ast.Dict)
        ):
            continue
        table: dict[str, tuple[str, str]] = {}
        for key, item in zip(statement.value.keys, statement.value.values, strict=True):
            if key is None and isinstance(item, ast.Name) and item.id in tables:
                table.update(tables[item.id])
            elif isinstance(key, ast.Constant) and isinstance(key.value, str):
                pair = _string_pair(item)
                if pair is not None:
                    table[key.value] = pair
        if table:
            tables[statement.targets[0].id] = table
    return tables


def _string_pair(node: ast.expr) -> tuple[str, str] | None:
    if isinstance(node, ast.Tuple) and len(node.elts) == 2:
        first, second = node.elts
        if (
            isinstance(first, ast.Constant)
            and isinstance(first.value, str)
            and isinstance(second, ast.Constant)
            and isinstance(second.value, str)
        ):
            return first.value, second.value
    return None


def vllm_registry(wheel: Wheel) -> dict[str, tuple[str, str]]:
    """Every architecture vLLM's model registry serves, to the module (under
    ``vllm/model_executor/models/``) and class it maps to: the table ``_VLLM_MODELS``,
    which merges every other table (text generation, pooling, multimodal, speculative
    decoding, the Transformers backend), later tables winning as in vLLM. Without such a
    table, the union of all tables in file order."""
    tables = vllm_registry_tables(wheel)
    if VLLM_REGISTRY_TABLE in tables:
        return dict(tables[VLLM_REGISTRY_TABLE])
    merged: dict[str, tuple[str, str]] = {}
    for table in tables.values():
        merged.update(table)
    return merged


def _module_file(module: str) -> str:
    return module.replace(".", "/") + ".py"


def vllm_class_ancestors(wheel: Wheel, module: str, class_name: str) -> frozenset[str]:
    """The names of every class ``class_name`` of ``vllm/model_executor/models/<module>.py``
    inherits from, directly or not, followed through the imports of each module it meets
    (absolute or relative, within vLLM). A base defined outside vLLM (``nn.Module``) is
    listed by its last name and not followed.

    Raises:
        KeyError: the class is not defined in that module.
    """
    ancestors: set[str] = set()
    start = f"{VLLM_MODELS_PACKAGE}.{module}"
    if _find_class(wheel, start, class_name) is None:
        raise KeyError(f"no class {class_name} in {start}")
    pending = [(start, class_name)]
    seen: set[tuple[str, str]] = set()
    while pending:
        place = pending.pop()
        if place in seen:
            continue
        seen.add(place)
        found = _find_class(wheel, *place)
        if found is None:
            continue
        node, where = found
        for base in node.bases:
            name = _base_name(base)
            if name is None:
                continue
            ancestors.add(name)
            pending.append((where, name))
            origin = _imported_from(wheel, where, name)
            if origin is not None:
                pending.append(origin)
    return frozenset(ancestors)


def _base_name(base: ast.expr) -> str | None:
    if isinstance(base, ast.Subscript):  # Generic[T], Foo[Config]
        base = base.value
    if isinstance(base, ast.Name):
        return base.id
    if isinstance(base, ast.Attribute):
        return base.attr
    return None


def _find_class(wheel: Wheel, module: str, name: str) -> tuple[ast.ClassDef, str] | None:
    member = _module_file(module)
    if not wheel.has(member):
        return None
    for statement in wheel.tree(member).body:
        if isinstance(statement, ast.ClassDef) and statement.name == name:
            return statement, module
    origin = _imported_from(wheel, module, name)
    return None if origin is None else _find_class(wheel, *origin)


def _imported_from(wheel: Wheel, module: str, name: str) -> tuple[str, str] | None:
    """(module, original name) that ``module`` imports ``name`` from, within vLLM."""
    return _vllm_imports(wheel, module).get(name)


def _vllm_imports(wheel: Wheel, module: str) -> dict[str, tuple[str, str]]:
    """Every name ``module`` imports from another vLLM module: (module, original name)."""
    key = f"imports:{module}"
    if key in wheel.memo:
        return cast("dict[str, tuple[str, str]]", wheel.memo[key])
    imports: dict[str, tuple[str, str]] = {}
    member = _module_file(module)
    package = module.rpartition(".")[0]
    for node in ast.walk(wheel.tree(member)) if wheel.has(member) else ():
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            parts = package.split(".")
            base = ".".join(parts[: len(parts) - node.level + 1])
            source = f"{base}.{node.module}" if node.module else base
        else:
            source = node.module or ""
        if not source.startswith("vllm") or source == module:
            continue
        for alias in node.names:
            imports.setdefault(alias.asname or alias.name, (source, alias.name))
    wheel.memo[key] = imports
    return imports
