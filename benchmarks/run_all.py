"""Run every benchmark and print each ratio with its target.

    python -m benchmarks.run_all

Exit status 0 when every target is met, 1 otherwise. Figures are medians of
repeated runs measured side by side in this run; see benchmarks/RESULTS.md.
"""

from __future__ import annotations

import platform
import sys
from datetime import datetime, timezone

from benchmarks import (
    bench_cli,
    bench_contract,
    bench_engines_all,
    bench_import,
    bench_masked_slots,
    bench_resolve,
    bench_sweep,
    bench_sweep_folder,
    bench_sweep_memory,
    bench_weights,
)


def main() -> int:
    print(
        f"# {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, Python {platform.python_version()}, "
        f"{platform.machine()}, {platform.processor() or 'unknown CPU'}"
    )
    results = [
        *bench_resolve.main(),
        *bench_cli.main(),
        *bench_sweep.main(),
        *bench_sweep_folder.main(),
        *bench_sweep_memory.main(),
        *bench_engines_all.main(),
        *bench_import.main(),
        *bench_contract.main(),
        *bench_masked_slots.main(),
        *bench_weights.main(),
    ]
    met = sum(results)
    print(f"# {met} of {len(results)} targets met")
    return 0 if met == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
