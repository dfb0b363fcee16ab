"""Derive a vLLM release's tables from its wheel and transformers' from theirs (a dev tool).

``drafting_config/engines/vllm-VERSION.json`` is this module's output, written by
``python -m tools.engine_tables vllm VERSION`` (:mod:`tools.engine_tables`); the
``engine_wheels`` tests run it again on the downloaded wheels and compare, so the
shipped tables cannot drift from the source they cite.  Nothing is imported from
vLLM or transformers: their ``.py`` files are read out of the wheels (zip files) and
parsed with :mod:`ast`.

What is derived, and from where:

* ``registry``: every ``*_MODELS`` table of ``vllm/model_executor/models/registry.py``
  (the tables ``_VLLM_MODELS`` merges, which build ``ModelRegistry``), each name to its
  module (as the table writes it) and class; ``previously_supported`` and
  ``out_of_tree``: ``_PREVIOUSLY_SUPPORTED_MODELS`` and ``_OOT_SUPPORTED_MODELS``.
* ``supports_eagle3``: the registered names whose class implements
  ``SupportsEagle3`` (``model_executor/models/interfaces.py``), followed through the
  class bases of every module of the wheel.  ``supports_eagle3(model)`` is an
  ``isinstance`` check against a ``runtime_checkable`` Protocol, so a class counts when
  ``SupportsEagle3`` is among its bases or when it defines all of the Protocol's members.
* ``config_registry``: the model types of ``_CONFIG_REGISTRY``
  (``vllm/transformers_utils/config.py``).
* ``speculators_algorithms``: the ``speculators_model_type`` values vLLM's speculators
  reader accepts (each ``@register_speculator("name")`` of
  ``vllm/transformers_utils/configs/speculators/algos.py``).
* ``launch``: what a launch may say (:func:`launch`): ``speculative_config``, the fields
  ``--speculative-config`` takes (the init fields of ``SpeculativeConfig``,
  ``vllm/config/speculative.py``, a ``@config`` dataclass that forbids any other key) and
  the ``method`` values of its ``SpeculativeMethod`` ``Literal``; ``serve_options``, every
  option string ``vllm serve`` registers (``make_arg_parser``,
  ``vllm/entrypoints/common/cli_args.py``): the literal option strings of the
  ``add_argument`` calls there, in ``vllm/engine/arg_utils.py`` and
  ``vllm/entrypoints/cli/serve.py``, and ``--NAME`` for each field of ``EngineArgs`` and the
  frontend's argument classes (which ``get_kwargs`` turns into options), and ``-O`` where
  ``FlexibleArgumentParser`` (``vllm/utils/argparse_utils.py``) rewrites it.
* ``transformers``: per transformers version the vLLM release accepts (its wheel's
  ``Requires-Dist: transformers...``), the model types of
  ``CONFIG_MAPPING_NAMES`` (``models/auto/configuration_auto.py``) and the
  ``PreTrainedModel`` classes the package exports (each ``models/*/modeling_*.py``
  ``__all__``), which vLLM's Transformers-backend fallback looks up with
  ``getattr(transformers, name)``; compactly: the names every version knows, and for the
  others the first version that knows them.
"""

from __future__ import annotations

import ast
import collections
import functools
import itertools
import json
import re
import zipfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tools import engine_tables
from tools.engines.transformers import transformers_spec
from tools.wheels import WheelSpec, WheelUnavailable, derived, requirement_of

PACKAGE_DATA = Path(__file__).resolve().parents[3] / "drafting_config" / "engines"
"""Where the data file lives."""

