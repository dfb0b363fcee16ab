"""check(): how a draft, its target and its tokenizer are found, and what the verdict holds.

The contract's rules themselves are in test_target_rules.py; here: paths, repo ids from
a local Hugging Face cache (tests/fake_cache.py), a speculators draft's verifier as
the implicit target, where tokenizer files are looked for, notes, and that check()
never raises.
"""

from __future__ import annotations

import dataclasses
import gc
import inspect
import json
import os
import shlex
import subprocess
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given as given_examples
from hypothesis import settings
from hypothesis import strategies as st

import drafting_config.verdicts as verdicts_module
from drafting_config import (
    ConfigFileError,
    FieldVerdict,
    ParallelDraftingConfigError,
    PlaceholderTokenIdWarning,
    Resolution,
    Verdict,
    check,
    check_many,
)
from drafting_config.engines import ENGINES
from drafting_config.engines.interface import DRAFT_PLACEHOLDER
from drafting_config.files.repo_ids import (
    RepoIdError,
    RepoNotCachedError,
)
from drafting_config.files.tokenizer_files import TokenFacts, TokenKind
from drafting_config.values.codes import TOKEN_PLACEHOLDER
from tests.conftest import EXAMPLES, REPO, load_json
from tests.engines.vllm import tokens_read  # noqa: F401 (a fixture)
from tests.fake_cache import use_cache, write_cached_repo
from tests.fake_hub import MAIN_COMMIT, FakeHub, draft_repo, serve
from tests.foreign import int_enum
from tests.serve_commands import UNKNOWN_TOKENS
from tests.tokenizer_factory import QWEN3_ADDED, write_qwen3_like

pytestmark = pytest.mark.usefixtures("tokens_read")
"""The token rules of PTD and PARD drafts, judged on the newest vLLM release that reads their
token (later releases serve such drafts sequentially, the token unused)."""

