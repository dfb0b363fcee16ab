"""Add or refresh an engine release: the maintainers' one command.

From the repository root, with the development environment active::

    python -m tools.refresh vllm 0.34.0
    python -m tools.refresh vllm 0.34.0 --no-readings   # every step but the harness's runs
    python -m tools.refresh vllm 0.34.0 --only NAME...  # the harness on these cases only

runs, in order, each step timed on standard error:

1. **tables**: the release's data files from its wheel (``python -m tools.engine_tables``:
   the engine's row's ``documents``);
2. **pins**: the harness's pinned requirements of the release, re-resolved against the
   wheel's ``Requires-Dist`` (:func:`resolve_pins`): the engine's own pin is the release;
   every other package the wheel requires (for the harness's Python 3.11 on Linux x86_64,
   no extra) keeps the pin of the base file (the release's own file, else the newest
   earlier release's) when that pin satisfies the requirement. What the base cannot decide
   is a maintainer's choice, and the command stops there, naming each package and what to
   write: a package the wheel requires and the pins lack, or a pin the wheel no longer
   accepts. The choices live in the harness's ``pins.in`` (``leave NAME``: the environment
   goes without it, as it goes without the CUDA stack; ``pin NAME==VERSION [for
   RELEASE]``: that pin, whatever the wheel asks), each with why;
3. **readings**: the harness run on every case for the release (in a process of its own),
   each reading written as soon as it is taken, with the stage it reached (a run the
   harness stops records how far it went);
4. **transcripts**: the README's and docs' transcripts (``python -m tools.transcripts``);
5. **compatibility**: ``docs/compatibility.md`` and the CHANGELOG's verdict changes
   (``python -m tools.compatibility``).

A new release also needs its name in its engine's ``names.py`` (``Release``): the command
says so and stops before the readings when the package does not ship it yet.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from tools.wheels import WheelUnavailable, fetch_wheel

__all__ = [
    "HARNESS_ENVIRONMENT",
    "Choices",
    "PinChoiceNeeded",
    "base_requirements",
    "main",
    "read_choices",
    "refresh",
    "requires_dist",
    "resolve_pins",
]

REPO: Final = Path(__file__).resolve().parent.parent

HARNESS_ENVIRONMENT: Final[Mapping[str, str]] = {
    "python_version": "3.11",
    "python_full_version": "3.11.0",
    "sys_platform": "linux",
    "platform_system": "Linux",
    "platform_machine": "x86_64",
    "os_name": "posix",
    "implementation_name": "cpython",
    "platform_python_implementation": "CPython",
    "extra": "",
}
"""The environment a ``Requires-Dist`` marker is evaluated in: the harnesses' (no extra)."""


class PinChoiceNeeded(Exception):
    """A pin the wheel's requirements leave to a maintainer; the message says which and how."""


@dataclass(frozen=True)
class Choices:
    """A harness's recorded choices (its ``pins.in``): packages left out, pins kept (each
    for every release, or for the one release it names)."""

    leave: frozenset[str] = frozenset()
    pin: Mapping[str, str] = field(default_factory=dict)
    pin_for: Mapping[tuple[str, str], str] = field(default_factory=dict)
    """``(release, name)``: version, where a pin holds for one release."""

    def pins(self, release: str) -> dict[str, str]:
        """The pins that hold for ``release``: its own over the general ones."""
        found = dict(self.pin)
        found.update({name: v for (only, name), v in self.pin_for.items() if only == release})
        return found


def _canonical(name: str) -> str:
    from packaging.utils import canonicalize_name

    return str(canonicalize_name(name))


