"""Edges of check_many(): what sharing reads between drafts must not change."""

from __future__ import annotations

import traceback
from pathlib import Path

from drafting_config import check, check_many


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
