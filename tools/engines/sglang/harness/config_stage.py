"""Build the released SGLang's own server arguments from a serve command; print one JSON line
each.

The config stage of a launch: the command line a user pastes (``python -m
sglang.launch_server --model-path TARGET --speculative-algorithm ALGORITHM
--speculative-draft-model-path DRAFT ...``) parsed by SGLang's own parser into
``ServerArgs`` (``srt/server_args.py: prepare_server_args``, which ``sglang/launch_server.py``
calls), then resolved as the scheduler resolves it (``set_global_server_args_for_scheduler``,
which runs ``ServerArgs.resolve_once``: the speculative hook, ``srt/arg_groups/
speculative_hook.py``, derives or refuses the steps, top-k and draft tokens from the draft's
config). Runs inside the harness's environment, as ``stage_runner.py`` does, with its
preparation (``stage_runner._prepare``), and imports nothing of ``drafting_config``.

    python config_stage.py python -m sglang.launch_server --model-path TARGET_DIR ...
    python config_stage.py --serve   # requests on stdin, one JSON object a line

A request holds the printed command (``argv``), the names it gives the draft and the target
(``names``) and the scratch folders holding their ``config.json`` (``draft``, ``target``):
the names are replaced by the folders (``tools/harness/launch.py: local_argv``).

What this process appends to the command, and why (as ``stage_runner.py`` passes them):
``--device cuda`` (what a user serving on a GPU has; the CPU platform refuses DFLASH and
DSPARK outright, no reading of the draft), ``--skip-tokenizer-init`` (the folders hold only
``config.json``), ``--load-format dummy``, ``--disable-cuda-graph``, ``--context-length
1024``. Nothing of the speculative arguments is touched.

What it replaces, and why: ``srt/arg_groups/mamba_hook.py:
_platform_supports_mamba_cache_extra_buffer`` answers true, as it does on CUDA, MUSA, NPU,
HIP and XPU: the resolution asserts it for a hybrid Mamba target (Qwen3.5), and the CPU
platform ``SGLANG_USE_CPU_ENGINE`` selects (``stage_runner.py`` says why) has no Mamba cache
snapshots, which no GPU server lacks.

Output: one line on stdout, prefixed ``HARNESS-RESULT `` and followed by a JSON object::

    {"sglang_version": "0.5.23", "outcome": "passed", "exception": null,
     "speculative": {"algorithm": "DFLASH", "draft": "<draft>", "num_steps": 1,
                     "eagle_topk": 1, "num_draft_tokens": 16}}
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

if not __package__:  # run as a script, in the engine's environment: see tools/harness/serve.py
    sys.path.append(str(Path(__file__).resolve().parents[4]))

from tools.engines.sglang.harness.stage_runner import _prepare  # the same imports as every stage
from tools.harness.launch import local_request, unreported
from tools.harness.serve import exception_record, report, serve

__all__ = ["CPU_FLAGS", "LAUNCHER", "run"]

LAUNCHER = ("python", "-m", "sglang.launch_server")
"""What a printed SGLang command starts with: the arguments after it are the server's."""

CPU_FLAGS = (
    "--device",
    "cuda",
    "--skip-tokenizer-init",
    "--load-format",
    "dummy",
    "--disable-cuda-graph",
    "--context-length",
    "1024",
)
"""What the config stage appends to the command (the module docstring says why)."""


def _as_on_a_gpu() -> None:
    """The platform answers a GPU platform gives (the module docstring says which, and why)."""
    from sglang.srt.arg_groups import mamba_hook

    mamba_hook._platform_supports_mamba_cache_extra_buffer = lambda: True


def run(argv: list[str]) -> dict[str, Any]:
    """The server arguments ``argv`` resolves to, or the exception that stopped them."""
    _prepare()
    import sglang
    from sglang.srt.runtime_context import get_spec
    from sglang.srt.server_args import prepare_server_args, set_global_server_args_for_scheduler

    _as_on_a_gpu()
    result: dict[str, Any] = {
        "sglang_version": sglang.__version__,
        "outcome": "passed",
        "failed_stage": None,
        "exception": None,
        "speculative": None,
    }
    stage = "parse"
    try:
        if tuple(argv[: len(LAUNCHER)]) != LAUNCHER:
            raise ValueError(f"not an SGLang launch command: {argv[: len(LAUNCHER)]}")
        server_args = prepare_server_args([*argv[len(LAUNCHER) :], *CPU_FLAGS])
        stage = "config"
        set_global_server_args_for_scheduler(server_args)
        spec = get_spec()
        result["speculative"] = {
            "algorithm": spec.speculative_algorithm,
            "draft": spec.speculative_draft_model_path,
            "num_steps": spec.speculative_num_steps,
            "eagle_topk": spec.speculative_eagle_topk,
            "num_draft_tokens": spec.speculative_num_draft_tokens,
        }
    except (Exception, SystemExit) as error:  # argparse exits on an unknown option
        result["outcome"] = "failed"
        result["failed_stage"] = stage
        result["exception"] = exception_record(error)
    return result


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    os.environ.setdefault("SGLANG_LOGGING_LEVEL", "error")
    if arguments == ["--serve"]:
        _prepare()
        return serve(local_request(run), unreported)
    report(run(arguments))
    return 0


if __name__ == "__main__":
    sys.exit(main())
