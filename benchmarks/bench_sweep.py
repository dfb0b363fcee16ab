"""sweep: one ``drafting-config check --json`` over 10,000 config.json files.

Writes 10,000 model directories (copies of the bundled examples, varied) to a
temporary folder, then times the whole command, process start included, and
checks its report. Throughput is configs per second of wall time (median).

    python -m benchmarks.bench_sweep
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks.timing import report

TARGET = 25_000
COUNT = 10_000
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def write_configs(root: Path) -> list[str]:
    sources = [json.loads(p.read_text()) for p in sorted(EXAMPLES.glob("*/config.json"))]
    paths = []
    for index in range(COUNT):
        config = dict(sources[index % len(sources)], _name_or_path=f"org/drafter-{index}")
        folder = root / f"drafter-{index:05d}"
        folder.mkdir()
        (folder / "config.json").write_text(json.dumps(config, indent=2))
        paths.append(f"{folder.name}/config.json")
    return paths


def main() -> list[bool]:
    script = shutil.which("drafting-config")
    if script is None:
        raise SystemExit("drafting-config is not installed: pip install -e '.[dev]'")
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        paths = write_configs(root)
        times = []
        for _ in range(9):
            start = time.perf_counter()
            result = subprocess.run(
                [script, "check", "--json", "--no-tokenizer", *paths],
                cwd=root,
                capture_output=True,
                check=True,
            )
            times.append(time.perf_counter() - start)
        report_items = json.loads(result.stdout)
    assert len(report_items) == COUNT
    assert all(item["ok"] for item in report_items)
    seconds = statistics.median(times)
    rate = COUNT / seconds
    print(
        report(
            "sweep, 10,000 configs",
            rate / TARGET,
            f">= 1x of {TARGET:,}/s",
            rate >= TARGET,
            f"{rate:,.0f} configs/s, {seconds * 1e3:.0f} ms per run (median)",
        )
    )
    return [rate >= TARGET]


if __name__ == "__main__":
    main()
