"""Where the EAGLE layout's time goes on the 4,096-request batch: torch's own profiler.

Prints, per torch operator, its self CPU time per call of ``expand_eagle_inputs``
(single thread), beside the time to clone the bytes the benchmark counts.

    python -m benchmarks.profile_masked_slots
"""

from __future__ import annotations

from functools import partial

import torch
from torch.profiler import ProfilerActivity, profile

from benchmarks.bench_masked_slots import bytes_moved, layout, make_batch
from benchmarks.timing import per_call_rounds

CALLS = 50


def main() -> None:
    torch.set_num_threads(1)
    batch = make_batch(4096, 2, 64, seed=2).tensors()
    floor = torch.empty(bytes_moved(batch, layout(batch)), dtype=torch.uint8)
    copy, expand = per_call_rounds([floor.clone, partial(layout, batch)]).medians()
    print(
        f"copy of {floor.numel() / 1e6:.2f} MB: {copy * 1e6:.0f} us; layout: {expand * 1e6:.0f} us"
    )
    with profile(activities=[ProfilerActivity.CPU]) as profiler:
        for _ in range(CALLS):
            layout(batch)
    events = sorted(profiler.key_averages(), key=lambda event: -event.self_cpu_time_total)
    total = sum(event.self_cpu_time_total for event in events) / CALLS
    print(
        f"{'operator':<24} {'calls':>5} {'us/layout':>10} {'share':>6}  (profiled: {total:.0f} us)"
    )
    for event in events[:15]:
        per_layout = event.self_cpu_time_total / CALLS
        print(
            f"{event.key:<24} {event.count // CALLS:>5} {per_layout:>10.0f} "
            f"{per_layout / total:>6.0%}"
        )


if __name__ == "__main__":
    main()