def read_choices(text: str, source: str = "pins.in") -> Choices:
    """The choices of a ``pins.in`` text: ``leave NAME``, ``pin NAME==VERSION`` and ``pin
    NAME==VERSION for RELEASE`` lines, ``#`` comments and blank lines ignored.

    Raises:
        ValueError: a line is neither, naming the line.
    """
    leave: set[str] = set()
    pin: dict[str, str] = {}
    pin_for: dict[tuple[str, str], str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.partition("#")[0].strip()
        if not line:
            continue
        verb, _, rest = line.partition(" ")
        rest = rest.strip()
        if verb == "leave" and rest and " " not in rest:
            leave.add(_canonical(rest))
        elif verb == "pin" and rest.count("==") == 1 and len(words := rest.split()) in (1, 3):
            name, version = words[0].split("==")
            if len(words) == 1:
                pin[_canonical(name)] = version
            elif words[1] == "for":
                pin_for[(words[2], _canonical(name))] = version
            else:
                raise ValueError(f"{source}:{number}: {raw.strip()!r}: expected `for RELEASE`")
        else:
            raise ValueError(
                f"{source}:{number}: {raw.strip()!r} is neither `leave NAME` nor "
                "`pin NAME==VERSION [for RELEASE]`"
            )
    return Choices(frozenset(leave), pin, pin_for)


def requires_dist(wheel: Path) -> list[str]:
    """The ``Requires-Dist`` lines of a wheel's ``METADATA``, as written."""
    with zipfile.ZipFile(wheel) as archive:
        (metadata,) = (n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        text = archive.read(metadata).decode("utf-8")
    return [
        line.partition(":")[2].strip()
        for line in text.splitlines()
        if line.startswith("Requires-Dist:")
    ]


def resolve_pins(
    base: str,
    requires: Sequence[str],
    *,
    distribution: str,
    version: str,
    choices: Choices,
    choices_file: str = "pins.in",
) -> str:
    """The harness's requirements for ``distribution`` ``version``: ``base`` (a file of
    ``NAME==VERSION`` lines) with the engine's pin set to ``version`` and every other
    requirement of ``requires`` (the wheel's ``Requires-Dist``, markers evaluated in
    :data:`HARNESS_ENVIRONMENT`) checked against its pin, ``choices`` applied.

    Lines keep the base's order and spelling; a pin added by a choice goes in name order.

    Raises:
        PinChoiceNeeded: a required package the pins lack, or a pin the wheel does not
            accept, that ``choices`` do not decide; the message names each and what to
            add to ``choices_file``.
    """
    from packaging.requirements import Requirement

    lines = base.splitlines()
    index = {
        _canonical(line.partition("==")[0]): number
        for number, line in enumerate(lines)
        if "==" in line and not line.lstrip().startswith("#")
    }

    def pinned(name: str) -> str | None:
        number = index.get(name)
        return None if number is None else lines[number].partition("==")[2].strip()

    def set_pin(name: str, spelled: str, value: str) -> None:
        number = index.get(name)
        if number is not None:
            lines[number] = f"{lines[number].partition('==')[0]}=={value}"
            return
        lines.append(f"{spelled}=={value}")
        lines.sort(key=lambda line: _canonical(line.partition("==")[0]))
        index.clear()
        index.update({_canonical(line.partition("==")[0]): n for n, line in enumerate(lines)})

    engine = _canonical(distribution)
    chosen = choices.pins(version)
    problems: list[str] = []
    for text in requires:
        requirement = Requirement(text)
        if requirement.marker is not None and not requirement.marker.evaluate(
            dict(HARNESS_ENVIRONMENT)
        ):
            continue
        name = _canonical(requirement.name)
        if name == engine or name in choices.leave or name in chosen:
            continue
        current = pinned(name)
        wanted = str(requirement.specifier) or "(any version)"
        if current is None:
            problems.append(
                f"{requirement.name}: {distribution} {version} requires {requirement.name} "
                f"{wanted}, which the pins lack: add `pin {requirement.name}==VERSION` "
                f"(and what it imports) or `leave {requirement.name}` to {choices_file}"
            )
        elif not requirement.specifier.contains(current, prereleases=True):
            problems.append(
                f"{requirement.name}: {distribution} {version} requires {requirement.name} "
                f"{wanted}, the pins say {current}: add `pin {requirement.name}==VERSION for "
                f"{version}` (a version it accepts, or {current} kept on purpose) to {choices_file}"
            )
    if problems:
        raise PinChoiceNeeded(
            f"the pins of {distribution} {version} need a maintainer's choice:\n  "
            + "\n  ".join(problems)
        )
    for name, value in sorted(chosen.items()):
        set_pin(name, name, value)
    set_pin(engine, distribution, version)
    return "\n".join(lines) + "\n"


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".") if part.isdigit())


def base_requirements(target: Path, version: str) -> Path | None:
    """The file a release's pins start from: its own (``target``) if it exists, else the
    newest of its siblings (``VERSION.txt``) older than ``version``, else the oldest."""
    if target.is_file():
        return target
    siblings = sorted(
        (path for path in target.parent.glob("*.txt") if path.stem[:1].isdigit()),
        key=lambda path: _version_key(path.stem),
    )
    older = [path for path in siblings if _version_key(path.stem) < _version_key(version)]
    if older:
        return older[-1]
    return siblings[0] if siblings else None


