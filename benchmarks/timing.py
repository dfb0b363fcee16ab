"""Timing helpers shared by the benchmark scripts.

Contenders are timed in alternating rounds (baseline, ours, baseline, ours, ...)
so that load on the machine hits all of them alike, and ratios are medians of
per-round ratios: a slow spell that lasts a round cancels out.

Whole processes run with this package's bytecode written first
(:func:`compile_bytecode`), as an installed package has it.
"""

from __future__ import annotations

import compileall
import functools
import statistics
import subprocess
import sys
import time
import timeit
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Rounds:
    """Seconds taken by each contender in each round (``seconds[contender][round]``)."""

    seconds: tuple[tuple[float, ...], ...]

    def median(self, contender: int) -> float:
        """The contender's median seconds."""
        return statistics.median(self.seconds[contender])

    def medians(self) -> list[float]:
        """Every contender's median seconds, in order."""
        return [statistics.median(series) for series in self.seconds]

    def ratio(self, numerator: int, denominator: int) -> float:
        """The median over rounds of ``numerator``'s time over ``denominator``'s."""
        pairs = zip(self.seconds[numerator], self.seconds[denominator], strict=True)
        return statistics.median(a / b for a, b in pairs)


def per_call_rounds(functions: Sequence[Callable[[], object]], *, rounds: int = 15) -> Rounds:
    """Seconds per call of each function, in alternating rounds of ~50 ms per function."""
    timers = [timeit.Timer(function) for function in functions]
    numbers = [max(1, timer.autorange()[0] // 4) for timer in timers]
    times: list[list[float]] = [[] for _ in functions]
    for _ in range(rounds):
        for timer, number, series in zip(timers, numbers, times, strict=True):
            series.append(timer.timeit(number) / number)
    return Rounds(tuple(map(tuple, times)))


@functools.cache
def compile_bytecode() -> None:
    """Write the bytecode of ``drafting_config`` and ``benchmarks``, as pip does on install.

    The baselines' packages were installed with their bytecode. An editable install
    on a machine that sets ``PYTHONDONTWRITEBYTECODE`` (this one does) would compile
    every module of ours again in each fresh process, about 40 ms that no installed
    copy pays, and the import, cli and sweep figures would measure the compiler.
    """
    root = Path(__file__).resolve().parent.parent
    for package in ("drafting_config", "benchmarks"):
        compileall.compile_dir(root / package, quiet=1)


def process_rounds(
    commands: Sequence[Sequence[str]], *, rounds: int = 15, cwd: str | Path | None = None
) -> Rounds:
    """Wall seconds of each command, run as a whole process, in alternating rounds."""
    compile_bytecode()
    times: list[list[float]] = [[] for _ in commands]
    for _ in range(rounds):
        for command, series in zip(commands, times, strict=True):
            start = time.perf_counter()
            subprocess.run(
                command,
                cwd=cwd,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=True,
            )
            series.append(time.perf_counter() - start)
    return Rounds(tuple(map(tuple, times)))


def report(name: str, ratio: float, target: str, met: bool, detail: str) -> str:
    """One result line: the ratio, its target and whether it is met, then the medians."""
    verdict = "met" if met else "NOT MET"
    return f"{name:<28} {ratio:8.2f}x  (target {target}: {verdict})  {detail}"


def python() -> str:
    """The interpreter running the benchmarks, so subprocesses use the same environment."""
    return sys.executable
