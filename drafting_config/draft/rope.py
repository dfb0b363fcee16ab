"""A config's rotary position embedding as transformers normalises it, and how a draft's
differs from its target's.

A draft that shares its target's positions (an EAGLE head, a DFlash or DSpark drafter) is
trained with the target's RoPE; a config that records another (a converter that dropped
``rope_scaling``) runs with rotations the drafter never saw, and the engine says nothing.
The spellings are many: transformers v4's ``rope_scaling`` (with ``type`` or
``rope_type``) beside a top-level ``rope_theta``, transformers v5's ``rope_parameters``
holding ``rope_theta`` too; an M-RoPE section (Qwen2.5-VL) is the ``default`` type with a
section, which both engines' EAGLE-3 heads run as ``default``.  :func:`read_rope`
normalises them, so that only what the rotations use is compared.  Names no engine.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

from drafting_config.values.fields import FieldGetter

THETA_FIELDS: Final = ("rope_theta", "rotary_emb_base")
"""Where a config records the RoPE base, in the order engines look (``rotary_emb_base`` is
an older custom name both engines still read)."""

IGNORED_KEYS: Final = frozenset(
    {"mrope_section", "mrope_interleaved", "rope_theta", "rope_type", "type"}
)
"""Keys that do not change a text-only drafter's rotations, or that are compared apart
(``rope_theta``, ``rope_type``) or are another spelling (``type``)."""


@dataclass(frozen=True)
class Rope:
    """A config's RoPE, normalised: its type, its base and its other parameters."""

    rope_type: str
    """``"default"`` when the config records no scaling (M-RoPE counts as ``default``)."""
    theta: float | None
    """The base (``rope_parameters.rope_theta``, else ``rope_theta``, else
    ``rotary_emb_base``); ``None`` when not recorded."""
    parameters: tuple[tuple[str, object], ...]
    """The scaling's other keys (``factor``, ``low_freq_factor``...), sorted."""

    @property
    def recorded(self) -> bool:
        """Whether the config records anything of its RoPE."""
        return self.theta is not None or bool(self.parameters) or self.rope_type != "default"

    def shown(self) -> str:
        """How a message shows it: ``llama3 x8, theta 500000``."""
        text = self.rope_type
        factor = _number(dict(self.parameters).get("factor"))
        if factor is not None:
            text += f" x{factor:g}"
        if self.theta is not None:
            text += f", theta {self.theta:g}"
        return text


def read_rope(get: FieldGetter) -> Rope | None:
    """The RoPE a config records, normalised (see the module docstring): with nothing
    recorded, ``default`` with no base (:attr:`Rope.recorded` false); ``None`` when it
    records one per layer type (a dict of dicts, not compared) or a type that is no string.

    A truthy legacy ``rope_scaling`` wins over ``rope_parameters``, as transformers'
    ``convert_rope_params_to_dict`` reads them.

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    legacy = get("rope_scaling", None)
    params = legacy if isinstance(legacy, dict) and legacy else get("rope_parameters", None)
    entry: dict[str, object] = {}
    if isinstance(params, dict) and params:
        if all(isinstance(value, dict) for value in params.values()):
            return None  # one per layer type
        entry = {key: value for key, value in params.items() if isinstance(key, str)}
    theta = _number(entry.get("rope_theta"))
    for name in THETA_FIELDS:
        if theta is None:
            theta = _number(get(name, None))
    rope_type = entry.get("rope_type", entry.get("type", "default"))
    if not isinstance(rope_type, str):
        return None
    if rope_type == "mrope" or "mrope_section" in entry:
        rope_type = "default"
    parameters = tuple(
        sorted((key, value) for key, value in entry.items() if key not in IGNORED_KEYS)
    )
    return Rope(rope_type, theta, parameters)


def rope_difference(draft: Rope | None, target: Rope | None) -> bool:
    """Whether two configs' RoPE differ in what both record: the type (an unrecorded
    scaling is ``default``), the base when both record one, and each other parameter both
    record.  A spelling alone (``rope_scaling`` or ``rope_parameters``, ``type`` or
    ``rope_type``, ``rope_theta`` inside or beside) is no difference."""
    if draft is None or target is None:
        return False
    if draft.rope_type != target.rope_type:
        return True
    if draft.theta is not None and target.theta is not None and draft.theta != target.theta:
        return True
    ours, theirs = dict(draft.parameters), dict(target.parameters)
    return any(ours[key] != theirs[key] for key in ours.keys() & theirs.keys())


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:  # an int beyond float range: no base or factor any engine takes
        return None
    return number if math.isfinite(number) else None


def target_rope(readers: tuple[FieldGetter, ...]) -> Rope | None:
    """The target's RoPE: that of the first of its config's readers (the top level, then
    ``text_config``...) that records one; ``None`` when none does.

    Raises:
        ParallelDraftingConfigError: a field cannot be read at all.
    """
    for get in readers:
        rope = read_rope(get)
        if rope is None or rope.recorded:
            return rope
    return None
