"""``python -m tools.refresh ENGINE VERSION``, its pieces without a network or an engine: the
pins re-resolved against a fake wheel's ``Requires-Dist``, the message where a pin needs a
maintainer's choice, the readings written per release, the steps in order."""

from __future__ import annotations

import dataclasses
import json
import zipfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from tools import engines, refresh
from tools.engines import EngineTools, engine_tools
from tools.engines.vllm.harness import environment, readings
from tools.harness.corpus import CASES
from tools.refresh import Choices, PinChoiceNeeded, read_choices, resolve_pins

BASE = "Jinja2==3.1.6\nregex==2026.11.19\ntransformers==5.20.2\nvllm==1.0.0\n"
REQUIRES = [
    "regex",
    "transformers<5.23.0,>=5.16.1",
    "jinja2>=3",
    "torch==2.14.0",  # the CUDA stack: left out by a choice
    'protobuf==7.36.1; platform_machine == "s390x"',  # not the harness's platform
    'six>=1.16.0; python_version > "3.11"',  # not the harness's Python
    'pandas; extra == "bench"',  # an extra
]
LEAVE_TORCH = Choices(leave=frozenset({"torch"}))


def resolve(requires: Sequence[str] = REQUIRES, choices: Choices = LEAVE_TORCH) -> str:
    return resolve_pins(BASE, requires, distribution="vllm", version="2.0.0", choices=choices)


def test_pins_the_wheel_accepts_stay_byte_for_byte_and_the_engine_pin_moves() -> None:
    assert resolve() == BASE.replace("vllm==1.0.0", "vllm==2.0.0")


def test_the_same_release_re_resolved_changes_nothing() -> None:
    same = resolve_pins(BASE, REQUIRES, distribution="vllm", version="1.0.0", choices=LEAVE_TORCH)
    assert same == BASE


def test_a_new_requirement_stops_and_names_the_package_and_the_choices_file() -> None:
    with pytest.raises(PinChoiceNeeded) as stopped:
        resolve([*REQUIRES, "lark==1.2.2"])
    message = str(stopped.value)
    assert "need a maintainer's choice" in message
    assert "lark: vllm 2.0.0 requires lark ==1.2.2, which the pins lack" in message
    assert "`pin lark==VERSION`" in message
    assert "`leave lark` to pins.in" in message


def test_a_pin_the_wheel_no_longer_accepts_stops_with_the_pin_it_has() -> None:
    with pytest.raises(
        PinChoiceNeeded,
        match=r"transformers: vllm 2\.0\.0 requires transformers "
        r"<5\.22,>=5\.21, the pins say 5\.20\.2: add `pin transformers==VERSION "
        r"for 2\.0\.0`",
    ):
        resolve(["transformers>=5.21,<5.22", "torch"])


def test_every_problem_is_listed_at_once() -> None:
    with pytest.raises(PinChoiceNeeded) as stopped:
        resolve(["transformers>=6", "lark"])
    assert str(stopped.value).count("\n  ") == 2


def test_a_recorded_choice_decides_and_a_pin_for_one_release_holds_for_it_only() -> None:
    choices = read_choices(
        "# why\nleave torch\npin transformers==5.22.0 for 2.0.0\npin lark==1.2.2  # chosen\n"
    )
    text = resolve(["transformers>=5.21,<5.23", "torch", "lark"], choices)
    assert text == (
        "Jinja2==3.1.6\nlark==1.2.2\nregex==2026.11.19\ntransformers==5.22.0\nvllm==2.0.0\n"
    )
    with pytest.raises(PinChoiceNeeded, match="transformers"):
        resolve_pins(
            BASE, ["transformers>=5.21"], distribution="vllm", version="3.0.0", choices=choices
        )


def test_a_choices_line_of_another_shape_is_refused_by_its_line() -> None:
    with pytest.raises(ValueError, match=r"pins\.in:2: 'keep torch' is neither"):
        read_choices("leave torch\nkeep torch\n")


def test_the_harnesses_own_choices_files_read() -> None:
    for row in engine_tools().values():
        choices = read_choices(row.choices.read_text(encoding="utf-8"), str(row.choices))
        assert "torch" in choices.leave


def test_a_new_release_starts_from_the_newest_older_file(tmp_path: Path) -> None:
    for version in ("0.9.0", "1.0.0", "1.10.0"):
        (tmp_path / f"{version}.txt").write_text("", encoding="utf-8")
    assert refresh.base_requirements(tmp_path / "1.2.0.txt", "1.2.0") == tmp_path / "1.0.0.txt"
    assert refresh.base_requirements(tmp_path / "1.10.0.txt", "1.10.0") == (tmp_path / "1.10.0.txt")
    assert refresh.base_requirements(tmp_path / "0.1.0.txt", "0.1.0") == tmp_path / "0.9.0.txt"


def _wheel(folder: Path, requires: Iterable[str]) -> Path:
    wheel = folder / "vllm-2.0.0-cp38-abi3-manylinux_2_28_x86_64.whl"
    metadata = "Metadata-Version: 2.1\nName: vllm\nVersion: 2.0.0\n" + "".join(
        f"Requires-Dist: {line}\n" for line in requires
    )
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("vllm-2.0.0.dist-info/METADATA", metadata)
    return wheel


