"""The README's Layout section is true: every module is listed once, in its tier, and the
modules of the rules tier read no file and import no third-party package but pydantic."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "drafting_config"
RULES_TIER_HEADING = "**Rules and values**"
FILE_READING_CALLS = frozenset(
    {"open", "read_bytes", "read_text", "stat", "lstat", "fstat", "listdir", "scandir",
     "isfile", "isdir", "exists", "is_file", "is_dir", "load_config_json", "load"}
)  # fmt: skip
"""Names of calls that read files or probe the file system."""
MAY_READ = {"checkpoint_rules": {"isfile", "load"}}
"""The one exception the README names: ``mask_embedding.pt``, loaded with ``torch.load``."""


def _layout_tiers() -> dict[str, list[str]]:
    """Module paths listed under each bold tier heading of the README's Layout section."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    tiers: dict[str, list[str]] = {}
    heading = ""
    for line in section.splitlines():
        if line.startswith("**"):
            heading = line.split("**")[1]
        for path in re.findall(r"^\| `(drafting_config/[^`]+\.py)` \|", line):
            tiers.setdefault(heading, []).append(path)
    return tiers


def test_every_module_is_listed_once() -> None:
    listed = [path for paths in _layout_tiers().values() for path in paths]
    on_disk = sorted(
        str(path.relative_to(REPO))
        for path in PACKAGE.rglob("*.py")
        if path.name not in {"__init__.py", "__main__.py"}
    )
    assert sorted(listed) == on_disk


RULES_TIER = _layout_tiers()[RULES_TIER_HEADING.strip("*")]


def _called_names(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                names.add(func.id)
            elif isinstance(func, ast.Attribute):
                names.add(func.attr)
    return names


@pytest.mark.parametrize("path", RULES_TIER)
def test_the_rules_tier_reads_no_file(path: str) -> None:
    tree = ast.parse((REPO / path).read_text(encoding="utf-8"))
    module = Path(path).stem
    assert _called_names(tree) & FILE_READING_CALLS <= MAY_READ.get(module, set())


@pytest.mark.parametrize("path", RULES_TIER)
def test_the_rules_tier_imports_no_third_party_package_but_pydantic(path: str) -> None:
    tree = ast.parse((REPO / path).read_text(encoding="utf-8"))
    top_level: set[str] = set()
    for node in tree.body:  # module level only: a feature may import torch where it runs
        if isinstance(node, ast.Import):
            top_level.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            top_level.add(node.module.split(".")[0])
    third_party = top_level - set(sys.stdlib_module_names) - {"drafting_config", "__future__"}
    assert third_party <= {"pydantic", "typing_extensions"}
