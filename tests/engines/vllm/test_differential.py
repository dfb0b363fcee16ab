"""Our vLLM drop-ins against a re-expression of vLLM 0.33.0's two functions.

The re-expression below is written from the documented behaviour of vLLM
0.33.0 (see the README's vLLM section), not copied from vLLM:

- the older runner's ``_init_parallel_drafting_params`` walks the fields as an
  if/elif chain and stores the raw value; only top-level ``mask_token_id`` is
  skipped when it is ``None`` (any other field present with ``None`` is
  selected and stored as ``None``); ``dflash_config`` counts only when it is a
  non-empty dict holding the key. When hidden states are passed it allocates
  ``torch.empty(hidden_size, dtype=dtype, device=device)``, and otherwise
  touches neither those three attributes nor the tensor;
- the newer runner's ``get_parallel_drafting_token_id`` selects the same way
  and returns ``int(value)``;
- both raise ``ValueError`` when no field is present.

For every present/absent combination of the priority table's fields, with
valid int values, our drop-ins must return and store exactly what these do.
"""

from __future__ import annotations

import functools
import itertools
import warnings
from collections.abc import Callable, Mapping
from types import SimpleNamespace
from typing import Any

import pytest
import torch

from drafting_config.integrations import vllm
from drafting_config.values.sources import PRIORITY_ORDER, TokenIdSource

# --- vLLM 0.33.0, re-expressed --------------------------------------------------------------------

VLLM_FIELDS = (
    "dflash_config.mask_token_id",
    "mask_token_id",
    "dspark_noise_token_id",
    "pard_token",
    "ptd_token_id",
)
"""The fields vLLM 0.33.0 consults, in its order. vLLM names them literally, so
this tuple is literal too; the test below ties it to the priority table."""

_MISSING = object()


def _vllm_select(hf_config: Any) -> object:
    """The raw value vLLM 0.33.0 selects; ``ValueError`` when no field is present."""
    for field in VLLM_FIELDS:
        if field == "dflash_config.mask_token_id":
            section = getattr(hf_config, "dflash_config", None)
            # Counted only when the section is truthy and holds the key.
            value = section["mask_token_id"] if section and "mask_token_id" in section else _MISSING
        elif field == "mask_token_id":
            # The one field skipped when present with None.
            value = getattr(hf_config, field, None)
            value = _MISSING if value is None else value
        else:
            # Present counts, None included: the older runner stores that None.
            value = getattr(hf_config, field) if hasattr(hf_config, field) else _MISSING
        if value is not _MISSING:
            return value
    raise ValueError("vLLM: the draft model config must set one of " + ", ".join(VLLM_FIELDS) + ".")


def vllm_older_init_parallel_drafting_params(proposer: Any) -> None:
    """vLLM 0.33.0's older runner's ``_init_parallel_drafting_params``, as documented."""
    proposer.parallel_drafting_token_id = _vllm_select(proposer.draft_model_config.hf_config)
    if proposer.pass_hidden_states_to_model:
        proposer.parallel_drafting_hidden_state_tensor = torch.empty(
            proposer.hidden_size, dtype=proposer.dtype, device=proposer.device
        )


def vllm_newer_get_parallel_drafting_token_id(hf_config: Any) -> int:
    """vLLM 0.33.0's newer runner's ``get_parallel_drafting_token_id``, as documented."""
    value: Any = _vllm_select(hf_config)  # int() of whatever was selected, as vLLM does
    return int(value)


def test_vllms_fields_are_the_priority_table() -> None:
    # A sixth field in the table fails here, loudly: vLLM 0.33.0 does not read it,
    # so the differential below would no longer compare like with like.
    assert tuple(source.value for source in PRIORITY_ORDER) == VLLM_FIELDS


# --- configs for every combination ----------------------------------------------------------------

COMBINATIONS = list(itertools.product((False, True), repeat=len(PRIORITY_ORDER)))


def token_value(source: TokenIdSource) -> int:
    """A distinct, valid token id per field, so the winner is visible."""
    return 151_000 + PRIORITY_ORDER.index(source)


def config_data(present: tuple[bool, ...]) -> dict[str, Any]:
    """The config.json of a draft model that sets exactly the ``present`` fields."""
    data: dict[str, Any] = {"hidden_size": 64}
    for source, here in zip(PRIORITY_ORDER, present, strict=True):
        if not here:
            continue
        if source.section is None:
            data[source.key] = token_value(source)
        else:
            data.setdefault(source.section, {})[source.key] = token_value(source)
    return data


def as_namespace(data: Mapping[str, Any]) -> object:
    """An attribute object whose sections stay dicts, as vLLM requires of dflash_config."""
    return SimpleNamespace(**data)


def as_pretrained_config(data: Mapping[str, Any]) -> object:
    from transformers import PreTrainedConfig

    return PreTrainedConfig.from_dict(dict(data))


CARRIERS: dict[str, Callable[[Mapping[str, Any]], object]] = {
    "namespace": as_namespace,
    "pretrained": as_pretrained_config,
}


class Proposer:
    """Stands in for vLLM's proposer class."""