DFLASH_4B = EXAMPLES / "dflash-qwen3-4b"
SPECULATORS = load_json(EXAMPLES / "speculators-dflash-qwen3-8b" / "config.json")
QWEN3_8B = {"vocab_size": 151936, "hidden_size": 4096, "num_hidden_layers": 36}
LLAMA3_8B = {"vocab_size": 128256, "hidden_size": 4096, "num_hidden_layers": 32}
VERIFIER = "Qwen/Qwen3-8B"
NO_TARGET = "target not checked: no target given"
CAUSALITY_NOTE = (
    "no causality is recorded: the engine runs the drafter non-causal, causal only on "
    "sliding-window layers."
)
NO_TOKENIZER_DIRECTORY = "tokenizer not checked: a config object has no directory to look in"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty Hugging Face cache, used by every look-up of a repo id in the test."""
    return use_cache(tmp_path / "hf-cache", monkeypatch)


def write_config(directory: Path, config: dict[str, Any]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.json").write_text(json.dumps(config))
    return directory


def speculators_for(verifier: str, **top: object) -> dict[str, Any]:
    """The bundled speculators drafter, naming another verifier."""
    draft: dict[str, Any] = json.loads(json.dumps(SPECULATORS))
    draft["speculators_config"]["verifier"]["name_or_path"] = verifier
    draft.update(top)
    return draft


def fields(verdict: Verdict) -> list[str | None]:
    return [error.field for error in verdict.errors]


# -- the verdict ------------------------------------------------------------------------------


def test_a_valid_draft_path_gets_a_verdict_echoing_the_path_as_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(REPO)
    for given in ("examples/dflash-qwen3-4b", "examples/dflash-qwen3-4b/config.json"):
        verdict = check(given)
        assert verdict.path == given
        assert verdict.ok
        assert verdict.token_id == 151669
        assert verdict.resolution is not None
        assert verdict.resolution.algorithm == "dflash"
        assert verdict.errors == ()
        assert verdict.warnings == ()
        assert verdict.notes == (
            NO_TARGET,
            CAUSALITY_NOTE,
            "tokenizer not checked: no tokenizer files beside the draft",
        )
        assert verdict.target is None
        assert verdict.token is None
        verdict.raise_first()  # nothing to raise
    assert check(Path("examples/dflash-qwen3-4b")).path == "examples/dflash-qwen3-4b"
    assert check(b"examples/dflash-qwen3-4b").path == "examples/dflash-qwen3-4b"


def test_a_config_object_has_no_path() -> None:
    verdict = check({"pard_token": 3})
    assert (verdict.path, verdict.ok, verdict.token_id) == (None, True, 3)
    assert verdict.notes == (NO_TARGET, NO_TOKENIZER_DIRECTORY, UNKNOWN_TOKENS)


def test_an_unreadable_draft_is_a_verdict_with_no_resolution(tmp_path: Path) -> None:
    missing = tmp_path / "absent.json"
    verdict = check(missing)
    assert verdict.path == str(missing)
    assert verdict.resolution is None
    assert not verdict.ok
    assert verdict.token_id is None
    (error,) = verdict.errors
    assert type(error) is ConfigFileError
    assert "no such file or directory" in str(error)
    assert verdict.notes == ()
    assert verdict.warnings == ()
    with pytest.raises(ConfigFileError) as raised:
        verdict.raise_first()
    assert raised.value is error


def test_an_invalid_draft_keeps_its_resolution_and_reads_no_tokenizer(tmp_path: Path) -> None:
    write_qwen3_like(tmp_path, vocab_size=100)
    write_config(tmp_path, {"pard_token": "151665"})
    verdict = check(tmp_path)
    assert verdict.resolution is not None
    assert verdict.token_id is None
    assert fields(verdict) == ["pard_token"]
    assert verdict.token is None
    with pytest.raises(ParallelDraftingConfigError, match="`pard_token` must be an integer"):
        verdict.raise_first()


def test_the_first_error_is_the_drafts_own_then_the_contracts() -> None:
    draft = {"pard_token": 5, "mask_token_id": "x", "target_layer_ids": [1, 32]}
    verdict = check(draft, target=LLAMA3_8B)
    assert fields(verdict) == ["mask_token_id", "target_layer_ids"]
    # the invalid winner leaves no token id to check the target's vocabulary with
    assert verdict.token_id is None


class ExplodingPath:
    """An os.PathLike whose __fspath__ raises."""

    def __fspath__(self) -> str:
        raise RuntimeError("no path for you")


os.PathLike.register(ExplodingPath)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"draft": ExplodingPath()},
        {"draft": {"pard_token": 3}, "target": ExplodingPath()},
        {"draft": {"pard_token": 3}, "tokenizer": ExplodingPath()},
        {"draft": {"pard_token": 3}, "tokenizer": 7},
        {"draft": object()},
        {"draft": {"pard_token": 3}, "target": {"vocab_size": object()}},
        {"draft": {"pard_token": int_enum(3)}, "target": {"vocab_size": int_enum(2)}},
        {"draft": "org/bad name"},
        {"draft": {"pard_token": 3}, "target": "org/bad name"},
        {"draft": b"\xff\xfe/config.json"},
    ],
)
def test_check_never_raises(kwargs: dict[str, Any]) -> None:
    arguments = dict(kwargs)  # the parameter is shared between runs: never mutate it
    verdict = check(arguments.pop("draft"), **arguments)
    assert not verdict.ok
    assert all(isinstance(e, ParallelDraftingConfigError) for e in verdict.errors)


# -- the target ----------------------------------------------------------------------------


def test_a_target_path_is_named_as_given_and_its_failure_is_an_error(tmp_path: Path) -> None:
    target = write_config(tmp_path / "target", QWEN3_8B)
    verdict = check(DFLASH_4B, target=target)
    assert verdict.target == str(target)
    assert fields(verdict) == ["hidden_size"]  # a Qwen3-4B drafter at a Qwen3-8B target
    assert NO_TARGET not in verdict.notes
    missing = tmp_path / "absent"
    verdict = check(DFLASH_4B, target=missing)
    assert verdict.target == str(missing)
    (error,) = verdict.errors
    assert type(error) is ConfigFileError
    assert str(error).startswith(f"{missing}: ")
    assert check(DFLASH_4B, target=QWEN3_8B).target == "<config object>"


def test_a_target_path_with_a_newline_is_named_escaped(tmp_path: Path) -> None:
    target = write_config(tmp_path / "qwen\nOK", QWEN3_8B)
    verdict = check({"pard_token": 5}, target=target)
    assert verdict.target == f"{tmp_path}/qwen\\nOK"
    assert verdict.ok


def test_a_speculators_verifier_that_is_a_local_directory_is_the_target(tmp_path: Path) -> None:
    llama = write_config(tmp_path / "llama", LLAMA3_8B)
    verdict = check(speculators_for(str(llama)))
    assert verdict.target == str(llama)
    assert verdict.notes == (
        f"target taken from the speculators verifier {str(llama)!r}",
        "tokenizer not checked: no tokenizer files beside the target",
    )
    # capture index 34 is past a 32-layer Llama's last one, 32
    assert fields(verdict) == ["mask_token_id", "aux_hidden_state_layer_ids"]


def test_a_relative_verifier_is_read_from_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_config(tmp_path / "models" / "qwen3-8b", QWEN3_8B)
    monkeypatch.chdir(tmp_path)
    verdict = check(speculators_for("models/qwen3-8b"))
    assert (verdict.target, verdict.errors) == ("models/qwen3-8b", ())


def test_an_explicit_target_wins_over_the_verifier(tmp_path: Path) -> None:
    llama = write_config(tmp_path / "llama", LLAMA3_8B)
    verdict = check(speculators_for(str(llama)), target=QWEN3_8B)
    assert verdict.target == "<config object>"
    assert verdict.notes == (NO_TOKENIZER_DIRECTORY,)
    assert verdict.errors == ()


def test_a_cached_verifier_repo_id_is_the_target(cache: Path) -> None:
    write_cached_repo(cache, VERIFIER, {"config.json": json.dumps(LLAMA3_8B)})
    verdict = check(speculators_for(VERIFIER))
    assert verdict.target == VERIFIER
    assert verdict.notes == (
        f"target taken from the speculators verifier {VERIFIER!r}",
        "tokenizer not checked: no tokenizer files beside the target",
    )
    assert fields(verdict) == ["mask_token_id", "aux_hidden_state_layer_ids"]


def test_an_uncached_verifier_is_a_note_and_the_draft_alone_is_checked(cache: Path) -> None:
    # what the draft alone tells: a negative capture index is wrong for any target
    draft = speculators_for(VERIFIER, aux_hidden_state_layer_ids=[-1, 10])
    verdict = check(draft)
    assert verdict.target is None
    assert verdict.notes == (
        f"target not checked: the verifier {VERIFIER!r} is neither a local directory nor in "
        "the Hugging Face cache",
        NO_TOKENIZER_DIRECTORY,
    )
    assert [getattr(note, "fix", None) for note in verdict.notes] == [
        "pass --target DIR, or --download",
        "pass tokenizer=DIR",
    ]
    assert fields(verdict) == ["aux_hidden_state_layer_ids"]


def test_without_huggingface_hub_a_verifier_repo_id_is_a_note_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)
    verdict = check(speculators_for(VERIFIER))
    assert verdict.ok
    assert verdict.notes == (
        f"target not checked: the verifier {VERIFIER!r} is a repo id, and looking "
        "it up needs the hub extra",
        NO_TOKENIZER_DIRECTORY,
    )
    assert getattr(verdict.notes[0], "fix", None) == (
        "install the hub extra: pip install 'huggingface_hub>=0.30'"
    )


@pytest.mark.parametrize(
    "verifier",
    [
        "/home/trainer/checkpoints/Qwen3-8B",  # a path of the machine it was trained on
        "checkpoints/Qwen3 8B",  # shaped like a repo id, but not a well-formed one
        "org/name\nx.json: OK: token id 1 from `pard_token`",
    ],
)
def test_a_verifier_that_is_not_here_is_a_note_never_an_error(cache: Path, verifier: str) -> None:
    verdict = check(speculators_for(verifier))
    assert verdict.errors == ()
    assert verdict.target is None
    note, tokenizer_note = verdict.notes
    assert note.startswith(f"target not checked: the verifier {verifier!r} ")
    assert tokenizer_note == NO_TOKENIZER_DIRECTORY
    assert "\n" not in note


def test_a_verifier_that_is_here_but_broken_is_an_error(tmp_path: Path) -> None:
    empty = tmp_path / "qwen3-8b"
    empty.mkdir()
    verdict = check(speculators_for(str(empty)))
    (error,) = verdict.errors
    assert type(error) is ConfigFileError
    assert "has no config.json" in str(error)
    assert verdict.target == str(empty)
    broken = write_config(tmp_path / "broken", {"num_hidden_layers": "36"})
    verdict = check(speculators_for(str(broken)))
    assert fields(verdict) == ["target.num_hidden_layers"]
    assert verdict.target == str(broken)


def test_a_verifier_named_with_a_newline_is_shown_escaped(tmp_path: Path) -> None:
    target = write_config(tmp_path / "qwen\n1 checked: 1 valid", QWEN3_8B)
    verdict = check(speculators_for(str(target)))
    assert verdict.errors == ()
    assert verdict.target == f"{tmp_path}/qwen\\n1 checked: 1 valid"


# -- repo ids --------------------------------------------------------------------------------


def test_a_cached_draft_repo_id_is_read_with_the_tokenizer_of_its_snapshot(
    cache: Path, tmp_path: Path
) -> None:
    tokenizer = write_qwen3_like(tmp_path / "tok", vocab_size=300)
    files = {name.name: name.read_bytes() for name in tokenizer.iterdir()}
    config = (DFLASH_4B / "config.json").read_text()
    write_cached_repo(cache, "z-lab/Qwen3-4B-DFlash-b16", {"config.json": config, **files})
    verdict = check("z-lab/Qwen3-4B-DFlash-b16")
    assert verdict.path == "z-lab/Qwen3-4B-DFlash-b16"
    assert verdict.ok
    assert verdict.token == TokenFacts(151669, TokenKind.UNUSED, None)
    assert verdict.notes == (NO_TARGET, CAUSALITY_NOTE)


def test_revisions_pick_the_snapshot(cache: Path) -> None:
    write_cached_repo(cache, "org/draft", {"config.json": '{"pard_token": 1}'})
    write_cached_repo(
        cache, "org/draft", {"config.json": '{"pard_token": 2}'}, revision="v2", commit="2" * 40
    )
    write_cached_repo(cache, "org/target", {"config.json": '{"vocab_size": 2}'})
    write_cached_repo(
        cache, "org/target", {"config.json": '{"vocab_size": 3}'}, revision="v2", commit="3" * 40
    )
    assert check("org/draft").token_id == 1
    assert check("org/draft", revision="v2").token_id == 2
    assert check("org/draft", revision="2" * 40).token_id == 2
    assert fields(check("org/draft", revision="v2", target="org/target")) == ["pard_token"]
    verdict = check("org/draft", revision="v2", target="org/target", target_revision="v2")
    assert (verdict.ok, verdict.target) == (True, "org/target")


def test_a_repo_id_not_cached_is_an_error_naming_download(cache: Path) -> None:
    verdict = check("org/absent")
    assert verdict.resolution is None
    (error,) = verdict.errors
    assert type(error) is RepoNotCachedError
    assert error.fix is not None
    assert "pass --download" in error.fix
    verdict = check({"pard_token": 3}, target="org/absent")
    assert [type(e) for e in verdict.errors] == [RepoNotCachedError]
    assert verdict.target == "org/absent"


def test_a_malformed_repo_id_or_revision_is_a_repo_id_error(cache: Path) -> None:
    # Text that is no repo id and no path is a missing path.
    assert [type(e) for e in check("org/bad name").errors] == [ConfigFileError]
    assert [type(e) for e in check(DFLASH_4B, revision="..").errors] == [RepoIdError]
    verdict = check({"pard_token": 3}, target=DFLASH_4B, target_revision="a b")
    assert [type(e) for e in verdict.errors] == [RepoIdError]


def test_a_local_path_wins_over_the_repo_id_of_the_same_spelling(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_cached_repo(cache, "org/draft", {"config.json": '{"pard_token": 1}'})
    write_config(tmp_path / "org" / "draft", {"pard_token": 9})
    monkeypatch.chdir(tmp_path)
    assert check("org/draft").token_id == 9


@pytest.fixture
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    """A fake hub serving Qwen/Qwen3-8B's config, set as huggingface_hub's endpoint."""
    from huggingface_hub import constants

    registry = tmp_path / "agent_harnesses.json"  # keeps huggingface_hub 2 offline
    registry.write_text('{"standardEnvVars": [], "harnesses": {}}')
    if hasattr(constants, "AGENT_HARNESSES_PATH"):
        monkeypatch.setattr(constants, "AGENT_HARNESSES_PATH", str(registry))
    with serve({VERIFIER: draft_repo(json.dumps(LLAMA3_8B).encode())}) as running:
        # What HF_ENDPOINT sets when huggingface_hub is imported: the endpoint, and the
        # URL template of file downloads built from it.
        monkeypatch.setattr(constants, "ENDPOINT", running.url)
        template = running.url + "/{repo_id}/resolve/{revision}/{filename}"
        monkeypatch.setattr(constants, "HUGGINGFACE_CO_URL_TEMPLATE", template)
        yield running


def test_download_fetches_a_verifier_that_is_not_cached(cache: Path, hub: FakeHub) -> None:
    assert check(speculators_for(VERIFIER)).target is None
    assert hub.requests == []
    verdict = check(speculators_for(VERIFIER), download=True)
    assert verdict.target == VERIFIER
    assert "config.json" in hub.files_requested()
    # the fake hub's tokenizer.json has no model: read from the snapshot, and refused
    *contract, tokenizer = verdict.errors
    assert [e.field for e in contract] == [
        "mask_token_id",
        "aux_hidden_state_layer_ids",
    ]
    assert type(tokenizer) is ConfigFileError
    assert tokenizer.path == str(
        cache / "models--Qwen--Qwen3-8B" / "snapshots" / MAIN_COMMIT / "tokenizer.json"
    )


def test_a_failed_download_of_a_verifier_is_a_note(cache: Path, hub: FakeHub) -> None:
    # The failure concerns only the verifier: the draft keeps its verdict.
    verdict = check(speculators_for("acme/absent"), download=True)
    assert verdict.errors == ()
    assert verdict.target is None
    assert verdict.notes[0].startswith(
        "target not checked: the verifier 'acme/absent' could not be downloaded: "
    )


# -- where the tokenizer files come from ------------------------------------------------------

ID = 310
"""An id that is a special added token, an ordinary token or unused, depending on the tokenizer."""


@pytest.fixture(scope="module")
def tokenizers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Tokenizers that say three different things of ``ID``, and a directory with none."""
    root = tmp_path_factory.mktemp("tokenizers")
    return {
        "special": write_qwen3_like(root / "special", vocab_size=300),  # 310 is added token 10
        "ordinary": write_qwen3_like(root / "ordinary", vocab_size=400),
        "unused": write_qwen3_like(root / "unused", vocab_size=200),  # 226 tokens in all
        "none": root,
    }


