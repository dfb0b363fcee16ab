"""Run every serve command the checker prints for the corpus and the bundled examples through
each engine's own config stage, per release; record the readings.

    python -m tools.serve_readings [--engine vllm|sglang] [--release VERSION] [--case NAME]

For each case of the harnesses' corpus (:data:`tools.harness.corpus.CASES`, every
corpus draft and bundled example with its target) and each release the harness has an
environment for, the checker's verdict of that release (``check(draft, target=target,
engine=RELEASE)``) prints a serve command (``Verdict.serve_with``) where it passes the draft;
the command runs through the release's config stage (``vllm_harness/config_stage.py``:
vLLM's own ``vllm serve`` parser, ``EngineArgs.create_engine_config``;
``sglang_harness/config_stage.py``: SGLang's ``prepare_server_args`` and the scheduler's
resolution), in one served process per release (a forked child per command). A verdict
that prints no command is recorded with ``"command": null``. The readings go to
:data:`READINGS` (``engine -> release -> [reading]``), read by
``tests/test_serve_commands.py``.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import Any, Final

from drafting_config import check
from drafting_config.engines import RELEASES, Engine
from drafting_config.engines.sglang.serving import DRAFT_OPTION, MODEL_OPTION
from tools.harness import process

ROOT: Final = Path(__file__).resolve().parents[1]
READINGS: Final = ROOT / "tests" / "real_configs" / "serve_readings.json"
"""The recorded readings: ``{"vllm": {"0.34.0": [...]}, "sglang": {"0.5.23": [...]}}``."""
TIMEOUT: Final = 600.0


def printed_names(engine: str, argv: list[str]) -> tuple[str, str]:
    """The draft and target a printed command names (``engine``: ``vllm`` or ``sglang``)."""
    if engine == "vllm":
        option = argv.index("--speculative-config")
        return str(json.loads(argv[option + 1])["model"]), argv[2]
    return argv[argv.index(DRAFT_OPTION) + 1], argv[argv.index(MODEL_OPTION) + 1]


def _vllm_server(release: str) -> tuple[list[str], Callable[[Path], dict[str, str]], str]:
    from tools.engines.vllm.harness import harness
    from tools.engines.vllm.harness.environment import ensure_environment

    python = ensure_environment(release)
    stage = Path(harness.__file__).with_name("config_stage.py")
    return (
        [str(python), str(stage), "--serve"],
        lambda folder: harness._environment(folder, python, release),
        "vllm-config-stage-",
    )


def _sglang_server(release: str) -> tuple[list[str], Callable[[Path], dict[str, str]], str]:
    from tools.engines.sglang.harness import harness
    from tools.engines.sglang.harness.environment import ensure_environment

    python = ensure_environment()
    stage = Path(harness.__file__).with_name("config_stage.py")
    return (
        harness._niced([str(python), str(stage), "--serve"]),
        harness._environment,
        "sglang-config-stage-",
    )


def releases() -> dict[str, tuple[str, ...]]:
    """The releases each engine's harness has an environment for, oldest first."""
    from tools.engines.sglang.harness.environment import REQUIREMENTS
    from tools.engines.vllm.harness.environment import RELEASES

    sglang = next(
        line.partition("==")[2].strip()
        for line in REQUIREMENTS.read_text(encoding="utf-8").splitlines()
        if line.startswith("sglang==")
    )
    return {"vllm": tuple(RELEASES), "sglang": (sglang,)}


def _cases(only: Collection[str] | None) -> list[tuple[str, str, str]]:
    from tools.harness.corpus import CASES

    return [
        (case.name, case.draft, case.target) for case in CASES if only is None or case.name in only
    ]


