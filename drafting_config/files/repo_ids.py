"""Hugging Face repo ids: telling them from local paths, checking them, and finding the
``config.json`` of one in the local Hugging Face cache.

Users name models the way the hub does, ``ORG/NAME`` (``z-lab/Qwen3-8B-DFlash-b16``),
and a speculators draft names its target the same way (``Qwen/Qwen3-8B``).  This
module turns such a name and a revision into the snapshot directory of the local
cache that holds the model's ``config.json`` (and, when they were fetched, its
tokenizer files), through ``huggingface_hub``'s own cache API:

- :func:`looks_like_repo_id` decides whether a command-line argument is meant as a
  repo id; a local path that exists always wins.
- :func:`validate_repo_id` and :func:`validate_revision` refuse malformed values
  (:class:`RepoIdError`, a usage error) without needing ``huggingface_hub``.
- :func:`locate` applies the precedence in one call: a local path as given, else the
  snapshot of the repo id, offline; with ``download=True`` it first fetches
  ``config.json`` and the tokenizer files, never weights and never code.

``huggingface_hub`` is the optional extra ``hub``: it is imported
only inside :func:`locate`, so importing this module does not import it, and a
missing extra is a one-line :class:`MissingExtraError`.
"""

from __future__ import annotations

import errno
import inspect
import os
import re
import stat
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Final, TypeGuard, cast

from drafting_config.files.json_files import (
    CONFIG_NAME,
    MAX_CONFIG_BYTES,
    READ_FLAGS,
    ConfigFileError,
)
from drafting_config.files.safetensors_headers import (
    INDEX_FILE,
    CheckpointHeaders,
    WeightsFileError,
    checkpoint_from_headers,
    header_from_json,
    weight_map_of,
)
from drafting_config.files.tokenizer_files import MAX_TOKENIZER_FILE_BYTES, TOKENIZER_FILE_NAMES
from drafting_config.values import codes
from drafting_config.values.errors import (
    ParallelDraftingConfigError,
    describe_value,
    exception_text,
)
from drafting_config.values.fields import is_kind
from drafting_config.values.findings import Note
from drafting_config.values.integers import exact_bool
from drafting_config.values.paths import display_path

__all__ = [
    "DEFAULT_REVISION",
    "HubDownloadError",
    "MissingExtraError",
    "RepoIdError",
    "RepoNotCachedError",
    "locate",
    "looks_like_repo_id",
]

DEFAULT_REVISION: Final = "main"
"""The revision looked up when none is given: the hub's default branch."""

EXTRA_NAME: Final = "hub"
"""The optional extra that installs ``huggingface_hub``."""

HUB_REQUIREMENT: Final = "huggingface_hub>=0.30"
"""What the ``hub`` extra installs (``pyproject.toml``; a test holds the two equal).  The
hint names it rather than ``drafting-config[hub]``: installing it works however the
package was installed (from a checkout, a built wheel or an index)."""

_NAME_PART_MAX: Final = 96
_REVISION_MAX: Final = 255
_NAME_PART: Final = re.compile(r"[A-Za-z0-9._-]+")
_COMMIT_HASH: Final = re.compile(r"[0-9a-f]{40}")
_SHORT_HASH: Final = re.compile(r"[0-9a-f]{7,39}")
_REVISION_FORBIDDEN: Final = frozenset(" ~^:?*[\\")
_FETCHABLE_SUFFIXES: Final = (".json", ".txt", ".model")
_MAX_LISTED_REFS: Final = 8
_SHOWN_MAX: Final = 260
_REF_SHOWN: Final = 60
_MAX_REF_BYTES: Final = 1024
"""A ref holds a 40-character commit hash: a longer one is corrupt, and not read."""


class RepoIdError(ParallelDraftingConfigError):
    """A repo id or revision is malformed: a usage error (the CLI exits with 2).

    Attributes:
        problem: what is wrong with it, without the value (the CLI's usage message).
    """

    unavailable = True  # the check could not be made: exit 2, not a broken draft

    problem: str

    def __init__(self, parameter: str, value: object, problem: str) -> None:
        short = type(value) is str and len(value) <= _SHOWN_MAX  # type(): not a Mock(spec=str)
        shown = repr(value) if short else describe_value(value)
        label = parameter.replace("_", " ")
        super().__init__(f"{label} {shown} is malformed: {problem}", code=codes.REPO_ID_MALFORMED)
        self.problem = problem


