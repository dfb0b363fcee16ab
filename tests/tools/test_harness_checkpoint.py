"""The scaled-down drafts and checkpoints the harnesses' weights stage loads
(``tools/harness/checkpoint.py``), and what the vLLM stage runner reads back."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st
from safetensors import safe_open

from tools.engines.vllm.harness.stage_runner import _UNWRITTEN, STAGES, _unwritten, _weights_state
from tools.harness.checkpoint import (
    TARGET_WIDTH,
    read_header,
    scale_factor,
    scaled_shape,
    shrink,
    write_checkpoint,
)

_POWERS = st.integers(min_value=0, max_value=8).map(lambda n: 2**n)
_ODD = st.sampled_from([1, 3, 5, 7, 19, 35])


@given(
    hidden=st.tuples(_POWERS, _ODD).map(lambda p: p[0] * p[1]),
    inner=st.tuples(_POWERS, _ODD).map(lambda p: p[0] * p[1]),
    target_hidden=st.tuples(_POWERS, _ODD).map(lambda p: p[0] * p[1]),
    heads=st.integers(min_value=1, max_value=64),
)
def test_shrinking_keeps_equal_widths_equal_and_ratios_exact(
    hidden: int, inner: int, target_hidden: int, heads: int
) -> None:
    draft = {
        "hidden_size": hidden,
        "intermediate_size": inner,
        "num_attention_heads": heads,
        "vocab_size": 1000,
        "nested": {"hidden_size": hidden},
    }
    target = {"hidden_size": target_hidden, "text_config": {"intermediate_size": inner}}
    small_draft, small_target, factor = shrink(draft, target)
    assert factor == scale_factor(draft, target)
    for width in (hidden, inner, target_hidden):
        assert width % factor == 0
    assert small_draft["hidden_size"] * factor == hidden
    assert small_draft["intermediate_size"] * factor == inner
    assert small_target["hidden_size"] * factor == target_hidden
    assert small_target["text_config"]["intermediate_size"] == small_draft["intermediate_size"]
    assert small_draft["nested"]["hidden_size"] == small_draft["hidden_size"]
    assert small_draft["vocab_size"] == 1000  # token ids must stay below it
    assert small_draft["hidden_size"] >= min(hidden, TARGET_WIDTH)
    if factor > 1:  # the head width the config left implicit is written, unscaled
        assert small_draft["head_dim"] == hidden // heads
        # A tensor k widths wide stays k (scaled) widths wide; a vocabulary is kept.
        assert scaled_shape((hidden, 3 * target_hidden, 1000), draft, target, factor) == (
            hidden // factor,
            3 * target_hidden // factor,
            1000,
        )
    else:
        assert small_draft == draft


def test_a_small_draft_is_not_scaled() -> None:
    draft = {"hidden_size": 16, "intermediate_size": 32, "num_attention_heads": 2}
    assert shrink(draft, {"hidden_size": 16}) == (draft, {"hidden_size": 16}, 1)
    assert scaled_shape((16, 80), draft, {"hidden_size": 16}, 1) == (16, 80)


def test_a_written_checkpoint_is_read_by_the_safetensors_library(tmp_path: Path) -> None:
    tensors = {
        "fc.weight": ("BF16", (4, 12)),
        "d2t": ("I64", (5,)),
        "t2d": ("BOOL", (7,)),
    }
    path = write_checkpoint(tmp_path / "model.safetensors", tensors)
    assert read_header(path) == tensors
    with safe_open(str(path), framework="pt") as file:
        assert sorted(file.keys()) == sorted(tensors)
        assert tuple(file.get_tensor("fc.weight").shape) == (4, 12)
        assert int(file.get_tensor("d2t").abs().sum()) == 0  # zeros


def test_the_weights_stage_sits_between_the_draft_and_its_combine() -> None:
    assert STAGES.index("draft") + 1 == STAGES.index("weights") == STAGES.index("combine") - 1


def test_the_stage_runner_reads_where_the_draft_s_head_and_embedding_come_from() -> None:
    shared_head, own_embedding = object(), object()
    target = SimpleNamespace(lm_head=shared_head, model=SimpleNamespace(embed_tokens=object()))
    draft = SimpleNamespace(
        lm_head=shared_head,
        model=SimpleNamespace(embed_tokens=own_embedding),
        draft_id_to_target_id=SimpleNamespace(shape=(32,)),
    )
    assert _weights_state(draft, target, ["b", "a"]) == {
        "not_from_checkpoint": ["a", "b"],
        "lm_head": "target",
        "embedding": "draft",
        "d2t_shape": [32],
    }
    bare = SimpleNamespace(model=SimpleNamespace())
    assert _weights_state(bare, target, []) == {
        "not_from_checkpoint": [],
        "lm_head": None,
        "embedding": None,
        "d2t_shape": None,
    }


def test_the_stage_runner_lists_the_parameters_the_checkpoint_left_unwritten() -> None:
    import torch

    module = torch.nn.Module()
    module.written = torch.nn.Parameter(torch.zeros(2))
    module.partly = torch.nn.Parameter(torch.tensor([0.0, float("nan")]))
    module.mapping = torch.nn.Parameter(torch.full((3,), _UNWRITTEN), requires_grad=False)
    module.zero_map = torch.nn.Parameter(torch.zeros(3, dtype=torch.long), requires_grad=False)
    assert _unwritten(module) == ["partly", "mapping"]
