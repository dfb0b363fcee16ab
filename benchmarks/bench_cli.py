"""cli: ``drafting-config check config.json`` versus loading it with transformers' AutoConfig.

Both are whole processes, started the way a user starts them, on the bundled
DFlash example; the baseline (``baseline_autoconfig.py``) imports transformers,
loads the config with ``AutoConfig.from_pretrained`` and runs the untyped chain.

    python -m benchmarks.bench_cli
"""

from __future__ import annotations

import shutil
from pathlib import Path

from benchmarks.timing import interleaved_process_seconds, python, report

TARGET = 15.0
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "dflash-qwen3-4b"


def main() -> list[bool]:
    script = shutil.which("drafting-config")
    if script is None:
        raise SystemExit("drafting-config is not installed: pip install -e '.[dev]'")
    ours, baseline = interleaved_process_seconds(
        [
            [script, "check", str(EXAMPLE / "config.json")],
            [python(), "-m", "benchmarks.baseline_autoconfig", str(EXAMPLE)],
        ],
        repeats=11,
    )
    ratio = baseline / ours
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
