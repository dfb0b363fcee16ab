"""The release as users get it: ``python -m build`` makes an sdist and a wheel of this
version, ``twine check`` accepts both, and the wheel, installed into a fresh virtual
environment with no extras, checks a bundled example from outside the source tree, so
a wheel that lost the engines' tables (package data) fails here.

The build runs offline (``--no-isolation``: hatchling comes from the dev extra), and so
does twine. The fresh environment needs the wheel's dependency, pydantic, from the package
index: that one test carries the ``engine_wheels`` marker.
"""

from __future__ import annotations

import email.parser
import os
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path
from typing import NamedTuple

import pytest

import drafting_config
from drafting_config.command import main
from drafting_config.engines.sglang.names import VERSION as SGLANG_VERSION
from drafting_config.engines.vllm.names import VERSION as VLLM_VERSION
from tests.conftest import EXAMPLES, REPO
from tests.package_index import PIP_PATIENCE, unavailable

pytestmark = pytest.mark.slow

EXAMPLE = EXAMPLES / "dflash-qwen3-4b"
"""A bundled draft that both engines serve."""


class Dist(NamedTuple):
    sdist: Path
    wheel: Path


def run(*argv: str | Path, cwd: Path = REPO, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(arg) for arg in argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, f"{argv}: exit {done.returncode}\n{done.stdout}{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Dist:
    """``python -m build`` of this checkout: the sdist, then the wheel built from it."""
    out = tmp_path_factory.mktemp("dist")
    run(sys.executable, "-m", "build", "--no-isolation", "--outdir", out, REPO)
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    return Dist(sdist, wheel)


def test_build_makes_an_sdist_and_a_wheel_of_this_version(dist: Dist) -> None:
    version = drafting_config.__version__
    assert dist.sdist.name == f"drafting_config-{version}.tar.gz"
    assert dist.wheel.name == f"drafting_config-{version}-py3-none-any.whl"
    with zipfile.ZipFile(dist.wheel) as wheel:
        metadata = wheel.read(f"drafting_config-{version}.dist-info/METADATA").decode()
    parsed = email.parser.Parser().parsestr(metadata)
    assert parsed["Name"] == "drafting-config"
    assert parsed["Version"] == version
    required = [r for r in parsed.get_all("Requires-Dist", []) if "extra ==" not in r]
    # pydantic, and tomli where Python has no tomllib (the settings table's reader).
    assert [r.replace(" ", "") for r in required] == [
        "pydantic<3,>=2.7",
        "tomli>=1.1;python_version<'3.11'",
    ]


def test_twine_accepts_both(dist: Dist) -> None:
    printed = run(sys.executable, "-m", "twine", "check", "--strict", dist.sdist, dist.wheel)
    assert printed.count("PASSED") == 2, printed


def test_the_wheel_carries_every_file_of_the_package(dist: Dist) -> None:
    package = REPO / "drafting_config"
    files = {
        path.relative_to(REPO).as_posix()
        for path in package.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    tables = f"drafting_config/engines/vllm/vllm-{VLLM_VERSION}.json"
    assert {"drafting_config/py.typed", tables} <= files
    with zipfile.ZipFile(dist.wheel) as wheel:
        assert files - set(wheel.namelist()) == set()


def test_the_sdist_carries_the_tests_and_what_they_read(dist: Dist) -> None:
    root = dist.sdist.name.removesuffix(".tar.gz")
    with tarfile.open(dist.sdist) as sdist:
        names = {name.removeprefix(f"{root}/") for name in sdist.getnames()}
    expected = {
        "pyproject.toml",
        "README.md",
        "LICENSE",
        "CHANGELOG.md",
        "mkdocs.yml",
        "action.yml",
        ".pre-commit-hooks.yaml",
        f"drafting_config/engines/sglang/sglang-{SGLANG_VERSION}.json",
        "tests/test_release.py",
        "examples/dflash-qwen3-4b/config.json",
        "docs/index.md",
    }
    assert expected - names == set()


@pytest.mark.engine_wheels
def test_the_wheel_installed_without_extras_checks_a_bundled_example(
    dist: Dist, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fresh = tmp_path / "fresh"
    venv.create(fresh, with_pip=True)
    python = fresh / "bin" / "python"
    env = {
        **{
            key: value
            for key, value in os.environ.items()
            if key not in {"PYTHONPATH", "VIRTUAL_ENV"}
        },
        "PATH": f"{fresh / 'bin'}{os.pathsep}{os.environ['PATH']}",
    }
    house = tmp_path / "wheelhouse"
    fetched = subprocess.run(
        [python, "-m", "pip", "download", *PIP_PATIENCE, "--dest", house, dist.wheel],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if fetched.returncode != 0:
        unavailable("the wheel's dependencies", fetched.stdout + fetched.stderr)
    # Only this step installs, from the wheelhouse alone: its failure is the wheel's.
    run(python, "-m", "pip", "install", "--no-index", "--find-links", house, dist.wheel, env=env)

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    where = run(
        python,
        "-c",
        "import importlib.util as u, drafting_config as d; "
        "print(d.__file__); print(*(bool(u.find_spec(m)) for m in "
        "('pydantic', 'torch', 'transformers', 'huggingface_hub')))",
        cwd=outside,
        env=env,
    ).splitlines()
    assert Path(where[0]).is_relative_to(fresh), where  # the installed wheel, not this tree
    assert where[1] == "True False False False"  # no extra came along

    argv = ["check", "--engine", "all", str(EXAMPLE / "config.json")]
    script = fresh / "bin" / "drafting-config"
    printed = run(script, *argv, cwd=outside, env=env)
    assert main(argv) == 0
    assert printed == capsys.readouterr().out  # what the development install prints
    assert printed.count(", token id 151669 from `dflash_config.mask_token_id`") == 2  # 2 engines
    version = run(script, "--version", cwd=outside, env=env)
    assert version == f"drafting-config {drafting_config.__version__}\n"
