"""What the rules judge, and the one signature every rule has.

A rule is a function ``rule(subject, found)``: it reads the :class:`Subject` (the
draft's resolution and field reader, and the target, tokenizer or checkpoint facts
it judges) and records what it finds into ``found``, a
:class:`~drafting_config.values.findings.Findings`; it returns nothing.  A rule
whose facts are absent (no target, no tokenizer files, no checkpoint) records
nothing.  :func:`drafting_config.check` builds the subject and the engine's ``judge()``
(:mod:`drafting_config.rules.engine`) runs its rules in order; a new rule is one function
added there (for vLLM, to :data:`drafting_config.rules.vllm.RULES`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from drafting_config.draft.resolution import Resolution
from drafting_config.draft.target import TargetFacts
from drafting_config.files.mask_embedding import MaskEmbeddingFile
from drafting_config.files.safetensors_headers import CheckpointHeaders
from drafting_config.files.tokenizer_files import TokenizerFiles
from drafting_config.values.fields import FieldGetter
from drafting_config.values.findings import Findings


@dataclass(frozen=True)
class Subject:
    """One draft as the rules see it."""

    resolution: Resolution
    """What :func:`~drafting_config.resolve` made of the draft's config."""
    get: FieldGetter
    """The reader of the HF config the engine reads: ``resolution.hf_config(draft_config)``
    (for a speculators file, the HF config vLLM derives from it)."""
    draft_config: object
    """The draft's config as given."""
    target: TargetFacts | None = None
    """The target's facts, or ``None`` when no target was found."""
    tokenizer: TokenizerFiles | None = None
    """The tokenizer files read, or ``None``."""
    checkpoint: CheckpointHeaders | None = None
    """The safetensors headers beside the draft (local or from the hub), or ``None``."""
    mask_embedding: MaskEmbeddingFile | None = None
    """The ``mask_embedding.pt`` beside a local draft, read, or ``None`` when there is none
    (or no local directory: a config object, or headers read from the hub)."""
    engine_token: tuple[int, str] | None = None
    """The token id an engine other than vLLM settles on and where it came from (a field
    of the draft, or ``"tokenizer"``), when it differs from the resolver's winner
    (SGLang reads its own fields in its own order); ``None``: the winner's."""

    def file_field(self, field: str) -> str:
        """Where ``field`` of the HF config sits in the draft's file (see
        :meth:`Resolution.file_field`), for messages and ``error.field``."""
        return self.resolution.file_field(field)

    @property
    def token_id(self) -> int | None:
        """The resolved token id (:attr:`engine_token`'s, when set), when the first set
        field is valid."""
        if self.engine_token is not None:
            return self.engine_token[0]
        winner = self.resolution.winner
        return None if winner is None else winner.token_id

    @property
    def token_field(self) -> str | None:
        """The winning field, as the draft's file names it (:attr:`engine_token`'s)."""
        if self.engine_token is not None:
            return self.engine_token[1]
        winner = self.resolution.winner
        return None if winner is None else self.resolution.file_field(winner.source.value)


Rule = Callable[[Subject, Findings], None]
"""A rule: reads the subject, records errors, warnings and notes into the findings."""
