"""The helper that takes engine code from wheels (``tools/wheels.py``), on its own:
extraction from sources written here, and fetching through pip from a local folder, from
nowhere, or from a local server that never answers. No network: pip is pointed at a
folder or at 127.0.0.1."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
import threading
import time
import zipfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import pytest

from tools import wheels as engine_wheels
from tools.engines.sglang.functions import SGLANG
from tools.engines.vllm.functions import VLLM
from tools.wheels import (
    CACHE_ENV,
    MSGSPEC,
    REQUIRE_ENV,
    MissingStandIn,
    WheelSpec,
    WheelUnavailable,
    archive_problem,
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


@pytest.fixture(autouse=True)
def _no_silent_index_carried_over(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts as a fresh session would: no index remembered as silent."""
    monkeypatch.setattr(engine_wheels, "_silent_index", [])


def _truncated_copy(wheel: Path, into: Path) -> Path:
    into.mkdir(parents=True, exist_ok=True)
    broken = into / wheel.name
    broken.write_bytes(wheel.read_bytes()[: wheel.stat().st_size // 2])
    return broken


def test_a_whole_archive_passes_and_a_cut_or_foreign_one_is_named(tmp_path: Path) -> None:
    wheel = _fake_wheel(tmp_path / "good")
    assert archive_problem(wheel) is None
    assert "not a zip archive" in str(archive_problem(_truncated_copy(wheel, tmp_path / "cut")))
    (tmp_path / "text.whl").write_text("<html>an error page</html>")
    assert "not a zip archive" in str(archive_problem(tmp_path / "text.whl"))
    # The directory at the end survives, a member's data does not: cut from the middle.
    data = wheel.read_bytes()
    with zipfile.ZipFile(wheel) as archive:
        first = archive.infolist()[0]
    hole = first.header_offset + 40
    (tmp_path / "holed.whl").write_bytes(data[:hole] + data[hole + 20 :])
    assert archive_problem(tmp_path / "holed.whl") is not None


@pytest.mark.slow
def test_a_truncated_wheel_in_the_cache_is_fetched_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = _fake_wheel(tmp_path / "index")
    _pip_offline(monkeypatch, tmp_path / "index")
    cache = tmp_path / "cache"
    _truncated_copy(good, cache)
    wheel = fetch_wheel(FAKE, cache)
    assert wheel.path == cache / good.name
    assert wheel.source("fake_engine/__init__.py") == "VALUE = 1\n"


@pytest.mark.slow
def test_a_truncated_wheel_that_cannot_be_fetched_again_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = _fake_wheel(tmp_path / "built")
    (tmp_path / "empty").mkdir()
    _pip_offline(monkeypatch, tmp_path / "empty")
    broken = _truncated_copy(good, tmp_path / "cache")
    with pytest.raises(WheelUnavailable) as raised:
        fetch_wheel(FAKE, tmp_path / "cache")
    message = str(raised.value)
    assert f"the cached wheel {broken} is not a zip archive" in message
    assert "`pip download fake-engine==1.0` failed" in message
    assert not broken.exists()  # the next run fetches it, rather than tripping on it again


@pytest.fixture
def silent_index() -> Iterator[str]:
    """An index URL on 127.0.0.1 whose server accepts every connection and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            held.append(connection)  # read nothing, answer nothing

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}/simple/"
    stop.set()
    thread.join()
    for connection in held:
        connection.close()
    server.close()


HANG_GUARD = 90.0
"""Seconds: a guard against a stall (pip's defaults wait about 100 s per wheel on a silent
index), not a speed test; the bounded fetches take about 20 s in all."""


@pytest.mark.slow
def test_an_index_that_never_answers_costs_seconds_once_per_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, silent_index: str
) -> None:
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_INDEX_URL", silent_index)
    for name in ("PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_NO_INDEX"):
        monkeypatch.delenv(name, raising=False)
    for name in ("PIP_DEFAULT_TIMEOUT", "PIP_TIMEOUT", "PIP_RETRIES"):
        monkeypatch.delenv(name, raising=False)  # pip's own defaults, as on a fresh machine
    specs = [WheelSpec(f"fake-engine-{n}", "1.0") for n in range(3)]
    start = time.monotonic()
    reasons = []
    for spec in specs:
        with pytest.raises(WheelUnavailable) as raised:
            fetch_wheel(spec, tmp_path / "cache")
        reasons.append(str(raised.value))
        assert time.monotonic() - start < HANG_GUARD, reasons
    assert "timed out" in reasons[0].lower(), reasons[0]
    for later in reasons[1:]:
        assert "the index did not answer earlier in this session" in later, later


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


WITHOUT_WHEELS = (
    "tests/engines/sglang/test_wheel.py",
    "tests/engines/vllm/test_wheel_tables.py::test_class_ancestors_refuse_a_class_the_module_does_not_define",
)


def _pytest_without_an_index(
    tmp_path: Path, *args: str, require: bool
) -> subprocess.CompletedProcess[str]:
    """The suite's ``pytest`` on ``args``, with an empty wheel cache and no index."""
    (tmp_path / "empty").mkdir(exist_ok=True)
    env = {
        **os.environ,
        CACHE_ENV: str(tmp_path / "cache"),
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_NO_INDEX": "1",
        "PIP_INDEX_URL": "http://127.0.0.1:9/",
        "PIP_FIND_LINKS": str(tmp_path / "empty"),
    }
    env.pop("PIP_EXTRA_INDEX_URL", None)
    env.pop(REQUIRE_ENV, None)
    if require:
        env[REQUIRE_ENV] = "1"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rfs", "-q", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.slow
def test_the_wheel_tests_skip_with_the_reason_when_pip_cannot_fetch(tmp_path: Path) -> None:
    result = _pytest_without_an_index(tmp_path, *WITHOUT_WHEELS, require=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "10 skipped" in result.stdout, result.stdout
    for spec in (SGLANG, VLLM):
        assert (
            f"the {spec.requirement} wheel could not be fetched from the package index: "
            f"`pip download {spec.requirement}` failed" in result.stdout
        )


@pytest.mark.slow
def test_with_wheels_required_what_cannot_be_fetched_fails(tmp_path: Path) -> None:
    result = _pytest_without_an_index(tmp_path, *WITHOUT_WHEELS, require=True)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "10 errors" in result.stdout, result.stdout  # failed in the fixture, not skipped
    assert "skipped" not in result.stdout, result.stdout
    assert f"the {SGLANG.requirement} wheel could not be fetched from the package index" in (
        result.stdout
    )
    assert f"({REQUIRE_ENV}=1: required)" in result.stdout


def test_ci_requires_the_wheels() -> None:
    # .ci/run exports the variable before it runs the README's commands.
    script = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    lines = [line.strip() for line in script.splitlines()]
    assert f"export {REQUIRE_ENV}=1" in lines
    assert lines.index(f"export {REQUIRE_ENV}=1") < lines.index("for step in setup test; do")


FETCHING_MODULES = (
    "tests/tools/test_vllm_harness.py",  # the harness's environment
    "tests/tools/test_sglang_harness.py",  # the SGLang harness's environment
    "tests/engines/vllm/test_wheel.py",
    "tests/engines/vllm/test_wheel_tables.py",
    "tests/engines/vllm/test_tables.py",
    "tests/engines/sglang/test_wheel.py",
    "tests/engines/sglang/test_wheel_tables.py",
    "tests/engines/sglang/test_differential.py",
)
"""Every test module all of whose tests fetch from the package index at test time (an audit of
the suite: the wheel fixtures and the harness; the release and pre-commit modules mark only
their tests that fetch)."""


@pytest.mark.slow
def test_every_test_that_fetches_from_the_index_is_marked() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--collect-only",
            "-q",
            "-m",
            "not engine_wheels",
            *FETCHING_MODULES,
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    # pytest's "no tests collected" (5): every test of those modules is deselected.
    assert result.returncode == 5, result.stdout + result.stderr
    assert "deselected" in result.stdout, result.stdout


# --- what a wheel derives, cached by its hash ----------------------------------------------------


def test_a_derivation_runs_once_per_wheel_and_code_then_comes_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tools.wheels import derived

    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    wheel, code = tmp_path / "a.whl", tmp_path / "tables.py"
    wheel.write_bytes(b"one")
    code.write_text("# v1\n", encoding="utf-8")
    runs: list[int] = []

    def compute() -> dict[str, list[str]]:
        runs.append(1)
        return {"names": ["A", "B"], "count": [str(len(runs))]}

    first = derived("kind", [wheel], [code], compute)
    assert derived("kind", [wheel], [code], compute) == first
    assert len(runs) == 1
    code.write_text("# v2\n", encoding="utf-8")  # the deriving code changed: derive again
    assert derived("kind", [wheel], [code], compute)["count"] == ["2"]
    wheel.write_bytes(b"two, longer")  # another wheel: derive again
    assert derived("kind", [wheel], [code], compute)["count"] == ["3"]
    assert derived("other kind", [wheel], [code], compute)["count"] == ["4"]
    assert len(list((tmp_path / "cache" / "derived").glob("*.json"))) == 4
