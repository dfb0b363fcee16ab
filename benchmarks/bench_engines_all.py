"""sweep, every engine: ``--engine all`` against one sweep per engine.

``--engine all`` once ran one whole sweep per engine, each reading and parsing every file
again.  Now each draft's file is located, read and parsed once, and each engine judges
what was read.  Over 6,000 drafts (copies of the bundled examples, in one folder each,
against one target, no tokenizer), four contenders are timed in alternating rounds: both
engines in one sweep, vLLM alone, SGLang alone, and reading the files alone (locating and
parsing each ``config.json``, what the two single sweeps do twice).  It prints the median
over rounds of ``all / (vllm + sglang - read)`` (target: at most 1.1x).

    python -m benchmarks.bench_engines_all
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
from pathlib import Path

from benchmarks.timing import per_call_rounds, report
from drafting_config.draft.file import read_draft
from drafting_config.engines import ENGINES
from drafting_config.verdicts import CheckOptions, check_each, load

TARGET = 1.1
COUNT = 6_000
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SOURCES = sorted(path.parent for path in EXAMPLES.glob("*/config.json"))
TARGET_MODEL = EXAMPLES / "pair-qwen3-4b" / "target"


def write_drafts(root: Path, count: int) -> list[str]:
    """``count`` model directories, each a copy of a bundled example's ``config.json``."""
    paths = []
    for index in range(count):
        folder = root / f"draft-{index:05d}"
        folder.mkdir(parents=True)
        shutil.copy(SOURCES[index % len(SOURCES)] / "config.json", folder / "config.json")
        paths.append(str(folder))
    return paths


def main() -> list[bool]:
    options = CheckOptions(target=str(TARGET_MODEL), check_tokenizer=False)
    with tempfile.TemporaryDirectory() as folder:
        paths = write_drafts(Path(folder), COUNT)
        timed = per_call_rounds(
            [
                lambda: list(check_each(paths, options, tuple(ENGINES))),
                lambda: list(check_each(paths, options, ("vllm",))),
                lambda: list(check_each(paths, options, ("sglang",))),
                lambda: [read_draft(load(path).config) for path in paths],
            ],
            rounds=5,
        )
    both, vllm, sglang, read = timed.seconds
    ratio = statistics.median(
        a / (v + s - r) for a, v, s, r in zip(both, vllm, sglang, read, strict=True)
    )
    medians = [seconds * 1000 for seconds in timed.medians()]
    print(
        report(
            "sweep, --engine all",
            ratio,
            f"<= {TARGET:g}x",
            ratio <= TARGET,
            f"{COUNT:,} drafts: all {medians[0]:.0f} ms, vllm {medians[1]:.0f} ms, "
            f"sglang {medians[2]:.0f} ms, reading {medians[3]:.0f} ms",
        )
    )
    return [ratio <= TARGET]


if __name__ == "__main__":
    raise SystemExit(0 if all(main()) else 1)
