"""The one shape of an engine: what :func:`drafting_config.check` asks of an engine's package.

Each engine's package (:mod:`drafting_config.engines.vllm`,
:mod:`drafting_config.engines.sglang`) is an :class:`EngineRules`: its ``ENGINE`` (name and
version), the findings of the draft's file that speak for it
(:func:`~EngineRules.resolver_findings`), and one entry point,
``judge(subject, found, reads)``, which runs the engine's rules in its own order and returns
its :class:`Reading` of the draft.  Rules read no file: when an engine needs a tokenizer or
the checkpoint, it asks ``reads`` (:class:`Reads`, implemented by the checker), at the point
of its rules where the engine itself reads them.  Adding an engine is one module of this
shape, and its name in :data:`drafting_config.engines.ENGINES`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final, Protocol

from drafting_config.draft.eagle_tensors import eagle_head_tensors
from drafting_config.draft.fields import FieldVerdict
from drafting_config.draft.file import DraftFile
from drafting_config.files.mask_embedding import MaskEmbeddingFile
from drafting_config.files.safetensors_headers import CheckpointHeaders
from drafting_config.files.tokenizer_files import TokenFacts, TokenizerFiles
from drafting_config.rules.subject import Subject
from drafting_config.values.findings import Findings
from drafting_config.values.launch import Launch


@dataclass(frozen=True)
class WeightsFacts:
    """What the checkpoint beside a draft holds, as :attr:`Verdict.weights` reports it."""

    files: tuple[str, ...]
    """The safetensors files read (paths, or hub file names), shown as by ``display_path``."""
    tensors: int
    """The number of tensors their headers list."""
    architecture: str | None
    """The row of the engine's checkpoint table used (``"qwen3_dflash"``), or ``None``: not
    checked."""
    embedding_rows: int | None
    """Rows of ``embed_tokens``, when the checkpoint ships it."""
    fc_input_width: int | None
    """The input width of ``fc.weight``, when shipped and not packed."""
    layers: int | None
    """Distinct decoder-layer indices after the loader's renaming (``None`` without a row)."""


DRAFT_PLACEHOLDER: Final = "DRAFT"
"""What a serve command names the draft with when it was given as no path or repo id (a
config object) or as one that cannot be printed."""

TARGET_PLACEHOLDER: Final = "TARGET"
"""What a serve command names the target with when none was checked (or its name cannot be
printed)."""


@dataclass(frozen=True)
class ServeNames:
    """The draft and the target a verdict's serve command names: the path or repo id given
    (a ``config.json`` file's folder), else :data:`DRAFT_PLACEHOLDER` and
    :data:`TARGET_PLACEHOLDER`."""

    draft: str
    target: str


@dataclass(frozen=True)
class TokenField:
    """One place an engine looks for the parallel-drafting token id, in its order, as read
    for a draft (``explain`` prints them)."""

    field: str
    """The field, as the draft's file names it (``"dflash_config.mask_token_id"``), or the
    engine's fallback (``"tokenizer '<|MASK|>'"``)."""
    value: object
    """Its raw value (:data:`~drafting_config.values.fields.MISSING` when absent), or the
    fallback's id (``MISSING`` when not known)."""
    status: str
    """What it contributed: ``winner``, ``absent``, ``null``, ``invalid``, ``not read`` (the
    search stopped above it), ``not checked`` (no tokenizer was read), ``added`` (the
    engine adds the token to the tokenizer)."""
    error: str | None = None
    """Why it is invalid, for an invalid field."""


@dataclass
class Reading:
    """What an engine reads of a draft knowing its target (the verdict's fields of the
    same names; see :class:`~drafting_config.Verdict`).  Never changed once built: not a
    frozen dataclass, whose ``__init__`` costs a call per field, and a judge builds one per
    draft of a sweep."""

    algorithm: str | None = None
    token_id: int | None = None
    token_source: str | None = None
    aux_layer_ids: tuple[int, ...] | None = None
    aux_layer_source: str | None = None
    token: TokenFacts | None = None
    weights: WeightsFacts | None = None
    shadowed: tuple[FieldVerdict, ...] = ()
    """The valid token-id fields that lost to the one the engine reads, when the engine reads
    the library's priority table (shown beside the token id)."""
    algorithm_assumed: bool = False
    """Whether :attr:`algorithm` is the verdict's assumption of a command-line choice (SGLang's
    ``--speculative-algorithm``) rather than read from the draft."""
    mode: str | None = None
    """The mode the engine serves the draft in (vLLM: ``dflash``, ``dflash2``, ``dspark``,
    ``pard``, ``eagle3``, ``eagle3-parallel``, ``peagle``, ``eagle``, ``draft-model``;
    SGLang: ``dflash``, ``dspark``, ``eagle3``, ``eagle``, ``standalone``), the one the rules
    judged."""
    parallel: bool | None = None
    """Whether that mode drafts the masked slots in one pass."""
    serve_with: str | None = None
    """The whole command that serves the draft in that mode, one shell line (``vllm serve
    TARGET --speculative-config JSON``, ``python -m sglang.launch_server ...``)."""
    token_fields: tuple[TokenField, ...] | None = None
    """Where the engine looks for the token id, in its order, when it is not the library's
    priority table (``None``: that table, :attr:`Resolution.fields`, as vLLM reads it)."""


@dataclass(frozen=True)
class CheckpointFiles:
    """The checkpoint beside a draft, as read for its rules."""

    headers: CheckpointHeaders | None
    """The safetensors headers, or ``None`` when a local draft has none."""
    shown: tuple[str, ...]
    """The weights files read, as a verdict shows them."""
    mask_embedding: MaskEmbeddingFile | None
    """The ``mask_embedding.pt`` beside a local draft, read, or ``None``."""


