"""Run every serve command the checker prints for the corpus and the bundled examples through
each engine's own config stage, per release; record the readings.

    python -m tools.serve_readings [--engine ENGINE] [--release VERSION] [--case NAME]

For each case of the harnesses' corpus (:data:`tools.harness.corpus.CASES`, every
corpus draft and bundled example with its target) and each release the harness has an
environment for, the checker's verdict of that release (``check(draft, target=target,
engine=RELEASE)``) prints a serve command (``Verdict.serve_with``) where it passes the draft;
the command runs through the release's config stage (``tools/engines/ENGINE/harness/
config_stage.py``: the engine's own parser of its serve command and its resolution of the
engine's configuration), in one served process per release (a forked child per command). A
verdict that prints no command is recorded with ``"command": null``. What is each engine's
own (its releases, its server, how to read a printed command, which failures are artefacts
of this machine) is its row's ``config_stage`` (:func:`tools.engines.engine_tools`, from
``tools/engines/ENGINE/harness/serve_readings.py``). The readings go to :data:`READINGS`
(``engine -> release -> [reading]``), read by ``tests/test_serve_commands.py``.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import Any, Final

from drafting_config import check
from drafting_config.engines import RELEASES, Engine
from tools.engines import engine_tools
from tools.harness import process

ROOT: Final = Path(__file__).resolve().parents[1]
READINGS: Final = ROOT / "tests" / "real_configs" / "serve_readings.json"
"""The recorded readings: ``{ENGINE: {RELEASE: [reading, ...]}}``."""
TIMEOUT: Final = 600.0


def printed_names(engine: str, argv: list[str]) -> tuple[str, str]:
    """The draft and target a printed command of ``engine`` names (the engine's own reading,
    its row's ``config_stage.printed_names``)."""
    return engine_tools()[engine].config_stage.printed_names(argv)


def releases() -> dict[str, tuple[str, ...]]:
    """The releases each engine's harness has an environment for, oldest first, in the order
    of :func:`tools.engines.engine_tools`."""
    return {name: row.config_stage.releases() for name, row in engine_tools().items()}


def _cases(only: Collection[str] | None) -> list[tuple[str, str, str]]:
    from tools.harness.corpus import CASES

    return [
        (case.name, case.draft, case.target) for case in CASES if only is None or case.name in only
    ]


def readings(
    engine: str, release: str, only: Collection[str] | None = None
) -> Iterator[dict[str, Any]]:
    """Each case's reading for ``engine`` ``release`` (``only``: those cases, by name), in
    one served process: the printed command and what the config stage made of it."""
    printed: list[tuple[dict[str, Any], process.Request | None]] = []
    for name, draft, target in _cases(only):
        verdict = check(ROOT / draft, target=ROOT / target, engine=_engine(engine, release))
        # The command as a user in the repository's root would have it printed.
        command = _relative(verdict.serve_with)
        reading: dict[str, Any] = {"name": name, "draft": draft, "target": target}
        reading["command"] = command
        if command is None:
            printed.append((reading, None))
            continue
        argv = shlex.split(command)
        fields = {"argv": argv, "names": list(printed_names(engine, argv))}
        printed.append((reading, (ROOT / draft, ROOT / target, fields)))
    requests = [request for _, request in printed if request is not None]
    server, environment, prefix = engine_tools()[engine].config_stage.server(release)
    served = (
        process.run_served(server, environment, requests, prefix=prefix, timeout=TIMEOUT)
        if requests
        else None
    )
    results = iter(served or ())
    try:
        for reading, request in printed:
            if request is not None:
                result = next(results)
                reading.update(
                    outcome=result["outcome"],
                    placeholder=result.get("placeholder", False),
                    speculative=_scrubbed(result.get("speculative"), prefix),
                    exception=result.get("exception"),
                    artefact=None if result["outcome"] == "passed" else artefact(engine, result),
                )
            yield reading
    finally:
        # The server stops and its scratch folder goes when this generator is done or
        # closed, not when the garbage collector finds them.
        if served is not None:
            served.close()


def artefact(engine: str, result: dict[str, Any]) -> str | None:
    """Why a failed config stage is an artefact of this machine, not a refusal of the command:
    the engine's own reading (its row's ``config_stage.artefact``, from its harness's
    ``readings.artefact``). ``None`` for a refusal."""
    return engine_tools()[engine].config_stage.artefact(result)


def _engine(engine: str, release: str) -> Engine:
    """The ``engine=`` name of ``engine`` ``release``; ``ValueError`` for one not shipped."""
    for name in RELEASES:
        if name == f"{engine}=={release}":
            return name
    raise ValueError(f"{engine} {release} is not a shipped release")


def _scrubbed(value: Any, prefix: str) -> Any:
    """``value`` with the scratch folders written ``<draft>`` and ``<target>``: two runs of
    one command read the same."""
    if value is None:
        return None
    pattern = rf"[^\s'\"]*/{re.escape(prefix)}[A-Za-z0-9_]+/run-[0-9]+/(draft|target)"
    return json.loads(re.sub(pattern, r"<\1>", json.dumps(value)))


def _relative(command: str | None) -> str | None:
    """The command with the repository's root left out of its paths, as printed for a user
    whose working directory it is."""
    return None if command is None else command.replace(f"{ROOT}/", "")


def record(
    readings_file: Path,
    take: Callable[[str, str, Collection[str] | None], Iterator[dict[str, Any]]],
    summary: Callable[[list[dict[str, Any]]], str],
    description: str,
    argv: list[str] | None = None,
) -> int:
    """A recording command: ``take(engine, release, only)`` on each engine's harness release
    (``--engine``, ``--release`` narrow them), each release's readings written into
    ``readings_file`` as soon as taken, with ``summary`` of them printed; with ``--case``,
    that case's readings printed and nothing recorded."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--engine", choices=tuple(engine_tools()))
    parser.add_argument("--release")
    parser.add_argument("--case", help="one case, by name (printed, not recorded)")
    args = parser.parse_args(argv)
    recorded: dict[str, dict[str, list[dict[str, Any]]]] = (
        json.loads(readings_file.read_text(encoding="utf-8")) if readings_file.exists() else {}
    )
    for engine, shipped in releases().items():
        if args.engine not in (None, engine):
            continue
        for release in shipped:
            if args.release not in (None, release):
                continue
            runs = list(take(engine, release, None if args.case is None else [args.case]))
            print(f"{engine} {release}: {summary(runs)}", flush=True)
            if args.case is not None:
                print(json.dumps(runs, indent=2))
                continue
            recorded.setdefault(engine, {})[release] = runs
            readings_file.write_text(json.dumps(recorded, indent=1) + "\n", encoding="utf-8")
    return 0


def _passed(runs: list[dict[str, Any]]) -> str:
    passed = sum(run.get("outcome") == "passed" for run in runs)
    commands = sum(run["command"] is not None for run in runs)
    return f"{passed} of {commands} printed commands passed"


def main(argv: list[str] | None = None) -> int:
    return record(READINGS, readings, _passed, __doc__.splitlines()[0], argv)


if __name__ == "__main__":
    sys.exit(main())
