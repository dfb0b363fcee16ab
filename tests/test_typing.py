"""Static typing: misuse is caught by mypy, the public API leaks no Any, stubs match."""

from __future__ import annotations

import subprocess
import sys

import pytest

from drafting_config.engines import RELEASES
from drafting_config.engines.vllm.names import VERSIONS as VLLM_VERSIONS
from tests.conftest import REPO
from tests.typing_checks import MypyResult, expected_errors, snippet

MISUSE = """
from drafting_config import ParallelDraftingConfig, TokenIdSource, check

config = ParallelDraftingConfig.from_hf_config({"pard_token": 7})
config.token_id = 8  # E: misc
config.source = TokenIdSource.PTD_TOKEN_ID  # E: misc
name: str = config.token_id  # E: assignment
config.token_id.upper()  # E: attr-defined
ParallelDraftingConfig(token_id="7", source=TokenIdSource.PARD_TOKEN)  # E: arg-type
ParallelDraftingConfig(token_id=7, source="pard_token")  # E: arg-type
ParallelDraftingConfig(token_id=7, source=TokenIdSource.PARD_TOKEN, colour=1)  # E: call-arg
ParallelDraftingConfig(token_id=7)  # E: call-arg
size: int = config.hidden_size  # E: assignment
"""
MISUSE += "".join(f'check({{"pard_token": 7}}, engine="{release}")\n' for release in RELEASES)
MISUSE += f"""check({{"pard_token": 7}}, engine="vlm")  # E: arg-type
check({{"pard_token": 7}}, engine="vllm==0.0.1")  # E: arg-type
check({{"pard_token": 7}}, engine="sglang=={VLLM_VERSIONS[0]}")  # E: arg-type
"""


MISUSE_CHECK = snippet("typing_misuse", MISUSE)


@pytest.mark.slow
def test_mypy_reports_each_misuse_on_its_line(mypy_results: dict[str, MypyResult]) -> None:
    errors, report = mypy_results[MISUSE_CHECK]
    assert errors == expected_errors(MISUSE), report


PUBLIC_API = """
from drafting_config import (
    PRIORITY_ORDER,
    ParallelDraftingConfig,
    ParallelDraftingConfigError,
    TokenIdSource,
    Verdict,
    check,
    check_many,
    get_parallel_drafting_token_id,
)

config = ParallelDraftingConfig.from_hf_config(object())
verdicts: list[Verdict] = check_many(["a/config.json", {"pard_token": 1}], target="t")
first = check("a/config.json", tokenizer="t")
passed: bool = first.ok and all(v.ok for v in verdicts)
where: str | None = None if first.resolution is None else first.resolution.file_field("x")
raw: dict[str, int] = {"pard_token": 1}
validated = ParallelDraftingConfig.model_validate(raw)
token_id: int = config.token_id + validated.token_id + get_parallel_drafting_token_id({})
source: TokenIdSource = config.source
sizes: tuple[int | None, int | None] = (config.hidden_size, config.vocab_size)
pairs = [(item.source, item.token_id) for item in config.shadowed]
sections = [(s.section, s.key, s.value) for s in PRIORITY_ORDER]
try:
    pass
except ParallelDraftingConfigError as error:
    field: str | None = error.field
"""


PUBLIC_API_CHECK = snippet("typing_public_api", PUBLIC_API, no_any=True)


@pytest.mark.slow
def test_public_api_leaks_no_any(mypy_results: dict[str, MypyResult]) -> None:
    errors, report = mypy_results[PUBLIC_API_CHECK]
    assert errors == set(), report


@pytest.mark.slow
def test_transformers_stub_matches_the_installed_runtime() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy.stubtest",
            "transformers",
            "--mypy-config-file",
            "mypy.ini",
            "--ignore-missing-stub",
            "--allowlist",
            "stubs/stubtest-allowlist.txt",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success" in result.stdout
