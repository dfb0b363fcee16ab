"""The runtime drop-ins against each shipped vLLM release's own functions, those that exist in
it (issue 36, point 6), taken from the released wheels (``engine_wheels``).

* ``get_parallel_drafting_token_id`` (``vllm/v1/worker/gpu/spec_decode/utils.py``) is in every
  shipped release, byte-identical: the drop-in of
  :mod:`drafting_config.runtime.vllm` mirrors each.
* The older runner's ``SpecDecodeBaseProposer._init_parallel_drafting_params``
  (``vllm/v1/spec_decode/llm_base_proposer.py``) exists up to the release before
  :data:`~drafting_config.engines.vllm.names.ONE_MODEL_RUNNER`, which deletes that runner:
  :func:`drafting_config.runtime.vllm.init_parallel_drafting_params` mirrors those releases.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest

from drafting_config.engines.vllm.names import ONE_MODEL_RUNNER, VERSIONS, since
from drafting_config.integrations import vllm
from tests.engines.vllm.test_differential import COMBINATIONS, as_namespace, config_data
from tools.engines.vllm.functions import VLLM_PROPOSER_FILE, VLLM_TOKEN_ID_FILE
from tools.wheels import Wheel

_TOKEN_FUNCTION = "get_parallel_drafting_token_id"
_PROPOSER_METHOD = "SpecDecodeBaseProposer._init_parallel_drafting_params"


def _function_source(wheel: Wheel, member: str, name: str) -> str:
    source = wheel.source(member)
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            segment = ast.get_source_segment(source, node)
            assert segment is not None
            return segment
    raise AssertionError(f"{name} not in {member}")


@pytest.mark.parametrize("version", VERSIONS)
def test_each_release_has_the_functions_the_drop_ins_mirror(
    version: str, vllm_release_wheel: Callable[[str], Wheel]
) -> None:
    wheel = vllm_release_wheel(version)
    newest = vllm_release_wheel(VERSIONS[-1])
    assert _function_source(wheel, VLLM_TOKEN_ID_FILE, _TOKEN_FUNCTION) == _function_source(
        newest, VLLM_TOKEN_ID_FILE, _TOKEN_FUNCTION
    )
    assert wheel.has(VLLM_PROPOSER_FILE) is not since(version, ONE_MODEL_RUNNER)


def _token_only_proposer(hf_config: object) -> Any:
    return SimpleNamespace(
        draft_model_config=SimpleNamespace(hf_config=hf_config),
        pass_hidden_states_to_model=False,
        parallel_drafting_token_id=None,
    )


@pytest.mark.parametrize("version", VERSIONS)
def test_the_drop_ins_do_what_each_release_s_own_functions_do(
    version: str, vllm_release_wheel: Callable[[str], Wheel]
) -> None:
    wheel = vllm_release_wheel(version)
    theirs = wheel.extract(VLLM_TOKEN_ID_FILE, [_TOKEN_FUNCTION])[_TOKEN_FUNCTION]
    older = None
    if wheel.has(VLLM_PROPOSER_FILE):
        older = wheel.extract(VLLM_PROPOSER_FILE, [_PROPOSER_METHOD])[_PROPOSER_METHOD]
    warnings.simplefilter("ignore")  # the drop-ins warn where fields disagree; vLLM does not
    for present in COMBINATIONS:
        config = as_namespace(config_data(present))
        if not any(present):
            with pytest.raises(ValueError, match="mask_token_id"):
                theirs(config)
            with pytest.raises(ValueError, match="mask_token_id"):
                vllm.get_parallel_drafting_token_id(config)
            continue
        assert vllm.get_parallel_drafting_token_id(config) == theirs(config), present
        if older is not None:
            mine, vllms = _token_only_proposer(config), _token_only_proposer(config)
            vllm.init_parallel_drafting_params(mine)
            older(vllms)
            assert mine.parallel_drafting_token_id == vllms.parallel_drafting_token_id, present
