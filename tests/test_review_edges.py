"""The edges an adversarial review found broken (issue 17): each test fails without its fix.

Grouped as the review grouped them: check() never raises and sweeps keep their
verdicts; errors say what to change in the file the user has; the documented
promises; the masked-slot layouts; start-up and signals.
"""

from __future__ import annotations

import importlib
import importlib.abc
import io
import json
import multiprocessing
import os
import pickle
import re
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from types import SimpleNamespace
from typing import Any, NoReturn

import pytest

from drafting_config import Verdict, check
from drafting_config.cli.render import verdict_json
from drafting_config.cli.run import main
from drafting_config.files.json_files import ConfigFileError
from drafting_config.files.repo_ids import MissingExtraError, RepoNotCachedError
from drafting_config.values.fields import MISSING
from tests.conftest import REPO
from tests.fake_cache import use_cache, write_cached_repo
from tests.tokenizer_factory import write_qwen3_like

DFLASH = "examples/dflash-qwen3-4b"
SPECULATORS = "examples/speculators-dflash-qwen3-8b"


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run from the repository root, with an empty Hugging Face cache of our own."""
    monkeypatch.chdir(REPO)
    return use_cache(tmp_path / "hf-cache", monkeypatch)


@pytest.fixture
def cache(_isolated: Path) -> Path:
    """The test's own, empty Hugging Face cache."""
    return _isolated


