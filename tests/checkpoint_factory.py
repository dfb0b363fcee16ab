"""Safetensors checkpoints written by hand for tests: real headers, sparse weights.

A header is written exactly as the format says (8-byte little-endian length, then the
JSON), and the file is then extended to the size its tensors need with ``truncate``,
so a multi-gigabyte checkpoint costs a few kilobytes of disk.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from drafting_config.values.errors import ParallelDraftingConfigError

__all__ = ["DTYPE_BYTES", "header_bytes", "write_safetensors", "write_sharded"]

DTYPE_BYTES = {"BF16": 2, "F16": 2, "F32": 4, "I64": 8, "I32": 4, "U8": 1}
"""Bytes per element of the dtypes the tests use."""

Shapes = Mapping[str, tuple[str, Sequence[int]]]
"""Tensor name -> (dtype, shape)."""


def header_bytes(tensors: Shapes, *, metadata: Mapping[str, str] | None = None) -> bytes:
    """The JSON header of a file holding ``tensors`` back to back, in order."""
    header: dict[str, object] = {}
    if metadata is not None:
        header["__metadata__"] = dict(metadata)
    offset = 0
    for name, (dtype, shape) in tensors.items():
        size = DTYPE_BYTES[dtype]
        for dim in shape:
            size *= dim
        header[name] = {
            "dtype": dtype,
            "shape": list(shape),
            "data_offsets": [offset, offset + size],
        }
        offset += size
    return json.dumps(header).encode()


def data_size(tensors: Shapes) -> int:
    """Bytes of weights that follow the header."""
    total = 0
    for dtype, shape in tensors.values():
        size = DTYPE_BYTES[dtype]
        for dim in shape:
            size *= dim
        total += size
    return total


def write_safetensors(path: Path, tensors: Shapes, *, header: bytes | None = None) -> Path:
    """Write a safetensors file whose weights are a sparse hole; return its path."""
    data = header_bytes(tensors) if header is None else header
    with path.open("wb") as file:
        file.write(len(data).to_bytes(8, "little"))
        file.write(data)
        file.truncate(8 + len(data) + data_size(tensors))
    return path


def write_sharded(directory: Path, shards: Sequence[Shapes], *, index: bool = True) -> list[Path]:
    """Write ``shards`` as ``model-0000i-of-0000n.safetensors`` with an index; return them."""
    directory.mkdir(parents=True, exist_ok=True)
    count = len(shards)
    paths = []
    weight_map: dict[str, str] = {}
    for number, tensors in enumerate(shards, 1):
        name = f"model-{number:05d}-of-{count:05d}.safetensors"
        paths.append(write_safetensors(directory / name, tensors))
        weight_map.update(dict.fromkeys(tensors, name))
    if index:
        total = sum(data_size(t) for t in shards)
        document = {"metadata": {"total_size": total}, "weight_map": weight_map}
        (directory / "model.safetensors.index.json").write_text(json.dumps(document))
    return paths


FC_WIDTH_EXAMPLE = (
    Path(__file__).resolve().parent.parent / "examples" / "invalid" / "qwen3-dflash-fc-width"
)
"""A tiny Qwen3 DFlash draft whose ``fc`` was trained for 5 tapped layers while its config
names 3 (``dflash_config.target_layer_ids``): vLLM fails loading it."""

FC_WIDTH_HIDDEN = 16


def fc_width_example_tensors() -> dict[str, tuple[str, tuple[int, ...]]]:
    """The example's tensors, as a z-lab DFlash checkpoint names them (no embedding, no head)."""
    hidden, kv, inner = FC_WIDTH_HIDDEN, 8, 32
    tensors: dict[str, tuple[str, tuple[int, ...]]] = {"fc.weight": ("BF16", (hidden, 5 * hidden))}
    for layer in range(2):
        shapes = {
            "self_attn.q_proj.weight": (hidden, hidden),
            "self_attn.k_proj.weight": (kv, hidden),
            "self_attn.v_proj.weight": (kv, hidden),
            "self_attn.o_proj.weight": (hidden, hidden),
            "self_attn.q_norm.weight": (8,),
            "self_attn.k_norm.weight": (8,),
            "mlp.gate_proj.weight": (inner, hidden),
            "mlp.up_proj.weight": (inner, hidden),
            "mlp.down_proj.weight": (hidden, inner),
            "input_layernorm.weight": (hidden,),
            "post_attention_layernorm.weight": (hidden,),
        }
        tensors.update(
            {f"layers.{layer}.{name}": ("BF16", shape) for name, shape in shapes.items()}
        )
    tensors["hidden_norm.weight"] = ("BF16", (hidden,))
    tensors["norm.weight"] = ("BF16", (hidden,))
    return tensors


def write_fc_width_example(directory: Path = FC_WIDTH_EXAMPLE) -> Path:
    """Write the example's ``model.safetensors`` (zeros after a real header); return it."""
    directory.mkdir(parents=True, exist_ok=True)
    return write_safetensors(directory / "model.safetensors", fc_width_example_tensors())


if __name__ == "__main__":
    print(write_fc_width_example())


def mask_embedding_at(
    directory: Path, config: Mapping[str, object]
) -> tuple[list[ParallelDraftingConfigError], list[str]]:
    """The errors and notes of the ``mask_embedding.pt`` rule for ``config``, with the file
    in ``directory`` read as :func:`drafting_config.check` reads it."""
    from dataclasses import replace

    from drafting_config.engines.vllm.checkpoint import mask_embedding_findings
    from drafting_config.engines.vllm.resolution import VllmSubject, resolve
    from drafting_config.files.mask_embedding import read_mask_embedding_beside
    from drafting_config.files.safetensors_headers import DirectoryListings
    from drafting_config.values.findings import Findings

    subject = replace(
        VllmSubject.of(resolve(config)),
        mask_embedding=read_mask_embedding_beside(str(directory), DirectoryListings()),
    )
    found = Findings()
    mask_embedding_findings(subject, found)
    return found.errors, found.notes
