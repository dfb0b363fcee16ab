"""The package as users install and import it."""

from __future__ import annotations

import ast
import inspect
import json
import subprocess
import sys

import pytest

import drafting_config
from tests.conftest import REPO


def imported_modules_after(statement: str) -> set[str]:
    code = f"import sys, json; {statement}; print(json.dumps(sorted(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    return set(json.loads(result.stdout))


@pytest.mark.slow
def test_import_loads_neither_torch_nor_transformers() -> None:
    # Importing the package runs none of its modules (the command's entry point relies on
    # it); its names load their modules on first use.
    bare = imported_modules_after("import drafting_config")
    assert {m for m in bare if m.startswith("drafting_config")} == {"drafting_config"}
    modules = imported_modules_after("from drafting_config import check, resolve, Verdict")
    assert "drafting_config.values.sources" in modules
    assert not {"torch", "transformers", "numpy"} & modules
    # The pydantic model is built on first use, not at import.
    assert "pydantic.main" not in modules
    used = imported_modules_after(
        "from drafting_config import ParallelDraftingConfig as P; "
        "P.from_hf_config({'pard_token': 1})"
    )
    assert "pydantic.main" in used
    assert not {"torch", "transformers", "numpy"} & used


def test_lazy_names_resolve_and_unknown_names_fail() -> None:
    from drafting_config.config import ParallelDraftingConfig

    assert drafting_config.ParallelDraftingConfig is ParallelDraftingConfig
    assert set(drafting_config.__all__) <= set(dir(drafting_config))
    with pytest.raises(AttributeError, match="no attribute 'ParallelDraftingConfg'"):
        _ = drafting_config.ParallelDraftingConfg  # type: ignore[attr-defined]


def test_every_public_name_is_exported_and_documented() -> None:
    assert sorted(drafting_config.__all__) == sorted(set(drafting_config.__all__))
    for name in drafting_config.__all__:
        obj = getattr(drafting_config, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert inspect.getdoc(obj), name
    assert inspect.getdoc(drafting_config)


def test_public_methods_are_documented() -> None:
    config_class = drafting_config.ParallelDraftingConfig
    for name in ("from_hf_config",):
        assert inspect.getdoc(getattr(config_class, name)), name
    for field in config_class.model_fields.values():
        assert field.description, field


def exported_names() -> dict[str, list[str]]:
    """Each module's ``__all__``, read from its source (no module is imported)."""
    found: dict[str, list[str]] = {}
    for path in sorted((REPO / "drafting_config").rglob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
            ):
                found[str(path.relative_to(REPO))] = list(ast.literal_eval(node.value))
    return found


def test_the_public_surface_is_what_the_docs_document() -> None:
    """At most 90 names across the package's ``__all__`` lists (132 before they were pruned),
    counting what the engine modules add; the subpackages' ``__init__`` export nothing."""
    exported = exported_names()
    assert sum(len(names) for names in exported.values()) <= 90, exported
    assert not [path for path in exported if path.endswith("/__init__.py") and path.count("/") > 1]


def test_package_is_marked_typed() -> None:
    assert (REPO / "drafting_config" / "py.typed").is_file()


def test_the_version_is_written_once_and_every_reader_agrees(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``__version__`` is the one place: pyproject takes it from there (a dynamic version),
    so the installed metadata and ``drafting-config --version`` say the same."""
    import importlib.metadata
    import re

    from drafting_config.command import main

    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    project = pyproject.split("\n[project]\n", 1)[1].split("\n[", 1)[0]
    assert re.search(r"^version\s*=", project, re.MULTILINE) is None
    assert re.search(r'^dynamic = \["version"\]', project, re.MULTILINE)
    assert re.search(
        r'^\[tool\.hatch\.version\]\npath = "drafting_config/__init__.py"$', pyproject, re.MULTILINE
    )
    assert importlib.metadata.version("drafting-config") == drafting_config.__version__
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"drafting-config {drafting_config.__version__}\n"
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"\n## [{drafting_config.__version__}] - " in changelog  # the release has its section
