"""Writing a fixed ``config.json`` back: the edits of ``check --fix`` applied to the file's
text, in the file's own layout, and written only where writing is safe.

:func:`fixed_text` applies :class:`~drafting_config.values.edits.ConfigEdit` values to a
file's text and renders the result as the file was written: its indentation (spaces or a
tab, detected), its separators, its line endings, its trailing newline, a UTF-8 byte-order
mark, and ``\\u`` escapes only if the file had no non-ASCII character.  Key order is kept.
Untouched content is exact as far as the JSON round trip allows (a float written ``1e5``
comes back ``100000.0``); with no edit the text is returned as it is.

:func:`writable_config` says which file a path argument names and refuses what ``--fix``
must never write: a repo id, a path that does not exist, a symbolic link anywhere on the
path as given, something that is not a regular file, anything inside a Hugging Face cache
(its snapshot files are links to blobs shared between revisions).
:func:`write_atomically` writes through a temporary file in the same directory and
``os.replace``, keeping the file's permission bits.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import stat
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from drafting_config.files.json_files import CONFIG_NAME, MAX_CONFIG_BYTES
from drafting_config.files.repo_ids import looks_like_repo_id
from drafting_config.values.edits import ConfigEdit, EditError, apply_edits

__all__ = ["fixed_text", "writable_config", "write_atomically"]

_UTF8_BOM: Final = "\ufeff"

_SEPARATORS: Final = ((",", ": "), (",", ":"), (", ", ": "), (", ", ":"))
"""The item and key separators tried, ``json.dumps``'s with an indent first."""


class FixRefusedError(Exception):
    """``--fix`` will not write this path; the message says why, in one clause."""


@dataclass(frozen=True)
class JsonLayout:
    """How a JSON file is written, as far as :func:`json.dumps` can reproduce it."""

    indent: int | str | None = 2
    """Spaces per level (or the indent string, a tab); ``None`` for one line."""
    separators: tuple[str, str] = (",", ": ")
    ensure_ascii: bool = False
    """Write non-ASCII as ``\\u`` escapes: only when the file had no non-ASCII character."""
    newline: str = "\n"
    """The line ending (``"\\r\\n"`` for a file written on Windows)."""
    trailing_newline: bool = True
    bom: bool = False
    """The file starts with a UTF-8 byte-order mark."""

    def dump(self, document: object) -> str:
        """``document`` as text in this layout."""
        text = json.dumps(
            document,
            indent=self.indent,
            separators=self.separators,
            ensure_ascii=self.ensure_ascii,
        )
        if self.newline != "\n":
            text = text.replace("\n", self.newline)  # JSON strings hold no raw newline
        end = self.newline if self.trailing_newline else ""
        return (_UTF8_BOM if self.bom else "") + text + end


def detect_layout(text: str) -> JsonLayout:
    """The layout of ``text``, a JSON document: the first that reproduces it exactly, else
    its indent as detected with ``json.dumps``'s separators."""
    bom = text.startswith(_UTF8_BOM)
    body = text.removeprefix(_UTF8_BOM)
    newline = "\r\n" if "\r\n" in body else "\n"
    stripped = body.rstrip()
    trailing = body[len(stripped) :]
    trailing_newline = trailing.startswith((newline, "\n"))
    ensure_ascii = body.isascii()
    indent = _indent(stripped)
    base = JsonLayout(indent, (",", ": "), ensure_ascii, newline, trailing_newline, bom)
    try:
        document = json.loads(body)
    except ValueError:
        return base
    for separators in _SEPARATORS:
        candidate = JsonLayout(indent, separators, ensure_ascii, newline, trailing_newline, bom)
        if candidate.dump(document) == text:
            return candidate
    return base


def _indent(text: str) -> int | str | None:
    """The indentation of the first indented line, or ``None`` for one line."""
    for line in text.splitlines()[1:]:
        content = line.lstrip(" \t")
        if content and len(content) < len(line):
            lead = line[: len(line) - len(content)]
            return len(lead) if set(lead) == {" "} else lead
    return None if "\n" not in text else 0


def fixed_text(text: str, edits: Sequence[ConfigEdit]) -> str:
    """``text``, a ``config.json``'s, with ``edits`` applied, in the file's layout (see the
    module docstring); ``text`` itself when there is no edit.

    Raises:
        EditError: the text is not a JSON object, holds a key twice (rewriting it would drop
            one), or an edit does not fit it.
    """
    if not edits:
        return text
    try:
        document = json.loads(text.removeprefix(_UTF8_BOM), object_pairs_hook=_unique_keys)
    except ValueError as error:  # JSONDecodeError, or a repeated key
        raise EditError(f"the file cannot be rewritten: {error}") from None
    if not isinstance(document, dict):
        raise EditError("the file's JSON root is not an object")
    return detect_layout(text).dump(apply_edits(document, edits))


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        repeated = next(key for key in keys if keys.count(key) > 1)
        raise ValueError(f"the key {repeated!r} appears twice in one object")
    return dict(pairs)


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


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file in its directory and
    :func:`os.replace`, keeping ``path``'s permission bits; the temporary file is removed
    if anything fails.

    Raises:
        OSError: the directory cannot be written, the disk is full, ...
    """
    mode = stat.S_IMODE(os.stat(path).st_mode)
    descriptor, temporary = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
