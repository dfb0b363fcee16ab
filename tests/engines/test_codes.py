"""Each finding code is declared in the slice whose rules give it: a code only one engine's
rules give in that engine's ``codes`` module, the core's and those several engines give in
``drafting_config/values/codes.py``; and the whole table is read through
:mod:`drafting_config.engines`, which imports every engine's codes.

A code "given" by a module is one its source names (``codes.TOKEN_NOT_INT``,
``vllm_codes.EAGLE3_WIDTH``, or a name imported from a codes module), resolved against the
module's own globals, so that an alias or a re-export cannot hide it.
"""

from __future__ import annotations

import ast
import inspect
import pkgutil
from functools import cache
from importlib import import_module
from types import ModuleType

import pytest

import drafting_config
from drafting_config.cli.code_page import severities
from drafting_config.cli.settings import IGNORABLE
from drafting_config.engines import CODE_ENGINES, CODES, ENGINES
from drafting_config.values import codes as core_codes
from drafting_config.values.codes import Code

CORE: tuple[str, ...] = ("values", "files", "draft", "rules")
"""The core's subpackages (import-linter's "the core names no engine")."""


@cache
def _modules() -> dict[str, ModuleType]:
    """Every module of the package, by its dotted name, imported (``__main__`` aside: it runs
    the command)."""
    names = [
        info.name
        for info in pkgutil.walk_packages(drafting_config.__path__, f"{drafting_config.__name__}.")
        if not info.name.endswith(".__main__")
    ]
    return {name: import_module(name) for name in [drafting_config.__name__, *names]}


def _declared(module: ModuleType) -> set[Code]:
    """The codes a codes module declares."""
    return {value for value in vars(module).values() if isinstance(value, Code)}


def _engine_codes(engine: str) -> ModuleType:
    return import_module(f"drafting_config.engines.{engine}.codes")


def _is_codes_module(name: str) -> bool:
    return name == core_codes.__name__ or (
        name.startswith("drafting_config.engines.") and name.endswith(".codes")
    )


@cache
def _given(name: str) -> frozenset[Code]:
    """The codes the module ``name``'s source names."""
    module = _modules()[name]
    scope = vars(module)
    found: set[Code] = set()
    for node in ast.walk(ast.parse(inspect.getsource(module))):
        value: object = None
        if isinstance(node, ast.Name):
            value = scope.get(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            base = scope.get(node.value.id)
            value = getattr(base, node.attr, None) if isinstance(base, ModuleType) else None
        if isinstance(value, Code):
            found.add(value)
    return frozenset(found)


def _under(prefix: str) -> list[str]:
    return [
        name
        for name in _modules()
        if (name == prefix or name.startswith(f"{prefix}.")) and not _is_codes_module(name)
    ]


@pytest.mark.parametrize("engine", list(ENGINES))
def test_an_engines_modules_give_only_its_own_codes_and_the_cores(engine: str) -> None:
    own = _declared(_engine_codes(engine))
    allowed = own | _declared(core_codes)
    modules = _under(f"drafting_config.engines.{engine}")
    given = {name: _given(name) for name in modules}
    assert own <= set().union(*given.values()), "an engine declares only codes its rules give"
    for name, codes in given.items():
        strays = sorted(code.name for code in codes - allowed)
        assert not strays, f"{name} gives codes declared neither by {engine} nor the core"


def test_the_cores_modules_give_only_the_cores_codes() -> None:
    core = _declared(core_codes)
    modules = [name for package in CORE for name in _under(f"drafting_config.{package}")]
    assert len(modules) > 10
    given = {name: _given(name) for name in modules}
    assert core_codes.TOKEN_NOT_INT in set().union(*given.values())
    for name, codes in given.items():
        assert codes <= core, f"{name} gives codes the core does not declare"


def test_a_code_the_core_declares_is_not_one_engines_alone() -> None:
    # A code given only by one engine's rules belongs in that engine's codes.py.
    givers: dict[Code, set[str]] = {code: set() for code in _declared(core_codes)}
    for name in _modules():
        if _is_codes_module(name):
            continue
        parts = name.split(".")
        in_engine = len(parts) > 2 and parts[1] == "engines" and parts[2] in ENGINES
        slice_ = parts[2] if in_engine else "core"
        for code in _given(name):
            givers.setdefault(code, set()).add(slice_)
    alone = {
        code.name: engines.pop()
        for code, engines in givers.items()
        if code in _declared(core_codes) and len(engines) == 1 and engines <= set(ENGINES)
    }
    assert not alone, "move each to its engine's codes.py"


def test_the_table_read_through_engines_is_whole() -> None:
    core = _declared(core_codes)
    engines = {engine: _declared(_engine_codes(engine)) for engine in ENGINES}
    assert all(engines.values()), "each engine declares its own codes"
    assert set(CODES.values()) == core.union(*engines.values())
    assert {
        name: engine for engine, codes in engines.items() for code in codes for name in [code.name]
    } == dict(CODE_ENGINES)
    for engine in ENGINES:
        # The package's `codes` is its own codes module, not the core's under the same name.
        assert import_module(f"drafting_config.engines.{engine}").codes is (_engine_codes(engine))


def test_no_module_reads_the_table_before_the_engines_fill_it() -> None:
    # values.codes.CODES alone lacks the engines' codes until they are imported.
    readers = []
    for name, module in _modules().items():
        if name in {core_codes.__name__, "drafting_config.engines"}:
            continue
        for node in ast.walk(ast.parse(inspect.getsource(module))):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module == core_codes.__name__
                and any(alias.name == "CODES" for alias in node.names)
            ):
                readers.append(name)
            if isinstance(node, ast.Attribute) and node.attr == "CODES":
                base = node.value
                if isinstance(base, ast.Name) and vars(module).get(base.id) is core_codes:
                    readers.append(name)
    assert not readers, "read drafting_config.engines.CODES"


def test_each_constant_is_its_codes_name_and_each_code_has_its_severities() -> None:
    # The code page reads a code's severities from the constants the rules name.
    declared = [_declared(core_codes), *(_declared(_engine_codes(e)) for e in ENGINES)]
    for module in (core_codes, *(_engine_codes(engine) for engine in ENGINES)):
        for constant, value in vars(module).items():
            if isinstance(value, Code):
                assert constant.lower().replace("_", "-") == value.name
    assert sum(len(codes) for codes in declared) == len(CODES)
    given = severities()
    assert set(given) == set(CODES), "a code no rule gives, or one the page cannot see"
    assert given["token-not-int"] == ("error",)
    assert given["token-placeholder"] == ("warning",)
    assert given["target-not-given"] == ("note",)
    assert given["file-unavailable"] == ("error",)  # an error class's code
    # --ignore takes exactly the codes some rule gives as a warning or a note
    assert {name for name, severity in given.items() if set(severity) - {"error"}} == IGNORABLE