SPECIAL = TokenFacts(ID, TokenKind.SPECIAL, QWEN3_ADDED[10].content)


def model_dir(base: Path, tokenizer: Path, config: dict[str, Any]) -> Path:
    """A model directory: ``config`` beside copies of the tokenizer files in ``tokenizer``."""
    base.mkdir()
    for file in tokenizer.iterdir():
        if file.is_file():
            (base / file.name).write_bytes(file.read_bytes())
    return write_config(base, config)


def kind(verdict: Verdict) -> TokenKind | None:
    return None if verdict.token is None else verdict.token.kind


def test_tokenizer_files_come_from_the_option_else_the_draft_else_the_target(
    tmp_path: Path, tokenizers: dict[str, Path]
) -> None:
    draft = model_dir(tmp_path / "draft", tokenizers["special"], {"pard_token": ID})
    bare_draft = model_dir(tmp_path / "bare", tokenizers["none"], {"pard_token": ID})
    target = model_dir(tmp_path / "target", tokenizers["ordinary"], {"vocab_size": 1000})
    explicit = tokenizers["unused"]
    assert kind(check(draft, target=target, tokenizer=explicit)) is TokenKind.UNUSED
    assert check(draft, target=target).token == SPECIAL
    assert kind(check(bare_draft, target=target)) is TokenKind.ORDINARY
    assert kind(check({"pard_token": ID}, target=target)) is TokenKind.ORDINARY
    assert check(draft).token == SPECIAL


