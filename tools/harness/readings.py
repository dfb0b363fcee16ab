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
    "Ran",
    "chosen",
    "inputs",
    "progress",
    "reading",
    "sha256_of",
    "stage_reached",
    "write_document",
]


class Named(Protocol):
    """A corpus case: anything with a ``name``."""

    @property
    def name(self) -> str: ...


CaseT = TypeVar("CaseT", bound=Named)


class Ran(Named, Protocol):
    """A corpus case as a reading names it: its draft, its target, whether that is public."""

    @property
    def draft(self) -> str: ...

    @property
    def target(self) -> str: ...

    @property
    def target_synthesized(self) -> bool: ...


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


def reading(
    case: Ran,
    how: dict[str, Any],
    result: dict[str, Any],
    *,
    inputs: dict[str, str],
    stages: Sequence[str],
    details: dict[str, Any],
    artefact: str | None,
    not_reached: Sequence[str],
) -> dict[str, Any]:
    """One reading, its keys in the files' order: the case, ``how`` it ran (the engine's
    mode or algorithm), its ``inputs``, the outcome, the stage reached (in ``stages``' order),
    the stages passed and the exception, the engine's ``details``, then the ``artefact`` and
    what the harness never runs."""
    return {
        "name": case.name,
        "draft": case.draft,
        "target": case.target,
        "target_synthesized": case.target_synthesized,
        **how,
        "inputs": inputs,
        "outcome": result["outcome"],
        "stage_reached": stage_reached(result, stages),
        "stages_passed": list(result.get("stages_passed", [])),
        "exception": result.get("exception"),
        **details,
        "artefact": artefact,
        "not_reached": list(not_reached),
    }


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