@pytest.fixture
def fake_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> EngineTools:
    folder = tmp_path / "requirements"
    folder.mkdir()
    (folder / "1.0.0.txt").write_text(BASE, encoding="utf-8")
    (folder / "pins.in").write_text("leave torch\n", encoding="utf-8")
    row = dataclasses.replace(
        engine_tools()["vllm"],
        requirements=lambda release: folder / f"{release}.txt",
        pinned=lambda release: f"vllm=={release}",
        choices=folder / "pins.in",
    )
    monkeypatch.setattr(engines, "engine_tools", lambda: {"vllm": row})
    monkeypatch.setattr(refresh, "REPO", tmp_path)
    return row


def test_write_pins_writes_the_new_release_s_file_from_the_wheel(
    tmp_path: Path, fake_row: EngineTools
) -> None:
    wheel = _wheel(tmp_path, REQUIRES)
    written = refresh.write_pins("vllm", "2.0.0", fetch=lambda name, version: wheel)
    assert written == tmp_path / "requirements" / "2.0.0.txt"
    assert written.read_text(encoding="utf-8") == BASE.replace("1.0.0", "2.0.0")


def test_the_command_stops_with_the_message_and_exit_status_2(
    tmp_path: Path,
    fake_row: EngineTools,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    wheel = _wheel(tmp_path, [*REQUIRES, "lark"])
    monkeypatch.setattr(refresh, "fetch_wheel_path", lambda name, version: wheel)
    monkeypatch.setattr("tools.engine_tables.write_tables", lambda engine, version: [])
    assert refresh.main(["vllm", "2.0.0"]) == 2
    err = capsys.readouterr().err
    assert "python -m tools.refresh: the pins of vllm 2.0.0 need a maintainer's choice" in err
    assert "`leave lark` to requirements/pins.in" in err
    assert not (tmp_path / "requirements" / "2.0.0.txt").exists()


def test_the_steps_run_in_order_and_the_harness_records_the_release(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    release = environment.RELEASES[-1]
    ran: list[str] = []
    row = dataclasses.replace(
        engine_tools()["vllm"],
        record=lambda version, timeout, only: ran.append(f"readings {version}"),
    )
    monkeypatch.setattr(engines, "engine_tools", lambda: {"vllm": row})
    monkeypatch.setattr("tools.engine_tables.write_tables", lambda e, v: ran.append("tables"))
    monkeypatch.setattr(refresh, "write_pins", lambda e, v: ran.append("pins"))
    monkeypatch.setattr(refresh, "_run", ran.append)
    timings = refresh.refresh("vllm", release)
    assert ran == [
        "tables",
        "pins",
        f"readings {release}",
        "tools.transcripts",
        "tools.compatibility",
    ]
    assert list(timings) == ["tables", "pins", "readings", "transcripts", "compatibility"]


def test_a_release_the_package_does_not_name_yet_stops_after_its_pins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ran: list[str] = []
    monkeypatch.setattr("tools.engine_tables.write_tables", lambda e, v: ran.append("tables"))
    monkeypatch.setattr(refresh, "write_pins", lambda e, v: ran.append("pins"))
    with pytest.raises(ValueError, match=r"add vllm==9\.9\.9 to Release in .*vllm/names\.py"):
        refresh.refresh("vllm", "9.9.9")
    assert ran == ["tables", "pins"]


def test_the_readings_of_a_release_are_written_run_by_run_beside_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = environment.RELEASES[-1]
    other = {"9.0.0": [{"draft": "kept", "mode": {"method": "dflash"}}]}
    file = tmp_path / "vllm_readings.json"
    file.write_text(json.dumps({"readings": [], "engine_runs": other}), encoding="utf-8")
    monkeypatch.setattr(readings, "READINGS_FILE", file)
    written: list[int] = []

    def fake_run_many(requests: Iterable[Any], **_: Any) -> Iterator[dict[str, Any]]:
        results: list[dict[str, Any]] = [
            {"outcome": "passed", "stages_passed": ["config", "speculator"]},
            # The harness stopped this run: a partial reading, at the stage it reached.
            {
                "outcome": "failed",
                "failed_stage": "target",
                "stages_passed": ["config", "speculator"],
                "exception": {"type": "TimeoutError", "message": "no report in 300 s"},
            },
        ]
        for _, result in zip(requests, results, strict=False):
            written.append(len(json.loads(file.read_text())["engine_runs"].get(release, [])))
            yield result

    monkeypatch.setattr(readings, "run_many", fake_run_many)
    case = next(case for case in CASES if len(case.modes) == 2)
    readings.record([case], timeout=1.0, release=release)
    document = json.loads(file.read_text(encoding="utf-8"))
    runs = document["engine_runs"][release]
    assert [run["stage_reached"] for run in runs] == ["speculator", "target"]
    assert runs[1]["outcome"] == "failed"
    assert runs[1]["inputs"]["environment"] == environment.environment_key(release)
    assert document["engine_runs"]["9.0.0"] == other["9.0.0"]
    assert written == [0, 1]  # each reading on disk before the next run
