"""from_pretrained and load_config_json: local JSON only, every bad file named and explained."""

from __future__ import annotations

import errno
import json
import os
import pickle
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from drafting_config import (
    ConfigFileError,
    ParallelDraftingConfig,
    ParallelDraftingConfigError,
    TokenIdSource,
)
from drafting_config.files.json_files import (
    MAX_CONFIG_BYTES,
    load_config_json,
    read_config_json,
    read_json_object,
)
from drafting_config.values.paths import display_path
from tests.bad_files import BAD_FILES
from tests.conftest import EXAMPLES, INVALID_EXAMPLES, VALID_EXAMPLES, load_json


@pytest.mark.parametrize("path", VALID_EXAMPLES, ids=lambda p: p.parent.name)
def test_file_and_directory_give_the_same_config(path: Path) -> None:
    from_file = ParallelDraftingConfig.from_pretrained(path)
    assert ParallelDraftingConfig.from_pretrained(path.parent) == from_file
    assert ParallelDraftingConfig.from_pretrained(str(path)) == from_file
    assert from_file == ParallelDraftingConfig.from_hf_config(load_json(path))


def test_examples_resolve_as_their_readme_says() -> None:
    expected = {
        "dflash-qwen3-4b": (151669, TokenIdSource.DFLASH_MASK_TOKEN_ID),
        "dspark-qwen3-8b": (151669, TokenIdSource.MASK_TOKEN_ID),
        "dspark-noise-qwen3-8b": (151669, TokenIdSource.DSPARK_NOISE_TOKEN_ID),
        "pard-llama3-1b": (128020, TokenIdSource.PARD_TOKEN),
        "ptd-eagle3-llama3-8b": (128002, TokenIdSource.PTD_TOKEN_ID),
        "speculators-dflash-qwen3-8b": (151669, TokenIdSource.DFLASH_MASK_TOKEN_ID),
    }
    assert {p.parent.name for p in VALID_EXAMPLES} == set(expected)
    for name, (token_id, source) in expected.items():
        config = ParallelDraftingConfig.from_pretrained(EXAMPLES / name)
        assert (config.token_id, config.source) == (token_id, source)
    assert "ptd-eagle3" in (EXAMPLES / "README.md").read_text()


def test_invalid_example_names_its_path_and_field() -> None:
    path = EXAMPLES / "invalid" / "pard-token-as-string" / "config.json"
    assert path in INVALID_EXAMPLES
    with pytest.raises(ParallelDraftingConfigError) as info:
        ParallelDraftingConfig.from_pretrained(path)
    assert str(info.value).startswith(f"{path}: `pard_token` must be an integer token id")
    assert info.value.field == "pard_token"


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_files_are_config_file_errors(case: str, tmp_path: Path) -> None:
    make, phrase = BAD_FILES[case]
    path = make(tmp_path)
    with pytest.raises(ConfigFileError) as info:
        ParallelDraftingConfig.from_pretrained(path)
    error = info.value
    assert isinstance(error, ParallelDraftingConfigError)
    assert phrase in error.problem
    assert str(error).startswith(str(path)) or str(error).startswith(str(path.parent))
    assert "\n" not in str(error)
    clone = pickle.loads(pickle.dumps(error))
    assert (type(clone), str(clone), clone.path) == (ConfigFileError, str(error), error.path)


def test_a_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"pard_token": 5}).encode())
    assert ParallelDraftingConfig.from_pretrained(path).token_id == 5


def test_remote_code_is_never_run(tmp_path: Path) -> None:
    # auto_map names a module in the folder; loading must not import it.
    (tmp_path / "configuration_evil.py").write_text("raise SystemExit('remote code ran')\n")
    config = {
        "auto_map": {"AutoConfig": "configuration_evil.EvilConfig"},
        "trust_remote_code": True,
        "pard_token": 7,
    }
    (tmp_path / "config.json").write_text(json.dumps(config))
    assert ParallelDraftingConfig.from_pretrained(tmp_path).token_id == 7
    assert "configuration_evil" not in sys.modules
    assert load_config_json(tmp_path)["auto_map"] == config["auto_map"]


def test_an_oversized_file_is_refused_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make, _ = BAD_FILES["oversized"]
    path = make(tmp_path)

    def no_read(fd: int, size: int) -> bytes:
        raise AssertionError("the loader read a file it should refuse from its size")

    _patch_os(monkeypatch, read=no_read)
    with pytest.raises(ConfigFileError, match="over the"):
        load_config_json(path)


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="needs Linux procfs")
def test_files_that_report_no_size_are_still_read_whole() -> None:
    # procfs files report st_size 0 but have content: it must be read, not
    # mistaken for an empty file.
    with pytest.raises(ConfigFileError, match="not valid JSON"):
        load_config_json("/proc/self/status")


