"""Each engine's maintainers' tools, one folder per engine, and the one row that names them.

``tools/engines/ENGINE/`` holds what is the engine's own: ``tables.py`` (its data files,
derived from its wheel), ``functions.py`` (its functions the differential tests run) and
``harness/`` (the released engine run on a draft, its pins and stand-ins). Its
``__init__.py`` gives :data:`TOOLS`, an :class:`EngineTools` row; :func:`engine_tools`
collects every row, in the order of :data:`drafting_config.engines.ENGINES`, so the
commands of ``tools/`` (``tools.engine_tables``, ``tools.refresh``,
``tools.serve_readings``) derive the engine list instead of spelling it. What both engines
read (transformers' names) is :mod:`tools.engines.transformers`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from tools.wheels import WheelSpec

__all__ = ["ConfigStage", "EngineTools", "engine_tools"]


@dataclass(frozen=True)
class ConfigStage:
    """What ``tools.serve_readings`` needs of one engine to run the serve commands the
    checker prints through the engine's own config stage (its harness's
    ``harness/serve_readings.py``)."""

    releases: Callable[[], tuple[str, ...]]
    """The releases the harness has an environment for, oldest first."""
    server: Callable[[str], tuple[list[str], Callable[[Path], dict[str, str]], str]]
    """A release's config-stage server: its command, the environment it runs in (given its
    scratch folder) and the scratch folder's prefix (``tools.harness.process.run_served``)."""
    printed_names: Callable[[list[str]], tuple[str, str]]
    """The draft and the target a printed command (split into its argv) names."""
    artefact: Callable[[dict[str, Any]], str | None]
    """Why a failed config stage is an artefact of this machine, not a refusal of the
    command; ``None`` for a refusal."""


@dataclass(frozen=True)
class EngineTools:
    """What the maintainers' commands need of one engine."""

    engine: str
    """The engine's name in the package (a key of ``drafting_config.engines.ENGINES``)."""
    distribution: str
    """The distribution its wheel is published as."""
    documents: Callable[[str, Callable[[WheelSpec], Path]], dict[Path, str]]
    """A release's data files (paths relative to the package's data folder) as text, from
    its wheel (the second argument fetches a wheel)."""
    requirements: Callable[[str], Path]
    """Where the harness's pinned requirements of a release live (written by
    ``tools.refresh``; it need not exist yet)."""
    choices: Path
    """The harness's ``pins.in``: the pins a maintainer chose (``tools.refresh`` reads it)."""
    pinned: Callable[[str], str | None]
    """The engine's own pin among a release's requirements: ``None`` where the harness
    does not run that release."""
    record: Callable[[str, float, Sequence[str] | None], None]
    """Run the harness on a release (every case, or those named) and write its readings,
    each run as soon as it is taken (``release, timeout, only``)."""
    config_stage: ConfigStage
    """How the serve commands the checker prints run through the engine's config stage
    (``tools.serve_readings``)."""


@cache
def engine_tools() -> Mapping[str, EngineTools]:
    """Every engine's row, by its name, in the order of ``drafting_config.engines.ENGINES``.

    Raises:
        ModuleNotFoundError: an engine of the package has no ``tools/engines/ENGINE/``.
    """
    from drafting_config.engines import ENGINES

    rows: dict[str, EngineTools] = {}
    for name in ENGINES:
        row = importlib.import_module(f"tools.engines.{name}").TOOLS
        if not isinstance(row, EngineTools) or row.engine != name:
            raise TypeError(f"tools.engines.{name}.TOOLS: {row!r} is not {name}'s EngineTools")
        rows[name] = row
    return rows
