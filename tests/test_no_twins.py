"""No release of an engine and no literal list of engines is spelled outside the engine's
slice, so that a new release (or a new engine) changes only the engine's own folders and the
files generated from them (issue 37).

An engine's slice is its package (``drafting_config/engines/ENGINE/``), its tools
(``tools/engines/ENGINE/``, and until they move there ``tools/ENGINE_*``), its tests
(``tests/engines/ENGINE/``, and the tests of its tools, ``tests/tools/test_ENGINE_*``, until
they move with the tools) and its rules page (``docs/rules/ENGINE.md``).  Everywhere else
the releases derive from :data:`drafting_config.engines.RELEASES` (or an engine's
``names.VERSIONS``, ``names.VERSION``), the engines from :data:`drafting_config.engines.ENGINES`.

What is scanned: the Python of the package, the tests, the tools and the benchmarks, and the
prose of the README and of ``docs/`` (with ``mkdocs.yml``, whose nav names the pages).  The
transcripts in the README and ``docs/`` are generated (``python -m tools.transcripts``), so
their output is blanked before the scan; their command lines are hand-written and scanned.
What is not scanned, and why: data files (the readings in ``tests/real_configs/*.json`` record
what one release did: a fact of that release, not a twin of its name), and history
(``CHANGELOG.md``, ``benchmarks/RESULTS.md``, ``tests/real_configs/SOURCES.md`` and
``tests/real_configs/reports/``, which say what was measured against which release).

A release is spelled when one of the shipped versions appears (``VERSION``, ``vllm==VERSION``,
``vllm VERSION``, ``vllm-VERSION.json`` alike); an engine list is a list, tuple, set, dict or
``Literal`` of string constants each an engine (bare, ``ENGINE==...``, or ``"all"``), naming
two engines or more.  :data:`ALLOWED` names the few files where one must stay, with why.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Final

import pytest

from drafting_config.engines import ENGINES, RELEASES

REPO: Final = Path(__file__).resolve().parent.parent

SETUP_MARKER: Final = "<!-- ci: setup -->"
"""The README's marker above its set-up command, whose output block is generated."""

PYTHON_ROOTS: Final = ("drafting_config", "tests", "tools", "benchmarks")
"""The folders whose ``*.py`` files are scanned."""

PROSE: Final = ("README.md", "docs", "mkdocs.yml")
"""The documents (a file, or a folder's ``*.md``) whose prose is scanned."""

RELEASE: Final = "release"
ENGINE_LIST: Final = "engine list"

ALLOWED: Final[Mapping[tuple[str, str], str]] = MappingProxyType(
    {
        ("drafting_config/engines/__init__.py", ENGINE_LIST): (
            "the one list of engines: ENGINES, and the Literals mypy needs spelled "
            "(EngineName, EveryRelease), from which everything else derives"
        ),
        ("drafting_config/runtime/vllm.py", RELEASE): (
            "vLLM's drop-ins (the torch code its runners run), part of vLLM's slice though "
            "in runtime/, where the layer contracts keep torch: it names the releases whose "
            "runners it mirrors"
        ),
        ("drafting_config/files/mask_embedding.py", RELEASE): (
            "the core's file reader cites the release whose loader it was checked against "
            "(the provenance of a fact, not a choice of release)"
        ),
        ("drafting_config/files/safetensors_headers.py", RELEASE): (
            "the core's file reader cites the release whose loader it was checked against "
            "(the provenance of a fact, not a choice of release)"
        ),
        ("tools/engine_wheels.py", RELEASE): (
            "each engine's wheel pin and functions, one file per engine once helper "
            "`refresh` splits it into tools/engines/ENGINE/"
        ),
        ("tools/engine_tables.py", RELEASE): (
            "the tables command's usage examples, split into tools/engines/ENGINE/ "
            "by helper `refresh`"
        ),
        ("tools/engine_tables.py", ENGINE_LIST): (
            "the tables command's engine dispatch, split into tools/engines/ENGINE/ "
            "by helper `refresh`"
        ),
        ("docs/runtime.md", RELEASE): (
            "the page of vLLM's drop-ins (drafting_config/runtime/vllm.py): which releases' "
            "runners they are byte-identical to is a fact of those releases"
        ),
        ("docs/contributing.md", RELEASE): (
            "the maintainers' guide: a release added as a worked example, and what the harness "
            "and the wheel tests measured per release (history); its release section is "
            "rewritten around `python -m tools.refresh` by helper `refresh`"
        ),
    }
)
"""The files outside every slice that may spell a release or an engine list, and why."""


