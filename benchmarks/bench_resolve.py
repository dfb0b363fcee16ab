"""load cost: ParallelDraftingConfig.from_hf_config versus loading the config it reads.

An engine calls ``from_hf_config`` once per model load, on the config that
``AutoConfig.from_pretrained`` has just built from the model directory. What a
user feels is what it adds to that load: the target is ``from_hf_config`` at
most 10% of ``AutoConfig.from_pretrained`` on the same model directory, both
in this process, in the same rounds. The cases are real Qwen3Config objects:
a DFlash drafter, and one that falls through to ``ptd_token_id``.

For information, each case also prints the ratio to vLLM's untyped if/elif
chain (the same attribute reads as vLLM's, no checks), with no target, and
the time of the attribute reads ``from_hf_config`` makes, replayed alone as
bare ``getattr`` calls: no code that reads with plain ``getattr`` can beat them.

    python -m benchmarks.bench_resolve
"""

from __future__ import annotations

import copy
import json
import tempfile
import warnings
from functools import partial
from pathlib import Path

from benchmarks.timing import per_call_rounds, report
from drafting_config import ParallelDraftingConfig, TokenIdSource

TARGET = 0.10
"""``from_hf_config`` may cost at most this fraction of ``AutoConfig.from_pretrained``."""


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


def cases() -> dict[str, dict[str, object]]:
    """The ``config.json`` of each case: a DFlash drafter, and one that falls through to
    ``ptd_token_id``."""
    common = {
        "model_type": "qwen3",
        "hidden_size": 2560,
        "vocab_size": 151936,
        "bos_token_id": 151643,
        "eos_token_id": 151645,
    }
    return {
        "load cost, dflash winner": {**common, "dflash_config": {"mask_token_id": 151669}},
        "load cost, ptd fall-through": {**common, "ptd_token_id": 151669},
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
    from transformers import AutoConfig

    results = []
    for name, raw in cases().items():
        with tempfile.TemporaryDirectory() as folder:
            (Path(folder) / "config.json").write_text(json.dumps(raw))
            load = partial(AutoConfig.from_pretrained, folder)
            hf_config = load()
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # the cases must resolve cleanly
                config = ParallelDraftingConfig.from_hf_config(hf_config)
            assert config.token_id == untyped_chain(hf_config) == 151669
            assert config.source in (
                TokenIdSource.DFLASH_MASK_TOKEN_ID,
                TokenIdSource.PTD_TOKEN_ID,
            )
            names = reads_made(hf_config)
            timed = per_call_rounds(
                [
                    load,
                    partial(ParallelDraftingConfig.from_hf_config, hf_config),
                    partial(untyped_chain, hf_config),
                    partial(bare_reads, hf_config, names),
                ]
            )
        loading, typed, chain, reads = timed.medians()
        ratio = timed.ratio(1, 0)
        met = ratio <= TARGET
        results.append(met)
        print(
            report(
                name,
                ratio,
                f"<= {TARGET:g}x of AutoConfig",
                met,
                f"AutoConfig.from_pretrained {loading * 1e3:.2f} ms, "
                f"from_hf_config {typed * 1e6:.1f} us (medians)",
            )
        )
        print(
            f"{'  for information: chain':<28} {timed.ratio(2, 1):8.2f}x  vLLM's untyped chain "
            f"({chain * 1e6:.2f} us) over from_hf_config; its {len(names)} reads alone "
            f"take {reads * 1e6:.2f} us, {timed.ratio(3, 1):.0%} of it"
        )
    return results


if __name__ == "__main__":
    main()