class RepoNotCachedError(ParallelDraftingConfigError):
    """The repo, the revision or its ``config.json`` is not in the local cache.

    The message says what is missing; the ``fix``, how to get it (``--download``, or
    ``hf download ORG/NAME config.json``).
    """

    unavailable = True  # the check could not be made: exit 2, not a broken draft

    def __init__(
        self, repo_id: str, revision: str, cache_dir: str, problem: str, *, fix: str | None = None
    ) -> None:
        del revision, cache_dir  # said in ``problem``
        super().__init__(f"{repo_id}: {problem}", code=codes.REPO_NOT_CACHED, fix=fix)


class MissingExtraError(ParallelDraftingConfigError):
    """``huggingface_hub`` is needed to resolve a repo id but cannot be imported.

    Attributes:
        failure: why the import failed when huggingface_hub is installed but raised
            (``"ValueError: ..."``, from a bad ``HF_*`` environment variable), else ``None``.
        problem: the message without the repo id.
    """

    unavailable = True  # the check could not be made: exit 2, not a broken draft

    failure: str | None
    problem: str

    def __init__(self, repo_id: str, failure: str | None = None) -> None:
        if failure is None:
            problem = (
                "looking up a Hugging Face repo id needs huggingface_hub, which is not "
                "installed (or is too old)"
            )
            fix = f"install the {EXTRA_NAME} extra: pip install '{HUB_REQUIREMENT}'"
        else:
            problem = (
                "looking up a Hugging Face repo id needs huggingface_hub, which failed to "
                f"import ({failure})"
            )
            fix = "check the HF_* environment variables"
        super().__init__(f"{repo_id}: {problem}", code=codes.HUB_EXTRA_MISSING, fix=fix)
        self.failure = failure
        self.problem = problem


class HubDownloadError(ParallelDraftingConfigError):
    """A download asked for with ``download=True`` failed; the message says why.

    Attributes:
        problem: why, without the repo id, the revision and the file.
    """

    unavailable = True  # the check could not be made: exit 2, not a broken draft

    problem: str

    def __init__(
        self, repo_id: str, revision: str, filename: str, problem: str, *, fix: str | None = None
    ) -> None:
        super().__init__(
            f"{repo_id}: cannot download {filename} (revision {revision}): {problem}",
            code=codes.DOWNLOAD_FAILED,
            fix=fix,
        )
        self.problem = problem


def looks_like_repo_id(text: object) -> TypeGuard[str]:
    """Whether a command-line argument is meant as a hub repo id rather than a local path.

    True for text shaped like ``ORG/NAME`` (exactly one ``/``, both sides non-empty)
    that does not exist as a local path: a path that exists always wins, so a
    directory ``z-lab/model`` next to you is read from disk.  Text that only a path
    can be (absolute, ``./x``, ``~/x``, ``..``, a backslash, a drive letter, or a name
    ending in ``.json``) is never a repo id, so a missing ``models/config.json`` is
    reported as a missing file.  A bare ``NAME`` is not taken as a repo id either:
    it would shadow every mistyped file name.

    The shape is checked loosely on purpose: ``org/bad name`` looks like a repo id,
    and :func:`validate_repo_id` then reports it as malformed (a usage error).
    """
    if not is_kind(text, str):
        return False
    text = cast("str", text)
    if text.count("/") != 1 or "\\" in text:
        return False
    org, name = text.split("/")
    if not org or not name or ":" in org:
        return False
    if org.startswith((".", "~")) or name.startswith(".") or name.lower().endswith(".json"):
        return False
    return not os.path.lexists(text)


def validate_repo_id(text: object) -> str:
    """Return ``text`` if it is a well-formed ``ORG/NAME`` repo id, else raise.

    Each of ``ORG`` and ``NAME`` has 1 to 96 letters, digits, ``-``, ``_`` or ``.``,
    does not start or end with ``-`` or ``.``, and holds no ``--`` or ``..``; ``NAME``
    does not end with ``.git``.  No ``huggingface_hub`` is needed.

    Raises:
        RepoIdError: with ``parameter="repo_id"``, naming the value and what is wrong.
    """
    if not is_kind(text, str):
        raise RepoIdError("repo_id", text, "expected a string of the form ORG/NAME.")
    text = cast("str", text)
    problem = _repo_id_problem(text)
    if problem is not None:
        raise RepoIdError("repo_id", text, f"{problem}; expected ORG/NAME, as in Qwen/Qwen3-8B.")
    return text


_PART_RULES: Final[tuple[tuple[Callable[[str], bool], str], ...]] = (
    (lambda part: not part, "{label} is empty"),
    (
        lambda part: len(part) > _NAME_PART_MAX,
        f"{{label}} is longer than {_NAME_PART_MAX} characters",
    ),
    (
        lambda part: not _NAME_PART.fullmatch(part),
        "{label} may only hold letters, digits, '-', '_' and '.'",
    ),
    (lambda part: part[0] in "-." or part[-1] in "-.", "{label} starts or ends with '-' or '.'"),
    (lambda part: "--" in part or ".." in part, "{label} holds '--' or '..'"),
)
"""The rules each of ORG and NAME must pass, in the order they are checked."""


