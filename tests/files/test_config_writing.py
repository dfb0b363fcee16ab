"""Writing a fixed config.json back (files/config_writing.py): the file's own layout, exact
bytes when nothing changes, and the paths --fix must never write."""

from __future__ import annotations

import errno
import json
import os
import signal
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drafting_config.files.config_writing import (
    FixRefusedError,
    detect_layout,
    fix_text,
    fixed_text,
    writable_config,
    write_atomically,
)
from drafting_config.files.json_files import MAX_CONFIG_BYTES
from drafting_config.values.edits import ConfigEdit, EditError, EditKind, JsonValue

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=8,
)
_OBJECTS = st.dictionaries(st.text(max_size=8), _JSON, max_size=6)
_LAYOUTS = st.fixed_dictionaries(
    {
        "indent": st.sampled_from([None, 2, 4, "\t"]),
        "ensure_ascii": st.booleans(),
        "trailing": st.sampled_from(["", "\n"]),
    }
)


def _written(document: object, layout: dict[str, object]) -> str:
    """A file as an editor or ``json.dump`` writes it."""
    indent = layout["indent"]
    assert indent is None or isinstance(indent, (int, str))
    text = json.dumps(document, indent=indent, ensure_ascii=bool(layout["ensure_ascii"]))
    return text + str(layout["trailing"])


@settings(max_examples=100)
@given(_OBJECTS, _LAYOUTS)
def test_no_edit_leaves_the_text_identical(
    document: dict[str, object], layout: dict[str, object]
) -> None:
    text = _written(document, layout)
    assert fixed_text(text, []) is text
    # and the layout detected is the one the file was written in
    detected = detect_layout(text)
    assert detected.indent == (layout["indent"] if "\n" in text.rstrip() else None)
    if layout["indent"] is None and len(document) > 1:
        assert detected.separators == (", ", ": ")


@settings(max_examples=100)
@given(_OBJECTS, _LAYOUTS, st.text(min_size=1, max_size=8), _JSON)
def test_an_edit_keeps_the_key_order_and_changes_only_its_key(
    document: dict[str, object], layout: dict[str, object], key: str, value: JsonValue
) -> None:
    text = _written(document, layout)
    fixed = json.loads(fixed_text(text, [ConfigEdit((key,), EditKind.SET, value)]))
    expected = [*document] if key in document else [*document, key]
    assert list(fixed) == expected
    assert fixed[key] == value
    assert {k: v for k, v in fixed.items() if k != key} == {
        k: v for k, v in document.items() if k != key
    }


@settings(max_examples=100)
@given(_OBJECTS, _LAYOUTS)
def test_a_delete_keeps_the_other_keys_in_order(
    document: dict[str, object], layout: dict[str, object]
) -> None:
    if not document:
        return
    key = next(iter(document))
    text = _written(document, layout)
    fixed = json.loads(fixed_text(text, [ConfigEdit((key,), EditKind.DELETE)]))
    assert list(fixed) == [k for k in document if k != key]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a tab-indented file written on Windows, with a byte-order mark
        (
            '\ufeff{\r\n\t"a": "x",\r\n\t"b": 1\r\n}\r\n',
            '\ufeff{\r\n\t"a": [\r\n\t\t"x"\r\n\t],\r\n\t"b": 1\r\n}\r\n',
        ),
        # one compact line, no trailing newline
        ('{"a":"x","b":1}', '{"a":["x"],"b":1}'),
        # non-ASCII stays as written; an ASCII file keeps its escapes
        ('{\n  "a": "x",\n  "n": "é"\n}\n', '{\n  "a": [\n    "x"\n  ],\n  "n": "é"\n}\n'),
        (
            '{\n  "a": "x",\n  "n": "\\u00e9"\n}\n',
            '{\n  "a": [\n    "x"\n  ],\n  "n": "\\u00e9"\n}\n',
        ),
    ],
)
def test_the_file_keeps_its_layout(text: str, expected: str) -> None:
    assert fixed_text(text, [ConfigEdit.set("a", ["x"])]) == expected


