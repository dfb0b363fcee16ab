"""Run every launch case (a user's launch line against a draft) through each engine's own
config stage, per release; record the readings.

    python -m tools.launch_readings [--engine ENGINE] [--release VERSION] [--case NAME]

The cases are :data:`CASES` (``tests/real_configs/launch_cases.json``): each a draft (an
example folder or a corpus file), a target, the engine it launches and the launch line as a
user types it, with the launch rule it exercises.  Each case runs through the config stage of
every release its engine's harness has an environment for (the row's ``config_stage`` of
:func:`tools.engines.engine_tools`: ``tools/engines/ENGINE/harness/config_stage.py``, the
engine's own parser and its resolution of the speculative configuration), in one served
process per release, the draft and target named in the line replaced by scratch folders
holding their ``config.json`` (``tools/harness/launch.py: local_argv``).  A reading says
whether the engine accepted the launch at config or refused it (the exception's type and
message), and, as ``tools.serve_readings`` marks them, whether a failure is an artefact of
this machine rather than a refusal.  The readings go to :data:`READINGS` (``engine ->
release -> [reading]``), compared with the checker's launch findings by
``tests/test_launch_readings.py``.
"""

from __future__ import annotations

import contextlib
import json
import shlex
import sys
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any, Final

from tools.engines import engine_tools
from tools.harness import process
from tools.serve_readings import ROOT, TIMEOUT, _scrubbed, artefact, record

__all__ = ["CASES", "READINGS", "Case", "cases", "config_file", "readings"]

CASES: Final = ROOT / "tests" / "real_configs" / "launch_cases.json"
"""The launch cases: ``[{name, engine, rule, draft, target, launch, why}]``."""
READINGS: Final = ROOT / "tests" / "real_configs" / "launch_readings.json"
"""The recorded readings: ``{ENGINE: {RELEASE: [reading, ...]}}``."""

Case = dict[str, Any]
"""A launch case, as the file holds it (its ``running_wrong`` and ``disagree``: release to why)."""

_STOPPED: Final[dict[str, Any]] = {
    "outcome": "crashed",
    "exception": {"type": "crashed", "message": "the harness's server stopped before this case"},
}


def cases(engine: str | None = None, only: Collection[str] | None = None) -> list[Case]:
    """The launch cases (of ``engine``; ``only``: those, by name), in the file's order."""
    every: list[Case] = json.loads(CASES.read_text(encoding="utf-8"))
    return [
        case
        for case in every
        if engine in (None, case["engine"]) and (only is None or case["name"] in only)
    ]


def config_file(path: str) -> Path:
    """The ``config.json`` a case's draft or target names: the file, or the folder's."""
    at = ROOT / path
    return at / "config.json" if at.is_dir() else at


def readings(
    engine: str, release: str, only: Collection[str] | None = None
) -> Iterator[dict[str, Any]]:
    """Each launch case of ``engine`` read by ``release``'s config stage (``only``: those
    cases, by name), in one served process."""
    chosen = cases(engine, only)
    if not chosen:
        return
    requests: list[process.Request] = [
        (
            config_file(case["draft"]),
            config_file(case["target"]),
            {"argv": shlex.split(case["launch"]), "names": [case["draft"], case["target"]]},
        )
        for case in chosen
    ]
    server, environment, prefix = engine_tools()[engine].config_stage.server(release)
    # Closed when this generator is, so the server stops and its scratch folder goes then,
    # not when the garbage collector finds them.
    with contextlib.closing(
        process.run_served(server, environment, requests, prefix=prefix, timeout=TIMEOUT)
    ) as results:
        for case in chosen:
            # A server that stops answers no more: the cases after its crash report say so.
            result = next(results, None) or _STOPPED
            passed = result["outcome"] == "passed"
            refused = result["outcome"] == "failed"  # the engine's parser or configuration raised
            yield {
                "name": case["name"],
                "outcome": "accepted" if passed else "refused" if refused else result["outcome"],
                "failed_stage": result.get("failed_stage"),
                "exception": result.get("exception"),
                "speculative": _scrubbed(result.get("speculative"), prefix),
                "artefact": None if passed else artefact(engine, result),
            }


def _accepted(runs: list[dict[str, Any]]) -> str:
    accepted = sum(run["outcome"] == "accepted" for run in runs)
    return f"{accepted} of {len(runs)} launches accepted"


def main(argv: list[str] | None = None) -> int:
    return record(READINGS, readings, _accepted, __doc__.splitlines()[0], argv)


if __name__ == "__main__":
    sys.exit(main())