def _repo_id_problem(text: str) -> str | None:
    if text.count("/") != 1:
        return "it has no '/'" if "/" not in text else "it has more than one '/'"
    for label, part in zip(("ORG", "NAME"), text.split("/"), strict=True):
        for breaks, problem in _PART_RULES:
            if breaks(part):
                return problem.format(label=label)
    return "NAME ends with '.git'" if text.endswith(".git") else None


def validate_revision(text: object) -> str:
    """Return ``text`` if it is a well-formed branch, tag or commit hash, else raise.

    The rules are git's for ref names, which also keep the revision a safe path below
    the cache's ``refs`` and ``snapshots`` folders: no spaces or control characters,
    none of ``~^:?*[\\``, no ``..``, ``//`` or ``@{``, no leading ``-`` or ``/``, no
    trailing ``/`` or ``.``, no part starting with ``.`` or ending with ``.lock``, at
    most 255 characters.  ``refs/pr/1`` (a pull request on the hub) is fine.

    Raises:
        RepoIdError: with ``parameter="revision"``, naming the value and what is wrong.
    """
    if not is_kind(text, str):
        raise RepoIdError("revision", text, "expected a string: a branch, a tag or a commit hash.")
    text = cast("str", text)
    problem = _revision_problem(text)
    if problem is not None:
        raise RepoIdError(
            "revision", text, f"{problem}; expected a branch, a tag or a commit hash."
        )
    return text


_REVISION_RULES: Final[tuple[tuple[Callable[[str], bool], str], ...]] = (
    (lambda rev: not rev, "it is empty"),
    (lambda rev: len(rev) > _REVISION_MAX, f"it is longer than {_REVISION_MAX} characters"),
    (
        lambda rev: any(c in _REVISION_FORBIDDEN or not c.isprintable() for c in rev),
        "it holds a space, a control character or one of ~^:?*[\\",
    ),
    (lambda rev: ".." in rev or "//" in rev or "@{" in rev, "it holds '..', '//' or '@{'"),
    (lambda rev: rev == "@", "it is '@'"),
    (lambda rev: rev.startswith(("-", "/")), "it starts with '-' or '/'"),
    (lambda rev: rev.endswith(("/", ".")), "it ends with '/' or '.'"),
    (
        lambda rev: any(p.startswith(".") or p.endswith(".lock") for p in rev.split("/")),
        "a part of it starts with '.' or ends with '.lock'",
    ),
)
"""The rules a revision must pass (git's for ref names), in the order they are checked."""


def _revision_problem(text: str) -> str | None:
    return next((problem for breaks, problem in _REVISION_RULES if breaks(text)), None)


