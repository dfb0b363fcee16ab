"""The engines' own code, taken from their released wheels at test time.

Nothing of vLLM, SGLang or transformers is stored in this repository. A test that
proves a rule against an engine downloads the engine's wheel once into a cache,
reads the ``.py`` files it needs straight out of the zip, and takes the functions it
needs out of their source with :mod:`ast` into a fresh namespace, with stand-ins for
whatever they import. The engine's code then runs on the test's configs beside the
package's own rules.

Fetching a wheel
================

``fetch_wheel(spec) -> Wheel`` downloads ``spec`` (a :class:`WheelSpec`: each engine's
``tools/engines/ENGINE/functions.py`` names the release its tests read, and
:func:`tools.engines.transformers.transformers_spec` transformers') with ``python -m pip download
--no-deps --only-binary=:all: --python-version 3.11 --platform
manylinux_2_34_x86_64`` (and the older manylinux platforms) ``NAME==VERSION`` into the
cache, unless a wheel of that name and
version is already there, and raises :class:`WheelUnavailable` (with pip's reason)
when pip cannot fetch it. The cache is ``$DRAFTING_CONFIG_WHEEL_CACHE``, else
``~/.cache/drafting-config/wheels``: a flat folder of ``.whl`` files. Two test
processes may race: downloads go to a private folder and are renamed into place,
under a per-wheel lock file.

A wheel taken from the cache is checked first: a file that is not a whole zip archive
(a download cut short, a disk that filled up) is deleted and fetched again, and when it
cannot be fetched again :class:`WheelUnavailable` names the broken file.

pip gets a short socket timeout and one retry (:data:`PIP_PATIENCE`), so an index that
accepts connections and never answers costs seconds; and once pip has timed out in a
process, every later download in it fails at once with the same reason instead of
waiting again (the index is given one chance per test session).

The pytest fixtures in ``tests/conftest.py`` wrap it: ``vllm_wheel``,
``sglang_wheel`` and ``transformers_wheel`` (a function of the version) give a
:class:`Wheel`, or skip the test saying why no wheel could be had (fail it, with
``DRAFTING_CONFIG_REQUIRE_WHEELS=1``). A test that uses one is marked ``engine_wheels``
(``-m 'not engine_wheels'`` deselects them).

Reading and extracting code
===========================

``Wheel.source("vllm/v1/worker/gpu/spec_decode/utils.py") -> str`` reads one file.
``Wheel.extract(path, names, stand_ins=..., modules=...) -> dict[str, Any]`` takes
the named top-level functions, classes and assignments (``"Class.method"`` for a
method, which becomes a plain function: ``self``/``cls`` is the first argument) out of
that file, together with every module-level definition they use, transitively, and
executes them, in the file's order, in a fresh namespace. The names they use resolve
in this order:

* ``stand_ins``: a mapping of global names to objects (wins over the file's own
  definitions and imports);
* the file's own top-level definitions, pulled in as needed;
* the file's imports of the standard library (run for real);
* ``modules``: stand-in modules by dotted name (``{"msgspec": MSGSPEC}``), both for the
  file's top-level ``from X import Y`` and for imports that run inside a function at
  call time;
* anything else becomes a placeholder that raises :class:`MissingStandIn`, naming
  itself, when the code touches it. So a function whose ``torch`` branch is never
  taken needs no ``torch``.

Annotations are never evaluated (the code is compiled as under ``from __future__
import annotations``). :data:`MSGSPEC` is a stand-in for ``msgspec`` whose ``Struct``
builds instances from keyword or positional arguments, as ``msgspec.Struct.__init__``
does (it validates nothing either).
"""

from __future__ import annotations
import __future__

import ast
import builtins
import contextlib
import copy
import hashlib
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any, Final

__all__ = [
    "CACHE_ENV",
    "MSGSPEC",
    "PIP_PATIENCE",
    "REQUIRE_ENV",
    "MissingStandIn",
    "Wheel",
    "WheelSpec",
    "WheelUnavailable",
    "archive_problem",
    "cache_dir",
    "derived",
    "extract",
    "fetch_wheel",
    "requirement_of",
    "sha256_of",
]

CACHE_ENV: Final = "DRAFTING_CONFIG_WHEEL_CACHE"
"""The environment variable naming the wheel cache folder."""

_DEFAULT_CACHE: Final = Path("~/.cache/drafting-config/wheels")

