"""sweep, one folder: ``check_many`` over N and 4N drafts that share one folder.

A folder of configs (``drafts/a.json``, ``drafts/b.json``, ...) beside a checkpoint
(``model.safetensors``) and thousands of other files: the case where a sweep once listed
the folder for every draft, so that its cost grew with the square of the drafts (10,000
configs took minutes).  Now a folder is listed at most once per call, and a config not
named ``config.json`` is paired with no weights (vLLM never pairs them), so the cost grows
linearly.  Both sizes are timed in alternating rounds, with the weights checked (the
default) and no tokenizer; it prints the median of the per-round ratios of 4N's time to
N's (target: at most 6x, where linear is 4x).

    python -m benchmarks.bench_sweep_folder
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from benchmarks.timing import per_call_rounds, report
from drafting_config import check_many

TARGET = 6.0
COUNT = 1_000
SCALE = 4
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "invalid" / "qwen3-dflash-fc-width"


def write_folder(root: Path, count: int) -> list[str]:
    """``count`` configs in one folder, beside the example's checkpoint; return their paths."""
    root.mkdir()
    shutil.copy(EXAMPLE / "model.safetensors", root / "model.safetensors")
    config = json.loads((EXAMPLE / "config.json").read_text())
    paths = []
    for index in range(count):
        path = root / f"draft-{index:05d}.json"
        path.write_text(json.dumps(config))
        paths.append(str(path))
    return paths


def main() -> list[bool]:
    with tempfile.TemporaryDirectory() as folder:
        small = write_folder(Path(folder) / "small", COUNT)
        large = write_folder(Path(folder) / "large", COUNT * SCALE)
        timed = per_call_rounds(
            [
                lambda: check_many(small, check_tokenizer=False),
                lambda: check_many(large, check_tokenizer=False),
            ],
            rounds=7,
        )
    ratio = timed.ratio(1, 0)
    small_ms, large_ms = (seconds * 1000 for seconds in timed.medians())
    print(
        report(
            f"sweep, one folder, {SCALE}x drafts",
            ratio,
            f"<= {TARGET:g}x",
            ratio <= TARGET,
            f"{COUNT:,} drafts {small_ms:.0f} ms, {COUNT * SCALE:,} drafts {large_ms:.0f} ms",
        )
    )
    return [ratio <= TARGET]


if __name__ == "__main__":
    raise SystemExit(0 if all(main()) else 1)