def locate(
    name: str | os.PathLike[str],
    *,
    revision: str = DEFAULT_REVISION,
    download: bool = False,
    files: Sequence[str] = TOKENIZER_FILE_NAMES,
    tokenizer: bool = False,
    notes: list[str] | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    endpoint: str | None = None,
) -> Path:
    """Where to read a model from: ``name`` itself when it is a local path, else the
    snapshot directory of the local Hugging Face cache that holds the repo id it names.

    The precedence, in one place: a path that exists wins; an ``os.PathLike`` is always a
    path, and so is text that only a path can be (see :func:`looks_like_repo_id`), even
    when missing, so that reading it reports the missing file; only the rest is looked up
    in the cache, offline: ``huggingface_hub``'s ``try_to_load_from_cache`` reads it and no
    socket is opened.  The snapshot is the one holding the repo's ``config.json`` at
    ``revision`` (a branch, a tag or a full commit hash), or, for a ``tokenizer`` repo,
    any of its tokenizer files; tokenizer files, when cached, are beside it.

    Args:
        name: a local path, or ``ORG/NAME``.
        revision: a branch, a tag or a commit hash of a repo id; ``main`` by default.
            Checked even for a local path, so that a bad option is always reported.
        download: fetch ``files`` from the hub into the cache first (never weights, never
            code), honouring ``HF_TOKEN`` and ``HF_ENDPOINT``.  ``config.json`` is fetched
            first and decides the commit; the others are fetched from that commit when the
            repo has them.  A file the hub reports larger than the limit for a local file
            of its kind is refused before it is downloaded.  Under ``HF_HUB_OFFLINE`` the
            cache is read as without ``download``, and a note says so.
        files: what ``download=True`` fetches beside ``config.json``: only ``.json``,
            ``.txt`` and ``.model`` (tokenizer) files.
        tokenizer: the repo is a tokenizer's: it needs no ``config.json``.
        notes: receives one line per optional file a download could not fetch (the model
            is usable) and one when ``HF_HUB_OFFLINE`` kept ``download`` from fetching.
        cache_dir: the cache to use; by default ``huggingface_hub``'s, which it takes
            from ``HF_HUB_CACHE``, else ``HF_HOME``/hub, when it is first imported.
        endpoint: the hub to download from; by default ``huggingface_hub``'s, which
            it takes from ``HF_ENDPOINT`` when it is first imported.

    Raises:
        ConfigFileError: the text is shaped like ``ORG/NAME`` but is no well-formed repo
            id, and no such path exists: the missing path, with the repo-id form as a hint.
        RepoIdError: ``revision`` is malformed (checked before anything is imported).
        MissingExtraError: ``huggingface_hub`` is not installed (or fails to import).
        RepoNotCachedError: the repo, the revision or its ``config.json`` is not in the
            cache, or its ref is corrupt; the message says how to get it.
        HubDownloadError: with ``download=True``, the download failed (no such repo,
            revision or config.json, no access, no connection, a file over the limit).
        TypeError, ValueError: ``files`` is a string or names a file that is not a
            tokenizer or config file.
    """
    found = local_or_cached(
        name,
        revision=revision,
        download=download,
        files=files,
        tokenizer=tokenizer,
        notes=notes,
        cache_dir=cache_dir,
        endpoint=endpoint,
    )
    return found if isinstance(found, Path) else Path(found)


def local_or_cached(
    name: str | os.PathLike[str],
    *,
    revision: str = DEFAULT_REVISION,
    download: bool = False,
    files: Sequence[str] = TOKENIZER_FILE_NAMES,
    tokenizer: bool = False,
    notes: list[str] | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    endpoint: str | None = None,
) -> str | Path:
    """:func:`locate`, with a local path given as text returned as that text rather than a
    :class:`~pathlib.Path` (building one costs more than reading a small config): a sweep
    builds a ``Path`` only for the drafts whose tokenizer or weights it reads.  Arguments
    and errors as :func:`locate`'s."""
    exact_bool("`download`", download)
    if type(revision) is not str or revision != DEFAULT_REVISION:
        revision = validate_revision(revision)  # even for local paths, so a bad option shows
    if not looks_like_repo_id(name):
        return name if type(name) is str else Path(name)
    problem = _repo_id_problem(name)
    if problem is not None:  # not a repo id, and no such path: say the path is missing
        raise ConfigFileError(
            name,
            "no such file or directory (not found locally); it is not a Hugging Face repo id "
            f"either ({problem}; a repo id is ORG/NAME, as in Qwen/Qwen3-8B).",
            unavailable=True,
            fix="check the path, or write the repo id as ORG/NAME",
        )
    return _snapshot(
        name,
        revision=revision,
        download=download,
        files=files,
        tokenizer=tokenizer,
        notes=notes,
        cache_dir=cache_dir,
        endpoint=endpoint,
    )


def _snapshot(
    repo_id: str,
    *,
    revision: str,
    download: bool,
    files: Sequence[str],
    tokenizer: bool,
    notes: list[str] | None,
    cache_dir: str | os.PathLike[str] | None,
    endpoint: str | None,
) -> Path:
    """:func:`locate` of a well-formed repo id."""
    extra_files = _checked_files(files)
    with _importing_hub(repo_id):
        from huggingface_hub import constants  # noqa: PLC0415 (the optional extra)
    cache = os.fspath(cache_dir) if cache_dir is not None else constants.HF_HUB_CACHE
    anchors = (CONFIG_NAME,) if not tokenizer else (CONFIG_NAME, *TOKENIZER_FILE_NAMES)
    if download and constants.HF_HUB_OFFLINE:  # the cache, as without download
        try:
            snapshot = _cached_snapshot(repo_id, revision, cache, anchors)
        except RepoNotCachedError:
            problem = "HF_HUB_OFFLINE is set, and the cache does not hold it."
            raise HubDownloadError(
                repo_id, revision, anchors[0], problem, fix="unset HF_HUB_OFFLINE to download"
            ) from None
        if notes is not None:
            notes.append(
                Note(
                    f"{repo_id}: HF_HUB_OFFLINE is set: read from the cache, nothing downloaded",
                    code=codes.DOWNLOAD_SKIPPED,
                )
            )
        return snapshot
    if download:
        hub = endpoint or constants.ENDPOINT
        return _download(repo_id, revision, extra_files, cache, hub, anchors=anchors, notes=notes)
    return _cached_snapshot(repo_id, revision, cache, anchors)


