"""Writing a fixed ``config.json`` back: the edits of ``check --fix`` applied to the file's
text, in the file's own layout, and written only where writing is safe.

:func:`fix_text` applies :class:`~drafting_config.values.edits.ConfigEdit` values to a
file's text in place: each edit replaces only the span of the member it changes
(:mod:`drafting_config.files.json_spans`), so every other byte stays as written (numbers,
escapes, inline arrays, line endings, a byte-order mark, trailing newlines), and a value
written follows the file's layout: its indentation (spaces or a tab, detected), its
separators, ``\\u`` escapes only if the file had no non-ASCII character.  Key order is
kept; a key added comes last in its object.  With no edit the text is returned as it is.

:func:`writable_config` says which file a path argument names and refuses what ``--fix``
must never write: a repo id, a path that does not exist, a symbolic link anywhere on the
path as given, something that is not a regular file, anything inside a Hugging Face cache
(its snapshot files are links to blobs shared between revisions).
:func:`write_atomically` writes through a temporary file in the same directory and
``os.replace``, keeping the file's owner, group and permission bits (less setuid and
setgid), and refuses a file with more than one hard link or one changed since it was read.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from drafting_config.files.json_files import CONFIG_NAME, MAX_CONFIG_BYTES, READ_FLAGS
from drafting_config.files.json_spans import (
    JsonMember,
    JsonObject,
    JsonSpanError,
    member_path,
    position,
    root_object,
)
from drafting_config.files.repo_ids import looks_like_repo_id
from drafting_config.values.edits import ConfigEdit, EditError, EditKind, apply_edits

__all__ = ["fix_text", "writable_config", "write_atomically"]

_UTF8_BOM: Final = "\ufeff"

_SURROGATE: Final = re.compile("[\ud800-\udfff]")


class FixRefusedError(Exception):
    """``--fix`` will not write this path; the message says why, in one clause."""


@dataclass(frozen=True)
class JsonLayout:
    """How a JSON file is written, as far as a value written into it should follow."""

    indent: int | str | None = 2
    """Spaces per level (or the indent string, a tab); ``None`` for one line."""
    separators: tuple[str, str] = (",", ": ")
    """The item and key separators, as :func:`json.dumps` takes them."""
    ensure_ascii: bool = False
    """Write non-ASCII as ``\\u`` escapes: only when the file had no non-ASCII character."""
    newline: str = "\n"
    """The line ending (``"\\r\\n"`` for a file written on Windows)."""


def detect_layout(text: str) -> JsonLayout:
    """The layout of ``text``, a JSON document, read from the text itself (never a re-dump,
    which a large file would pay for): the indent of its first indented line, the
    separators of its root object's first members, its line ending, and whether it is
    ASCII."""
    body = text.removeprefix(_UTF8_BOM)
    newline = "\r\n" if "\r\n" in body else "\n"
    indent = _indent(body.rstrip())
    item, key = ",", ": "
    try:
        members = root_object(text).members
    except JsonSpanError:
        members = ()
    if members:
        key = ":" + (" " if text[members[0].key_end : members[0].value_start].endswith(" ") else "")
    if len(members) > 1 and indent is None:
        item = "," + (" " if text[members[0].end : members[1].start].endswith(" ") else "")
    return JsonLayout(indent, (item, key), body.isascii(), newline)


def _indent(text: str) -> int | str | None:
    """The indentation of the first indented line, or ``None`` for one line."""
    for line in text.splitlines()[1:]:
        content = line.lstrip(" \t")
        if content and len(content) < len(line):
            lead = line[: len(line) - len(content)]
            return len(lead) if set(lead) == {" "} else lead
    return None if "\n" not in text else 0


@dataclass(frozen=True)
class TextChange:
    """One edit as made in a file's text, with the lines it changed."""

    edit: ConfigEdit
    lines: str
    """The lines of the text before the edit that it changed: ``"line 4"``, ``"lines 4-6"``,
    or ``"after line 9"`` for a key added."""


