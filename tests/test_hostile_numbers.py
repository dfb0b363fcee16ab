"""No loop or allocation of the checker grows with a number read from a config.

Every numeric field the rules of either engine read (layer counts, sizes, lengths, RoPE
factors, token and layer ids), in the draft and in the target, is fed a huge int, a
negative one, a float, NaN, infinity, a bool or a string, and ``check()`` must come back
with a verdict: in a subprocess (``tests/bounded_check.py``) under a 1 GiB address-space
limit, each answer awaited at most 60 seconds.  The limits guard against hangs and
unbounded growth; they measure no speed.  Three such inputs once hung or crashed the
checker: a 10**8-layer DFlash draft naming no layers (SGLang's derived list), a
2 * 10**8-layer draft with a checkpoint (``set(range(num_hidden_layers))``) and a RoPE
factor of 401 digits (``OverflowError``).

Every field the rules of either engine read (found by recording the keys ``check()`` reads
of the example drafts, not listed by hand) is fed an object, a list, null and a bool too:
a DSpark draft whose ``model_type`` was ``{}`` once stopped a sweep with ``TypeError:
unhashable type`` (vLLM's ``_is_deepseek_v4``).
"""

from __future__ import annotations

import json
import select
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from drafting_config import check
from drafting_config.engines import ENGINES
from tests.conftest import EXAMPLES, REPO, load_json

pytestmark = pytest.mark.slow

MEMORY_LIMIT = 1 << 30
"""The worker's address-space limit, in bytes."""
ANSWER_TIMEOUT_S = 60.0
"""How long one answer may take before the test calls it a hang."""

WEIGHTS = EXAMPLES / "invalid" / "qwen3-dflash-fc-width" / "model.safetensors"
DFLASH = load_json(EXAMPLES / "dflash-qwen3-4b" / "config.json")
TARGET = load_json(EXAMPLES / "pair-qwen3-4b" / "target" / "config.json")
SMALL_DFLASH = load_json(EXAMPLES / "invalid" / "qwen3-dflash-fc-width" / "config.json")

DRAFT_FIELDS = (
    "num_hidden_layers",
    "hidden_size",
    "vocab_size",
    "draft_vocab_size",
    "intermediate_size",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "max_position_embeddings",
    "num_target_layers",
    "target_hidden_size",
    "block_size",
    "markov_rank",
    "mask_token_id",
    "pard_token",
    "ptd_token_id",
    "dspark_noise_token_id",
    "num_aux_hidden_states",
    "bos_token_id",
    "eos_token_id",
    "pad_token_id",
)
"""The draft's top-level numeric fields some rule reads."""
TARGET_FIELDS = (
    "num_hidden_layers",
    "hidden_size",
    "vocab_size",
    "max_position_embeddings",
    "num_loops",
    "padded_vocab_size",
    "bos_token_id",
    "eos_token_id",
    "pad_token_id",
)
"""The target's numeric fields some rule reads."""

