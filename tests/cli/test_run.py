"""The drafting-config command.

Nearly every test calls :func:`drafting_config.cli.run.main` in this process, with the
output captured, and asserts exact lines and exit statuses.  The few tests marked
slow run the installed console script (or ``python -m drafting_config``) for what
only a real process shows: the entry points, what gets imported, signals, closed
pipes and standard streams, and strict stdio encodings.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import importlib.abc
import io
import json
import multiprocessing
import os
import pickle
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from types import SimpleNamespace
from typing import Any, NoReturn
from unittest.mock import ANY

import pytest

from drafting_config import PRIORITY_ORDER, ParallelDraftingConfig, Verdict, __version__, check
from drafting_config.cli import run as cli
from drafting_config.cli.render import verdict_json
from drafting_config.cli.run import EXIT_BROKEN_PIPE, EXIT_INTERRUPTED, EXIT_USAGE, main
from drafting_config.files.json_files import ConfigFileError
from drafting_config.files.repo_ids import MissingExtraError, RepoNotCachedError
from drafting_config.values.codes import (
    CAUSALITY_ASSUMED,
    LAYERS_GUESSED,
    SPECULATIVE_TOKENS_UNKNOWN,
)
from drafting_config.values.fields import MISSING
from drafting_config.values.paths import parse_display_path
from drafting_config.verdicts import check_each as check_each_verdicts
from tests.bad_files import BAD_FILES, UNREADABLE
from tests.conftest import INVALID_EXAMPLES, REPO, VALID_EXAMPLES, Run, run_cli
from tests.engines.vllm import TOKENS_READ_ENGINE as VLLM
from tests.engines.vllm import tokens_read  # noqa: F401 (a fixture)
from tests.example_pairs import FAILING_PAIR, PASSING_PAIR
from tests.fake_cache import use_cache, write_cached_repo
from tests.tokenizer_factory import write_llama3_like, write_qwen3_like

pytestmark = pytest.mark.usefixtures("tokens_read")
"""The token rules of PTD and PARD drafts, judged on the newest vLLM release that reads their
token (later releases serve such drafts sequentially, the token unused)."""

SCRIPT = Path(sys.executable).with_name("drafting-config")

JSON_KEYS = {
    "schema_version",
    "path",
    "engine",
    "ok",
    "outcome",
    "token_id",
    "source",
    "shadowed",
    "hidden_size",
    "vocab_size",
    "format",
    "algorithm",
    "mode",
    "parallel",
    "serve_with",
    "aux_layer_ids",
    "aux_layer_source",
    "token",
    "target",
    "weights",
    "warnings",
    "notes",
    "errors",
    "error",
    "error_field",
    "findings",
}
"""The keys of every object of ``check --json`` (``docs/cli.md`` documents each)."""

NO_TARGET = "  note target-not-given: target not checked: no target given"
NO_TOKENIZER = (
    "  note tokenizer-not-found: tokenizer not checked: no tokenizer files beside the draft"
)
CAUSAL = [
    "  note causality-assumed dflash_config.causal: no causality is recorded: the engine runs the "
    "drafter non-causal, causal only on sliding-window layers."
]
"""The note every DFlash draft that records no causality gets (issue 39)."""


def vllm_serve(model: object, target: object = "TARGET", **config: object) -> str:
    """The ``serve with:`` line of a vLLM verdict: ``vllm serve`` on ``target`` with
    ``--speculative-config`` of ``config`` (its method first) naming ``model``."""
    method = config.pop("method", "dflash")
    spec = {"method": method, "model": str(model), "num_speculative_tokens": 15, **config}
    command = ["vllm", "serve", str(target), "--speculative-config", json.dumps(spec)]
    return f"    serve with: {shlex.join(command)}"


def pard_serve(model: object, target: object = "TARGET") -> str:
    """The ``serve with:`` line of a PARD draft, which names no number of tokens."""
    return vllm_serve(
        model, target, method="draft_model", num_speculative_tokens="N", parallel_drafting=True
    )


UNKNOWN_TOKENS = (
    "no block_size, speculative_tokens or n_predict says how many tokens to draft: the serve "
    "command holds N"
)
"""The note of a verdict whose serve command holds a placeholder for the number of tokens."""
DFLASH_SERVED = (
    f"  {VLLM}: serves as dflash (parallel), token id 151669 from `dflash_config.mask_token_id`"
)
DFLASH = "examples/dflash-qwen3-4b"
DFLASH_OK = f"{DFLASH}: OK"
SPECULATORS = "examples/speculators-dflash-qwen3-8b"
PASSING_DRAFT = "examples/pair-qwen3-4b/draft"
PASSING_TARGET = "examples/pair-qwen3-4b/target"
FAILING_DRAFT = "examples/pair-qwen3-8b-drafter-llama3-target/draft"
FAILING_TARGET = "examples/pair-qwen3-8b-drafter-llama3-target/target"


Cli = Callable[..., Run]


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run from the repository root, with an empty Hugging Face cache of our own."""
    monkeypatch.chdir(REPO)
    return use_cache(tmp_path / "hf-cache", monkeypatch)


@pytest.fixture
def cache(_isolated: Path) -> Path:
    return _isolated


@pytest.fixture
def drafting_config(capsys: pytest.CaptureFixture[str]) -> Cli:
    """``drafting_config(*args)``: run ``main`` in this process and capture what it printed."""

    def run(*args: str | Path) -> Run:
        return run_cli(capsys, *args)

    return run