def test_a_path_with_a_nul_byte() -> None:
    with pytest.raises(ConfigFileError) as info:
        ParallelDraftingConfig.from_pretrained("config\0.json")
    assert str(info.value) == "config\\x00.json: not a valid path (it contains a NUL byte)."
    assert info.value.path == "config\0.json"


class _PatchedOs:
    """The ``os`` module as ``drafting_config.files.json_files`` sees it, with some calls replaced.

    Only the loader sees the replacements; pytest and the test itself keep the real ones.
    """

    def __init__(self, **replacements: object) -> None:
        self.__dict__.update(replacements)

    def __getattr__(self, name: str) -> object:
        return getattr(os, name)


def _patch_os(monkeypatch: pytest.MonkeyPatch, **replacements: object) -> None:
    monkeypatch.setattr("drafting_config.files.json_files.os", _PatchedOs(**replacements))


def _exactly(size: int, config: dict[str, object]) -> bytes:
    """A JSON object of exactly ``size`` bytes holding ``config``, padded with spaces."""
    data = json.dumps(config).encode()
    assert len(data) <= size
    return data[:-1] + b" " * (size - len(data)) + b"}"


def test_a_config_of_exactly_the_limit_is_read_and_one_byte_more_is_not(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_bytes(_exactly(MAX_CONFIG_BYTES, {"pard_token": 3}))
    assert ParallelDraftingConfig.from_pretrained(path).token_id == 3
    path.write_bytes(_exactly(MAX_CONFIG_BYTES + 1, {"pard_token": 3}))
    with pytest.raises(ConfigFileError) as info:
        load_config_json(path)
    assert info.value.problem == (
        "the file (1,048,577 bytes) is over the 1,048,576-byte limit for a config.json, "
        "so it is likely a weights file."
    )
    assert info.value.fix == "point at the model's config.json, not at its weights"


@pytest.mark.parametrize("limit", [1, 17, 4096])
def test_read_json_object_takes_its_own_limit(tmp_path: Path, limit: int) -> None:
    path = tmp_path / "tokenizer.json"
    path.write_bytes(_exactly(limit, {}) if limit > 1 else b"{}"[:limit])
    if limit == 1:
        with pytest.raises(ConfigFileError, match="not valid JSON"):
            read_json_object(path, max_bytes=limit, what="tokenizer.json")
    else:
        assert read_json_object(path, max_bytes=limit, what="tokenizer.json") == {}
    path.write_bytes(_exactly(limit + 1, {}))
    with pytest.raises(
        ConfigFileError, match=f"over the {limit:,}-byte limit for a tokenizer.json"
    ):
        read_json_object(path, max_bytes=limit, what="tokenizer.json")


def _report_size_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make fstat report 0 bytes, as procfs does, so only the bounded reads limit the file."""
    real_fstat = os.fstat

    def fstat(fd: int) -> os.stat_result:
        info = real_fstat(fd)
        fields = list(info)
        fields[6] = 0  # st_size
        return os.stat_result(fields)

    _patch_os(monkeypatch, fstat=fstat)


@pytest.mark.parametrize("extra", [0, 1])
def test_a_file_reporting_no_size_is_bounded_at_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extra: int
) -> None:
    path = tmp_path / "config.json"
    path.write_bytes(_exactly(MAX_CONFIG_BYTES + extra, {"pard_token": 9}))
    _report_size_zero(monkeypatch)
    if extra:
        with pytest.raises(ConfigFileError) as info:
            load_config_json(path)
        assert info.value.problem.startswith("the file is over the 1,048,576-byte limit")
    else:
        assert load_config_json(path)["pard_token"] == 9


def test_a_file_that_grows_while_read_is_still_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "config.json"
    path.write_bytes(b'{"pard_token": 1' + b" " * 1000)
    real_read = os.read
    sizes: list[int] = []

    def grow_then_read(fd: int, size: int) -> bytes:
        sizes.append(size)
        with path.open("ab") as file:  # another process appends past the limit
            file.write(b" " * MAX_CONFIG_BYTES)
        return real_read(fd, size)

    _patch_os(monkeypatch, read=grow_then_read)
    with pytest.raises(ConfigFileError, match=r": the file is over the 1,048,576-byte limit"):
        load_config_json(path)
    assert sizes == [1017]  # what fstat reported and one byte more; then read on to the limit


@pytest.mark.parametrize("call", ["read", "fstat"])
def test_an_os_error_after_open_is_a_config_file_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, call: str
) -> None:
    path = tmp_path / "config.json"
    path.write_text('{"pard_token": 1}')
    closed: list[int] = []
    real_close = os.close

    def failing(*args: object, **kwargs: object) -> object:
        raise OSError(errno.EIO, "Input/output error")

    def close(fd: int) -> None:
        closed.append(fd)
        real_close(fd)

    _patch_os(monkeypatch, **{call: failing, "close": close})
    with pytest.raises(ConfigFileError) as info:
        load_config_json(path)
    assert info.value.problem == "cannot read: Input/output error."
    assert info.value.path == str(path)
    assert len(closed) == 1  # the descriptor is not leaked


def test_an_error_without_strerror_still_reads_well(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "config.json"
    path.write_text("{}")

    def failing(fd: int, size: int) -> bytes:
        raise OSError("disk went away")

    _patch_os(monkeypatch, read=failing)
    with pytest.raises(ConfigFileError, match="cannot read: disk went away"):
        load_config_json(path)


def test_config_json_that_is_a_directory_names_the_inner_path(tmp_path: Path) -> None:
    (tmp_path / "model" / "config.json").mkdir(parents=True)
    with pytest.raises(ConfigFileError) as info:
        load_config_json(tmp_path / "model")
    assert info.value.path == str(tmp_path / "model" / "config.json")
    assert info.value.problem == "this is a directory; expected a config.json file."


def test_read_config_json_says_whether_it_was_given_the_file(tmp_path: Path) -> None:
    """The read knows whether the path named the file or its model directory, which the
    serve command needs, so that nobody asks the file system again."""
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text('{"a": 1}')
    (model / "other.json").write_text('{"a": 2}')
    (tmp_path / "link").symlink_to(model / "config.json")
    assert read_config_json(model / "config.json") == ({"a": 1}, True)
    assert read_config_json(str(model / "other.json")) == ({"a": 2}, True)
    assert read_config_json(tmp_path / "link") == ({"a": 1}, True)
    assert read_config_json(model) == ({"a": 1}, False)
    assert read_config_json(os.fsencode(model)) == ({"a": 1}, False)
    assert load_config_json(model) == {"a": 1}


def test_read_json_object_refuses_a_directory(tmp_path: Path) -> None:
    with pytest.raises(ConfigFileError, match=r"this is a directory; expected a tokenizer\.json"):
        read_json_object(tmp_path, max_bytes=100, what="tokenizer.json")


def test_huge_integers_inside_strings_or_floats_are_fine(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    digits = "9" * 5000
    path.write_text(
        f'{{"note": "{digits}", "x": {digits}.5, "y": 1e{digits[:3]}, "pard_token": 2}}'
    )
    assert load_config_json(path)["pard_token"] == 2


def test_huge_integer_after_a_string_with_escaped_quotes(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text('{"a": "say \\"1\\" \\\\", "b": ' + "1" * 4301 + "}")
    with pytest.raises(ConfigFileError) as info:
        load_config_json(path)
    assert "an integer literal with 4,301 digits at line 1, column 28;" in info.value.problem
    assert "set_int_max_str_digits" not in str(info.value)


# -- path arguments ----------------------------------------------------------------


def _model(folder: Path, token: int = 11) -> Path:
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({"pard_token": token}))
    return folder


def test_str_bytes_and_path_like_arguments_are_alike(tmp_path: Path) -> None:
    model = _model(tmp_path / "model")
    for argument in (model, str(model), os.fsencode(model), model / "config.json"):
        assert load_config_json(argument) == {"pard_token": 11}
        assert ParallelDraftingConfig.from_pretrained(argument).token_id == 11
        assert read_json_object(model / "config.json", max_bytes=100, what="x") == {
            "pard_token": 11
        }


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS refuses file names that are not UTF-8")
def test_a_path_that_is_not_utf8(tmp_path: Path) -> None:
    model = os.path.join(os.fsencode(tmp_path), b"model-\xff")
    os.mkdir(model)
    with open(os.path.join(model, b"config.json"), "w") as file:
        file.write('{"pard_token": 4}')
    assert load_config_json(model) == {"pard_token": 4}
    assert ParallelDraftingConfig.from_pretrained(model).token_id == 4
    assert load_config_json(os.fsdecode(model)) == {"pard_token": 4}
    missing = os.path.join(model, b"gone\xfe")
    with pytest.raises(ConfigFileError) as info:
        load_config_json(missing)
    assert str(info.value).startswith(display_path(missing) + ": no such file")
    assert "model-\\xff" + os.sep + "gone\\xfe: no such file" in str(info.value)
    assert info.value.path == os.fsdecode(missing)


def test_a_path_with_a_newline_cannot_forge_output(tmp_path: Path) -> None:
    path = tmp_path / "x\nOK  config.json"
    with pytest.raises(ConfigFileError) as info:
        load_config_json(path)
    assert "\n" not in str(info.value)
    assert "x\\nOK  config.json: no such file" in str(info.value)
    assert info.value.path == str(path)


@pytest.mark.parametrize("value", [5, None, 3.5, ["config.json"], object()])
def test_other_argument_types_are_refused_by_name(value: object) -> None:
    for load in (load_config_json, ParallelDraftingConfig.from_pretrained):
        with pytest.raises(ParallelDraftingConfigError, match=r"^`path` must be a path") as info:
            load(value)  # type: ignore[arg-type]
        assert not isinstance(info.value, TypeError)


def test_the_integer_digit_limit_is_python_s_own(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text('{"pard_token": ' + "1" * 700 + "}")
    previous = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)
    try:
        with pytest.raises(ConfigFileError) as info:
            load_config_json(path)
    finally:
        sys.set_int_max_str_digits(previous)
    assert info.value.problem.startswith(
        "an integer literal with 700 digits at line 1, column 16; integers longer than 640 "
        "digits cannot be read"
    )


def test_an_integer_refusal_that_cannot_be_placed_still_reads_well() -> None:
    from drafting_config.files.json_files import huge_integer_problem

    assert huge_integer_problem('{"a": "' + "9" * 5000 + '"}') == (
        f"an integer literal has more than {sys.get_int_max_str_digits():,} digits, "
        "too long to be read."
    )


# A directory that can be listed but not searched, or the reverse.
# (Simulated: the tests may run as root, whom permissions do not stop.)


def _refuse(monkeypatch: pytest.MonkeyPatch, function: str, refused: Path) -> None:
    real = getattr(os, function)

    def refusing(path: object, *args: object, **kwargs: object) -> object:
        if os.fspath(path) == str(refused):  # type: ignore[call-overload]
            raise PermissionError(13, "Permission denied", str(refused))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, function, refusing)


def test_a_directory_not_searchable_says_so_not_that_it_has_no_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "config.json").write_text('{"pard_token": 3}')
    _refuse(monkeypatch, "lstat", tmp_path / "config.json")  # chmod 444: listed, not searched
    with pytest.raises(ConfigFileError) as caught:
        load_config_json(tmp_path)
    assert caught.value.problem == (
        "cannot reach its config.json: Permission denied (the directory is not searchable: "
        "it lacks the x permission)."
    )


def test_a_directory_searchable_but_not_readable_still_opens_its_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """chmod 111: the directory cannot be opened or listed, but its config.json opens by
    name, as transformers (and so vLLM) opens it."""
    (tmp_path / "config.json").write_text('{"pard_token": 3}')
    _refuse(monkeypatch, "open", tmp_path)
    assert load_config_json(tmp_path) == {"pard_token": 3}


# --- Exact edges of reading a config.json ---------------------------------------------------------


@pytest.fixture
def digit_limit() -> Iterator[int]:
    """Python's integer digit limit, lowered to 640 for the test (as ``-X int_max_str_digits``)."""
    previous = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)
    try:
        yield 640
    finally:
        sys.set_int_max_str_digits(previous)


