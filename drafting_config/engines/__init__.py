"""Each engine's knowledge, one package per engine (:mod:`~drafting_config.engines.vllm`,
:mod:`~drafting_config.engines.sglang`), of the shape
:class:`~drafting_config.engines.interface.EngineRules` gives; beside them what both read
(:mod:`~drafting_config.engines.transformers`).  This module is the one list of engines
and of their releases: the checker's engines, their names in a verdict and the command
line's choices derive from :data:`ENGINES` and :data:`RELEASES`.  Internal: the public API
is :mod:`drafting_config`.

An engine is named bare (``"vllm"``) or with its release (``"vllm==VERSION"``), one string
of :data:`Engine`: a ``Literal`` of every accepted string, so that mypy rejects a misspelt
engine and a release the package does not ship alike, and the value needs no second
argument that could disagree with it.  A bare name means the release installed in the
running environment when the package ships it, else the newest shipped one
(:func:`engine_rules`).  Where several verdicts per draft are asked for, ``"vllm==*"``
(:data:`EveryRelease`) means every shipped release of the engine (:func:`chosen_engines`).

The finding codes are declared in the core (:mod:`drafting_config.values.codes`: the core's
codes and those both engines give) and in each engine's ``codes`` module (the codes only its
rules give); importing this module imports every engine's, so :data:`CODES` read here is the
whole table, and :data:`CODE_ENGINES` says which engine declares each engine's own code.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Mapping
from functools import cache
from importlib import import_module
from types import MappingProxyType
from typing import Final, Literal, get_args

from drafting_config.engines import sglang, vllm
from drafting_config.engines.interface import EngineRules
from drafting_config.engines.sglang.names import Release as SglangRelease
from drafting_config.engines.vllm.names import Release as VllmRelease
from drafting_config.values import codes
from drafting_config.values.codes import Code
from drafting_config.values.errors import ParallelDraftingConfigWarning, describe_value

EngineName = Literal["vllm", "sglang"]
"""An engine, by its bare name (the keys of :data:`ENGINES`, in its order)."""

Engine = Literal[EngineName, VllmRelease, SglangRelease]
"""An engine a verdict speaks for: ``"vllm"`` (the default) or ``"sglang"``, each meaning
the installed or newest shipped release (:func:`engine_rules`), or one shipped release,
``"vllm==VERSION"`` or ``"sglang==VERSION"`` (the keys of :data:`RELEASES`)."""

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

EveryRelease = Literal["vllm==*", "sglang==*"]
"""Every shipped release of an engine, one verdict each (:func:`chosen_engines`)."""

EVERY_RELEASE: Final[Mapping[EveryRelease, EngineName]] = MappingProxyType(
    {"vllm==*": "vllm", "sglang==*": "sglang"}
)
"""Each engine's :data:`EveryRelease` name, in the order of :data:`ENGINES`."""

CODES: Final[Mapping[str, Code]] = codes.CODES
"""Every declared code, by name: the core's, then each engine's (imported above), in the
order declared.  Read the table here, never before the engines are imported."""

CODE_ENGINES: Final[Mapping[str, EngineName]] = MappingProxyType(
    {
        value.name: engine
        for engine in ENGINES
        for value in vars(import_module(f"{__name__}.{engine}.codes")).values()
        if isinstance(value, Code)
    }
)
"""The engine whose ``codes`` module declares each code only its rules give, by the code's
name; a code not here is the core's (:mod:`drafting_config.values.codes`), given by the core
or by several engines."""

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


def distribution_version(name: str) -> str | None:
    """The ``Version`` of the distribution ``name`` installed on ``sys.path``, read from its
    metadata file, or ``None`` (not installed, or its metadata names no version).

    The first ``NAME-*.dist-info/METADATA`` (or ``NAME-*.egg-info/PKG-INFO``) in ``sys.path``
    order, where :func:`importlib.metadata.version` looks too (a test compares the two over
    the installed distributions); read directly because importing :mod:`importlib.metadata`
    (which imports :mod:`email`) would add about a tenth to every check's start-up.
    """
    wanted = _normalized(name)
    for entry in sys.path:
        try:
            names = sorted(os.listdir(entry or "."))
        except OSError:  # a missing folder, a zip file, a file
            continue
        for folder in names:
            stem, _, kind = folder.rpartition(".")  # "vllm-VERSION", "dist-info"
            if kind in _METADATA_FILES and _normalized(stem.partition("-")[0]) == wanted:
                return _metadata_version(os.path.join(entry or ".", folder, _METADATA_FILES[kind]))
    return None


