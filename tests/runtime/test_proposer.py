"""ParallelDraftingParams and the vLLM drop-ins, on the CPU and the meta device."""

from __future__ import annotations

import multiprocessing
import pickle
import re
import sys
import warnings
from concurrent.futures import ProcessPoolExecutor
from types import SimpleNamespace
from typing import Any
from unittest import mock

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from drafting_config import ParallelDraftingConfig, ParallelDraftingConfigError
from drafting_config.integrations import vllm
from drafting_config.runtime import proposer as proposer_module
from drafting_config.runtime.proposer import (
    DTYPE_NAMES,
    ParallelDraftingParams,
    parse_hidden_size,
)
from tests.conftest import EXAMPLES
from tests.foreign import int_enum
from tests.typing_checks import MypyResult, expected_errors, snippet

DFLASH = ParallelDraftingConfig.from_pretrained(EXAMPLES / "dflash-qwen3-4b")
NO_SIZE = ParallelDraftingConfig.from_hf_config({"pard_token": 7})


def params(config: ParallelDraftingConfig = DFLASH, **overrides: Any) -> ParallelDraftingParams:
    """ParallelDraftingParams with working defaults, some overridden."""
    arguments: dict[str, Any] = {
        "dtype": "bfloat16",
        "device": "cpu",
        "pass_hidden_states_to_model": True,
        **overrides,
    }
    return ParallelDraftingParams(config, **arguments)


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
    parallel = params(dtype=dtype, device=device)
    tensor = parallel.parallel_drafting_hidden_state_tensor
    assert tensor is not None
    assert tensor.shape == (2560,)
    assert tensor.dtype == expected
    assert tensor.device == torch.device(device)
    assert parallel.parallel_drafting_token_id == 151669
    assert (parallel.dtype, parallel.device) == (expected, torch.device(device))


def test_dtype_names_are_the_documented_ones() -> None:
    assert set(DTYPE_NAMES) == {"bfloat16", "bf16", "float16", "half", "float32", "float"}


def test_hidden_size_override_wins() -> None:
    parallel = params(dtype="float32", hidden_size=3 * 2560)
    assert parallel.hidden_size == 7680
    tensor = parallel.parallel_drafting_hidden_state_tensor
    assert tensor is not None
    assert tensor.shape == (7680,)


def test_no_tensor_without_hidden_states() -> None:
    parallel = params(NO_SIZE, pass_hidden_states_to_model=False)
    assert parallel.parallel_drafting_hidden_state_tensor is None
    assert parallel.parallel_drafting_token_id == 7
    assert "hidden_state_tensor=None" in repr(parallel)