def test_without_tokenizer_files_a_note_names_where_they_were_looked_for(
    tmp_path: Path, tokenizers: dict[str, Path]
) -> None:
    draft = model_dir(tmp_path / "draft", tokenizers["none"], {"pard_token": ID})
    target = model_dir(tmp_path / "target", tokenizers["none"], {"vocab_size": 1000})
    verdict = check(draft, target=target)
    assert verdict.notes == (
        "tokenizer not checked: no tokenizer files beside the draft or the target",
        UNKNOWN_TOKENS,
    )
    verdict = check({"pard_token": ID}, target=target)
    assert verdict.notes == (
        "tokenizer not checked: no tokenizer files beside the target",
        UNKNOWN_TOKENS,
    )


def test_an_explicit_tokenizer_directory_must_hold_tokenizer_files(
    tmp_path: Path, tokenizers: dict[str, Path]
) -> None:
    draft = model_dir(tmp_path / "draft", tokenizers["special"], {"pard_token": ID})
    for directory, problem in [
        (tmp_path / "empty", "no tokenizer files here"),
        (tmp_path / "absent", "no such directory"),
        (draft / "config.json", "not a directory"),
    ]:
        if directory.name == "empty":
            directory.mkdir()
        verdict = check(draft, tokenizer=directory)
        (error,) = verdict.errors
        assert type(error) is ConfigFileError
        assert str(error).startswith(f"{directory}: {problem}")
        assert verdict.token is None


