"""Timing helpers shared by the benchmark scripts: medians of repeated runs, ratio lines."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
import timeit
from collections.abc import Callable, Sequence


def per_call_seconds(function: Callable[[], object], *, repeats: int = 15) -> float:
    """Median over ``repeats`` rounds of the time one call takes (rounds of ~50 ms each)."""
    timer = timeit.Timer(function)
    number, _ = timer.autorange()
    number = max(1, number // 4)
    return statistics.median(t / number for t in timer.repeat(repeat=repeats, number=number))


def interleaved_process_seconds(
    commands: Sequence[Sequence[str]], *, repeats: int = 15
) -> list[float]:
    """Median wall time of each command, run in turn so that machine noise hits all alike."""
    times: list[list[float]] = [[] for _ in commands]
    for _ in range(repeats):
        for index, command in enumerate(commands):
            start = time.perf_counter()
            subprocess.run(
                command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True
            )
            times[index].append(time.perf_counter() - start)
    return [statistics.median(t) for t in times]


def report(name: str, ratio: float, target: str, met: bool, detail: str) -> str:
    """One result line: the ratio, its target and whether it is met, then the medians."""
    verdict = "met" if met else "NOT MET"
    return f"{name:<28} {ratio:8.2f}x  (target {target}: {verdict})  {detail}"


def python() -> str:
    """The interpreter running the benchmarks, so subprocesses use the same environment."""
    return sys.executable