def fixed_text(text: str, edits: Sequence[ConfigEdit]) -> str:
    """``text``, a ``config.json``'s, with ``edits`` applied in place (see
    :func:`fix_text`); ``text`` itself when there is no edit.

    Raises:
        EditError: as :func:`fix_text`.
    """
    return fix_text(text, edits)[0]


def fix_text(text: str, edits: Sequence[ConfigEdit]) -> tuple[str, list[TextChange]]:
    """``text``, a ``config.json``'s, with ``edits`` applied in order, and each change with
    the lines it made.

    Each edit replaces only the span of the member it sets or deletes (a key added goes
    last in its object, after the last member): every other character of the file stays
    as it was, its numbers, escapes, inline arrays, line endings and trailing newlines
    included.  A value written is laid out as the file is (its indent, its separators,
    ``\\u`` escapes in a file that has no non-ASCII character; a lone surrogate always as
    an escape).  The result is parsed again and must equal the file's object with the edits
    applied (:func:`~drafting_config.values.edits.apply_edits`).

    Raises:
        EditError: the text is not a JSON object; a key on an edit's path appears twice in
            its object; an edit does not fit the text; the result would be over
            :data:`~drafting_config.files.json_files.MAX_CONFIG_BYTES`.
    """
    if not edits:
        return text, []
    body = text.removeprefix(_UTF8_BOM)
    try:
        document = json.loads(body)
    except (ValueError, RecursionError) as error:
        raise EditError(f"the file cannot be rewritten: {error}") from None
    if not isinstance(document, dict):
        raise EditError("the file's JSON root is not an object")
    layout = detect_layout(text)
    changes = []
    for edit in edits:
        text, lines = _edit_in_place(text, edit, layout)
        changes.append(TextChange(edit, lines))
    expected = apply_edits(document, edits)  # raises EditError as the spans would
    try:
        result = json.loads(text.removeprefix(_UTF8_BOM))
    except ValueError:
        result = None
    if _canonical(result) != _canonical(expected):  # a defect of ours: never write it
        raise EditError("the edit could not be made in place without changing other content")
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_CONFIG_BYTES:
        raise EditError(
            f"the fixed file would be {size:,} bytes, over the {MAX_CONFIG_BYTES:,} bytes "
            "a config.json may have"
        )
    return text, changes


def _canonical(document: object) -> str:
    return json.dumps(document, ensure_ascii=True)


def _edit_in_place(text: str, edit: ConfigEdit, layout: JsonLayout) -> tuple[str, str]:
    """``text`` with one edit made in the span of its member, and the lines it changed."""
    try:
        found = member_path(text, edit.path)
    except JsonSpanError as error:
        raise EditError(f"`{edit.field}` cannot be edited in place: {error}") from None
    if len(found) < len(edit.path):
        where = ".".join(edit.path[: len(found)])
        raise EditError(f"`{where}` is not an object in the file: `{edit.field}` cannot be set")
    container, member = found[-1]
    if edit.kind is EditKind.DELETE:
        if member is None:
            raise EditError(f"`{edit.field}` is not in the file")
        return _delete(text, container, member), _lines(text, member.start, member.end)
    if member is not None:
        value = _render(edit.value, layout, _line_lead(text, member.start))
        edited = text[: member.value_start] + value + text[member.end :]
        return edited, _lines(text, member.start, member.end)
    return _insert(text, container, edit, layout)


def _delete(text: str, container: JsonObject, member: JsonMember) -> str:
    """``text`` without ``member`` and one separator beside it."""
    members = container.members
    index = members.index(member)
    if len(members) == 1:
        return text[: container.start + 1] + text[container.end - 1 :]
    if index + 1 < len(members):
        return text[: member.start] + text[members[index + 1].start :]
    return text[: members[index - 1].end] + text[member.end :]