def run_cli(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    status = main([os.fspath(arg) for arg in args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def speculators_config(**top: object) -> dict[str, Any]:
    """The bundled speculators DFlash example, with top-level keys replaced."""
    data: dict[str, Any] = json.loads((REPO / SPECULATORS / "config.json").read_text())
    for key, value in top.items():
        if value is KeyError:
            data.pop(key, None)
        else:
            data[key] = value
    return data


# ------------------------------------------------ 4: the speculators field the file lacks


@pytest.mark.parametrize("algorithm", ["dflash", "dspark"])
@pytest.mark.parametrize("mask", [KeyError, None], ids=["missing", "null"])
def test_a_speculators_draft_without_a_mask_id_is_told_to_set_mask_token_id(
    algorithm: str, mask: object
) -> None:
    config = speculators_config(speculators_model_type=algorithm, mask_token_id=mask)
    verdict = check(config, check_tokenizer=False)
    assert not verdict.ok
    first = verdict.errors[0]
    assert first.field == "mask_token_id"
    assert "`mask_token_id`" in str(first)
    assert "pard_token" not in str(first)


# ------------------------------------------------ 5: --strict --json says why ok is false


def test_strict_json_lists_the_warnings_that_failed_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    draft = tmp_path / "draft"
    draft.mkdir()
    config = {"pard_token": 2, "pad_token_id": 2, "vocab_size": 100}  # a placeholder warning
    (draft / "config.json").write_text(json.dumps(config))
    status, out, _ = run_cli(capsys, "check", "--json", "--strict", "--no-tokenizer", draft)
    (item,) = json.loads(out)
    assert status == 1
    assert item["ok"] is False
    assert (item["token_id"], item["source"]) == (2, "pard_token")
    assert item["warnings"]
    assert item["errors"] == [
        {"field": None, "message": f"--strict: {warning}"} for warning in item["warnings"]
    ]
    assert item["error"] == item["errors"][0]["message"]
    # Without --strict the same draft passes, and nothing is listed as an error.
    status, out, _ = run_cli(capsys, "check", "--json", "--no-tokenizer", draft)
    (item,) = json.loads(out)
    assert (status, item["ok"], item["errors"], item["error"]) == (0, True, [], None)


# ------------------------------------------------ 6: explain --json is strict JSON


def strict_json(text: str) -> Any:
    def refuse(constant: str) -> None:
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity"])
def test_explain_json_renders_non_finite_values_as_strings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    draft = tmp_path / "draft"
    draft.mkdir()
    (draft / "config.json").write_text(
        f'{{"pard_token": {value}, "mask_token_id": 5, "vocab_size": 100}}'
    )
    status, out, _ = run_cli(capsys, "explain", "--json", "--no-tokenizer", draft)
    document = strict_json(out)
    (pard,) = [row for row in document["fields"] if row["field"] == "pard_token"]
    assert pard["value"] == value
    assert pard["status"] == "invalid"
    assert status == 1  # the config is still read, and the float still refused


# ------------------------------------------------ 9: the CLI names the inner path


def test_cli_names_a_config_json_that_is_a_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "model" / "config.json").mkdir(parents=True)
    status, out, _ = run_cli(capsys, "check", tmp_path / "model")
    assert status == 1
    assert out.splitlines()[0] == (
        f"{tmp_path / 'model'}: INVALID: {tmp_path / 'model' / 'config.json'}: "
        "this is a directory; expected a config.json file."
    )
    status, out, _ = run_cli(capsys, "check", "--json", tmp_path / "model")
    (item,) = json.loads(out)
    assert item["error"] == (
        f"{tmp_path / 'model' / 'config.json'}: this is a directory; expected a config.json file."
    )


# ------------------------------------------------ 14: config objects say the tokenizer was skipped


def test_a_config_object_against_a_config_object_target_notes_the_tokenizer() -> None:
    draft = {"dflash_config": {"mask_token_id": 151669}, "vocab_size": 151936}
    target = SimpleNamespace(vocab_size=151936, hidden_size=2560, num_hidden_layers=36)
    verdict = check(draft, target=target)
    assert verdict.ok
    assert [n for n in verdict.notes if n.startswith("tokenizer not checked: ")] == [
        "tokenizer not checked: a config object has no directory to look in; pass tokenizer=DIR"
    ]
    assert check(draft, target=target, check_tokenizer=False).notes == ()


# ------------------------------------------------ 3: every verdict pickles, through spawn


def verdict_facts(verdict: Verdict) -> dict[str, object]:
    """Everything a verdict says, in plain values (exceptions compare by identity)."""
    resolution = verdict.resolution
    return {
        "json": verdict_json(verdict),
        "strict": verdict_json(verdict, strict=True),
        "errors": [(type(e), e.field, str(e)) for e in verdict.errors],
        "warnings": [(type(w), str(w)) for w in verdict.warnings],
        "fields": None
        if resolution is None
        else [(f.source, f.status, f.value is MISSING, repr(f.value)) for f in resolution.fields],
        "speculators": None if resolution is None else resolution.speculators,
        "token": verdict.token,
    }


def every_kind_of_draft(tmp_path: Path) -> list[tuple[object, dict[str, Any]]]:
    warned = {"pard_token": 2, "pad_token_id": 2, "vocab_size": 100}
    return [
        (DFLASH, {}),  # Hugging Face format
        (SPECULATORS, {}),  # speculators format, its verifier not cached: a note
        (SPECULATORS, {"target": "examples/pair-qwen3-4b/target"}),
        ("examples/invalid/pard-token-as-string/config.json", {}),  # invalid
        (warned, {}),  # with warnings, a config object
        ("examples/pair-qwen3-4b/draft", {"target": "examples/pair-qwen3-4b/target"}),
        (
            "examples/pair-qwen3-8b-drafter-llama3-target/draft",
            {"target": "examples/pair-qwen3-8b-drafter-llama3-target/target"},
        ),
        (str(tmp_path / "missing"), {}),  # unreadable
        ("acme/not-cached", {}),  # a repo id that is not cached
        ("org/bad name", {}),  # a malformed repo id
        (speculators_config(mask_token_id=None), {"check_tokenizer": False}),
    ]


def check_one(draft: object, options: dict[str, Any]) -> Verdict:
    return check(draft, **options)


@pytest.mark.slow
def test_every_kind_of_verdict_survives_a_spawn_process_pool(tmp_path: Path) -> None:
    cases = every_kind_of_draft(tmp_path)
    here = [check(draft, **options) for draft, options in cases]
    assert any(v.resolution and v.resolution.speculators for v in here)
    assert all(any(getattr(v, name) for v in here) for name in ("warnings", "token", "target"))
    assert not all(v.ok for v in here)
    for verdict in here:
        assert verdict_facts(pickle.loads(pickle.dumps(verdict))) == verdict_facts(verdict)
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        there = list(pool.map(check_one, *zip(*cases, strict=True)))
    assert [verdict_facts(v) for v in there] == [verdict_facts(v) for v in here]


# ------------------------------------------------ 19: a missing path is a missing path


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("my models/draft", "ORG may only hold letters, digits, '-', '_' and '.'"),
        ("org/bad name", "NAME may only hold letters, digits, '-', '_' and '.'"),
        ("org/x--y", "NAME holds '--' or '..'"),
    ],
)
def test_a_missing_path_that_is_no_repo_id_says_the_path_is_missing(
    capsys: pytest.CaptureFixture[str], text: str, problem: str
) -> None:
    status, out, _ = run_cli(capsys, "check", text)
    assert status == 1  # a missing file, not a usage error
    assert out.splitlines()[0] == (
        f"{text}: INVALID: no such file or directory (not found locally); it is not a Hugging "
        f"Face repo id either ({problem}; a repo id is ORG/NAME, as in Qwen/Qwen3-8B)."
    )
    (error,) = check(text).errors
    assert type(error) is ConfigFileError
    assert error.path == text