def test_a_broken_tokenizer_file_beside_the_draft_is_an_error_naming_the_file(
    tmp_path: Path,
) -> None:
    draft = write_config(tmp_path, {"pard_token": ID})
    (tmp_path / "tokenizer.json").write_text('{"model": 3}')
    verdict = check(draft)
    (error,) = verdict.errors
    assert type(error) is ConfigFileError
    assert str(error) == f"{tmp_path}/tokenizer.json: `model` must be an object; got 3 (int)."
    # --no-tokenizer: not read at all
    assert check(draft, check_tokenizer=False).errors == ()


def test_check_tokenizer_false_skips_the_tokenizer_entirely(
    tmp_path: Path, tokenizers: dict[str, Path]
) -> None:
    pad = 300  # <|endoftext|>, the pad token of tokenizers["special"]
    draft = model_dir(tmp_path / "draft", tokenizers["special"], {"pard_token": pad})
    assert [type(w).__name__ for w in check(draft).warnings] == ["PlaceholderTokenIdWarning"]
    for verdict in (
        check(draft, check_tokenizer=False),
        check(draft, tokenizer=tokenizers["special"], check_tokenizer=False),
        check(draft, tokenizer=tmp_path / "absent", check_tokenizer=False),
    ):
        assert verdict.ok
        assert (verdict.token, verdict.warnings, verdict.notes) == (
            None,
            (),
            (NO_TARGET, UNKNOWN_TOKENS),
        )


def test_a_speculators_draft_is_checked_against_the_tokenizer_beside_it(
    tmp_path: Path, tokenizers: dict[str, Path]
) -> None:
    draft = model_dir(tmp_path / "draft", tokenizers["special"], speculators_for("/nowhere"))
    draft_config = json.loads((draft / "config.json").read_text())
    draft_config["mask_token_id"] = 300
    write_config(draft, draft_config)
    verdict = check(draft)
    assert verdict.token == TokenFacts(300, TokenKind.SPECIAL, "<|endoftext|>")
    assert "a pad token id (tokenizer '<|endoftext|>')" in str(verdict.warnings[0])


# -- check_many: one verdict per draft, shared files read once ----------------------------------


def summary(verdict: Verdict) -> tuple[object, ...]:
    """Everything a verdict says, comparable across calls (errors by type and text)."""
    return (
        verdict.path,
        verdict.token_id,
        verdict.token,
        verdict.target,
        verdict.notes,
        [(type(e), e.field, str(e)) for e in verdict.errors],
        [(type(w), str(w)) for w in verdict.warnings],
    )


