"""Where the time of ``from_hf_config`` goes, on the DFlash case of ``bench_resolve``.

Times each stage on its own (medians), next to the one getattr the untyped
chain makes, and then prints a cProfile listing of the whole call:

    python -m benchmarks.profile_resolve
"""

from __future__ import annotations

import cProfile
import pstats
from functools import partial

from benchmarks.bench_resolve import cases, untyped_chain
from benchmarks.timing import per_call_rounds
from drafting_config import ParallelDraftingConfig
from drafting_config.engines.vllm.resolution import resolve
from drafting_config.values.fields import field_getter


def main() -> None:
    from transformers import Qwen3Config

    hf_config = Qwen3Config.from_dict(cases()["load cost, dflash winner"])
    resolution = resolve(hf_config)
    stages = {
        "chain: whole (one getattr)": partial(untyped_chain, hf_config),
        "chain: getattr dflash_config": partial(getattr, hf_config, "dflash_config"),
        "typed: field_getter": partial(field_getter, hf_config, ""),
        "typed: resolve (reads, checks)": partial(resolve, hf_config),
        "typed: model_validate(resolution)": partial(
            ParallelDraftingConfig.model_validate, resolution
        ),
        "typed: from_hf_config, whole": partial(ParallelDraftingConfig.from_hf_config, hf_config),
    }
    for name, function in stages.items():
        print(f"{name:<34} {per_call_rounds([function]).median(0) * 1e6:6.2f} us (median)")

    profile = cProfile.Profile()
    profile.enable()
    for _ in range(20_000):
        ParallelDraftingConfig.from_hf_config(hf_config)
    profile.disable()
    pstats.Stats(profile).sort_stats("tottime").print_stats(8)


if __name__ == "__main__":
    main()