# ------------------------------------------------ 1: a failing hub side is a verdict, never a crash


@pytest.fixture
def hub_import_fails(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """huggingface_hub not yet imported, and HF_HUB_ETAG_TIMEOUT=30s, so importing it
    raises ValueError, as in a fresh process; the modules are restored afterwards."""
    saved = {name: module for name, module in sys.modules.items() if _is_hub(name)}
    for name in saved:
        del sys.modules[name]
    monkeypatch.setenv("HF_HUB_ETAG_TIMEOUT", "30s")
    try:
        yield
    finally:
        for name in [name for name in sys.modules if _is_hub(name)]:
            del sys.modules[name]
        sys.modules.update(saved)


def _is_hub(name: str) -> bool:
    return name == "huggingface_hub" or name.startswith("huggingface_hub.")


IMPORT_FAILURE = "ValueError: invalid literal for int() with base 10: '30s'"


@pytest.mark.usefixtures("hub_import_fails")
def test_a_hub_that_fails_to_import_is_a_note_for_a_verifier_and_an_error_for_a_repo_id(
    capsys: pytest.CaptureFixture[str], cache: Path
) -> None:
    write_cached_repo(cache, "org/draft", {"config.json": json.dumps({"pard_token": 3})})
    verdict = check(SPECULATORS, check_tokenizer=False)
    assert verdict.ok
    assert verdict.notes[0] == (
        "target not checked: the speculators verifier 'Qwen/Qwen3-8B' is a repo id, and looking "
        "up a Hugging Face repo id needs huggingface_hub, which failed to import "
        f"({IMPORT_FAILURE}); check the HF_* environment variables"
    )
    (error,) = check("org/draft").errors
    assert type(error) is MissingExtraError
    assert error.failure == IMPORT_FAILURE
    status, out, err = run_cli(capsys, "check", "--no-tokenizer", DFLASH, SPECULATORS, "org/draft")
    assert (status, err) == (1, "")
    lines = out.splitlines()
    assert lines[0].startswith(f"{DFLASH}: OK: ")
    assert [line for line in lines if line.startswith(SPECULATORS)] == [
        f"{SPECULATORS}: OK: token id 151669 from `dflash_config.mask_token_id` (speculators "
        "dflash, "
        "hidden_size 4096, vocab_size 151936)"
    ]
    assert (
        f"org/draft: INVALID: looking up a Hugging Face repo id needs huggingface_hub, which "
        f"failed to import ({IMPORT_FAILURE}); check the HF_* environment variables" in lines
    )
    assert lines[-1] == "3 checked: 2 valid, 1 invalid"


@pytest.mark.slow
def test_the_command_keeps_every_verdict_when_the_hub_cannot_be_imported(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "drafting_config", "check", "--no-tokenizer", DFLASH, SPECULATORS],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "HF_HUB_CACHE": str(tmp_path), "HF_HUB_ETAG_TIMEOUT": "30s"},
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines()[-1] == "2 checked: 2 valid, 0 invalid"
    assert IMPORT_FAILURE in done.stdout


def test_a_ref_that_is_not_utf8_is_an_error_of_its_draft_only(
    capsys: pytest.CaptureFixture[str], cache: Path
) -> None:
    write_cached_repo(cache, "org/draft", {"config.json": json.dumps({"pard_token": 3})})
    (cache / "models--org--draft" / "refs" / "main").write_bytes(b"\xff\xfe not utf-8")
    (error,) = check("org/draft").errors
    assert type(error) is RepoNotCachedError
    status, out, err = run_cli(capsys, "check", "--no-tokenizer", DFLASH, "org/draft")
    assert (status, err) == (1, "")
    assert out.splitlines()[0].startswith(f"{DFLASH}: OK: ")
    assert out.splitlines()[2].startswith(
        "org/draft: INVALID: the cached ref of revision main is corrupt: refs/main holds "
        "'\\\\xff\\\\xfe not utf-8', not a 40-character commit hash (delete "
    )


