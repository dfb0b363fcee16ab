"""Broken config.json files of every kind, made on demand in a temporary folder."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from drafting_config.files.json_files import MAX_CONFIG_BYTES


def _write(name: str, data: bytes) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        path = folder / name
        path.write_bytes(data)
        return path

    return make


def _missing(folder: Path) -> Path:
    return folder / "no-such-model" / "config.json"


def _directory_without_config(folder: Path) -> Path:
    (folder / "empty-model").mkdir()
    return folder / "empty-model"


def _config_json_is_a_directory(folder: Path) -> Path:
    (folder / "odd-model" / "config.json").mkdir(parents=True)
    return folder / "odd-model"


def _dangling_symlink(folder: Path) -> Path:
    (folder / "linked-model").mkdir()
    (folder / "linked-model" / "config.json").symlink_to(folder / "gone.json")
    return folder / "linked-model"


def _parent_is_a_file(folder: Path) -> Path:
    (folder / "plain-file").write_text("{}")
    return folder / "plain-file" / "config.json"


def _oversized_sparse(folder: Path) -> Path:
    # A 5 GB weights file passed by mistake: sparse, so the test costs nothing,
    # and the loader must refuse it from its size without reading it.
    path = folder / "model.safetensors"
    with path.open("wb") as file:
        file.truncate(5 * 10**9)
    return path


def _fifo(folder: Path) -> Path:
    path = folder / "pipe.json"
    os.mkfifo(path)
    return path


def _deep(folder: Path) -> Path:
    path = folder / "deep.json"
    depth = 300_000
    path.write_text('{"a": ' + "[" * depth + "]" * depth + "}")
    return path


_CONFIG_TEXT = '{"pard_token": 128020, "vocab_size": 128256}'


def _integer_deep_in_the_file(folder: Path) -> Path:
    path = folder / "huge-later.json"
    path.write_text('{"pard_token": 1,\n "layers": [1, 2,\n    -' + "7" * 5000 + "]}")
    return path


# name -> (make the bad path, a phrase the one-line reason must contain)
BAD_FILES: dict[str, tuple[Callable[[Path], Path], str]] = {
    "missing": (_missing, "no such file or directory"),
    "directory without config.json": (_directory_without_config, "has no config.json"),
    "config.json is a directory": (_config_json_is_a_directory, "this is a directory"),
    "dangling symlink": (_dangling_symlink, "no such file or directory"),
    "parent is a file": (_parent_is_a_file, "cannot open"),
    "fifo": (_fifo, "not a regular file"),
    "empty": (_write("empty.json", b""), "the file is empty"),
    "whitespace only": (_write("blank.json", b" \n\t\n"), "the file is empty"),
    "not utf-8": (
        _write("latin1.json", '{"pard_token": 1, "n": "é"}'.encode("latin-1")),
        "not valid UTF-8",
    ),
    "binary": (_write("weights.bin", b"\x08\x00\x00\x00\x00\x00\x00\x00{}\x00\x01"), "binary file"),
    "malformed": (_write("bad.json", b'{"pard_token": 128020,}'), "not valid JSON"),
    "truncated": (_write("cut.json", b'{"pard_token": 12'), "not valid JSON"),
    "deeply nested": (_deep, "nested too deeply"),
    "huge number": (
        _write("huge.json", b'{"pard_token": ' + b"9" * 5000 + b"}"),
        "an integer literal with 5,000 digits at line 1, column 16;",
    ),
    "huge number deep in the file": (
        _integer_deep_in_the_file,
        "an integer literal with 5,000 digits at line 3, column 5;",
    ),
    "utf-16 with a byte-order mark": (
        _write("utf16.json", _CONFIG_TEXT.encode("utf-16")),
        "UTF-16 (little-endian) text, not UTF-8.",
    ),
    "utf-16-le without a mark": (
        _write("utf16le.json", _CONFIG_TEXT.encode("utf-16-le")),
        "UTF-16 (little-endian) text",
    ),
    "utf-16-be without a mark": (
        _write("utf16be.json", ("\n " + _CONFIG_TEXT).encode("utf-16-be")),
        "UTF-16 (big-endian) text",
    ),
    "utf-16-be with a mark": (
        _write("utf16be-bom.json", b"\xfe\xff" + _CONFIG_TEXT.encode("utf-16-be")),
        "UTF-16 (big-endian) text",
    ),
    "utf-32 with a byte-order mark": (
        _write("utf32.json", _CONFIG_TEXT.encode("utf-32")),
        "UTF-32 (little-endian) text",
    ),
    "utf-32-be without a mark": (
        _write("utf32be.json", _CONFIG_TEXT.encode("utf-32-be")),
        "UTF-32 (big-endian) text",
    ),
    "utf-32-le without a mark": (
        _write("utf32le.json", _CONFIG_TEXT.encode("utf-32-le")),
        "UTF-32 (little-endian) text",
    ),
    "utf-16 mark on bytes that are not utf-16": (
        _write("odd.json", b"\xff\xfe\x00\xd8{}\x00"),  # a lone high surrogate
        "binary file",
    ),
    "safetensors header": (
        # 8-byte little-endian header length 123 ("{"), which looks like UTF-32 at first.
        _write("model.safetensors", (123).to_bytes(8, "little") + b'{"__metadata__":{}}\xff\x00'),
        "binary file",
    ),
    "oversized": (_oversized_sparse, "over the 1,048,576-byte limit"),
    "one byte over the limit": (
        _write("big.json", b" " * (MAX_CONFIG_BYTES - 1) + b"{}"),
        "over the 1,048,576-byte limit for a config.json",
    ),
    "root is an array": (_write("array.json", b'[{"pard_token": 1}]'), "the JSON root is an array"),
    "root is a string": (_write("string.json", b'"config"'), "the JSON root is a string"),
    "root is null": (_write("null.json", b"null"), "the JSON root is null"),
}

UNREADABLE: frozenset[str] = frozenset(
    {
        "missing",
        "directory without config.json",
        "config.json is a directory",
        "dangling symlink",
        "parent is a file",
        "fifo",
    }
)
"""The cases of :data:`BAD_FILES` where the file cannot be had at all (the check could not be
made: exit 2); in every other the file is read and wrong (exit 1)."""
