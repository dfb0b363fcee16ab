"""sweep: one ``drafting-config check --json --no-tokenizer --no-weights`` over 10,000 configs.

Writes 10,000 model directories (copies of the bundled examples, varied) to a
temporary folder, then times the whole command, process start included, and
checks its report. Beside it, in alternating rounds on the same files, it times
``baseline_sweep.py`` (read, parse, pick the id, print: no checks). The target
is ours at >= 0.4x of that floor's speed: a ratio measured in the same run, so
it holds as the machine's speed drifts.

    python -m benchmarks.bench_sweep
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from benchmarks.timing import process_rounds, python, report

TARGET = 0.4
COUNT = 10_000
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def write_configs(root: Path, count: int = COUNT) -> list[str]:
    sources = [json.loads(p.read_text()) for p in sorted(EXAMPLES.glob("*/config.json"))]
    paths = []
    for index in range(count):
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
        ours = [script, "check", "--json", "--no-tokenizer", "--no-weights", *paths]
        result = subprocess.run(ours, cwd=root, capture_output=True, check=True)
        report_items = json.loads(result.stdout)
        floor = [python(), str(Path(__file__).with_name("baseline_sweep.py")), *paths]
        timed = process_rounds([ours, floor], rounds=7, cwd=root)
    assert len(report_items) == COUNT
    assert all(item["ok"] for item in report_items)
    seconds, floor_seconds = timed.medians()
    ratio = timed.ratio(1, 0)  # the floor's time over ours: our speed as a fraction of its
    print(
        report(
            "sweep, 10,000 configs",
            ratio,
            f">= {TARGET:g}x of the no-checks floor's speed",
            ratio >= TARGET,
            f"{COUNT / seconds:,.0f} configs/s, {seconds * 1e3:.0f} ms per run; floor "
            f"{COUNT / floor_seconds:,.0f} configs/s, {floor_seconds * 1e3:.0f} ms (medians)",
        )
    )
    return [ratio >= TARGET]


if __name__ == "__main__":
    main()
