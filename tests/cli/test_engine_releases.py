"""``--engine`` on the command line: the installed release and releases side by side
(issue 36, points 4 and 5).

An installed release the checker does not ship (a fake ``.dist-info``,
:mod:`tests.installed_engines`) is a coded warning in every output and fails ``--strict``;
``--engine`` is repeatable and takes ``vllm==*``, every shipped release.  Releases are
derived from :data:`~drafting_config.engines.RELEASES`, never spelt.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from drafting_config import check
from drafting_config.cli.run import EXIT_INVALID, EXIT_OK, EXIT_USAGE
from drafting_config.engines import ENGINE_NAMES, ENGINES, EVERY_RELEASE, RELEASES, EngineName
from drafting_config.values.codes import INSTALLED_RELEASE_UNKNOWN
from tests.conftest import EXAMPLES, run_cli
from tests.installed_engines import Install, fake_installs

DFLASH = EXAMPLES / "dflash-qwen3-4b"
BROKEN = EXAMPLES / "invalid" / "pard-token-as-string"
"""Refused by every vLLM release alike: `pard_token` is a string."""
NOT_SHIPPED = "99.0.0"
CODE = INSTALLED_RELEASE_UNKNOWN.name


@pytest.fixture
def install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Install]:
    yield from fake_installs(monkeypatch, tmp_path)


def releases_of(engine: EngineName) -> list[str]:
    """How the verdicts name ``engine``'s shipped releases, oldest first."""
    return [rules.ENGINE for name, rules in RELEASES.items() if name.startswith(f"{engine}==")]


def engine_lines(out: str) -> list[str]:
    """The engine lines of a text output (``  vllm VERSION: serves ...``), each engine's name."""
    names = {rules.ENGINE for rules in RELEASES.values()}
    return [
        line.split(":", 1)[0].strip()
        for line in out.splitlines()
        if line.startswith("  ")
        and not line.startswith("   ")
        and line.split(":", 1)[0].strip() in names
    ]


# --- the installed release, not shipped: a coded warning -------------------------------------


def test_an_unshipped_installed_release_is_a_warning_in_the_text_even_with_quiet(
    capsys: pytest.CaptureFixture[str], install: Install
) -> None:
    install("vllm", NOT_SHIPPED)
    run = run_cli(capsys, "check", "-q", "--no-tokenizer", DFLASH)
    assert run.status == EXIT_OK  # a warning passes
    newest = ENGINE_NAMES["vllm"]
    assert (
        f"  warning {CODE}: vllm {NOT_SHIPPED} is installed, a release the checker does not ship: "
        f"the verdict speaks for {newest}, the newest it ships"
    ) in run.lines
    assert engine_lines(run.out) == [newest]


def test_an_unshipped_installed_release_fails_strict(
    capsys: pytest.CaptureFixture[str], install: Install
) -> None:
    install("vllm", NOT_SHIPPED)
    run = run_cli(capsys, "check", "--strict", "--no-tokenizer", DFLASH)
    assert run.status == EXIT_INVALID
    assert run.lines[0].endswith("FAILED (--strict: warnings)")
    ignored = run_cli(capsys, "check", "--strict", "--no-tokenizer", "--ignore", CODE, DFLASH)
    assert ignored.status == EXIT_OK


def test_an_unshipped_installed_release_is_a_github_annotation(
    capsys: pytest.CaptureFixture[str], install: Install
) -> None:
    install("vllm", NOT_SHIPPED)
    run = run_cli(capsys, "check", "--format", "github", "--no-tokenizer", DFLASH)
    (annotation,) = (line for line in run.lines if line.startswith("::"))
    assert annotation.startswith(f"::warning file={DFLASH}/config.json,title={CODE}::")
    assert f"vllm {NOT_SHIPPED} is installed" in annotation
    strict = run_cli(capsys, "check", "--format", "github", "--strict", "--no-tokenizer", DFLASH)
    assert strict.lines[0].startswith(f"::error file={DFLASH}/config.json,title={CODE}::")


def test_an_unshipped_installed_release_is_a_json_finding(
    capsys: pytest.CaptureFixture[str], install: Install
) -> None:
    install("vllm", NOT_SHIPPED)
    (document,) = run_cli(capsys, "check", "--json", "--no-tokenizer", DFLASH).json
    (finding,) = (f for f in document["findings"] if f["code"] == CODE)
    assert finding["severity"] == "warning"
    assert finding["step"] == INSTALLED_RELEASE_UNKNOWN.step.value
    assert f"vllm {NOT_SHIPPED}" in finding["message"]
    assert ENGINE_NAMES["vllm"] in finding["message"]
    assert document["ok"] is True
    (strict,) = run_cli(capsys, "check", "--json", "--strict", "--no-tokenizer", DFLASH).json
    assert strict["ok"] is False
    assert strict["errors"][0]["code"] == CODE


def test_every_release_named_is_no_warning_whatever_is_installed(
    capsys: pytest.CaptureFixture[str], install: Install
) -> None:
    install("vllm", NOT_SHIPPED)
    run = run_cli(capsys, "check", "--strict", "--no-tokenizer", "--engine", "vllm==*", DFLASH)
    assert run.status == EXIT_OK
    assert CODE not in run.out