REGISTRY_FILE = "vllm/model_executor/models/registry.py"
CONFIG_FILE = "vllm/transformers_utils/config.py"
SPECULATORS_ALGOS_FILE = "vllm/transformers_utils/configs/speculators/algos.py"
SPECULATIVE_FILE = "vllm/config/speculative.py"
SERVE_FILES = (
    "vllm/engine/arg_utils.py",
    "vllm/entrypoints/common/cli_args.py",
    "vllm/entrypoints/launchers/cli_args.py",
    "vllm/entrypoints/openai/cli_args.py",
    "vllm/entrypoints/cli/serve.py",
)
"""The modules whose arguments ``vllm serve``'s parser registers (those present: 0.32.0's
``make_arg_parser`` is in ``launchers/cli_args.py``)."""
ARGPARSE_UTILS = "vllm/utils/argparse_utils.py"
"""``FlexibleArgumentParser``, which rewrites ``-O``, ``-O3`` and ``-O=3`` into
``--optimization-level`` before parsing."""
OPTION_CLASSES = frozenset({"EngineArgs", "AsyncEngineArgs", "BaseFrontendArgs", "FrontendArgs"})
"""The dataclasses whose fields become ``vllm serve`` options."""
INTERFACES = "vllm.model_executor.models.interfaces"
PROTOCOL_MEMBERS = frozenset(
    {
        "has_own_lm_head",
        "has_own_embed_tokens",
        "supports_eagle3",
        "set_aux_hidden_state_layers",
        "get_eagle3_default_aux_hidden_state_layers",
    }
)
ADAPTERS = frozenset({"as_seq_cls_model", "as_embedding_model", "as_reward_model"})
"""``model_executor/models/adapters.py``: factories returning a subclass of their argument."""


def version_of(path: Path) -> str:
    """The version in a wheel's file name (``vllm-0.33.0-cp38-abi3-...whl``: ``0.33.0``)."""
    return path.name.split("-")[1]


def read_zip(path: Path) -> dict[str, str]:
    """Every ``.py`` file of a wheel, by its path inside the wheel."""
    with zipfile.ZipFile(path) as wheel:
        return {
            name: wheel.read(name).decode("utf-8")
            for name in wheel.namelist()
            if name.endswith(".py")
        }


# --- vLLM's registry --------------------------------------------------------------------


def registry_tables(source: str) -> dict[str, dict[str, Any]]:
    """Every module-level ``*_MODELS`` dict display of ``registry.py``, spreads and the
    comprehension spread in ``_EMBEDDING_MODELS`` replayed on the tables seen before it."""
    tables: dict[str, dict[str, Any]] = {}
    for node in ast.parse(source).body:
        target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
        value = getattr(node, "value", None)
        if not (isinstance(target, ast.Name) and target.id.endswith("_MODELS")):
            continue
        if not isinstance(value, ast.Dict):
            continue
        table: dict[str, Any] = {}
        for key, item in zip(value.keys, value.values, strict=True):
            if key is not None:
                table[ast.literal_eval(key)] = ast.literal_eval(item)
            elif isinstance(item, ast.Name):
                table.update(tables[item.id])
            else:
                code = compile(ast.Expression(item), REGISTRY_FILE, "eval")
                table.update(eval(code, {"__builtins__": {}}, dict(tables)))
        tables[target.id] = table
    return tables


def registry(files: dict[str, str]) -> dict[str, Any]:
    """The registry part of the tables."""
    tables = registry_tables(files[REGISTRY_FILE])
    merged = tables.pop("_VLLM_MODELS")
    previously = tables.pop("_PREVIOUSLY_SUPPORTED_MODELS")
    out_of_tree = tables.pop("_OOT_SUPPORTED_MODELS")
    listed = {name for table in tables.values() for name in table}
    assert listed == set(merged), "a table _VLLM_MODELS does not merge"
    return {
        "registry": {
            table: {name: list(row) for name, row in sorted(rows.items())}
            for table, rows in tables.items()
        },
        "previously_supported": dict(sorted(previously.items())),
        "out_of_tree": dict(sorted(out_of_tree.items())),
    }


# --- SupportsEagle3 through the class bases ---------------------------------------------


@dataclass
class _Module:
    name: str
    is_package: bool
    classes: dict[str, tuple[list[ast.expr], set[str]]] = field(default_factory=dict)
    bindings: dict[str, tuple[str, ...]] = field(default_factory=dict)
    aliases: dict[str, ast.expr] = field(default_factory=dict)
    type_checking: dict[str, tuple[str, ...]] = field(default_factory=dict)


