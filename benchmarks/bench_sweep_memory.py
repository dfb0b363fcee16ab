"""sweep memory: the peak memory of ``drafting-config check`` over 2,000 and 20,000 drafts.

A sweep streams its verdicts (each draft's is written as soon as it is known), so its peak
memory must not grow with the number of drafts: a million-draft cache sweep must fit where
a thousand-draft one does.  Writes 20,000 model directories of distinct configs (copies of
the bundled examples, each with its own name and one size changed), then runs the command
over the first 2,000 and over all 20,000, with the paths on standard input (``-0``), in
alternating rounds, reading each process's peak resident set (``ru_maxrss`` of
``os.wait4``).  It prints the medians, the median of the per-round ratios of 20,000's peak
to 2,000's, and the growth per draft, the difference of the medians over the 18,000 more
drafts (target: at most 512 bytes a draft, where the list of paths read from standard
input takes about 150; the collector off for the whole run once took 3 to 8 KB), for
``--json`` and for the text output.

With ``--speed``, it also times the 20,000-draft ``--json`` sweep of the command as it is
against the same command with the cyclic garbage collector off for the whole run (how
``cli/run.py`` ran sweeps before, for speed): the median of the per-round ratios of the
time with the collector off to ours (at least 0.9x: ours no more than about 10% slower).

    python -m benchmarks.bench_sweep_memory [--speed]
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks.timing import compile_bytecode, python, report

TARGET = 512
"""The most the peak may grow per draft, in bytes."""
SPEED_TARGET = 0.9
SMALL, LARGE = 2_000, 20_000
ROUNDS = 3
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

COLLECTOR_OFF = (
    "import gc, sys; from drafting_config.cli import run; "
    "gc.disable(); gc.enable = lambda: None; "  # off for the whole run, whatever run does
    "sys.exit(run.main(sys.argv[1:]))"
)
"""The command with the cyclic collector off from start to end: the old ``_collector_paused``."""


def write_configs(root: Path, count: int) -> list[bytes]:
    """``count`` model directories of distinct configs under ``root``; their relative
    paths, as ``-0`` reads them."""
    sources = [json.loads(p.read_text()) for p in sorted(EXAMPLES.glob("*/config.json"))]
    paths = []
    for index in range(count):
        source = sources[index % len(sources)]
        config = dict(source, _name_or_path=f"org/drafter-{index}")
        if isinstance(config.get("max_position_embeddings"), int):
            config["max_position_embeddings"] += index  # distinct values, not one interned
        folder = root / f"drafter-{index:05d}"
        folder.mkdir()
        (folder / "config.json").write_text(json.dumps(config, indent=2))
        paths.append(f"{folder.name}/config.json".encode())
    return paths


def run_measured(command: Sequence[str], paths: list[bytes], cwd: Path) -> tuple[float, int]:
    """Run ``command`` with ``paths`` NUL-separated on standard input, its output
    discarded; its wall seconds and peak resident set in KiB."""
    with tempfile.TemporaryFile() as stdin:
        stdin.write(b"\0".join(paths))
        stdin.seek(0)
        start = time.perf_counter()
        process = subprocess.Popen(command, cwd=cwd, stdin=stdin, stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in {0, 1}:
        raise SystemExit(f"{command[:3]} exited {process.returncode}")
    return seconds, usage.ru_maxrss


def memory(script: str, root: Path, paths: list[bytes], *options: str) -> bool:
    """The peak-memory rounds of one output format; whether the target is met."""
    command = [script, "check", "-0", "--no-tokenizer", "--no-weights", *options, "-"]
    peaks: tuple[list[int], list[int]] = ([], [])
    for _ in range(ROUNDS):
        for count, series in zip((SMALL, LARGE), peaks, strict=True):
            series.append(run_measured(command, paths[:count], root)[1])
    ratio = statistics.median(large / small for small, large in zip(*peaks, strict=True))
    small_kib, large_kib = (statistics.median(series) for series in peaks)
    per_draft = (large_kib - small_kib) * 1024 / (LARGE - SMALL)
    print(
        report(
            f"sweep memory {' '.join(options) or 'text'}",
            ratio,
            f"growth <= {TARGET} B a draft",
            per_draft <= TARGET,
            f"{SMALL:,} drafts {small_kib / 1024:.1f} MB, {LARGE:,} drafts "
            f"{large_kib / 1024:.1f} MB (medians): {per_draft:.0f} B a draft",
        )
    )
    return per_draft <= TARGET


def speed(script: str, root: Path, paths: list[bytes]) -> bool:
    """The 20,000-draft sweep as it is against the collector off for the whole run."""
    options = ["check", "-0", "--json", "--no-tokenizer", "--no-weights", "-"]
    ours = [script, *options]
    off = [python(), "-c", COLLECTOR_OFF, *options]
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(ROUNDS):
        for command, series in zip((off, ours), times, strict=True):
            series.append(run_measured(command, paths, root)[0])
    ratio = statistics.median(o / s for o, s in zip(*times, strict=True))
    off_s, ours_s = (statistics.median(series) for series in times)
    print(
        report(
            "sweep speed, collector on",
            ratio,
            f">= {SPEED_TARGET:g}x of the collector off's speed",
            ratio >= SPEED_TARGET,
            f"{LARGE:,} drafts: ours {ours_s:.1f} s, collector off {off_s:.1f} s (medians)",
        )
    )
    return ratio >= SPEED_TARGET


def main(argv: Sequence[str] = ()) -> list[bool]:
    script = shutil.which("drafting-config")
    if script is None:
        raise SystemExit("drafting-config is not installed: pip install -e '.[dev]'")
    compile_bytecode()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        paths = write_configs(root, LARGE)
        results = [memory(script, root, paths, "--json"), memory(script, root, paths)]
        if "--speed" in argv:
            results.append(speed(script, root, paths))
    return results


if __name__ == "__main__":
    raise SystemExit(0 if all(main(sys.argv[1:])) else 1)
