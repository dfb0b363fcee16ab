"""ParallelDraftingProposer and the vLLM drop-ins, on the CPU and the meta device."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import torch

from drafting_config import ParallelDraftingConfig, ParallelDraftingConfigError
from drafting_config.integrations import vllm
from drafting_config.proposer import DTYPE_NAMES, ParallelDraftingProposer
from tests.conftest import EXAMPLES
from tests.typing_checks import expected_errors, run_mypy

DFLASH = ParallelDraftingConfig.from_pretrained(EXAMPLES / "dflash-qwen3-4b")
NO_SIZE = ParallelDraftingConfig.from_hf_config({"pard_token": 7})


@pytest.mark.parametrize("device", ["cpu", "meta", torch.device("cpu"), torch.device("meta")])
@pytest.mark.parametrize(
    ("dtype", "expected"),
    [
        ("bfloat16", torch.bfloat16),
        ("bf16", torch.bfloat16),
        ("float16", torch.float16),
        ("half", torch.float16),
        ("float32", torch.float32),
        ("float", torch.float32),
        (torch.bfloat16, torch.bfloat16),
        (torch.float64, torch.float64),
    ],
)
def test_hidden_state_tensor_shape_dtype_device(
    dtype: torch.dtype | str, expected: torch.dtype, device: torch.device | str
) -> None:
    proposer = ParallelDraftingProposer(
        DFLASH, dtype=dtype, device=device, pass_hidden_states_to_model=True
    )
    tensor = proposer.parallel_drafting_hidden_state_tensor
    assert tensor is not None
    assert tensor.shape == (2560,)
    assert tensor.dtype == expected
    assert tensor.device == torch.device(device)
    assert proposer.parallel_drafting_token_id == 151669
    assert (proposer.dtype, proposer.device) == (expected, torch.device(device))


def test_dtype_names_are_the_documented_ones() -> None:
    assert set(DTYPE_NAMES) == {"bfloat16", "bf16", "float16", "half", "float32", "float"}


def test_hidden_size_override_wins() -> None:
    proposer = ParallelDraftingProposer(
        DFLASH,
        dtype="float32",
        device="cpu",
        pass_hidden_states_to_model=True,
        hidden_size=3 * 2560,
    )
    assert proposer.hidden_size == 7680
    tensor = proposer.parallel_drafting_hidden_state_tensor
    assert tensor is not None
    assert tensor.shape == (7680,)


def test_no_tensor_without_hidden_states() -> None:
    proposer = ParallelDraftingProposer(
        NO_SIZE, dtype="bfloat16", device="cpu", pass_hidden_states_to_model=False
    )
    assert proposer.parallel_drafting_hidden_state_tensor is None
    assert proposer.parallel_drafting_token_id == 7
    assert "hidden_state_tensor=None" in repr(proposer)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"dtype": "bfloat15"},
            "dtype='bfloat15' is not a known dtype; expected a torch.dtype or one of 'bfloat16'",
        ),
        ({"dtype": "torch.bfloat16"}, "dtype='torch.bfloat16' is not a known dtype"),
        ({"dtype": torch.int32}, "dtype=torch.int32 is not a floating-point dtype"),
        ({"dtype": 16}, "dtype=16 is not a known dtype"),
        ({"device": "gpu"}, "device='gpu' is not a valid device"),
        ({"device": "cuda:x"}, "device='cuda:x' is not a valid device"),
        ({"device": 0}, "device=0 is not a valid device"),
        ({"hidden_size": 0}, "hidden_size=0 is not a positive int"),
        ({"hidden_size": -8}, "hidden_size=-8 is not a positive int"),
        ({"hidden_size": 2560.0}, "hidden_size=2560.0 is not a positive int"),
        ({"hidden_size": True}, "hidden_size=True is not a positive int"),
    ],
)
def test_bad_parameters_are_value_errors_naming_them(kwargs: dict[str, Any], message: str) -> None:
    arguments: dict[str, Any] = {
        "dtype": "bfloat16",
        "device": "cpu",
        "pass_hidden_states_to_model": True,
        **kwargs,
    }
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(").replace(".", r"\.")):
        ParallelDraftingProposer(DFLASH, **arguments)


def test_missing_hidden_size_is_an_error_only_when_needed() -> None:
    with pytest.raises(ValueError, match=r"^hidden_size=None: hidden states are passed"):
        ParallelDraftingProposer(
            NO_SIZE, dtype="half", device="cpu", pass_hidden_states_to_model=True
        )


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_an_unavailable_device_is_a_value_error() -> None:
    with pytest.raises(ValueError, match=r"^device='cuda' cannot be used here"):
        ParallelDraftingProposer(
            DFLASH, dtype="half", device="cuda", pass_hidden_states_to_model=True
        )


def test_config_must_be_the_typed_model() -> None:
    with pytest.raises(ValueError, match="config must be a ParallelDraftingConfig, got dict"):
        ParallelDraftingProposer(
            {"pard_token": 7},  # type: ignore[arg-type]
            dtype="half",
            device="cpu",
            pass_hidden_states_to_model=False,
        )


# --- vLLM drop-ins ----------------------------------------------------------


def fake_vllm_proposer(
    hf_config: object, *, pass_hidden_states_to_model: bool, hidden_size: int = 4096
) -> SimpleNamespace:
    """Shaped like vLLM's proposer just before it calls _init_parallel_drafting_params."""
    return SimpleNamespace(
        draft_model_config=SimpleNamespace(hf_config=hf_config),
        pass_hidden_states_to_model=pass_hidden_states_to_model,
        hidden_size=hidden_size,
        dtype=torch.bfloat16,
        device=torch.device("cpu"),
        parallel_drafting_token_id=0,
        parallel_drafting_hidden_state_tensor=None,
    )


