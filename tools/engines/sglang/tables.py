"""An SGLang release's tables, derived from its wheel with :mod:`ast` (nothing is imported).

A dev tool and a test helper, as ``tools/engines/vllm/tables.py`` is for vLLM:
``python -m tools.engine_tables sglang 0.5.23`` writes the package data file
``drafting_config/engines/sglang-0.5.23.json``; the ``engine_wheels`` tests derive the
same tables from the downloaded wheel and compare them with the package's.

* :func:`config_registry`: the model types of ``_CONFIG_REGISTRY``
  (``sglang/srt/utils/hf_transformers/common.py``): the ``model_type`` of every class of
  its dict comprehension, of ``DEEPSEEK_V41_CONFIG_CLASSES``, and each key assigned by
  ``_CONFIG_REGISTRY["..."] = ...``.
* :func:`registered_model_types`: the model types SGLang registers with transformers
  outside ``_CONFIG_REGISTRY`` (``AutoConfig.register(...)`` and
  ``CONFIG_MAPPING.register(...)`` anywhere in ``sglang/srt/``).
* :func:`target_hooks`: for every class ``srt/models/registry.py: import_model_classes``
  registers (each ``EntryClass`` of a top-level module of ``sglang/srt/models/``, by the
  class's own name), which of ``set_dflash_layers_to_capture``,
  ``set_dspark_layers_to_capture`` and ``set_eagle3_layers_to_capture`` it has, its own or
  inherited (bases resolved by class name among the classes of ``srt/models/*.py``).
* :func:`launch`: what a launch may say: ``server_options``, every option string
  ``ServerArgs.add_cli_args`` registers (``sglang/srt/server_args.py``): for each field of the
  namespace classes of ``sglang/srt/arg_groups/fields/`` annotated ``A[T, "help"]`` or
  ``A[T, Arg(...)]`` (``add_cli_args_from_dataclass``, ``arg_groups/arg_utils.py``), its
  ``cli_name`` or ``--NAME``, and its ``aliases``, less ``no_cli`` fields; and the literal
  option strings of ``server_args.py``'s own ``add_argument`` calls; ``speculative_options``,
  those of them of the ``spec`` namespace (``fields/spec.py``); ``algorithms``, the members of
  ``SpeculativeAlgorithm`` (``sglang/srt/speculative/spec_info.py``), whose ``from_string``
  accepts each name in any case; ``aliases``, the ``_RESERVED_ALIASES`` it reads as ``EAGLE``
  (``speculative/spec_registry.py``).
"""

from __future__ import annotations

import ast
import json
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from tools import engine_tables
from tools.wheels import WheelSpec, WheelUnavailable, requirement_of

__all__ = [
    "HOOKS",
    "Hooks",
    "SglangSource",
    "config_registry",
    "documents",
    "launch",
    "registered_model_types",
    "tables",
    "target_hooks",
]

COMMON: Final = "sglang/srt/utils/hf_transformers/common.py"
CONFIGS: Final = "sglang/srt/configs/"
MODELS: Final = "sglang/srt/models/"
SRT: Final = "sglang/srt/"
HOOKS: Final = (
    "set_dflash_layers_to_capture",
    "set_dspark_layers_to_capture",
    "set_eagle3_layers_to_capture",
)


class SglangSource:
    """The wheel's ``.py`` files, each parsed once (whatever reads them: a zip path, or
    a test's :class:`tools.wheels.Wheel` through its ``members`` and ``tree``)."""

    def __init__(
        self,
        members: Callable[[str], list[str]],
        text: Callable[[str], str],
        tree: Callable[[str], ast.Module],
    ) -> None:
        self.members = members
        self.text = text
        self.tree = tree

    @classmethod
    def of_zip(cls, path: Path) -> SglangSource:
        archive = zipfile.ZipFile(path)
        names = sorted(archive.namelist())
        parsed: dict[str, ast.Module] = {}

        def text(member: str) -> str:
            return archive.read(member).decode("utf-8")

        def tree(member: str) -> ast.Module:
            if member not in parsed:
                parsed[member] = ast.parse(text(member), member)
            return parsed[member]

        return cls(lambda prefix: [n for n in names if n.startswith(prefix)], text, tree)

    def python(self, prefix: str, *, top_level: bool = False) -> list[str]:
        """The ``.py`` files under ``prefix`` (only those directly in it with
        ``top_level``), ``__init__.py`` left out."""
        found = []
        for name in self.members(prefix):
            rest = name[len(prefix) :]
            if not name.endswith(".py") or rest.endswith("__init__.py"):
                continue
            if top_level and "/" in rest:
                continue
            found.append(name)
        return found


