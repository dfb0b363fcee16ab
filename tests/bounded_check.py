"""A worker that runs :func:`drafting_config.check` on requests read from standard input,
one JSON object a line, and answers each with one line: run by
``tests/test_hostile_numbers.py`` in a subprocess under an address-space limit (its
argument, set before the first request), so that a
check whose work grows with a value read from a config fails the test instead of the
machine.

A request is ``{"draft": {...}, "target": {...} | null, "engine": "vllm" | "sglang",
"weights": PATH | null}``; with ``weights``, the draft is written as ``config.json`` into a
fresh directory beside a copy of that safetensors file and checked as a path, so that the
checkpoint rules run too.  The answer is ``{"ok": bool, "errors": N}``.  An exception from
``check()`` is not caught: the worker dies, and the test reads its traceback.
"""

from __future__ import annotations

import json
import resource
import shutil
import sys
import tempfile
from pathlib import Path

from drafting_config import check
from drafting_config.engines import ENGINES


def answer(request: dict[str, object]) -> dict[str, object]:
    """Check one request's draft, as the module docstring says."""
    draft = request["draft"]
    weights = request.get("weights")
    engine = next(name for name in ENGINES if name == request["engine"])  # an engine, typed
    with tempfile.TemporaryDirectory() as folder:
        subject: object = draft
        if isinstance(weights, str):
            (Path(folder) / "config.json").write_text(json.dumps(draft), encoding="utf-8")
            shutil.copy(weights, Path(folder) / "model.safetensors")
            subject = folder
        verdict = check(subject, target=request.get("target"), check_tokenizer=False, engine=engine)
    return {"ok": verdict.ok, "errors": len(verdict.errors)}


def main() -> None:
    """Answer each line of standard input until it closes, under the address-space limit
    in bytes given as the first argument."""
    limit = int(sys.argv[1])
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    for line in sys.stdin:
        print(json.dumps(answer(json.loads(line))), flush=True)


if __name__ == "__main__":
    main()
