"""The serve command a verdict prints (``Verdict.serve_with``): a line a POSIX shell splits back
into the argv intended, whose JSON parses, naming the draft and target as given; and every
command printed for the bundled examples and the corpus passed each engine's own config stage
(``tests/real_configs/serve_readings.json``, recorded by ``python -m tools.serve_readings``;
the live share in ``tests/tools/test_config_stage.py``)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any, Final

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from drafting_config import check
from drafting_config.draft.file import read_draft
from drafting_config.engines import RELEASES, Engine
from drafting_config.engines.interface import DRAFT_PLACEHOLDER, TARGET_PLACEHOLDER, ServeNames
from drafting_config.engines.sglang.names import Algorithm
from drafting_config.engines.sglang.serving import serve_command as sglang_command
from drafting_config.engines.vllm.modes import ServedMode
from drafting_config.engines.vllm.names import REFUSES_PARALLEL_SWITCH, VERSIONS, last_before
from drafting_config.engines.vllm.serving import TOKENS_PLACEHOLDER, speculative_config
from drafting_config.engines.vllm.serving import serve_command as vllm_command
from drafting_config.values import codes
from drafting_config.values.findings import Findings
from tests.serve_commands import sglang_algorithm, vllm_config
from tools.harness.launch import PLACEHOLDER_TOKENS
from tools.serve_readings import READINGS, ROOT, printed_names

RECORDED: Final[dict[str, dict[str, list[dict[str, Any]]]]] = json.loads(
    READINGS.read_text(encoding="utf-8")
)
"""The recorded readings, ``engine -> release -> [reading]``."""

READ: Final = [
    (engine, release, reading)
    for engine, releases in RECORDED.items()
    for release, readings in releases.items()
    for reading in readings
]

REFUSED: Final[dict[str, str]] = {}
"""Printed commands an engine's config stage refused (``ENGINE RELEASE:NAME``), with why:
none, so far; each would be a verdict that passes a draft its engine will not start with."""


def _engine(engine: str, release: str) -> Engine:
    return next(name for name in RELEASES if name == f"{engine}=={release}")


def _id(item: tuple[str, str, dict[str, Any]]) -> str:
    engine, release, reading = item
    return f"{engine} {release}:{reading['name']}"


def _printed(engine: str, release: str, reading: dict[str, Any]) -> str | None:
    verdict = check(
        ROOT / reading["draft"], target=ROOT / reading["target"], engine=_engine(engine, release)
    )
    return None if verdict.serve_with is None else verdict.serve_with.replace(f"{ROOT}/", "")


# -- the line, as a shell reads it ---------------------------------------------------------


def test_a_dflash_command_names_the_target_the_draft_and_the_drafts_number() -> None:
    draft = ROOT / "examples" / "pair-qwen3-4b" / "draft"
    target = ROOT / "examples" / "pair-qwen3-4b" / "target"
    for engine in RELEASES:
        verdict = check(draft, target=target, engine=engine)
        argv = shlex.split(verdict.serve_with or "")
        if engine.startswith("vllm"):
            config = json.loads(argv[-1])
            assert argv == ["vllm", "serve", str(target), "--speculative-config", argv[-1]]
            assert config == {"method": "dflash", "model": str(draft), "num_speculative_tokens": 15}
        else:
            assert argv == [
                "python",
                "-m",
                "sglang.launch_server",
                "--model-path",
                str(target),
                "--speculative-algorithm",
                "DFLASH",
                "--speculative-draft-model-path",
                str(draft),
            ]


def test_a_config_json_file_is_served_from_its_folder_and_a_config_object_as_draft() -> None:
    file = ROOT / "examples" / "dflash-qwen3-4b" / "config.json"
    assert vllm_config(check(file).serve_with)["model"] == str(file.parent)
    config = json.loads(file.read_text(encoding="utf-8"))
    command = check(config).serve_with
    assert vllm_config(command)["model"] == DRAFT_PLACEHOLDER
    assert shlex.split(command or "")[2] == TARGET_PLACEHOLDER


def test_a_file_not_named_config_json_or_an_escaped_name_is_served_as_draft(
    tmp_path: Path,
) -> None:
    config = (ROOT / "examples" / "dflash-qwen3-4b" / "config.json").read_text(encoding="utf-8")
    other = tmp_path / "draft.json"  # no engine loads a model from a lone file
    other.write_text(config, encoding="utf-8")
    odd = tmp_path / "line\nbreak"  # printed escaped, so the shell would get another path
    odd.mkdir()
    (odd / "config.json").write_text(config, encoding="utf-8")
    spaced = tmp_path / "my draft's dir"
    spaced.mkdir()
    (spaced / "config.json").write_text(config, encoding="utf-8")
    assert vllm_config(check(other).serve_with)["model"] == DRAFT_PLACEHOLDER
    assert vllm_config(check(odd).serve_with)["model"] == DRAFT_PLACEHOLDER
    assert vllm_config(check(spaced).serve_with)["model"] == str(spaced)


def test_a_draft_saying_no_number_gets_the_placeholder_and_a_note() -> None:
    verdict = check(ROOT / "examples" / "ptd-eagle3-llama3-8b")
    assert vllm_config(verdict.serve_with)["num_speculative_tokens"] == TOKENS_PLACEHOLDER
    assert codes.SPECULATIVE_TOKENS_UNKNOWN in {getattr(n, "code", None) for n in verdict.notes}
    # A DFlash draft says its number: no note.
    dflash = check(ROOT / "examples" / "dflash-qwen3-4b")
    assert codes.SPECULATIVE_TOKENS_UNKNOWN not in {getattr(n, "code", None) for n in dflash.notes}


def test_a_dspark_draft_is_served_with_its_block_as_vllm_defaults_it() -> None:
    # vLLM takes block_size (else dspark_block_size) as a DSpark draft's number.
    for name in ("dspark-qwen3-8b", "dspark-noise-qwen3-8b"):
        config = vllm_config(check(ROOT / "examples" / name).serve_with)
        assert (config["method"], config["num_speculative_tokens"]) == ("dspark", 8)
    draft = read_draft({"architectures": ["DSparkDraftModel"], "dspark_block_size": 6})
    mode = ServedMode("dspark", "dspark", parallel=True, asks_parallel=True)
    line = vllm_command(mode, draft, ServeNames("d", "t"), Findings(), VERSIONS[-1])
    assert vllm_config(line)["num_speculative_tokens"] == 6


PARALLEL_RELEASE = last_before(REFUSES_PARALLEL_SWITCH)
"""A release that takes `"parallel_drafting": true` for EAGLE-3."""


_NAME = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\\"), min_size=1
)


@given(_NAME, _NAME)
@example("my draft's dir", "$(rm -rf ~)")
@example("-draft", "--target")
@example('"quoted"', "a;b|c&d")
def test_any_names_split_back_into_the_intended_argv(draft: str, target: str) -> None:
    names = ServeNames(draft, target)
    mode = ServedMode("eagle3", "eagle3", parallel=True, asks_parallel=True)
    line = vllm_command(mode, read_draft({}), names, Findings(), PARALLEL_RELEASE)
    argv = shlex.split(line)
    assert argv[:3] == ["vllm", "serve", target]
    assert argv[3] == "--speculative-config"
    assert json.loads(argv[4]) == {
        "method": "eagle3",
        "model": draft,
        "num_speculative_tokens": TOKENS_PLACEHOLDER,
        "parallel_drafting": True,
    }
    assert shlex.split(sglang_command(Algorithm.DSPARK, names))[4::2] == [target, "DSPARK", draft]


@given(
    st.sampled_from(["dflash", "dspark", "eagle3", "eagle", "draft_model"]),
    st.text(),
    st.one_of(st.integers(min_value=1), st.just(TOKENS_PLACEHOLDER)),
    st.booleans(),
)
@example("dflash", 'a "quoted"\\ name\n\u00e9\U0001f600', 15, False)
def test_the_speculative_config_is_json_dumps_of_its_object(
    method: str, model: str, tokens: int | str, switch: bool
) -> None:
    # Written key by key for speed: byte for byte what json.dumps writes of the dict.
    config: dict[str, object] = {
        "method": method,
        "model": model,
        "num_speculative_tokens": tokens,
    }
    if switch:
        config["parallel_drafting"] = True
    assert speculative_config(method, model, tokens, switch=switch) == json.dumps(config)


# -- the engines' config stage, recorded ----------------------------------------------------


def test_the_readings_cover_each_engine_and_a_shipped_release() -> None:
    assert {engine.partition("==")[0] for engine in RELEASES} == set(RECORDED)
    for engine, releases in RECORDED.items():
        for release in releases:
            assert f"{engine}=={release}" in RELEASES


@pytest.mark.parametrize("item", READ, ids=_id)
def test_every_printed_command_passed_the_engines_config_stage(
    item: tuple[str, str, dict[str, Any]],
) -> None:
    engine, release, reading = item
    command = reading["command"]
    assert _printed(engine, release, reading) == command, "stale: python -m tools.serve_readings"
    if command is None:
        return  # the verdict serves nothing: its errors say why
    argv = shlex.split(command)
    assert shlex.join(argv) == command
    draft, _ = printed_names(engine, argv)
    assert draft in (DRAFT_PLACEHOLDER, str(Path(reading["draft"]).parent))
    if _id(item) in REFUSED:
        assert reading["outcome"] != "passed", f"{_id(item)} passes now: remove it"
        return
    if reading["artefact"] is not None:
        pytest.skip(f"no reading: {reading['artefact']}")
    assert reading["outcome"] == "passed", reading["exception"]
    spec = reading["speculative"]
    if engine == "vllm":
        config = vllm_config(command)
        tokens = config["num_speculative_tokens"]
        assert reading["placeholder"] is (tokens == TOKENS_PLACEHOLDER)
        assert spec["method"] == config["method"]
        assert spec["num_speculative_tokens"] == (
            PLACEHOLDER_TOKENS if reading["placeholder"] else tokens
        )
        assert spec["model"] == "<draft>"  # the draft the command names, not the target's
    else:
        assert spec["algorithm"] == sglang_algorithm(command)
        assert spec["draft"] == "<draft>"


def test_sglang_verifies_the_dflash_block_vllm_is_told_to_fill() -> None:
    # vLLM drafts N = block_size - 1 tokens; SGLang, deriving its own from the same draft,
    # verifies a window of block_size (the anchor and N slots): the two agree on every draft.
    vllm = {r["name"]: r for r in RECORDED["vllm"][max(RECORDED["vllm"], key=_version)]}
    compared = 0
    for reading in next(iter(RECORDED["sglang"].values())):
        spec, twin = reading.get("speculative"), vllm.get(reading["name"])
        if spec is None or twin is None or twin.get("speculative") is None:
            continue
        if spec["algorithm"] == "DFLASH" and not twin["placeholder"]:
            assert spec["num_draft_tokens"] == twin["speculative"]["num_speculative_tokens"] + 1
            compared += 1
    assert compared


def _version(release: str) -> tuple[int, ...]:
    return tuple(int(part) for part in release.split("."))