REQUIRE_ENV: Final = "DRAFTING_CONFIG_REQUIRE_WHEELS"
"""With this environment variable set to ``1``, a test that cannot have what it fetches
from the package index fails instead of skipping (``.ci/run`` sets it)."""


# --- fetching ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class WheelSpec:
    """A released wheel: a distribution name and an exact version."""

    name: str
    version: str

    @property
    def requirement(self) -> str:
        return f"{self.name}=={self.version}"

    @property
    def file_prefix(self) -> str:
        """How the wheel's file name starts (the name normalized as wheel names are)."""
        return f"{self.name.replace('-', '_').lower()}-{self.version}-"


PIP_TARGET: Final = (
    "--only-binary=:all:",
    "--python-version",
    "3.11",
    *("--platform", "manylinux_2_34_x86_64"),
    *("--platform", "manylinux_2_28_x86_64"),
    *("--platform", "manylinux_2_17_x86_64"),
)
"""One binary wheel whatever the host: SGLang ships only CPython 3.11+ ``manylinux_2_34``
wheels, vLLM an abi3 ``manylinux_2_28`` one, transformers a pure-Python one; only their
``.py`` files matter. pip does not widen a ``--platform`` to older manylinux versions, so
each is named."""


class WheelUnavailable(Exception):
    """pip could not fetch the wheel (no network, no index, no such release), or the
    cached wheel is broken and could not be fetched again."""


PIP_PATIENCE: Final = ("--timeout", "10", "--retries", "1")
"""How long pip waits for an index: 10 seconds without a byte, then one retry (pip's own
defaults, 15 seconds and 5 retries, spend about 100 seconds on an index that accepts
connections and never answers). A working index streams far faster than that."""

_silent_index: list[str] = []
"""The reason pip last timed out in this process, if it did: later downloads fail at once."""


def cache_dir() -> Path:
    """The wheel cache: ``$DRAFTING_CONFIG_WHEEL_CACHE``, else
    ``~/.cache/drafting-config/wheels``."""
    configured = os.environ.get(CACHE_ENV)
    return Path(configured).expanduser() if configured else _DEFAULT_CACHE.expanduser()


def _cached(spec: WheelSpec, cache: Path) -> Path | None:
    found = sorted(
        path
        for path in cache.glob("*.whl")
        if path.name.lower().startswith(spec.file_prefix.lower())
    )
    return found[0] if found else None


def archive_problem(path: Path) -> str | None:
    """Why ``path`` is not a whole zip archive, or ``None`` when it is one: its central
    directory must read, and each member's local header must be where the directory says
    (a truncated download loses the directory at the end; bytes lost or added in the middle
    move the headers). Cheap: nothing is decompressed."""
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
        with path.open("rb") as handle:
            for member in members:
                handle.seek(member.header_offset)
                if member.header_offset < 0 or handle.read(4) != _LOCAL_HEADER:
                    return f"damaged (no local header for {member.filename})"
    except (zipfile.BadZipFile, OSError, ValueError) as error:
        return f"not a zip archive ({error})"
    return None if members else "an empty zip archive"


_LOCAL_HEADER: Final = b"PK\x03\x04"


def _usable_cached(spec: WheelSpec, cache: Path, broken: list[str]) -> Path | None:
    """The cached wheel of ``spec`` if it is a whole archive; a broken one is deleted and
    its name and problem appended to ``broken``."""
    found = _cached(spec, cache)
    if found is None:
        return None
    problem = archive_problem(found)
    if problem is None:
        return found
    broken.append(f"the cached wheel {found} is {problem}")
    with contextlib.suppress(FileNotFoundError):
        found.unlink()
    return None


