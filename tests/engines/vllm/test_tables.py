"""The shipped vLLM tables (``drafting_config/engines/vllm/vllm-VERSION.json``, one file per
release, with transformers' names in ``drafting_config/engines/transformers-5.json``) are the
wheels'.

Each table of each shipped release is compared with what that release's wheel holds, read at
test time: its registry tables and class bases, its ``_CONFIG_REGISTRY``, its speculators
algorithms, and each transformers version of the range it accepts.  Where
``tools/wheels.py`` has its own reader (the registry tables, a class's ancestors,
transformers' model types), the table is compared with that reader's answer, a derivation
independent of ``tools/engines/vllm/tables.py``; then the files must be exactly what ``python -m
tools.engine_tables vllm VERSION`` writes from the wheels.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drafting_config.engines.vllm.load_path import (
    CONSTRUCTION_READS,
    EAGLE_CONFIG_METHODS,
    eagle_config_architecture,
)
from drafting_config.engines.vllm.names import VERSION, VERSIONS
from drafting_config.engines.vllm.speculators import SPECULATORS_ALGORITHMS
from drafting_config.engines.vllm.tables import vllm_tables
from tools import engine_tables
from tools import wheels as engine_wheels
from tools.engines import transformers
from tools.engines.vllm import functions
from tools.engines.vllm import tables as generator
from tools.wheels import Wheel, requirement_of

pytestmark = pytest.mark.engine_wheels

SHIPPED_VLLM = engine_tables.shipped_versions("vllm")
"""Every vLLM release whose tables the package ships."""

each_release = pytest.mark.parametrize("version", SHIPPED_VLLM)


@pytest.fixture
def release_wheel(version: str, vllm_release_wheel: Callable[[str], Wheel]) -> Wheel:
    """The wheel of the release a test is parametrized with."""
    return vllm_release_wheel(version)


@each_release
def test_every_registry_table_is_the_wheel_s(version: str, release_wheel: Wheel) -> None:
    shipped = vllm_tables(version)
    tables = generator.registry_tables(release_wheel.source(generator.REGISTRY_FILE))
    for table, rows in shipped.registry.items():
        assert {name: tuple(row) for name, row in tables[table].items()} == rows, table
    # And by engine_wheels' own reader of the merged table ModelRegistry is built from.
    served = functions.vllm_registry(release_wheel)
    assert {name for rows in shipped.registry.values() for name in rows} == set(served)
    for name, row in served.items():
        assert shipped.registered(name) == tuple(row), name


@each_release
def test_the_refused_names_are_the_wheel_s(version: str, release_wheel: Wheel) -> None:
    tables = generator.registry_tables(release_wheel.source(generator.REGISTRY_FILE))
    assert vllm_tables(version).previously_supported == tables["_PREVIOUSLY_SUPPORTED_MODELS"]
    assert vllm_tables(version).out_of_tree == tables["_OOT_SUPPORTED_MODELS"]


@pytest.mark.slow  # parses every module of vLLM: about 100 s a wheel, then cached
@each_release
def test_supports_eagle3_is_the_registered_classes_that_implement_it(
    version: str, release_wheel: Wheel
) -> None:
    # vLLM taps a target only if isinstance(model, SupportsEagle3)
    # (model_executor/models/interfaces.py, supports_eagle3).
    # The derivation parses every module of vLLM (about 100 s), once per wheel: the command
    # and this test read it from the cache by the wheel's hash (generator.release_tables).
    shipped = vllm_tables(version)
    derived = generator.release_tables(release_wheel.path)
    assert shipped.supports_eagle3 == frozenset(derived["supports_eagle3"])

    # engine_wheels' simpler reader of the class bases (modules under models/ only, no
    # lazy packages or adapters) finds a subset, never a class the table leaves out; cached
    # by the wheel's hash too (about 60 s a wheel).
    def tapped_by_ancestors() -> list[str]:
        found = []
        for name, (module, class_name) in functions.vllm_registry(release_wheel).items():
            if module.startswith("vllm."):
                continue
            try:
                ancestors = functions.vllm_class_ancestors(release_wheel, module, class_name)
            except KeyError:
                continue
            if "SupportsEagle3" in ancestors:
                found.append(name)
        return sorted(found)

    by_ancestors = engine_wheels.derived(
        "vllm-eagle3-ancestors",
        [release_wheel.path],
        [Path(functions.__file__), Path(engine_wheels.__file__)],
        tapped_by_ancestors,
    )
    assert by_ancestors  # the simpler reader finds some
    assert set(by_ancestors) <= shipped.supports_eagle3
    # Spot checks the corpus depends on: Qwen3 and Llama targets tap; LFM2 and LongCat do not.
    assert {"Qwen3ForCausalLM", "LlamaForCausalLM"} <= shipped.supports_eagle3
    assert not {"Lfm2ForCausalLM", "LongcatFlashForCausalLM"} & shipped.supports_eagle3
    # GraniteMoe implements SupportsEagle3 from 0.33.0 on (granitemoe.py); Granite in both.
    assert "GraniteForCausalLM" in shipped.supports_eagle3
    assert ("GraniteMoeForCausalLM" in shipped.supports_eagle3) == (version != "0.32.0")


@each_release
def test_config_registry_is_the_wheel_s(version: str, release_wheel: Wheel) -> None:
    source = release_wheel.source(generator.CONFIG_FILE)
    assert vllm_tables(version).config_registry == frozenset(generator.config_registry(source))
    assert {"k3_dspark", "eagle", "speculators"} <= vllm_tables(version).config_registry
    # muse_spark_dspark is registered from 0.33.0 on (transformers_utils/config.py).
    assert ("muse_spark_dspark" in vllm_tables(version).config_registry) == (version != "0.32.0")


@each_release
def test_the_speculators_algorithms_are_the_wheel_s_and_the_translation_s(
    version: str, release_wheel: Wheel
) -> None:
    # The algorithms vLLM's speculators reader registers are the rows of the package's
    # translation, and are what its data file lists.
    source = release_wheel.source(generator.SPECULATORS_ALGOS_FILE)
    registered = generator.speculators_algorithms(source)
    assert sorted(SPECULATORS_ALGORITHMS) == registered
    data = engine_tables.PACKAGE_DATA / engine_tables.data_file("vllm", version)
    assert json.loads(data.read_text(encoding="utf-8"))["speculators_algorithms"] == registered


@each_release
def test_transformers_model_types_are_each_version_s(
    version: str, release_wheel: Wheel, transformers_wheel: Callable[[str], Wheel]
) -> None:
    shipped = vllm_tables(version)
    assert shipped.transformers_range == requirement_of(release_wheel.path, "transformers")
    for release in shipped.transformers_versions:
        known = transformers.transformers_model_types(transformers_wheel(release))
        listed = {t for t, first in shipped.model_types.items() if _at_or_before(first, release)}
        assert listed == set(known), release


def _at_or_before(first: str, version: str) -> bool:
    def key(text: str) -> tuple[int, ...]:
        return tuple(int(part) for part in text.split("."))

    return key(first) <= key(version)


@pytest.mark.slow
@each_release
def test_each_shipped_data_file_is_exactly_what_the_command_writes(
    version: str,
    vllm_release_wheel: Callable[[str], Wheel],
    transformers_wheel: Callable[[str], Wheel],
) -> None:
    # `python -m tools.engine_tables vllm VERSION`, on the wheels the tests fetch: the
    # release's file and transformers' (the model classes transformers exports among it),
    # every byte. The index's list of transformers releases is stood in for by the ones
    # around the range.
    def fetch(spec: engine_wheels.WheelSpec) -> Path:
        if spec.name == "vllm":
            return vllm_release_wheel(spec.version).path
        return transformers_wheel(spec.version).path

    shipped = engine_tables.PACKAGE_DATA / engine_tables.data_file("vllm", version)
    in_range = json.loads(shipped.read_text(encoding="utf-8"))["transformers"]["versions"]
    listed = ["5.15.0", *in_range, "5.99.0"]
    written = generator.documents(version, fetch, lambda _: listed)
    assert set(written) == {
        engine_tables.data_file("vllm", version),
        engine_tables.TRANSFORMERS_FILE,
    }
    for relative, text in written.items():
        assert text == (engine_tables.PACKAGE_DATA / relative).read_text(encoding="utf-8"), relative


def test_every_shipped_release_is_found() -> None:
    # The Literal the engine argument is typed with names exactly the shipped files.
    assert tuple(SHIPPED_VLLM) == VERSIONS
    assert VERSION == VERSIONS[-1] == SHIPPED_VLLM[-1]  # the default is the newest shipped
    assert {"0.32.0", "0.33.0", "0.34.0"} <= set(SHIPPED_VLLM)


# --- the rules' other tables, against the wheel ---------------------------------------------------


class _Config:
    """A stand-in for transformers' ``PreTrainedConfig``: keyword arguments as attributes."""

    def __init__(self, **kwargs: object) -> None:
        self.__dict__.update(kwargs)

    def to_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