def bare_proposer(hf_config: object, *, with_hidden_states: bool) -> Any:
    """Built as vLLM's unit tests build one: ``object.__new__`` plus the attributes read."""
    proposer: Any = object.__new__(Proposer)
    proposer.draft_model_config = SimpleNamespace(hf_config=hf_config)
    proposer.pass_hidden_states_to_model = with_hidden_states
    if with_hidden_states:
        proposer.hidden_size = 96
        proposer.dtype = torch.bfloat16
        proposer.device = torch.device("cpu")
    return proposer


def ours(call: Callable[[], object]) -> object:
    """Run one of our drop-ins, with our warnings about conflicting fields silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return call()


def stored(proposer: object) -> dict[str, object]:
    """What a proposer holds, with tensors compared by shape, dtype and device."""
    return {
        name: (value.shape, value.dtype, value.device)
        if isinstance(value, torch.Tensor)
        else (type(value), value)
        for name, value in vars(proposer).items()
    }


def combination_id(present: tuple[bool, ...]) -> str:
    return (
        "+".join(s.value for s, here in zip(PRIORITY_ORDER, present, strict=True) if here) or "none"
    )


@pytest.mark.parametrize("carrier", sorted(CARRIERS))
@pytest.mark.parametrize("present", COMBINATIONS, ids=combination_id)
def test_drop_ins_match_vllm(present: tuple[bool, ...], carrier: str) -> None:
    data = config_data(present)
    make = CARRIERS[carrier]

    if not any(present):
        with pytest.raises(ValueError, match="vLLM: the draft model config must set one of"):
            vllm_newer_get_parallel_drafting_token_id(make(data))
        with pytest.raises(ValueError, match=r"`dflash_config\.mask_token_id`"):
            vllm.get_parallel_drafting_token_id(make(data))
        for with_hidden_states in (False, True):
            theirs = bare_proposer(make(data), with_hidden_states=with_hidden_states)
            with pytest.raises(ValueError, match="vLLM: the draft model config must set"):
                vllm_older_init_parallel_drafting_params(theirs)
            mine = bare_proposer(make(data), with_hidden_states=with_hidden_states)
            with pytest.raises(ValueError, match=r"`dflash_config\.mask_token_id`"):
                vllm.init_parallel_drafting_params(mine)
        return

    expected = token_value(PRIORITY_ORDER[present.index(True)])
    newer = vllm_newer_get_parallel_drafting_token_id(make(data))
    got = ours(lambda: vllm.get_parallel_drafting_token_id(make(data)))
    assert (type(got), got) == (type(newer), newer) == (int, expected)

    for with_hidden_states in (False, True):
        theirs = bare_proposer(make(data), with_hidden_states=with_hidden_states)
        vllm_older_init_parallel_drafting_params(theirs)
        mine = bare_proposer(make(data), with_hidden_states=with_hidden_states)
        ours(functools.partial(vllm.init_parallel_drafting_params, mine))
        assert stored(mine).keys() == stored(theirs).keys()
        for name in ("parallel_drafting_token_id", "parallel_drafting_hidden_state_tensor"):
            assert stored(mine).get(name) == stored(theirs).get(name), name
        assert theirs.parallel_drafting_token_id == expected


def test_every_combination_is_covered() -> None:
    assert len(COMBINATIONS) == 2 ** len(PRIORITY_ORDER)
    assert len(set(COMBINATIONS)) == len(COMBINATIONS)


# --- where the re-expression and ours part, on purpose --------------------------------------------


def test_a_present_null_is_vllms_quirk_and_absent_for_us() -> None:
    data = {"pard_token": None, "ptd_token_id": 128002}
    # The older runner stores None; the newer one raises TypeError, not ValueError.
    theirs = bare_proposer(as_namespace(data), with_hidden_states=False)
    vllm_older_init_parallel_drafting_params(theirs)
    assert theirs.parallel_drafting_token_id is None
    with pytest.raises(TypeError):
        vllm_newer_get_parallel_drafting_token_id(as_namespace(data))
    # For us null is absent, for every field alike.
    assert vllm.get_parallel_drafting_token_id(as_namespace(data)) == 128002
    mine = bare_proposer(as_namespace(data), with_hidden_states=False)
    vllm.init_parallel_drafting_params(mine)
    assert mine.parallel_drafting_token_id == 128002


def test_a_null_top_level_mask_token_id_is_skipped_by_both() -> None:
    data = {"mask_token_id": None, "dspark_noise_token_id": 151669}
    assert vllm_newer_get_parallel_drafting_token_id(as_namespace(data)) == 151669
    assert vllm.get_parallel_drafting_token_id(as_namespace(data)) == 151669


@pytest.mark.parametrize(("value", "coerced"), [("7", 7), (7.9, 7), (True, 1)])
def test_the_newer_runner_coerces_what_we_refuse(value: object, coerced: int) -> None:
    data = {"pard_token": value}
    assert vllm_newer_get_parallel_drafting_token_id(as_namespace(data)) == coerced
    with pytest.raises(ValueError, match="`pard_token`"):
        vllm.get_parallel_drafting_token_id(as_namespace(data))