@pytest.mark.parametrize(
    "text", ['{"z": 1, "z": 2}', "[1]", "{not json", '{"z": {"b": 1, "b": 1}}', '{"z": }']
)
def test_a_file_that_cannot_be_edited_faithfully_is_refused(text: str) -> None:
    with pytest.raises(EditError):
        fixed_text(text, [ConfigEdit.set("z.b", 1)])


def test_a_key_repeated_off_the_edits_path_is_kept_as_written() -> None:
    text = '{"a": {"b": 1, "b": 2}, "z": null}'
    assert fixed_text(text, [ConfigEdit.delete("z")]) == '{"a": {"b": 1, "b": 2}}'


# A file as people write them: inline arrays, exponents, trailing zeros, escapes, two
# trailing newlines; none of it is JSON's canonical form, and a re-dump changed all of it.
_HAND_WRITTEN = (
    "{\n"
    '    "architectures": "LlamaForCausalLM",\n'
    '    "eos_token_id": [128001, 128008, 128009],\n'
    '    "huge": 1E400,\n'
    '    "rms_norm_eps": 1e-5,\n'
    '    "scale": 1.50,\n'
    '    "url": "https:\\/\\/example.org",\n'
    '    "letter": "\\u0041",\n'
    '    "dflash_config": {"mask_token_id": null, "target_layer_ids": [1, 2]}\n'
    "}\n\n"
)


@pytest.mark.parametrize(
    ("edit", "replaced", "by", "lines"),
    [
        (
            ConfigEdit.set("architectures", ["LlamaForCausalLM"]),
            '"LlamaForCausalLM"',
            '[\n        "LlamaForCausalLM"\n    ]',
            "line 2",
        ),
        (
            ConfigEdit.delete("dflash_config.mask_token_id"),
            '"mask_token_id": null, ',
            "",
            "line 9",
        ),
        (
            ConfigEdit.set("dflash_config.markov_rank", 256),
            "[1, 2]}",
            '[1, 2], "markov_rank": 256}',
            "after line 9",
        ),
    ],
)
def test_an_edit_replaces_only_its_members_span(
    edit: ConfigEdit, replaced: str, by: str, lines: str
) -> None:
    fixed, changes = fix_text(_HAND_WRITTEN, [edit])
    assert fixed == _HAND_WRITTEN.replace(replaced, by, 1)
    assert [(change.edit, change.lines) for change in changes] == [(edit, lines)]


def test_the_last_member_deleted_takes_its_separator_and_a_key_added_to_an_empty_object() -> None:
    text = '{\n  "a": 1,\n  "b": null\n}\n'
    assert fixed_text(text, [ConfigEdit.delete("b")]) == '{\n  "a": 1\n}\n'
    assert fixed_text('{\n  "a": {}\n}', [ConfigEdit.set("a.b", [1])]) == (
        '{\n  "a": {\n    "b": [\n      1\n    ]\n  }\n}'
    )
    assert fixed_text('{"a":{}}', [ConfigEdit.set("a.b", 1)]) == '{"a":{"b":1}}'
    assert fixed_text('{"a": null}', [ConfigEdit.delete("a")]) == "{}"


def test_a_lone_surrogate_escape_and_non_ascii_text_are_kept_and_written_as_utf8() -> None:
    text = '{"architectures": "X\\ud800", "name": "é"}\n'
    fixed = fixed_text(text, [ConfigEdit.set("architectures", ["X\ud800"])])
    assert fixed == '{"architectures": ["X\\ud800"], "name": "é"}\n'
    fixed.encode("utf-8")  # raises for a raw lone surrogate