HOSTILE = st.one_of(
    st.integers(min_value=10, max_value=1000).map(lambda digits: 10**digits),
    st.integers(min_value=10, max_value=1000).map(lambda digits: -(10**digits)),
    st.sampled_from([0, -1, 2**31, 2**63, 100_000_000, 200_000_000]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.sampled_from(["1", "1e400", "", "nan"]),
)
"""The values a hostile config holds where a number belongs."""


@pytest.fixture(scope="module")
def worker() -> Iterator[subprocess.Popen[str]]:
    """``tests/bounded_check.py``, started once, under the memory limit."""

    process = subprocess.Popen(
        [sys.executable, "-m", "tests.bounded_check", str(MEMORY_LIMIT)],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    yield process
    process.communicate(timeout=ANSWER_TIMEOUT_S)  # closes its input: the worker ends


def ask(worker: subprocess.Popen[str], request: dict[str, object]) -> dict[str, Any]:
    """Send one request and wait for its answer; fail naming the request on a hang or a
    crash (the worker's traceback, or MemoryError under the limit)."""
    assert worker.stdin is not None
    assert worker.stdout is not None
    shown = json.dumps(request)[:2000]
    worker.stdin.write(json.dumps(request) + "\n")
    worker.stdin.flush()
    ready, _, _ = select.select([worker.stdout], [], [], ANSWER_TIMEOUT_S)
    if not ready:
        worker.kill()
        pytest.fail(f"no verdict within {ANSWER_TIMEOUT_S} s for {shown}")
    line = worker.stdout.readline()
    if not line:
        assert worker.stderr is not None
        pytest.fail(f"the worker died on {shown}:\n{worker.stderr.read()[-4000:]}")
    answer: dict[str, Any] = json.loads(line)
    return answer


def _with(config: dict[str, Any], changes: dict[str, object]) -> dict[str, Any]:
    changed: dict[str, Any] = json.loads(json.dumps(config))
    for field, value in changes.items():
        section, _, name = field.rpartition(".")
        (changed[section] if section else changed)[name] = value
    return changed


_DRAFT_CHANGES = st.dictionaries(
    st.sampled_from(
        (*DRAFT_FIELDS, "dflash_config.mask_token_id", "dflash_config.num_target_layers")
    ),
    HOSTILE,
    max_size=4,
)
_TARGET_CHANGES = st.dictionaries(st.sampled_from(TARGET_FIELDS), HOSTILE, max_size=3)
_ROPE = st.one_of(
    st.none(),
    st.fixed_dictionaries({"rope_type": st.sampled_from(["dynamic", "linear"]), "factor": HOSTILE}),
)
_NO_LAYERS = {"dflash_config": {"mask_token_id": 151669}}


@settings(deadline=None, max_examples=150)
@given(
    draft_changes=_DRAFT_CHANGES,
    target_changes=st.tuples(_TARGET_CHANGES, _ROPE).map(
        lambda changes: {**changes[0], "rope_scaling": changes[1]}
    ),
    name_layers=st.booleans(),
    engine=st.sampled_from(list(ENGINES)),
)
# The three reproducers: SGLang's derived list, and a RoPE factor and a length of 401 digits.
@example({"num_hidden_layers": 100_000_000}, {}, False, "sglang")
@example({}, {"rope_scaling": {"rope_type": "dynamic", "factor": 10**400}}, True, "vllm")
@example({}, {"max_position_embeddings": 10**400}, True, "sglang")
def test_every_hostile_number_gets_a_verdict(
    worker: subprocess.Popen[str],
    draft_changes: dict[str, object],
    target_changes: dict[str, object],
    name_layers: bool,
    engine: str,
) -> None:
    draft = DFLASH if name_layers else _with(DFLASH, {}) | _NO_LAYERS
    target = _with(TARGET, target_changes)
    answer = ask(worker, {"draft": _with(draft, draft_changes), "target": target, "engine": engine})
    assert set(answer) == {"ok", "errors"}


@settings(deadline=None, max_examples=40)
@given(count=HOSTILE, engine=st.sampled_from(list(ENGINES)))
@example(200_000_000, "vllm")
def test_a_hostile_layer_count_beside_a_checkpoint_gets_a_verdict(
    worker: subprocess.Popen[str], count: object, engine: str
) -> None:
    """The weights rules compare the checkpoint's layers with ``num_hidden_layers``
    without building ``range(num_hidden_layers)``."""
    draft = _with(SMALL_DFLASH, {"num_hidden_layers": count})
    answer = ask(
        worker, {"draft": draft, "target": None, "engine": engine, "weights": str(WEIGHTS)}
    )
    if engine == "vllm":  # its fc is sized for 3 taps of another width: never OK
        assert answer["errors"] >= 1
    assert set(answer) == {"ok", "errors"}


class _Recording(dict[str, Any]):
    """A parsed ``config.json`` that records the dotted name of every key read of it."""

    def __init__(self, data: dict[str, Any], path: str, read: set[str]) -> None:
        super().__init__(
            {
                key: _Recording(value, f"{path}{key}.", read) if type(value) is dict else value
                for key, value in data.items()
            }
        )
        self._path = path
        self._read = read

    def get(self, key: str, default: object = None) -> Any:
        self._read.add(self._path + key)
        return super().get(key, default)

    def __getitem__(self, key: str) -> Any:
        self._read.add(self._path + key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self._read.add(f"{self._path}{key}")
        return super().__contains__(key)


ENGINES_CHECKED = ENGINES
BASES = {path.parent.name: load_json(path) for path in sorted(EXAMPLES.glob("*/config.json"))}
"""Every example draft: each field is fed a hostile value in each of them, so that the rules
of each format (DFlash, DSpark, PARD, EAGLE-3, speculators) reach it."""


def _fields_read() -> list[str]:
    """Every key (dotted inside a section) the rules of either engine read of the example
    drafts and the published ones of ``tests/real_configs``."""
    drafts = [*BASES.values()]
    drafts += [load_json(path) for path in sorted((REPO / "tests/real_configs/drafts").glob("*"))]
    read: set[str] = set()
    for engine in ENGINES_CHECKED:
        for draft in drafts:
            check(_Recording(draft, "", read), target=TARGET, check_tokenizer=False, engine=engine)
    return sorted(read)


FIELDS_READ = _fields_read()


def test_the_fields_read_are_found() -> None:
    # The recording sees the fields every format's rules read, top level and nested.
    assert {"model_type", "architectures", "dflash_config.projector_type"} <= set(FIELDS_READ)
    assert {"speculators_config.verifier.name_or_path", "mask_token"} <= set(FIELDS_READ)


def _set(config: dict[str, Any], field: str, value: object) -> dict[str, Any]:
    """``config`` with the dotted ``field`` set to ``value``, its sections made as needed."""
    changed: dict[str, Any] = json.loads(json.dumps(config))
    *sections, name = field.split(".")
    section = changed
    for part in sections:
        if not isinstance(section.get(part), dict):
            section[part] = {}
        section = section[part]
    section[name] = value
    return changed


@pytest.mark.parametrize("field", FIELDS_READ)
def test_every_field_read_holding_an_object_list_null_or_bool_gets_a_verdict(
    worker: subprocess.Popen[str], field: str
) -> None:
    hostile: tuple[object, ...] = ({}, [], None, True)
    for value in hostile:
        for draft in BASES.values():
            for engine in ENGINES_CHECKED:
                request: dict[str, object] = {
                    "draft": _set(draft, field, value),
                    "target": TARGET,
                    "engine": engine,
                }
                assert set(ask(worker, request)) == {"ok", "errors"}
