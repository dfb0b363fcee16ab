"""The helper that takes engine code from wheels (``tests/engine_wheels.py``), on its own:
extraction from sources written here, and fetching through pip from a local folder or
from nowhere. No network: pip is pointed at a folder or at an unreachable index."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.engine_wheels import (
    CACHE_ENV,
    MSGSPEC,
    MissingStandIn,
    WheelSpec,
    WheelUnavailable,
    extract,
    fetch_wheel,
)

REPO = Path(__file__).resolve().parent.parent.parent

SOURCE = textwrap.dedent(
    """
    from __future__ import annotations

    import json
    from dataclasses import dataclass
    from typing import Optional

    import torch
    import msgspec
    from engine.helpers import helper

    LIMIT = 10
    UNUSED = torch.zeros(3)


    def _clamp(value):
        return min(value, LIMIT)


    def clamp_all(values):
        return [_clamp(value) for value in values]


    def uses_torch(flag):
        if flag:
            return torch.empty(1)
        return json.dumps({"flag": flag})


    def uses_helper(value):
        return helper(value)


    def imports_late(value):
        from engine.late import double

        return double(value)


    @dataclass(frozen=True)
    class Point:
        x: int
        y: Optional[SomeUnknownType] = None


    class Settings(msgspec.Struct, kw_only=True):
        size: int = 1
        name: Optional[str] = None


    class Runner:
        @classmethod
        def build(cls, value):
            return cls, _clamp(value)

        def layers(self):
            return self.config.layers
    """
)


def test_named_functions_come_with_what_they_use_and_nothing_else() -> None:
    namespace = extract(SOURCE, ["clamp_all"])
    assert namespace["clamp_all"]([3, 30]) == [3, 10]
    assert "UNUSED" not in namespace  # never needed: torch.zeros never runs


def test_a_name_without_stand_in_fails_only_when_used() -> None:
    namespace = extract(SOURCE, ["uses_torch"])
    assert namespace["uses_torch"](False) == '{"flag": false}'  # json: the real stdlib
    with pytest.raises(MissingStandIn, match="`torch`"):
        namespace["uses_torch"](True)


def test_stand_ins_replace_globals_and_modules_at_definition_and_call_time() -> None:
    helper_module = SimpleNamespace(helper=lambda value: value + 1)
    late_module = SimpleNamespace(double=lambda value: 2 * value)
    namespace = extract(
        SOURCE,
        ["uses_helper", "imports_late"],
        modules={"engine.helpers": helper_module, "engine.late": late_module},
    )
    assert namespace["uses_helper"](1) == 2
    assert namespace["imports_late"](4) == 8
    namespace = extract(SOURCE, ["uses_helper"], stand_ins={"helper": lambda value: -value})
    assert namespace["uses_helper"](1) == -1
    with pytest.raises(MissingStandIn, match=r"engine\.late"):
        extract(SOURCE, ["imports_late"])["imports_late"](1)


def test_classes_dataclasses_structs_and_methods() -> None:
    namespace = extract(
        SOURCE, ["Point", "Settings", "Runner.build", "Runner.layers"], modules={"msgspec": MSGSPEC}
    )
    assert namespace["Point"](1).x == 1  # annotations stay strings: no SomeUnknownType needed
    settings = namespace["Settings"](name="a")
    assert (settings.size, settings.name) == (1, "a")
    with pytest.raises(TypeError):
        namespace["Settings"](colour="red")
    assert namespace["Runner.build"]("cls", 30) == ("cls", 10)  # cls is the first argument
    assert namespace["Runner.layers"](SimpleNamespace(config=SimpleNamespace(layers=[1]))) == [1]


def test_an_unknown_name_is_refused() -> None:
    with pytest.raises(KeyError, match="missing_function"):
        extract(SOURCE, ["missing_function"])
    with pytest.raises(KeyError, match=r"Runner\.absent"):
        extract(SOURCE, ["Runner.absent"])


# --- fetching ---------------------------------------------------------------------------------

FAKE = WheelSpec("fake-engine", "1.0")


def _fake_wheel(folder: Path) -> Path:
    """A minimal valid wheel for pip to find in a local folder."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "fake_engine-1.0-py3-none-any.whl"
    info = "fake_engine-1.0.dist-info"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("fake_engine/__init__.py", "VALUE = 1\n")
        archive.writestr(
            f"{info}/METADATA", "Metadata-Version: 2.1\nName: fake-engine\nVersion: 1.0\n"
        )
        archive.writestr(
            f"{info}/WHEEL",
            "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        )
        archive.writestr(f"{info}/RECORD", "")
    return path


def _pip_offline(monkeypatch: pytest.MonkeyPatch, find_links: Path) -> None:
    """pip with no configuration file, no index, and only ``find_links`` to look in."""
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/")
    monkeypatch.setenv("PIP_FIND_LINKS", str(find_links))
    monkeypatch.delenv("PIP_EXTRA_INDEX_URL", raising=False)


@pytest.mark.slow
def test_a_wheel_is_downloaded_once_even_by_racing_fetches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_wheel(tmp_path / "index")
    _pip_offline(monkeypatch, tmp_path / "index")
    cache = tmp_path / "cache"
    with ThreadPoolExecutor(max_workers=3) as pool:
        wheels = list(pool.map(lambda _: fetch_wheel(FAKE, cache), range(3)))
    assert {wheel.path for wheel in wheels} == {cache / "fake_engine-1.0-py3-none-any.whl"}
    assert sorted(path.name for path in cache.iterdir() if not path.name.endswith(".lock")) == [
        "fake_engine-1.0-py3-none-any.whl"
    ]  # no private download folder is left behind
    assert wheels[0].source("fake_engine/__init__.py") == "VALUE = 1\n"
    (tmp_path / "index" / "fake_engine-1.0-py3-none-any.whl").unlink()
    assert fetch_wheel(FAKE, cache).path == wheels[0].path  # from the cache: pip not asked


@pytest.mark.slow
def test_without_an_index_fetching_fails_saying_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _pip_offline(monkeypatch, tmp_path / "empty")
    (tmp_path / "empty").mkdir()
    with pytest.raises(WheelUnavailable, match=r"`pip download fake-engine==1\.0` failed"):
        fetch_wheel(FAKE, tmp_path / "cache")


@pytest.mark.slow
def test_the_wheel_tests_skip_with_the_reason_when_pip_cannot_fetch(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    env = {
        **os.environ,
        CACHE_ENV: str(tmp_path / "cache"),
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_NO_INDEX": "1",
        "PIP_INDEX_URL": "http://127.0.0.1:9/",
        "PIP_FIND_LINKS": str(tmp_path / "empty"),
    }
    env.pop("PIP_EXTRA_INDEX_URL", None)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-rs",
            "-q",
            "tests/engines/sglang/test_wheel.py",
            "tests/engines/vllm/test_wheel_tables.py::test_class_ancestors_refuse_a_class_the_module_does_not_define",
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "10 skipped" in result.stdout, result.stdout
    assert "no sglang==0.5.23 wheel: `pip download sglang==0.5.23` failed" in result.stdout
    assert "no vllm==0.33.0 wheel: `pip download vllm==0.33.0` failed" in result.stdout