def _insert(
    text: str, container: JsonObject, edit: ConfigEdit, layout: JsonLayout
) -> tuple[str, str]:
    """``text`` with the key of ``edit`` added last in ``container``, laid out as the
    object's members are."""
    key = _escape_surrogates(json.dumps(edit.path[-1], ensure_ascii=layout.ensure_ascii))
    members = container.members
    if members:
        last = members[-1]
        if len(members) > 1:
            separator = text[members[-2].end : last.start]
        else:
            separator = "," + text[container.start + 1 : last.start]
        lead = _line_lead(text, last.start)
        colon = text[last.key_end : last.value_start]
        member = key + colon + _render(edit.value, layout, lead)
        return (
            text[: last.end] + separator + member + text[last.end :],
            f"after {_lines(text, last.end - 1, last.end)}",
        )
    colon = layout.separators[1]
    if layout.indent is None:
        inside = key + colon + _render(edit.value, layout, "")
    else:
        outer = _line_lead(text, container.start)
        unit = layout.indent if isinstance(layout.indent, str) else " " * layout.indent
        inner = outer + unit
        value = _render(edit.value, layout, inner)
        inside = layout.newline + inner + key + colon + value + layout.newline + outer
    edited = text[: container.start + 1] + inside + text[container.end - 1 :]
    return edited, f"after {_lines(text, container.start, container.start + 1)}"


def _render(value: object, layout: JsonLayout, lead: str) -> str:
    """``value`` as JSON in the file's layout, its lines after the first indented by
    ``lead`` (the indentation of the line the value starts on)."""
    text = json.dumps(
        value,
        indent=layout.indent,
        separators=layout.separators,
        ensure_ascii=layout.ensure_ascii,
    )
    return _escape_surrogates(text).replace("\n", layout.newline + lead)


def _escape_surrogates(text: str) -> str:
    """A lone surrogate (which UTF-8 cannot hold) as its ``\\u`` escape: in JSON text from
    :func:`json.dumps` it can only be inside a string."""
    return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def _line_lead(text: str, index: int) -> str:
    """The white space that starts the line holding ``text[index]``."""
    line = text[text.rfind("\n", 0, index) + 1 : index].removeprefix(_UTF8_BOM)
    return line[: len(line) - len(line.lstrip(" \t"))]


def _lines(text: str, start: int, end: int) -> str:
    """``"line N"`` or ``"lines N-M"``: the lines of ``text[start:end]``."""
    first = position(text, start)[0]
    last = position(text, max(start, end - 1))[0]
    return f"line {first}" if first == last else f"lines {first}-{last}"


def hub_cache_root() -> Path:
    """The Hugging Face hub cache, as ``huggingface_hub`` locates it (without importing it):
    ``HF_HUB_CACHE`` (or the older ``HUGGINGFACE_HUB_CACHE``), else ``HF_HOME``/hub, else
    ``$XDG_CACHE_HOME``/huggingface/hub, else ``~/.cache/huggingface/hub``."""
    explicit = os.environ.get("HF_HUB_CACHE") or os.environ.get("HUGGINGFACE_HUB_CACHE")
    if explicit:
        return Path(explicit).expanduser()
    home = os.environ.get("HF_HOME")
    if not home:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join("~", ".cache")
        home = os.path.join(xdg, "huggingface")
    return Path(home).expanduser() / "hub"


def writable_config(argument: str, *, cache_root: Path | None = None) -> Path:
    """The ``config.json`` a path argument names, if ``--fix`` may write it.

    Args:
        argument: a path as the user gave it: a ``config.json`` or a model directory.
        cache_root: the Hugging Face cache (default :func:`hub_cache_root`).

    Raises:
        FixRefusedError: a repo id, a missing path, a symbolic link on the path as given,
            not a regular file, or a file inside a Hugging Face cache.
    """
    if not os.path.lexists(argument):
        if looks_like_repo_id(argument):
            raise FixRefusedError("a repo id: --fix writes only local files named by path")
        raise FixRefusedError("no such file")
    _refuse_links(argument)
    path = Path(argument)
    if path.is_dir():
        path /= CONFIG_NAME
        _refuse_links(os.fspath(path))
    try:
        info = os.lstat(path)
    except OSError as error:
        raise FixRefusedError(f"cannot be read: {error.strerror or error}") from None
    if not stat.S_ISREG(info.st_mode):
        raise FixRefusedError("not a regular file")
    if info.st_size > MAX_CONFIG_BYTES:
        raise FixRefusedError("too large to be a config.json")
    if info.st_nlink > 1:
        raise FixRefusedError(
            f"the file has {info.st_nlink} hard links, which a rewrite would split: "
            "fix a copy with one link"
        )
    if _in_hub_cache(path, hub_cache_root() if cache_root is None else cache_root):
        raise FixRefusedError(
            "inside a Hugging Face cache, whose files are shared between revisions: "
            "fix a copy outside it"
        )
    return path