def _statements(
    body: list[ast.stmt], type_checking: bool = False
) -> Iterator[tuple[ast.stmt, bool]]:
    """Module-level statements, into ``if``/``try`` blocks; ``if TYPE_CHECKING:`` bodies
    flagged (they never run: only lazy packages' names are taken from them, as a last resort)."""
    for statement in body:
        yield statement, type_checking
        if isinstance(statement, ast.If):
            test = ast.unparse(statement.test)
            yield from _statements(statement.body, type_checking or test.endswith("TYPE_CHECKING"))
            yield from _statements(statement.orelse, type_checking)
        elif isinstance(statement, ast.Try):
            for block in (statement.body, statement.orelse, statement.finalbody):
                yield from _statements(block, type_checking)
            for handler in statement.handlers:
                yield from _statements(handler.body, type_checking)


def _members(definition: ast.ClassDef) -> set[str]:
    members: set[str] = set()
    for statement in definition.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            members.add(statement.name)
            for node in ast.walk(statement):
                targets = node.targets if isinstance(node, ast.Assign) else []
                if isinstance(node, ast.AnnAssign):
                    targets = [node.target]
                members |= {
                    t.attr
                    for t in targets
                    if isinstance(t, ast.Attribute)
                    and isinstance(t.value, ast.Name)
                    and t.value.id == "self"
                }
        elif isinstance(statement, ast.Assign):
            members |= {t.id for t in statement.targets if isinstance(t, ast.Name)}
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            members.add(statement.target.id)
    return members


def _parse_modules(files: dict[str, str]) -> dict[str, _Module]:  # noqa: PLR0912
    modules: dict[str, _Module] = {}
    for path, source in files.items():
        if not path.startswith("vllm/"):
            continue
        parts = path[:-3].split("/")
        is_package = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if is_package else parts)
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        module = _Module(name, is_package)
        for statement, type_checking in _statements(tree.body):
            if isinstance(statement, ast.ClassDef) and not type_checking:
                module.classes[statement.name] = (statement.bases, _members(statement))
            elif isinstance(statement, ast.ImportFrom):
                base = name.split(".") if is_package else name.split(".")[:-1]
                if statement.level:
                    base = base[: len(base) - (statement.level - 1)]
                    origin = ".".join([*base, *([statement.module] if statement.module else [])])
                else:
                    origin = statement.module or ""
                into = module.type_checking if type_checking else module.bindings
                for alias in statement.names:
                    into[alias.asname or alias.name] = ("symbol", origin, alias.name)
            elif isinstance(statement, ast.Import) and not type_checking:
                for alias in statement.names:
                    if alias.asname:
                        module.bindings[alias.asname] = ("module", alias.name)
                    else:
                        head = alias.name.split(".")[0]
                        module.bindings[head] = ("module", head)
            elif (
                isinstance(statement, ast.Assign)
                and not type_checking
                and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)
            ):
                module.aliases[statement.targets[0].id] = statement.value
        modules[name] = module
    return modules