def test_repr_names_the_class_and_the_shape() -> None:
    assert repr(params(device="meta")) == (
        "ParallelDraftingParams(token_id=151669, source='dflash_config.mask_token_id', "
        "dtype=torch.bfloat16, device='meta', hidden_size=2560, hidden_state_tensor=(2560,))"
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"dtype": "bfloat15"},
            "`dtype` must be a torch.dtype or one of 'bfloat16', 'bf16', 'float16', 'half', "
            "'float32', 'float', got 'bfloat15' (str).",
        ),
        ({"dtype": "torch.bfloat16"}, "`dtype` must be a torch.dtype or one of"),
        ({"dtype": torch.int32}, "`dtype` must be a floating-point dtype"),
        ({"dtype": 16}, "`dtype` must be a torch.dtype or one of"),
        ({"dtype": mock.Mock(spec=torch.dtype)}, "`dtype` must be a torch.dtype or one of"),
        ({"dtype": mock.Mock(spec=str)}, "`dtype` must be a torch.dtype or one of"),
        ({"device": "gpu"}, "`device` must name a torch device"),
        ({"device": "cuda:x"}, "`device` must name a torch device"),
        ({"device": ""}, "`device` must name a torch device"),
        ({"device": 0}, "`device` must be a torch.device or a str, got 0 (int)."),
        ({"device": mock.Mock(spec=torch.device)}, "`device` must be a torch.device or a str"),
        ({"device": mock.Mock(spec=str)}, "`device` must be a torch.device or a str"),
        ({"hidden_size": 0}, "`hidden_size` must be a positive int below 2**31, got 0 (int)."),
        ({"hidden_size": -8}, "`hidden_size` must be a positive int below 2**31, got -8 (int)."),
        ({"hidden_size": 2560.0}, "`hidden_size` must be a positive int below 2**31, got 2560.0"),
        ({"hidden_size": True}, "`hidden_size` must be a positive int below 2**31, got True"),
        ({"hidden_size": "2560"}, "`hidden_size` must be a positive int below 2**31, got '2560'"),
        ({"pass_hidden_states_to_model": "false"}, "`pass_hidden_states_to_model` must be True"),
    ],
)
def test_bad_parameters_are_value_errors_naming_them(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        params(**kwargs)


# --- hidden_size: the config's bound, named in the error ------------------------------------------


@pytest.mark.parametrize("size", [2**31, 2**31 + 1, 2**40, 2**63, 2**64, 10**400])
def test_an_explicit_hidden_size_has_the_configs_upper_bound(size: int) -> None:
    with pytest.raises(ValueError, match=r"^`hidden_size` must be a positive int below 2\*\*31"):
        params(hidden_size=size, device="meta")


@pytest.mark.parametrize("size", [1, 2**31 - 1])
def test_hidden_sizes_at_the_bounds_allocate(size: int) -> None:
    tensor = params(hidden_size=size, device="meta").parallel_drafting_hidden_state_tensor
    assert tensor is not None
    assert tensor.shape == (size,)
    assert parse_hidden_size(2**31 - 1) == 2**31 - 1


def test_an_int_subclass_counts_as_its_true_value() -> None:
    parallel = params(hidden_size=int_enum(5), device="meta")
    assert parallel.hidden_size == 5
    assert type(parallel.hidden_size) is int
    tensor = parallel.parallel_drafting_hidden_state_tensor
    assert tensor is not None
    assert tensor.shape == (5,)


def test_an_out_of_range_int_subclass_is_refused_without_calling_it() -> None:
    with pytest.raises(ValueError, match=r"^`hidden_size` must be a positive int below 2\*\*31"):
        params(hidden_size=int_enum(2**31), device="meta")


@pytest.mark.parametrize(
    "value", [mock.Mock(spec=int), mock.Mock(spec=float)], ids=["int", "float"]
)
def test_a_disguised_non_int_is_refused(value: object) -> None:
    with pytest.raises(ValueError, match=r"^`hidden_size` must be a positive int below 2\*\*31"):
        params(hidden_size=value, device="meta")


@given(st.integers())
def test_parse_hidden_size_accepts_exactly_the_int32_positives(size: int) -> None:
    if 0 < size < 2**31:
        assert parse_hidden_size(size) == size
    else:
        with pytest.raises(ValueError, match=r"^`hidden_size` must be a positive int"):
            parse_hidden_size(size)


@given(
    st.one_of(
        st.none(),
        st.booleans(),
        st.floats(),
        st.text(),
        st.binary(),
        st.lists(st.integers(), max_size=3),
        st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    )
)
def test_parse_hidden_size_refuses_every_non_int(value: object) -> None:
    with pytest.raises(ValueError, match=r"^`hidden_size` must be a positive int"):
        parse_hidden_size(value)  # type: ignore[arg-type]


# --- devices torch cannot use here ----------------------------------------------------------------


def _unusable_here(device: str) -> bool:
    try:
        torch.empty(0, device=device)
    except Exception:  # any failure at all makes it a device this machine cannot use
        return True
    return False


UNUSABLE_DEVICES = [
    device
    for device in ("hpu", "hpu:0", "xpu", "mps", "mtia", "ipu", "xla", "vulkan", "privateuseone")
    if _unusable_here(device)
] + (["cuda", "cuda:1"] if not torch.cuda.is_available() else [])


@pytest.mark.parametrize("device", UNUSABLE_DEVICES)
def test_a_device_torch_cannot_load_is_a_value_error_naming_it(device: str) -> None:
    with pytest.raises(ValueError, match=f"^`device` {device!r} cannot be used here") as caught:
        params(device=device)
    assert type(caught.value) is ValueError
    assert caught.value.__cause__ is None
    assert caught.value.__suppress_context__


def test_there_are_unusable_devices_to_test() -> None:
    assert len(UNUSABLE_DEVICES) >= 3  # hpu and the MPS / XLA backends are never built for CPU


@pytest.mark.parametrize("device", ["hpu", "xpu", "mps"])
def test_an_unusable_device_is_fine_when_nothing_is_allocated(device: str) -> None:
    parallel = params(device=device, pass_hidden_states_to_model=False)
    assert parallel.device == torch.device(device)
    assert parallel.parallel_drafting_hidden_state_tensor is None


def test_a_device_torch_only_warns_about_is_a_value_error() -> None:
    # pytest turns warnings into errors here, so torch's deprecation warning raises; but torch
    # warns only once per process, so a second run in the same process (mutmut runs the suite
    # more than once) gets past torch.device() and fails at the allocation instead.
    pattern = r"^`device` (must name a torch device.*no longer used|'mkldnn' cannot be used here)"
    for _ in range(2):
        with pytest.raises(ValueError, match=pattern):
            params(device="mkldnn")


@pytest.mark.parametrize(
    "error",
    [torch.OutOfMemoryError("CUDA out of memory"), RuntimeError("can't allocate memory")],
    ids=["oom", "cpu-allocator"],
)
def test_allocation_errors_on_a_working_device_are_not_blamed_on_it(
    error: Exception, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_empty = torch.empty

    def empty(size: int, **kwargs: Any) -> torch.Tensor:
        if size:
            raise error
        return real_empty(size, **kwargs)

    monkeypatch.setattr(torch, "empty", empty)
    with pytest.raises(type(error)) as caught:
        params()
    assert caught.value is error


def test_missing_hidden_size_is_an_error_only_when_needed() -> None:
    with pytest.raises(ValueError, match=r"^`hidden_size` is needed because hidden states"):
        params(NO_SIZE)
    assert params(NO_SIZE, pass_hidden_states_to_model=False).hidden_size is None


# --- the flag is a real bool ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "flag", ["false", "False", "", 0, 1, None, 0.0, torch.tensor(True)], ids=repr
)
def test_the_flag_must_be_a_real_bool(flag: object) -> None:
    with pytest.raises(ValueError, match=r"^`pass_hidden_states_to_model` must be True or False"):
        params(pass_hidden_states_to_model=flag)


def test_config_must_be_the_typed_model() -> None:
    with pytest.raises(ValueError, match=r"^`config` must be a ParallelDraftingConfig, got dict"):
        ParallelDraftingParams(
            {"pard_token": 7},  # type: ignore[arg-type]
            dtype="half",
            device="cpu",
            pass_hidden_states_to_model=False,
        )


# --- the deprecated name --------------------------------------------------------------------------


def test_the_old_name_warns_at_the_importing_line() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = sys._getframe().f_lineno + 1
        from drafting_config.runtime.proposer import ParallelDraftingProposer
    assert ParallelDraftingProposer is ParallelDraftingParams
    [warning] = caught
    assert warning.category is DeprecationWarning
    assert "ParallelDraftingProposer is deprecated" in str(warning.message)
    assert "ParallelDraftingParams" in str(warning.message)
    assert (warning.filename, warning.lineno) == (__file__, line)


def test_the_old_name_warns_on_attribute_access_too() -> None:
    with pytest.warns(DeprecationWarning, match="ParallelDraftingProposer is deprecated") as caught:
        old = proposer_module.ParallelDraftingProposer  # type: ignore[deprecated]  # on purpose
    assert old is ParallelDraftingParams
    assert caught[0].filename == __file__


def test_the_old_name_is_not_exported_and_other_names_still_fail() -> None:
    assert "ParallelDraftingProposer" not in proposer_module.__all__
    assert "ParallelDraftingParams" in proposer_module.__all__
    with pytest.raises(AttributeError, match="has no attribute 'NoSuchName'"):
        proposer_module.NoSuchName  # type: ignore[attr-defined]  # noqa: B018


def test_a_star_import_does_not_warn() -> None:
    namespace: dict[str, object] = {}
    exec("from drafting_config.runtime.proposer import *", namespace)  # pytest: warnings are errors
    assert namespace["ParallelDraftingParams"] is ParallelDraftingParams
    assert "ParallelDraftingProposer" not in namespace


# --- vLLM drop-ins --------------------------------------------------------------------------------


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


class BareProposer:
    """Stands in for vLLM's proposer class; built with ``object.__new__``, as vLLM's tests do."""


def bare_proposer(hf_config: object, *, pass_hidden_states_to_model: bool) -> BareProposer:
    proposer = object.__new__(BareProposer)
    proposer.draft_model_config = SimpleNamespace(hf_config=hf_config)  # type: ignore[attr-defined]
    proposer.pass_hidden_states_to_model = pass_hidden_states_to_model  # type: ignore[attr-defined]
    return proposer


def test_a_bare_proposer_without_hidden_states_gets_only_its_token_id() -> None:
    proposer = bare_proposer(
        SimpleNamespace(dflash_config={"mask_token_id": 151669}), pass_hidden_states_to_model=False
    )
    vllm.init_parallel_drafting_params(proposer)  # type: ignore[arg-type]
    assert vars(proposer) == {
        "draft_model_config": proposer.draft_model_config,  # type: ignore[attr-defined]
        "pass_hidden_states_to_model": False,
        "parallel_drafting_token_id": 151669,
    }


def test_a_bare_proposer_with_hidden_states_needs_the_three_attributes() -> None:
    proposer = bare_proposer(SimpleNamespace(pard_token=5), pass_hidden_states_to_model=True)
    with pytest.raises(AttributeError, match="hidden_size"):
        vllm.init_parallel_drafting_params(proposer)  # type: ignore[arg-type]
    assert not hasattr(proposer, "parallel_drafting_token_id")  # nothing set on failure
    proposer.hidden_size = 8  # type: ignore[attr-defined]
    proposer.dtype = torch.float16  # type: ignore[attr-defined]
    proposer.device = torch.device("meta")  # type: ignore[attr-defined]
    vllm.init_parallel_drafting_params(proposer)  # type: ignore[arg-type]
    assert proposer.parallel_drafting_token_id == 5  # type: ignore[attr-defined]
    tensor = proposer.parallel_drafting_hidden_state_tensor  # type: ignore[attr-defined]
    assert (tensor.shape, tensor.dtype, tensor.device) == (
        (8,),
        torch.float16,
        torch.device("meta"),
    )


class RecordingProposer:
    """Records every attribute read and written by name."""

    def __init__(self, hf_config: object, *, pass_hidden_states_to_model: bool) -> None:
        state = {
            "draft_model_config": SimpleNamespace(hf_config=hf_config),
            "pass_hidden_states_to_model": pass_hidden_states_to_model,
            "hidden_size": 16,
            "dtype": torch.float32,
            "device": torch.device("meta"),
        }
        object.__setattr__(self, "state", state)
        object.__setattr__(self, "read", [])
        object.__setattr__(self, "written", {})

    def __getattr__(self, name: str) -> object:
        self.read.append(name)
        return self.state[name]

    def __setattr__(self, name: str, value: object) -> None:
        self.written[name] = value

    read: list[str]
    written: dict[str, object]
    state: dict[str, object]


@pytest.mark.parametrize(
    ("flag", "reads", "writes"),
    [
        (
            False,
            ["draft_model_config", "pass_hidden_states_to_model"],
            {"parallel_drafting_token_id"},
        ),
        (
            True,
            ["draft_model_config", "pass_hidden_states_to_model", "hidden_size", "dtype", "device"],
            {"parallel_drafting_token_id", "parallel_drafting_hidden_state_tensor"},
        ),
    ],
)
def test_the_drop_in_touches_exactly_what_vllms_method_touches(
    flag: bool, reads: list[str], writes: set[str]
) -> None:
    proposer = RecordingProposer({"ptd_token_id": 3}, pass_hidden_states_to_model=flag)
    vllm.init_parallel_drafting_params(proposer)  # type: ignore[arg-type]
    assert proposer.read == reads  # in vLLM's order: torch.empty(hidden_size, dtype, device)
    assert set(proposer.written) == writes
    assert proposer.written["parallel_drafting_token_id"] == 3


@pytest.mark.parametrize("flag", ["false", 0, None], ids=repr)
def test_the_drop_in_refuses_a_flag_that_is_not_a_bool(flag: object) -> None:
    proposer = fake_vllm_proposer({"pard_token": 9}, pass_hidden_states_to_model=False)
    proposer.pass_hidden_states_to_model = flag
    with pytest.raises(ValueError, match=r"`pass_hidden_states_to_model` must be True or False"):
        vllm.init_parallel_drafting_params(proposer)
    assert proposer.parallel_drafting_token_id == 0


def test_the_drop_in_sets_nothing_when_the_device_fails() -> None:
    proposer = fake_vllm_proposer({"pard_token": 9}, pass_hidden_states_to_model=True)
    proposer.device = torch.device("hpu")
    with pytest.raises(ValueError, match=r"^`device` 'hpu' cannot be used here"):
        vllm.init_parallel_drafting_params(proposer)
    assert proposer.parallel_drafting_token_id == 0
    assert proposer.parallel_drafting_hidden_state_tensor is None


def test_init_parallel_drafting_params_raises_value_errors() -> None:
    proposer = fake_vllm_proposer({"pard_token": "128020"}, pass_hidden_states_to_model=False)
    with pytest.raises(ParallelDraftingConfigError, match="`pard_token` must be an integer"):
        vllm.init_parallel_drafting_params(proposer)
    assert proposer.parallel_drafting_token_id == 0  # untouched on failure


def test_newer_runner_drop_in() -> None:
    assert vllm.get_parallel_drafting_token_id({"dspark_noise_token_id": 151669}) == 151669
    with pytest.raises(ValueError, match=r"`dflash_config\.mask_token_id`, `mask_token_id`"):
        vllm.get_parallel_drafting_token_id({})


# --- typing ---------------------------------------------------------------------------------------

TENSOR_MAY_BE_NONE = """
import torch
from drafting_config import ParallelDraftingConfig
from drafting_config.runtime.proposer import ParallelDraftingParams

config = ParallelDraftingConfig.from_hf_config({"pard_token": 7, "hidden_size": 8})
parallel = ParallelDraftingParams(
    config, dtype="half", device="cpu", pass_hidden_states_to_model=True
)
size = parallel.parallel_drafting_hidden_state_tensor.shape  # E: union-attr
tensor: torch.Tensor = parallel.parallel_drafting_hidden_state_tensor  # E: assignment
parallel.parallel_drafting_token_id = 3  # E: misc
ParallelDraftingParams(config, dtype=torch.float16, device="cpu")  # E: call-arg
if parallel.parallel_drafting_hidden_state_tensor is not None:
    ok: torch.Tensor = parallel.parallel_drafting_hidden_state_tensor
"""

OLD_NAME_IS_DEPRECATED = """
from drafting_config import ParallelDraftingConfig, proposer
from drafting_config.runtime.proposer import ParallelDraftingParams
from drafting_config.runtime.proposer import ParallelDraftingProposer  # E: deprecated

config = ParallelDraftingConfig.from_hf_config({"pard_token": 7, "hidden_size": 8})
old = proposer.ParallelDraftingProposer(  # E: deprecated
    config, dtype="half", device="cpu", pass_hidden_states_to_model=False
)
new: ParallelDraftingParams = old
"""

PROTOCOL_USERS = """
import torch
from dataclasses import dataclass
from typing import Literal
from drafting_config.runtime.vllm import init_parallel_drafting_params

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

@dataclass
class TokenOnlyProposer:
    draft_model_config: ModelConfig
    pass_hidden_states_to_model: Literal[False] = False
    parallel_drafting_token_id: int = 0

@dataclass
class MayPassHiddenStatesButCannotSizeThem:
    draft_model_config: ModelConfig
    pass_hidden_states_to_model: bool
    parallel_drafting_token_id: int = 0

cpu, model = torch.device("cpu"), ModelConfig({})
init_parallel_drafting_params(GoodProposer(model, True, 8, torch.half, cpu))
init_parallel_drafting_params(StringlyProposer(model, True, 8, "half", cpu))  # E: arg-type
init_parallel_drafting_params(IncompleteProposer(model, 8))  # E: arg-type
init_parallel_drafting_params(TokenOnlyProposer(model))
init_parallel_drafting_params(MayPassHiddenStatesButCannotSizeThem(model, True))  # E: arg-type
"""


MISUSES = {
    snippet("proposer_tensor", TENSOR_MAY_BE_NONE): TENSOR_MAY_BE_NONE,
    snippet("proposer_deprecated", OLD_NAME_IS_DEPRECATED): OLD_NAME_IS_DEPRECATED,
    snippet("proposer_protocol", PROTOCOL_USERS): PROTOCOL_USERS,
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MISUSES))
def test_mypy_rejects_misuse(name: str, mypy_results: dict[str, MypyResult]) -> None:
    errors, report = mypy_results[name]
    assert errors == expected_errors(MISUSES[name]), report