def test_init_parallel_drafting_params_with_hidden_states() -> None:
    from transformers import LlamaConfig

    hf_config = LlamaConfig.from_dict(
        {"ptd_token_id": 128002, "hidden_size": 4096, "vocab_size": 128256}
    )
    proposer = fake_vllm_proposer(hf_config, pass_hidden_states_to_model=True, hidden_size=3 * 4096)
    vllm.init_parallel_drafting_params(proposer)
    assert proposer.parallel_drafting_token_id == 128002
    tensor = proposer.parallel_drafting_hidden_state_tensor
    assert isinstance(tensor, torch.Tensor)
    # Sized by the proposer's hidden_size, as vLLM's method does, not the config's.
    assert (tensor.shape, tensor.dtype, tensor.device) == (
        (12288,),
        torch.bfloat16,
        torch.device("cpu"),
    )


def test_init_parallel_drafting_params_without_hidden_states_leaves_the_tensor() -> None:
    proposer = fake_vllm_proposer({"pard_token": 128020}, pass_hidden_states_to_model=False)
    sentinel = torch.zeros(1)
    proposer.parallel_drafting_hidden_state_tensor = sentinel
    vllm.init_parallel_drafting_params(proposer)
    assert proposer.parallel_drafting_token_id == 128020
    assert proposer.parallel_drafting_hidden_state_tensor is sentinel


def test_init_parallel_drafting_params_raises_value_errors() -> None:
    proposer = fake_vllm_proposer({"pard_token": "128020"}, pass_hidden_states_to_model=False)
    with pytest.raises(ParallelDraftingConfigError, match="`pard_token` must be an integer"):
        vllm.init_parallel_drafting_params(proposer)
    assert proposer.parallel_drafting_token_id == 0  # untouched on failure


def test_newer_runner_drop_in() -> None:
    assert vllm.get_parallel_drafting_token_id({"dspark_noise_token_id": 151669}) == 151669
    with pytest.raises(ValueError, match=r"`dflash_config\.mask_token_id`, `mask_token_id`"):
        vllm.get_parallel_drafting_token_id({})


# --- typing -----------------------------------------------------------------

TENSOR_MAY_BE_NONE = """
import torch
from drafting_config import ParallelDraftingConfig
from drafting_config.proposer import ParallelDraftingProposer

config = ParallelDraftingConfig.from_hf_config({"pard_token": 7, "hidden_size": 8})
proposer = ParallelDraftingProposer(
    config, dtype="half", device="cpu", pass_hidden_states_to_model=True
)
size = proposer.parallel_drafting_hidden_state_tensor.shape  # E: union-attr
tensor: torch.Tensor = proposer.parallel_drafting_hidden_state_tensor  # E: assignment
proposer.parallel_drafting_token_id = 3  # E: misc
ParallelDraftingProposer(config, dtype=torch.float16, device="cpu")  # E: call-arg
if proposer.parallel_drafting_hidden_state_tensor is not None:
    ok: torch.Tensor = proposer.parallel_drafting_hidden_state_tensor
"""

PROTOCOL_USERS = """
import torch
from dataclasses import dataclass
from drafting_config.integrations.vllm import init_parallel_drafting_params

@dataclass
class ModelConfig:
    hf_config: object

@dataclass
class GoodProposer:
    draft_model_config: ModelConfig
    pass_hidden_states_to_model: bool
    hidden_size: int
    dtype: torch.dtype
    device: torch.device
    parallel_drafting_token_id: int = 0
    parallel_drafting_hidden_state_tensor: torch.Tensor | None = None

@dataclass
class StringlyProposer:
    draft_model_config: ModelConfig
    pass_hidden_states_to_model: bool
    hidden_size: int
    dtype: str
    device: torch.device
    parallel_drafting_token_id: int = 0
    parallel_drafting_hidden_state_tensor: torch.Tensor | None = None

@dataclass
class IncompleteProposer:
    draft_model_config: ModelConfig
    hidden_size: int

cpu, model = torch.device("cpu"), ModelConfig({})
init_parallel_drafting_params(GoodProposer(model, True, 8, torch.half, cpu))
init_parallel_drafting_params(StringlyProposer(model, True, 8, "half", cpu))  # E: arg-type
init_parallel_drafting_params(IncompleteProposer(model, 8))  # E: arg-type
"""


@pytest.mark.slow
@pytest.mark.parametrize("source", [TENSOR_MAY_BE_NONE, PROTOCOL_USERS], ids=["tensor", "protocol"])
def test_mypy_rejects_misuse(source: str, tmp_path: Path) -> None:
    errors, report = run_mypy(source, tmp_path)
    assert errors == expected_errors(source), report