def _refuse_links(argument: str) -> None:
    """Refuse a symbolic link at any component of the path as given."""
    current = Path(argument)
    for candidate in (current, *current.parents):
        if candidate.name and os.path.islink(candidate):
            what = "a symbolic link" if candidate == current else "reached through a symbolic link"
            raise FixRefusedError(f"{what}: --fix writes only regular files, never through a link")


def _in_hub_cache(path: Path, cache_root: Path) -> bool:
    """Whether ``path`` is under ``cache_root``, or laid out as a hub cache's snapshot
    (``models--ORG--NAME/snapshots/...``, a cache at another place)."""
    real = Path(os.path.realpath(path))
    if real.is_relative_to(os.path.realpath(cache_root)):
        return True
    parts = real.parts
    return any(
        part.startswith(("models--", "datasets--", "spaces--")) and following == "snapshots"
        for part, following in itertools.pairwise(parts)
    )


def read_held(path: Path) -> bytes:
    """The bytes of ``path`` as ``--fix`` holds them: at most one byte over
    :data:`~drafting_config.files.json_files.MAX_CONFIG_BYTES`, never blocking.

    Raises:
        FixRefusedError: the file cannot be read.
    """
    try:
        descriptor = os.open(path, READ_FLAGS)
        with os.fdopen(descriptor, "rb") as file:
            return file.read(MAX_CONFIG_BYTES + 1)
    except OSError as error:
        raise FixRefusedError(f"cannot be read: {error.strerror or error}") from None


def write_atomically(path: Path, text: str, *, expected: bytes | None = None) -> None:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file in its directory and
    :func:`os.replace`; the temporary file is removed if anything fails, and ``path`` is
    then as it was.

    The new file gets ``path``'s owner, group and permission bits, less setuid and setgid
    (a file ``--fix`` writes is never a program).  With ``expected``, ``path`` is read
    again just before the rename and must still hold those bytes.

    Raises:
        FixRefusedError: the owner or group cannot be kept, the file has more than one hard
            link, or it changed since ``expected`` was read.
        OSError: the directory cannot be written, the disk is full, ...
        UnicodeEncodeError: ``text`` holds a lone surrogate, which UTF-8 cannot.
    """
    import tempfile  # noqa: PLC0415 (only --fix writes: a check never pays for the import)

    data = text.encode("utf-8")
    info = os.stat(path)
    if info.st_nlink > 1:
        raise FixRefusedError(
            f"the file has {info.st_nlink} hard links, which a rewrite would split"
        )
    mode = stat.S_IMODE(info.st_mode) & ~(stat.S_ISUID | stat.S_ISGID)
    descriptor, temporary = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(descriptor, "wb") as file:
            created = os.fstat(file.fileno())
            if (created.st_uid, created.st_gid) != (info.st_uid, info.st_gid):
                try:
                    os.fchown(file.fileno(), info.st_uid, info.st_gid)
                except OSError as error:
                    raise FixRefusedError(
                        "cannot give the rewritten file the owner and group of the original: "
                        f"{error.strerror or error}"
                    ) from None
            os.fchmod(file.fileno(), mode)
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        if expected is not None and read_held(path) != expected:
            raise FixRefusedError("changed since it was checked")
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