PUBLIC_API = """
import torch
from drafting_config import ParallelDraftingConfig
from drafting_config.runtime.vllm import (
    ParallelDraftingProposerLike,
    TokenOnlyProposerLike,
    get_parallel_drafting_token_id,
    init_parallel_drafting_params,
)
from drafting_config.runtime.proposer import (
    DTYPE_NAMES,
    ParallelDraftingParams,
    parse_device,
    parse_dtype,
    parse_hidden_size,
)

config = ParallelDraftingConfig.from_hf_config({"pard_token": 7, "hidden_size": 8})
parallel = ParallelDraftingParams(
    config, dtype="half", device="cpu", pass_hidden_states_to_model=True
)
tensor: torch.Tensor | None = parallel.parallel_drafting_hidden_state_tensor
token_id: int = parallel.parallel_drafting_token_id + get_parallel_drafting_token_id({})
hidden_size: int | None = parallel.hidden_size
dtype: torch.dtype = parse_dtype("half")
device: torch.device = parse_device("cpu")
size: int = parse_hidden_size(8) + 1
names: list[str] = list(DTYPE_NAMES)


def setup(full: ParallelDraftingProposerLike, token_only: TokenOnlyProposerLike) -> None:
    init_parallel_drafting_params(full)
    init_parallel_drafting_params(token_only)
"""


