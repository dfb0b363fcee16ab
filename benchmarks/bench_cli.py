"""cli: ``drafting-config check config.json`` versus loading it with transformers' AutoConfig.

Both are whole processes, started the way a user starts them, on the bundled
DFlash example; the baseline (``baseline_autoconfig.py``) imports transformers,
loads the config with ``AutoConfig.from_pretrained`` and runs the untyped chain.

    python -m benchmarks.bench_cli
"""

from __future__ import annotations

import shutil
from pathlib import Path

from benchmarks.timing import process_rounds, python, report

TARGET = 15.0
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "dflash-qwen3-4b"


def main() -> list[bool]:
    script = shutil.which("drafting-config")
    if script is None:
        raise SystemExit("drafting-config is not installed: pip install -e '.[dev]'")
    timed = process_rounds(
        [
            [script, "check", str(EXAMPLE / "config.json")],
            [python(), "-m", "benchmarks.baseline_autoconfig", str(EXAMPLE)],
        ],
        rounds=11,
    )
    ours, baseline = timed.medians()
    ratio = timed.ratio(1, 0)
    print(
        report(
            "cli, one config",
            ratio,
            f">= {TARGET:g}x",
            ratio >= TARGET,
            f"drafting-config {ours * 1e3:.0f} ms, "
            f"AutoConfig + chain {baseline * 1e3:.0f} ms (medians)",
        )
    )
    return [ratio >= TARGET]


if __name__ == "__main__":
    main()
