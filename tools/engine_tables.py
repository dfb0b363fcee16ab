"""Write an engine release's tables from its wheel: the maintainers' one command.

From the repository root, with the development environment active::

    python -m tools.engine_tables vllm 0.32.0
    python -m tools.engine_tables sglang 0.5.23

fetches the release's wheel with ``pip download --no-deps`` (through the wheel cache of
:mod:`tools.engine_wheels`, ``$DRAFTING_CONFIG_WHEEL_CACHE``), reads its ``.py`` files
with :mod:`ast` (nothing of the engine is imported or installed) and writes the package's
data file for that release, ``drafting_config/engines/ENGINE-VERSION.json``
(``--output PATH`` elsewhere, ``--output -`` to standard output).

* ``vllm``: :func:`tools.vllm_tables.tables`: the registry tables, ``SupportsEagle3``, the
  ``_CONFIG_REGISTRY`` model types, the speculators algorithms, and the model types and
  classes of every transformers release in the range the vLLM wheel requires (each of
  those wheels fetched too; the releases listed by ``pip index versions transformers``).
* ``sglang``: :func:`tools.sglang_tables.tables`: the config registry and the other model
  types SGLang registers, and the transformers version its wheel pins.

The ``engine_wheels`` tests derive the same tables from the same wheels and compare them
with the shipped files, so a file written here is the one the tests expect.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

from tools import sglang_tables, vllm_tables
from tools.engine_wheels import (
    PIP_PATIENCE,
    WheelSpec,
    WheelUnavailable,
    fetch_wheel,
    transformers_spec,
)

__all__ = ["ENGINES", "PACKAGE_DATA", "data_file", "main", "released_versions", "write_tables"]

PACKAGE_DATA: Final = Path(__file__).resolve().parents[1] / "drafting_config" / "engines"
"""Where the package keeps each release's data file."""

ENGINES: Final = ("vllm", "sglang")


def data_file(engine: str, version: str) -> Path:
    """The package's data file for ``engine`` ``version``."""
    return PACKAGE_DATA / f"{engine}-{version}.json"


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


def _in_range(versions: Sequence[str], specifier: str) -> list[str]:
    """The final releases of ``versions`` that ``specifier`` accepts, oldest first."""
    from packaging.specifiers import SpecifierSet  # noqa: PLC0415 - a dev tool's dependency
    from packaging.version import Version  # noqa: PLC0415

    accepted = SpecifierSet(specifier)
    found = (v for v in versions if accepted.contains(Version(v), prereleases=False))
    return sorted(found, key=Version)


def vllm_document(
    version: str,
    fetch: Callable[[WheelSpec], Path],
    list_versions: Callable[[str], list[str]] = released_versions,
) -> str:
    """vLLM ``version``'s data file, as text."""
    wheel = fetch(WheelSpec("vllm", version))
    accepted = vllm_tables.requirement_of(wheel, "transformers")
    transformers = _in_range(list_versions("transformers"), accepted)
    if not transformers:
        raise WheelUnavailable(f"no transformers release in vLLM {version}'s range {accepted}")
    wheels = [fetch(transformers_spec(release)) for release in transformers]
    return vllm_tables.dumps(vllm_tables.tables(wheel, wheels))


def sglang_document(version: str, fetch: Callable[[WheelSpec], Path]) -> str:
    """SGLang ``version``'s data file, as text."""
    import json  # noqa: PLC0415

    wheel = fetch(WheelSpec("sglang", version))
    pinned = vllm_tables.requirement_of(wheel, "transformers")
    if not pinned.startswith("=="):
        raise WheelUnavailable(f"SGLang {version} requires transformers{pinned}, not one release")
    source = sglang_tables.SglangSource.of_zip(wheel)
    document = sglang_tables.tables(source, version, pinned.removeprefix("=="))
    return json.dumps(document, indent=1) + "\n"


def _fetch(spec: WheelSpec) -> Path:
    return fetch_wheel(spec).path


def write_tables(engine: str, version: str, output: str | None = None) -> str:
    """Write ``engine`` ``version``'s data file (to ``output``: a path, ``-`` for standard
    output, by default the package's file); returns where it went."""
    if engine == "vllm":
        text = vllm_document(version, _fetch)
    elif engine == "sglang":
        text = sglang_document(version, _fetch)
    else:
        raise ValueError(f"engine: {engine!r} is not one of {', '.join(ENGINES)}")
    if output == "-":
        sys.stdout.write(text)
        return "standard output"
    target = Path(output) if output is not None else data_file(engine, version)
    target.write_text(text, encoding="utf-8")
    return str(target)


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
        help="where to write (default: drafting_config/engines/ENGINE-VERSION.json; - for stdout)",
    )
    arguments = parser.parse_args(argv)
    try:
        where = write_tables(arguments.engine, arguments.version, arguments.output)
    except WheelUnavailable as error:
        print(f"python -m tools.engine_tables: {error}", file=sys.stderr)
        return 1
    print(f"wrote {arguments.engine} {arguments.version}'s tables to {where}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
