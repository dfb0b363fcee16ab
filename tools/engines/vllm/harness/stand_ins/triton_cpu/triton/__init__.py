"""A stand-in for the CPU Triton (``triton-cpu``) that vLLM 0.34.0 requires on x86 CPUs.

vLLM 0.34.0's CPU platform refuses to start without Triton on x86
(``vllm/platforms/cpu.py``: ``CpuPlatform.check_and_update_config``, "vLLM on x86 CPUs
requires Triton (triton-cpu)."), and a GPU machine has Triton: with it, vLLM's own
``HAS_TRITON`` (``vllm/triton_utils/importing.py``) reads true, as it does there, and the
harness follows the path a GPU machine takes. No released Triton gives vLLM a usable
backend here (``triton==3.9.0`` installed leaves ``HAS_TRITON`` false).

What vLLM reads of Triton at import and while it builds the engine's objects is here:

* ``triton.backends.backends``: one backend, ``stand-in``, whose driver is active, the
  one active driver ``importing.py`` asks for;
* ``triton.jit``, ``triton.autotune``, ``triton.heuristics`` (with or without arguments):
  a kernel object that keeps the function (``fn``) and its parameters' names
  (``arg_names``), and raises when launched (``kernel[grid](...)``) or called;
* ``triton.runtime.autotuner.Autotuner`` and ``Heuristics``, ``triton.runtime.jit.JITFunction``:
  classes of which nothing here is an instance, so vLLM's JIT warm-up
  (``vllm/model_executor/warmup/jit_warmup_triton_helper.py``: ``_is_autotuned``) sees
  a kernel that is not autotuned;
* ``triton.language`` (``tl.constexpr`` keeps its value; ``tl.float32`` and the like are
  placeholders), ``triton.language.extra.libdevice``, ``triton.experimental.gluon``:
  every other name is a placeholder that raises when called, and every submodule is made
  on first import.

Nothing compiles or runs a kernel: a launch raises ``RuntimeError("triton stand-in:
... was launched")``, so a run that really needs Triton fails loudly (and its reading is
marked an artefact), never silently. There is no distribution metadata, so transformers'
``is_triton_available()`` still answers False.

Only the harness's processes of the releases that require it see it (``harness.py`` puts
this folder's parent on ``PYTHONPATH`` for them); it is no part of ``drafting_config``.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import inspect
import sys
import types
from typing import Any, NoReturn

STAND_IN = "triton stand-in"
__version__ = "3.6.0"


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

    def __or__(self, other: object) -> _Placeholder:  # `tl.tensor | tl.tensor_descriptor`
        return _Placeholder(f"{self._name} | {other!r}")

    __ror__ = __or__

    def __getitem__(self, item: object) -> _Placeholder:  # `tl.tensor[...]` in annotations
        return _Placeholder(f"{self._name}[{item!r}]")

    def __repr__(self) -> str:
        return f"<{STAND_IN} {self._name}>"


class _Kernel:
    """What ``triton.jit`` (or ``autotune``, ``heuristics``) makes of a function."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn
        self.__name__ = getattr(fn, "__name__", "kernel")
        self.__doc__ = getattr(fn, "__doc__", None)
        self.__module__ = getattr(fn, "__module__", __name__)
        try:
            self.arg_names = list(inspect.signature(fn).parameters)
        except (TypeError, ValueError):
            self.arg_names = []

    def __getitem__(self, grid: object) -> Any:
        def launch(*args: object, **kwargs: object) -> NoReturn:
            raise RuntimeError(f"{STAND_IN}: kernel {self.__name__} was launched")

        return launch

    def __call__(self, *args: object, **kwargs: object) -> NoReturn:
        raise RuntimeError(f"{STAND_IN}: kernel {self.__name__} was called")


def _decorator(*args: Any, **kwargs: Any) -> Any:
    if len(args) == 1 and not kwargs and callable(args[0]):
        return _Kernel(args[0])
    return _Kernel


jit = autotune = heuristics = _decorator


def constexpr_function(fn: Any) -> Any:
    """``triton.constexpr_function``: the function, as it is."""
    return fn


class Config:
    """``triton.Config``: kept, never used."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        self.args, self.kwargs = args, kwargs


def cdiv(x: int, y: int) -> int:
    """``triton.cdiv``: the ceiling of ``x / y``."""
    return (x + y - 1) // y


def next_power_of_2(n: int) -> int:
    """``triton.next_power_of_2``."""
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


class _Driver:
    def is_active(self) -> bool:
        return True

    def get_current_device(self) -> int:
        return 0


class _Backend:
    def __init__(self) -> None:
        self.driver = _Driver()


class Autotuner:
    """``triton.runtime.autotuner.Autotuner``: no kernel here is one."""


class Heuristics:
    """``triton.runtime.autotuner.Heuristics``: no kernel here is one."""


class JITFunction:
    """``triton.runtime.jit.JITFunction``: no kernel here is one."""


class _Constexpr:
    """``tl.constexpr``: an annotation, or a value kept as it is (``.value``)."""

    def __new__(cls, value: Any = None) -> Any:
        return value


def _module_getattr(name: str) -> Any:
    def __getattr__(attribute: str) -> _Placeholder:
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(attribute)
        return _Placeholder(f"{name}.{attribute}")

    return __getattr__


_NAMES: dict[str, dict[str, Any]] = {
    "triton.backends": {"backends": {"stand-in": _Backend()}},
    "triton.runtime": {"driver": _Placeholder("triton.runtime.driver")},
    "triton.runtime.autotuner": {"Autotuner": Autotuner, "Heuristics": Heuristics},
    "triton.runtime.jit": {"JITFunction": JITFunction},
    "triton.language": {"constexpr": _Constexpr},
}
"""What a submodule holds besides placeholders."""


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname: str, path: object, target: object = None) -> Any:
        if fullname.startswith("triton."):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = types.ModuleType(spec.name)
        module.__path__ = []
        module.__getattr__ = _module_getattr(spec.name)  # type: ignore[method-assign]
        for attribute, value in _NAMES.get(spec.name, {}).items():
            setattr(module, attribute, value)
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        parent, _, child = module.__name__.rpartition(".")
        if parent in sys.modules:
            setattr(sys.modules[parent], child, module)


def _torch_sees_no_triton() -> None:
    """Let torch's own Triton code (its inductor, which compiles nothing here: the harness
    runs ``enforce_eager``) find no Triton, as on this machine, before this module is
    importable: torch reads Triton once (``torch.utils._triton.has_triton_package``,
    ``torch._inductor.runtime.triton_compat``) and keeps what it found."""
    this = sys.modules.get(__name__)
    sys.modules[__name__] = None  # type: ignore[assignment]  # `import triton` fails
    try:
        import torch.utils._triton as torch_triton

        torch_triton.has_triton_package()
        import torch._inductor.runtime.triton_compat  # noqa: F401
    except Exception:  # torch without its inductor: nothing to hide from
        pass
    finally:
        if this is not None:
            sys.modules[__name__] = this


_torch_sees_no_triton()
sys.meta_path.append(_Finder())
__getattr__ = _module_getattr("triton")

# The submodules vLLM reaches as attributes (``triton.runtime.autotuner``) after
# ``import triton`` alone.
for _submodule in ("backends", "language", "runtime", "runtime.autotuner", "runtime.jit"):
    importlib.import_module(f"{__name__}.{_submodule}")