class _Classes:
    """Resolve class names to ``(module, class)`` through imports, aliases and adapters."""

    def __init__(self, modules: dict[str, _Module]) -> None:
        self.modules = modules
        self.closures: dict[tuple[str, str], tuple[set[tuple[str, str]], set[str]]] = {}

    def lookup(  # noqa: PLR0911
        self, module_name: str, symbol: str, depth: int = 0
    ) -> tuple[str, ...] | None:
        if depth > 40:
            return None
        module = self.modules.get(module_name)
        if module is None:
            submodule = f"{module_name}.{symbol}"
            return ("module", submodule) if submodule in self.modules else None
        if symbol in module.classes:
            return ("class", module_name, symbol)
        if symbol in module.aliases:
            return self.expression(module, module.aliases[symbol], depth + 1)
        binding = module.bindings.get(symbol)
        if binding is not None and binding[0] == "module":
            return ("module", binding[1]) if binding[1] in self.modules else None
        if binding is not None:
            return self.lookup(binding[1], binding[2], depth + 1)
        submodule = f"{module_name}.{symbol}"
        if submodule in self.modules:
            return ("module", submodule)
        # Lazy packages (a module __getattr__) name their classes only in the imports of
        # an `if TYPE_CHECKING:` block.
        binding = module.type_checking.get(symbol)
        return None if binding is None else self.lookup(binding[1], binding[2], depth + 1)

    def expression(self, module: _Module, node: ast.expr, depth: int = 0) -> tuple[str, ...] | None:
        if isinstance(node, ast.Subscript):
            return self.expression(module, node.value, depth)
        if isinstance(node, ast.Name):
            return self.lookup(module.name, node.id, depth)
        if isinstance(node, ast.Attribute):
            base = self.expression(module, node.value, depth)
            if base is not None and base[0] == "module":
                return self.lookup(base[1], node.attr, depth + 1)
            return None
        if isinstance(node, ast.Call) and node.args and ast.unparse(node.func) in ADAPTERS:
            return self.expression(module, node.args[0], depth + 1)
        return None

    def closure(self, module_name: str, name: str) -> tuple[set[tuple[str, str]], set[str]]:
        """The class's bases (itself included) and the members they define."""
        key = (module_name, name)
        if key not in self.closures:
            module = self.modules[module_name]
            bases_of, members = module.classes[name]
            seen, all_members = {key}, set(members)
            self.closures[key] = (seen, all_members)  # a cycle stops here
            for base in bases_of:
                if isinstance(base, ast.Name) and base.id == name:
                    # `class Foo(Foo)`: the base is the Foo the statement shadows
                    binding = module.bindings.get(name)
                    found = self.lookup(binding[1], binding[2]) if binding else None
                else:
                    found = self.expression(module, base)
                if found is not None and found[0] == "class":
                    more, more_members = self.closure(found[1], found[2])
                    seen |= more
                    all_members |= more_members
        return self.closures[key]


def supports_eagle3(files: dict[str, str], names: Mapping[str, Sequence[str]]) -> list[str]:
    """The registered names whose class implements ``SupportsEagle3``."""
    classes = _Classes(_parse_modules(files))
    implementing = []
    for name, (module_name, class_name) in names.items():
        full = module_name
        if not full.startswith("vllm."):
            full = f"vllm.model_executor.models.{module_name}"
        found = classes.lookup(full, class_name)
        assert found is not None, f"{name}: {full}.{class_name} not found"
        assert found[0] == "class", f"{name}: {full}.{class_name} is not a class"
        bases, members = classes.closure(found[1], found[2])
        if (INTERFACES, "SupportsEagle3") in bases or members >= PROTOCOL_MEMBERS:
            implementing.append(name)
    return sorted(implementing)


# --- _CONFIG_REGISTRY -------------------------------------------------------------------


def config_registry(source: str) -> list[str]:
    """The model types of ``_CONFIG_REGISTRY = LazyConfigDict(model_type="Class", ...)``."""
    for node in ast.parse(source).body:
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and node.target.id == "_CONFIG_REGISTRY"
            and isinstance(node.value, ast.Call)
        ):
            types: list[str] = []
            for keyword in node.value.keywords:  # model_type="Class", or **{"model-type": ...}
                spread = ast.literal_eval(keyword.value) if keyword.arg is None else {}
                types += [keyword.arg] if keyword.arg is not None else list(spread)
            return sorted(types)
    raise AssertionError("no _CONFIG_REGISTRY in " + CONFIG_FILE)


# --- speculators ----------------------------------------------------------------------


def speculators_algorithms(source: str) -> list[str]:
    """The names ``algos.py`` registers: ``@register_speculator("name")`` decorators."""
    names = [
        decorator.args[0].value
        for node in ast.parse(source).body
        if isinstance(node, ast.FunctionDef)
        for decorator in node.decorator_list
        if isinstance(decorator, ast.Call)
        and ast.unparse(decorator.func) == "register_speculator"
        and decorator.args
        and isinstance(decorator.args[0], ast.Constant)
        and isinstance(decorator.args[0].value, str)
    ]
    assert names, "no @register_speculator in " + SPECULATORS_ALGOS_FILE
    return sorted(names)


# --- transformers ---------------------------------------------------------------------

