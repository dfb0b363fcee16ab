"""``drafting-config check`` over several processes: ``--jobs``, and a sweep large enough.

The parallel output must be the single process's, byte for byte; a worker that fails
or dies is an internal error, never a hang; Ctrl-C still exits 130 quietly.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from drafting_config.cli import run as cli
from drafting_config.cli.run import EXIT_INTERRUPTED, EXIT_USAGE, PARALLEL_MINIMUM, main
from tests.conftest import INVALID_EXAMPLES, REPO, VALID_EXAMPLES

pytestmark = pytest.mark.skipif(
    len(os.sched_getaffinity(0)) < 2 if hasattr(os, "sched_getaffinity") else True,
    reason="a parallel sweep needs two CPUs",
)


@pytest.fixture(autouse=True)
def _from_the_repository(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))


def mixed_sweep(tmp_path: Path) -> list[str]:
    """Valid and invalid drafts, warnings, unreadable paths: over the threshold, repeated."""
    warned = tmp_path / "warned"
    warned.mkdir()
    (warned / "config.json").write_text(
        json.dumps({"mask_token_id": 5, "pard_token": 6, "pad_token_id": 5})
    )
    (tmp_path / "empty").mkdir()
    kinds = [
        *(str(p.relative_to(REPO)) for p in VALID_EXAMPLES + INVALID_EXAMPLES),
        str(warned),
        str(tmp_path / "empty"),
        str(tmp_path / "missing" / "config.json"),
        "examples",
    ]
    return [kinds[i % len(kinds)] for i in range(PARALLEL_MINIMUM + 37)]


def record_pids(monkeypatch: pytest.MonkeyPatch, log: Path) -> None:
    """Make each process that renders a chunk write its pid to ``log``."""
    render = cli._render

    def recorded(paths: Sequence[str], args: argparse.Namespace) -> cli._Rendered:
        with log.open("a") as file:
            file.write(f"{os.getpid()}\n")
        return render(paths, args)

    monkeypatch.setattr(cli, "_render", recorded)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize(
    "options",
    [(), ("--json",), ("--strict",), ("--json", "--strict"), ("--no-tokenizer", "--no-weights")],
)
def test_a_parallel_sweep_prints_what_one_process_prints(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    options: tuple[str, ...],
) -> None:
    paths = mixed_sweep(tmp_path)
    log = tmp_path / "pids"
    record_pids(monkeypatch, log)
    alone = run(capsys, "check", "--jobs", "1", *options, *paths)
    assert len(set(log.read_text().split())) == 1
    log.unlink()
    spread = run(capsys, "check", "--jobs", "2", *options, *paths)
    assert len(set(log.read_text().split())) == 2  # the main process and one worker
    assert spread == alone
    assert alone[0] == 1
    assert alone[2] == ""
    if "--json" in options:
        items = json.loads(alone[1])
        assert [item["path"] for item in items] == paths
        assert {item["ok"] for item in items} == {True, False}
    else:
        summary = alone[1].splitlines()[-1]
        assert summary.startswith(f"{len(paths)} checked: ")


def test_the_default_spreads_a_large_sweep_and_not_a_small_one(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    log = tmp_path / "pids"
    record_pids(monkeypatch, log)
    large = ["examples/dflash-qwen3-4b"] * PARALLEL_MINIMUM
    assert run(capsys, "check", "--no-weights", *large)[0] == 0
    assert len(set(log.read_text().split())) == 2
    log.unlink()
    small = large[: PARALLEL_MINIMUM - 1]
    assert run(capsys, "check", "--no-weights", "--jobs", "2", *small)[0] == 0
    assert len(set(log.read_text().split())) == 1


def fail_in_workers(monkeypatch: pytest.MonkeyPatch, failure: Callable[[], None]) -> None:
    parent = os.getpid()
    render = cli._render

    def failing(paths: Sequence[str], args: argparse.Namespace) -> cli._Rendered:
        if os.getpid() != parent:
            failure()
        return render(paths, args)

    monkeypatch.setattr(cli, "_render", failing)


def test_a_worker_that_dies_is_an_internal_error_not_a_hang(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    fail_in_workers(monkeypatch, lambda: os._exit(3))
    status, out, err = run(capsys, "check", "--jobs", "2", *["examples"] * PARALLEL_MINIMUM)
    assert (status, out) == (1, "")
    assert err == (
        "drafting-config: internal error: RuntimeError: a worker process ended (exit status 3) "
        "without its verdicts (please report this, with the file that caused it)\n"
    )


def unpicklable_error() -> Exception:
    class LocalError(Exception):  # a local class: pickle cannot name it
        pass

    return LocalError("no layers")


@pytest.mark.parametrize(
    ("error", "reported"),
    [
        (KeyError("layer_types"), "KeyError: 'layer_types'"),
        (unpicklable_error(), "RuntimeError: LocalError: no layers"),  # sent as its text
    ],
)
def test_a_worker_that_raises_is_an_internal_error_naming_its_exception(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    error: Exception,
    reported: str,
) -> None:
    def broken() -> None:
        raise error

    fail_in_workers(monkeypatch, broken)
    status, out, err = run(capsys, "check", "--jobs", "2", *["examples"] * PARALLEL_MINIMUM)
    assert (status, out) == (1, "")
    assert err.startswith(f"drafting-config: internal error: {reported} (please report this")


@pytest.mark.parametrize("value", ["0", "-1", "two", "1.5", ""])
def test_jobs_must_be_a_positive_whole_number(
    capsys: pytest.CaptureFixture[str], value: str
) -> None:
    status, out, err = run(capsys, "check", f"--jobs={value}", "examples/dflash-qwen3-4b")
    assert (status, out) == (EXIT_USAGE, "")
    assert err.startswith("usage: drafting-config check")
    assert err.endswith(
        f"argument --jobs: expected a whole number of processes, at least 1; got {value!r}\n"
    )


WAITING_WORKER = """\
import os, signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)  # whatever was inherited
from drafting_config import command
from drafting_config.cli import run as cli
parent, render = os.getpid(), cli._render
def render_or_wait(paths, args):
    if os.getpid() != parent:  # a worker: say so, and how it takes SIGINT; then sleep
        with open(sys.argv[1] + ".tmp", "w") as file:
            ignored = signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            file.write(f"{os.getpid()} {ignored}")
        os.rename(sys.argv[1] + ".tmp", sys.argv[1])
        time.sleep(120)
    return render(paths, args)