def hub_offline() -> bool:
    """Whether ``HF_HUB_OFFLINE`` forbids the hub (``False`` without huggingface_hub)."""
    try:
        from huggingface_hub import constants  # noqa: PLC0415 (the optional extra)
    except Exception:  # not installed, or failing to import: nothing to forbid
        return False
    return bool(constants.HF_HUB_OFFLINE)


@contextmanager
def _importing_hub(repo_id: str) -> Iterator[None]:
    """Turn a failed import of ``huggingface_hub`` into :class:`MissingExtraError`.

    Importing it can fail with more than ``ImportError``: it reads its ``HF_*`` environment
    variables on import, and ``HF_HUB_ETAG_TIMEOUT=30s`` makes it raise ``ValueError``.
    """
    try:
        yield
    except ImportError:
        raise MissingExtraError(repo_id) from None
    except Exception as error:  # its own code failed: say how, never a traceback
        raise MissingExtraError(repo_id, exception_text(error, kind=True)) from None


def _checked_files(files: Sequence[object]) -> tuple[str, ...]:
    """The files to fetch besides config.json; refuses anything but tokenizer files."""
    if isinstance(files, str):
        raise TypeError(f"files must be a sequence of file names, not the string {files!r}.")
    extra: list[str] = []
    for name in files:
        if (
            not isinstance(name, str)
            or not name
            or "/" in name
            or "\\" in name
            or name.startswith(".")
            or not name.endswith(_FETCHABLE_SUFFIXES)
        ):
            raise ValueError(
                f"files: {describe_value(name)} is not allowed; expected plain names of "
                f"config or tokenizer files ending in {', '.join(_FETCHABLE_SUFFIXES)} "
                "(weights and code are never fetched)."
            )
        if name != CONFIG_NAME and name not in extra:
            extra.append(name)
    return tuple(extra)


def _cached_snapshot(repo_id: str, revision: str, cache: str, anchors: tuple[str, ...]) -> Path:
    """The snapshot holding the first of ``anchors`` cached at ``revision``."""
    # A repo without its folder in the cache is not cached, and saying so needs none of the
    # hub's download machinery, whose import (~0.2 s) a sweep would pay for each run.
    # os.path.isdir, as the hub's own look-up: a path it cannot stat is simply absent.
    hub_says_absent = False
    if os.path.isdir(_repo_folder(repo_id, cache)):
        commit, corrupt = _read_ref(_repo_folder(repo_id, cache) / "refs" / revision, revision)
        if corrupt is not None:  # said before the hub reads the ref itself (it may hang)
            fetch = _how_to_fetch(repo_id, revision)
            raise RepoNotCachedError(repo_id, revision, cache, corrupt, fix=fetch)
        with _importing_hub(repo_id):
            from huggingface_hub import try_to_load_from_cache  # noqa: PLC0415 (the extra)
        for anchor in anchors:
            try:
                found = try_to_load_from_cache(
                    repo_id, anchor, cache_dir=cache, revision=commit or revision
                )
            except Exception as error:  # a folder it may not read, ...
                reason = (
                    error.strerror
                    if isinstance(error, OSError) and error.strerror
                    else exception_text(error, kind=True)
                )
                raise RepoNotCachedError(
                    repo_id,
                    revision,
                    cache,
                    f"the local Hugging Face cache ({display_path(cache)}) could not be read: "
                    f"{reason}",
                ) from None
            if isinstance(found, str):
                return Path(found).parent
            hub_says_absent = hub_says_absent or (anchor == CONFIG_NAME and found is not None)
    raise RepoNotCachedError(
        repo_id,
        revision,
        cache,
        _why_not_cached(repo_id, revision, cache, hub_says_absent=hub_says_absent),
        fix=_how_to_fetch(repo_id, revision),
    )


def _repo_folder(repo_id: str, cache: str) -> Path:
    """The repo's folder in the cache, by the documented layout (``models--ORG--NAME``)."""
    return Path(cache, "models--" + repo_id.replace("/", "--"))


