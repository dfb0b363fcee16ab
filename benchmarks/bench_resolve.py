"""resolve: ParallelDraftingConfig.from_hf_config versus an untyped if/elif chain.

The baseline makes the same attribute reads as vLLM's chain (getattr of
dflash_config with an ``in`` test, getattr of mask_token_id against None, then
hasattr and a read of dspark_noise_token_id, pard_token, ptd_token_id, and
int() on the winner), on a real transformers Qwen3Config. The typed path runs
all its validation, conflict and placeholder checks, and pydantic's validation.
The fall-through case has a floor (>= 0.33x); the DFlash case, where the chain
makes one getattr, is reported without a target.

For information, each case also times the attribute reads ``from_hf_config``
makes, alone: the same names, recorded on the config's class and replayed as
bare ``getattr`` calls. No code that reads with plain ``getattr`` can beat them.

    python -m benchmarks.bench_resolve
"""

from __future__ import annotations

import copy
import warnings
from functools import partial

from benchmarks.timing import per_call_rounds, report
from drafting_config import ParallelDraftingConfig, TokenIdSource

TARGET = 0.33
"""A floor, not a race: resolution runs once per model load."""


def untyped_chain(hf_config: object) -> int:
    """The baseline: an if/elif chain with vLLM's attribute reads (benchmarks only)."""
    dflash_config = getattr(hf_config, "dflash_config", None)
    if dflash_config and "mask_token_id" in dflash_config:
        return int(dflash_config["mask_token_id"])
    mask_token_id = getattr(hf_config, "mask_token_id", None)
    if mask_token_id is not None:
        return int(mask_token_id)
    if hasattr(hf_config, "dspark_noise_token_id"):
        return int(hf_config.dspark_noise_token_id)
    if hasattr(hf_config, "pard_token"):
        return int(hf_config.pard_token)
    if hasattr(hf_config, "ptd_token_id"):
        return int(hf_config.ptd_token_id)
    raise ValueError("no parallel drafting token id")


def cases() -> dict[str, tuple[object, float | None]]:
    """Real Qwen3Config objects: a DFlash drafter, and one that falls through to ptd_token_id."""
    from transformers import Qwen3Config

    common = {
        "hidden_size": 2560,
        "vocab_size": 151936,
        "bos_token_id": 151643,
        "eos_token_id": 151645,
    }
    return {
        "resolve, dflash winner": (
            Qwen3Config.from_dict({**common, "dflash_config": {"mask_token_id": 151669}}),
            None,  # reported only: the chain makes a single getattr here
        ),
        "resolve, ptd fall-through": (
            Qwen3Config.from_dict({**common, "ptd_token_id": 151669}),
            TARGET,
        ),
    }


def reads_made(hf_config: object) -> list[str]:
    """The attribute names ``from_hf_config`` reads on ``hf_config``, in order."""
    names: list[str] = []
    config_class = type(hf_config)

    def recording(self: object, name: str) -> object:
        if not name.startswith("__"):
            names.append(name)
        return config_class.__getattribute__(self, name)

    recorder = type("Recording", (config_class,), {"__getattribute__": recording})
    recorded = copy.copy(hf_config)
    recorded.__class__ = recorder
    ParallelDraftingConfig.from_hf_config(recorded)
    return names


def bare_reads(hf_config: object, names: list[str]) -> None:
    """Read ``names`` with plain getattr, nothing else (benchmarks only)."""
    for name in names:
        getattr(hf_config, name, None)


def main() -> list[bool]:
    results = []
    for name, (hf_config, target) in cases().items():
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # the cases must resolve cleanly
            config = ParallelDraftingConfig.from_hf_config(hf_config)
        assert config.token_id == untyped_chain(hf_config) == 151669
        assert config.source in (TokenIdSource.DFLASH_MASK_TOKEN_ID, TokenIdSource.PTD_TOKEN_ID)
        names = reads_made(hf_config)
        timed = per_call_rounds(
            [
                partial(untyped_chain, hf_config),
                partial(ParallelDraftingConfig.from_hf_config, hf_config),
                partial(bare_reads, hf_config, names),
            ]
        )
        baseline, typed, reads = timed.medians()
        ratio = timed.ratio(0, 1)
        met = target is None or ratio >= target
        results.append(met)
        print(
            report(
                name,
                ratio,
                "none, reported" if target is None else f">= {target:g}x",
                met,
                f"chain {baseline * 1e6:.2f} us, typed {typed * 1e6:.2f} us (medians)",
            )
        )
        print(
            f"{'  for information: reads':<28} {timed.ratio(0, 2):8.2f}x  chain over its "
            f"{len(names)} reads alone ({reads * 1e6:.2f} us); the reads are "
            f"{timed.ratio(2, 1):.0%} of from_hf_config"
        )
    return results


if __name__ == "__main__":
    main()