cli._render = render_or_wait
sys.exit(command.main(sys.argv[2:]))
"""
"""Run the command (argv[2:]) with Ctrl-C's default handler, its workers held asleep."""


@pytest.mark.slow
def test_ctrl_c_during_a_parallel_sweep_exits_130_and_stops_the_workers(tmp_path: Path) -> None:
    ready = tmp_path / "worker-pid"
    listing = tmp_path / "paths"
    listing.write_text("examples/dflash-qwen3-4b\n" * PARALLEL_MINIMUM)
    command = [sys.executable, "-c", WAITING_WORKER, str(ready), "check", "--jobs", "2", "-"]
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    with listing.open("rb") as paths:
        process = subprocess.Popen(
            command,
            stdin=paths,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=REPO,
            env=environment,
            start_new_session=True,  # its own process group, as a terminal's foreground job
        )
    try:
        deadline = time.monotonic() + 60
        while not ready.exists() and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.02)
        pid, ignored = ready.read_text().split()
        worker = int(pid)
        assert ignored == "True"  # the worker leaves Ctrl-C to the main process
        os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C does: the whole group
        out, err = process.communicate(timeout=30)
    finally:
        with contextlib.suppress(ProcessLookupError):  # the group: the worker too, if left
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    assert process.returncode == EXIT_INTERRUPTED
    assert (out, err) == (b"", b"")
    with pytest.raises(ProcessLookupError):  # stopped and reaped, not left asleep
        os.kill(worker, 0)