def test_the_over_long_integer_is_placed_exactly(tmp_path: Path, digit_limit: int) -> None:
    # Before it, on other lines: an integer of exactly the limit (readable), and long
    # floats with a fraction or an exponent only (never refused).  After it: more lines.
    text = (
        '\n{"at_limit": '
        + "1" * digit_limit
        + ',\n "x": '
        + "9" * 700
        + '.5, "y": '
        + "9" * 700
        + 'e5, "z": '
        + "7" * (digit_limit + 1)
        + "\n}\n"
    )
    path = tmp_path / "config.json"
    path.write_text(text)
    with pytest.raises(ConfigFileError) as info:
        load_config_json(path)
    column = len(' "x": ') + 700 + len('.5, "y": ') + 700 + len('e5, "z": ') + 1
    assert info.value.problem == (
        f"an integer literal with 641 digits at line 3, column {column}; integers longer "
        "than 640 digits cannot be read (no id or size is that long)."
    )


def test_an_over_long_integer_on_the_first_line(tmp_path: Path, digit_limit: int) -> None:
    path = tmp_path / "config.json"
    path.write_text('{"z": -' + "7" * 1000 + "}")
    with pytest.raises(ConfigFileError) as info:
        load_config_json(path)
    assert info.value.problem.startswith(
        "an integer literal with 1,000 digits at line 1, column 7; integers longer than 640 "
    )
