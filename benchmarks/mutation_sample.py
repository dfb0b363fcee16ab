"""A seeded, reproducible sample of mutmut's mutants, and its tally.

mutmut 3 writes every mutant it generates into ``mutants/**/*.py.meta`` (as the keys of
``exit_code_by_key``, ``null`` until the mutant is run) and accepts mutant names, or globs,
on ``mutmut run``. This script draws a fixed-size sample from all of them with a fixed seed,
and afterwards counts what happened to the sample. From the repository root:

    mutmut run --max-children 2 zzz_none     # generate mutants and collect stats; it ends
                                             # with "nothing matches", which is expected
    python -m benchmarks.mutation_sample names > /tmp/sample.txt
    OMP_NUM_THREADS=1 mutmut run --max-children 2 $(cat /tmp/sample.txt)
    python -m benchmarks.mutation_sample tally

``--module drafting_config.cli.settings`` (repeatable), given to both ``names`` and
``tally``, samples only those modules' mutants: a change's own modules.

``names`` sorts every mutant name and takes ``random.Random(SEED).sample(names, SIZE)``, so
the same commit gives the same sample. ``tally`` reads the sample's results back from the
``.meta`` files and prints the counts, the survivors, and the score; mutants listed in
``EQUIVALENT`` (no behaviour a caller can see changes) are counted apart, not as killed.
``OMP_NUM_THREADS=1`` keeps torch's thread pool from spinning in mutmut's forked workers
(which mutmut would report as timeouts). See docs/contributing.md, "Mutation testing".
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path

SEED = 24
SIZE = 200

# mutmut 3's exit codes (mutmut/stats.py): 1 and 3 are kills; 0 survived; 5 and 33 no tests;
# 36, 24, -24, 152 and 255 timeouts: the tests ran past their CPU-time limit (mutmut limits CPU
# seconds, not wall time, so a loaded machine does not cause them); counted as killed.
KILLED = frozenset({1, 3})
TIMEOUT = frozenset({36, 24, -24, 152, 255})
SURVIVED = frozenset({0})
NO_TESTS = frozenset({5, 33})

EQUIVALENT: dict[str, str] = {
    "drafting_config.cli.run.x__check_all__mutmut_26": (
        "zip(strict=True) -> strict=False: every engine gives one verdict per path, so the "
        "lists always have equal length"
    ),
    "drafting_config.draft.file.x__field_verdicts__mutmut_4": (
        "never reuses the frozen ABSENT verdicts: _judge builds an equal one for each absent row"
    ),
    "drafting_config.files.repo_ids.x_locate__mutmut_10": (
        "validates the default revision 'main' too, which validate_revision returns unchanged"
    ),
    "drafting_config.files.tokenizer_files.x__unigram_pieces__mutmut_72": (
        "the message of an AssertionError on an unreachable line"
    ),
    "drafting_config.cli.settings.x__read_text__mutmut_9": (
        "getattr(os, 'O_NONBLOCK', 0) -> None: the default is read only where os has no "
        "O_NONBLOCK (Windows), never on the POSIX systems the tests run on"
    ),
    "drafting_config.files.tokenizer_files.xǁTokenizerFilesǁid_of__mutmut_22": (
        "zip(vocab, range(len(vocab)), strict=True) -> no strict: equal lengths by construction"
    ),
}
"""Sampled mutants (of the default seed and size) that change no behaviour, with the reason.
Mutant names are numbered per function, so this list holds for the commit it was made at."""


def all_mutants(root: Path) -> dict[str, int | None]:
    """Every mutant name under ``root/mutants`` and its exit code (``None``: not run)."""
    codes: dict[str, int | None] = {}
    for meta in sorted((root / "mutants").rglob("*.py.meta")):
        codes.update(json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"])
    return codes


def of_modules(name: str, modules: list[str]) -> bool:
    """Whether the mutant ``name`` (``drafting_config.cli.run.x_main__mutmut_3``) is of one of
    ``modules``: a module (``drafting_config.cli.run``), or a function as its mutants' names
    start (``drafting_config.cli.run.x_main``, ``drafting_config.verdicts.xǁVerdictǁwithout``).
    """
    module = name.rpartition(".")[0]
    function = name.rpartition("__mutmut_")[0]
    return module in modules or function in modules


def sample(names: list[str], seed: int, size: int) -> list[str]:
    """``size`` names drawn with ``seed`` from the sorted ``names`` (all of them if fewer)."""
    ordered = sorted(names)
    return sorted(random.Random(seed).sample(ordered, min(size, len(ordered))))


def _kind(name: str, code: int | None) -> str:
    """What happened to one sampled mutant."""
    if name in EQUIVALENT:
        return "equivalent"
    if code is None:
        return "not run"
    kinds = {"killed": KILLED, "timeout": TIMEOUT, "survived": SURVIVED, "no tests": NO_TESTS}
    return next((kind for kind, codes in kinds.items() if code in codes), f"other ({code})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("names", "tally"))
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--size", type=int, default=SIZE)
    parser.add_argument("--root", type=Path, default=Path())
    parser.add_argument(
        "--module",
        action="append",
        default=[],
        metavar="MODULE",
        help="sample only the mutants of this module (drafting_config.cli.settings) or "
        "function (drafting_config.cli.run.x_main; repeatable): a change's own code",
    )
    args = parser.parse_args(argv)

    codes = all_mutants(args.root)
    if not codes:
        print("no mutants/ here: run `mutmut run` once first", file=sys.stderr)
        return 1
    if args.module:
        codes = {name: code for name, code in codes.items() if of_modules(name, args.module)}
    chosen = sample(list(codes), args.seed, args.size)
    if args.command == "names":
        print("\n".join(chosen))
        return 0

    counts: Counter[str] = Counter()
    for name in chosen:
        kind = _kind(name, codes[name])
        counts[kind] += 1
        if kind not in ("killed", "timeout", "not run"):
            print(f"{kind:10} {name}")
    judged = len(chosen) - counts["equivalent"] - counts["not run"]
    dead = counts["killed"] + counts["timeout"]
    print(f"of {len(codes)} mutants, sampled {len(chosen)} (seed {args.seed}):")
    for kind, count in sorted(counts.items()):
        print(f"  {kind}: {count}")
    if judged:
        print(
            f"killed (timeouts included) {dead} of {judged} non-equivalent: "
            f"{100 * dead / judged:.1f}%"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