@dataclass(frozen=True)
class LaunchFacts:
    """What an engine reads of a launch before judging it (the same in every release)."""

    ours: bool
    """Whether the launch is this engine's: its program (``vllm serve``), or no program (only
    options); ``False`` when it runs another program."""
    target: str | None = None
    """The model the launch serves (the verdict's target unless one is given)."""
    draft: str | None = None
    """The draft the launch names (vLLM's ``"model"``, SGLang's
    ``--speculative-draft-model-path``)."""


class Reads(Protocol):
    """What an engine's rules may ask the checker to read; each returns ``None`` (and
    records nothing) when the caller turned that check off, and records into ``found``
    why a file it looked for could not be read."""

    def served_tokenizer(self, found: Findings) -> TokenizerFiles | None:
        """The tokenizer the engine serves with: the ``tokenizer`` given, else the target's
        files, else the draft's."""

    def tokenizer_knowing(self, token_id: int, found: Findings) -> TokenizerFiles | None:
        """The ``tokenizer`` given, else the first tokenizer files beside the draft, then
        the target, that can classify ``token_id`` (else the first found)."""

    def checkpoint(self, found: Findings) -> CheckpointFiles | None:
        """The safetensors headers beside a draft's model directory (or, with ``download``,
        a repo's), when weights are checked."""

    def weights_directory(self) -> str | None:
        """The local directory of the draft's files, when weights are checked."""

    def mask_embedding(self, directory: str) -> MaskEmbeddingFile | None:
        """The ``mask_embedding.pt`` in ``directory``, read, or ``None`` when there is none."""

    def serve_names(self) -> ServeNames:
        """The draft and target a serve command names (:class:`ServeNames`)."""


class EngineRules(Protocol):
    """An engine's rules module, as the checker runs it."""

    @property
    def ENGINE(self) -> str:
        """The engine and version a verdict speaks for, such as ``"vllm VERSION"``."""

    @property
    def SERVE_OPTION(self) -> str:
        """The option of the engine's serve command (a verdict's ``serve_with``) that names
        the speculative method (``"--speculative-config"``, ``"--speculative-algorithm"``)."""

    def launch_facts(self, launch: Launch) -> LaunchFacts:
        """What the engine reads of ``launch``: whether it is its own, its target and draft.

        Raises:
            ~drafting_config.values.launch.LaunchError: a value the engine's parser cannot
                read at all (malformed ``--speculative-config`` JSON), naming the option.
        """

    def resolver_findings(self, draft: DraftFile) -> Findings:
        """The errors and warnings of the draft's file, as this engine reads it, that speak
        for it (the first of a verdict's findings)."""

    def judge(
        self, subject: Subject, found: Findings, reads: Reads, *, require_parallel: bool = False
    ) -> Reading:
        """Run the engine's rules on ``subject`` (the target, tokenizer and checkpoint asked
        of ``reads`` as the engine reads them) into ``found``; the engine's reading.  With
        ``require_parallel``, a draft the engine would serve sequentially is an error."""


class PeekedReads:
    """``reads``, whose checkpoint an engine may look at before its rules run (to tell an
    EAGLE head from its tensor names, :func:`with_eagle_head`): the checkpoint is read once,
    and what reading it records (a note that there are ``.bin`` files only, an unreadable
    header) goes into the findings where the engine's rules ask for it, as if read there."""

    def __init__(self, reads: Reads) -> None:
        self._reads = reads
        self._peeked: tuple[CheckpointFiles | None, Findings] | None = None

    def peek(self) -> CheckpointFiles | None:
        """The checkpoint, read now, what it records kept for :meth:`checkpoint`."""
        if self._peeked is None:
            recorded = Findings()
            self._peeked = (self._reads.checkpoint(recorded), recorded)
        return self._peeked[0]

    def served_tokenizer(self, found: Findings) -> TokenizerFiles | None:
        """:meth:`Reads.served_tokenizer`."""
        return self._reads.served_tokenizer(found)

    def tokenizer_knowing(self, token_id: int, found: Findings) -> TokenizerFiles | None:
        """:meth:`Reads.tokenizer_knowing`."""
        return self._reads.tokenizer_knowing(token_id, found)

    def checkpoint(self, found: Findings) -> CheckpointFiles | None:
        """:meth:`Reads.checkpoint`, the peeked one if peeked (its findings recorded now)."""
        if self._peeked is None:
            return self._reads.checkpoint(found)
        files, recorded = self._peeked
        found.extend(recorded)
        return files

    def weights_directory(self) -> str | None:
        """:meth:`Reads.weights_directory`."""
        return self._reads.weights_directory()

    def mask_embedding(self, directory: str) -> MaskEmbeddingFile | None:
        """:meth:`Reads.mask_embedding`."""
        return self._reads.mask_embedding(directory)

    def serve_names(self) -> ServeNames:
        """:meth:`Reads.serve_names`."""
        return self._reads.serve_names()


def with_eagle_head(draft: DraftFile, reads: PeekedReads) -> DraftFile:
    """``draft`` with :attr:`~DraftFile.eagle_head` set when its checkpoint's tensor names
    say it is an EAGLE head (:func:`~drafting_config.draft.eagle_tensors.eagle_head_tensors`),
    else ``draft`` itself.  An engine calls it for a draft whose config names a plain causal
    LM (or no class) and no EAGLE field: the one case where the tensors decide how it is
    served.  The new file has its own :attr:`~DraftFile.readings` (an engine's reading of
    it may differ)."""
    files = reads.peek()
    if files is None or files.headers is None:
        return draft
    head = eagle_head_tensors(files.headers.tensors, draft.hidden_size)
    if head is None:
        return draft
    return replace(draft, eagle_head=head, readings={})
