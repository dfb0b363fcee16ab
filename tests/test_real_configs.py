"""The corpus of real published draft configs in ``tests/real_configs/``.

Each draft there has one reading in ``vllm_readings.json``: what vLLM 0.33.0 does with
it, read from vLLM's source (not run). These tests hold the package to those readings,
and hold the corpus itself together: every file has a reading and a line in
``SOURCES.md``, and every reading names a file that exists.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import drafting_config

CORPUS = Path(__file__).parent / "real_configs"
READINGS_FILE = CORPUS / "vllm_readings.json"


def _readings() -> list[dict[str, Any]]:
    document = json.loads(READINGS_FILE.read_text(encoding="utf-8"))
    readings: list[dict[str, Any]] = document["readings"]
    return readings


READINGS = _readings()


def _id(reading: dict[str, Any]) -> str:
    return str(reading["file"]).removeprefix("drafts/").removesuffix(".json")


def _config_files(folder: str) -> set[str]:
    return {f"{folder}/{path.name}" for path in (CORPUS / folder).iterdir()}


def test_every_draft_has_exactly_one_reading() -> None:
    files = [reading["file"] for reading in READINGS]
    assert len(files) == len(set(files))
    assert set(files) == _config_files("drafts")


def test_every_target_named_by_a_reading_exists_and_every_target_is_named() -> None:
    named = {reading["target"] for reading in READINGS if reading["target"] is not None}
    assert named == _config_files("targets")


def test_sources_names_every_file() -> None:
    sources = (CORPUS / "SOURCES.md").read_text(encoding="utf-8")
    for name in sorted(_config_files("drafts") | _config_files("targets")):
        assert f"| {name.split('/')[1]} |" in sources, name


def test_the_corpus_spans_at_least_four_publishers() -> None:
    assert len({reading["publisher"] for reading in READINGS}) >= 4
    assert len(READINGS) >= 15


@pytest.mark.parametrize("reading", READINGS, ids=_id)
def test_check_resolves_the_token_id_vllm_resolves(reading: dict[str, Any]) -> None:
    target = reading["target"]
    verdict = drafting_config.check(
        CORPUS / reading["file"], target=None if target is None else CORPUS / target
    )
    # vLLM resolves an id, or raises ValueError; check() gives the same id, or none.
    if reading["token_exception"] is None:
        assert verdict.token_id == reading["token_id"]
    else:
        assert reading["token_exception"] == "ValueError"
        assert verdict.token_id is None