# ------------------------------------------------ 7, 8: corrupt caches are called what they are


def test_a_ref_holding_no_commit_hash_is_called_corrupt(cache: Path) -> None:
    write_cached_repo(cache, "org/draft", {"config.json": "{}"}, revision="v1")
    ref = cache / "models--org--draft" / "refs" / "v1"
    ref.write_text("0" * 39 + "x")
    (error,) = check("org/draft", revision="v1").errors
    assert str(error) == (
        "org/draft: the cached ref of revision v1 is corrupt: refs/v1 holds "
        f"'{'0' * 39}x', not a 40-character commit hash (delete {ref}); to fetch its config "
        "and tokenizer files (never weights), pass --download (download=True in Python), or "
        "run `hf download org/draft config.json --revision v1`"
    )
    ref.write_text("y" * 500)
    (error,) = check("org/draft", revision="v1").errors
    assert f"refs/v1 holds '{'y' * 60}' (cut short), not a 40-character commit hash" in str(error)


def test_a_config_json_link_loop_in_the_cache_is_called_a_loop(cache: Path) -> None:
    snapshot = write_cached_repo(cache, "org/draft", {"tokenizer.json": "{}"})
    (snapshot / "config.json").symlink_to("config.json")
    (error,) = check("org/draft").errors
    assert str(error) == (
        f"org/draft: the cached config.json is a symbolic link loop in {snapshot}; to fetch its "
        "config and tokenizer files (never weights), pass --download (download=True in "
        "Python), or run `hf download org/draft config.json`"
    )


# ------------------------------------------------ 10: --tokenizer ORG/NAME is a repo id too


def test_a_tokenizer_given_as_a_repo_id_is_read_from_the_cache(
    capsys: pytest.CaptureFixture[str], cache: Path, tmp_path: Path
) -> None:
    written = write_qwen3_like(tmp_path / "tok", vocab_size=300)
    files = {
        name: (written / name).read_bytes() for name in ("tokenizer.json", "tokenizer_config.json")
    }
    write_cached_repo(cache, "org/tokenizer", {"config.json": "{}", **files})
    draft = {"pard_token": 310, "vocab_size": 400}
    verdict = check(draft, tokenizer="org/tokenizer")
    assert verdict.errors == ()
    assert verdict.token is not None
    assert (verdict.token.kind.value, verdict.token.text) == ("special", "<|vision_end|>")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "config.json").write_text(json.dumps(draft))
    status, out, _ = run_cli(capsys, "check", tmp_path / "d", "--tokenizer", "org/tokenizer")
    assert status == 0
    assert "    token: special '<|vision_end|>'" in out.splitlines()
    (error,) = check(draft, tokenizer="org/absent").errors
    assert type(error) is RepoNotCachedError


# ------------------------------------------------ 11: an os.PathLike is always a path


def test_a_pathlike_is_never_read_from_the_cache(cache: Path) -> None:
    write_cached_repo(cache, "org/draft", {"config.json": json.dumps({"pard_token": 3})})
    assert check("org/draft").ok  # text may be a repo id
    (error,) = check(Path("org/draft")).errors
    assert type(error) is ConfigFileError
    assert str(error) == "org/draft: no such file or directory (not found locally)."
    (error,) = check({"pard_token": 3}, target=Path("org/draft")).errors
    assert type(error) is ConfigFileError


# ------------------------------------------------ 12: cache paths are escaped like every path


def test_paths_in_not_cached_messages_are_escaped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = use_cache(tmp_path / "c\norg" / "evil: OK", monkeypatch)
    shown = str(cache).replace("\n", "\\n")
    write_cached_repo(cache, "org/cached", {"tokenizer.json": "{}"}, revision="v1")
    for args in (
        ["org/absent"],
        ["org/cached", "--revision", "v2"],
        ["org/cached", "--revision", "v1"],
    ):
        status, out, _ = run_cli(capsys, "check", *args)
        assert status == 1
        lines = out.splitlines()
        assert len(lines) == 2, lines  # the verdict and the summary: no forged line
        assert shown in lines[0]


# ------------------------------------------------ 18: Ctrl-C at any stage of start-up


def entry_point() -> tuple[str, str]:
    """The module and function of the ``drafting-config`` console script, as declared."""
    declared = re.search(
        r'^drafting-config = "([^"]+)"$', (REPO / "pyproject.toml").read_text(), re.MULTILINE
    )
    assert declared is not None
    module, _, function = declared.group(1).partition(":")
    return module, function