# --- model types --------------------------------------------------------------------------------


def _walk_top(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Module-level statements, into ``if`` and ``try`` blocks."""
    for node in body:
        yield node
        if isinstance(node, ast.If):
            yield from _walk_top(node.body)
            yield from _walk_top(node.orelse)
        elif isinstance(node, ast.Try):
            yield from _walk_top(node.body)
            for handler in node.handlers:
                yield from _walk_top(handler.body)
            yield from _walk_top(node.orelse)


def _class_model_types(source: SglangSource, files: list[str]) -> dict[str, set[str]]:
    """Each config class's name to the ``model_type`` literal(s) it (or a base of the same
    files, by name) sets."""
    own: dict[str, set[str]] = {}
    bases: dict[str, set[str]] = {}
    for member in files:
        for node in ast.walk(source.tree(member)):
            if not isinstance(node, ast.ClassDef):
                continue
            bases.setdefault(node.name, set()).update(
                b.id if isinstance(b, ast.Name) else b.attr
                for b in node.bases
                if isinstance(b, (ast.Name, ast.Attribute))
            )
            for statement in node.body:
                if isinstance(statement, ast.Assign):
                    targets = statement.targets
                elif isinstance(statement, ast.AnnAssign):
                    targets = [statement.target]
                else:
                    continue
                value = statement.value
                if (
                    any(isinstance(t, ast.Name) and t.id == "model_type" for t in targets)
                    and isinstance(value, ast.Constant)
                    and isinstance(value.value, str)
                ):
                    own.setdefault(node.name, set()).add(value.value)

    def resolve(name: str, seen: frozenset[str] = frozenset()) -> set[str]:
        if name in own:
            return own[name]
        found: set[str] = set()
        for base in bases.get(name, ()):
            if base not in seen:
                found |= resolve(base, seen | {name})
        return found

    return {name: resolve(name) for name in bases}


def _one_model_type(types: dict[str, set[str]], name: str) -> str:
    found = types.get(name, set())
    assert len(found) == 1, f"config class {name}: model_type {sorted(found)}"
    return next(iter(found))


def _config_files(source: SglangSource) -> list[str]:
    return [*source.python(CONFIGS), COMMON]


def config_registry(source: SglangSource) -> list[str]:
    """The model types of ``_CONFIG_REGISTRY``, sorted."""
    types = _class_model_types(source, _config_files(source))
    tree = source.tree(COMMON)
    aliases = {
        alias.asname: alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.asname
    }
    tuples = _tuples_of_names(source)
    keys: set[str] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and node.target.id == "_CONFIG_REGISTRY"
        ):
            assert isinstance(node.value, ast.DictComp), "_CONFIG_REGISTRY: a dict comprehension"
            (generator,) = node.value.generators
            assert isinstance(generator.iter, ast.List)
            for item in generator.iter.elts:
                assert isinstance(item, ast.Name)
                keys.add(_one_model_type(types, aliases.get(item.id, item.id)))
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if (
                    isinstance(target, ast.Subscript)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "_CONFIG_REGISTRY"
                ):
                    assert isinstance(target.slice, ast.Constant)
                    keys.add(str(target.slice.value))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "update"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "_CONFIG_REGISTRY"
        ):
            (argument,) = node.args
            assert isinstance(argument, ast.DictComp)
            (generator,) = argument.generators
            assert isinstance(generator.iter, ast.Name)
            for name in tuples[generator.iter.id]:
                keys.add(_one_model_type(types, name))
    assert keys, "no _CONFIG_REGISTRY in " + COMMON
    return sorted(keys)


def _tuples_of_names(source: SglangSource) -> dict[str, list[str]]:
    """Module-level ``NAME = (ClassA, ClassB)`` of the config files."""
    found: dict[str, list[str]] = {}
    for member in _config_files(source):
        for node in source.tree(member).body:
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, (ast.Tuple, ast.List))
                and node.value.elts
                and all(isinstance(e, ast.Name) for e in node.value.elts)
            ):
                found[node.targets[0].id] = [e.id for e in node.value.elts]  # type: ignore[attr-defined]
    return found


def _register_calls(tree: ast.Module) -> Iterator[tuple[ast.Call, list[ast.For]]]:
    """Each ``AutoConfig.register(...)`` / ``CONFIG_MAPPING.register(...)`` call, with the
    ``for`` loops around it."""

    def visit(node: ast.AST, loops: list[ast.For]) -> Iterator[tuple[ast.Call, list[ast.For]]]:
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "register"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in ("AutoConfig", "CONFIG_MAPPING")
        ):
            yield node, loops
        inner = [*loops, node] if isinstance(node, ast.For) else loops
        for child in ast.iter_child_nodes(node):
            yield from visit(child, inner)

    yield from visit(tree, [])


def registered_model_types(source: SglangSource) -> list[str]:
    """The model types SGLang registers with ``AutoConfig`` / ``CONFIG_MAPPING`` in
    ``sglang/srt/`` outside ``_CONFIG_REGISTRY`` (whose loop is left out), sorted."""
    types = _class_model_types(source, _config_files(source))
    found: set[str] = set()
    for member in source.python(SRT):
        text = source.text(member)
        if "AutoConfig.register" not in text and "CONFIG_MAPPING.register" not in text:
            continue  # parse only the files that register
        tree = source.tree(member)
        for call, loops in _register_calls(tree):
            first = call.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                found.add(first.value)
            elif isinstance(first, ast.Attribute) and first.attr == "model_type":
                assert isinstance(first.value, ast.Name)
                found |= _loop_values(types, first.value.id, loops, member)
            elif isinstance(first, ast.Name) and first.id == "name" and member == COMMON:
                continue  # the loop over _CONFIG_REGISTRY itself
            elif isinstance(first, ast.Name):
                found |= _loop_keys(first.id, loops, member)
            else:
                raise AssertionError(f"{member}: register({ast.unparse(first)}, ...)")
    return sorted(found)


def _loop_values(
    types: dict[str, set[str]], name: str, loops: list[ast.For], member: str
) -> set[str]:
    """``X.model_type``: X a config class, or a loop variable over a tuple of them."""
    for loop in loops:
        if isinstance(loop.target, ast.Name) and loop.target.id == name:
            assert isinstance(loop.iter, (ast.Tuple, ast.List)), member
            return {_one_model_type(types, e.id) for e in loop.iter.elts if isinstance(e, ast.Name)}
    return {_one_model_type(types, name)}


def _loop_keys(name: str, loops: list[ast.For], member: str) -> set[str]:
    """A loop variable over ``{"type": Class, ...}.items()``: the dict's keys."""
    for loop in loops:
        target = loop.target
        if isinstance(target, ast.Tuple) and isinstance(target.elts[0], ast.Name):
            if target.elts[0].id != name:
                continue
            call = loop.iter
            assert isinstance(call, ast.Call), member
            assert isinstance(call.func, ast.Attribute), member
            mapping = call.func.value
            assert isinstance(mapping, ast.Dict), member
            return {
                k.value
                for k in mapping.keys
                if isinstance(k, ast.Constant) and isinstance(k.value, str)
            }
    raise AssertionError(f"{member}: register({name}, ...) outside a loop over a dict")