def feed_stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    """Make ``data`` the bytes on standard input."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


def flat(text: str) -> str:
    """The text output with each finding's wrapped lines joined (a continuation line is
    indented at least six spaces; nothing else is)."""
    return re.sub(r"\n {6,}", " ", text)


def write_config(directory: Path, config: dict[str, Any]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.json").write_text(json.dumps(config))
    return directory


# -- check: text ----------------------------------------------------------------------------


def test_a_valid_draft_is_one_ok_line_with_its_notes(drafting_config: Cli) -> None:
    run = drafting_config("check", DFLASH)
    assert run.status == 0
    assert run.lines == [
        DFLASH_OK,
        DFLASH_SERVED,
        vllm_serve(DFLASH),
        NO_TARGET,
        *CAUSAL,
        NO_TOKENIZER,
        "1 checked: 1 valid, 0 invalid",
    ]
    assert run.err == ""


def test_every_valid_example_passes_with_its_documented_headline(drafting_config: Cli) -> None:
    paths = [str(p.relative_to(REPO)) for p in VALID_EXAMPLES]
    run = drafting_config("check", *paths)
    assert run.status == 0
    headlines = [line for line in run.lines if not line.startswith((" ", "note ("))]
    assert headlines[-1] == f"{len(paths)} checked: {len(paths)} valid, 0 invalid"
    assert headlines[:-1] == [f"{path}: OK" for path in paths]
    engine_lines = [line for line in run.lines if line.startswith(f"  {VLLM}: ")]
    for line, path in zip(engine_lines, VALID_EXAMPLES, strict=True):
        expected = ParallelDraftingConfig.from_pretrained(path)
        assert line.endswith(f", token id {expected.token_id} from `{expected.source.value}`")
    assert "    shadowed: `ptd_token_id` = 151669" in run.lines


def test_warnings_are_listed_and_do_not_fail_the_check(
    drafting_config: Cli, tmp_path: Path
) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"mask_token_id": 5, "pard_token": 6, "pad_token_id": 5}))
    run = drafting_config("check", path)
    assert run.status == 0
    assert run.lines[:4] == [
        f"{path}: OK",
        f"  {VLLM}: serves as pard (parallel), token id 5 from `mask_token_id`",
        pard_serve(tmp_path),
        "    shadowed: `pard_token` = 6",
    ]
    warnings = [line for line in run.lines if line.startswith("  warning ")]
    assert len(warnings) == 2
    assert warnings[0].startswith(
        "  warning token-fields-disagree pard_token: `mask_token_id` = 5 and `pard_token` = 6 "
        "disagree"
    )
    assert "is also a pad token id (config)" in flat(run.out)
    assert run.lines[-1] == "1 checked: 1 valid, 0 invalid"


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_every_bad_file_gets_exit_1_or_2_and_a_one_line_reason(
    drafting_config: Cli, case: str, tmp_path: Path
) -> None:
    make, phrase = BAD_FILES[case]
    path = make(tmp_path)
    run = drafting_config("check", path)
    headline, engine, *finding, summary = run.lines
    assert phrase in flat("\n".join(finding))
    assert finding[0].startswith("  error file-")  # one reason, whatever its width
    if case in UNREADABLE:  # the check could not be made
        assert run.status == 2
        assert (headline, engine) == (f"{path}: NOT CHECKED", f"  {VLLM}: could not check")
        assert summary == "1 checked: 0 valid, 0 invalid, 1 not checked"
    else:
        assert run.status == 1
        assert (headline, engine) == (f"{path}: INVALID", f"  {VLLM}: fails at parse")
        assert summary == "1 checked: 0 valid, 1 invalid"


def test_one_bad_path_among_good_ones_fails_the_run_but_all_are_reported(
    drafting_config: Cli,
) -> None:
    run = drafting_config("check", VALID_EXAMPLES[0], INVALID_EXAMPLES[0], VALID_EXAMPLES[1])
    assert run.status == 1
    headlines = [line for line in run.lines if not line.startswith((" ", "note ("))]
    assert [h.split(": ")[1] for h in headlines[:-1]] == ["OK", "INVALID", "OK"]
    assert "note (3 drafts): target not checked: no target given" in run.lines
    assert headlines[-1] == "3 checked: 2 valid, 1 invalid, 1 fixable with --fix"


def test_an_invalid_draft_lists_every_error_after_the_first(
    drafting_config: Cli, tmp_path: Path
) -> None:
    path = write_config(
        tmp_path, {"mask_token_id": "5", "pard_token": 3, "target_layer_ids": [2, 1]}
    )
    run = drafting_config("check", path)
    assert run.status == 1
    assert run.lines[:2] == [f"{path}: INVALID", f"  {VLLM}: fails at token"]
    assert run.lines[2].startswith(
        "  error token-not-int [*] mask_token_id: `mask_token_id` must be an integer token id"
    )
    errors = [line for line in run.lines if line.startswith("  error ")]
    assert len(errors) == 2
    assert errors[1].startswith(
        "  error layer-ids-unordered target_layer_ids: `target_layer_ids` item 1 = 1 follows 2"
    )
    assert run.lines[-2:] == [NO_TARGET, "1 checked: 0 valid, 1 invalid, 1 fixable with --fix"]


# -- the bundled draft/target pairs -----------------------------------------------------------


def test_the_passing_pair(drafting_config: Cli) -> None:
    run = drafting_config("check", PASSING_DRAFT, "--target", PASSING_TARGET)
    assert run.status == 0
    assert run.lines == [
        f"{PASSING_DRAFT}: OK",
        DFLASH_SERVED,
        vllm_serve(PASSING_DRAFT, PASSING_TARGET),
        "    token: unused",
        f"    target: {PASSING_TARGET}",
        *CAUSAL,
        "1 checked: 1 valid, 0 invalid",
    ]
    assert PASSING_PAIR.relative_to(REPO) == Path(PASSING_DRAFT).parent


def test_the_failing_pair_fails_on_layers_and_on_the_vocabulary(drafting_config: Cli) -> None:
    run = drafting_config("check", FAILING_DRAFT, "--target", FAILING_TARGET)
    assert run.status == 1
    assert run.lines[:3] == [
        f"{FAILING_DRAFT}: INVALID",
        f"  {VLLM}: fails at token",
        f"    target: {FAILING_TARGET}",
    ]
    assert [line.split(":")[0] for line in run.lines[3:] if not line.startswith("    ")] == [
        "  error token-outside-target-vocab dflash_config.mask_token_id",
        "  error layer-id-out-of-range dflash_config.target_layer_ids",
        "  warning num-target-layers-unexplained num_target_layers",
        "  warning rope-differs-from-target rope_scaling",  # a Qwen3 drafter, a Llama-3.1 target
        "  note causality-assumed dflash_config.causal",
        "  note tokenizer-not-found",
        "1 checked",
    ]
    text = flat(run.out)
    assert (
        "`dflash_config.mask_token_id` = 151669 is outside the target's vocabulary: the "
        "target's vocab_size is 128256"
    ) in text
    assert "`dflash_config.target_layer_ids` item 4 = 33 is outside the target's layer" in text
    assert FAILING_PAIR.relative_to(REPO) == Path(FAILING_DRAFT).parent
    # alone, the draft is fine: only the target shows the mistake
    assert drafting_config("check", FAILING_DRAFT).status == 0


def test_the_failing_pair_as_json(drafting_config: Cli) -> None:
    run = drafting_config("check", "--json", FAILING_DRAFT, "--target", FAILING_TARGET)
    assert run.status == 1
    (item,) = run.json
    assert [e["field"] for e in item["errors"]] == [
        "dflash_config.mask_token_id",
        "dflash_config.target_layer_ids",
    ]
    assert item["error"] == item["errors"][0]["message"]
    assert item["error_field"] == "dflash_config.mask_token_id"
    assert (item["ok"], item["token_id"], item["target"]) == (False, None, FAILING_TARGET)


def test_the_passing_pairs_tokenizer_is_qwen3s_where_it_matters() -> None:
    from tokenizers import Tokenizer

    from drafting_config.files.tokenizer_files import load_tokenizer_files

    directory = PASSING_PAIR / "draft"
    files = load_tokenizer_files(directory)
    assert files is not None
    assert files.length == 151669
    assert {role: t.id for role, t in files.special_tokens.items()} == {
        "pad": 151643,
        "eos": 151645,
    }
    backend = Tokenizer.from_file(str(directory / "tokenizer.json"))
    for text in ("<|endoftext|>", "<|im_end|>", "<tool_call>", "</think>"):
        assert backend.token_to_id(text) == files.id_of(text)
    assert backend.id_to_token(151669) is None
    assert sum(f.stat().st_size for f in directory.iterdir()) < 64 * 1024


# -- check --json ----------------------------------------------------------------------------


def test_json_has_every_documented_key_and_echoes_paths_as_given(drafting_config: Cli) -> None:
    given = ["./examples/dflash-qwen3-4b/", "examples/dflash-qwen3-4b/config.json", DFLASH]
    run = drafting_config("check", "--json", *given)
    assert run.status == 0
    assert run.out == json.dumps(run.json) + "\n"  # one line, json.dumps's own spacing
    assert [item["path"] for item in run.json] == given
    for item in run.json:
        assert set(item) == JSON_KEYS
    assert run.json[0] == {
        "schema_version": 2,
        "path": given[0],
        "engine": f"{VLLM}",
        "ok": True,
        "outcome": "ok",
        "token_id": 151669,
        "source": "dflash_config.mask_token_id",
        "shadowed": [],
        "hidden_size": 2560,
        "vocab_size": 151936,
        "format": "hf",
        "algorithm": "dflash",
        "mode": "dflash",
        "parallel": True,
        "serve_with": vllm_serve(given[0]).removeprefix("    serve with: "),
        "aux_layer_ids": [2, 10, 18, 26, 34],  # target_layer_ids [1, 9, 17, 25, 33] + 1
        "aux_layer_source": "dflash_config.target_layer_ids",
        "token": None,
        "target": None,
        "weights": None,
        "warnings": [],
        "notes": [
            "target not checked: no target given",
            CAUSAL[0].partition(": ")[2],
            "tokenizer not checked: no tokenizer files beside the draft",
        ],
        "errors": [],
        "error": None,
        "error_field": None,
        "findings": [
            {
                "code": code,
                "step": step,
                "severity": "note",
                "engine": f"{VLLM}",
                "field": field,
                "message": message,
                "fix": fix,
                "evidence": ANY if code == "causality-assumed" else None,
                "fixable": False,
            }
            for code, step, field, message, fix in (
                ("target-not-given", "target", None, "target not checked: no target given", None),
                (
                    "causality-assumed",
                    "construction",
                    "dflash_config.causal",
                    CAUSAL[0].partition(": ")[2],
                    None,
                ),
                (
                    "tokenizer-not-found",
                    "tokenizer",
                    None,
                    "tokenizer not checked: no tokenizer files beside the draft",
                    None,
                ),
            )
        ],
    }


def test_json_reports_the_tapped_layers_of_the_verdict(
    drafting_config: Cli, tmp_path: Path
) -> None:
    """``aux_layer_ids`` and ``aux_layer_source`` are the verdict's: the serving runner's
    capture indices knowing the target, and the field as the draft's file names it."""
    dspark = tmp_path / "dspark.json"
    dspark.write_text(
        '{"dspark_noise_token_id": 5, "vocab_size": 100, "dspark_target_layer_ids": [3, 7]}'
    )
    broken = tmp_path / "broken.json"
    broken.write_text(
        '{"dspark_noise_token_id": 5, "vocab_size": 100, "target_layer_ids": ["1", 9]}'
    )
    v41 = tmp_path / "v41"
    v41.mkdir()
    (v41 / "config.json").write_text(
        '{"model_type": "deepseek_v41", "num_hidden_layers": 10, "vocab_size": 100}'
    )
    paths = ["examples/pard-llama3-1b", SPECULATORS, str(dspark), str(broken)]
    run = drafting_config("check", "--json", "--no-tokenizer", "--no-weights", *paths)
    assert [(i["aux_layer_ids"], i["aux_layer_source"]) for i in run.json] == [
        (None, None),  # PARD takes no hidden states
        ([2, 10, 18, 26, 34], "aux_hidden_state_layer_ids"),  # the speculators file's key
        ([4, 8], "dspark_target_layer_ids"),  # layer indices, + 1
        (None, None),  # vLLM's function fails on "1"
    ]
    assert run.json[3]["error_field"] == "target_layer_ids"
    with_target = drafting_config(
        "check", "--json", "--no-tokenizer", "--no-weights", "--target", str(v41), str(dspark)
    )
    # A DeepSeek-V4.1 target: vLLM uses dspark_target_layer_ids as given.
    assert with_target.json[0]["aux_layer_ids"] == [3, 7]
    assert with_target.json[0]["aux_layer_source"] == "dspark_target_layer_ids"


