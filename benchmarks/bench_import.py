"""import: ``import drafting_config`` versus ``import pydantic`` alone, each in a fresh process.

Each run is a new interpreter that times only the import statement, so the
interpreter's own start-up is left out. Also reported, for information: the
cost of first use (building the pydantic model and resolving one config)
against pydantic with one small model of its own.

    python -m benchmarks.bench_import
"""

from __future__ import annotations

import statistics
import subprocess

from benchmarks.timing import compile_bytecode, python, report

TARGET = 1.3

IMPORT_ONLY = {
    "pydantic": "import pydantic",
    "drafting_config": "import drafting_config",
}
FIRST_USE = {
    "pydantic + one model": (
        "from pydantic import BaseModel\nclass M(BaseModel):\n    token_id: int\nM(token_id=1)"
    ),
    "drafting_config + one config": (
        "from drafting_config import ParallelDraftingConfig\n"
        "ParallelDraftingConfig.from_hf_config({'pard_token': 1})"
    ),
}


def timed_in_fresh_process(code: str) -> float:
    program = (
        f"import time\nstart = time.perf_counter()\n{code}\nprint(time.perf_counter() - start)"
    )
    result = subprocess.run([python(), "-c", program], capture_output=True, text=True, check=True)
    return float(result.stdout)


def medians(snippets: dict[str, str], repeats: int = 21) -> dict[str, float]:
    compile_bytecode()
    times: dict[str, list[float]] = {name: [] for name in snippets}
    for _ in range(repeats):  # interleaved, so that noise hits both alike
        for name, code in snippets.items():
            times[name].append(timed_in_fresh_process(code))
    return {name: statistics.median(values) for name, values in times.items()}


def main() -> list[bool]:
    imports = medians(IMPORT_ONLY)
    ratio = imports["drafting_config"] / imports["pydantic"]
    print(
        report(
            "import",
            ratio,
            f"< {TARGET}x",
            ratio < TARGET,
            f"drafting_config {imports['drafting_config'] * 1e3:.1f} ms, "
            f"pydantic {imports['pydantic'] * 1e3:.1f} ms (medians)",
        )
    )
    first = medians(FIRST_USE)
    ours, theirs = first["drafting_config + one config"], first["pydantic + one model"]
    print(
        f"{'first use (information)':<28} {ours / theirs:8.2f}x  "
        f"drafting_config + one config {ours * 1e3:.1f} ms, "
        f"pydantic + one model {theirs * 1e3:.1f} ms (medians)"
    )
    return [ratio < TARGET]


if __name__ == "__main__":
    main()
