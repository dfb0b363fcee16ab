"""Build a released vLLM's own configuration from a serve command; print one JSON line each.

The config stage of a launch: the command line a user pastes (``vllm serve TARGET
--speculative-config JSON``) parsed by vLLM's own ``vllm serve`` parser
(``vllm/entrypoints/cli/serve.py: ServeSubcommand.subparser_init``, on
``vllm/entrypoints/common/cli_args.py: make_arg_parser``), the parsed arguments turned into
``EngineArgs.from_cli_args`` and ``EngineArgs.create_engine_config()`` run: both
``ModelConfig``s, ``SpeculativeConfig`` (its ``__post_init__`` and ``_verify_args``, which
refuse a launch without ``num_speculative_tokens`` or ``model``), ``VllmConfig``.  Runs inside
one of the harness's environments, as ``stage_runner.py`` does, with its patches
(``stage_runner._prepare``: the CPU platform, the Triton answer a GPU machine gives), and
imports nothing of ``drafting_config``.

    python config_stage.py vllm serve TARGET_DIR --speculative-config '{...}'
    python config_stage.py --serve   # requests on stdin, one JSON object a line

A request (``tools/harness/process.py: run_served``) holds the printed command (``argv``),
the names it gives the draft and the target (``names``) and the scratch folders holding
their ``config.json`` (``draft``, ``target``): the names are replaced by the folders
(``tools/harness/launch.py: local_argv``, which also replaces a ``num_speculative_tokens``
placeholder, and the report says so).

What this process appends to the command to build the configuration on a CPU-only
machine, and why (as ``stage_runner.py`` passes them): ``--skip-tokenizer-init`` (the
folders hold only ``config.json``), ``--load-format dummy``, ``--enforce-eager``,
``--max-model-len 1024`` (a target may not give more here), ``--max-num-seqs 4``,
``--max-num-batched-tokens 1024``. Nothing of the speculative configuration is touched.

Output: one line on stdout, prefixed ``HARNESS-RESULT `` and followed by a JSON object::

    {"vllm_version": "0.34.0", "outcome": "passed", "exception": null,
     "speculative": {"method": "dflash", "model": "<draft>", "num_speculative_tokens": 15,
                     "parallel_drafting": true}}
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

if not __package__:  # run as a script, in the engine's environment: see tools/harness/serve.py
    sys.path.append(str(Path(__file__).resolve().parents[4]))

from tools.engines.vllm.harness.stage_runner import _prepare  # the same patches as every stage
from tools.harness.launch import local_request, unreported
from tools.harness.serve import exception_record, report, serve

__all__ = ["CPU_FLAGS", "run"]

CPU_FLAGS = (
    "--skip-tokenizer-init",
    "--load-format",
    "dummy",
    "--enforce-eager",
    "--max-model-len",
    "1024",
    "--max-num-seqs",
    "4",
    "--max-num-batched-tokens",
    "1024",
)
"""What the config stage appends to the command (the module docstring says why)."""


def _parse(argv: list[str]) -> argparse.Namespace:
    """``argv`` (``vllm serve ...``) parsed as vLLM's own ``vllm serve`` parses it: a
    ``serve`` subparser filled by ``make_arg_parser``, as
    ``ServeSubcommand.subparser_init`` builds it (that module itself is not imported: it
    imports the API server, whose packages this environment lacks)."""
    from vllm.entrypoints.common.cli_args import make_arg_parser
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    if argv[:2] != ["vllm", "serve"]:
        raise ValueError(f"not a vllm serve command: {argv[:2]}")
    parser = FlexibleArgumentParser(prog="vllm")
    subparsers = parser.add_subparsers(dest="subparser")
    make_arg_parser(subparsers.add_parser("serve", usage="vllm serve [model_tag] [options]"))
    args = parser.parse_args(argv[1:])
    if getattr(args, "model_tag", None) is not None:  # ServeSubcommand.cmd does the same
        args.model = args.model_tag
    return args


def run(argv: list[str]) -> dict[str, Any]:
    """The configuration ``argv`` builds, or the exception that stopped it."""
    _prepare()
    import vllm
    from vllm.engine.arg_utils import EngineArgs

    result: dict[str, Any] = {
        "vllm_version": vllm.__version__,
        "outcome": "passed",
        "failed_stage": None,
        "exception": None,
        "speculative": None,
    }
    stage = "parse"
    try:
        args = _parse([*argv, *CPU_FLAGS])
        stage = "config"
        config = EngineArgs.from_cli_args(args).create_engine_config()
        spec = config.speculative_config
        result["speculative"] = (
            None
            if spec is None
            else {
                "method": spec.method,
                "model": spec.model,
                "num_speculative_tokens": spec.num_speculative_tokens,
                "parallel_drafting": bool(getattr(spec, "parallel_drafting", False)),
            }
        )
    except (Exception, SystemExit) as error:  # argparse exits on an unknown option
        result["outcome"] = "failed"
        result["failed_stage"] = stage
        result["exception"] = exception_record(error)
    return result


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    if arguments == ["--serve"]:
        _prepare()
        return serve(local_request(run), unreported)
    report(run(arguments))
    return 0


if __name__ == "__main__":
    sys.exit(main())
