"""weights: the shapes of a sharded checkpoint from its headers, versus ``safetensors.safe_open``.

A generated checkpoint laid out like a 72-layer, hidden-size-8192 model (Qwen2.5-72B's
shapes: 1,012 tensors, about 145 GB of bf16) in 8 shards with an index.  The shard
files are sparse, so the benchmark costs kilobytes of disk; their sizes, headers and
offsets are real.  Both sides list every tensor's shape:

- ours: :func:`drafting_config.files.safetensors_headers.read_checkpoint_headers` (the index,
  then the 8-byte length and the JSON header of each shard);
- the baseline: what a hand-written validator does from the same directory: read the
  index's ``weight_map`` with ``json.load`` to learn the shards, then
  ``safetensors.safe_open`` on each, ``get_slice(name).get_shape()`` for every tensor.
  (Ours also checks every header entry and the index's placements; it does not trust them.)

It prints the bytes read against the checkpoint's size (goal: under 1 MB), and the
median of the per-round time ratios (goal: no slower than ``safe_open``).

    python -m benchmarks.bench_weights
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from benchmarks.timing import per_call_rounds, report
from drafting_config.files.safetensors_headers import INDEX_FILE, read_checkpoint_headers
from tests.checkpoint_factory import write_sharded

MAX_BYTES = 1_000_000
MAX_RATIO = 1.0
LAYERS = 72
HIDDEN = 8192
KV = 1024
INNER = 29568
VOCAB = 152064
SHARDS = 8


def shapes() -> dict[str, tuple[str, tuple[int, ...]]]:
    """Every tensor of the model, in checkpoint order."""
    tensors: dict[str, tuple[str, tuple[int, ...]]] = {
        "model.embed_tokens.weight": ("BF16", (VOCAB, HIDDEN))
    }
    for layer in range(LAYERS):
        per_layer = {
            "self_attn.q_proj.weight": (HIDDEN, HIDDEN),
            "self_attn.q_proj.bias": (HIDDEN,),
            "self_attn.k_proj.weight": (KV, HIDDEN),
            "self_attn.k_proj.bias": (KV,),
            "self_attn.v_proj.weight": (KV, HIDDEN),
            "self_attn.v_proj.bias": (KV,),
            "self_attn.o_proj.weight": (HIDDEN, HIDDEN),
            "mlp.gate_proj.weight": (INNER, HIDDEN),
            "mlp.up_proj.weight": (INNER, HIDDEN),
            "mlp.down_proj.weight": (HIDDEN, INNER),
            "input_layernorm.weight": (HIDDEN,),
            "post_attention_layernorm.weight": (HIDDEN,),
            "self_attn.q_norm.weight": (128,),
            "self_attn.k_norm.weight": (128,),
        }
        for name, shape in per_layer.items():
            tensors[f"model.layers.{layer}.{name}"] = ("BF16", shape)
    tensors["model.norm.weight"] = ("BF16", (HIDDEN,))
    tensors["lm_head.weight"] = ("BF16", (VOCAB, HIDDEN))
    return tensors


def lay_out(directory: Path) -> list[Path]:
    """Write the checkpoint as ``SHARDS`` sparse shards with an index."""
    items = list(shapes().items())
    size = -(-len(items) // SHARDS)
    return write_sharded(directory, [dict(items[i : i + size]) for i in range(0, len(items), size)])


def with_safe_open(directory: Path) -> dict[str, tuple[int, ...]]:
    """Every tensor's shape, as ``safe_open`` lists it, from the shards the index names."""
    with (directory / INDEX_FILE).open() as index:
        shards = sorted(set(json.load(index)["weight_map"].values()))
    return safe_open_shapes([directory / shard for shard in shards])


def safe_open_shapes(paths: list[Path]) -> dict[str, tuple[int, ...]]:
    """Every tensor's shape in ``paths``, as ``safe_open`` lists it."""
    from safetensors import safe_open

    found: dict[str, tuple[int, ...]] = {}
    for path in paths:
        with safe_open(str(path), framework="numpy") as opened:
            for name in opened.keys():  # noqa: SIM118 (safe_open is not a mapping)
                found[name] = tuple(opened.get_slice(name).get_shape())
    return found


def main() -> list[bool]:
    with tempfile.TemporaryDirectory() as folder:
        directory = Path(folder)
        paths = lay_out(directory)
        total = sum(path.stat().st_size for path in paths)
        checkpoint = read_checkpoint_headers(str(directory))
        assert checkpoint is not None
        ours = {name: tensor.shape for name, tensor in checkpoint.tensors.items()}
        assert ours == with_safe_open(directory), "the two readers disagree"
        read = checkpoint.bytes_read + os.path.getsize(directory / INDEX_FILE)
        timed = per_call_rounds(
            [
                lambda: with_safe_open(directory),
                lambda: read_checkpoint_headers(str(directory)),
                lambda: safe_open_shapes(paths),
            ]
        )
    ratio = timed.ratio(1, 0)
    print(
        report(
            "weights, bytes read",
            read / MAX_BYTES,
            "<= 1x of 1 MB",
            read < MAX_BYTES,
            f"{read:,} bytes (index and {len(paths)} headers) of a {total / 1e9:.1f} GB "
            f"checkpoint, {len(ours):,} tensors",
        )
    )
    print(
        report(
            "weights, time vs safe_open",
            ratio,
            f"<= {MAX_RATIO:g}x",
            ratio <= MAX_RATIO,
            f"index + safe_open {timed.median(0) * 1e3:.2f} ms, "
            f"headers {timed.median(1) * 1e3:.2f} ms (medians)",
        )
    )
    print(
        f"{'(info) vs safe_open alone':<28} {timed.ratio(1, 2):8.2f}x  (no target)  safe_open on "
        f"the {len(paths)} shards, given their paths, {timed.median(2) * 1e3:.2f} ms (median)"
    )
    return [read < MAX_BYTES, ratio <= MAX_RATIO]


if __name__ == "__main__":
    main()