def slices(engine: str) -> tuple[str, ...]:
    """The path prefixes of ``engine``'s slice, relative to the repository root."""
    return (
        f"drafting_config/engines/{engine}/",
        f"tools/engines/{engine}/",
        f"tools/{engine}_",
        f"tests/engines/{engine}/",
        f"tests/tools/test_{engine}_",
        f"docs/rules/{engine}.md",
    )


def releases() -> dict[str, str]:
    """Each shipped version, to its engine (``{VERSION: "vllm", ...}``)."""
    return {version: engine for engine, _, version in (name.partition("==") for name in RELEASES)}


def release_pattern() -> re.Pattern[str]:
    """A shipped version, not inside a longer version number."""
    versions = "|".join(re.escape(version) for version in releases())
    return re.compile(rf"(?<![\d.])(?:{versions})(?!\.?\d)")


def engine_list(node: ast.AST) -> bool:
    """Whether ``node`` is a literal list of two engines or more."""
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        items = node.elts
    elif isinstance(node, ast.Dict):
        items = [key for key in node.keys if key is not None]
    elif (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == "Literal"
    ):
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    else:
        return False
    names = [item.value for item in items if isinstance(item, ast.Constant)]
    if len(names) != len(items) or not all(isinstance(name, str) for name in names):
        return False
    engines = {str(name).partition("==")[0] for name in names}
    return engines - {"all"} <= set(ENGINES) and len(engines & set(ENGINES)) >= 2


def without_transcripts(text: str) -> str:
    """A Markdown document with each transcript's output blanked, line for line (it is
    generated: the lines after a ``$ drafting-config`` line of a text block, up to the next
    ``$`` line or the block's end, and the README's set-up block, as ``tools.transcripts``
    reads them)."""
    lines = text.splitlines()
    kept: list[str] = []
    fence: str | None = None
    output = False
    for number, line in enumerate(lines):
        if line.startswith("```"):
            fence = None if fence is not None else line.removeprefix("```")
            output = fence == "text" and number >= 5 and lines[number - 5] == SETUP_MARKER
        elif fence == "text" and line.startswith("$ "):
            output = line.startswith("$ drafting-config ")
        elif output:
            kept.append("")
            continue
        kept.append(line)
    return "\n".join(kept)


def twins_in(path: str, text: str) -> Iterator[str]:
    """Each release or engine list ``text`` (the file at ``path``, relative to the root)
    spells outside its slice, as ``path:line: what``."""
    own = {engine for engine in ENGINES if path.startswith(slices(engine))}
    if path.endswith(".md"):
        text = without_transcripts(text)
    owner = releases()
    for number, line in enumerate(text.splitlines(), start=1):
        for match in release_pattern().finditer(line):
            if owner[match.group()] not in own:
                yield f"{path}:{number}: {RELEASE} {owner[match.group()]} {match.group()}"
    if path.endswith(".py"):
        for node in ast.walk(ast.parse(text, filename=path)):
            if engine_list(node):
                yield f"{path}:{getattr(node, 'lineno', 0)}: {ENGINE_LIST} {ast.unparse(node)}"


def scanned(root: Path) -> Iterator[Path]:
    """The files the guard reads under ``root`` (a repository), in a stable order."""
    for folder in PYTHON_ROOTS:
        yield from sorted((root / folder).rglob("*.py"))
    for name in PROSE:
        path = root / name
        yield from sorted(path.rglob("*.md")) if path.is_dir() else [path]


