"""Shared fixtures: the three shapes a draft model's config comes in."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

import pytest
from hypothesis import HealthCheck, settings

from drafting_config.values.errors import ParallelDraftingConfigError, ParallelDraftingConfigWarning
from tests.package_index import unavailable
from tools.engines.sglang.functions import SGLANG
from tools.engines.transformers import transformers_spec
from tools.engines.vllm.functions import VLLM
from tools.transcripts import TERMINAL_VARIABLES
from tools.wheels import Wheel, WheelSpec, WheelUnavailable, fetch_wheel

pytest_plugins = ["tests.slowest"]

if TYPE_CHECKING:
    from tests.typing_checks import MypyResult

settings.register_profile(  # derandomize spelled: Hypothesis's own default turns it on in CI
    "dev",
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=False,
)
# In CI (`CI` set and not false, as GitHub Actions and `.ci/run` set it) the property tests
# draw the same examples on every run, so that a rare counterexample found by chance can
# never fail an unrelated submission; locally they draw new ones each run, to find them.
settings.register_profile("ci", parent=settings.get_profile("dev"), derandomize=True)
# Under `mutmut run` (see pyproject.toml) the suite runs once per mutant: fewer examples
# there, the same ones for every mutant.
settings.register_profile("mutmut", parent=settings.get_profile("ci"), max_examples=50)


def hypothesis_profile(environment: Mapping[str, str]) -> str:
    """The Hypothesis profile a run loads: ``mutmut`` under ``mutmut run``, ``ci`` where
    ``CI`` is set to anything but empty, ``0`` or ``false``, else ``dev``."""
    if "MUTANT_UNDER_TEST" in environment:
        return "mutmut"
    in_ci = environment.get("CI", "").strip().lower() not in {"", "0", "false"}
    return "ci" if in_ci else "dev"


settings.load_profile(hypothesis_profile(os.environ))


@pytest.fixture(autouse=True)
def _no_terminal_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    # What the text output's width and colour read: no test inherits them from the shell
    for name in TERMINAL_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def _warnings_look_past_mutmut(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under ``mutmut run``, every function of the package is called through a trampoline
    in mutmut's own module; count that module as ours, so that warnings still point at
    the test's line and the tests of where they point still hold (and still kill mutants).
    """
    if "MUTANT_UNDER_TEST" in os.environ:
        from drafting_config.values import errors

        trampoline = frozenset({"mutmut.mutation.trampoline"})
        monkeypatch.setattr(errors, "_OWN_MODULES", errors._OWN_MODULES | trampoline)


REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"

QWEN3_8B_DFLASH_DRAFT: dict[str, Any] = {
    "architectures": ["DFlashDraftModel"],
    "model_type": "qwen3",
    "hidden_size": 4096,
    "num_hidden_layers": 5,
    "vocab_size": 151936,
    "dflash_config": {"mask_token_id": 151669, "target_layer_ids": [1, 9, 17, 25, 33]},
}
"""A DFlash draft for Qwen3-8B as the engine rule tests start from (copy before changing)."""
VALID_EXAMPLES = sorted(EXAMPLES.glob("*/config.json"))
INVALID_EXAMPLES = sorted(EXAMPLES.glob("invalid/*/config.json"))

Carrier = Callable[[Mapping[str, Any]], object]
"""Turns a parsed config.json into one of the shapes users pass in."""


def as_mapping(data: Mapping[str, Any]) -> object:
    return dict(data)


def as_namespace(data: Mapping[str, Any]) -> object:
    """An attribute object; nested sections become attribute objects too."""
    return SimpleNamespace(
        **{k: as_namespace(v) if isinstance(v, dict) else v for k, v in data.items()}
    )


def as_pretrained_config(data: Mapping[str, Any]) -> object:
    from transformers import PreTrainedConfig

    return PreTrainedConfig.from_dict(dict(data))


CARRIERS: dict[str, Carrier] = {
    "mapping": as_mapping,
    "namespace": as_namespace,
    "pretrained": as_pretrained_config,
}


@pytest.fixture(params=sorted(CARRIERS))
def carrier(request: pytest.FixtureRequest) -> Carrier:
    """Each shape in turn: a dict, a SimpleNamespace, a transformers PreTrainedConfig."""
    return CARRIERS[request.param]


def load_json(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


@pytest.fixture(scope="session")
def mypy_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, MypyResult]:
    """Every snippet registered with ``tests.typing_checks.snippet``, type-checked in one
    mypy run for the whole session (one run costs about as much as six did)."""
    from tests.typing_checks import run_snippets

    return run_snippets(tmp_path_factory.mktemp("mypy"))


class Run(NamedTuple):
    """What one run of the command did."""

    status: int
    out: str
    err: str

    @property
    def lines(self) -> list[str]:
        return self.out.splitlines()

    @property
    def json(self) -> Any:
        return json.loads(self.out)


