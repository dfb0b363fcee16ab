"""Start a harness's stage runner and read its report: the part of ``harness.py`` both
engines share.

A run copies the two ``config.json`` files into folders of their own under a scratch folder
(``<prefix>…``), starts the stage runner in the harness's environment and reads the line
that starts with :data:`RESULT_PREFIX`. A run past its timeout is reported with
``"outcome": "timeout"``; one that dies without reporting (a crash in native code), or a
server that stops, with ``"outcome": "crashed"``. What each engine puts in the command, the
request and the environment is its own ``harness.py``'s.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Generator, Iterable, Mapping
from pathlib import Path
from typing import Any

from tools.harness.serve import RESULT_PREFIX

__all__ = [
    "RESULT_PREFIX",
    "Request",
    "failure",
    "lay_out",
    "run_once",
    "run_served",
    "scrub",
]

Request = tuple[Path, Path, dict[str, Any]]
"""One served run: the draft's and target's ``config.json`` and the engine's fields of the
run (sent to the server between the two folders and the timeout; a failure report names the
run by them)."""


def _scratch(prefix: str) -> re.Pattern[str]:
    return re.compile(rf"[^\s'\"]*/{re.escape(prefix)}[A-Za-z0-9_]+(?:/run-[0-9]+)?")


def scrub(result: dict[str, Any], prefix: str) -> dict[str, Any]:
    """``result`` with the run's scratch folder (``…/<prefix>XXXX``, with its ``run-N``)
    written ``<scratch>`` in its exception's strings, so two runs of one case report the
    same text."""
    exception = result.get("exception")
    if isinstance(exception, dict):
        pattern = _scratch(prefix)
        result["exception"] = {
            key: pattern.sub("<scratch>", value) if isinstance(value, str) else value
            for key, value in exception.items()
        }
    return result


def lay_out(folder: Path, draft: Path, target: Path) -> tuple[Path, Path]:
    """``folder/draft`` and ``folder/target``, made, each holding a copy of its file as
    ``config.json``."""
    draft_dir, target_dir = folder / "draft", folder / "target"
    for source, destination in ((draft, draft_dir), (target, target_dir)):
        destination.mkdir(parents=True)
        shutil.copyfile(source, destination / "config.json")
    return draft_dir, target_dir


def failure(outcome: str, fields: Mapping[str, Any], detail: str) -> dict[str, Any]:
    """The report of a run that reported nothing (``timeout``, ``crashed``)."""
    return {
        "outcome": outcome,
        **fields,
        "stages_passed": [],
        "failed_stage": None,
        "exception": {"type": outcome, "message": detail, "where": ""},
    }


def run_once(
    command: Callable[[Path, Path], list[str]],
    environment: Callable[[Path], dict[str, str]],
    draft: Path,
    target: Path,
    *,
    prefix: str,
    fields: Mapping[str, Any],
    timeout: float,
) -> dict[str, Any]:
    """The report of one stage runner process: ``command(draft_dir, target_dir)`` run in a
    scratch folder with ``environment(scratch)``."""
    with tempfile.TemporaryDirectory(prefix=prefix) as scratch:
        folder = Path(scratch)
        draft_dir, target_dir = lay_out(folder, draft, target)
        try:
            completed = subprocess.run(
                command(draft_dir, target_dir),
                cwd=folder,
                env=environment(folder),
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return failure("timeout", fields, f"no report within {timeout:g} s")
    for line in reversed(completed.stdout.splitlines()):
        if line.startswith(RESULT_PREFIX):
            result: dict[str, Any] = json.loads(line.removeprefix(RESULT_PREFIX))
            return scrub(result, prefix)
    tail = (completed.stdout + completed.stderr).strip().splitlines()[-5:]
    return failure("crashed", fields, f"exit {completed.returncode}: " + " | ".join(tail))


def run_served(
    command: list[str],
    environment: Callable[[Path], dict[str, str]],
    requests: Iterable[Request],
    *,
    prefix: str,
    timeout: float,
) -> Generator[dict[str, Any], None, None]:
    """The reports of one ``stage_runner.py --serve`` process (``command``) fed ``requests``
    one JSON object a line, yielded in turn; a crash report, then no more, once it stops."""
    with tempfile.TemporaryDirectory(prefix=prefix) as scratch:
        folder = Path(scratch)
        log = (folder / "serve.log").open("w", encoding="utf-8")
        server = subprocess.Popen(
            command,
            cwd=folder,
            env=environment(folder),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
        )
        assert server.stdin is not None
        assert server.stdout is not None
        try:
            for index, (draft, target, fields) in enumerate(requests):
                draft_dir, target_dir = lay_out(folder / f"run-{index}", draft, target)
                request = {
                    "draft": str(draft_dir),
                    "target": str(target_dir),
                    **fields,
                    "timeout": timeout,
                }
                try:
                    server.stdin.write(json.dumps(request) + "\n")
                    server.stdin.flush()
                except BrokenPipeError:
                    yield failure("crashed", fields, "the harness's server stopped")
                    return
                for line in server.stdout:
                    if line.startswith(RESULT_PREFIX):
                        yield scrub(json.loads(line.removeprefix(RESULT_PREFIX)), prefix)
                        break
                else:
                    yield failure("crashed", fields, "the harness's server stopped")
                    return
        finally:
            with contextlib.suppress(BrokenPipeError):
                server.stdin.close()
            server.wait()
            server.stdout.close()
            log.close()
