"""Write an engine release's tables from its wheel: the maintainers' one command.

From the repository root, with the development environment active::

    python -m tools.engine_tables vllm 0.32.0
    python -m tools.engine_tables sglang 0.5.23

(the engines are those of :func:`tools.engines.engine_tools`, one row each) fetches the
release's wheel with ``pip download --no-deps`` (through the wheel cache of
:mod:`tools.wheels`, ``$DRAFTING_CONFIG_WHEEL_CACHE``), reads its ``.py`` files
with :mod:`ast` (nothing of the engine is imported or installed) and writes the package's
data files for that release (``--output DIR`` writes them under ``DIR`` instead, in the
same relative places):

* ``vllm``: ``drafting_config/engines/vllm/vllm-VERSION.json``
  (:func:`tools.engines.vllm.tables.documents`: the registry tables, ``SupportsEagle3``, the
  ``_CONFIG_REGISTRY`` model types, the speculators algorithms, the transformers range the
  wheel requires and its releases, as ``pip index versions transformers`` lists them), and
  ``drafting_config/engines/transformers-5.json``
  (:func:`tools.engines.vllm.tables.transformers_tables`:
  the model types and classes of every transformers release in the range of this release
  or of any other vLLM release the package ships, each of those wheels fetched too).
* ``sglang``: ``drafting_config/engines/sglang/sglang-VERSION.json``
  (:func:`tools.engines.sglang.tables.documents`: the config registry and the other model
  types SGLang registers, and the transformers version its wheel pins), keeping the
  ``target_classes`` of the shipped file (of that release, else of the newest one
  shipped): their capture hooks are checked against the wheel by the ``engine_wheels``
  tests, and their ``last_layer`` column is read by hand.

The ``engine_wheels`` tests derive the same tables from the same wheels and compare them
with the shipped files, so a file written here is the one the tests expect.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from drafting_config import engines as _engines
from tools.wheels import (
    PIP_PATIENCE,
    WheelSpec,
    WheelUnavailable,
    fetch_wheel,
)

__all__ = [
    "ENGINES",
    "PACKAGE_DATA",
    "TRANSFORMERS_FILE",
    "data_file",
    "in_range",
    "main",
    "released_versions",
    "shipped_versions",
    "write_tables",
]

PACKAGE_DATA: Final = Path(__file__).resolve().parents[1] / "drafting_config" / "engines"
"""Where the package keeps its data files: one folder per engine."""

TRANSFORMERS_FILE: Final = Path("transformers-5.json")
"""transformers' names per version, relative to :data:`PACKAGE_DATA`; read by both engines."""

ENGINES: Final = tuple(_engines.ENGINES)
"""The engines, as the package lists them (each has a row in :mod:`tools.engines`)."""


def data_file(engine: str, version: str) -> Path:
    """The data file of ``engine`` ``version``, relative to :data:`PACKAGE_DATA`."""
    return Path(engine) / f"{engine}-{version}.json"


def shipped_versions(engine: str, root: Path = PACKAGE_DATA) -> list[str]:
    """The releases of ``engine`` whose data file the package ships, oldest first."""
    prefix = f"{engine}-"
    found = (
        p.name.removeprefix(prefix).removesuffix(".json")
        for p in (root / engine).glob(f"{prefix}*.json")
    )
    return sorted(found, key=_key)


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def released_versions(distribution: str) -> list[str]:
    """The releases of ``distribution`` the index lists (``pip index versions``).

    Raises:
        WheelUnavailable: pip could not list them.
    """
    command = [sys.executable, "-m", "pip", "index", "versions", *PIP_PATIENCE, distribution]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    found = re.search(r"^Available versions: (.+)$", result.stdout, re.MULTILINE)
    if result.returncode != 0 or found is None:
        tail = (result.stderr.strip() or result.stdout.strip()).splitlines()[-2:]
        raise WheelUnavailable(f"`pip index versions {distribution}` failed: " + " | ".join(tail))
    return [version.strip() for version in found.group(1).split(",")]


def in_range(versions: Sequence[str], specifier: str) -> list[str]:
    """The final releases of ``versions`` that ``specifier`` accepts, oldest first."""
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    accepted = SpecifierSet(specifier)
    found = (v for v in versions if accepted.contains(Version(v), prereleases=False))
    return sorted(found, key=Version)


def _fetch(spec: WheelSpec) -> Path:
    return fetch_wheel(spec).path


def write_tables(engine: str, version: str, output: Path | None = None) -> list[Path]:
    """Write ``engine`` ``version``'s data files under ``output`` (by default the package's
    data folder); returns the paths written."""
    from tools.engines import engine_tools

    rows = engine_tools()
    if engine not in rows:
        raise ValueError(f"engine: {engine!r} is not one of {', '.join(ENGINES)}")
    documents = rows[engine].documents(version, _fetch)
    root = PACKAGE_DATA if output is None else output
    written = []
    for relative, text in documents.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        written.append(target)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m tools.engine_tables ENGINE VERSION [--output PATH]``."""
    parser = argparse.ArgumentParser(
        prog="python -m tools.engine_tables",
        description="Write an engine release's tables from its wheel (pip download --no-deps).",
    )
    parser.add_argument("engine", choices=ENGINES)
    parser.add_argument("version", help="the release, such as 0.33.0")
    parser.add_argument(
        "--output",
        type=Path,
        help="a folder to write the files under instead of drafting_config/engines/",
    )
    arguments = parser.parse_args(argv)
    try:
        written = write_tables(arguments.engine, arguments.version, arguments.output)
    except WheelUnavailable as error:
        print(f"python -m tools.engine_tables: {error}", file=sys.stderr)
        return 1
    for path in written:
        print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