def _why_not_cached(repo_id: str, revision: str, cache: str, *, hub_says_absent: bool) -> str:
    """Which part is missing, read from the documented cache layout
    (``models--ORG--NAME/{refs,snapshots}``) for the message only; a path that cannot
    be stat'ed (too long, not searchable) counts as absent, as for huggingface_hub."""
    at = "" if revision == DEFAULT_REVISION else f" at revision {revision}"
    repo_dir = _repo_folder(repo_id, cache)
    shown_cache = display_path(cache)
    if hub_says_absent:
        return f"the cache records that the repo has no {CONFIG_NAME}{at} (is it a model repo?)"
    if not os.path.isdir(repo_dir):
        return f"not found locally nor in the local Hugging Face cache ({shown_cache})"
    ref_commit, corrupt = _read_ref(repo_dir / "refs" / revision, revision)
    if corrupt is not None:
        return corrupt
    commit = revision if os.path.isdir(repo_dir / "snapshots" / revision) else None
    commit = commit or ref_commit
    if commit is None:
        known = _cached_refs(repo_dir / "refs")
        listed = f" (cached: {', '.join(map(display_path, known))})" if known else ""
        hint = (
            "; give a commit by its full 40-character hash"
            if _SHORT_HASH.fullmatch(revision)
            else ""
        )
        return (
            f"revision {revision} is not in the local Hugging Face cache ({shown_cache})"
            f"{listed}{hint}"
        )
    snapshot = repo_dir / "snapshots" / commit
    if not os.path.isdir(snapshot):
        return (
            f"revision {revision} points at commit {commit}, which is not in the cache "
            f"({shown_cache})"
        )
    return _snapshot_problem(snapshot, at)


def _snapshot_problem(snapshot: Path, at: str) -> str:
    """Why a snapshot that is there gives no config.json: none, a broken link, a loop."""
    shown = display_path(os.fspath(snapshot))
    config = snapshot / CONFIG_NAME
    if not os.path.lexists(config):
        return f"the cached snapshot{at} ({shown}) has no {CONFIG_NAME}"
    try:
        os.stat(config)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return f"the cached {CONFIG_NAME}{at} is a symbolic link loop in {shown}"
    return f"the cached {CONFIG_NAME}{at} is a broken link (its blob is gone) in {shown}"


def _read_ref(ref: Path, revision: str) -> tuple[str | None, str | None]:
    """The commit ``refs/<revision>`` names, and what is wrong with the ref if it is corrupt.

    Opened like every file read here: never blocking (a FIFO), regular files only (a link
    to ``/dev/zero``), a bounded prefix read (a ref is a 40-character hash).  No ref (absent,
    a directory, unreadable) is ``(None, None)``: the revision may be a commit.
    """
    try:
        fd = os.open(ref, READ_FLAGS)
    except (OSError, ValueError):
        return None, None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            return None, None
        if not stat.S_ISREG(info.st_mode):
            held = "is not a regular file"
        elif info.st_size > _MAX_REF_BYTES:
            held = f"holds {info.st_size:,} bytes"
        else:
            data = os.read(fd, _MAX_REF_BYTES + 1)
            text = data.decode("utf-8", "backslashreplace").strip()
            if _COMMIT_HASH.fullmatch(text):
                return text, None
            shown = repr(text[:_REF_SHOWN]) + (" (cut short)" if len(text) > _REF_SHOWN else "")
            held = f"holds {shown}"
    except OSError:
        return None, None
    finally:
        os.close(fd)
    return None, (
        f"the cached ref of revision {revision} is corrupt: refs/{revision} {held}, not "
        f"a 40-character commit hash (delete {display_path(os.fspath(ref))})"
    )


def _cached_refs(refs_dir: Path) -> list[str]:
    try:
        names = sorted(
            p.relative_to(refs_dir).as_posix() for p in refs_dir.rglob("*") if p.is_file()
        )
    except OSError:
        return []
    if len(names) > _MAX_LISTED_REFS:
        return [*names[:_MAX_LISTED_REFS], "..."]
    return names


def _how_to_fetch(repo_id: str, revision: str) -> str:
    option = "" if revision == DEFAULT_REVISION else f" --revision {revision}"
    return (
        "pass --download (download=True in Python) to fetch its config and tokenizer files "
        f"(never weights), or run `hf download {repo_id} {CONFIG_NAME}{option}`"
    )


def _download(
    repo_id: str,
    revision: str,
    extra_files: tuple[str, ...],
    cache: str,
    endpoint: str,
    *,
    anchors: tuple[str, ...],
    notes: list[str] | None,
) -> Path:
    """Fetch config.json at ``revision`` (for a tokenizer repo, the first of ``anchors`` it
    has), then the other files at the very same commit.

    A file already cached at that commit (or known to be absent from it) is not asked
    for again.  An optional file that cannot be fetched is a note: the model is usable.
    """
    first = None
    for anchor in anchors:
        first = _fetch(repo_id, revision, anchor, cache, endpoint, required=anchor == anchors[-1])
        if first is not None:
            break
    assert first is not None  # the last anchor is required: its absence raises
    snapshot = Path(first).parent
    commit = snapshot.name
    for name in extra_files:
        if _in_cache_at_commit(repo_id, commit, name, cache):
            continue
        try:
            _fetch(repo_id, commit, name, cache, endpoint, required=False)
        except ParallelDraftingConfigError as error:
            if notes is not None:
                notes.append(
                    Note(
                        f"{name} not downloaded: {error}",
                        code=codes.DOWNLOAD_SKIPPED,
                        fix=error.fix,
                    )
                )
    return snapshot