# --- releases side by side ---------------------------------------------------------------


def test_every_release_gives_one_line_per_release_and_a_summary_naming_each(
    capsys: pytest.CaptureFixture[str],
) -> None:
    run = run_cli(capsys, "check", "--no-tokenizer", "--engine", "vllm==*", DFLASH, BROKEN)
    vllm = releases_of("vllm")
    assert engine_lines(run.out) == vllm * 2
    releases = [name for name in RELEASES if name.startswith("vllm==")]
    served = [sum(check(draft, engine=name).ok for draft in (DFLASH, BROKEN)) for name in releases]
    serves = ", ".join(f"{name} serves {count}" for name, count in zip(vllm, served, strict=True))
    assert run.lines[-1] == (
        f"2 checked: 1 valid, 1 invalid ({serves}), 1 fixable with --fix"
        if len(vllm) > 1
        else f"2 checked with {vllm[0]}: 1 valid, 1 invalid, 1 fixable with --fix"
    )
    assert run.status == EXIT_INVALID


def test_a_finding_every_release_reports_alike_is_printed_once_untagged(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = json.loads((DFLASH / "config.json").read_text(encoding="utf-8"))
    config["dflash_config"]["mask_token_id"] = "151669"  # every release reads it, and refuses
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    run = run_cli(capsys, "check", "--no-tokenizer", "--engine", "vllm==*", tmp_path)
    errors = [line for line in run.lines if line.lstrip().startswith("error ")]
    assert len(errors) == 1
    assert errors[0].startswith("  error token-not-int [*] dflash_config.mask_token_id: ")


def test_every_release_of_each_engine_and_all(capsys: pytest.CaptureFixture[str]) -> None:
    every = [arg for pattern in EVERY_RELEASE for arg in ("--engine", pattern)]
    run = run_cli(capsys, "check", "--no-tokenizer", *every, DFLASH)
    assert engine_lines(run.out) == [rules.ENGINE for rules in RELEASES.values()]
    # `all` is still one verdict per engine, at its default release
    run = run_cli(capsys, "check", "--no-tokenizer", "--engine", "all", DFLASH)
    assert engine_lines(run.out) == list(ENGINE_NAMES.values())


def test_engines_given_in_any_order_or_twice_are_each_release_once_in_release_order(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["--engine", "sglang", "--engine", "vllm==*", "--engine", "all", "--engine", "vllm"]
    run = run_cli(capsys, "check", "--no-tokenizer", *args, DFLASH)
    assert engine_lines(run.out) == [*releases_of("vllm"), *releases_of("sglang")]


def test_every_release_as_json_is_one_object_per_release(
    capsys: pytest.CaptureFixture[str],
) -> None:
    documents = run_cli(
        capsys, "check", "--json", "--no-tokenizer", "--engine", "vllm==*", DFLASH, BROKEN
    ).json
    assert [d["engine"] for d in documents] == releases_of("vllm") * 2
    assert [d["path"] for d in documents] == [str(DFLASH)] * len(releases_of("vllm")) + [
        str(BROKEN)
    ] * len(releases_of("vllm"))


def test_explain_takes_every_release(capsys: pytest.CaptureFixture[str]) -> None:
    run = run_cli(capsys, "explain", "--no-tokenizer", "--engine", "vllm==*", DFLASH)
    assert engine_lines(run.out) == releases_of("vllm")
    assert sum(line.strip().startswith("rank ") for line in run.lines) == len(releases_of("vllm"))
    documents = run_cli(
        capsys, "explain", "--json", "--no-tokenizer", "--engine", "vllm==*", DFLASH
    ).json
    if len(releases_of("vllm")) > 1:
        assert [d["engine"] for d in documents] == releases_of("vllm")
        assert all(d["fields"] for d in documents)


def test_the_settings_table_takes_every_release(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    settings = tmp_path / "pyproject.toml"
    settings.write_text('[tool.drafting-config]\nengine = "vllm==*"\n', encoding="utf-8")
    run = run_cli(capsys, "check", "--config", settings, "--no-tokenizer", DFLASH)
    assert engine_lines(run.out) == releases_of("vllm")


@pytest.mark.parametrize(
    "value", ["vllm==0.0.1", "vlm==*", "sglang=*", "sglang==", "vllm==*,sglang==*", "VLLM"]
)
def test_an_engine_that_is_none_is_a_usage_error_naming_it_and_the_accepted_ones(
    capsys: pytest.CaptureFixture[str], value: str
) -> None:
    run = run_cli(capsys, "check", "--engine", "vllm==*", "--engine", value, DFLASH)
    assert run.status == EXIT_USAGE
    assert run.out == ""
    (message,) = (line for line in run.err.splitlines() if "invalid choice" in line)
    assert "--engine" in message
    assert repr(value) in message
    for accepted in (*ENGINES, *RELEASES, *EVERY_RELEASE, "all"):
        assert accepted in message
