"""The notes every engine gives where it decides, by its own default, a training choice the
draft's files do not record: one text each, whichever engine speaks, so that a sweep of many
drafts says each once, in its footer (``FOOTER_CODES`` of the command line)."""

from __future__ import annotations

from typing import Final

ANCHOR_NOTE: Final = (
    "`sample_from_anchor` is not recorded: the engine assumes true, the anchor-first DSpark layout."
)
"""``sample-from-anchor-assumed``: a DSpark draft's layout, decided by the engine."""

CAUSALITY_NOTE: Final = (
    "no causality is recorded: the engine runs the drafter non-causal, causal only on "
    "sliding-window layers."
)
"""``causality-assumed``: a DFlash-style drafter's attention, decided by the engine."""
