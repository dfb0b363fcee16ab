"""transformers' names, taken from its released wheels (``transformers_wheel(version)``)
with :mod:`tools.wheels`; read by both engines' tables:

* ``transformers_model_types(wheel) -> frozenset[str]``: the keys of
  ``CONFIG_MAPPING_NAMES``.
"""

from __future__ import annotations

import ast
from collections import OrderedDict
from typing import Any, Final

from tools.wheels import Wheel, WheelSpec

__all__ = [
    "TRANSFORMERS_AUTO_FILES",
    "transformers_model_types",
    "transformers_spec",
]


def transformers_spec(version: str) -> WheelSpec:
    """transformers ``version``'s wheel."""
    return WheelSpec("transformers", version)


TRANSFORMERS_AUTO_FILES: Final = (
    "transformers/models/auto/auto_mappings.py",
    "transformers/models/auto/configuration_auto.py",
)
"""Where ``CONFIG_MAPPING_NAMES`` is built: generated into ``auto_mappings.py`` (5.x), then
extended in ``configuration_auto.py`` (where older releases define it whole)."""

_MAPPING: Final = "CONFIG_MAPPING_NAMES"


def _builds_mapping(statement: ast.stmt) -> bool:
    """Whether a module-level statement assigns or edits ``CONFIG_MAPPING_NAMES``."""
    if isinstance(statement, ast.Assign):
        return any(
            (isinstance(target, ast.Name) and target.id == _MAPPING)
            or (
                isinstance(target, ast.Subscript)
                and isinstance(target.value, ast.Name)
                and target.value.id == _MAPPING
            )
            for target in statement.targets
        )
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        function = statement.value.func
        return (
            isinstance(function, ast.Attribute)
            and isinstance(function.value, ast.Name)
            and function.value.id == _MAPPING
        )
    return isinstance(statement, ast.Delete) and any(
        isinstance(target, ast.Subscript)
        and isinstance(target.value, ast.Name)
        and target.value.id == _MAPPING
        for target in statement.targets
    )


def transformers_model_types(wheel: Wheel) -> frozenset[str]:
    """The keys of transformers' ``CONFIG_MAPPING_NAMES`` (the ``model_type`` values
    ``AutoConfig`` knows without remote code): every module-level statement of
    :data:`TRANSFORMERS_AUTO_FILES` that builds or edits it, run in file order.

    Raises:
        KeyError: no such mapping in the wheel.
    """
    namespace: dict[str, Any] = {"OrderedDict": OrderedDict}
    for member in TRANSFORMERS_AUTO_FILES:
        if not wheel.has(member):
            continue
        statements = [s for s in wheel.tree(member).body if _builds_mapping(s)]
        exec(compile(ast.Module(body=statements, type_ignores=[]), member, "exec"), namespace)
    if _MAPPING not in namespace:
        raise KeyError(f"no {_MAPPING} in {', '.join(TRANSFORMERS_AUTO_FILES)}")
    return frozenset(str(key) for key in namespace[_MAPPING])
