"""Each engine's knowledge, one package per engine (:mod:`~drafting_config.engines.vllm`,
:mod:`~drafting_config.engines.sglang`), of the shape
:class:`~drafting_config.engines.interface.EngineRules` gives; beside them what both read
(:mod:`~drafting_config.engines.transformers`).  This module is the one list of engines
and of their releases: the checker's engines, their names in a verdict and the command
line's choices derive from :data:`ENGINES` and :data:`RELEASES`.  Internal: the public API
is :mod:`drafting_config`.

An engine is named bare (``"vllm"``) or with its release (``"vllm==0.32.0"``), one string
of :data:`Engine`: a ``Literal`` of every accepted string, so that mypy rejects a misspelt
engine and a release the package does not ship alike, and the value needs no second
argument that could disagree with it.  A bare name means the release installed in the
running environment when the package ships it, else the newest shipped one
(:func:`engine_rules`).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from importlib import metadata
from types import MappingProxyType
from typing import Final, Literal, get_args

from drafting_config.engines import sglang, vllm
from drafting_config.engines.interface import EngineRules
from drafting_config.engines.sglang.names import Release as SglangRelease
from drafting_config.engines.vllm.names import Release as VllmRelease

EngineName = Literal["vllm", "sglang"]
"""An engine, by its bare name (the keys of :data:`ENGINES`, in its order)."""

Engine = Literal[EngineName, VllmRelease, SglangRelease]
"""An engine a verdict speaks for: ``"vllm"`` (the default) or ``"sglang"``, each meaning
the installed or newest shipped release (:func:`engine_rules`), or one shipped release,
``"vllm==0.32.0"``, ``"vllm==0.33.0"`` or ``"sglang==0.5.23"``."""

ENGINES: Final[Mapping[EngineName, EngineRules]] = MappingProxyType(
    {"vllm": vllm, "sglang": sglang}
)
"""Each engine's package (its newest release), the default first."""

_RELEASES: dict[Engine, EngineRules] = {}
for _release, _rules in vllm.RELEASES.items():
    _RELEASES[_release] = _rules
_RELEASES.update(dict.fromkeys(get_args(SglangRelease), sglang))
RELEASES: Final[Mapping[Engine, EngineRules]] = MappingProxyType(_RELEASES)
"""Each shipped release's rules, by its ``NAME==VERSION`` (SGLang ships one: its package)."""

DEFAULT_ENGINE: Final[EngineName] = "vllm"
"""The engine a verdict speaks for unless told."""

ENGINE_NAMES: Final[Mapping[EngineName, str]] = MappingProxyType(
    {engine: rules.ENGINE for engine, rules in ENGINES.items()}
)
"""How each engine's newest release is named in a verdict
(:attr:`~drafting_config.Verdict.engine`)."""

_DISTRIBUTIONS: Final[Mapping[EngineName, str]] = MappingProxyType(
    {"vllm": "vllm", "sglang": "sglang"}
)
"""The distribution each engine is installed as."""


@cache
def installed_version(engine: EngineName) -> str | None:
    """The release of ``engine`` installed in the running environment, read from its
    distribution's metadata (:func:`importlib.metadata.version`; the engine is never
    imported), or ``None``.  Read once per process."""
    try:
        return metadata.version(_DISTRIBUTIONS[engine])
    except metadata.PackageNotFoundError:
        return None


def engine_rules(engine: Engine) -> tuple[EngineRules, str | None]:
    """The rules ``engine`` means, and a note when the installed release is not shipped.

    A release (``"vllm==0.32.0"``) means itself.  A bare name means the installed release
    when the package ships it, else the newest shipped one, with a note naming both.
    """
    if engine in RELEASES:
        return RELEASES[engine], None
    for bare, newest in ENGINES.items():
        if engine != bare:
            continue
        installed = installed_version(bare)
        if installed is None:
            return newest, None
        for name, rules in RELEASES.items():
            if name == f"{bare}=={installed}":
                return rules, None
        return newest, (
            f"{bare} {installed} is installed, but the checker knows only "
            f"{', '.join(shipped(bare))}: the verdict speaks for the newest, {newest.ENGINE}"
        )
    raise ValueError(f"engine: {engine!r} is no engine")


def shipped(engine: EngineName) -> tuple[str, ...]:
    """The shipped releases of ``engine``, as verdicts name them, oldest first."""
    return tuple(rules.ENGINE for name, rules in RELEASES.items() if name.startswith(f"{engine}=="))