@contextmanager
def _step(name: str, timings: dict[str, float]) -> Iterator[None]:
    print(f"refresh: {name} ...", file=sys.stderr, flush=True)
    started = time.perf_counter()
    try:
        yield
    finally:
        timings[name] = time.perf_counter() - started
        print(f"refresh: {name}: {timings[name]:.1f} s", file=sys.stderr, flush=True)


def _run(module: str) -> None:
    subprocess.run([sys.executable, "-m", module], check=True, cwd=REPO)


def write_pins(
    engine: str, version: str, fetch: Callable[[str, str], Path] | None = None
) -> Path | None:
    """Write ``engine`` ``version``'s harness pins (:func:`resolve_pins`); ``None`` when the
    engine's harness does not run releases of its own (its one file pins another).

    Raises:
        PinChoiceNeeded: as :func:`resolve_pins`.
    """
    from tools.engines import engine_tools

    row = engine_tools()[engine]
    target = row.requirements(version)
    base = base_requirements(target, version)
    if base is None:
        raise PinChoiceNeeded(f"{engine} {version}: no requirements file to start from")
    if target == base and row.pinned(version) is None and target.is_file():
        raise PinChoiceNeeded(
            f"{engine} {version}: the harness's one requirements file ({target.name}) pins "
            "another release; it runs one release: change its pin by hand"
        )
    wheel = (fetch or fetch_wheel_path)(row.distribution, version)
    choices_file = row.choices
    choices = (
        read_choices(choices_file.read_text(encoding="utf-8"), str(choices_file))
        if choices_file.is_file()
        else Choices()
    )
    text = resolve_pins(
        base.read_text(encoding="utf-8"),
        requires_dist(wheel),
        distribution=row.distribution,
        version=version,
        choices=choices,
        choices_file=str(choices_file.relative_to(REPO)),
    )
    target.write_text(text, encoding="utf-8")
    return target


def fetch_wheel_path(distribution: str, version: str) -> Path:
    """The wheel of ``distribution`` ``version`` from the shared wheel cache."""
    from tools.wheels import WheelSpec

    return fetch_wheel(WheelSpec(distribution, version)).path


def refresh(
    engine: str,
    version: str,
    *,
    readings: bool = True,
    timeout: float = 300.0,
    only: Sequence[str] | None = None,
) -> dict[str, float]:
    """Run every step for ``engine`` ``version``; returns each step's seconds.

    Raises:
        PinChoiceNeeded: the pins need a maintainer's choice (the tables are written).
        WheelUnavailable: a wheel could not be fetched.
        ValueError: the package does not ship the release yet (after the pins).
    """
    from drafting_config.engines import RELEASES
    from tools import engine_tables
    from tools.engines import engine_tools

    row = engine_tools()[engine]
    timings: dict[str, float] = {}
    with _step("tables", timings):
        engine_tables.write_tables(engine, version)
    with _step("pins", timings):
        write_pins(engine, version)
    if f"{engine}=={version}" not in RELEASES:
        raise ValueError(
            f"{engine} {version}: tables and pins written; add {engine}=={version} to "
            f"Release in drafting_config/engines/{engine}/names.py, then run again"
        )
    if readings:
        with _step("readings", timings):
            row.record(version, timeout, only)
    with _step("transcripts", timings):
        _run("tools.transcripts")
    with _step("compatibility", timings):
        _run("tools.compatibility")
    return timings


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m tools.refresh ENGINE VERSION [--no-readings] [--timeout S] [--only NAME...]``."""
    from tools import engine_tables

    parser = argparse.ArgumentParser(prog="python -m tools.refresh", description=__doc__)
    parser.add_argument("engine", choices=engine_tables.ENGINES)
    parser.add_argument("version", help="the release, such as 0.34.0")
    parser.add_argument("--no-readings", action="store_true", help="skip the harness's runs")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per harness run")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these cases")
    arguments = parser.parse_args(argv)
    try:
        timings = refresh(
            arguments.engine,
            arguments.version,
            readings=not arguments.no_readings,
            timeout=arguments.timeout,
            only=arguments.only,
        )
    except (PinChoiceNeeded, WheelUnavailable, ValueError) as error:
        print(f"python -m tools.refresh: {error}", file=sys.stderr)
        return 2
    total = sum(timings.values())
    print(
        "refresh: " + ", ".join(f"{k} {v:.1f} s" for k, v in timings.items()),
        f"(total {total:.1f} s)",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