_METADATA_FILES: Final = {"dist-info": "METADATA", "egg-info": "PKG-INFO"}
"""The metadata folder kinds and the core-metadata file each holds."""


def _normalized(name: str) -> str:
    """A distribution's name as its metadata folder spells it, compared case-blind (PEP 503
    runs of ``-``, ``_`` and ``.`` alike)."""
    return re.sub(r"[-_.]+", "_", name).lower()


def _metadata_version(path: str) -> str | None:
    """The ``Version:`` header of a core-metadata file (its headers end at the first blank
    line), or ``None`` when it has none or cannot be read."""
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            for line in file:
                if not line.strip():
                    break
                key, _, value = line.partition(":")
                if key.strip().lower() == "version":
                    return value.strip() or None
    except OSError:
        return None
    return None


@cache
def installed_version(engine: EngineName) -> str | None:
    """The release of ``engine`` installed in the running environment, read from its
    distribution's metadata (:func:`distribution_version`; the engine is never imported),
    or ``None`` (not installed, or its metadata names no version).  Read once per process."""
    return distribution_version(_DISTRIBUTIONS[engine])


def engine_rules(engine: Engine) -> tuple[EngineRules, ParallelDraftingConfigWarning | None]:
    """The rules ``engine`` means, and a warning when the installed release is not shipped.

    A release (``"vllm==VERSION"``) means itself.  A bare name means the installed release
    when the package ships it (a local build, ``VERSION+cu129``, is its public release),
    else the newest shipped one, with a warning (code ``installed-release-unknown``)
    naming both: the engine as installed may differ from the rules the verdict applies.
    """
    if engine in RELEASES:
        return RELEASES[engine], None
    for bare, newest in ENGINES.items():
        if engine != bare:
            continue
        installed = installed_version(bare)
        if installed is None:
            return newest, None
        public = installed.partition("+")[0]
        for name, rules in RELEASES.items():
            if name == f"{bare}=={public}":
                return rules, None
        return newest, ParallelDraftingConfigWarning(
            f"{bare} {installed} is installed, a release the checker does not ship: the "
            f"verdict speaks for {newest.ENGINE}, the newest it ships",
            code=codes.INSTALLED_RELEASE_UNKNOWN,
            fix=f"install a release the checker ships ({' or '.join(shipped(bare))}), or a "
            f"drafting-config that ships {bare} {public}",
            evidence=f"the installed {_DISTRIBUTIONS[bare]} distribution's metadata "
            "(the Version of its METADATA, as importlib.metadata.version reads it)",
        )
    raise ValueError(f"engine: {engine!r} is no engine")


def chosen_engines(engines: Iterable[str]) -> tuple[Engine, ...]:
    """The engines named, each an :data:`Engine` or an :data:`EveryRelease` (``"vllm==*"``:
    every shipped release of the engine), each release once (``"vllm"`` beside the release
    it means is one), in the order of :data:`RELEASES` (by engine, oldest first), whatever
    the order given, so that an engine's releases are side by side.

    Raises:
        ValueError: a name is neither, naming it and the names accepted.
    """
    chosen: dict[str, Engine] = {}
    for name in engines:
        every = next((bare for pattern, bare in EVERY_RELEASE.items() if name == pattern), None)
        if every is not None:
            named = tuple(release for release in RELEASES if release.startswith(f"{every}=="))
        else:
            named = tuple(engine for engine in (*ENGINES, *RELEASES) if engine == name)
        if not named:
            accepted = ", ".join(repr(engine) for engine in (*ENGINES, *RELEASES, *EVERY_RELEASE))
            raise ValueError(f"engine must be {accepted}; got {describe_value(name)}.")
        for engine in named:
            chosen.setdefault(engine_rules(engine)[0].ENGINE, engine)
    order = [rules.ENGINE for rules in RELEASES.values()]
    return tuple(chosen[name] for name in sorted(chosen, key=order.index))


def shipped(engine: EngineName) -> tuple[str, ...]:
    """The shipped releases of ``engine``, as verdicts name them, oldest first."""
    return tuple(rules.ENGINE for name, rules in RELEASES.items() if name.startswith(f"{engine}=="))