def _in_cache_at_commit(repo_id: str, commit: str, filename: str, cache: str) -> bool:
    """Whether the cache has ``filename`` at ``commit``, or knows the commit lacks it.

    A commit never changes, so either answer saves asking the hub; a cache entry that
    cannot be read counts as not cached.
    """
    with _importing_hub(repo_id):
        from huggingface_hub import try_to_load_from_cache  # noqa: PLC0415 (the optional extra)
    try:
        found = try_to_load_from_cache(repo_id, filename, cache_dir=cache, revision=commit)
    except Exception:  # an unreadable entry: fetched again
        return False
    return found is not None


def _fetch(
    repo_id: str,
    revision: str,
    filename: str,
    cache: str,
    endpoint: str,
    *,
    required: bool = True,
) -> str | None:
    """One ``hf_hub_download``; its failures become a one-line :class:`HubDownloadError`.

    Returns None when an optional file is not in the repo.
    """
    with _importing_hub(repo_id):
        from huggingface_hub import errors, hf_hub_download  # noqa: PLC0415 (the optional extra)
    try:
        if "dry_run" in inspect.signature(hf_hub_download).parameters:  # huggingface_hub 1+
            # Asked first: what is cached needs no download, and a file too large for its
            # kind is refused before a byte of it is downloaded.
            info = hf_hub_download(
                repo_id,
                filename,
                revision=revision,
                cache_dir=cache,
                endpoint=endpoint,
                dry_run=True,
            )
            if not info.will_download:
                return info.local_path
            limit = MAX_CONFIG_BYTES if filename == CONFIG_NAME else MAX_TOKENIZER_FILE_BYTES
            if info.file_size is not None and info.file_size > limit:
                raise HubDownloadError(
                    repo_id,
                    revision,
                    filename,
                    f"the hub reports {info.file_size:,} bytes, over the {limit:,}-byte limit "
                    f"for a {filename}; is this a weights file? (not downloaded)",
                )
        return hf_hub_download(
            repo_id, filename, revision=revision, cache_dir=cache, endpoint=endpoint
        )
    except HubDownloadError:
        raise
    except Exception as error:  # every failure below is translated, none escapes raw
        absent = isinstance(error, errors.EntryNotFoundError) and not isinstance(
            error, errors.LocalEntryNotFoundError
        )
        if absent and not required:
            return None
        fix: str | None = None
        if isinstance(error, errors.LocalEntryNotFoundError):
            problem, fix = _unreached_problem(error, endpoint)
        elif isinstance(error, errors.HfHubHTTPError):
            problem, fix = _refusal_problem(error, filename, revision, endpoint)
        elif isinstance(error, PermissionError):
            problem = f"cannot write to the cache {display_path(cache)}: {error.strerror or error}."
            fix = "give the cache folder write permission, or set HF_HUB_CACHE to one you own"
        else:  # a transfer or disk failure inside huggingface_hub or below
            problem = exception_text(error, kind=True)
        raise HubDownloadError(repo_id, revision, filename, problem, fix=fix) from None


def _refusal_problem(
    error: Exception, filename: str, revision: str, endpoint: str
) -> tuple[str, str | None]:
    """What the hub's refusal means (no repo, no access, no revision, no file, ...), and
    what to do about it, when something is known."""
    from huggingface_hub import errors  # noqa: PLC0415 (the optional extra)

    if isinstance(error, errors.GatedRepoError):
        return (
            f"the repo is gated on {endpoint}.",
            "accept its terms on its page there and set HF_TOKEN to a token of that account",
        )
    if isinstance(error, errors.RepositoryNotFoundError):
        return (
            f"{endpoint} has no such repo, or it is private and HF_TOKEN is unset or has no "
            "access to it.",
            "check the repo id, or set HF_TOKEN to a token with access to it",
        )
    if isinstance(error, errors.RevisionNotFoundError):
        return (
            f"the repo has no revision {revision} on {endpoint}.",
            "pass a branch, tag or commit the repo has",
        )
    if isinstance(error, errors.EntryNotFoundError):
        return f"the repo has no {filename} at this revision; is it a model repo?", None
    status = _status(error)
    if status in (401, 403):
        return f"{endpoint} answered HTTP {status}.", "check that HF_TOKEN is valid"
    return f"{endpoint} answered HTTP {status}.", None


