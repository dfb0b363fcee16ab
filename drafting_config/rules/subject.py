"""What the rules judge, and the one signature every rule has.

A rule is a function ``rule(subject, found)``: it reads the :class:`Subject` (the draft's file
as read, and the target, tokenizer or checkpoint facts it judges) and records what it finds
into ``found``, a :class:`~drafting_config.values.findings.Findings`; it returns nothing.  A
rule whose facts are absent (no target, no tokenizer files, no checkpoint) records nothing.
:func:`drafting_config.check` builds the subject and the engine's ``judge()``
(:mod:`drafting_config.engines.interface`) runs its rules in order; a new rule is one function
added there (for vLLM, to :data:`drafting_config.engines.vllm.RULES`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from drafting_config.draft.file import DraftFile
from drafting_config.draft.target import TargetFacts
from drafting_config.files.mask_embedding import MaskEmbeddingFile
from drafting_config.files.safetensors_headers import CheckpointHeaders
from drafting_config.files.tokenizer_files import TokenizerFiles
from drafting_config.values.fields import FieldGetter
from drafting_config.values.findings import Findings
from drafting_config.values.launch import Launch


@dataclass
class Subject:
    """One draft as the rules see it.  Never changed once built (a rule that needs another
    subject makes one with ``dataclasses.replace``): not a frozen dataclass, whose
    ``__init__`` costs a call per field on every draft of a sweep."""

    draft: DraftFile
    """The draft's config as the engine reads it (:func:`~drafting_config.draft.file.read_draft`,
    or an engine's translation of it)."""
    target: TargetFacts | None = None
    """The target's facts, or ``None`` when no target was found."""
    tokenizer: TokenizerFiles | None = None
    """The tokenizer files read, or ``None``."""
    checkpoint: CheckpointHeaders | None = None
    """The safetensors headers beside the draft (local or from the hub), or ``None``."""
    mask_embedding: MaskEmbeddingFile | None = None
    """The ``mask_embedding.pt`` beside a local draft, read, or ``None`` when there is none
    (or no local directory: a config object, or headers read from the hub)."""
    token_id: int | None = None
    """The token id the engine feeds the masked slots, when it settles on one."""
    token_field: str | None = None
    """Where :attr:`token_id` came from: the draft's field, as its file names it, or
    ``"tokenizer"``."""
    separate_model: bool = False
    """Whether the engine serves the draft as a separate draft model (vLLM's ``draft_model``,
    SGLang's ``STANDALONE``): a complete causal LM run on its own hidden states, never fed
    the target's, whatever its file names."""
    launch: Launch | None = None
    """The launch the draft is served with, when given: the engine judges it against the
    draft (each engine's launch rules)."""

    get: FieldGetter = field(init=False, repr=False, compare=False)
    """The reader of the config the engine reads (``draft.get``): an attribute, not a
    property, as the rules read it a dozen times per draft."""

    def __post_init__(self) -> None:
        self.get = self.draft.get

    @property
    def takes_target_hidden_states(self) -> bool:
        """Whether the drafter is fed the target's hidden states: never for a separate draft
        model (:attr:`separate_model`), else as the draft's file says
        (:attr:`DraftFile.takes_target_hidden_states`)."""
        return not self.separate_model and self.draft.takes_target_hidden_states

    def file_field(self, field: str) -> str:
        """Where ``field`` of the config read sits in the draft's file (see
        :meth:`DraftFile.file_field`), for messages and ``error.field``."""
        return self.draft.file_field(field)


Rule = Callable[[Subject, Findings], None]
"""A rule: reads the subject, records errors, warnings and notes into the findings."""