def run_cli(capsys: pytest.CaptureFixture[str], *args: str | Path) -> Run:
    """Run the command's ``main`` in this process with ``args``; what it printed, and never a
    traceback."""
    from drafting_config.cli.run import main

    texts = [os.fspath(arg) for arg in args]
    status = main(texts)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    if texts[:1] in (["check"], ["explain"]) and (
        "--json" in texts or "--format=json" in texts or "json" in texts
    ):
        validate_output(captured.out)
    return Run(status, captured.out, captured.err)


def validate_output(text: str) -> None:
    """Check the output of ``check --json`` or ``explain --json`` against the JSON Schema the
    package ships (``drafting-config schema``): every JSON the suite's runs produce."""
    import jsonschema

    from drafting_config.cli.output_schema import OUTPUT_SCHEMA

    if text.strip():
        jsonschema.Draft202012Validator(OUTPUT_SCHEMA).validate(json.loads(text))


# --- what tests fetch from the package index (see tools/wheels.py) ---------------------

INDEX_FIXTURES = frozenset(
    {"vllm_wheel", "vllm_release_wheel", "sglang_wheel", "transformers_wheel"}
)
"""Fixtures that fetch from the package index at test time; a test using one is marked
``engine_wheels`` (the one opt-in: ``-m 'not engine_wheels'`` runs the suite offline)."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if INDEX_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.engine_wheels)
    # The whole corpus run live (about an hour) is an opt-in: deselected, not skipped,
    # unless the run's -m names it.
    if "engine_corpus" not in (config.option.markexpr or ""):
        chosen = [item for item in items if item.get_closest_marker("engine_corpus") is None]
        if len(chosen) < len(items):
            dropped = [item for item in items if item.get_closest_marker("engine_corpus")]
            config.hook.pytest_deselected(items=dropped)
            items[:] = chosen


def _wheel_or_skip(spec: WheelSpec) -> Wheel:
    try:
        return fetch_wheel(spec)
    except WheelUnavailable as error:
        unavailable(f"the {spec.requirement} wheel", str(error))


@pytest.fixture(scope="session")
def vllm_wheel() -> Wheel:
    """The vLLM wheel of ``tools.engine_wheels.VLLM``, downloaded once into the cache; skips
    when pip cannot fetch it."""
    return _wheel_or_skip(VLLM)


@pytest.fixture(scope="session")
def sglang_wheel() -> Wheel:
    """The SGLang wheel of ``tools.engine_wheels.SGLANG``, downloaded once into the cache;
    skips when pip cannot fetch it."""
    return _wheel_or_skip(SGLANG)


def _wheels_by_version(spec_of: Callable[[str], WheelSpec]) -> Callable[[str], Wheel]:
    """A function of a version giving its wheel (each fetched once), or skipping the test."""
    fetched: dict[str, Wheel | str] = {}

    def wheel(version: str) -> Wheel:
        spec = spec_of(version)
        if version not in fetched:
            try:
                fetched[version] = fetch_wheel(spec)
            except WheelUnavailable as error:
                fetched[version] = str(error)
        found = fetched[version]
        if isinstance(found, str):
            unavailable(f"the {spec.requirement} wheel", found)
        return found

    return wheel


@pytest.fixture(scope="session")
def transformers_wheel() -> Callable[[str], Wheel]:
    """A function of a transformers version giving its wheel, or skipping the test."""
    return _wheels_by_version(transformers_spec)


@pytest.fixture(scope="session")
def vllm_release_wheel() -> Callable[[str], Wheel]:
    """A function of a vLLM version giving its wheel (any release the package ships tables
    for, not only :data:`~tools.engines.vllm.functions.VLLM`), or skipping the test."""
    return _wheels_by_version(lambda version: WheelSpec("vllm", version))


class Judged(Protocol):
    """What a check records: a verdict, or a rule's findings."""

    @property
    def errors(self) -> Sequence[ParallelDraftingConfigError]: ...


class JudgedWithWarnings(Judged, Protocol):
    @property
    def warnings(self) -> Sequence[ParallelDraftingConfigWarning]: ...


def only_error(judged: Judged) -> ParallelDraftingConfigError:
    """The one error recorded (the assertion lists them all when there are more)."""
    assert len(judged.errors) == 1, [str(e) for e in judged.errors]
    return judged.errors[0]


def assert_clean(judged: JudgedWithWarnings) -> None:
    """No error and no warning was recorded."""
    assert judged.errors == (), [str(e) for e in judged.errors]
    assert judged.warnings == (), [str(w) for w in judged.warnings]


def error_fields(judged: Judged) -> list[str | None]:
    """The field of each error recorded, in order."""
    return [error.field for error in judged.errors]
