"""The engines' rows in ``tools/engines/`` (``EngineTools``): the commands derive the engine
list from them, and each engine's tools stand alone."""

from __future__ import annotations

import shlex
import sys
import types
from pathlib import Path

import pytest

from drafting_config import check
from drafting_config.engines import ENGINES, RELEASES, EngineName
from tools import engine_tables
from tools.engines import EngineTools, engine_tools


def test_every_engine_of_the_package_has_a_row_in_its_order() -> None:
    rows = engine_tools()
    assert list(rows) == list(ENGINES)
    assert all(row.engine == name for name, row in rows.items())
    assert tuple(ENGINES) == engine_tables.ENGINES


@pytest.mark.parametrize("engine", list(ENGINES))
def test_the_harness_pins_the_newest_shipped_release_and_no_unknown_one(engine: EngineName) -> None:
    row = engine_tools()[engine]
    newest = ENGINES[engine].ENGINE.partition(" ")[2]
    assert row.pinned(newest) == f"{row.distribution}=={newest}"
    assert f"{row.distribution}=={newest}\n" in row.requirements(newest).read_text()
    assert row.pinned("0.0.1") is None


@pytest.mark.parametrize("engine", list(ENGINES))
def test_the_config_stage_runs_shipped_releases_and_reads_its_own_printed_command(
    engine: EngineName,
) -> None:
    stage = engine_tools()[engine].config_stage
    newest = ENGINES[engine].ENGINE.partition(" ")[2]
    assert newest in stage.releases()
    assert {f"{engine}=={release}" for release in stage.releases()} <= set(RELEASES)
    pair = Path(__file__).resolve().parents[2] / "examples" / "pair-qwen3-4b"
    release = next(name for name in RELEASES if name == f"{engine}=={newest}")
    printed = check(pair / "draft", target=pair / "target", engine=release)
    assert printed.serve_with is not None
    names = stage.printed_names(shlex.split(printed.serve_with))
    assert names == (str(pair / "draft"), str(pair / "target"))


def test_a_row_that_names_another_engine_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    engine = list(ENGINES)[-1]
    other = next(iter(ENGINES))
    stand_in = types.ModuleType(f"tools.engines.{engine}")
    stand_in.TOOLS = EngineTools(  # type: ignore[attr-defined]
        engine=other,
        distribution=other,
        documents=lambda version, fetch: {},
        requirements=Path,
        choices=Path("pins.in"),
        pinned=lambda release: None,
        record=lambda release, timeout, only: None,
        config_stage=next(iter(engine_tools().values())).config_stage,
    )
    monkeypatch.setitem(sys.modules, f"tools.engines.{engine}", stand_in)
    engine_tools.cache_clear()
    try:
        with pytest.raises(TypeError, match=f"not {engine}'s EngineTools"):
            engine_tools()
    finally:
        engine_tools.cache_clear()
