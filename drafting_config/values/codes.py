"""The vocabulary findings are filed under: the :class:`Step` of an engine's load path a
finding is about, and the stable :class:`Code` of the fact it states.

A step names where on the way from ``config.json`` to the first forward pass an engine
reads what a finding is about, in the order the engine gets there: the config is parsed,
its architecture looked up in the registry, the parallel-drafting token read, the tapped
layers chosen, the target built, its layers tapped, the draft constructed, the tapped
features fed to the draft's input (its width), the weights loaded; the tokenizer is read
beside them.  The real-engine harness (``tools/vllm_harness``) reports the stage an engine
reached in the same words.

A code is one fact, whichever engine speaks and whichever file the fact was found in
(mypy's ``errorcodes.py`` is the model): every code is declared once, with
:func:`declare`, and :data:`CODES` is the one table the docs' code page and ``--ignore``
read.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

__all__ = ["CODES", "Code", "Step", "declare"]


class Step(str, enum.Enum):
    """Where on an engine's load path a finding is about, in the engine's own order."""

    PARSE = "parse"
    """The config is read and parsed into the engine's config class."""
    REGISTRY = "registry"
    """The draft's architecture is looked up (and renamed) in the engine's registry."""
    TOKEN = "token"
    """The parallel-drafting token id is read."""
    LAYERS = "layers"
    """The target layers the drafter taps are chosen."""
    TARGET = "target"
    """The target model's config and sizes, as the engine builds it."""
    TAP = "tap"
    """The target's layers are tapped for their hidden states."""
    CONSTRUCTION = "construction"
    """The draft model's class is constructed from its config."""
    WIDTH = "width"
    """The tapped features meet the draft's input (its ``fc``), at the first forward pass."""
    WEIGHTS = "weights"
    """The checkpoint's tensors are loaded into the draft's parameters."""
    TOKENIZER = "tokenizer"
    """The tokenizer the engine serves with is read."""


_NAME: Final = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")


@dataclass(frozen=True)
class Code:
    """One fact a finding states, under a stable name (``"token-outside-vocab"``)."""

    name: str
    """The stable name: lower case words joined by ``-``; never reused for another fact."""
    step: Step
    """The step of the load path the fact is about."""
    summary: str
    """What the fact is, in one sentence, for the docs' code page."""

    def __str__(self) -> str:
        return self.name


_DECLARED: dict[str, Code] = {}

CODES: Final[Mapping[str, Code]] = MappingProxyType(_DECLARED)
"""Every declared code, by name, in the order declared."""


def declare(name: str, step: Step, summary: str) -> Code:
    """Declare a code: the one place its name, step and summary are written.

    Raises:
        ValueError: ``name`` is not lower-case words joined by ``-``, or is declared
            already (a code is one fact).
    """
    if not _NAME.fullmatch(name):
        raise ValueError(f"a code is lower-case words joined by '-', not {name!r}")
    if name in _DECLARED:
        raise ValueError(f"the code {name!r} is declared twice")
    code = Code(name, step, summary)
    _DECLARED[name] = code
    return code


# --- issue 29: the mode a verdict judges, and the rules the real engine showed missing ---------

SEQUENTIAL_NOT_PARALLEL: Final = declare(
    "sequential-not-parallel",
    Step.TOKEN,
    "The draft asks for no parallel drafting and is judged with parallel drafting required: "
    "the engine would draft it sequentially.",
)
TOKEN_UNUSED: Final = declare(
    "token-unused",
    Step.TOKEN,
    "The draft names a parallel-drafting token the engine never reads, because it has no "
    "parallel mode for the draft's method: the draft is served sequentially.",
)
REMOTE_CODE_DRAFTER: Final = declare(
    "remote-code-drafter",
    Step.REGISTRY,
    "The draft's class is in no registry table and only `auto_map` remote code supplies it: "
    "no path gives a drafter for a DFlash, DSpark or EAGLE-3 method.",
)
EAGLE3_WIDTH: Final = declare(
    "eagle3-width",
    Step.WIDTH,
    "An EAGLE-3 draft's fc (and its pre-fc norm) is sized for another number of tapped "
    "layers than the runner taps.",
)
PROJECTOR_UNIMPLEMENTED: Final = declare(
    "projector-unimplemented",
    Step.WEIGHTS,
    "The draft's `dflash_config.projector_type` names a projector no DFlash or DSpark file "
    "of the engine implements: its tensors have no parameter to load into.",
)
DFLASH_CLASS_DERIVES_LAYERS: Final = declare(
    "dflash-class-derives-layers",
    Step.CONSTRUCTION,
    "SGLang's DFlash draft class derives its layers from its own depth when the draft names "
    "neither layers nor num_target_layers, and a depth of 2 or 3 is refused.",
)
LAYERS_CAPTURED_IN_ORDER: Final = declare(
    "layers-captured-in-order",
    Step.LAYERS,
    "The tapped layer ids repeat or decrease, but the target captures each layer once, in "
    "layer order: fc gets fewer features than it is sized for, or features in another order.",
)
