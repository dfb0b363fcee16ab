"""Configs travel to worker processes, as engines ship them, and proposers use them there."""

from __future__ import annotations

import multiprocessing
import pickle
from concurrent.futures import ProcessPoolExecutor

import pytest

from drafting_config import ParallelDraftingConfig
from tests.conftest import EXAMPLES


def build_in_worker(as_json: str, as_pickle: bytes) -> tuple[bool, str, tuple[int, ...], str, str]:
    """Runs in a fresh spawn-started process: rebuild both ways, then allocate."""
    import torch

    from drafting_config.runtime.proposer import ParallelDraftingParams

    from_json = ParallelDraftingConfig.model_validate_json(as_json)
    from_pickle = pickle.loads(as_pickle)
    parallel = ParallelDraftingParams(
        from_json, dtype="bfloat16", device="cpu", pass_hidden_states_to_model=True
    )
    tensor = parallel.parallel_drafting_hidden_state_tensor
    assert tensor is not None
    return (
        from_json == from_pickle,
        from_json.model_dump_json(),
        tuple(tensor.shape),
        str(tensor.dtype),
        str(torch.device(tensor.device)),
    )


@pytest.mark.slow
def test_spawned_worker_rebuilds_an_equal_config_and_allocates() -> None:
    config = ParallelDraftingConfig.from_pretrained(EXAMPLES / "dspark-noise-qwen3-8b")
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        same, dumped, shape, dtype, device = pool.submit(
            build_in_worker, config.model_dump_json(), pickle.dumps(config)
        ).result(timeout=120)
    assert same
    assert ParallelDraftingConfig.model_validate_json(dumped) == config
    assert (shape, dtype, device) == ((4096,), "torch.bfloat16", "cpu")