@contextlib.contextmanager
def locked(lock_file: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``lock_file`` (no lock where ``fcntl`` is missing: the
    rename into place keeps a racing download safe, only wasteful)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    with lock_file.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def fetch_wheel(spec: WheelSpec, cache: Path | None = None) -> Wheel:
    """The wheel of ``spec``, from the cache or downloaded into it by pip.

    Raises:
        WheelUnavailable: pip failed (the message holds the end of pip's output, and names
            the broken cached wheel it replaced, if any), or pip timed out earlier in this
            process.
    """
    cache = cache_dir() if cache is None else cache
    found = _cached(spec, cache) if cache.is_dir() else None
    if found is not None and archive_problem(found) is None:
        return Wheel(found)
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise WheelUnavailable(f"cannot create the wheel cache {cache}: {error}") from None
    with locked(cache / f".{spec.file_prefix.rstrip('-')}.lock"):
        # another process may have fetched it meanwhile; a broken one goes, under the lock
        broken: list[str] = []
        found = _usable_cached(spec, cache, broken)
        if found is not None:
            return Wheel(found)
        return Wheel(_download(spec, cache, broken))


def _download(spec: WheelSpec, cache: Path, broken: Sequence[str]) -> Path:
    def unavailable(reason: str) -> WheelUnavailable:
        return WheelUnavailable("; ".join([*broken, reason]))

    private = Path(tempfile.mkdtemp(prefix=f".{spec.file_prefix}", dir=cache))
    try:
        failure = _pip_download(spec.requirement, private, PIP_TARGET)
        downloaded = _cached(spec, private)
        if failure is None and downloaded is None:
            failure = f"`pip download {spec.requirement}` wrote no {spec.file_prefix}*.whl"
        if failure is not None:
            raise unavailable(failure)
        assert downloaded is not None
        problem = archive_problem(downloaded)
        if problem is not None:
            raise unavailable(f"pip downloaded {downloaded.name}, which is {problem}")
        target = cache / downloaded.name
        os.replace(downloaded, target)  # atomic: a reader never sees half a wheel
        return target
    finally:
        shutil.rmtree(private, ignore_errors=True)


def _pip_download(requirement: str, folder: Path, target: Sequence[str] = ()) -> str | None:
    """Run ``pip download --no-deps`` of ``requirement`` into ``folder``, with
    :data:`PIP_PATIENCE`; ``None``, or why it failed (the end of pip's output). A timeout is
    remembered: every later call in this process fails at once."""
    if _silent_index:
        return (
            f"not fetching {requirement}: the index did not answer earlier in this session "
            f"({_silent_index[-1]})"
        )
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--disable-pip-version-check",
        *PIP_PATIENCE,
        *target,
        requirement,
        "-d",
        str(folder),
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode == 0:
        return None
    tail = (result.stderr.strip() or result.stdout.strip()).splitlines()[-3:]
    reason = f"`pip download {requirement}` failed (exit {result.returncode}): " + " | ".join(tail)
    if "timed out" in (result.stderr + result.stdout).lower():
        _silent_index.append(reason)
    return reason


# --- reading and extracting --------------------------------------------------------------------


@dataclass(frozen=True)
class Wheel:
    """A downloaded wheel, read file by file (never unpacked)."""

    path: Path

    @cached_property
    def _names(self) -> frozenset[str]:
        with zipfile.ZipFile(self.path) as archive:
            return frozenset(archive.namelist())

    def has(self, member: str) -> bool:
        return member in self._names

    def members(self, prefix: str = "") -> list[str]:
        """The wheel's file names under ``prefix``, sorted."""
        return sorted(name for name in self._names if name.startswith(prefix))

    @cached_property
    def _trees(self) -> dict[str, ast.Module]:
        return {}

    @cached_property
    def memo(self) -> dict[str, object]:
        """Helpers' results, kept with the wheel they were read from."""
        return {}

    def source(self, member: str) -> str:
        """The text of one file of the wheel, such as ``vllm/config/vllm.py``.

        Raises:
            zipfile.BadZipFile: the member's data is damaged; the message names the wheel.
        """
        with zipfile.ZipFile(self.path) as archive:
            try:
                return archive.read(member).decode("utf-8")
            except zipfile.BadZipFile as error:
                raise zipfile.BadZipFile(f"{self.path}!{member}: {error}") from None

    def tree(self, member: str) -> ast.Module:
        """The parsed file, parsed once per :class:`Wheel` object (do not edit it)."""
        if member not in self._trees:
            self._trees[member] = ast.parse(self.source(member), filename=member)
        return self._trees[member]

    def extract(
        self,
        member: str,
        names: Sequence[str],
        *,
        stand_ins: Mapping[str, object] | None = None,
        modules: Mapping[str, object] | None = None,
    ) -> dict[str, Any]:
        """:func:`extract` on one file of the wheel."""
        return extract(
            self.source(member),
            names,
            stand_ins=stand_ins,
            modules=modules,
            filename=f"{self.path.name}!{member}",
        )


_EXTRACTIONS: Final = itertools.count()


class MissingStandIn(NameError):
    """Extracted code touched a name the test gave no stand-in for."""


class _Missing:
    """A placeholder for a name without a stand-in: raises as soon as it is used."""

    def __init__(self, name: str, origin: str) -> None:
        self._name = name
        self._origin = origin

    def _fail(self) -> MissingStandIn:
        return MissingStandIn(
            f"the extracted code used `{self._name}` ({self._origin}), which has no stand-in: "
            "pass one in stand_ins= or modules="
        )

    def __getattr__(self, attribute: str) -> object:
        raise self._fail()

    def __call__(self, *args: object, **kwargs: object) -> object:
        raise self._fail()

    def __repr__(self) -> str:
        return f"<missing stand-in {self._name}>"


_SKIPPED_ANNOTATION_FIELDS: Final = {
    ast.arg: ("annotation",),
    ast.FunctionDef: ("returns",),
    ast.AsyncFunctionDef: ("returns",),
    ast.AnnAssign: ("annotation",),
}


def _used_names(node: ast.AST) -> set[str]:
    """The names ``node`` reads and does not bind itself (annotations aside: they are
    never evaluated here). Over-approximates a little: a name bound anywhere inside
    counts as bound everywhere inside."""
    loaded: set[str] = set()
    bound: set[str] = set()

    def visit(current: ast.AST, top: bool) -> None:
        skipped = _SKIPPED_ANNOTATION_FIELDS.get(type(current), ())
        if isinstance(current, ast.Name):
            (loaded if isinstance(current.ctx, ast.Load) else bound).add(current.id)
        elif isinstance(current, ast.arg):
            bound.add(current.arg)
        elif isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if not top:
                bound.add(current.name)
        elif isinstance(current, (ast.Import, ast.ImportFrom)):
            bound.update(_alias_name(alias) for alias in current.names)
        elif isinstance(current, ast.ExceptHandler) and current.name:
            bound.add(current.name)
        for name, value in ast.iter_fields(current):
            if name in skipped:
                continue
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, ast.AST):
                    visit(child, False)

    visit(node, True)
    return loaded - bound