def run_console_script(argv: list[str]) -> int:
    """What the console script pip writes does: import the entry point, call it."""
    module, function = entry_point()
    try:
        status: int = getattr(importlib.import_module(module), function)(argv)
    except KeyboardInterrupt:  # the console script would print its traceback
        pytest.fail("KeyboardInterrupt escaped the entry point")
    return status


@pytest.fixture
def fresh_package() -> Iterator[None]:
    """The package as in a new process: none of its modules imported yet (restored after)."""
    saved = {name: module for name, module in sys.modules.items() if _is_ours(name)}
    for name in saved:
        del sys.modules[name]
    try:
        yield
    finally:
        for name in [name for name in sys.modules if _is_ours(name)]:
            del sys.modules[name]
        sys.modules.update(saved)


def _is_ours(name: str) -> bool:
    return name == "drafting_config" or name.startswith("drafting_config.")


class InterruptImport(importlib.abc.MetaPathFinder):
    """Ctrl-C arriving while ``name`` is being imported."""

    def __init__(self, name: str) -> None:
        self.name = name

    def find_spec(self, fullname: str, path: object, target: object = None) -> None:
        if fullname == self.name:
            raise KeyboardInterrupt


def modules_a_check_imports() -> list[str]:
    """Every module of the package that ``drafting-config check`` imports, in order."""
    code = (
        "import sys; before = set(sys.modules); "
        f"from {entry_point()[0]} import {entry_point()[1]} as main; "
        f"main(['check', '--no-tokenizer', {DFLASH!r}]); "
        "print(' '.join(m for m in sys.modules if m not in before "
        "and m.split('.')[0] == 'drafting_config'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True
    )
    names = done.stdout.splitlines()[-1].split()
    assert "drafting_config.verdicts" in names
    return [n for n in names if n not in ("drafting_config", entry_point()[0])]


@pytest.mark.slow
@pytest.mark.usefixtures("fresh_package")
def test_ctrl_c_while_any_module_is_imported_exits_130_quietly(
    capsys: pytest.CaptureFixture[str],
) -> None:
    names = modules_a_check_imports()
    assert len(names) >= 10
    for name in names:
        for module in [m for m in sys.modules if _is_ours(m)]:
            del sys.modules[module]
        finder = InterruptImport(name)
        sys.meta_path.insert(0, finder)
        try:
            status = run_console_script(["check", "--no-tokenizer", DFLASH])
        finally:
            sys.meta_path.remove(finder)
        assert (name, status, capsys.readouterr()) == (name, 130, ("", ""))


def interrupt(*args: object, **kwargs: object) -> NoReturn:
    raise KeyboardInterrupt


TEXT = ["check", DFLASH]
JSON = ["check", "--json", DFLASH]


@pytest.mark.parametrize(
    ("stage", "argv"),
    [
        ("drafting_config.cli.run._parser", TEXT),
        ("argparse.ArgumentParser.parse_args", TEXT),
        ("drafting_config.cli.run._expand_stdin", TEXT),
        ("drafting_config.cli.run.check_many", TEXT),
        ("drafting_config.cli.run.verdict_lines", TEXT),
        ("drafting_config.cli.run.verdict_json", JSON),
    ],
)
def test_ctrl_c_at_each_stage_of_a_run_exits_130_quietly(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    stage: str,
    argv: list[str],
) -> None:
    monkeypatch.setattr(stage, interrupt)
    assert (run_console_script(argv), capsys.readouterr()) == (130, ("", ""))


class InterruptedStdout(io.TextIOWrapper):
    """Standard output whose set-up (``reconfigure``) is interrupted."""

    def reconfigure(self, *args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt


def test_ctrl_c_while_standard_output_is_set_up_exits_130_quietly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    written = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", InterruptedStdout(written, encoding="utf-8"))
    assert run_console_script(TEXT) == 130
    sys.stdout.flush()
    assert written.getvalue() == b""


def test_ctrl_c_while_reporting_an_internal_error_exits_130_quietly(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def bug(*args: object, **kwargs: object) -> NoReturn:
        raise RuntimeError("a bug")

    monkeypatch.setattr("drafting_config.cli.run.check_many", bug)
    monkeypatch.setattr("builtins.print", interrupt)
    assert run_console_script(["check", DFLASH]) == 130
    assert capsys.readouterr() == ("", "")