def _unreached_problem(error: Exception, endpoint: str) -> tuple[str, str | None]:
    """Why the hub gave no usable answer (huggingface_hub chains the failure it hit), and
    what to check."""
    from huggingface_hub import errors  # noqa: PLC0415 (the optional extra)

    if _cause(error, errors.OfflineModeIsEnabled) is not None:
        return "HF_HUB_OFFLINE is set.", "unset HF_HUB_OFFLINE to download"
    http = _cause(error, errors.HfHubHTTPError)
    if http is not None:
        return f"{endpoint} answered HTTP {_status(http)}.", None
    if _cause(error, errors.FileMetadataError) is not None:
        return (
            f"the server at {endpoint} does not answer like a Hugging Face hub.",
            "check HF_ENDPOINT",
        )
    return (
        f"could not reach a Hugging Face hub at {endpoint}.",
        "check the network connection, HF_ENDPOINT and the proxy settings",
    )


def _status(error: BaseException) -> object:
    """The HTTP status of a huggingface_hub HTTP error ("no status" if it has none)."""
    return getattr(getattr(error, "response", None), "status_code", None) or "no status"


def _cause(error: BaseException, kind: type[BaseException]) -> BaseException | None:
    """The first exception of type ``kind`` among the causes of ``error`` (not ``error``
    itself: in huggingface_hub 0.x the wrapping error is an HTTP error class too)."""
    seen: set[int] = {id(error)}
    current: BaseException | None = error.__cause__ or error.__context__
    while current is not None and id(current) not in seen:
        if isinstance(current, kind):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def hub_checkpoint_headers(
    repo_id: str, revision: str, *, endpoint: str | None = None
) -> CheckpointHeaders | None:
    """The tensors of a hub repo's safetensors checkpoint, from its headers alone.

    huggingface_hub's ``get_safetensors_metadata`` reads ``model.safetensors``, or the
    index and each shard it names, with HTTP range requests for the headers: no weight
    is downloaded.  The index, when there is one, lands in the local cache like
    ``config.json``.

    Returns:
        ``None`` when the repo has neither ``model.safetensors`` nor
        ``model.safetensors.index.json`` at ``revision``.

    Raises:
        MissingExtraError: huggingface_hub is not installed.
        WeightsFileError: a header cannot be parsed, or a shard the index names is
            missing; the path is ``ORG/NAME/<file>``.
        HubDownloadError: the hub could not be reached or refused the request.
    """
    try:
        from huggingface_hub import HfApi, constants, errors  # noqa: PLC0415 (the optional extra)
    except ImportError:
        raise MissingExtraError(repo_id) from None
    hub = endpoint or constants.ENDPOINT
    what = "the safetensors headers"
    try:
        metadata = HfApi(endpoint=hub).get_safetensors_metadata(repo_id, revision=revision)
    except errors.NotASafetensorsRepoError:
        return None
    except errors.SafetensorsParsingError as error:
        raise WeightsFileError(f"{repo_id}/{INDEX_FILE}", exception_text(error)) from None
    except errors.EntryNotFoundError as error:
        if isinstance(error, errors.LocalEntryNotFoundError):
            unreached, check = _unreached_problem(error, hub)
            raise HubDownloadError(repo_id, revision, what, unreached, fix=check) from None
        raise WeightsFileError(
            f"{repo_id}/{INDEX_FILE}",
            f"names a shard the repo does not have at revision {revision}: {exception_text(error)}",
        ) from None
    except Exception as error:  # every failure below is translated, none escapes raw
        fix: str | None = None
        if isinstance(error, errors.HfHubHTTPError):
            problem, fix = _refusal_problem(error, what, revision, hub)
        else:
            problem = exception_text(error, kind=True)
        raise HubDownloadError(repo_id, revision, what, problem, fix=fix) from None
    headers = {}
    for name, file in metadata.files_metadata.items():
        entries = {
            tensor: {"dtype": t.dtype, "shape": t.shape, "data_offsets": list(t.data_offsets)}
            for tensor, t in file.tensors.items()
        }
        headers[name] = header_from_json(
            entries, name=name, path=f"{repo_id}/{name}", header_bytes=0, file_size=None
        )
    weight_map = (
        weight_map_of({"weight_map": metadata.weight_map}, f"{repo_id}/{INDEX_FILE}")
        if metadata.sharded
        else None
    )
    return checkpoint_from_headers(headers, weight_map)