def _alias_name(alias: ast.alias) -> str:
    """The name an import binds (``import a.b`` binds ``a``)."""
    return (alias.asname or alias.name).partition(".")[0]


def _bound_names(statement: ast.stmt) -> list[str]:
    """The module-level names a top-level statement binds."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [statement.name]
    if isinstance(statement, ast.Assign):
        return [
            node.id
            for target in statement.targets
            for node in ast.walk(target)
            if isinstance(node, ast.Name)
        ]
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
        return [statement.target.id] if statement.value is not None else []
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return [_alias_name(alias) for alias in statement.names]
    return []


def _is_stdlib(module: str) -> bool:
    return module.partition(".")[0] in sys.stdlib_module_names or module == "__future__"


def _import_hook(modules: Mapping[str, object]) -> Callable[..., object]:
    """``__import__`` for extracted code: stand-in modules first, then the standard library."""

    def hook(
        name: str,
        globals: Mapping[str, object] | None = None,
        locals: Mapping[str, object] | None = None,
        fromlist: Sequence[str] = (),
        level: int = 0,
    ) -> object:
        if level == 0 and name in modules and fromlist:
            return modules[name]
        if level == 0 and _is_stdlib(name):
            return builtins.__import__(name, globals, locals, fromlist, level)
        raise MissingStandIn(
            f"the extracted code imports `{name}` at call time, which has no stand-in: "
            "pass one in modules="
        )

    return hook


def _method(tree: ast.Module, dotted: str) -> ast.FunctionDef:
    """A method of a top-level class, as a top-level function (``classmethod`` and
    ``staticmethod`` dropped: ``self`` or ``cls`` is its first argument)."""
    class_name, _, method_name = dotted.partition(".")
    for statement in tree.body:
        if isinstance(statement, ast.ClassDef) and statement.name == class_name:
            for item in statement.body:
                if isinstance(item, ast.FunctionDef) and item.name == method_name:
                    function = copy.deepcopy(item)
                    function.decorator_list = [
                        d
                        for d in function.decorator_list
                        if not (isinstance(d, ast.Name) and d.id in {"classmethod", "staticmethod"})
                    ]
                    function.name = _method_slot(dotted)
                    return function
    raise KeyError(f"no method {dotted} in the source")


def _method_slot(dotted: str) -> str:
    return "__extracted__" + dotted.replace(".", "__")


def extract(
    source: str,
    names: Sequence[str],
    *,
    stand_ins: Mapping[str, object] | None = None,
    modules: Mapping[str, object] | None = None,
    filename: str = "<engine source>",
) -> dict[str, Any]:
    """Execute the named definitions of ``source`` (and what they use) in a fresh namespace.

    See the module docstring for how names resolve. Returns the namespace: each requested
    name (``"Class.method"`` included) maps to its object.

    Raises:
        KeyError: a requested name is not defined at the top level of ``source``.
    """
    selection = _Selection(ast.parse(source, filename=filename), dict(stand_ins or {}))
    modules = dict(modules or {})
    for name in names:
        selection.request(name)
    selection.follow(modules)

    # A real module, registered, because dataclasses looks its class's module up.
    module_name = f"engine_wheels_extracted_{next(_EXTRACTIONS)}"
    holder = ModuleType(module_name)
    sys.modules[module_name] = holder
    namespace: dict[str, Any] = holder.__dict__
    namespace["__builtins__"] = {**vars(builtins), "__import__": _import_hook(modules)}
    namespace.update({name: _Missing(name, why) for name, why in selection.missing.items()})
    namespace.update(selection.stand_ins)
    code = compile(selection.module(), filename, "exec", flags=_ANNOTATIONS, dont_inherit=True)
    exec(code, namespace)
    for name in names:
        if "." in name:
            namespace[name] = namespace.pop(_method_slot(name))
    return namespace


_ANNOTATIONS: Final = __future__.annotations.compiler_flag
"""Compile as under ``from __future__ import annotations``: annotations stay strings."""


class _Selection:
    """The statements of one file that :func:`extract` runs, and what stays unresolved."""

    def __init__(self, tree: ast.Module, stand_ins: dict[str, object]) -> None:
        self.tree = tree
        self.stand_ins = stand_ins
        self.binders: dict[str, list[ast.stmt]] = {}
        for statement in tree.body:
            for name in _bound_names(statement):
                self.binders.setdefault(name, []).append(statement)
        self.position = {id(statement): index for index, statement in enumerate(tree.body)}
        self.chosen: dict[tuple[int, str], tuple[int, ast.stmt]] = {}
        self.methods: list[ast.FunctionDef] = []
        self.missing: dict[str, str] = {}
        self.pending: list[str] = []

    def request(self, name: str) -> None:
        if "." in name:
            method = _method(self.tree, name)
            self.methods.append(method)
            self.pending += sorted(_used_names(method))
        elif name in self.binders:
            self.pending.append(name)
        else:
            raise KeyError(f"no top-level definition of {name} in the source")

    def follow(self, modules: Mapping[str, object]) -> None:
        """Choose every statement the requested names need, transitively."""
        seen: set[str] = set()
        while self.pending:
            name = self.pending.pop()
            if name in seen or name in self.stand_ins:
                continue
            seen.add(name)
            statements = self.binders.get(name)
            if statements is None:
                if not hasattr(builtins, name):
                    self.missing[name] = "not defined in the file"
                continue
            for statement in statements:
                self._choose(statement, name, modules)

    def _choose(self, statement: ast.stmt, name: str, modules: Mapping[str, object]) -> None:
        where = self.position[id(statement)]
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            single = _resolve_import(statement, name, self.stand_ins, modules, self.missing)
            if single is not None:
                self.chosen[(id(statement), name)] = (where, single)
        elif (id(statement), "") not in self.chosen:
            self.chosen[(id(statement), "")] = (where, statement)
            self.pending += sorted(_used_names(statement))

    def module(self) -> ast.Module:
        """The chosen statements in the file's order, then the requested methods."""
        body = [statement for _, statement in sorted(self.chosen.values(), key=lambda p: p[0])]
        return ast.Module(body=[*body, *self.methods], type_ignores=[])


