"""The launch's engine-free parsers (:mod:`drafting_config.values.launch`): words, options,
JSON objects and ``@FILE`` values, with property tests for open-ended input."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drafting_config.values.launch import (
    Launch,
    LaunchError,
    Option,
    json_object,
    launch_of,
    launch_words,
    option_value,
    read_options,
    split_words,
)

_WORD = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), max_size=12)


@given(st.lists(_WORD, max_size=8))
def test_a_joined_launch_splits_back_into_its_words(words: list[str]) -> None:
    launch = Launch(tuple(words))
    assert split_words(launch.shown) == launch.words
    assert launch_of(launch.shown) == launch


@settings(max_examples=40)
@given(st.text(max_size=40))
def test_any_text_splits_or_is_a_launch_error_naming_the_option(text: str) -> None:
    try:
        split_words(text, "--launch")
    except LaunchError as error:
        message = str(error)
    else:
        return
    assert message.startswith("--launch: cannot split")


def test_unbalanced_quotes_are_named() -> None:
    with pytest.raises(LaunchError, match=r"--sglang-args: .*No closing quotation.*balanced"):
        split_words("--speculative-algorithm 'DFLASH", "--sglang-args")


@pytest.mark.parametrize("value", [3, None, [1, "a"], {"words": []}])
def test_a_launch_of_another_type_is_refused(value: object) -> None:
    with pytest.raises(LaunchError, match="must be a command line"):
        launch_of(value)


_NAME = st.from_regex(r"--[a-z][a-z0-9-]{0,10}", fullmatch=True)
_VALUE = st.from_regex(r"[A-Za-z0-9/._]{1,10}", fullmatch=True)


@settings(max_examples=40)
@given(st.lists(st.tuples(_NAME, st.one_of(st.none(), _VALUE)), max_size=6))
def test_options_read_back_as_written(pairs: list[tuple[str, str | None]]) -> None:
    words: list[str] = []
    for name, value in pairs:
        words += [name] if value is None else [name, value]
    positional, options = read_options(words)
    assert positional == ()
    assert options == tuple(Option(name, value) for name, value in pairs)


@given(_NAME, st.text(max_size=10))
def test_the_equals_form_keeps_the_whole_value(name: str, value: str) -> None:
    assert read_options([f"{name}={value}"]) == ((), (Option(name, value),))


def test_negative_numbers_are_values_and_positional_words_are_kept() -> None:
    assert read_options(["MODEL", "--seed", "-1", "-tp", "2", "-"]) == (
        ("MODEL", "-"),
        (Option("--seed", "-1"), Option("-tp", "2")),
    )


@given(st.dictionaries(st.text(max_size=8), st.integers() | st.text(max_size=8), max_size=5))
def test_json_objects_round_trip(value: dict[str, object]) -> None:
    assert json_object(json.dumps(value), "--speculative-config") == value


@given(st.text(max_size=30))
def test_any_text_is_an_object_or_a_launch_error_naming_the_option(text: str) -> None:
    try:
        parsed: object = json_object(text, "--speculative-config")
    except LaunchError as error:
        parsed = str(error)
        assert parsed.startswith("--speculative-config: ")
    else:
        assert isinstance(parsed, dict)


def test_at_file_reads_the_file(tmp_path: Path) -> None:
    spec = tmp_path / "spec.json"
    spec.write_text('{"method": "dflash"}', encoding="utf-8")
    assert option_value(f"@{spec}", "--speculative-config") == '{"method": "dflash"}'
    assert option_value('{"a": 1}', "--speculative-config") == '{"a": 1}'
    with pytest.raises(LaunchError, match=r"--speculative-config: cannot read .*missing"):
        option_value(f"@{tmp_path / 'missing.json'}", "--speculative-config")


def test_shown_quotes_as_a_shell_would() -> None:
    assert Launch(("--speculative-config", '{"a": 1}')).shown == shlex.join(
        ["--speculative-config", '{"a": 1}']
    )


def test_at_file_reads_a_script_as_a_shell_would(tmp_path: Path) -> None:
    script = tmp_path / "serve.sh"
    script.write_text(
        "#!/bin/sh\n"
        "# the line this model card documents\n"
        "vllm serve Qwen/Qwen3-8B \\\n"
        '  --speculative-config \'{"method": "dflash", "model": "#1"}\'  # tested\n',
        encoding="utf-8",
    )
    assert launch_words(f"@{script}", "--launch") == (
        "vllm",
        "serve",
        "Qwen/Qwen3-8B",
        "--speculative-config",
        '{"method": "dflash", "model": "#1"}',
    )
    # Without @, the value is the command itself: a # is a word like any other.
    assert launch_words("vllm serve a#b", "--launch") == ("vllm", "serve", "a#b")


def test_an_unreadable_or_unsplittable_script_names_the_option(tmp_path: Path) -> None:
    with pytest.raises(LaunchError, match="--launch: cannot read"):
        launch_words(f"@{tmp_path / 'absent.sh'}", "--launch")
    script = tmp_path / "serve.sh"
    script.write_text("vllm serve 'unclosed\n", encoding="utf-8")
    with pytest.raises(LaunchError, match="--sglang-args: cannot split the command in"):
        launch_words(f"@{script}", "--sglang-args")