_SAFE = (
    *(ast.Expression, ast.Dict, ast.List, ast.Tuple, ast.Set, ast.Constant, ast.Name),
    *(ast.Load, ast.Call, ast.Attribute, ast.keyword, ast.Starred),
)


# --- the launch: --speculative-config and vllm serve's options --------------------------------


def _literal_values(tree: ast.Module, name: str) -> list[str]:
    """The strings of the module-level ``Literal`` alias ``name``, following the aliases it
    names, in the order written."""
    aliases = {
        node.targets[0].id: node.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
    }
    out: list[str] = []

    def walk(node: ast.expr) -> None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append(node.value)
        elif isinstance(node, ast.Name) and node.id in aliases:
            walk(aliases[node.id])
        elif isinstance(node, ast.Subscript):
            walk(node.slice)
        elif isinstance(node, ast.Tuple):
            for element in node.elts:
                walk(element)

    walk(aliases[name])
    return list(dict.fromkeys(out))


def _init_fields(definition: ast.ClassDef) -> list[str]:
    """The annotated fields of a dataclass body, less ``ClassVar`` and ``init=False`` ones."""
    names = []
    for statement in definition.body:
        if not (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)):
            continue
        if "ClassVar" in ast.dump(statement.annotation):
            continue
        value = statement.value
        if isinstance(value, ast.Call) and any(
            keyword.arg == "init"
            and isinstance(keyword.value, ast.Constant)
            and keyword.value.value is False
            for keyword in value.keywords
        ):
            continue
        names.append(statement.target.id)
    return names


def speculative_config(source: str) -> dict[str, Any]:
    """``SpeculativeConfig``'s init fields, in class order, and its ``method`` values."""
    tree = ast.parse(source)
    (definition,) = (
        node
        for node in tree.body
        if isinstance(node, ast.ClassDef) and node.name == "SpeculativeConfig"
    )
    return {
        "fields": _init_fields(definition),
        "methods": _literal_values(tree, "SpeculativeMethod"),
    }


def serve_options(files: dict[str, str]) -> list[str]:
    """Every option string ``vllm serve`` registers (see the module's docstring), sorted."""
    options: set[str] = set()
    for path in SERVE_FILES:
        if path not in files:
            continue
        tree = ast.parse(files[path])
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument"
            ):
                options.update(
                    argument.value
                    for argument in node.args
                    if isinstance(argument, ast.Constant)
                    and isinstance(argument.value, str)
                    and argument.value.startswith("-")
                )
            elif isinstance(node, ast.ClassDef) and node.name in OPTION_CLASSES:
                options.update(
                    "--" + name.replace("_", "-")
                    for name in _init_fields(node)
                    if not name.startswith("_")
                )
    if 'arg.startswith("-O")' in files.get(ARGPARSE_UTILS, ""):
        options.add("-O")
    return sorted(options)


def launch(files: dict[str, str]) -> dict[str, Any]:
    """The ``launch`` part of the tables."""
    return {
        "speculative_config": speculative_config(files[SPECULATIVE_FILE]),
        "serve_options": serve_options(files),
    }


def _build(files: dict[str, str], path: str, name: str) -> dict[str, Any]:
    """Replay the module-level statements of ``path`` that build the dict ``name``."""
    namespace: dict[str, Any] = {}
    env = {"OrderedDict": collections.OrderedDict, "dict": dict}
    for statement in ast.parse(files[path]).body:
        if isinstance(statement, ast.ImportFrom) and any(
            (alias.asname or alias.name) == name for alias in statement.names
        ):
            folder = path.rsplit("/", statement.level)[0]
            namespace[name] = _build(files, f"{folder}/{statement.module}.py", name)
            continue
        node: ast.expr | None = None
        if isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                node = statement.value
        elif (
            isinstance(statement, ast.Expr)
            and isinstance(statement.value, ast.Call)
            and ast.unparse(statement.value.func) == f"{name}.update"
        ):
            node = statement.value
        if node is None:
            continue
        assert all(isinstance(n, _SAFE) for n in ast.walk(node)), f"{path}:{statement.lineno}"
        value = eval(
            compile(ast.Expression(node), path, "eval"), {"__builtins__": {}}, {**env, **namespace}
        )
        if isinstance(statement, (ast.Assign, ast.AnnAssign)):
            namespace[name] = value
    return dict(namespace[name])