# --- target classes' capture hooks -------------------------------------------------------------


@dataclass(frozen=True)
class Hooks:
    """Which capture hooks a registered class has (its own or inherited)."""

    dflash: bool
    dspark: bool
    eagle3: bool


@dataclass(frozen=True)
class _Class:
    module: str
    node: ast.ClassDef

    def defines(self) -> set[str]:
        names: set[str] = set()
        for statement in self.node.body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names.add(statement.name)
            elif isinstance(statement, ast.Assign):
                names.update(t.id for t in statement.targets if isinstance(t, ast.Name))
        return names & set(HOOKS)


def _imports(tree: ast.Module) -> dict[str, tuple[str, str]]:
    """A module's ``from sglang.srt.models.X import A as B``: B to (module file, A)."""
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            path = node.module.replace(".", "/") + ".py"
            for alias in node.names:
                found[alias.asname or alias.name] = (path, alias.name)
    return found


def target_hooks(source: SglangSource) -> dict[str, Hooks]:
    """Every registered class of ``srt/models/*.py`` to its capture hooks.  A class
    imported from a module of a subpackage of ``srt/models/`` (``dots3_common``) is read
    there; nothing outside ``srt/models/`` is parsed."""
    files = source.python(MODELS, top_level=True)
    present = set(source.python(MODELS))
    classes: dict[tuple[str, str], _Class] = {}
    by_name: dict[str, list[_Class]] = {}
    imports: dict[str, dict[str, tuple[str, str]]] = {}

    def load(member: str) -> bool:
        if member in imports:
            return True
        if member not in present:
            return False
        tree = source.tree(member)
        imports[member] = _imports(tree)
        for node in _walk_top(tree.body):
            if isinstance(node, ast.ClassDef):
                found = _Class(member, node)
                classes[member, node.name] = found
                by_name.setdefault(node.name, []).append(found)
        return True

    for member in files:
        load(member)

    def unique(name: str) -> _Class | None:
        candidates = by_name.get(name, [])
        return candidates[0] if len(candidates) == 1 else None

    def lookup(module: str, name: str, depth: int = 0) -> _Class | None:
        if (module, name) in classes:
            return classes[module, name]
        imported = imports.get(module, {}).get(name)
        if imported is not None and imported[0] != module and depth < 10 and load(imported[0]):
            return lookup(*imported, depth + 1)
        return unique(name)

    def hooks(cls: _Class, seen: frozenset[tuple[str, str]] = frozenset()) -> set[str]:
        key = (cls.module, cls.node.name)
        found = cls.defines()
        for base in cls.node.bases:
            if isinstance(base, ast.Name):
                parent = lookup(cls.module, base.id)
            elif isinstance(base, ast.Attribute):
                parent = unique(base.attr)
            else:
                parent = None
            if parent is not None and (parent.module, parent.node.name) not in seen | {key}:
                found |= hooks(parent, seen | {key})
        return found

    registered: dict[str, Hooks] = {}
    for member in files:
        for node in _walk_top(source.tree(member).body):
            if not (
                isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "EntryClass" for t in node.targets)
            ):
                continue
            entries = node.value.elts if isinstance(node.value, ast.List) else [node.value]
            for entry in entries:
                assert isinstance(entry, ast.Name), f"{member}: EntryClass {ast.unparse(entry)}"
                cls = lookup(member, entry.id)
                assert cls is not None, f"{member}: EntryClass {entry.id} not found"
                names = hooks(cls)
                registered[cls.node.name] = Hooks(*(hook in names for hook in HOOKS))
    return registered


