"""Each engine's knowledge, one package per engine (:mod:`~drafting_config.engines.vllm`,
:mod:`~drafting_config.engines.sglang`), of the shape
:class:`~drafting_config.engines.interface.EngineRules` gives; beside them what both read
(:mod:`~drafting_config.engines.transformers`).  This module is the one list of engines:
the checker's engines, their names in a verdict and the command line's choices derive from
:data:`ENGINES`.  Internal: the public API is :mod:`drafting_config`.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, Literal

from drafting_config.engines import sglang, vllm
from drafting_config.engines.interface import EngineRules

Engine = Literal["vllm", "sglang"]
"""An engine a verdict speaks for: vLLM 0.33.0 (the default) or SGLang 0.5.23 (the keys of
:data:`ENGINES`, in its order)."""

ENGINES: Final[Mapping[Engine, EngineRules]] = MappingProxyType({"vllm": vllm, "sglang": sglang})
"""Each :data:`Engine`'s package, the default first."""

DEFAULT_ENGINE: Final[Engine] = "vllm"
"""The engine a verdict speaks for unless told."""

ENGINE_NAMES: Final[Mapping[Engine, str]] = MappingProxyType(
    {engine: rules.ENGINE for engine, rules in ENGINES.items()}
)
"""How each :data:`Engine` is named in a verdict (:attr:`~drafting_config.Verdict.engine`)."""
