"""What both stage runners do inside the engine's environment: record an exception, report,
serve requests from stdin in forked children, and read the rotary embedding a model was
built with.

Standard library only, and imported by the stage runners as ``tools.harness.serve``:
a stage runner run as a script appends the repository's root to ``sys.path``, after the
engine's site-packages, so nothing of the engine's is shadowed; nothing of
``drafting_config`` is imported.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from typing import Any

__all__ = [
    "RESULT_PREFIX",
    "ROPE_ATTRIBUTES",
    "exception_record",
    "passed",
    "report",
    "rope_reading",
    "serve",
]

RESULT_PREFIX = "HARNESS-RESULT "
"""What starts the report's line on stdout."""


def exception_record(error: BaseException) -> dict[str, str]:
    """``error``'s type, first line, the next lines (``detail``, shortened) and the innermost
    frame under a site-packages folder that raised (``where``, relative to it)."""
    message = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    where = ""
    for frame in traceback.extract_tb(error.__traceback__):
        marker = "/site-packages/"
        if marker in frame.filename:
            where = f"{frame.filename.split(marker, 1)[1]}:{frame.lineno} ({frame.name})"
    return {
        "type": type(error).__name__,
        "message": message[0] if message else "",
        # A multi-line message (pydantic's ValidationError names the field and the reason
        # on the lines after the first): the next lines, shortened.
        "detail": " | ".join(message[1:4])[:400],
        "where": where,
    }


def report(result: dict[str, Any]) -> None:
    """Print ``result`` as the report's line (after whatever the run printed)."""
    sys.stdout.flush()
    print(RESULT_PREFIX + json.dumps(result, sort_keys=True), flush=True)


_progress: list[str] = []
"""The file a served run notes each stage it passes in (set in the forked child), if any."""


def passed(stage: str) -> None:
    """Note that the run passed ``stage``: when the run is served and then stops without a
    report (killed at its timeout, or dead), its report still says how far it went."""
    if _progress:
        with open(_progress[0], "a", encoding="utf-8") as noted:
            noted.write(stage + "\n")


def _passed_so_far(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8") as noted:
            return [line.strip() for line in noted if line.strip()]
    except OSError:
        return []


def serve(
    run: Callable[[dict[str, Any]], dict[str, Any]],
    unreported: Callable[[dict[str, Any], str, str], dict[str, Any]],
) -> int:
    """Run the requests on stdin (one JSON object a line), each in a forked child.

    The caller has imported the engine once, before any run sets its global state; each
    request forks a child that runs ``run(request)`` and reports through a pipe, so every run
    starts from the same freshly imported, never-configured process (the engine's state is
    set only in the child) without paying for the imports again. A child that runs past the
    request's ``timeout`` is killed and reported as ``unreported(request, "timeout", why)``;
    one that dies without a report as ``unreported(request, "crashed", why)``, with the
    stages it noted passing (:func:`passed`) as its ``stages_passed``.
    """
    import select
    import signal

    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        timeout = float(request.get("timeout", 300))
        read_end, write_end = os.pipe()
        handle, noted = tempfile.mkstemp(prefix="harness-stages-", suffix=".txt")
        os.close(handle)
        pid = os.fork()
        if pid == 0:  # the child: one run, then out without running the parent's exit code
            _progress[:] = [noted]
            os.close(read_end)
            os.dup2(2, 1)  # the engine's prints go to stderr; the pipe carries the result
            with os.fdopen(write_end, "w") as pipe:
                pipe.write(json.dumps(run(request), sort_keys=True))
            os._exit(0)
        os.close(write_end)
        chunks: list[bytes] = []
        deadline = time.monotonic() + timeout
        while True:
            ready, _, _ = select.select([read_end], [], [], max(deadline - time.monotonic(), 0))
            if not ready:
                os.kill(pid, signal.SIGKILL)
                result = unreported(request, "timeout", f"no report within {timeout:g} s")
                break
            chunk = os.read(read_end, 1 << 16)
            if not chunk:
                text = b"".join(chunks).decode()
                result = (
                    json.loads(text)
                    if text
                    else unreported(request, "crashed", "the run died without a report")
                )
                break
            chunks.append(chunk)
        os.close(read_end)
        os.waitpid(pid, 0)
        if result.get("outcome") in {"timeout", "crashed"} and not result.get("stages_passed"):
            result["stages_passed"] = _passed_so_far(noted)
        with contextlib.suppress(OSError):
            os.remove(noted)
        print(RESULT_PREFIX + json.dumps(result, sort_keys=True), flush=True)
    return 0


ROPE_ATTRIBUTES = (
    "scaling_factor",
    "low_freq_factor",
    "high_freq_factor",
    "orig_max_position",
    "original_max_position_embeddings",
    "extrapolation_factor",
    "beta_fast",
    "beta_slow",
)
"""What both engines' rotary embedding classes (vLLM's ``layers/rotary_embedding/*.py``,
SGLang's ``srt/layers/rotary_embedding``) hold of their scaling, beside the class and
``base``: read where a class has them."""


def rope_reading(model: Any) -> dict[str, Any] | None:
    """The rotary embedding ``model`` was built with (its first ``rotary_emb`` module, as the
    engine's ``get_rope`` made it from the model's config): its class, its base and the
    scaling it holds (:data:`ROPE_ATTRIBUTES`); ``None`` when it has none."""
    for name, module in model.named_modules():
        if name.split(".")[-1] != "rotary_emb":
            continue
        reading: dict[str, Any] = {"class": type(module).__name__}
        base = getattr(module, "base", None)
        reading["base"] = None if base is None else float(base)
        for attribute in ROPE_ATTRIBUTES:
            value = getattr(module, attribute, None)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                reading[attribute] = float(value)
        return reading
    return None
