"""contract: ``drafting-config check DRAFT --target TARGET --tokenizer DIR`` versus transformers.

A Qwen3-4B DFlash drafter (the bundled example's config) with a generated
Qwen3-sized tokenizer (151,643 BPE tokens with merges, and 26 added tokens),
checked against a Qwen3-4B target config.  Both sides are whole processes,
run in turn; the baseline (``baseline_contract.py``) loads both configs with
``AutoConfig`` and the tokenizer with ``AutoTokenizer``.  The figure is the
median of the per-round ratios.

    python -m benchmarks.bench_contract
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from benchmarks.timing import process_rounds, python, report
from tests.tokenizer_factory import write_qwen3_like

TARGET = 10.0
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "dflash-qwen3-4b" / "config.json"
QWEN3_4B = {
    "architectures": ["Qwen3ForCausalLM"],
    "model_type": "qwen3",
    "hidden_size": 2560,
    "intermediate_size": 9728,
    "num_hidden_layers": 36,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "vocab_size": 151936,
    "bos_token_id": 151643,
    "eos_token_id": 151645,
    "tie_word_embeddings": True,
}


def lay_out(root: Path) -> tuple[Path, Path]:
    """A draft directory (config and tokenizer) and a target directory, under ``root``."""
    draft, target = root / "draft", root / "target"
    draft.mkdir()
    target.mkdir()
    shutil.copy(EXAMPLE, draft / "config.json")
    write_qwen3_like(draft)
    (target / "config.json").write_text(json.dumps(QWEN3_4B))
    return draft, target


def main() -> list[bool]:
    script = shutil.which("drafting-config")
    if script is None:
        raise SystemExit("drafting-config is not installed: pip install -e '.[dev]'")
    with tempfile.TemporaryDirectory() as folder:
        draft, target = lay_out(Path(folder))
        ours = [script, "check", str(draft), "--target", str(target), "--tokenizer", str(draft)]
        baseline = [python(), "-m", "benchmarks.baseline_contract", str(draft), str(target)]
        baseline.append(str(draft))
        check = subprocess.run(ours, capture_output=True, text=True, check=True)
        assert "token: unused" in check.stdout, check.stdout
        timed = process_rounds([ours, baseline], rounds=7)
    ratio = timed.ratio(1, 0)
    print(
        report(
            "contract, check w/ tokenizer",
            ratio,
            f">= {TARGET:g}x",
            ratio >= TARGET,
            f"drafting-config {timed.median(0) * 1e3:.0f} ms, AutoConfig x2 + "
            f"AutoTokenizer {timed.median(1) * 1e3:.0f} ms (medians)",
        )
    )
    return [ratio >= TARGET]


if __name__ == "__main__":
    main()
