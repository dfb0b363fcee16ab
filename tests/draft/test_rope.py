"""The RoPE reader every engine's RoPE rule compares with: one normal form for the many
spellings (transformers v4's ``rope_scaling`` and ``rope_theta``, v5's ``rope_parameters``
holding ``rope_theta``, ``type`` or ``rope_type``, M-RoPE sections), so that a spelling
alone is never a difference."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from drafting_config.draft.rope import Rope, read_rope, rope_difference, target_rope
from drafting_config.values.fields import field_getter

TYPES = st.sampled_from(["default", "linear", "dynamic", "llama3", "yarn"])
NUMBERS = st.one_of(st.integers(1, 10**7), st.floats(0.5, 1e7, allow_nan=False))
PARAMETERS = st.dictionaries(
    st.sampled_from(["factor", "low_freq_factor", "high_freq_factor", "beta_fast"]),
    NUMBERS,
    max_size=3,
)


def _rope(config: dict[str, Any]) -> Rope | None:
    return read_rope(field_getter(config, "draft"))


def _v4(rope_type: str, theta: float, parameters: dict[str, Any], key: str) -> dict[str, Any]:
    scaling = None if rope_type == "default" and not parameters else {key: rope_type, **parameters}
    return {"rope_theta": theta, "rope_scaling": scaling}


def _v5(rope_type: str, theta: float, parameters: dict[str, Any]) -> dict[str, Any]:
    return {"rope_parameters": {"rope_type": rope_type, "rope_theta": theta, **parameters}}


@given(TYPES, NUMBERS, PARAMETERS, st.sampled_from(["type", "rope_type"]))
def test_a_spelling_alone_is_no_difference(
    rope_type: str, theta: float, parameters: dict[str, Any], key: str
) -> None:
    v4, v5 = _rope(_v4(rope_type, theta, parameters, key)), _rope(_v5(rope_type, theta, parameters))
    assert v4 == v5
    assert not rope_difference(v4, v5)


@given(TYPES, TYPES, NUMBERS, NUMBERS)
def test_another_type_or_theta_is_a_difference(
    ours: str, theirs: str, theta: float, other_theta: float
) -> None:
    draft, target = _rope(_v5(ours, theta, {})), _rope(_v4(theirs, other_theta, {}, "rope_type"))
    assert rope_difference(draft, target) is (ours != theirs or float(theta) != float(other_theta))


def test_an_unrecorded_scaling_is_default_and_an_mrope_section_is_default() -> None:
    lost = _rope({"rope_theta": 500000})
    llama3 = _rope({"rope_theta": 500000, "rope_scaling": {"rope_type": "llama3", "factor": 8}})
    assert lost is not None
    assert lost.recorded
    assert rope_difference(lost, llama3)
    mrope = _rope({"rope_theta": 1e6, "rope_scaling": {"type": "mrope", "mrope_section": [16]}})
    assert not rope_difference(mrope, _rope({"rope_theta": 1000000}))
    nothing = _rope({})
    assert nothing is not None
    assert not nothing.recorded


def test_per_layer_type_parameters_are_not_compared() -> None:
    nested = {"rope_parameters": {"full_attention": {"rope_type": "default"}, "sliding": {}}}
    assert _rope(nested) is None
    assert not rope_difference(None, _rope({"rope_theta": 1}))


def test_the_target_rope_is_the_first_reader_that_records_one() -> None:
    top = field_getter({"model_type": "qwen2_5_vl"}, "target")
    text = field_getter({"rope_theta": 1e6}, "target.text_config")
    found = target_rope((top, text))
    assert found is not None
    assert found.theta == 1e6
    assert target_rope((top,)) is None
