"""drafting_config: the parallel-drafting token id of a draft model, typed and validated.

Speculative decoding with parallel drafting (DFlash, DSpark, PARD, parallel
token drafting for EAGLE) fills K-1 masked slots with one token whose id lives
in the draft model's Hugging Face config under one of several names.  This package
resolves it once, by one priority order, and fails loudly when it cannot::

    from drafting_config import ParallelDraftingConfig

    config = ParallelDraftingConfig.from_hf_config(hf_config)
    config.token_id, config.source

Importing this package imports neither ``torch`` nor ``transformers``, and the
pydantic model is only built when first used, so ``import drafting_config`` and
the ``drafting-config check`` command start fast.
"""

# No import at all runs here, not even ``typing`` (~8 ms): a Ctrl-C in the package's first
# milliseconds would otherwise print a traceback before drafting_config.command's handler.
TYPE_CHECKING = False  # mypy takes any name TYPE_CHECKING as True

if TYPE_CHECKING:
    from drafting_config.config import (
        ParallelDraftingConfig,
        ShadowedTokenId,
        get_parallel_drafting_token_id,
    )
    from drafting_config.draft.fields import FieldStatus, FieldVerdict
    from drafting_config.engines.vllm.resolution import Resolution, resolve
    from drafting_config.files.json_files import ConfigFileError
    from drafting_config.values.errors import (
        ConflictingTokenIdWarning,
        ParallelDraftingConfigError,
        ParallelDraftingConfigWarning,
        PlaceholderTokenIdWarning,
    )
    from drafting_config.values.sources import PRIORITY_ORDER, TokenIdField, TokenIdSource
    from drafting_config.verdicts import Verdict, check, check_many

__all__ = [
    "PRIORITY_ORDER",
    "ConfigFileError",
    "ConflictingTokenIdWarning",
    "FieldStatus",
    "FieldVerdict",
    "ParallelDraftingConfig",
    "ParallelDraftingConfigError",
    "ParallelDraftingConfigWarning",
    "PlaceholderTokenIdWarning",
    "Resolution",
    "ShadowedTokenId",
    "TokenIdField",
    "TokenIdSource",
    "Verdict",
    "check",
    "check_many",
    "get_parallel_drafting_token_id",
    "resolve",
]

__version__ = "0.5.1"
"""The release; the distribution's metadata reads it from here (``[tool.hatch.version]``)."""

# Every name is loaded from its module on first use: importing the package runs none of
# its modules, so that the command's entry point (drafting_config.command) starts inside
# its Ctrl-C handler, and the pydantic model machinery (~100 ms) loads only when used.
_LAZY = {
    "PRIORITY_ORDER": "drafting_config.values.sources",
    "ConfigFileError": "drafting_config.files.json_files",
    "ConflictingTokenIdWarning": "drafting_config.values.errors",
    "FieldStatus": "drafting_config.draft.fields",
    "FieldVerdict": "drafting_config.draft.fields",
    "ParallelDraftingConfig": "drafting_config.config",
    "ParallelDraftingConfigError": "drafting_config.values.errors",
    "ParallelDraftingConfigWarning": "drafting_config.values.errors",
    "PlaceholderTokenIdWarning": "drafting_config.values.errors",
    "Resolution": "drafting_config.engines.vllm.resolution",
    "ShadowedTokenId": "drafting_config.config",
    "TokenIdField": "drafting_config.values.sources",
    "TokenIdSource": "drafting_config.values.sources",
    "Verdict": "drafting_config.verdicts",
    "check": "drafting_config.verdicts",
    "check_many": "drafting_config.verdicts",
    "get_parallel_drafting_token_id": "drafting_config.config",
    "resolve": "drafting_config.engines.vllm.resolution",
}


if not TYPE_CHECKING:  # hidden from type checkers, so that misspelt names stay errors

    def __getattr__(name: str) -> object:
        import sys  # noqa: PLC0415 (already loaded by the interpreter: no cost, no import here)

        module = _LAZY.get(name)
        if module is None:
            raise AttributeError(f"module 'drafting_config' has no attribute {name!r}")
        __import__(module)
        value = getattr(sys.modules[module], name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