def test_json_reports_format_and_algorithm(drafting_config: Cli) -> None:
    paths = ["examples/pard-llama3-1b", "examples/dspark-qwen3-8b", SPECULATORS]
    run = drafting_config("check", "--json", *paths)
    assert [(i["format"], i["algorithm"]) for i in run.json] == [
        ("hf", "pard"),
        # a top-level mask_token_id is shared by several methods; vLLM guesses dspark
        # from `DSparkDraftModel` with model_type qwen3 (config/speculative.py)
        ("hf", "dspark"),
        ("speculators", "dflash"),
    ]


def test_json_invalid_and_unreadable_drafts(drafting_config: Cli, tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    run = drafting_config("check", "--json", INVALID_EXAMPLES[0], missing)
    assert run.status == 1
    invalid, absent = run.json
    assert (invalid["ok"], invalid["token_id"], invalid["source"]) == (False, None, None)
    assert invalid["error"].startswith("`pard_token` must be an integer token id")
    assert invalid["error_field"] == "pard_token"
    assert invalid["errors"] == [
        {"field": "pard_token", "message": invalid["error"], "code": "token-not-int"}
    ]
    assert invalid["format"] == "hf"
    assert absent["error"] == ("no such file or directory (not found locally).")
    assert absent["errors"] == [
        {"field": None, "message": absent["error"], "code": "file-unavailable"}
    ]
    assert (absent["format"], absent["hidden_size"], absent["notes"]) == (None, None, [])


def test_json_token_facts(drafting_config: Cli, tmp_path: Path) -> None:
    llama = write_llama3_like(tmp_path / "llama", vocab_size=200, added_count=56)
    qwen = write_qwen3_like(tmp_path / "qwen", vocab_size=300)
    from tests.tokenizer_factory import base_vocabulary

    ordinary_text = base_vocabulary(300)[0][7]
    cases = [
        (llama, 220, {"id": 220, "kind": "special", "text": "<|reserved_special_token_12|>"}),
        (qwen, 324, {"id": 324, "kind": "added", "text": "<think>"}),
        (qwen, 400, {"id": 400, "kind": "unused", "text": None}),
        (qwen, 7, {"id": 7, "kind": "ordinary", "text": ordinary_text}),
    ]
    for tokenizer, token_id, token in cases:
        draft = write_config(tmp_path / f"draft-{token_id}", {"pard_token": token_id})
        run = drafting_config("check", "--json", draft, "--tokenizer", tokenizer)
        (item,) = run.json
        assert item["token"] == token
        assert item["notes"] == ["target not checked: no target given", UNKNOWN_TOKENS]
    # the ordinary token's warning quotes it
    assert repr(ordinary_text) in item["warnings"][0]


def test_json_with_a_target_names_it(drafting_config: Cli) -> None:
    run = drafting_config("check", "--json", PASSING_DRAFT, "--target", PASSING_TARGET)
    (item,) = run.json
    assert (item["ok"], item["target"]) == (True, PASSING_TARGET)
    assert item["notes"] == [CAUSAL[0].partition(": ")[2]]
    assert item["token"] == {"id": 151669, "kind": "unused", "text": None}


def test_json_of_a_draft_failing_its_target_gives_no_token_to_use(drafting_config: Cli) -> None:
    # the draft resolves (151669, shadowing ptd_token_id), but not for a Llama 3 target
    draft = "examples/dspark-noise-qwen3-8b"
    (alone,) = drafting_config("check", "--json", draft).json
    assert alone["shadowed"] == [{"source": "ptd_token_id", "token_id": 151669}]
    run = drafting_config("check", "--json", draft, "--target", FAILING_TARGET)
    (item,) = run.json
    assert (item["ok"], item["token_id"], item["source"], item["shadowed"]) == (
        False,
        None,
        None,
        [],
    )
    assert (item["hidden_size"], item["algorithm"]) == (4096, "dspark")
    assert [e["field"] for e in item["errors"]] == [
        "dspark_noise_token_id",
        "target_layer_ids",
    ]


# -- explain ---------------------------------------------------------------------------------


def write_explained(tmp_path: Path) -> Path:
    return write_config(
        tmp_path,
        {
            "dflash_config": {"target_layer_ids": [1]},
            "mask_token_id": None,
            "dspark_noise_token_id": 151669,
            "ptd_token_id": 151670,
        },
    )


def test_explain_shows_each_field_then_the_verdict(drafting_config: Cli, tmp_path: Path) -> None:
    path = write_explained(tmp_path)
    run = drafting_config("explain", path)
    assert run.status == 0
    assert run.lines[:2] == [
        f"{path}: OK",
        f"  {VLLM}: serves as dspark (parallel), token id 151669 from `dspark_noise_token_id`",
    ]
    rows = [line.split() for line in run.lines[2 : 3 + len(PRIORITY_ORDER)]]
    assert rows == [
        ["rank", "field", "value", "status"],
        ["1", "dflash_config.mask_token_id", "-", "absent"],
        ["2", "mask_token_id", "null", "null"],
        ["3", "dspark_noise_token_id", "151669", "winner"],
        ["4", "pard_token", "-", "absent"],
        ["5", "ptd_token_id", "151670", "shadowed"],
    ]
    verdict = run.lines[3 + len(PRIORITY_ORDER) :]
    assert verdict[:2] == [
        vllm_serve(tmp_path, method="dspark", num_speculative_tokens="N"),
        "    shadowed: `ptd_token_id` = 151670",
    ]
    assert verdict[2].startswith(
        "  warning token-fields-disagree ptd_token_id: `dspark_noise_token_id` = 151669 and "
        "`ptd_token_id` = 151670 disagree"
    )
    assert NO_TOKENIZER in verdict
    assert NO_TARGET in verdict
    assert f"  note speculative-tokens-unknown: {UNKNOWN_TOKENS}" in flat(run.out).splitlines()


def test_explain_json_is_the_verdict_plus_the_fields(drafting_config: Cli, tmp_path: Path) -> None:
    path = write_explained(tmp_path)
    run = drafting_config("explain", "--json", path)
    assert run.status == 0
    document = run.json
    assert set(document) == JSON_KEYS | {"fields"}
    assert document["fields"] == [
        {
            "rank": 1,
            "field": "dflash_config.mask_token_id",
            "value": None,
            "status": "absent",
            "error": None,
        },
        {"rank": 2, "field": "mask_token_id", "value": None, "status": "null", "error": None},
        {
            "rank": 3,
            "field": "dspark_noise_token_id",
            "value": 151669,
            "status": "winner",
            "error": None,
        },
        {"rank": 4, "field": "pard_token", "value": None, "status": "absent", "error": None},
        {"rank": 5, "field": "ptd_token_id", "value": 151670, "status": "shadowed", "error": None},
    ]
    checked = drafting_config("check", "--json", path).json[0]
    assert {k: v for k, v in document.items() if k != "fields"} == checked


def test_explain_an_invalid_config(drafting_config: Cli, tmp_path: Path) -> None:
    run = drafting_config("explain", INVALID_EXAMPLES[0])
    assert run.status == 1
    assert "'151665' (str)  invalid" in run.out
    assert run.lines[:3] == [
        f"{INVALID_EXAMPLES[0]}: INVALID",
        "  draft: hidden_size 896, vocab_size 151936",
        f"  {VLLM}: fails at token",
    ]
    assert (
        "  error token-not-int [*] pard_token: `pard_token` must be an integer token id" in run.out
    )
    document = drafting_config("explain", "--json", INVALID_EXAMPLES[0]).json
    (row,) = [f for f in document["fields"] if f["status"] == "invalid"]
    assert row["value"] == "151665"
    assert row["error"].startswith("`pard_token` must be an integer token id")


def test_explain_marks_a_token_outside_the_vocabulary_invalid(
    drafting_config: Cli, tmp_path: Path
) -> None:
    path = write_config(tmp_path, {"pard_token": 200, "ptd_token_id": 7, "vocab_size": 100})
    run = drafting_config("explain", path)
    assert run.status == 1
    assert run.lines[1:3] == ["  draft: vocab_size 100", f"  {VLLM}: fails at token"]
    rows = [line.split() for line in run.lines[4 : 4 + len(PRIORITY_ORDER)]]
    assert rows[3] == ["4", "pard_token", "200", "invalid"]
    assert rows[4] == ["5", "ptd_token_id", "7", "valid"]  # unused: a higher field is invalid
    assert run.lines[0] == f"{path}: INVALID"
    (error,) = [line for line in run.lines if line.startswith("  error ")]
    assert error.startswith(
        "  error token-out-of-range pard_token: `pard_token` = 200 is out of range: expected an int"
    )


def test_explain_an_unreadable_file(drafting_config: Cli, tmp_path: Path) -> None:
    path = tmp_path / "absent.json"
    run = drafting_config("explain", path)
    assert run.status == 2
    assert run.lines == [
        f"{path}: NOT CHECKED",
        f"  {VLLM}: could not check",
        "  error file-unavailable: no such file or directory (not found locally).",
        "    fix: check the path, or pass a repo id (ORG/NAME) with --download",
    ]
    assert drafting_config("explain", "--json", path).json["fields"] == []


def test_explain_takes_the_target_and_tokenizer_options(drafting_config: Cli) -> None:
    run = drafting_config("explain", FAILING_DRAFT, "--target", FAILING_TARGET)
    assert run.status == 1
    assert run.lines[0] == f"{FAILING_DRAFT}: INVALID"
    assert f"    target: {FAILING_TARGET}" in run.lines
    text = flat(run.out)
    assert (
        "  error token-outside-target-vocab dflash_config.mask_token_id: "
        "`dflash_config.mask_token_id` = 151669 is outside the target's vocabulary: the target's "
        "vocab_size is 128256, so the masked slots would index past its embedding table."
    ) in text
    assert (
        "  warning num-target-layers-unexplained num_target_layers: `num_target_layers` = 36 is "
        "neither"
    ) in text
    run = drafting_config("explain", PASSING_DRAFT, "--no-tokenizer")
    assert run.lines[-2:] == [NO_TARGET, *CAUSAL]
    assert "    token: unused" not in run.lines


# -- --strict --------------------------------------------------------------------------------


def test_strict_turns_warnings_into_a_failure(drafting_config: Cli, tmp_path: Path) -> None:
    warned = write_config(tmp_path / "warned", {"mask_token_id": 5, "pad_token_id": 5})
    assert drafting_config("check", warned, DFLASH).status == 0
    run = drafting_config("check", "--strict", warned, DFLASH)
    assert run.status == 1
    assert run.lines[:2] == [
        f"{warned}: FAILED (--strict: warnings)",
        f"  {VLLM}: serves as pard (parallel), token id 5 from `mask_token_id`",
    ]
    assert DFLASH_OK in run.lines
    assert run.lines[-1] == "2 checked: 1 valid, 1 invalid"
    items = drafting_config("check", "--json", "--strict", warned, DFLASH).json
    assert [item["ok"] for item in items] == [False, True]
    assert items[0]["token_id"] == 5
    assert drafting_config("check", "--json", warned).json[0]["ok"] is True


def test_strict_passes_drafts_without_warnings(drafting_config: Cli) -> None:
    assert drafting_config("check", "--strict", DFLASH, PASSING_DRAFT).status == 0
    assert drafting_config("explain", "--strict", DFLASH).status == 0


def test_strict_fails_an_ordinary_token_and_explain_says_so(
    drafting_config: Cli, tmp_path: Path
) -> None:
    qwen = write_qwen3_like(tmp_path / "qwen", vocab_size=300)
    draft = write_config(tmp_path / "draft", {"pard_token": 7})
    assert drafting_config("check", draft, "--tokenizer", qwen).status == 0
    run = drafting_config("explain", "--strict", draft, "--tokenizer", qwen)
    assert run.status == 1
    assert run.lines[:2] == [
        f"{draft}: FAILED (--strict: warnings)",
        f"  {VLLM}: serves as pard (parallel), token id 7 from `pard_token`",
    ]
    assert (
        drafting_config("explain", "--json", "--strict", draft, "--tokenizer", qwen).json["ok"]
        is False
    )


# -- --target, --tokenizer, --no-tokenizer ---------------------------------------------------


def test_target_tokenizer_and_no_tokenizer(drafting_config: Cli, tmp_path: Path) -> None:
    llama = write_llama3_like(tmp_path / "llama", vocab_size=200, added_count=56)
    draft = write_config(tmp_path / "draft", {"pard_token": 220})
    target = write_config(tmp_path / "target", {"vocab_size": 256, "num_hidden_layers": 16})
    run = drafting_config("check", draft, "--target", target, "--tokenizer", llama)
    assert run.status == 0
    served = f"  {VLLM}: serves as pard (parallel), token id 220 from `pard_token`"
    # A PARD draft names no number of tokens: the command holds N, and a note says so.
    note = f"  note speculative-tokens-unknown: {UNKNOWN_TOKENS}"
    assert flat(run.out).splitlines() == [
        f"{draft}: OK",
        served,
        pard_serve(draft, target),
        "    token: special '<|reserved_special_token_12|>'",
        f"    target: {target}",
        note,
        "    fix: replace N in the serve command with the number of tokens to draft a step",
        "1 checked: 1 valid, 0 invalid",
    ]
    run = drafting_config("check", draft, "--target", target, "--no-tokenizer")
    assert flat(run.out).splitlines()[:4] == [
        f"{draft}: OK",
        served,
        pard_serve(draft, target),
        f"    target: {target}",
    ]
    run = drafting_config(
        "check", draft, "--target", write_config(tmp_path / "small", {"vocab_size": 220})
    )
    assert run.status == 1
    assert "`pard_token` = 220 is outside the target's vocabulary" in run.lines[3]


def test_a_missing_target_or_tokenizer_is_named_in_the_error(
    drafting_config: Cli, tmp_path: Path
) -> None:
    run = drafting_config("check", DFLASH, "--target", tmp_path / "nowhere")
    assert run.status == 2
    assert run.lines[0] == f"{DFLASH}: NOT CHECKED"
    assert (
        f"  error file-unavailable: {tmp_path}/nowhere: no such file or directory (not found "
        "locally)."
    ) in run.lines
    run = drafting_config("check", DFLASH, "--tokenizer", tmp_path)
    assert run.lines[0] == f"{DFLASH}: NOT CHECKED"
    assert (
        f"  error tokenizer-not-found: {tmp_path}: no tokenizer files here (tokenizer.json, "
        "tokenizer_config.json, special_tokens_map.json)."
    ) in flat(run.out).splitlines()
    broken = write_config(tmp_path / "broken", {"pard_token": 3})
    (broken / "tokenizer_config.json").write_text("[]")
    run = drafting_config("check", "--json", broken)
    assert run.json[0]["error"].startswith(f"{broken}/tokenizer_config.json: ")


# -- repo ids --------------------------------------------------------------------------------


def test_a_cached_repo_id_is_checked_offline(drafting_config: Cli, cache: Path) -> None:
    config = (REPO / DFLASH / "config.json").read_text()
    write_cached_repo(cache, "z-lab/Qwen3-4B-DFlash-b16", {"config.json": config})
    target = (REPO / PASSING_TARGET / "config.json").read_text()
    write_cached_repo(
        cache, "Qwen/Qwen3-4B", {"config.json": target}, revision="v1", commit="1" * 40
    )
    run = drafting_config(
        "check", "z-lab/Qwen3-4B-DFlash-b16", "--target", "Qwen/Qwen3-4B", "--target-revision", "v1"
    )
    assert run.status == 0
    assert run.lines[:2] == ["z-lab/Qwen3-4B-DFlash-b16: OK", DFLASH_SERVED]
    assert "    target: Qwen/Qwen3-4B" in run.lines


def test_a_repo_id_not_cached_fails_with_exit_2_naming_download(
    drafting_config: Cli, cache: Path
) -> None:
    run = drafting_config("check", "org/absent")
    assert run.status == 2
    assert run.lines[:2] == ["org/absent: NOT CHECKED", f"  {VLLM}: could not check"]
    assert run.lines[2:4] == [
        f"  error repo-not-cached: not found locally nor in the local Hugging Face cache ({cache})",
        "    fix: pass --download (download=True in Python) to fetch its config and tokenizer "
        "files (never weights), or run `hf download org/absent config.json`",
    ]
    run = drafting_config("check", DFLASH, "--target", "org/absent")
    assert run.status == 2
    assert run.lines[0] == f"{DFLASH}: NOT CHECKED"
    assert "  error repo-not-cached: org/absent: not found locally" in run.out
    assert "pass --download" in flat(run.out)


@pytest.mark.parametrize(
    "args",
    [
        ("check", "org/bad name"),
        ("check", DFLASH, "--target", "org/bad name"),
        ("explain", "org/bad name"),
        ("check", "--json", DFLASH, "org/bad name"),
    ],
)
def test_a_missing_path_that_is_no_repo_id_is_a_missing_path(
    drafting_config: Cli, args: Sequence[str]
) -> None:
    run = drafting_config(*args)
    assert run.status == 2
    assert (
        "no such file or directory (not found locally); it is not a Hugging Face repo id "
        "either (NAME may only hold letters, digits, '-', '_' and '.'; a repo id is ORG/NAME, "
        "as in Qwen/Qwen3-8B)."
    ) in flat(run.out)


@pytest.mark.parametrize("option", ["--revision", "--target-revision"])
def test_a_malformed_revision_is_an_argparse_usage_error(drafting_config: Cli, option: str) -> None:
    run = drafting_config("check", DFLASH, option, "a..b")
    assert run.status == EXIT_USAGE
    assert run.out == ""
    assert f"argument {option}: it holds '..', '//' or '@{{'" in run.err


def test_a_malformed_verifier_in_the_file_is_no_usage_error(
    drafting_config: Cli, tmp_path: Path
) -> None:
    spec = json.loads((REPO / SPECULATORS / "config.json").read_text())
    spec["speculators_config"]["verifier"]["name_or_path"] = "checkpoints/Qwen3 8B"
    draft = write_config(tmp_path, spec)
    run = drafting_config("check", draft)
    assert run.status == 0
    assert flat(run.out).splitlines()[3:5] == [
        "  note verifier-not-found speculators_config.verifier.name_or_path: target not checked: "
        "the verifier 'checkpoints/Qwen3 8B' is neither a local directory nor in the Hugging Face "
        "cache",
        "    fix: pass --target DIR, or --download",
    ]


def test_a_cached_verifier_is_the_target(drafting_config: Cli, cache: Path) -> None:
    llama = (REPO / FAILING_TARGET / "config.json").read_text()
    write_cached_repo(cache, "Qwen/Qwen3-8B", {"config.json": llama})
    run = drafting_config("check", SPECULATORS)
    assert run.status == 1
    assert run.lines[0] == f"{SPECULATORS}: INVALID"
    errors = [line for line in run.lines if line.startswith("  error ")]
    assert "`mask_token_id`" in errors[0]
    assert errors[1].startswith(
        "  error layer-id-out-of-range aux_hidden_state_layer_ids: `aux_hidden_state_layer_ids` "
        "item 4 = 34 is outside"
    )
    assert "    target: Qwen/Qwen3-8B" in run.lines
    assert (
        "  note target-from-verifier: target taken from the speculators verifier 'Qwen/Qwen3-8B'"
        in run.lines
    )


# -- paths on standard input -----------------------------------------------------------------


def test_dash_reads_paths_from_stdin_one_per_line(
    drafting_config: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    listing = "\n".join(str(p) for p in VALID_EXAMPLES) + "\n\n"
    feed_stdin(monkeypatch, listing.encode())
    run = drafting_config("check", "--json", INVALID_EXAMPLES[0], "-", DFLASH)
    assert run.status == 1
    assert [item["path"] for item in run.json] == [
        str(INVALID_EXAMPLES[0]),
        *map(str, VALID_EXAMPLES),
        DFLASH,
    ]


def test_dash_zero_reads_nul_separated_paths_holding_newlines(
    drafting_config: Cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    odd = write_config(tmp_path / "two\nlines", {"pard_token": 3})
    plain = write_config(tmp_path / "plain", {"pard_token": 4})
    feed_stdin(monkeypatch, os.fsencode(odd) + b"\0" + os.fsencode(plain) + b"\0")
    run = drafting_config("check", "-0", "-", "--json")
    assert run.status == 0
    assert [item["path"] for item in run.json] == [f"{tmp_path}/two\\nlines", str(plain)]
    assert [item["token_id"] for item in run.json] == [3, 4]
    # the same listing, one path per line, splits the odd path in two
    feed_stdin(monkeypatch, os.fsencode(odd) + b"\n" + os.fsencode(plain) + b"\n")
    assert [i["ok"] for i in drafting_config("check", "-", "--json").json] == [False, False, True]


def test_dash_zero_without_dash_is_a_usage_error(drafting_config: Cli) -> None:
    run = drafting_config("check", "-0", DFLASH)
    assert run.status == EXIT_USAGE
    assert run.out == ""
    assert run.err == (
        "drafting-config: error: -0 reads NUL-separated paths from standard input: give '-' too\n"
    )


def test_dash_with_stdin_closed_is_a_usage_error(
    drafting_config: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", None)
    run = drafting_config("check", "-")
    assert run.status == EXIT_USAGE
    assert run.err == (
        "drafting-config: error: '-' reads paths from standard input, but it is closed\n"
    )
    closed = io.TextIOWrapper(io.BytesIO(b""))
    closed.close()
    monkeypatch.setattr(sys, "stdin", closed)
    run = drafting_config("check", "-")
    assert run.status == EXIT_USAGE
    assert run.err.startswith("drafting-config: error: cannot read paths from standard input: ")


def test_a_path_that_is_not_utf8_gets_its_verdict_escaped(
    drafting_config: Cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    name = os.fsencode(tmp_path) + b"/caf\xe9.json"
    with open(name, "wb") as file:
        file.write(b'{"pard_token": 3}')
    shown = f"{tmp_path}/caf\\xe9.json"
    run = drafting_config("check", os.fsdecode(name))  # as argv arrives
    assert run.lines[:2] == [
        f"{shown}: OK",
        f"  {VLLM}: serves as pard (parallel), token id 3 from `pard_token`",
    ]
    feed_stdin(monkeypatch, name + b"\n" + os.fsencode(tmp_path) + b"/gone\xff.json\n")
    run = drafting_config("check", "--json", "-")
    assert [item["path"] for item in run.json] == [shown, f"{tmp_path}/gone\\xff.json"]
    assert [item["ok"] for item in run.json] == [True, False]
    assert parse_display_path(run.json[0]["path"]) == name
    assert drafting_config("explain", os.fsdecode(name)).lines[0] == f"{shown}: OK"


FORGERY = f"evil\nfake.json: OK\n  {VLLM}: serves as pard\n1 checked: 1 valid, 0 invalid"


def test_a_directory_name_cannot_forge_an_ok_line_or_a_summary(
    drafting_config: Cli, tmp_path: Path
) -> None:
    draft = write_config(tmp_path / FORGERY, {"pard_token": "one"})
    shown = f"{tmp_path}/" + FORGERY.replace("\n", "\\n")
    run = drafting_config("check", draft)
    assert run.status == 1
    assert run.lines[:2] == [f"{shown}: INVALID", f"  {VLLM}: fails at token"]
    assert run.lines[2].startswith("  error token-not-int pard_token: ")
    assert run.lines[-2:] == [NO_TARGET, "1 checked: 0 valid, 1 invalid"]
    assert len(flat(run.out).splitlines()) == 6  # headline, engine, error, fix, note, summary
    (item,) = drafting_config("check", "--json", draft).json
    assert item["path"] == shown
    assert parse_display_path(item["path"]) == os.fsencode(draft)


def test_control_characters_in_target_tokenizer_and_verifier_paths_are_escaped(
    drafting_config: Cli, tmp_path: Path
) -> None:
    qwen = write_qwen3_like(tmp_path / "tok\x1b[32m", vocab_size=300)
    target = write_config(tmp_path / FORGERY, {"vocab_size": 151936})
    run = drafting_config("check", PASSING_DRAFT, "--target", target, "--tokenizer", qwen)
    assert run.status == 0
    assert len(run.lines) == 6 + len(CAUSAL)
    assert run.lines[4] == f"    target: {tmp_path}/" + FORGERY.replace("\n", "\\n")
    # an ordinary token's warning names the tokenizer directory, escaped
    draft = write_config(tmp_path / "draft", {"pard_token": 7})
    run = drafting_config("check", draft, "--tokenizer", qwen)
    (warning,) = [line for line in flat(run.out).splitlines() if line.startswith("  warning ")]
    assert f"{tmp_path}/tok\\x1b[32m" in warning
    assert "\x1b" not in run.out
    spec = json.loads((REPO / SPECULATORS / "config.json").read_text())
    spec["speculators_config"]["verifier"]["name_or_path"] = str(target)
    run = drafting_config("check", write_config(tmp_path / "spec", spec))
    assert f"    target: {tmp_path}/" + FORGERY.replace("\n", "\\n") in run.lines
    assert not [line for line in run.lines if line.startswith("fake.json")]
    assert [line for line in run.lines if line.startswith("1 checked")] == [run.lines[-1]]


# -- usage, help, schema, failures -----------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        (),
        ("check",),
        ("frobnicate",),
        ("check", "--yaml", "x"),
        ("explain",),
    ],
)
def test_usage_errors_exit_2(drafting_config: Cli, args: tuple[str, ...]) -> None:
    run = drafting_config(*args)
    assert run.status == EXIT_USAGE
    assert run.err.startswith("usage: drafting-config")
    assert run.out == ""


def test_help_and_version_exit_0(drafting_config: Cli) -> None:
    run = drafting_config("--help")
    assert run.status == 0
    assert run.out.startswith("usage: drafting-config")
    for command in ("check", "explain"):
        helped = drafting_config(command, "--help").out
        for option in ("--target", "--tokenizer", "--no-tokenizer", "--strict", "--download"):
            assert option in helped
    run = drafting_config("--version")
    assert (run.status, run.out) == (0, f"drafting-config {__version__}\n")


def test_schema_model_is_the_models_json_schema(drafting_config: Cli) -> None:
    run = drafting_config("schema", "--model")
    assert run.status == 0
    assert json.loads(run.out) == ParallelDraftingConfig.model_json_schema()


def test_schema_is_the_outputs_json_schema(drafting_config: Cli) -> None:
    import jsonschema

    run = drafting_config("schema")
    assert run.status == 0
    schema = json.loads(run.out)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)
    (item,) = drafting_config("check", "--json", "--no-tokenizer", DFLASH).json
    jsonschema.Draft202012Validator(schema).validate([item])
    for key in ("outcome", "schema_version", "findings"):
        missing = {name: value for name, value in item.items() if name != key}
        with pytest.raises(jsonschema.ValidationError, match=repr(key)):
            jsonschema.Draft202012Validator(schema).validate([missing])


def test_ctrl_c_exits_130_quietly(drafting_config: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "check_each", interrupted)
    run = drafting_config("check", DFLASH)
    assert (run.status, run.out, run.err) == (EXIT_INTERRUPTED, "", "")
    assert EXIT_INTERRUPTED == 128 + signal.SIGINT


class ClosedPipe(io.StringIO):
    """Standard output whose reader went away."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def fileno(self) -> int:
        raise io.UnsupportedOperation("no file descriptor")


def test_a_reader_that_went_away_exits_141_quietly(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    assert main(["check", DFLASH]) == EXIT_BROKEN_PIPE == 128 + signal.SIGPIPE
    assert main(["check", "--json", DFLASH, str(INVALID_EXAMPLES[0])]) == EXIT_BROKEN_PIPE
    assert capsys.readouterr().err == ""


def test_a_bug_of_ours_is_one_line_on_stderr_and_exit_2(
    drafting_config: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(cli, "check_each", broken)
    run = drafting_config("check", DFLASH)
    assert (run.status, run.out) == (2, "")
    assert run.err == (
        "drafting-config: internal error: RuntimeError: boom "
        "(please report this, with the file that caused it)\n"
    )


# -- the real entry points, in subprocesses ------------------------------------------------

PYTHONPATH = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
LOCAL_EXAMPLES = [p for p in VALID_EXAMPLES if "speculators" not in p.parent.name]
"""Examples that name no repo id (a speculators verifier is one)."""


def env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment of a subprocess: this checkout first, an empty cache."""
    return {
        **os.environ,
        "PYTHONPATH": PYTHONPATH,
        "HF_HUB_CACHE": str(tmp_path / "empty-cache"),
        **extra,
    }


def script(
    *args: str | Path, tmp_path: Path, module: bool = False
) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "drafting_config"] if module else [str(SCRIPT)]
    done = subprocess.run(
        [*command, *map(str, args)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env(tmp_path),
        timeout=60,
        check=False,
    )
    assert "Traceback" not in done.stdout + done.stderr
    return done


@pytest.mark.slow
def test_the_console_script_and_python_dash_m_are_the_same_command(tmp_path: Path) -> None:
    assert SCRIPT.is_file(), "install the project (pip install -e '.[dev]') before testing"
    installed = script("check", *VALID_EXAMPLES, tmp_path=tmp_path)
    assert installed.returncode == 0, installed.stderr
    assert installed.stdout.endswith(
        f"{len(VALID_EXAMPLES)} checked: {len(VALID_EXAMPLES)} valid, 0 invalid\n"
    )
    assert script("check", *VALID_EXAMPLES, tmp_path=tmp_path, module=True).stdout == (
        installed.stdout
    )
    passing = script("check", PASSING_DRAFT, "--target", PASSING_TARGET, tmp_path=tmp_path)
    assert passing.returncode == 0
    failing = script("check", FAILING_DRAFT, "--target", FAILING_TARGET, tmp_path=tmp_path)
    assert failing.returncode == 1


@pytest.mark.slow
def test_checking_local_paths_imports_no_heavy_or_optional_module(tmp_path: Path) -> None:
    for args in (
        [*map(str, LOCAL_EXAMPLES)],
        [DFLASH, PASSING_DRAFT, "--target", PASSING_TARGET],  # a target, a tokenizer
    ):
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "drafting_config", "check", *args],
            capture_output=True,
            text=True,
            cwd=REPO,
            env=env(tmp_path),
            timeout=60,
            check=True,
        )
        lines = done.stderr.splitlines()
        imported = {line.split("|")[-1].strip() for line in lines if "|" in line}
        assert "drafting_config.verdicts" in imported  # the trace is real
        assert "drafting_config.files.tokenizer_files" in imported
        heavy = {"torch", "transformers", "huggingface_hub", "tokenizers"}
        assert not {name for name in imported if name.split(".")[0] in heavy}
        # Nor pydantic's model machinery: that keeps sweeps fast (see benchmarks/).
        assert "pydantic.main" not in imported


