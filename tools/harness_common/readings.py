"""The readings' helpers both harnesses share: what each ``readings.py`` computes the same way.

Each engine's ``readings.py`` keeps what is its own: the file, the entry's fields, what is an
artefact of this machine, the description. What is the same is here: a file's sha256 (the
inputs a reading records), the stage a run reached, writing the file, picking cases by name
and the line printed after each run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

__all__ = [
    "Named",
    "chosen",
    "inputs",
    "progress",
    "sha256_of",
    "stage_reached",
    "write_document",
]


class Named(Protocol):
    """A corpus case: anything with a ``name``."""

    @property
    def name(self) -> str: ...


CaseT = TypeVar("CaseT", bound=Named)


def sha256_of(path: Path) -> str:
    """The sha256 of a file's bytes, as hex."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def inputs(
    root: Path, draft: str, target: str, *, version: tuple[str, str], environment: str
) -> dict[str, str]:
    """What a reading ran on: the sha256 of the draft's and the target's ``config.json``
    (paths relative to ``root``), the engine's version (``version``: its field's name and
    value) and the harness environment's key, in that order."""
    field, value = version
    return {
        "draft_sha256": sha256_of(root / draft),
        "target_sha256": sha256_of(root / target),
        field: value,
        "environment": environment,
    }


def stage_reached(result: dict[str, Any], stages: Sequence[str]) -> str | None:
    """The stage that failed, else the last of ``stages`` (in their order) the run passed
    (None: none passed)."""
    failed = result.get("failed_stage")
    if failed is not None:
        return str(failed)
    passed = [stage for stage in stages if stage in result.get("stages_passed", ())]
    return passed[-1] if passed else None


def write_document(path: Path, document: dict[str, Any]) -> None:
    """``document`` written to ``path`` as indented JSON, non-ASCII kept, with a final
    newline."""
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def chosen(
    parser: argparse.ArgumentParser, cases: Sequence[CaseT], only: Sequence[str] | None
) -> list[CaseT]:
    """``cases``, or those named in ``only`` (in ``cases``' order); a name no case has is the
    parser's error."""
    if not only:
        return list(cases)
    unknown = set(only) - {case.name for case in cases}
    if unknown:
        parser.error(f"no case named {', '.join(sorted(unknown))}")
    return [case for case in cases if case.name in only]


def progress(label: str, entry: dict[str, Any]) -> None:
    """The line printed after each run: the case and how far it went, with its exception."""
    exception = entry["exception"] or {}
    print(
        f"{label}: {entry['outcome']} at {entry['stage_reached']}"
        f" {exception.get('type', '')}: {exception.get('message', '')[:160]}",
        flush=True,
    )
