"""No import cycle anywhere in the package, counting the imports inside functions.

import-linter's contracts see the imports between layers and packages; a cycle inside one
layer, or closed by an import inside a function (which only delays it), escapes them.  This
test reads every module of the package with :mod:`ast`, takes each import it makes at any
depth (those under ``if TYPE_CHECKING:`` excepted: they never run), and fails on any cycle
of the module graph.  An import of ``a.b`` is an edge to ``a.b``, not to the package
``a`` that Python initializes on the way: only a module's own imports make a cycle.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import drafting_config

PACKAGE = Path(drafting_config.__file__).parent
ROOT = PACKAGE.name


def _module_names() -> dict[str, Path]:
    modules = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, module: str, is_package: bool) -> Iterator[tuple[str, list[str]]]:
    """Each import's module and the names it takes from it, at any depth, skipping the
    bodies of ``if TYPE_CHECKING:``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                yield from _imports(child, module, is_package)
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, []
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".")
                anchor = parts if is_package else parts[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            yield base, [alias.name for alias in node.names]
        yield from _imports(node, module, is_package)


def import_graph() -> dict[str, set[str]]:
    """Each module of the package to the modules of the package it imports."""
    modules = _module_names()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for target, names in _imports(tree, name, path.name == "__init__.py"):
            if target != ROOT and not target.startswith(f"{ROOT}."):
                continue
            found = [f"{target}.{n}" for n in names if f"{target}.{n}" in modules]
            if len(found) < len(names) or not names:
                found.append(target)  # names of the module itself (or `import target`)
            graph[name].update(module for module in found if module in modules)
        graph[name].discard(name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph[node]):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_package_has_no_import_cycle() -> None:
    assert cycles(import_graph()) == []


def test_the_graph_sees_imports_inside_functions_and_not_type_checking_ones() -> None:
    graph = import_graph()
    # vLLM's entry point imports its checkpoint rules inside a function only.
    assert "drafting_config.engines.vllm.checkpoint" in graph["drafting_config.engines.vllm"]
    # The command imports the command line inside main(), under its Ctrl-C handler.
    assert "drafting_config.cli.run" in graph["drafting_config.command"]
    # drafting_config/__init__.py imports its names under TYPE_CHECKING only.
    assert graph["drafting_config"] == set()


def test_a_cycle_closed_by_a_function_level_import_is_found() -> None:
    tree = ast.parse("import a.b\n\ndef f():\n    from a import c\n")
    assert [target for target, _ in _imports(tree, "a.x", False)] == ["a.b", "a"]
    assert cycles({"a.b": {"a.c"}, "a.c": {"a.b"}, "a.d": {"a.b"}}) == [["a.b", "a.c"]]
    assert cycles({"a.b": {"a.c"}, "a.c": set()}) == []
