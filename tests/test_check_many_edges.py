"""Edges of check_many(): what sharing reads between drafts must not change."""

from __future__ import annotations

import traceback
from pathlib import Path
from typing import Any

import pytest

from drafting_config import ConfigFileError, check, check_many


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