def readings(
    engine: str, release: str, only: Collection[str] | None = None
) -> Iterator[dict[str, Any]]:
    """Each case's reading for ``engine`` ``release`` (``only``: those cases, by name), in
    one served process: the printed command and what the config stage made of it."""
    printed: list[tuple[dict[str, Any], process.Request | None]] = []
    for name, draft, target in _cases(only):
        verdict = check(ROOT / draft, target=ROOT / target, engine=_engine(engine, release))
        # The command as a user in the repository's root would have it printed.
        command = _relative(verdict.serve_with)
        reading: dict[str, Any] = {"name": name, "draft": draft, "target": target}
        reading["command"] = command
        if command is None:
            printed.append((reading, None))
            continue
        argv = shlex.split(command)
        fields = {"argv": argv, "names": list(printed_names(engine, argv))}
        printed.append((reading, (ROOT / draft, ROOT / target, fields)))
    requests = [request for _, request in printed if request is not None]
    server, environment, prefix = (_vllm_server if engine == "vllm" else _sglang_server)(release)
    results = iter(
        process.run_served(server, environment, requests, prefix=prefix, timeout=TIMEOUT)
        if requests
        else ()
    )
    for reading, request in printed:
        if request is not None:
            result = next(results)
            reading.update(
                outcome=result["outcome"],
                placeholder=result.get("placeholder", False),
                speculative=_scrubbed(result.get("speculative"), prefix),
                exception=result.get("exception"),
                artefact=None if result["outcome"] == "passed" else artefact(engine, result),
            )
        yield reading


_CPU_PLATFORM: Final = ("requires platform support",)
"""What SGLang's resolution asserts of its platform, which the CPU platform the harness runs
fails and a GPU passes: ``srt/arg_groups/mamba_hook.py: validate_mamba_extra_buffer``
(``_platform_supports_mamba_cache_extra_buffer``: CUDA, MUSA, NPU, HIP, XPU) for a hybrid
Mamba target (Qwen3.5)."""


def artefact(engine: str, result: dict[str, Any]) -> str | None:
    """Why a failed config stage is an artefact of this machine, not a refusal of the command:
    each harness's own :func:`artefact` (``vllm_harness/readings.py``,
    ``sglang_harness/readings.py``), and SGLang's platform assertions (:data:`_CPU_PLATFORM`).
    ``None`` for a refusal."""
    if engine == "vllm":
        from tools.engines.vllm.harness.readings import artefact as vllm_artefact

        return vllm_artefact(result)
    from tools.engines.sglang.harness.readings import artefact as sglang_artefact

    message = str((result.get("exception") or {}).get("message", ""))
    if any(part in message for part in _CPU_PLATFORM):
        return "a platform check only SGLang's CPU platform fails (a GPU platform passes it)"
    return sglang_artefact(result)


def _engine(engine: str, release: str) -> Engine:
    """The ``engine=`` name of ``engine`` ``release``; ``ValueError`` for one not shipped."""
    for name in RELEASES:
        if name == f"{engine}=={release}":
            return name
    raise ValueError(f"{engine} {release} is not a shipped release")


def _scrubbed(value: Any, prefix: str) -> Any:
    """``value`` with the scratch folders written ``<draft>`` and ``<target>``: two runs of
    one command read the same."""
    if value is None:
        return None
    pattern = rf"[^\s'\"]*/{re.escape(prefix)}[A-Za-z0-9_]+/run-[0-9]+/(draft|target)"
    return json.loads(re.sub(pattern, r"<\1>", json.dumps(value)))


def _relative(command: str | None) -> str | None:
    """The command with the repository's root left out of its paths, as printed for a user
    whose working directory it is."""
    return None if command is None else command.replace(f"{ROOT}/", "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=("vllm", "sglang"))
    parser.add_argument("--release")
    parser.add_argument("--case", help="one case, by name (printed, not recorded)")
    args = parser.parse_args(argv)
    recorded: dict[str, dict[str, list[dict[str, Any]]]] = (
        json.loads(READINGS.read_text(encoding="utf-8")) if READINGS.exists() else {}
    )
    for engine, shipped in releases().items():
        if args.engine not in (None, engine):
            continue
        for release in shipped:
            if args.release not in (None, release):
                continue
            runs = list(readings(engine, release, None if args.case is None else [args.case]))
            passed = sum(run.get("outcome") == "passed" for run in runs)
            commands = sum(run["command"] is not None for run in runs)
            print(f"{engine} {release}: {passed} of {commands} printed commands passed", flush=True)
            if args.case is not None:
                print(json.dumps(runs, indent=2))
                continue
            recorded.setdefault(engine, {})[release] = runs
            READINGS.write_text(json.dumps(recorded, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