_MODELING = re.compile(r"transformers/models/[^/]+/modeling_[^/]+\.py$")


def _is_model(name: str, bases: dict[str, list[str]], seen: tuple[str, ...] = ()) -> bool:
    if name == "PreTrainedModel":
        return True
    if name not in bases or name in seen:
        return False
    return any(_is_model(base, bases, (*seen, name)) for base in bases[name])


def model_classes(files: dict[str, str]) -> set[str]:
    """The ``PreTrainedModel`` subclasses a ``modeling_*.py`` file lists in ``__all__`` and
    defines: what ``getattr(transformers, name)`` returns a model class for."""
    found: set[str] = set()
    for path, source in files.items():
        if not _MODELING.match(path):
            continue
        tree = ast.parse(source)
        exported: list[str] = []
        bases: dict[str, list[str]] = {}
        for statement in tree.body:
            if isinstance(statement, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in statement.targets
            ):
                exported = list(ast.literal_eval(statement.value))
            elif isinstance(statement, ast.ClassDef):
                bases[statement.name] = [ast.unparse(b).split("[")[0] for b in statement.bases]

        found |= {name for name in exported if name in bases and _is_model(name, bases)}
    return found


def transformers_names(files: dict[str, str]) -> tuple[set[str], set[str]]:
    """One transformers wheel's model types and exported model classes."""
    types = _build(files, "transformers/models/auto/configuration_auto.py", "CONFIG_MAPPING_NAMES")
    return set(types), model_classes(files)


def by_version(known: dict[str, set[str]]) -> dict[str, Any]:
    """``{"every": names every version knows, "added": {version: names it first knows}}``;
    no name may be dropped by a later version (the compact form could not say so)."""
    versions = sorted(known, key=lambda v: tuple(int(p) for p in v.split(".")))
    for earlier, later in itertools.pairwise(versions):
        dropped = known[earlier] - known[later]
        assert not dropped, f"transformers {later} drops {sorted(dropped)}"
    added = {
        later: sorted(known[later] - known[earlier])
        for earlier, later in itertools.pairwise(versions)
        if known[later] - known[earlier]
    }
    return {"every": sorted(known[versions[0]]), "added": added}


def release_tables(vllm_wheel: Path) -> dict[str, Any]:
    """What the release's file holds of its wheel's source: the registry, ``SupportsEagle3``
    (every module of vLLM parsed: about 100 s), ``_CONFIG_REGISTRY``, the speculators
    algorithms and the launch's option names; derived once per wheel and this file's code,
    then read from the cache (:func:`tools.wheels.derived`), by the command and the tests
    alike."""

    def derive() -> dict[str, Any]:
        files = read_zip(vllm_wheel)
        out = registry(files)
        rows = out["registry"].values()
        registered = {name: row for table in rows for name, row in table.items()}
        out["supports_eagle3"] = supports_eagle3(files, registered)
        out["config_registry"] = config_registry(files[CONFIG_FILE])
        out["speculators_algorithms"] = speculators_algorithms(files[SPECULATORS_ALGOS_FILE])
        out["launch"] = launch(files)
        return out

    found: dict[str, Any] = derived("vllm-tables", [vllm_wheel], [Path(__file__)], derive)
    return found


