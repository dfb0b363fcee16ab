"""Exact edges of the proposer's device errors: which dtype is tried, and how torch's message
is cut down to its first sentence (found by mutation testing)."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from drafting_config import ParallelDraftingConfig
from drafting_config.runtime.proposer import ParallelDraftingParams
from tests.conftest import EXAMPLES

DFLASH = ParallelDraftingConfig.from_pretrained(EXAMPLES / "dflash-qwen3-4b")


def _device_failing_with(monkeypatch: pytest.MonkeyPatch, message: str) -> None:
    """Make every allocation fail as a broken backend would, with torch's ``message``."""

    def empty(*args: Any, **kwargs: Any) -> torch.Tensor:
        raise RuntimeError(message)

    monkeypatch.setattr(torch, "empty", empty)


def _device_error(monkeypatch: pytest.MonkeyPatch, message: str) -> str:
    _device_failing_with(monkeypatch, message)
    with pytest.raises(ValueError, match=r"^`device` 'cpu' cannot be used here") as caught:
        ParallelDraftingParams(
            DFLASH, dtype="bfloat16", device="cpu", pass_hidden_states_to_model=True
        )
    return str(caught.value)


def _reason(monkeypatch: pytest.MonkeyPatch, message: str) -> str:
    """What the device error quotes of torch's ``message``."""
    text = _device_error(monkeypatch, message)
    prefix = (
        "`device` 'cpu' cannot be used here: torch cannot allocate torch.bfloat16 tensors "
        "there (RuntimeError: "
    )
    assert text.startswith(prefix)
    assert text.endswith(").")
    return text[len(prefix) : -len(").")]


@pytest.mark.parametrize(
    ("message", "quoted"),
    [
        ("First sentence. Second one. Third.", "First sentence"),
        ("Only line one. More\nand a second line", "Only line one"),
        ("Ends with a dot.", "Ends with a dot"),
        ("Needs MAX.", "Needs MAX"),
        ("..leading dots stay. Then more", "..leading dots stay"),
        ("  padded  \n", "padded"),
        ("", "no message"),
        ("\n\n", "no message"),
        ("x" * 200, "x" * 200),
        ("x" * 201, "x" * 197 + "..."),
        ("y" * 500 + ". short", "y" * 197 + "..."),
    ],
)
def test_the_device_error_quotes_the_first_sentence_of_torch_s(
    message: str, quoted: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _reason(monkeypatch, message) == quoted


def test_the_device_is_checked_with_the_dtype_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    # A backend without bfloat16 (but with float32): the device is at fault for this dtype,
    # which a check with torch's default dtype would miss, re-raising torch's error instead.
    real_empty = torch.empty

    def empty(size: int, **kwargs: Any) -> torch.Tensor:
        if kwargs.get("dtype") is torch.bfloat16:
            raise RuntimeError("bfloat16 is not supported on this backend")
        return real_empty(size, **kwargs)

    monkeypatch.setattr(torch, "empty", empty)
    with pytest.raises(ValueError, match=r"^`device` 'cpu' cannot be used here") as caught:
        ParallelDraftingParams(
            DFLASH, dtype="bfloat16", device="cpu", pass_hidden_states_to_model=True
        )
    assert str(caught.value) == (
        "`device` 'cpu' cannot be used here: torch cannot allocate torch.bfloat16 tensors "
        "there (RuntimeError: bfloat16 is not supported on this backend)."
    )
    float32 = ParallelDraftingParams(
        DFLASH, dtype="float32", device="cpu", pass_hidden_states_to_model=True
    )
    assert float32.parallel_drafting_hidden_state_tensor is not None
    assert float32.parallel_drafting_hidden_state_tensor.dtype is torch.float32