# --- the launch: server options and speculative algorithms -----------------------------------

FIELDS: Final = "sglang/srt/arg_groups/fields/"
SERVER_ARGS: Final = "sglang/srt/server_args.py"
SPEC_INFO: Final = "sglang/srt/speculative/spec_info.py"
SPEC_REGISTRY: Final = "sglang/srt/speculative/spec_registry.py"


def _field_options(statement: ast.AnnAssign) -> list[str]:
    """The option strings of one ``A[T, meta]`` field (none for ``no_cli`` or no meta)."""
    annotation = statement.annotation
    if not (
        isinstance(annotation, ast.Subscript)
        and isinstance(annotation.value, ast.Name)
        and annotation.value.id == "A"
        and isinstance(annotation.slice, ast.Tuple)
        and isinstance(statement.target, ast.Name)
    ):
        return []
    name = "--" + statement.target.id.replace("_", "-")
    meta = annotation.slice.elts[-1]
    if isinstance(meta, (ast.Constant, ast.JoinedStr, ast.BinOp)):  # help text
        return [name]
    if not (
        isinstance(meta, ast.Call) and isinstance(meta.func, ast.Name) and meta.func.id == "Arg"
    ):
        return []
    keywords = {keyword.arg: keyword.value for keyword in meta.keywords}
    no_cli = keywords.get("no_cli")
    if isinstance(no_cli, ast.Constant) and no_cli.value is True:
        return []
    cli_name = keywords.get("cli_name")
    if isinstance(cli_name, ast.Constant) and isinstance(cli_name.value, str):
        name = cli_name.value
    aliases = keywords.get("aliases")
    extra = (
        [
            element.value
            for element in aliases.elts
            if isinstance(element, ast.Constant) and isinstance(element.value, str)
        ]
        if isinstance(aliases, ast.List)
        else []
    )
    return [name, *extra]