def _resolve_import(
    statement: ast.Import | ast.ImportFrom,
    name: str,
    stand_ins: dict[str, object],
    modules: Mapping[str, object],
    missing: dict[str, str],
) -> ast.stmt | None:
    """Bind ``name``, bound by an import of the file: a stand-in module (or its attribute)
    goes into ``stand_ins``; an import of the standard library is returned, narrowed to
    ``name``, to run for real; anything else becomes a placeholder in ``missing``."""
    for alias in statement.names:
        if _alias_name(alias) != name:
            continue
        if isinstance(statement, ast.Import):
            origin = alias.name if alias.asname else alias.name.partition(".")[0]
            if origin in modules:
                stand_ins[name] = modules[origin]
                return None
        else:
            origin = "." * statement.level + (statement.module or "")
            if origin in modules:
                stand_ins[name] = getattr(modules[origin], alias.name)
                return None
        if _is_stdlib(origin) and not origin.startswith("."):
            single = copy.copy(statement)
            single.names = [alias]
            return single
        missing[name] = f"imported from {origin}"
        return None
    return None


class _Struct:
    """``msgspec.Struct`` as these engines use it: fields from the class's annotations,
    defaults from its class attributes, built from positional or keyword arguments."""

    def __init_subclass__(cls, **options: object) -> None:  # kw_only=, frozen=, ...
        super().__init_subclass__()

    @classmethod
    def _fields(cls) -> list[str]:
        fields: list[str] = []
        for klass in reversed(cls.__mro__):
            for name in vars(klass).get("__annotations__", {}):
                if name not in fields:
                    fields.append(name)
        return fields

    def __init__(self, *args: object, **kwargs: object) -> None:
        fields = self._fields()
        if len(args) > len(fields):
            raise TypeError(f"{len(args)} positional arguments for {len(fields)} fields")
        for name, value in zip(fields, args, strict=False):
            kwargs[name] = value
        for name in fields:
            if name in kwargs:
                object.__setattr__(self, name, kwargs.pop(name))
            elif not hasattr(type(self), name):
                raise TypeError(f"missing required argument {name!r}")
        if kwargs:
            raise TypeError(f"unexpected arguments {sorted(kwargs)}")

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields())
        return f"{type(self).__name__}({shown})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and all(
            getattr(self, name) == getattr(other, name) for name in self._fields()
        )

    __hash__ = None  # type: ignore[assignment]