def test_a_result_over_the_size_limit_is_refused() -> None:
    text = '{"a": "x", "pad": "' + "y" * (MAX_CONFIG_BYTES - 40) + '"}'
    assert len(text) < MAX_CONFIG_BYTES
    with pytest.raises(EditError, match="over the 1,048,576 bytes"):
        fixed_text(text, [ConfigEdit.set("a", ["x" * 50])])


@settings(max_examples=100)
@given(_OBJECTS, _LAYOUTS, st.text(min_size=1, max_size=8), _JSON)
def test_the_text_around_an_edited_member_is_unchanged(
    document: dict[str, object], layout: dict[str, object], key: str, value: JsonValue
) -> None:
    text = _written(document, layout)
    fixed = fixed_text(text, [ConfigEdit((key,), EditKind.SET, value)])
    if key in document:
        # the key itself and all before it, and the end of the file, are as they were
        head = text[: text.index(json.dumps(key, ensure_ascii=bool(layout["ensure_ascii"])) + ":")]
        assert fixed.startswith(head)
    assert fixed.endswith("}" + str(layout["trailing"]))


# --- which paths --fix may write -----------------------------------------------------------


def _config(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "config.json"
    path.write_text("{}\n", encoding="utf-8")
    return path


def test_a_regular_file_and_a_model_directory_are_writable(tmp_path: Path) -> None:
    path = _config(tmp_path / "draft")
    cache = tmp_path / "cache"
    assert writable_config(os.fspath(path), cache_root=cache) == path
    assert writable_config(os.fspath(tmp_path / "draft"), cache_root=cache) == path


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links")
def test_a_symbolic_link_is_never_written_through(tmp_path: Path) -> None:
    real = _config(tmp_path / "real")
    (tmp_path / "link.json").symlink_to(real)
    (tmp_path / "linked-folder").symlink_to(tmp_path / "real")
    inner = tmp_path / "holder"
    inner.mkdir()
    (inner / "config.json").symlink_to(real)
    for argument in ("link.json", "linked-folder", "linked-folder/config.json", "holder"):
        with pytest.raises(FixRefusedError, match="symbolic link"):
            writable_config(os.fspath(tmp_path / argument), cache_root=tmp_path / "cache")


def test_a_file_inside_a_hugging_face_cache_is_refused(tmp_path: Path) -> None:
    cache = tmp_path / "hub"
    inside = _config(cache / "models--org--name" / "snapshots" / "abc")
    with pytest.raises(FixRefusedError, match="Hugging Face cache"):
        writable_config(os.fspath(inside), cache_root=cache)
    # a cache at another place is known by its layout
    elsewhere = _config(tmp_path / "other" / "models--org--name" / "snapshots" / "abc")
    with pytest.raises(FixRefusedError, match="Hugging Face cache"):
        writable_config(os.fspath(elsewhere), cache_root=cache)


def test_the_cache_root_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inside = _config(tmp_path / "hf-home" / "hub" / "some" / "where")
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.delenv("HUGGINGFACE_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", os.fspath(tmp_path / "hf-home"))
    with pytest.raises(FixRefusedError, match="Hugging Face cache"):
        writable_config(os.fspath(inside))
    monkeypatch.setenv("HF_HUB_CACHE", os.fspath(tmp_path / "elsewhere"))
    assert writable_config(os.fspath(inside)) == inside


def test_a_repo_id_and_a_missing_path_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FixRefusedError, match="repo id"):
        writable_config("org/name")
    with pytest.raises(FixRefusedError, match="no such file"):
        writable_config("missing.json")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_something_that_is_not_a_regular_file_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "config.json"
    os.mkfifo(fifo)
    for argument in (fifo, tmp_path):
        with pytest.raises(FixRefusedError, match="not a regular file"):
            writable_config(os.fspath(argument), cache_root=tmp_path / "cache")


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_a_write_is_atomic_and_keeps_the_mode(tmp_path: Path) -> None:
    path = _config(tmp_path)
    path.chmod(0o640)
    write_atomically(path, '{"é": 1}\n')
    assert path.read_bytes() == '{"é": 1}\n'.encode()
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["config.json"]  # no temporary file left


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
def test_a_write_as_root_keeps_the_owner_and_group_and_drops_setuid(tmp_path: Path) -> None:
    path = _config(tmp_path)
    os.chown(path, 12345, 23456)
    path.chmod(0o6600)
    write_atomically(path, "{}\n")
    info = path.stat()
    assert (info.st_uid, info.st_gid) == (12345, 23456)
    assert stat.S_IMODE(info.st_mode) == 0o600


