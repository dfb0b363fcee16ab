"""Placeholder packages for the SGLang harness's stand-ins (``torchvision``, ``sgl_kernel``).

``install(name)`` makes the calling package a placeholder: reading an attribute gives
another placeholder, subclassing one gives a plain class, and *calling* one raises
``RuntimeError("NAME stand-in: ... was called")``, so a run that really needs the package
fails loudly (and its reading is marked an artefact), never silently. Every submodule
(``NAME.a.b``) is made on first import. There is no distribution metadata, so
``importlib.metadata`` (and transformers' ``is_torchvision_available()``) still answer that
the package is absent.

Only the harness's processes see these (``harness.py`` puts this folder on
``PYTHONPATH``); they are no part of ``drafting_config``.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import types
from typing import Any, NoReturn


class _Placeholder:
    def __init__(self, stand_in: str, name: str) -> None:
        self._stand_in = stand_in
        self._name = name

    def __getattr__(self, attribute: str) -> _Placeholder:
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(attribute)
        return _Placeholder(self._stand_in, f"{self._name}.{attribute}")

    def __call__(self, *args: object, **kwargs: object) -> NoReturn:
        raise RuntimeError(f"{self._stand_in}: {self._name} was called")

    def __mro_entries__(self, bases: tuple[Any, ...]) -> tuple[type, ...]:
        return (object,)

    def __repr__(self) -> str:
        return f"<{self._stand_in} {self._name}>"


def _module_getattr(stand_in: str, name: str) -> Any:
    def __getattr__(attribute: str) -> _Placeholder:
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(attribute)
        return _Placeholder(stand_in, f"{name}.{attribute}")

    return __getattr__


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, package: str) -> None:
        self._package = package
        self._stand_in = f"{package} stand-in"

    def find_spec(self, fullname: str, path: object, target: object = None) -> Any:
        if fullname.startswith(f"{self._package}."):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = types.ModuleType(spec.name)
        module.__path__ = []
        module.__getattr__ = _module_getattr(self._stand_in, spec.name)  # type: ignore[method-assign]
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        return None


def install(package: str) -> None:
    """Make the already-imported top-level ``package`` (and its submodules) placeholders."""
    module = sys.modules[package]
    sys.meta_path.append(_Finder(package))
    module.__getattr__ = _module_getattr(f"{package} stand-in", package)  # type: ignore[method-assign]
    module.__version__ = "0.0.0+stand-in"  # type: ignore[attr-defined]