@pytest.mark.slow
def test_a_closed_pipe_exits_141_without_a_word(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has gone before anything is written
    try:
        done = subprocess.run(
            [str(SCRIPT), "check", DFLASH],
            stdout=write_end,
            stderr=subprocess.PIPE,
            cwd=REPO,
            env=env(tmp_path),
            timeout=60,
            check=False,
        )
    finally:
        os.close(write_end)
    assert done.returncode == EXIT_BROKEN_PIPE
    assert done.stderr == b""


@pytest.mark.slow
@pytest.mark.parametrize("form", ["text", "--json"])
def test_a_reader_leaving_a_long_sweep_early_gets_141(tmp_path: Path, form: str) -> None:
    # `drafting-config check ... | head -c 200`: the reader leaves while hundreds of
    # kilobytes are still to be written, often in the middle of a write.
    listing = tmp_path / "paths.txt"
    listing.write_text("\n".join(str(p) for p in LOCAL_EXAMPLES * 1000))
    options = "--json" if form == "--json" else ""
    command = (
        f"'{SCRIPT}' check {options} - < '{listing}' | head -c 200; echo \"${{PIPESTATUS[0]}}\" >&2"
    )
    done = subprocess.run(
        ["bash", "-c", command], capture_output=True, text=True, env=env(tmp_path), check=True
    )
    assert len(done.stdout) == 200
    assert done.stderr == "141\n"


def blocked_in_a_read_of_stdin(pid: int, deadline: float) -> bool:
    """Wait until the process sits in read(0, ...), as /proc shows it; False if /proc cannot."""
    syscall = Path(f"/proc/{pid}/syscall")
    while time.monotonic() < deadline:
        try:
            fields = syscall.read_text().split()
        except OSError:
            return False
        if fields[:2] == ["0", "0x0"]:  # x86-64: syscall 0 is read, its first argument the fd
            return True
        time.sleep(0.02)
    return False


DEFAULT_SIGINT = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.argv[1], sys.argv[1:])"
)
"""Run argv[1:] with SIGINT's default disposition, whatever was inherited.

A shell starts background jobs with SIGINT ignored, and an ignored signal stays ignored
across exec, so a test run in the background would start the CLI deaf to Ctrl-C. With
the default disposition, Python installs its KeyboardInterrupt handler. (A shell cannot
do this: a non-interactive one may not reset a signal ignored on entry.)"""


