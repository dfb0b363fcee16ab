"""The package's SGLang tables against SGLang 0.5.23's wheel: the model types its config
loader knows (``drafting_config/engines/sglang/sglang-0.5.23.json``) and the target classes'
capture hooks (``TARGET_CLASSES``, in the same file), derived
again from the wheel's source with :mod:`ast` by ``tools/engines/sglang/tables.py``.

The wheel is opened once per test session and each file parsed once; the hook scan
parses ``sglang/srt/models/`` only, the model-type scan the config files and the files
that register a config class."""

from __future__ import annotations

import ast
import re
import time

import pytest

from drafting_config.engines.sglang.names import REWRITTEN_TO_HEADS, VERSION
from drafting_config.engines.sglang.tables import TARGET_CLASSES, model_types, registered_classes
from tools import engine_tables
from tools.engines.sglang import tables as sglang_tables
from tools.engines.sglang.tables import Hooks, SglangSource, config_registry, registered_model_types
from tools.engines.sglang.tables import target_hooks as derive_target_hooks
from tools.wheels import Wheel

pytestmark = pytest.mark.engine_wheels


@pytest.fixture(scope="session")
def sglang_source(sglang_wheel: Wheel) -> SglangSource:
    return SglangSource.of_zip(sglang_wheel.path)  # one open zip: Wheel.source reopens it


@pytest.fixture(scope="session")
def target_hooks(sglang_source: SglangSource) -> dict[str, Hooks]:
    started = time.perf_counter()
    hooks = derive_target_hooks(sglang_source)
    print(f"hook scan of srt/models/: {time.perf_counter() - started:.1f} s")
    return hooks


def test_the_config_registry_is_sglangs(sglang_source: SglangSource) -> None:
    assert sorted(model_types().config_registry) == config_registry(sglang_source)


def test_the_other_registered_model_types_are_sglangs(sglang_source: SglangSource) -> None:
    assert sorted(model_types().registered) == registered_model_types(sglang_source)


def test_the_transformers_version_is_the_one_sglangs_wheel_requires(sglang_wheel: Wheel) -> None:
    (metadata,) = [m for m in sglang_wheel.members("sglang-") if m.endswith(".dist-info/METADATA")]
    required = re.findall(
        r"^Requires-Dist: transformers\s*(.*)$", sglang_wheel.source(metadata), re.MULTILINE
    )
    assert required == [f"=={model_types().transformers}"]


def test_every_registered_class_has_the_hooks_the_package_gives_it(
    target_hooks: dict[str, Hooks],
) -> None:
    assert TARGET_CLASSES.keys() <= target_hooks.keys()
    for name, found in target_hooks.items():
        row = TARGET_CLASSES.get(name)
        table = (
            Hooks(False, False, False)
            if row is None
            else Hooks(row.dflash is not None, row.dspark is not None, row.eagle3 is not None)
        )
        assert table == found, name


def test_the_hook_scan_reads_what_the_issue_names(target_hooks: dict[str, Hooks]) -> None:
    # Qwen3 taps for DFlash and EAGLE-3; Qwen2 only for EAGLE-3; DeepSeek-V4 only for
    # DSpark; LFM2 only for DFlash; Qwen3.5's hooks are inherited (qwen3_5.py).
    assert target_hooks["Qwen3ForCausalLM"] == Hooks(True, False, True)
    assert target_hooks["Qwen2ForCausalLM"] == Hooks(False, False, True)
    assert target_hooks["DeepseekV4ForCausalLM"] == Hooks(False, True, False)
    assert target_hooks["Lfm2ForCausalLM"] == Hooks(True, False, False)
    assert target_hooks["Qwen3_5ForConditionalGeneration"] == Hooks(True, False, True)
    assert target_hooks["Dots3NoteForCausalLM"] == Hooks(False, False, False)
    assert len(target_hooks) == 290


def test_the_registered_classes_are_every_entry_class(target_hooks: dict[str, Hooks]) -> None:
    assert registered_classes() == frozenset(target_hooks)


@pytest.mark.slow
def test_the_shipped_file_is_exactly_what_the_command_writes(sglang_wheel: Wheel) -> None:
    # `python -m tools.engine_tables sglang VERSION` on the wheel the tests fetch: every
    # byte, the hand-kept target classes (their last_layer column) carried over as shipped.
    written = sglang_tables.documents(VERSION, lambda _: sglang_wheel.path)
    assert set(written) == {engine_tables.data_file("sglang", VERSION)}
    for relative, text in written.items():
        assert text == (engine_tables.PACKAGE_DATA / relative).read_text(encoding="utf-8")


def _draft_rewrites(sglang_source: SglangSource) -> tuple[set[str], set[str]]:
    """The names ``ModelConfig._config_draft_model`` compares ``architectures[0]`` with
    (module-level tuples resolved), and the ones compared under a speculative-algorithm
    test."""
    tree = sglang_source.tree("sglang/srt/configs/model_config.py")
    constants = {
        target.id: node.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    (function,) = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and node.name == "_config_draft_model"
    ]
    names: set[str] = set()
    gated: set[str] = set()
    for test in ast.walk(function):
        if not isinstance(test, ast.If):
            continue
        condition = ast.unparse(test.test)
        for compare in ast.walk(test.test):
            if not (
                isinstance(compare, ast.Compare) and "architectures[0]" in ast.unparse(compare.left)
            ):
                continue
            for side in compare.comparators:
                value = constants.get(side.id, side) if isinstance(side, ast.Name) else side
                for leaf in ast.walk(value):
                    if isinstance(leaf, ast.Constant) and isinstance(leaf.value, str):
                        names.add(leaf.value)
                        if "speculative_algorithm" in condition:
                            gated.add(leaf.value)
    return names, gated


def test_the_classes_rewritten_to_their_mtp_heads_are_sglangs(
    sglang_source: SglangSource,
) -> None:
    # Every unconditional rewrite of architectures[0] for a draft; the DSPARK-only one
    # (DSparkMiniMaxDraftModel) is a draft class, not a plain LM.
    names, gated = _draft_rewrites(sglang_source)
    assert gated == {"DSparkMiniMaxDraftModel"}
    assert names - gated == REWRITTEN_TO_HEADS
