"""Scaled-down drafts and their checkpoints: what a harness's weights stage loads.

A published draft is gigabytes of weights; the weights stage needs only their names and
shapes. :func:`shrink` scales a (draft, target) pair of configs down by one power of two
(the widths: ``hidden_size``, ``intermediate_size`` and the like, in both configs and in
the objects nested in them), so equal widths stay equal and ratios stay ratios: a tensor
that did not fit the full-size config does not fit the scaled one either. The vocabulary
is kept (token ids must stay below it), and so are the head counts and the head width
(written out where the config left it to ``hidden_size // num_attention_heads``, which
scaling would change). :func:`scaled_shape` scales a tensor's shape the same way, and
:func:`write_checkpoint` writes a safetensors file of zeros (a header as the format says,
then a sparse hole), so a checkpoint with a full vocabulary costs a few kilobytes of disk.

Standard library only: the harnesses' hosts (the development environment, the tests) use
it without torch.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

__all__ = [
    "DTYPE_BYTES",
    "TARGET_WIDTH",
    "WIDTH_FIELDS",
    "Tensors",
    "read_header",
    "scale_factor",
    "scaled_shape",
    "shrink",
    "write_checkpoint",
]

Tensors = Mapping[str, tuple[str, Sequence[int]]]
"""Tensor name -> (safetensors dtype, shape)."""

DTYPE_BYTES: Final = {"BF16": 2, "F16": 2, "F32": 4, "I64": 8, "I32": 4, "U8": 1, "BOOL": 1}
"""Bytes per element of the dtypes a synthesized checkpoint uses."""

WIDTH_FIELDS: Final = (
    "hidden_size",
    "target_hidden_size",
    "intermediate_size",
    "moe_intermediate_size",
    "shared_expert_intermediate_size",
)
"""The config fields :func:`shrink` scales, wherever they appear."""

TARGET_WIDTH: Final = 32
"""The smallest ``hidden_size`` a scaled draft is given (unless it was smaller already)."""


def _objects(config: Any) -> Iterable[dict[str, Any]]:
    if isinstance(config, dict):
        yield config
        for value in config.values():
            yield from _objects(value)
    elif isinstance(config, list):
        for value in config:
            yield from _objects(value)


def _widths(configs: Iterable[Mapping[str, Any]]) -> list[int]:
    return [
        value
        for config in configs
        for obj in _objects(config)
        for field in WIDTH_FIELDS
        if isinstance(value := obj.get(field), int) and not isinstance(value, bool) and value > 0
    ]


def scale_factor(draft: Mapping[str, Any], target: Mapping[str, Any]) -> int:
    """The largest power of two that divides every width of both configs and leaves the
    draft's ``hidden_size`` at least :data:`TARGET_WIDTH` (1: the draft is small already)."""
    widths = _widths((draft, target))
    hidden = draft.get("hidden_size")
    if not widths or not isinstance(hidden, int):
        return 1
    factor = 1
    while hidden // (factor * 2) >= TARGET_WIDTH and all(w % (factor * 2) == 0 for w in widths):
        factor *= 2
    return factor


def _shrunk(config: Mapping[str, Any], factor: int) -> dict[str, Any]:
    copy: dict[str, Any] = json.loads(json.dumps(config))
    for obj in _objects(copy):
        hidden, heads = obj.get("hidden_size"), obj.get("num_attention_heads")
        if (
            factor > 1
            and "head_dim" not in obj
            and isinstance(hidden, int)
            and isinstance(heads, int)
            and heads > 0
        ):
            obj["head_dim"] = hidden // heads
        for field in WIDTH_FIELDS:
            value = obj.get(field)
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                obj[field] = value // factor
    return copy


def shrink(
    draft: Mapping[str, Any], target: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any], int]:
    """The draft and the target scaled down by :func:`scale_factor`, and the factor."""
    factor = scale_factor(draft, target)
    return _shrunk(draft, factor), _shrunk(target, factor), factor


def scaled_shape(
    shape: Sequence[int], draft: Mapping[str, Any], target: Mapping[str, Any], factor: int
) -> tuple[int, ...]:
    """A full-size tensor's ``shape`` scaled as :func:`shrink` scales the configs: a
    dimension that is a multiple (1 to 8) of one of their widths is that multiple of the
    width scaled; any other (a vocabulary, a head count) is kept."""
    if factor == 1:
        return tuple(shape)
    widths = set(_widths((draft, target)))
    scaled = []
    for dim in shape:
        multiple = next(
            (k for k in range(1, 9) for width in sorted(widths) if dim == k * width), None
        )
        scaled.append(dim // factor if multiple is not None else dim)
    return tuple(scaled)


def read_header(path: Path) -> dict[str, tuple[str, tuple[int, ...]]]:
    """The tensors a safetensors file's header names, in its order (``__metadata__`` left
    out)."""
    with path.open("rb") as file:
        length = int.from_bytes(file.read(8), "little")
        header = json.loads(file.read(length))
    return {
        name: (entry["dtype"], tuple(entry["shape"]))
        for name, entry in header.items()
        if name != "__metadata__"
    }


def write_checkpoint(path: Path, tensors: Tensors) -> Path:
    """Write ``tensors`` as a safetensors file of zeros (a sparse hole after the header);
    return its path."""
    header: dict[str, object] = {}
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
    data = json.dumps(header).encode()
    data += b" " * (-len(data) % 8)  # the data starts 8-aligned, as the format asks
    with path.open("wb") as file:
        file.write(len(data).to_bytes(8, "little"))
        file.write(data)
        file.truncate(8 + len(data) + offset)
    return path
