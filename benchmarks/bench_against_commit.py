"""Start-up and sweep against an older commit of this package, side by side.

Extracts ``drafting_config/`` as it was at ``--commit`` (default 00c7247, the start of
the round of issues that made the checker slower) into a temporary folder, writes both
trees' bytecode (an installed package has it; this machine sets
``PYTHONDONTWRITEBYTECODE``), and times, in alternating rounds, with the same interpreter
and dependencies:

* ``check`` on one bundled config (``examples/dflash-qwen3-4b``), a whole process;
* a sweep of ``--count`` configs (default 30,000; copies of the bundled examples, one
  model directory each, as :mod:`benchmarks.bench_sweep` writes them), a whole process.

Each ratio is the median over rounds of this tree's time over the old tree's (1.00x: as
fast; the target is at most 1.1x), in wall time (the target's measure) and, beside it, in
the CPU time each process used (user and system, ``resource.getrusage``), which a machine
shared with other work disturbs less.  ``--also REV`` times the package as it was at
another commit in the same rounds (the tree before a change: its before and after in one
run).

    python -m benchmarks.bench_against_commit [--commit REV] [--also REV] [--count N] [--rounds N]
"""

from __future__ import annotations

import argparse
import compileall
import io
import os
import resource
import subprocess
import tarfile
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from benchmarks.bench_sweep import write_configs
from benchmarks.timing import Rounds, python, report

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "dflash-qwen3-4b" / "config.json"
TARGET = 1.1


def extract(commit: str, into: Path) -> Path:
    """``drafting_config/`` as it was at ``commit``, under ``into``, with its bytecode."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", commit, "drafting_config"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    compileall.compile_dir(into / "drafting_config", quiet=1)
    return into


def environment(tree: Path) -> dict[str, str]:
    """The process environment that imports ``drafting_config`` from ``tree``, bytecode on
    (run from a folder other than the repository root, which ``-m`` would put first)."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(tree)
    return env


def _children_cpu() -> float:
    """The CPU seconds (user and system) of this process's children waited for so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def rounds(
    commands: Sequence[tuple[Sequence[str], Mapping[str, str]]], *, count: int, cwd: Path
) -> tuple[Rounds, Rounds]:
    """Wall seconds and CPU seconds (user and system) of each (command, environment), as
    whole processes, alternating."""
    times: list[list[float]] = [[] for _ in commands]
    cpu: list[list[float]] = [[] for _ in commands]
    for _ in range(count):
        for (command, env), series, used in zip(commands, times, cpu, strict=True):
            before = _children_cpu()
            start = time.perf_counter()
            subprocess.run(
                command,
                cwd=cwd,
                env=dict(env),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=False,  # an INVALID verdict exits 1; the time is what is measured
            )
            series.append(time.perf_counter() - start)
            used.append(_children_cpu() - before)
    return Rounds(tuple(map(tuple, times))), Rounds(tuple(map(tuple, cpu)))


def main(argv: Sequence[str] | None = None) -> list[bool]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--commit", default="00c7247")
    parser.add_argument("--also", action="append", default=[], metavar="REV")
    parser.add_argument("--count", type=int, default=30_000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    compileall.compile_dir(REPO / "drafting_config", quiet=1)
    results = []
    with tempfile.TemporaryDirectory() as folder:
        trees = [environment(extract(args.commit, Path(folder) / "old")), environment(REPO)]
        trees += [
            environment(extract(rev, Path(folder) / f"also-{index}"))
            for index, rev in enumerate(args.also)
        ]
        one = [python(), "-m", "drafting_config", "check", str(EXAMPLE)]
        timed = rounds([(one, env) for env in trees], count=args.rounds, cwd=Path(folder))
        results.append(("check, one config", timed))
        sweep_root = Path(folder) / "sweep"
        sweep_root.mkdir()
        paths = write_configs(sweep_root, args.count)
        sweep = [python(), "-m", "drafting_config", "check", "--no-tokenizer", "--no-weights"]
        sweep += paths
        timed = rounds([(sweep, env) for env in trees], count=args.rounds, cwd=sweep_root)
        results.append((f"sweep, {args.count:,} configs", timed))
    met = []
    for name, (wall, cpu) in results:
        ratio = wall.ratio(1, 0)
        before, after = wall.medians()[:2]
        met.append(ratio <= TARGET)
        print(
            report(
                name,
                ratio,
                f"<= {TARGET:g}x of {args.commit}",
                ratio <= TARGET,
                f"this tree {after * 1e3:.0f} ms, {args.commit} {before * 1e3:.0f} ms "
                f"(medians of {args.rounds} alternating rounds); CPU time {cpu.ratio(1, 0):.2f}x",
            )
        )
        for index, rev in enumerate(args.also, start=2):
            print(
                f"  {rev}: {wall.ratio(index, 0):.2f}x of {args.commit} "
                f"({wall.median(index) * 1e3:.0f} ms; CPU time {cpu.ratio(index, 0):.2f}x)"
            )
    return met


if __name__ == "__main__":
    main()