def test_check_many_gives_the_verdicts_check_gives_one_by_one(
    cache: Path, tmp_path: Path, tokenizers: dict[str, Path]
) -> None:
    write_cached_repo(cache, VERIFIER, {"config.json": json.dumps(LLAMA3_8B)})
    drafts: list[object] = [
        DFLASH_4B,
        str(EXAMPLES / "invalid" / "pard-token-as-string" / "config.json"),
        model_dir(tmp_path / "draft", tokenizers["special"], {"pard_token": ID}),
        {"pard_token": ID},
        speculators_for(VERIFIER),
        speculators_for("Qwen/Qwen3-32B"),  # not cached: a note
        tmp_path / "absent",
        "Org/not-cached",
        {"pard_token": "7"},
    ]
    target = model_dir(tmp_path / "target", tokenizers["ordinary"], QWEN3_8B)
    every_options: list[dict[str, Any]] = [
        {},
        {"target": target},
        {"target": QWEN3_8B, "tokenizer": tokenizers["unused"]},
        {"tokenizer": tmp_path / "no-such-tokenizer"},
        {"check_tokenizer": False, "target": tmp_path / "no-such-target"},
    ]
    for options in every_options:
        one_by_one = [summary(check(draft, **options)) for draft in drafts]
        assert [summary(v) for v in check_many(drafts, **options)] == one_by_one
    assert check_many([]) == []
    assert [v.path for v in check_many(iter(["a/config.json", "b/config.json"]))] == [
        "a/config.json",
        "b/config.json",
    ]