PUBLIC_API_CHECK = snippet("proposer_public_api", PUBLIC_API, no_any=True)


@pytest.mark.slow
def test_the_proposer_api_leaks_no_any(mypy_results: dict[str, MypyResult]) -> None:
    errors, report = mypy_results[PUBLIC_API_CHECK]
    assert errors == set(), report


def test_params_lay_out_masked_slots_with_the_resolved_id() -> None:
    config = ParallelDraftingConfig.from_pretrained(EXAMPLES / "ptd-eagle3-llama3-8b")
    i32 = torch.int32
    ids = torch.tensor([10, 11, 12, 13, 20, 21, 22, 23], dtype=i32)
    positions = torch.tensor([5, 6, 7, 8, 10, 11, 12, 13])
    next_ids, starts = torch.tensor([100, 200], dtype=i32), torch.tensor([0, 4, 8], dtype=i32)
    rejected = torch.tensor([1, 0], dtype=i32)
    params = ParallelDraftingParams(
        config, dtype="float32", device="cpu", pass_hidden_states_to_model=True
    )
    tensor = params.parallel_drafting_hidden_state_tensor
    assert tensor is not None
    tensor.fill_(-1.0)
    eagle = params.expand_eagle_inputs(
        ids, positions, next_ids, starts, rejected, num_speculative_tokens=3, shift_input_ids=True
    )
    mask = config.token_id  # 128002, where vLLM's pin has -2
    assert eagle.input_ids.tolist() == [11, 12, 100, mask, mask, 0, 21, 22, 23, 200, mask, mask]
    hidden = params.expand_hidden_states(torch.ones(8, 4096), eagle)
    assert hidden[:, 0].tolist() == [1, 1, 1, -1, -1, 0, 1, 1, 1, 1, -1, -1]
    dflash = params.expand_dflash_inputs(
        next_ids,
        positions,
        starts,
        num_speculative_tokens=2,
        block_table=torch.tensor([[1], [2]]),
        kv_block_size=16,
    )
    assert dflash.input_ids.tolist() == [100, mask, mask, 200, mask, mask]
    no_hidden = ParallelDraftingParams(
        config, dtype="float32", device="cpu", pass_hidden_states_to_model=False
    )
    with pytest.raises(ValueError, match="is None"):
        no_hidden.expand_hidden_states(torch.ones(8, 4096), eagle)


# --- Exact edges of the proposer's device errors: which dtype is tried, and how torch's message ---


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


# --- Configs travel to worker processes, as engines ship them, and proposers use them there -------


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