def test_an_owner_that_cannot_be_kept_refuses_the_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _config(tmp_path)
    before = path.read_bytes()
    real_stat = os.stat

    def other_owner(target: object, *args: object, **kwargs: object) -> os.stat_result:
        info = real_stat(target, *args, **kwargs)  # type: ignore[arg-type]
        if target == path:  # the original is someone else's
            values = list(info)
            values[stat.ST_UID] = info.st_uid + 1
            return os.stat_result(values)
        return info

    def refuse(*_: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "stat", other_owner)
    monkeypatch.setattr(os, "fchown", refuse)
    with pytest.raises(FixRefusedError, match="owner and group"):
        write_atomically(path, '{"a": 1}\n')
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["config.json"]


@pytest.mark.skipif(not hasattr(os, "link"), reason="no hard links")
def test_a_file_with_several_hard_links_is_refused(tmp_path: Path) -> None:
    path = _config(tmp_path / "draft")
    os.link(path, tmp_path / "other.json")
    with pytest.raises(FixRefusedError, match="2 hard links"):
        writable_config(os.fspath(path), cache_root=tmp_path / "cache")
    with pytest.raises(FixRefusedError, match="hard links"):
        write_atomically(path, '{"a": 1}\n')
    assert (tmp_path / "other.json").read_text(encoding="utf-8") == "{}\n"


def test_a_file_changed_before_the_rename_is_left_as_it_now_is(tmp_path: Path) -> None:
    path = _config(tmp_path)
    path.write_text('{"saved": "meanwhile"}\n', encoding="utf-8")
    with pytest.raises(FixRefusedError, match="changed since it was checked"):
        write_atomically(path, '{"a": 1}\n', expected=b"{}\n")
    assert path.read_text(encoding="utf-8") == '{"saved": "meanwhile"}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["config.json"]


@pytest.mark.parametrize(
    ("where", "error"),
    [
        ("fsync", OSError(errno.ENOSPC, "No space left on device")),  # a full filesystem
        ("mkstemp", OSError(errno.EROFS, "Read-only file system")),  # a read-only one
    ],
)
def test_a_full_or_read_only_filesystem_leaves_the_original_intact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, error: OSError
) -> None:
    path = _config(tmp_path)
    before = path.read_bytes()

    def fail(*_: object, **__: object) -> None:
        raise error

    monkeypatch.setattr(os if where == "fsync" else tempfile, where, fail)
    with pytest.raises(OSError, match=str(error.strerror)):
        write_atomically(path, '{"a": 1}\n')
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["config.json"]


_KILLED_WRITER = """
import os, sys, time
from pathlib import Path
from drafting_config.files import config_writing

def replace_slowly(source, target):
    print("written", flush=True)
    time.sleep(60)

os.replace = replace_slowly
config_writing.write_atomically(Path(sys.argv[1]), '{"a": "' + "x" * 100000 + '"}')
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="no SIGKILL")
def test_a_write_killed_midway_leaves_the_original_whole(tmp_path: Path) -> None:
    path = _config(tmp_path)
    before = path.read_bytes()
    with subprocess.Popen(
        [sys.executable, "-c", _KILLED_WRITER, os.fspath(path)],
        stdout=subprocess.PIPE,
        text=True,
    ) as child:
        try:
            assert child.stdout is not None
            assert child.stdout.readline() == "written\n"  # the new text is on disk, unrenamed
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=30)
    assert path.read_bytes() == before