def counting(monkeypatch: pytest.MonkeyPatch, name: str) -> list[str]:
    """Record the first argument of every call of ``drafting_config.verdicts.<name>``."""
    original = getattr(verdicts_module, name)
    calls: list[str] = []

    def counted(first: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(os.fspath(first))
        return original(first, *args, **kwargs)

    monkeypatch.setattr(verdicts_module, name, counted)
    return calls


def test_check_many_reads_the_target_and_its_tokenizer_once(
    tmp_path: Path, tokenizers: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    target = model_dir(tmp_path / "target", tokenizers["ordinary"], QWEN3_8B)
    configs = counting(monkeypatch, "read_config_json")
    tokenizer_reads = counting(monkeypatch, "load_tokenizer_files")
    verdicts = check_many([{"pard_token": ID}] * 3, target=target)
    assert [kind(v) for v in verdicts] == [TokenKind.ORDINARY] * 3
    assert configs == [str(target)]
    assert tokenizer_reads == [str(target)]
    for _ in range(3):
        check({"pard_token": ID}, target=target)
    assert len(configs) == len(tokenizer_reads) == 4  # check() shares nothing between calls


def test_check_many_reads_an_explicit_tokenizer_once_and_repeats_its_error(
    tmp_path: Path, tokenizers: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    tokenizer_reads = counting(monkeypatch, "load_tokenizer_files")
    good = check_many([{"pard_token": ID}, {"pard_token": ID + 1}], tokenizer=tokenizers["special"])
    assert [v.token_id for v in good] == [ID, ID + 1]
    assert good[0].token == SPECIAL
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "tokenizer.json").write_text("{")
    bad = check_many([{"pard_token": ID}] * 2, tokenizer=broken)
    assert tokenizer_reads == [str(tokenizers["special"]), str(broken)]
    assert [[str(e) for e in v.errors] for v in bad] == [[str(bad[0].errors[0])]] * 2
    assert str(bad[0].errors[0]).startswith(f"{broken}/tokenizer.json: ")


def test_check_many_looks_each_verifier_up_once(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_cached_repo(cache, VERIFIER, {"config.json": json.dumps(QWEN3_8B)})
    lookups = counting(monkeypatch, "local_or_cached")
    other = "Qwen/Qwen3-32B"  # not cached
    drafts = [speculators_for(VERIFIER), speculators_for(other)] * 3
    verdicts = check_many(drafts, check_tokenizer=False)
    assert lookups == [VERIFIER, other]
    assert [v.target for v in verdicts] == [VERIFIER, None] * 3
    assert all(v.ok for v in verdicts)


@pytest.mark.parametrize(
    "single",
    [
        "examples/dflash-qwen3-4b",
        b"draft",
        bytearray(b"draft"),
        memoryview(b"draft"),
        DFLASH_4B,
        {"pard_token": 5},  # iterating it would check its keys as paths
        SimpleNamespace(pard_token=5),
        5,
    ],
)
def test_check_many_refuses_a_single_draft(single: object) -> None:
    with pytest.raises(TypeError, match=r"check_many\(\) takes a list, tuple, set or iterator"):
        check_many(single)  # type: ignore[arg-type]


def test_check_many_takes_a_single_transformers_config_for_what_it_is() -> None:
    transformers = pytest.importorskip("transformers")
    config = transformers.Qwen3Config(pard_token=5)  # iterable, over its attribute names
    with pytest.raises(TypeError, match=r"got Qwen3Config"):
        check_many(config)
    (verdict,) = check_many([config])
    assert verdict.token_id == 5


def test_check_many_takes_tuples_sets_and_generators() -> None:
    drafts = ({"pard_token": 1}, {"pard_token": 2})
    assert [v.token_id for v in check_many(drafts)] == [1, 2]
    assert [v.path for v in check_many({"a/config.json"})] == ["a/config.json"]
    assert [v.token_id for v in check_many(d for d in drafts)] == [1, 2]


@pytest.mark.slow
@pytest.mark.parametrize("cached", [False, True])
def test_an_uncached_verifier_is_reported_without_importing_the_hubs_downloader(
    tmp_path: Path, cached: bool
) -> None:
    # The downloader's import costs ~0.2 s; a repo whose folder is not in the cache is
    # known to be uncached without it.
    cache = tmp_path / "hf-cache"
    cache.mkdir()
    if cached:
        write_cached_repo(cache, VERIFIER, {"config.json": json.dumps(QWEN3_8B)})
    program = (
        "import json, sys\n"
        "from drafting_config import check\n"
        f"verdict = check(json.loads({json.dumps(json.dumps(speculators_for(VERIFIER)))}))\n"
        "print(json.dumps([verdict.target, 'huggingface_hub.file_download' in sys.modules]))\n"
    )
    env = {**os.environ, "HF_HUB_CACHE": str(cache)}
    env.pop("HF_HUB_OFFLINE", None)
    result = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, env=env, check=True
    )
    assert json.loads(result.stdout) == ([VERIFIER, True] if cached else [None, False])


# -- edges found by mutation testing -----------------------------------------------------------


def test_a_check_tokenizer_that_is_no_bool_is_shown_and_the_draft_still_named() -> None:
    verdict = check("some/config.json", check_tokenizer="yes")  # type: ignore[arg-type]
    assert verdict.path == "some/config.json"
    assert [str(e) for e in verdict.errors] == [
        "`check_tokenizer` must be True or False, got 'yes' (str)."
    ]


def test_the_tokenizers_placeholder_joins_the_resolvers_as_one_finding(
    tmp_path: Path, tokenizers: dict[str, Path]
) -> None:
    """One finding for one fact: the id is a pad token of the config and of the tokenizer."""
    pad = 300  # <|endoftext|>, the pad token of tokenizers["special"]
    draft = {"pard_token": pad, "pad_token_id": pad}
    verdict = check(draft, tokenizer=tokenizers["special"])
    (warning,) = verdict.warnings
    assert type(warning) is PlaceholderTokenIdWarning
    assert str(warning) == (
        "`pard_token` = 300 is also a pad token id (config, tokenizer '<|endoftext|>'): the "
        "masked slots may read as that token."
    )
    target = tmp_path / "target"
    target.mkdir()
    (target / "config.json").write_text(json.dumps({"eos_token_id": pad}), encoding="utf-8")
    (warning,) = check(draft, tokenizer=tokenizers["special"], target=target).warnings
    assert "a pad and eos token id (config, target, tokenizer '<|endoftext|>')" in str(warning)
    for engine in ENGINES:
        found = check(draft, tokenizer=tokenizers["special"], target=target, engine=engine)
        placeholders = [w for w in found.warnings if w.code is TOKEN_PLACEHOLDER]
        assert len(placeholders) == 1, engine


# --- Edges of check_many(): what sharing reads between drafts must not change ---------------------


def test_a_repeated_tokenizer_error_does_not_pile_up_every_drafts_frames(tmp_path: Path) -> None:
    # The error of a missing tokenizer directory is read once and raised again for each
    # draft; each raise must not extend the traceback of the last, which would hold the
    # frames (and configs) of every draft checked and print them all on raise_first().
    absent = tmp_path / "absent"
    (alone,) = check({"pard_token": 3}, tokenizer=absent).errors
    depth = len(traceback.extract_tb(alone.__traceback__))
    verdicts = check_many(({"pard_token": 3} for _ in range(20)), tokenizer=absent)
    assert [str(v.errors[0]) for v in verdicts] == [str(alone)] * 20
    assert {len(traceback.extract_tb(v.errors[0].__traceback__)) for v in verdicts} == {depth}


class PathOnce:
    """An os.PathLike that gives a path on its first ``__fspath__`` call only."""

    def __init__(self, path: Path) -> None:
        self.path: Path | None = path

    def __fspath__(self) -> str:
        if self.path is None:
            raise RuntimeError("no second path")
        path, self.path = self.path, None
        return str(path)


@pytest.mark.parametrize("many", [False, True])
def test_a_tokenizer_path_that_fails_on_its_second_use_is_an_error(
    tmp_path: Path, many: bool
) -> None:
    # The tokenizer's path is read once: a directory without tokenizer files is named in
    # the error by that path, and a second __fspath__() never runs (nor escapes check()).
    draft = {"pard_token": 3}
    tokenizer = PathOnce(tmp_path)
    if many:
        (verdict,) = check_many([draft], tokenizer=tokenizer)
    else:
        verdict = check(draft, tokenizer=tokenizer)
    (error,) = verdict.errors
    assert type(error) is ConfigFileError
    assert str(error) == f"{tmp_path}: no tokenizer files here (tokenizer.json, " + (
        "tokenizer_config.json, special_tokens_map.json)."
    )


def test_a_tokenizer_that_is_not_a_path_is_named_by_its_option() -> None:
    # load_tokenizer_files names its own parameter, `directory`; check() names the option.
    draft = {"pard_token": 3}
    not_a_path: Any = 7
    verdicts = [check(draft, tokenizer=not_a_path), *check_many([draft], tokenizer=not_a_path)]
    assert [[str(e) for e in v.errors] for v in verdicts] == [
        ["`tokenizer` must be a path (str, bytes or os.PathLike); got 7 (int)."]
    ] * 2


def test_without_drops_warnings_and_notes_of_a_code_but_never_an_error() -> None:
    verdict = check(EXAMPLES / "invalid" / "pard-token-as-string", check_tokenizer=False)
    (error,) = verdict.errors
    assert error.code is not None
    notes = {str(code) for code in (getattr(note, "code", None) for note in verdict.notes) if code}
    assert notes
    kept = verdict.without({error.code.name, *notes})
    assert kept.errors == verdict.errors  # the engine refuses the draft: it stays refused
    assert not kept.ok
    assert kept.outcome == "invalid"
    assert not [note for note in kept.notes if getattr(note, "code", None)]


def test_a_check_leaves_no_reference_cycle() -> None:
    """A draft's vLLM verdicts hold no cycle (the engine's reading of the file, kept on the
    file, held the file): a sweep's drafts are freed as their verdicts are, never left for
    the cyclic collector, on every release and whether the draft passes or not.  A cycle of
    the check holds at least one of the package's objects (a file, a resolution, an error),
    so only those are counted.  (SGLang's parse re-raises one cached error per rule, whose
    traceback holds its frames: not yet.)"""
    drafts = sorted(str(path) for path in EXAMPLES.glob("**/config.json"))
    assert len(drafts) > 5
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        verdicts = check_many(drafts, check_tokenizer=False, engine="vllm==*")
        assert {verdict.outcome for verdict in verdicts} >= {"ok", "invalid"}
        del verdicts
        gc.collect()
        # Ours only: what another test left behind (torch's fake tensors of a compiled
        # model, say) may become garbage while the check runs, and is not the check's.
        left = [
            type(thing).__name__
            for thing in gc.garbage
            if type(thing).__module__.startswith("drafting_config")
        ]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()
    assert left == []


# --- the model a serve command names ----------------------------------------------------------


@pytest.mark.parametrize(
    "given",
    [
        "d/config.json",
        "./d/config.json",
        "d//config.json",
        "d/./config.json",
        "e/../d/config.json",
        "d",
        "d/",
        "d/other.json",
        "config.json",
    ],
)
def test_the_serve_command_names_a_config_files_folder_as_pathlib_writes_it(
    given: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The read says whether a file was given (no second stat), and a file's folder is cut
    at its last slash only when pathlib would write it so: the command names what it did
    when the folder came from ``Path(given).parent``."""
    monkeypatch.chdir(tmp_path)
    for folder in (tmp_path, tmp_path / "d", tmp_path / "e"):
        folder.mkdir(exist_ok=True)
        (folder / "config.json").write_text((DFLASH_4B / "config.json").read_text())
    (tmp_path / "d" / "other.json").write_text((DFLASH_4B / "config.json").read_text())
    verdict = check(given, check_tokenizer=False, check_weights=False)
    assert verdict.ok
    assert verdict.serve_with is not None
    path = Path(given)
    if not path.is_file():
        expected = given
    elif path.name == "config.json":
        expected = str(path.parent)
    else:
        expected = DRAFT_PLACEHOLDER
    config = shlex.split(verdict.serve_with)
    assert json.loads(config[config.index("--speculative-config") + 1])["model"] == expected


@settings(max_examples=300, deadline=None)
@given_examples(
    st.lists(st.sampled_from(["a", ".", "..", "", "b c", "config.json", "~"]), max_size=5),
    st.sampled_from(["config.json", "other.json"]),
    st.booleans(),
)
def test_a_config_files_folder_is_pathlibs_parent(
    parts: list[str], name: str, absolute: bool
) -> None:
    shown = ("/" if absolute else "") + "/".join([*parts, name])
    expected = str(Path(shown).parent) if Path(shown).name == "config.json" else "P"
    assert verdicts_module._serve_name(shown, True, "P") == expected


# --- hand-written __init__s of frozen dataclasses ------------------------------------------------


@pytest.mark.parametrize("cls", [Verdict, Resolution, FieldVerdict])
def test_a_hand_written_init_takes_the_fields_as_the_dataclass_would(cls: type) -> None:
    """``Verdict``, ``Resolution`` and ``FieldVerdict`` write their fields in one
    update of the instance's dict (a frozen dataclass's own __init__ makes a call per field): their
    __init__ must take the fields as the generated one would (names, order, kinds,
    annotations, defaults) and set every one of them, and they stay frozen."""
    params = inspect.signature(cls).parameters.values()
    keyword, either = inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert [(p.name, p.kind, p.annotation, p.default) for p in params] == [
        (
            f.name,
            keyword if f.kw_only else either,
            f.type,
            inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default,
        )
        for f in dataclasses.fields(cls)
    ]
    values = {f.name: object() for f in dataclasses.fields(cls)}
    built = cls(**values)
    assert {name: getattr(built, name) for name in values} == values
    first = dataclasses.fields(cls)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(built, first, ())
    assert getattr(dataclasses.replace(built, **{first: ()}), first) == ()