def _vllm_renames(vllm_wheel: Wheel) -> Callable[[str, str], str]:
    """vLLM's own ``EAGLEConfig.__init__`` (``transformers_utils/configs/eagle.py``), run on a
    stand-in config: the architecture it gives ``name`` for ``method``."""
    namespace = vllm_wheel.extract(
        "vllm/transformers_utils/configs/eagle.py",
        ["EAGLEConfig"],
        stand_ins={"PreTrainedConfig": _Config, "DeepseekV2Config": _Config},
    )
    eagle_config = namespace["EAGLEConfig"]

    def rename(method: str, name: str) -> str:
        model = _Config(architectures=[name], vocab_size=8)
        (renamed,) = eagle_config(model, method=method).architectures
        return str(renamed)

    return rename


_NAMES = st.text(alphabet="DFlashEagle3PQwnLmdoxRk", min_size=0, max_size=14)


def test_the_eagle_config_renames_are_vllm_s_on_every_name(vllm_wheel: Wheel) -> None:
    rename = _vllm_renames(vllm_wheel)
    corpus = set()
    for path in (Path(__file__).parents[2] / "real_configs" / "drafts").glob("*.json"):
        listed = json.loads(path.read_text(encoding="utf-8")).get("architectures") or []
        corpus |= {name for name in listed if isinstance(name, str)}
    registered = {name for rows in vllm_tables().registry.values() for name in rows}
    for name in sorted(corpus | registered | {"LiLiCorrDraftModel", "FooDFlash", ""}):
        for method in sorted(EAGLE_CONFIG_METHODS):
            assert eagle_config_architecture(method, name) == rename(method, name), (method, name)

    @settings(max_examples=200, deadline=None)
    @given(name=_NAMES, method=st.sampled_from(sorted(EAGLE_CONFIG_METHODS)))
    def generated(name: str, method: str) -> None:
        assert eagle_config_architecture(method, name) == rename(method, name)

    generated()


def test_each_construction_row_reads_what_it_cites(
    vllm_wheel: Wheel, transformers_wheel: Callable[[str], Wheel]
) -> None:
    # The cited constructor reads the attribute (config.X, or draft_config["key"]) ...
    for row in CONSTRUCTION_READS:
        path = "vllm/" + row.follows.split(":")[0].removeprefix("vllm/")
        source = vllm_wheel.source(path)
        key = row.field.rsplit(".", 1)[-1]
        read = f'["{key}"]' if "." in row.field else f"config.{key}"
        assert read in source, (row.field, path)
    # ... and no config class of the qwen3 type, in any transformers version vLLM accepts,
    # defaults markov_rank (Qwen3DSparkModel reads it from a Qwen3Config).
    for version in vllm_tables().transformers_versions:
        wheel = transformers_wheel(version)
        source = wheel.source("transformers/models/qwen3/configuration_qwen3.py")
        assert "markov_rank" not in source, version