MSGSPEC: Final = SimpleNamespace(Struct=_Struct)
"""A stand-in for the ``msgspec`` module (its ``Struct`` only)."""


# --- metadata ----------------------------------------------------------------------------------


def requirement_of(wheel: Path, distribution: str) -> str:
    """The version specifier of ``distribution`` in the wheel's ``Requires-Dist`` lines,
    lower bounds first (``>=5.16.1,<5.21.0``).

    Raises:
        KeyError: the wheel does not require ``distribution``.
    """
    from packaging.requirements import Requirement

    with zipfile.ZipFile(wheel) as archive:
        (metadata,) = (n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        text = archive.read(metadata).decode("utf-8")
    for line in text.splitlines():
        if line.startswith("Requires-Dist:"):
            requirement = Requirement(line.partition(":")[2].strip())
            if requirement.name == distribution and requirement.marker is None:
                lower_first = sorted(
                    requirement.specifier, key=lambda s: (s.operator[0] != ">", str(s))
                )
                return ",".join(str(s) for s in lower_first)
    raise KeyError(f"{wheel.name} does not require {distribution}")


# --- what is derived from a wheel, cached by its hash -------------------------------------------

_SHA256: dict[tuple[str, int, int], str] = {}


def sha256_of(path: Path) -> str:
    """The sha256 of a file's bytes (hex), computed once per process for a file unchanged
    since (same size and modification time)."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if key not in _SHA256:
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        _SHA256[key] = digest.hexdigest()
    return _SHA256[key]


def derived(
    kind: str, inputs: Sequence[Path], code: Sequence[Path], compute: Callable[[], Any]
) -> Any:
    """What ``compute`` derives from the wheels ``inputs`` (a JSON value), from the cache
    when it was derived before from the same bytes by the same ``code`` (the files that
    derive it), else computed and stored.

    The cache is ``derived/`` in the wheel cache (:func:`cache_dir`), one JSON file per
    (``kind``, the inputs' sha256, the code's sha256): a new wheel or a changed deriving
    file derives again; nothing is ever stale. Two processes may race: each writes a
    private file and renames it into place.
    """
    digest = hashlib.sha256(kind.encode())
    for path in (*inputs, *code):
        digest.update(b"\0" + sha256_of(path).encode())
    folder = cache_dir() / "derived"
    stored = folder / f"{kind}-{digest.hexdigest()[:24]}.json"
    if stored.is_file():
        with contextlib.suppress(ValueError):
            return json.loads(stored.read_text(encoding="utf-8"))
    value = compute()
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(
        "w", dir=folder, suffix=".part", delete=False, encoding="utf-8"
    ) as handle:
        json.dump(value, handle)
    os.replace(handle.name, stored)
    return value
