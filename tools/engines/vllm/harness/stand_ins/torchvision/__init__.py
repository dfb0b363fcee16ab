"""A stand-in for ``torchvision``, whose wheels do not load against the CPU torch 2.13.0.

transformers' Qwen2-VL image processor (which vLLM's Qwen3-VL and Qwen3.5 model files
import, and so the registry's inspection of those classes) imports
``torchvision.transforms.v2.functional`` at module level. No stage of the harness
processes an image, so every ``torchvision`` name here is a placeholder: reading an
attribute gives another placeholder, subclassing one gives a plain class, and *calling*
one raises ``RuntimeError("torchvision stand-in: ... was called")``, so a run that
really needs torchvision fails loudly (and its reading is marked an artefact), never
silently. Every submodule (``torchvision.transforms.v2``, ``torchvision.io``, ...) is made
on first import. There is no distribution metadata, so transformers'
``is_torchvision_available()`` still answers False.

Only the harness's processes see it (``harness.py`` puts this folder on ``PYTHONPATH``);
it is no part of ``drafting_config``.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import types
from typing import Any, NoReturn

STAND_IN = "torchvision stand-in"


class _Placeholder:
    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> _Placeholder:
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(attribute)
        return _Placeholder(f"{self._name}.{attribute}")

    def __call__(self, *args: object, **kwargs: object) -> NoReturn:
        raise RuntimeError(f"{STAND_IN}: {self._name} was called")

    def __mro_entries__(self, bases: tuple[Any, ...]) -> tuple[type, ...]:
        return (object,)

    def __repr__(self) -> str:
        return f"<{STAND_IN} {self._name}>"


def _module_getattr(name: str) -> Any:
    def __getattr__(attribute: str) -> _Placeholder:
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(attribute)
        return _Placeholder(f"{name}.{attribute}")

    return __getattr__


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname: str, path: object, target: object = None) -> Any:
        if fullname.startswith("torchvision."):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = types.ModuleType(spec.name)
        module.__path__ = []
        module.__getattr__ = _module_getattr(spec.name)  # type: ignore[method-assign]
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        return None


sys.meta_path.append(_Finder())
__getattr__ = _module_getattr("torchvision")
__version__ = "0.0.0+stand-in"