def tables(vllm_wheel: Path, transformers_versions: Sequence[str]) -> dict[str, Any]:
    """Everything ``drafting_config/engines/vllm/vllm-VERSION.json`` holds, for the release
    of ``vllm_wheel``, whose accepted transformers range holds ``transformers_versions``
    (those releases' names are :func:`transformers_tables`', in a file of their own)."""
    version = version_of(vllm_wheel)
    out: dict[str, Any] = {
        "about": (
            f"vLLM {version}'s tables, derived from its wheel by `python -m tools.engine_tables "
            f"vllm {version}` (see tools/engines/vllm/tables.py); transformers' names per "
            "version are in ../transformers-5.json."
        ),
        "vllm": version,
    }
    out |= release_tables(vllm_wheel)
    out["transformers"] = {
        "range": requirement_of(vllm_wheel, "transformers"),
        "versions": sorted(transformers_versions, key=_version_key),
    }
    return out


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def _transformers_names_of(wheel: Path) -> dict[str, list[str]]:
    """One transformers wheel's model types and model classes, derived once per wheel and
    this file's code (:func:`tools.wheels.derived`)."""

    def derive() -> dict[str, list[str]]:
        types, classes = transformers_names(read_zip(wheel))
        return {"types": sorted(types), "classes": sorted(classes)}

    found: dict[str, list[str]] = derived("transformers-names", [wheel], [Path(__file__)], derive)
    return found


def transformers_tables(transformers_wheels: Iterable[Path]) -> dict[str, Any]:
    """Everything ``drafting_config/engines/transformers-5.json`` holds: each wheel's model
    types and exported model classes, as the first version to know each name."""
    types: dict[str, set[str]] = {}
    classes: dict[str, set[str]] = {}
    for wheel in transformers_wheels:
        known = version_of(wheel)
        names = _transformers_names_of(wheel)
        types[known], classes[known] = set(names["types"]), set(names["classes"])
    return {
        "about": (
            "transformers 5's model types (CONFIG_MAPPING_NAMES) and exported model classes, "
            "per version, derived from its wheels by `python -m tools.engine_tables vllm "
            "VERSION` (see tools/engines/vllm/tables.py): the releases of every shipped engine "
            "release's range; every name the oldest version knows, and what each later "
            "version adds (none drops one)."
        ),
        "versions": sorted(types, key=_version_key),
        "model_types": by_version(types),
        "model_classes": by_version(classes),
    }


def dumps(document: dict[str, Any]) -> str:
    """The file's text: one name per line (a registry row on its name's line), so that a
    regenerated file's diff shows what changed."""

    def form(value: Any, indent: str) -> str:
        inner = indent + " "
        if isinstance(value, dict) and value:
            items = (f"{inner}{json.dumps(k)}: {form(v, inner)}" for k, v in value.items())
            return "{\n" + ",\n".join(items) + "\n" + indent + "}"
        if isinstance(value, list) and len(value) > 2:
            return "[\n" + ",\n".join(inner + form(v, inner) for v in value) + "\n" + indent + "]"
        return json.dumps(value)

    return form(document, "") + "\n"


def documents(
    version: str,
    fetch: Callable[[WheelSpec], Path],
    list_versions: Callable[[str], list[str]] | None = None,
    root: Path | None = None,
) -> dict[Path, str]:
    """vLLM ``version``'s data file and transformers' (paths relative to ``root``, the
    package's data folder, whose other shipped vLLM files give the rest of transformers'
    releases), as text."""
    root = engine_tables.PACKAGE_DATA if root is None else root
    list_versions = engine_tables.released_versions if list_versions is None else list_versions
    wheel = fetch(WheelSpec("vllm", version))
    accepted = requirement_of(wheel, "transformers")
    in_range = engine_tables.in_range(list_versions("transformers"), accepted)
    if not in_range:
        raise WheelUnavailable(f"no transformers release in vLLM {version}'s range {accepted}")
    every = set(in_range)
    for other in engine_tables.shipped_versions("vllm", root):
        if other != version:
            raw = json.loads(
                (root / engine_tables.data_file("vllm", other)).read_text(encoding="utf-8")
            )
            every.update(raw["transformers"]["versions"])
    wheels = [fetch(transformers_spec(release)) for release in sorted(every, key=_version_key)]
    return {
        engine_tables.data_file("vllm", version): dumps(tables(wheel, in_range)),
        engine_tables.TRANSFORMERS_FILE: _transformers_text(tuple(wheels)),
    }


@functools.cache
def _transformers_text(wheels: tuple[Path, ...]) -> str:
    """transformers' table of these wheels, as text: every shipped vLLM release reads the
    same releases, so one process (the exact-bytes tests) builds it once."""
    return dumps(transformers_tables(list(wheels)))