def _namespace_options(tree: ast.Module) -> list[str]:
    options: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            for statement in node.body:
                if isinstance(statement, ast.AnnAssign):
                    options.extend(_field_options(statement))
    return options


def launch(source: SglangSource) -> dict[str, object]:
    """The ``launch`` part of the tables (see the module's docstring)."""
    options: set[str] = set()
    for path in source.python(FIELDS):
        options.update(_namespace_options(source.tree(path)))
    for node in ast.walk(source.tree(SERVER_ARGS)):
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
    (algorithm_class,) = (
        node
        for node in source.tree(SPEC_INFO).body
        if isinstance(node, ast.ClassDef) and node.name == "SpeculativeAlgorithm"
    )
    algorithms = [
        statement.targets[0].id
        for statement in algorithm_class.body
        if isinstance(statement, ast.Assign) and isinstance(statement.targets[0], ast.Name)
    ]
    aliases: list[str] = []
    for node in source.tree(SPEC_REGISTRY).body:
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == "_RESERVED_ALIASES"
        ):
            aliases = sorted(
                element.value
                for element in ast.walk(node.value)
                if isinstance(element, ast.Constant) and isinstance(element.value, str)
            )
    return {
        "server_options": sorted(options),
        "speculative_options": _namespace_options(source.tree(FIELDS + "spec.py")),
        "algorithms": algorithms,
        "aliases": aliases,
    }


# --- the data file -------------------------------------------------------------------------------


def tables(source: SglangSource, version: str, transformers: str) -> dict[str, object]:
    """The document of ``drafting_config/engines/sglang/sglang-VERSION.json``, less its
    hand-kept ``target_classes``: SGLang ``version``,
    whose wheel requires ``transformers==`` that version."""
    return {
        "about": (
            f"SGLang {version}'s model types, derived from its wheel by `python -m "
            f"tools.engine_tables sglang {version}` (see tools/engines/sglang/tables.py; the "
            "engine_wheels tests derive them again and compare). config_registry: the "
            "keys of _CONFIG_REGISTRY (sglang/srt/utils/hf_transformers/common.py); "
            "registered: the model types SGLang registers with AutoConfig / CONFIG_MAPPING "
            "elsewhere in sglang/srt/; transformers: the version its wheel requires. "
            "target_classes: every registered model class with a DFlash, DSpark or EAGLE-3 "
            "capture hook, read from each class's set_*_layers_to_capture and its model's "
            "forward loop (kept from the shipped file by the command; the hooks are checked "
            "against the wheel by the engine_wheels tests; last_layer is read by hand). "
            "classes: every model class registered under its name, each EntryClass of a "
            "top-level module of sglang/srt/models/ (srt/models/registry.py: "
            "import_model_classes)."
        ),
        "sglang": version,
        "transformers": transformers,
        "config_registry": config_registry(source),
        "registered": registered_model_types(source),
        "classes": sorted(target_hooks(source)),
        "launch": launch(source),
    }


def documents(
    version: str, fetch: Callable[[WheelSpec], Path], root: Path | None = None
) -> dict[Path, str]:
    """SGLang ``version``'s data file, as text, with the ``target_classes`` of the shipped
    file of that release (else of the newest shipped one)."""
    root = engine_tables.PACKAGE_DATA if root is None else root
    wheel = fetch(WheelSpec("sglang", version))
    pinned = requirement_of(wheel, "transformers")
    if not pinned.startswith("=="):
        raise WheelUnavailable(f"SGLang {version} requires transformers{pinned}, not one release")
    source = SglangSource.of_zip(wheel)
    document = tables(source, version, pinned.removeprefix("=="))
    shipped = engine_tables.shipped_versions("sglang", root)
    kept_from = version if version in shipped else (shipped[-1] if shipped else None)
    if kept_from is not None:
        kept = json.loads(
            (root / engine_tables.data_file("sglang", kept_from)).read_text(encoding="utf-8")
        )
        document["target_classes"] = kept["target_classes"]
    return {engine_tables.data_file("sglang", version): json.dumps(document, indent=1) + "\n"}