@pytest.mark.slow
@pytest.mark.parametrize("inherited", [signal.SIG_IGN, signal.default_int_handler])
def test_ctrl_c_while_reading_stdin_exits_130(
    tmp_path: Path, inherited: Callable[..., object] | int
) -> None:
    # The parent's own SIGINT disposition is set both ways: the child's never depends on it.
    previous = signal.signal(signal.SIGINT, inherited)
    try:
        process = subprocess.Popen(
            [sys.executable, "-c", DEFAULT_SIGINT, str(SCRIPT), "check", "-"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=REPO,
            env=env(tmp_path),
        )
    finally:
        signal.signal(signal.SIGINT, previous)
    try:
        if not blocked_in_a_read_of_stdin(process.pid, time.monotonic() + 20):
            time.sleep(3)  # no /proc syscall view: give the interpreter time to start
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        process.kill()
        process.wait()
    assert process.returncode == EXIT_INTERRUPTED
    assert (out, err) == (b"", b"")


@pytest.mark.slow
def test_dash_with_stdin_closed_exits_2(tmp_path: Path) -> None:
    done = subprocess.run(
        ["bash", "-c", f"'{SCRIPT}' check - <&-"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env(tmp_path),
        timeout=60,
        check=False,
    )
    assert done.returncode == EXIT_USAGE
    assert done.stderr == (
        "drafting-config: error: '-' reads paths from standard input, but it is closed\n"
    )


@pytest.mark.slow
def test_a_sweep_under_strict_utf8_stdio_gives_one_verdict_per_path(tmp_path: Path) -> None:
    name = os.fsencode(tmp_path) + b"/caf\xe9.json"
    with open(name, "wb") as file:
        file.write(b'{"pard_token": 3}')
    listing = os.fsencode(REPO / DFLASH) + b"\n" + name + b"\n" + b"/nowhere/\xff\n"
    for args in (["--json"], []):
        done = subprocess.run(
            [str(SCRIPT), "check", *args, "-"],
            input=listing,
            capture_output=True,
            cwd=REPO,
            env=env(tmp_path, PYTHONIOENCODING="utf-8:strict", LC_ALL="C.UTF-8"),
            timeout=60,
            check=False,
        )
        assert done.returncode == 2, done.stderr  # /nowhere/: could not be checked
        assert done.stderr == b""
        text = done.stdout.decode("utf-8")  # strictly UTF-8
        if args:
            paths = [item["path"] for item in json.loads(text)]
            assert paths == [str(REPO / DFLASH), f"{tmp_path}/caf\\xe9.json", "/nowhere/\\xff"]
        else:
            assert f"{tmp_path}/caf\\xe9.json: OK\n" in text
            assert text.endswith("3 checked: 2 valid, 0 invalid, 1 not checked\n")


def test_a_closed_standard_output_is_said_plainly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdout", None)
    assert main(["check", str(VALID_EXAMPLES[0])]) == 2


def test_an_output_that_cannot_be_written_is_said_plainly(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class Full(io.StringIO):
        def write(self, text: str) -> int:
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(sys, "stdout", Full())
    assert main(["check", str(VALID_EXAMPLES[0])]) == 2
    assert capsys.readouterr().err == (
        "drafting-config: cannot write the output: [Errno 28] No space left on device\n"
    )


# Hostile input to the command: arguments, standard input and output.


def test_an_empty_path_list_from_stdin_fails_and_says_so(
    drafting_config: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``printf '' | drafting-config check -`` must not pass a CI gate."""
    for flags in ((), ("--json",)):
        feed_stdin(monkeypatch, b"\n\n")
        run = drafting_config("check", *flags, "-")
        assert run.status == 2
        assert run.err == "drafting-config: no paths to check: standard input held none\n"


def test_a_latin_1_path_under_an_ascii_stdout_prints_as_parse_display_path_reads_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "caf\xe9" / "config.json"
    write_config(path.parent, {"pard_token": 3, "vocab_size": 10})
    raw = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(raw, encoding="ascii"))
    assert main(["check", "--no-tokenizer", str(path)]) == 0
    sys.stdout.flush()
    first = raw.getvalue().decode("ascii").splitlines()[0]
    shown = first.partition(": OK")[0]
    assert "\\u00e9" in shown
    assert parse_display_path(shown) == os.fsencode(path)


@pytest.mark.slow
def test_importing_the_entry_point_imports_no_other_module() -> None:
    """A Ctrl-C from the moment the package's code runs reaches main's handler: importing
    the entry point runs no import that could be interrupted with a traceback of ours."""
    code = (
        "import sys; before = set(sys.modules); import drafting_config.command; "
        "print(sorted(set(sys.modules) - before))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "['drafting_config', 'drafting_config.command']"


# --- one process: no pool, --jobs deprecated ------------------------------------------------------


def test_a_sweep_of_2000_drafts_starts_no_child_process_or_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A killed sweep left workers blocked for ever: a sweep now runs in
    the one process, whatever its size."""
    import threading

    started: list[str] = []

    def refuse(what: str) -> Callable[..., Any]:
        def refused(*args: object, **kwargs: object) -> Any:
            started.append(what)
            raise AssertionError(f"a sweep started a {what}")

        return refused

    for module, name in [(os, "fork"), (os, "posix_spawn"), (os, "spawnv"), (subprocess, "Popen")]:
        if hasattr(module, name):
            monkeypatch.setattr(module, name, refuse(name))
    monkeypatch.setattr(threading.Thread, "start", refuse("thread"))
    drafts = []
    for index in range(2000):
        path = tmp_path / f"draft-{index}.json"
        path.write_text(json.dumps({"pard_token": index % 7}))
        drafts.append(str(path))
    assert main(["check", "--jobs", "4", *drafts]) == 0
    out, err = capsys.readouterr()
    assert out.endswith("2000 checked: 2000 valid, 0 invalid\n")
    assert "--jobs is deprecated and ignored" in err
    assert started == []


def test_jobs_is_accepted_and_ignored_with_a_deprecation_note(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["check", DFLASH]) == 0
    alone = capsys.readouterr()
    assert main(["check", "--jobs", "2", DFLASH]) == 0
    with_jobs = capsys.readouterr()
    assert with_jobs.out == alone.out
    assert with_jobs.err == (
        "drafting-config: warning: --jobs is deprecated and ignored: a sweep runs in one "
        "process (it will be removed in the next release)\n"
    )
    assert main(["check", "--jobs", "0", DFLASH]) == EXIT_USAGE
    capsys.readouterr()
    assert main(["check", "--help"]) == 0
    assert "deprecated and ignored" in " ".join(capsys.readouterr().out.split())


# --- the edges check(), the command and the hub cache must hold ----------------------------------


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
        {"field": None, "message": f"--strict: {warning}", "code": "token-placeholder"}
        for warning in item["warnings"]
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
    assert status == 2
    assert out.splitlines()[0] == f"{tmp_path / 'model'}: NOT CHECKED"
    assert flat(out).splitlines()[2] == (
        f"  error file-unavailable: {tmp_path / 'model' / 'config.json'}: "
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
        "tokenizer not checked: a config object has no directory to look in"
    ]
    notes = check(draft, target=target, check_tokenizer=False).notes
    assert [getattr(note, "code", None) for note in notes] == [
        LAYERS_GUESSED,
        CAUSALITY_ASSUMED,
        SPECULATIVE_TOKENS_UNKNOWN,
    ]


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
def test_every_kind_of_verdict_survives_a_spawn_process_pool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.undo()  # the spawned worker judges for the default release: so does this side
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
    assert status == 2  # a missing file: not checked
    assert out.splitlines()[0] == f"{text}: NOT CHECKED"
    assert flat(out).splitlines()[2] == (
        "  error file-unavailable: no such file or directory (not found locally); it is not a "
        f"Hugging Face repo id either ({problem}; a repo id is ORG/NAME, as in Qwen/Qwen3-8B)."
    )
    (error,) = check(text).errors
    assert type(error) is ConfigFileError
    assert error.path == text


# ------------------------------------------------ 1: a failing hub side is a verdict, never a crash


@pytest.fixture
def hub_import_fails(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """huggingface_hub not yet imported, and HF_HUB_ETAG_TIMEOUT=30s, so importing it
    raises ValueError, as in a fresh process; the modules are restored afterwards."""
    monkeypatch.setenv("HF_HUB_ETAG_TIMEOUT", "30s")
    with _not_imported("huggingface_hub"):
        yield


@contextlib.contextmanager
def _not_imported(package: str) -> Iterator[None]:
    """``package`` and its modules out of ``sys.modules``, as in a fresh process; the
    modules imported before are put back afterwards, and those imported inside dropped."""
    saved = {name: module for name, module in sys.modules.items() if _in(package, name)}
    for name in saved:
        del sys.modules[name]
    try:
        yield
    finally:
        for name in [name for name in sys.modules if _in(package, name)]:
            del sys.modules[name]
        sys.modules.update(saved)


def _in(package: str, name: str) -> bool:
    """Whether the module ``name`` is ``package`` or one of its modules."""
    return name == package or name.startswith(f"{package}.")


IMPORT_FAILURE = "ValueError: invalid literal for int() with base 10: '30s'"


@pytest.mark.usefixtures("hub_import_fails")
def test_a_hub_that_fails_to_import_is_a_note_for_a_verifier_and_an_error_for_a_repo_id(
    capsys: pytest.CaptureFixture[str], cache: Path
) -> None:
    write_cached_repo(cache, "org/draft", {"config.json": json.dumps({"pard_token": 3})})
    verdict = check(SPECULATORS, check_tokenizer=False)
    assert verdict.ok
    assert verdict.notes[0] == (
        "target not checked: the verifier 'Qwen/Qwen3-8B' is a repo id, and looking "
        "up a Hugging Face repo id needs huggingface_hub, which failed to import "
        f"({IMPORT_FAILURE})"
    )
    assert getattr(verdict.notes[0], "fix", None) == "check the HF_* environment variables"
    (error,) = check("org/draft").errors
    assert type(error) is MissingExtraError
    assert error.failure == IMPORT_FAILURE
    status, out, err = run_cli(capsys, "check", "--no-tokenizer", DFLASH, SPECULATORS, "org/draft")
    assert (status, err) == (2, "")
    lines = out.splitlines()
    assert lines[0] == f"{DFLASH}: OK"
    assert [line for line in lines if line.startswith(SPECULATORS)] == [f"{SPECULATORS}: OK"]
    assert "org/draft: NOT CHECKED" in lines
    found = flat(out).splitlines()
    at = found.index(
        "  error hub-extra-missing: looking up a Hugging Face repo id needs huggingface_hub, which "
        f"failed to import ({IMPORT_FAILURE})"
    )
    assert found[at + 1] == "    fix: check the HF_* environment variables"
    assert lines[-1] == "3 checked: 2 valid, 0 invalid, 1 not checked"


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
    assert (status, err) == (2, "")
    lines = flat(out).splitlines()
    assert lines[0] == f"{DFLASH}: OK"
    after = lines[lines.index("org/draft: NOT CHECKED") + 2]
    assert after.startswith(
        "  error repo-not-cached: the cached ref of revision main is corrupt: refs/main holds "
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
        f"'{'0' * 39}x', not a 40-character commit hash (delete {ref})"
    )
    assert error.fix is not None
    assert error.fix.endswith("`hf download org/draft config.json --revision v1`")
    ref.write_text("y" * 500)
    (error,) = check("org/draft", revision="v1").errors
    assert f"refs/v1 holds '{'y' * 60}' (cut short), not a 40-character commit hash" in str(error)


def test_a_config_json_link_loop_in_the_cache_is_called_a_loop(cache: Path) -> None:
    snapshot = write_cached_repo(cache, "org/draft", {"tokenizer.json": "{}"})
    (snapshot / "config.json").symlink_to("config.json")
    (error,) = check("org/draft").errors
    assert str(error) == (
        f"org/draft: the cached config.json is a symbolic link loop in {snapshot}"
    )
    assert error.fix is not None
    assert error.fix.startswith("pass --download")


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
        assert status == 2
        lines = out.splitlines()
        # the headline and the summary, the rest indented: no forged line
        assert [line for line in lines if not line.startswith("  ")] == [lines[0], lines[-1]]
        assert shown in flat(out)


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
    with _not_imported("drafting_config"):
        yield


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
        for module in [m for m in sys.modules if _in("drafting_config", m)]:
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
        ("drafting_config.cli.run.check_each", TEXT),
        ("drafting_config.cli.run.block_lines", TEXT),
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

    monkeypatch.setattr("drafting_config.cli.run.check_each", bug)
    monkeypatch.setattr("builtins.print", interrupt)
    assert run_console_script(["check", DFLASH]) == 130
    assert capsys.readouterr() == ("", "")


# --- config values quoted in messages ----------------------------------------------------------

_FORGED = "\n{path}: OK: token id 1 from `forged`\n\x1b[2K"


def _poisoned(value: object, path: str) -> object:
    """``value`` with every string in it (keys kept) followed by a forged verdict line and a
    terminal escape."""
    if isinstance(value, str):
        return value + _FORGED.format(path=path)
    if isinstance(value, list):
        return [_poisoned(item, path) for item in value]
    if isinstance(value, dict):
        return {key: _poisoned(item, path) for key, item in value.items()}
    return value


def _poison_only(config: dict[str, Any], fields: Sequence[str], path: str) -> dict[str, Any]:
    """``config`` with only the strings of ``fields`` poisoned: the rest stays valid enough
    for the later rules (registry, tapping, the target's class) to run and quote them."""
    return {k: _poisoned(v, path) if k in fields else v for k, v in config.items()}


@pytest.mark.parametrize("only", [None, ("architectures", "model_type"), ("dflash_config",)])
def test_no_config_value_can_forge_a_line_or_send_an_escape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], only: tuple[str, ...] | None
) -> None:
    """Every string of every corpus draft and of its target (or only the fields the
    registry, tapping and the target-class rules quote) holds a newline, a forged verdict
    line and a terminal escape: the text output keeps each finding on its own line and
    prints no control character."""
    corpus = REPO / "tests" / "real_configs"
    target = json.loads((corpus / "targets" / "qwen3-8b.json").read_text(encoding="utf-8"))
    target_dir = tmp_path / "target"
    target_dir.mkdir()
    fields = ("architectures", "model_type") if only is None else only
    (target_dir / "config.json").write_text(
        json.dumps(_poison_only(target, fields, "t")), encoding="utf-8"
    )
    paths = []
    for source in sorted((corpus / "drafts").glob("*.json")):
        config = json.loads(source.read_text(encoding="utf-8"))
        folder = tmp_path / source.stem
        folder.mkdir()
        poisoned = _poisoned(config, "x") if only is None else _poison_only(config, only, "x")
        (folder / "config.json").write_text(json.dumps(poisoned), encoding="utf-8")
        paths.append(str(folder))
    main(["check", "--engine", "all", "--no-tokenizer", "--target", str(target_dir), *paths])
    output = capsys.readouterr().out
    assert "forged" in output  # the values are quoted ...
    assert "\x1b" not in output  # ... never a terminal escape,
    for line in output.splitlines():  # ... and never a line of their own
        assert "OK: token id 1 from `forged`" not in line or not line.startswith("x")
        assert line.isprintable(), repr(line)


# --- several engines, one read -----------------------------------------------------------------


def test_engine_all_reads_and_parses_each_file_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--engine all`` once ran one sweep per engine, each reading every file again (a
    file changed between the passes got the verdicts of two different files)."""
    from drafting_config.files.json_files import read_config_json as real

    reads: list[object] = []

    def counting(location: Any) -> object:
        reads.append(location)
        return real(location)

    monkeypatch.setattr("drafting_config.verdicts.read_config_json", counting)
    drafts = [str(path) for path in VALID_EXAMPLES]
    target = REPO / "examples" / "pair-qwen3-4b" / "target"
    main(["check", "--engine", "all", "--no-tokenizer", "--target", str(target), *drafts])
    assert len(reads) == len(drafts) + 1  # each draft, and the target once


def test_a_drafts_verdicts_are_written_before_the_next_draft_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from drafting_config.files.json_files import read_config_json as real

    events: list[str] = []

    def reading(location: Any) -> object:
        events.append("read")
        return real(location)

    class Recorder(io.StringIO):
        def write(self, text: str) -> int:
            events.append("write")
            return super().write(text)

    monkeypatch.setattr("drafting_config.verdicts.read_config_json", reading)
    monkeypatch.setattr(sys, "stdout", Recorder())
    drafts = [str(path) for path in VALID_EXAMPLES[:3]]
    for output in ([], ["--json"]):
        events.clear()
        main(["check", "--engine", "all", "--no-tokenizer", *output, *drafts])
        assert events[0] == "read"
        assert events.index("write") < events.index("read", 1)  # written before the next read


def test_json_and_format_github_together_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Once, one of the two formats was dropped in silence.
    run = run_cli(capsys, "check", "--json", "--format", "github", VALID_EXAMPLES[0])
    assert run.status == EXIT_USAGE
    assert "--json and --format github ask for two output formats" in run.err
    assert run.out == ""
    assert run_cli(capsys, "check", "--json", "--format", "json", VALID_EXAMPLES[0]).status == 0


def test_a_sweep_runs_with_the_collector_on_and_the_start_up_objects_frozen(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # With the collector off for the whole run, the cycles each draft leaves (a caught
    # error's traceback) piled up: 5 to 8 KB a draft (benchmarks/bench_sweep_memory.py).
    seen: list[tuple[bool, int]] = []
    real = check_each_verdicts

    def check_each(*args: Any, **kwargs: Any) -> Iterator[Verdict]:
        for verdict in real(*args, **kwargs):
            seen.append((gc.isenabled(), gc.get_freeze_count()))
            yield verdict

    monkeypatch.setattr(cli, "check_each", check_each)
    before = gc.get_freeze_count()
    run = run_cli(capsys, "check", "--no-tokenizer", *INVALID_EXAMPLES[:2])
    assert run.status == 1
    assert seen
    assert all(enabled and frozen > before for enabled, frozen in seen)
    assert gc.isenabled()
    assert gc.get_freeze_count() == before