def twins(root: Path) -> dict[str, list[str]]:
    """Every twin under ``root``, by file (relative to ``root``)."""
    found: dict[str, list[str]] = {}
    for path in scanned(root):
        if not path.is_file() or ".venv" in path.parts:
            continue
        relative = path.relative_to(root).as_posix()
        spelled = list(twins_in(relative, path.read_text(encoding="utf-8")))
        if spelled:
            found[relative] = spelled
    return found


def kind(twin: str) -> str:
    """What a twin of :func:`twins_in` spells: :data:`RELEASE` or :data:`ENGINE_LIST`."""
    return ENGINE_LIST if twin.split(": ", 1)[1].startswith(ENGINE_LIST) else RELEASE


def test_no_release_or_engine_list_is_spelled_outside_its_slice() -> None:
    found = twins(REPO)
    outside = [
        twin
        for path, spelled in found.items()
        for twin in spelled
        if (path, kind(twin)) not in ALLOWED
    ]
    assert outside == []


def test_each_allowed_file_still_needs_its_place() -> None:
    found = {(path, kind(twin)) for path, spelled in twins(REPO).items() for twin in spelled}
    assert [allowed for allowed in ALLOWED if allowed not in found] == []


# --- the guard's own tests: planted twins --------------------------------------------------------

NEWEST: Final = next(reversed(list(RELEASES)))
"""A shipped release, ``ENGINE==VERSION``, planted below."""
ENGINE, _, VERSION = NEWEST.partition("==")
OTHER: Final = next(engine for engine in ENGINES if engine != ENGINE)


@pytest.mark.parametrize(
    "planted",
    [
        f'DEFAULT = "{VERSION}"\n',
        f'check(draft, engine="{NEWEST}")\n',
        f"# judged as {ENGINE} {VERSION} judges it\n",
        f"ENGINES = {list(ENGINES)!r}\n",
        f"for engine in {tuple(ENGINES)!r}:\n    pass\n",
        f"pytest.mark.parametrize('engine', [*{list(ENGINES)!r}, 'all'])\n",
        f"ENGINE = Literal[{', '.join(repr(f'{e}==*') for e in ENGINES)}]\n",
    ],
)
def test_a_planted_twin_in_a_test_module_is_found(tmp_path: Path, planted: str) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_planted.py").write_text(planted, encoding="utf-8")
    assert list(twins(tmp_path)) == ["tests/test_planted.py"]


def test_a_release_in_its_own_slice_is_no_twin_and_in_another_engines_is() -> None:
    planted = f'RELEASE = "{NEWEST}"\n'
    for prefix in slices(ENGINE):
        assert list(twins_in(f"{prefix}module.py", planted)) == []
    assert list(twins_in(f"{slices(OTHER)[0]}module.py", planted)) != []


def test_a_release_in_a_transcripts_output_is_no_twin_and_in_prose_is() -> None:
    transcript = f"```text\n$ drafting-config check draft\n  {ENGINE} {VERSION}: serves\n```\n"
    assert list(twins_in("docs/page.md", transcript)) == []
    assert list(twins_in("docs/page.md", f"Checks for {ENGINE} {VERSION}.\n\n{transcript}")) == [
        f"docs/page.md:1: {RELEASE} {ENGINE} {VERSION}"
    ]


def test_a_longer_version_or_a_lone_engine_is_no_twin() -> None:
    text = f'x = "1{VERSION}", "{VERSION}1", "{VERSION}.1"\nengines = ["{ENGINE}", "all"]\n'
    assert list(twins_in("tests/test_x.py", text)) == []


def test_a_file_allowed_one_kind_of_twin_is_not_allowed_the_other() -> None:
    path = next(path for path, what in ALLOWED if what == RELEASE and path.endswith(".py"))
    (twin,) = twins_in(path, f"engines = {list(ENGINES)!r}\n")
    assert kind(twin) == ENGINE_LIST
    assert (path, kind(twin)) not in ALLOWED
