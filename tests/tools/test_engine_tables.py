"""The maintainers' command (``tools/engine_tables.py``) and the pieces of it that need no
engine wheel: the transformers range read from a wheel's metadata, the releases in it, and
the command line. The tables themselves are compared with the shipped files by the
``engine_wheels`` tests (``tests/engines/vllm/test_tables.py``)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from drafting_config.engines import RELEASES
from drafting_config.engines.sglang.names import VERSIONS as SGLANG_VERSIONS
from drafting_config.engines.vllm.names import VERSIONS
from tools import engine_tables
from tools.engines.sglang import tables as sglang_tables
from tools.engines.vllm import tables as vllm_tables
from tools.wheels import WheelSpec, WheelUnavailable, requirement_of


def _wheel_requiring(folder: Path, *requires: str) -> Path:
    path = folder / "engine-1.0-py3-none-any.whl"
    metadata = "Metadata-Version: 2.1\nName: engine\nVersion: 1.0\n" + "".join(
        f"Requires-Dist: {line}\n" for line in requires
    )
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("engine-1.0.dist-info/METADATA", metadata)
    return path


def test_the_transformers_range_is_read_from_the_wheel_lower_bound_first(tmp_path: Path) -> None:
    wheel = _wheel_requiring(
        tmp_path,
        "torch==2.13.0",
        "transformers<5.20.0,>=5.16.1",
        "transformers>=6; extra == 'next'",  # an extra's requirement is not the wheel's
    )
    assert requirement_of(wheel, "transformers") == ">=5.16.1,<5.20.0"
    assert requirement_of(wheel, "torch") == "==2.13.0"
    with pytest.raises(KeyError, match="does not require pydantic"):
        requirement_of(wheel, "pydantic")


def test_the_transformers_releases_are_those_in_the_range_oldest_first() -> None:
    listed = ["5.21.0", "5.20.2", "5.19.0", "5.16.1", "5.16.0", "5.20.0rc1", "4.57.6"]
    assert engine_tables.in_range(listed, ">=5.16.1,<5.21.0") == [
        "5.16.1",
        "5.19.0",
        "5.20.2",
    ]


def test_a_range_no_release_satisfies_is_refused(tmp_path: Path) -> None:
    wheel = _wheel_requiring(tmp_path, "transformers>=9")

    def fetch(spec: WheelSpec) -> Path:
        assert spec.name == "vllm"  # no transformers wheel is asked for
        return wheel

    with pytest.raises(WheelUnavailable, match=r"no transformers release in vLLM 1\.0's range"):
        vllm_tables.documents("1.0", fetch, lambda _: ["5.19.0"])


def test_sglang_must_pin_one_transformers_release(tmp_path: Path) -> None:
    wheel = _wheel_requiring(tmp_path, "transformers>=5.19")
    with pytest.raises(WheelUnavailable, match="not one release"):
        sglang_tables.documents("1.0", lambda _: wheel)


def test_the_command_writes_the_package_s_files_in_each_engine_s_folder() -> None:
    assert engine_tables.data_file("vllm", "1.2.3") == Path("vllm/vllm-1.2.3.json")
    for engine, _, version in (release.partition("==") for release in RELEASES):
        assert (engine_tables.PACKAGE_DATA / engine_tables.data_file(engine, version)).is_file()
    assert (engine_tables.PACKAGE_DATA / engine_tables.TRANSFORMERS_FILE).is_file()
    assert engine_tables.shipped_versions("vllm") == list(VERSIONS)
    assert engine_tables.shipped_versions("sglang") == list(SGLANG_VERSIONS)


def test_the_command_says_why_it_cannot_fetch(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def unavailable(spec: WheelSpec) -> Path:
        raise WheelUnavailable(f"`pip download {spec.requirement}` failed (exit 1): no index")

    monkeypatch.setattr(engine_tables, "_fetch", unavailable)
    status = engine_tables.main(["vllm", VERSIONS[0], "--output", str(tmp_path / "out.json")])
    assert status == 1
    assert capsys.readouterr().err == (
        f"python -m tools.engine_tables: `pip download vllm=={VERSIONS[0]}` failed (exit 1): "
        "no index\n"
    )
    assert not (tmp_path / "out.json").exists()


def test_the_command_refuses_an_unknown_engine(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as raised:
        engine_tables.main(["tgi", "1.0"])
    assert raised.value.code == 2
    assert "invalid choice: 'tgi'" in capsys.readouterr().err
