"""The whole parallel-drafting contract of a draft model, as one non-raising verdict.

:func:`check` loads a draft (a config object, a local path, or a repo id in the local
Hugging Face cache), reads its file (:func:`~drafting_config.draft.file.read_draft`) and
resolves its token id with :func:`~drafting_config.resolve` (the library's reading, vLLM's),
finds its target, runs
the chosen engine's rules (one package of :data:`drafting_config.engines.ENGINES`, each of
the shape :class:`~drafting_config.engines.interface.EngineRules` gives), reading the
tokenizer and checkpoint files they ask for, and gathers every error, warning and note into a
:class:`Verdict`.  The command line renders
verdicts and nothing else; :meth:`ParallelDraftingConfig.from_hf_config` and
``from_pretrained`` raise a verdict's first error.

This module builds no pydantic model and imports neither torch nor
transformers; huggingface_hub is imported only to look up a repo id.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Final, Literal, Union

from drafting_config.draft.fields import FieldVerdict, one_placeholder_warning
from drafting_config.draft.file import DraftFile, read_draft, speculators_verifier
from drafting_config.draft.target import TargetFacts, read_target
from drafting_config.engines import (
    DEFAULT_ENGINE,
    ENGINE_NAMES,
    ENGINES,
    RELEASES,
    Engine,
    EveryRelease,
    chosen_engines,
    engine_rules,
)
from drafting_config.engines.interface import (
    DRAFT_PLACEHOLDER,
    TARGET_PLACEHOLDER,
    CheckpointFiles,
    EngineRules,
    ServeNames,
    TokenField,
    WeightsFacts,
)
from drafting_config.engines.vllm.resolution import Resolution, resolution_of
from drafting_config.files.json_files import CONFIG_NAME, ConfigFileError, read_config_json
from drafting_config.files.mask_embedding import MaskEmbeddingFile, read_mask_embedding_beside
from drafting_config.files.repo_ids import (
    DEFAULT_REVISION,
    EXTRA_NAME,
    HUB_REQUIREMENT,
    HubDownloadError,
    MissingExtraError,
    RepoIdError,
    RepoNotCachedError,
    hub_checkpoint_headers,
    hub_offline,
    local_or_cached,
    locate,
    looks_like_repo_id,
)
from drafting_config.files.safetensors_headers import (
    CheckpointHeaders,
    DirectoryListings,
    LfsPointerError,
    MissingShardError,
    find_weight_files,
    read_weight_files,
)
from drafting_config.files.tokenizer_files import (
    TOKENIZER_FILE_NAMES,
    TokenFacts,
    TokenizerFiles,
    load_tokenizer_files,
)
from drafting_config.rules.subject import Subject
from drafting_config.values import codes
from drafting_config.values.errors import (
    ParallelDraftingConfigError,
    ParallelDraftingConfigWarning,
    describe_value,
)
from drafting_config.values.fields import is_kind
from drafting_config.values.findings import Findings, Note
from drafting_config.values.integers import exact_bool
from drafting_config.values.launch import Launch, launch_of
from drafting_config.values.paths import as_path, display_path

__all__ = ["Engine", "ModelArgument", "Outcome", "Verdict", "check", "check_many"]

Outcome = Literal["ok", "invalid", "unchecked"]
"""What a verdict came to: :attr:`Verdict.outcome`."""

Engines = Engine | EveryRelease | Sequence[Engine | EveryRelease]
"""The engines :func:`check_many` gives each draft a verdict for: one :data:`Engine`, every
shipped release of one (``"vllm==*"``, :data:`EveryRelease`), or a list or tuple of these."""

ModelArgument = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]", object]
"""A model: a local ``config.json`` or model directory (``str``, ``bytes``, ``os.PathLike``),
a repo id (``"ORG/NAME"``, from the local Hugging Face cache), or an HF config object."""


@dataclass(frozen=True, init=False)
class Verdict:
    """Everything :func:`check` found about one draft; built, never raised."""

    path: str | None
    """The draft as given, when it was a path or repo id (``None`` for a config object)."""
    resolution: Resolution | None
    """The token-id resolution, or ``None`` when the draft could not be read."""
    errors: tuple[ParallelDraftingConfigError, ...]
    """Every failed check, in a stable order: the draft's own rules first."""
    warnings: tuple[ParallelDraftingConfigWarning, ...] = ()
    """Everything that resolves but looks wrong."""
    notes: tuple[str, ...] = ()
    """Facts worth knowing that are neither errors nor warnings ("target not checked")."""
    target: str | None = None
    """The target checked against: its path or repo id, ``"<config object>"``, or ``None``."""
    token: TokenFacts | None = None
    """What the tokenizer says of the token id, or ``None`` when no tokenizer was read."""
    weights: WeightsFacts | None = None
    """What the safetensors headers beside the draft say (files read, tensors, the
    architecture row used, embedding rows, fc input width, layer count), or ``None`` when
    no checkpoint was read."""
    token_id: int | None = None
    """The token id the engine feeds the masked slots: the resolved token id (the winning
    field's), when the first set field is valid."""
    aux_layer_ids: tuple[int, ...] | None = None
    """The target layers the drafter taps, as capture indices, as the serving runner's chain
    reads them knowing the target (see :attr:`Resolution.aux_layer_ids`, the reading of the
    draft alone: a ``deepseek_v41`` target's ``dspark_target_layer_ids`` are used as given)."""
    aux_layer_source: str | None = None
    """The field :attr:`aux_layer_ids` came from, as the draft's file names it; for SGLang,
    ``"derived from the target's depth L"`` when the draft names none."""
    engine: str = ENGINE_NAMES[DEFAULT_ENGINE]
    """The engine and release the verdict speaks for, one of the shipped releases:
    ``"vllm VERSION"`` or ``"sglang VERSION"``."""
    algorithm: str | None = None
    """The method the verdict assumes the engine serves the draft with: vLLM's
    (:attr:`Resolution.algorithm`), or SGLang's ``--speculative-algorithm``
    (``"DFLASH"``, ``"DSPARK"``, ``"EAGLE3"``), picked from the draft's SGLang class."""
    token_source: str | None = None
    """Where :attr:`token_id` came from: the draft's field (the resolver's winner for
    vLLM), or ``"tokenizer"`` when SGLang takes it from the served tokenizer."""
    shadowed: tuple[FieldVerdict, ...] = ()
    """The valid token-id fields that lost to :attr:`token_source`, when the engine reads the
    priority table (vLLM: :attr:`Resolution.shadowed`); empty otherwise."""
    algorithm_assumed: bool = False
    """Whether :attr:`algorithm` is the verdict's assumption of the engine's command-line
    choice (SGLang's ``--speculative-algorithm``) rather than read from the draft."""
    mode: str | None = None
    """The mode the verdict judges and the engine serves the draft in, the one the draft
    asks for (vLLM: ``dflash``, ``dflash2``, ``dspark``, ``pard``, ``eagle3``,
    ``eagle3-parallel``, ``peagle``, ``eagle``, ``draft-model``; SGLang: ``dflash``,
    ``dspark``, ``eagle3``, ``eagle``, ``standalone``); ``None`` when the verdict is
    INVALID."""
    parallel: bool | None = None
    """Whether that mode drafts the masked slots in one pass; ``None`` when INVALID."""
    serve_with: str | None = None
    """The whole command that serves the draft in that mode, one line quoted for a POSIX
    shell: ``vllm serve TARGET --speculative-config JSON`` (the method, the draft as
    ``model``, ``num_speculative_tokens``, and ``"parallel_drafting": true`` where vLLM
    needs it) or ``python -m sglang.launch_server --model-path TARGET
    --speculative-algorithm ALGORITHM --speculative-draft-model-path DRAFT``.  The draft
    and target are named as given (``DRAFT`` for a config object, ``TARGET`` when none was
    checked); where the files give no number of tokens, the JSON holds ``"N"`` and a note
    says so.  ``None`` when INVALID."""
    token_fields: tuple[TokenField, ...] | None = None
    """Where the engine looks for the token id, in its own order, each field with its value
    and status, when that is not the library's priority table (SGLang's fields, then the
    served tokenizer's mask token); ``None`` when it is: :attr:`Resolution.fields`."""

    def __init__(  # noqa: PLR0917 - the fields, as the dataclass's own __init__ takes them
        self,
        path: str | None,
        resolution: Resolution | None,
        errors: tuple[ParallelDraftingConfigError, ...],
        warnings: tuple[ParallelDraftingConfigWarning, ...] = (),
        notes: tuple[str, ...] = (),
        target: str | None = None,
        token: TokenFacts | None = None,
        weights: WeightsFacts | None = None,
        token_id: int | None = None,
        aux_layer_ids: tuple[int, ...] | None = None,
        aux_layer_source: str | None = None,
        engine: str = ENGINE_NAMES[DEFAULT_ENGINE],
        algorithm: str | None = None,
        token_source: str | None = None,
        shadowed: tuple[FieldVerdict, ...] = (),
        algorithm_assumed: bool = False,
        mode: str | None = None,
        parallel: bool | None = None,
        serve_with: str | None = None,
        token_fields: tuple[TokenField, ...] | None = None,
    ) -> None:
        # The frozen dataclass's own __init__, in one write of the instance's dict rather than
        # an object.__setattr__ call per field: a sweep builds a verdict per draft and engine.
        # A test holds the signature to the fields (names, order, defaults).
        vars(self).update(
            path=path,
            resolution=resolution,
            errors=errors,
            warnings=warnings,
            notes=notes,
            target=target,
            token=token,
            weights=weights,
            token_id=token_id,
            aux_layer_ids=aux_layer_ids,
            aux_layer_source=aux_layer_source,
            engine=engine,
            algorithm=algorithm,
            token_source=token_source,
            shadowed=shadowed,
            algorithm_assumed=algorithm_assumed,
            mode=mode,
            parallel=parallel,
            serve_with=serve_with,
            token_fields=token_fields,
        )

    @property
    def ok(self) -> bool:
        """Whether every check passed (warnings allowed)."""
        return not self.errors

    @property
    def checked(self) -> bool:
        """Whether the check could be made: ``False`` when every error says that a file,
        repo or extra the check needs could not be had (``error.unavailable``: missing,
        unopenable, absent from the cache, a failed download, a missing extra), none that
        the draft is wrong."""
        for error in self.errors:  # a loop, not all() over a generator: asked per draft
            if not error.unavailable:
                return True
        return not self.errors

    @property
    def outcome(self) -> Outcome:
        """``"ok"`` (no error), ``"invalid"`` (an error about the draft's content or its
        fit with its target) or ``"unchecked"`` (the check could not be made: see
        :attr:`checked`); the command line exits 0, 1 and 2 for them."""
        if not self.errors:
            return "ok"
        return "invalid" if self.checked else "unchecked"

    def without(self, ignored: AbstractSet[str]) -> Verdict:
        """This verdict without the warnings and notes whose code is in ``ignored`` (code
        names, as ``--ignore`` takes them). Errors are always kept, whatever their code: an
        error means the engine certainly fails, and ignoring it cannot make the draft
        pass."""
        if not ignored:
            return self

        def kept(finding: object) -> bool:
            code = getattr(finding, "code", None)
            return code is None or code.name not in ignored

        return replace(
            self,
            warnings=tuple(filter(kept, self.warnings)),
            notes=tuple(filter(kept, self.notes)),
        )

    def raise_first(self) -> None:
        """Raise the first error, if any.

        Raises:
            ParallelDraftingConfigError: the first failed check.
        """
        if self.errors:
            raise self.errors[0]


def check(
    draft: ModelArgument,
    *,
    target: ModelArgument | None = None,
    tokenizer: str | os.PathLike[str] | None = None,
    check_tokenizer: bool = True,
    check_weights: bool = True,
    revision: str = DEFAULT_REVISION,
    target_revision: str = DEFAULT_REVISION,
    download: bool = False,
    engine: Engine = "vllm",
    require_parallel: bool = False,
    launch: str | Sequence[str] | Launch | None = None,
) -> Verdict:
    """Check a draft model against the whole parallel-drafting contract; never raises on
    the draft (bad options raise ``ValueError``).

    Args:
        draft: the draft model (see :data:`ModelArgument`).
        target: the target model, likewise; when ``None``, a speculators draft's
            verifier is used if it is a local directory or cached, else only
            what the draft alone can tell is checked (and a note says so).
        tokenizer: a directory of tokenizer files, or a repo id (``"ORG/NAME"``, from
            the local Hugging Face cache); when ``None``, the draft's directory, else
            the target's, is searched.
        check_tokenizer: ``False`` skips the tokenizer (for sweeps of whole caches).
        check_weights: ``False`` skips the checkpoint beside the draft, touching no weight
            file (for sweeps of whole caches).  With it, the safetensors headers beside a
            local draft (or, with ``download``, a repo's, by HTTP range requests) are read,
            never the weights, and checked against the config.
        revision, target_revision: the branch, tag or commit of a repo id.
        download: fetch a repo id's ``config.json`` and tokenizer files when not
            cached (never weights, never code): the draft's, the target's, a
            speculators verifier's, or the tokenizer's.  With ``check_tokenizer=False``
            only ``config.json`` is fetched; an optional file that cannot be fetched
            is a note.  The draft's safetensors headers are read from the hub.
        engine: the engine the verdict speaks for, ``"vllm"`` or ``"sglang"`` (SGLang,
            which reads the draft differently: see :mod:`drafting_config.engines.sglang`),
            each the release installed in the running environment when the checker ships
            it, else the newest it ships (a warning says so); or one shipped release,
            ``"vllm==VERSION"`` or ``"sglang==VERSION"``.
        require_parallel: judge the draft as served with parallel drafting on: a draft the
            engine would serve sequentially (a sequential EAGLE-3 draft, a plain draft
            model, a token the engine ignores) is an error rather than OK with a note.
        launch: the command line the draft is served with, judged against the draft by the
            engine's rules for its release: a whole one (``"vllm serve TARGET
            --speculative-config '{...}'"``, ``"python -m sglang.launch_server --model-path
            TARGET --speculative-algorithm DFLASH ..."``), whose model is the target unless
            ``target`` is given, or only the engine's options (``"--speculative-config
            '{...}'"``); a string (split as a shell would) or its words.  An option the
            release does not know is an error of the verdict.

    Raises:
        ValueError: a bad option; for ``launch``,
            :class:`~drafting_config.values.launch.LaunchError` (a ``ValueError``) when it
            cannot be read at all (unbalanced quotes, malformed ``--speculative-config``
            JSON), naming the option, the value and what was expected.
    """
    options = CheckOptions(
        target,
        tokenizer,
        check_tokenizer,
        check_weights,
        revision,
        target_revision,
        download,
        _engine(engine),
        exact_bool("`require_parallel`", require_parallel, ValueError),
        checked_launch(launch),
    )
    (verdict,) = _check(draft, options, _SharedReads(), (engine_rules(options.engine),))
    return verdict


def check_many(
    drafts: Iterable[ModelArgument],
    *,
    target: ModelArgument | None = None,
    tokenizer: str | os.PathLike[str] | None = None,
    check_tokenizer: bool = True,
    check_weights: bool = True,
    revision: str = DEFAULT_REVISION,
    target_revision: str = DEFAULT_REVISION,
    download: bool = False,
    engine: Engines = "vllm",
    require_parallel: bool = False,
    launch: str | Sequence[str] | Launch | None = None,
) -> list[Verdict]:
    """Check several drafts with the same options: one :class:`Verdict` per draft and
    engine, in order (a draft's verdicts together, by engine, each engine's releases oldest
    first).

    The verdicts are those of :func:`check`, called on each draft with these
    options, but what the drafts share is read once per call rather than once
    per draft: the target, every tokenizer directory (an explicit one, or the
    target's), and each speculators verifier.  A sweep of a thousand drafts
    against one target, or of one verifier's drafts, reads it once.  Files are
    assumed not to change while the call runs.

    Args:
        drafts: a list, tuple, set or iterator of drafts (see :data:`ModelArgument`).
        engine: as :func:`check`'s; or ``"vllm==*"``, every shipped release of the engine;
            or a list or tuple of these (:data:`Engines`), each draft getting one verdict per
            release they name (a release named twice, or as the bare name that means it,
            gets one).
        launch: as :func:`check`'s, for every draft.

    Raises:
        TypeError: ``drafts`` is a single draft (a path, a mapping, a config
            object) or anything else that is not a list, tuple, set or iterator.
            Bad drafts and options get verdicts, as with :func:`check`;
            exceptions from iterating ``drafts`` itself propagate.
    """
    if is_kind(drafts, _ONE_DRAFT) or not is_kind(drafts, (Sequence, AbstractSet, Iterator)):
        raise TypeError(
            "check_many() takes a list, tuple, set or iterator of drafts, got "
            f"{describe_value(drafts)}; for one draft, call check(draft) or pass [draft]."
        )
    engines = _engines(engine)
    options = CheckOptions(
        target,
        tokenizer,
        check_tokenizer,
        check_weights,
        revision,
        target_revision,
        download,
        engines[0],
        exact_bool("`require_parallel`", require_parallel, ValueError),
        checked_launch(launch),
    )
    return list(check_each(drafts, options, engines))


def check_each(
    drafts: Iterable[ModelArgument],
    options: CheckOptions,
    engines: Sequence[Engine | EveryRelease] | None = None,
) -> Iterator[Verdict]:
    """:func:`check_many` with its options as one object (the command line's way in), for
    each of ``engines`` (``options.engine`` when ``None``; ``"vllm==*"``: every shipped
    release, as :func:`~drafting_config.engines.chosen_engines` reads them), lazily: a
    draft's verdicts, one per engine in that order, are yielded as soon as they are known,
    so that a sweep can print them as it goes.  Each draft's file is located, read and
    parsed once whatever the engines, and what the drafts share (targets, tokenizer files)
    once per call."""
    shared = _SharedReads()
    names = (options.engine,) if engines is None else _engines(engines)
    chosen = [engine_rules(name) for name in names]  # once per call, not per draft
    for draft in drafts:
        yield from _check(draft, options, shared, chosen)


def _engine(engine: object) -> Engine:
    """``engine`` checked: a bad value is the caller's mistake, not a draft's."""
    for name in (*ENGINES, *RELEASES):
        if engine == name:
            return name
    names = ", ".join(repr(name) for name in (*ENGINES, *RELEASES))
    raise ValueError(f"engine must be {names}, got {describe_value(engine)}.")


def _engines(engine: object) -> tuple[Engine, ...]:
    """``engine`` (:data:`Engines`) checked and read as the engines it names.

    Raises:
        ValueError: a name is no engine, or none is named.
    """
    chosen = chosen_engines(engine if isinstance(engine, (list, tuple)) else (engine,))
    if not chosen:
        raise ValueError("engine names no engine: give at least one.")
    return chosen


_ONE_DRAFT: Final = (str, bytes, bytearray, memoryview, os.PathLike)
"""Sequences that are one draft's path (or its bytes), never a collection of drafts."""


@dataclass(frozen=True)
class CheckOptions:
    """The options of one call of :func:`check` or :func:`check_many` (see there), as one
    object: the command line builds it from its arguments."""

    target: ModelArgument | None = None
    tokenizer: str | os.PathLike[str] | None = None
    check_tokenizer: bool = True
    check_weights: bool = True
    revision: str = DEFAULT_REVISION
    target_revision: str = DEFAULT_REVISION
    download: bool = False
    engine: Engine = DEFAULT_ENGINE
    require_parallel: bool = False
    launch: Launch | None = None


def checked_launch(launch: object) -> Launch | None:
    """``launch`` read (:func:`~drafting_config.values.launch.launch_of`) and parsed by each
    engine (:meth:`~drafting_config.engines.interface.EngineRules.launch_facts`), so that a
    launch that cannot be read at all is the caller's error, raised before any verdict.

    Raises:
        ~drafting_config.values.launch.LaunchError: see :func:`check`.
    """
    if launch is None:
        return None
    read = launch_of(launch)
    for rules in ENGINES.values():
        rules.launch_facts(read)
    return read


def launch_target(launch: Launch | None) -> str | None:
    """The model a whole launch serves, read by the engine whose program it runs."""
    if launch is None:
        return None
    for rules in ENGINES.values():
        facts = rules.launch_facts(launch)
        if facts.ours and facts.target is not None:
            return facts.target
    return None


@dataclass
class Located:
    """A model argument, located and its ``config.json`` read, once; never changed (not a
    frozen dataclass, whose ``__init__`` costs a call per field on every draft)."""

    shown: str | None
    """How it is shown: a path or repo id as given, escaped; ``None`` for a config object."""
    config: object
    """Its config: the parsed ``config.json``, or the config object given."""
    where: str | Path | None = None
    """Where its ``config.json`` (or model directory) was found, as
    :func:`~drafting_config.files.repo_ids.local_or_cached` gives it (a local path given as
    text stays text); ``None`` for an object."""
    notes: tuple[str, ...] = ()
    """The notes of a download."""
    text: str | None = None
    """The argument as text, when it was text (only text can be a repo id)."""
    is_file: bool = False
    """Whether :attr:`where` is the ``config.json`` itself (a file, of whatever name), not a
    model directory holding one: what the read found."""

    @cached_property
    def at(self) -> Path | None:
        """:attr:`where` as a path, built when first asked for (the tokenizer and weights
        checks ask)."""
        return None if self.where is None else Path(self.where)


@dataclass(frozen=True)
class _Target:
    """What was found of a draft's target, and what it adds to the verdict."""

    name: str | None
    facts: TargetFacts | None = None
    directory: Path | None = None
    errors: tuple[ParallelDraftingConfigError, ...] = ()
    notes: tuple[str, ...] = ()
    is_file: bool | None = None
    """Whether the target given is a file (:attr:`Located.is_file`); ``None`` when it was
    not read."""

    @cached_property
    def serve_name(self) -> str:
        """The target as a serve command names it (:func:`_serve_name`), made once for the
        drafts that share it."""
        is_file = self.is_file
        if is_file is None:  # not read: the file system says
            is_file = self.name is not None and os.path.isfile(self.name)
        return _serve_name(self.name, is_file, TARGET_PLACEHOLDER)


_CONFIG_OBJECT: Final = "<config object>"
"""How a verdict names a target given as a config object."""

_NO_TARGET: Final = _Target(
    None, notes=(Note("target not checked: no target given", code=codes.TARGET_NOT_GIVEN),)
)


class _SharedReads:
    """What the drafts of one call share (targets, tokenizer files), each read at most once."""

    def __init__(self) -> None:
        self._targets: dict[str | None, _Target] = {}
        self._tokenizers: dict[str, TokenizerFiles | ParallelDraftingConfigError | None] = {}
        self._located: dict[str, tuple[Path, tuple[str, ...]] | ParallelDraftingConfigError] = {}
        self.listings = DirectoryListings()
        """Each draft directory's names, listed once: a sweep's cost grows linearly."""

    def tokenizer_location(
        self, tokenizer: str | os.PathLike[str], download: bool
    ) -> tuple[Path, tuple[str, ...]]:
        """Where an explicit tokenizer is, and the notes of its download: a local directory,
        else a repo id's snapshot (as for every path argument, see
        :func:`~drafting_config.files.repo_ids.locate`; a tokenizer repo needs no
        ``config.json``), looked up once.

        Raises:
            ParallelDraftingConfigError: the repo id is not cached, cannot be fetched, ...
        """
        key = as_path(tokenizer, argument="tokenizer")
        if key not in self._located:
            text: str | os.PathLike[str] = key if is_kind(tokenizer, (str, bytes)) else Path(key)
            notes: list[str] = []
            try:
                path = locate(text, download=download, tokenizer=True, notes=notes)
                self._located[key] = path, tuple(notes)
            except ParallelDraftingConfigError as error:
                self._located[key] = error
        found = self._located[key]
        if isinstance(found, ParallelDraftingConfigError):
            raise found.with_traceback(None)
        return found

    def target(self, verifier: str | None, read: Callable[[], _Target]) -> _Target:
        """The explicit target (``verifier=None``) or a verifier's: ``read()`` on first use."""
        if verifier not in self._targets:
            self._targets[verifier] = read()
        return self._targets[verifier]

    def tokenizer_files(self, directory: str | os.PathLike[str]) -> TokenizerFiles | None:
        """:func:`~drafting_config.files.tokenizer_files.load_tokenizer_files`, once per directory.

        Raises:
            ParallelDraftingConfigError: as that function (the same error every time, its
                traceback reset, so that it never holds the frames of earlier drafts).
        """
        key = as_path(directory, argument="tokenizer")
        if key not in self._tokenizers:
            try:
                self._tokenizers[key] = load_tokenizer_files(key)
            except ParallelDraftingConfigError as error:
                self._tokenizers[key] = error
        found = self._tokenizers[key]
        if isinstance(found, ParallelDraftingConfigError):
            raise found.with_traceback(None)  # each raise would add to the last traceback
        return found


def _check(
    draft: ModelArgument,
    options: CheckOptions,
    shared: _SharedReads,
    chosen: Sequence[tuple[EngineRules, ParallelDraftingConfigWarning | None]],
) -> list[Verdict]:
    """The verdicts of the ``chosen`` engines' rules (each with the warning of its release,
    :func:`~drafting_config.engines.engine_rules`) on one draft, its file located, read and
    parsed once."""
    try:
        exact_bool("`check_tokenizer`", options.check_tokenizer)
        exact_bool("`check_weights`", options.check_weights)
        located = _load(draft, options.revision, options)
    except ParallelDraftingConfigError as error:
        shown = _shown(draft)
        return [
            Verdict(
                shown, None, (error,), () if warning is None else (warning,), engine=rules.ENGINE
            )
            for rules, warning in chosen
        ]
    read = read_draft(located.config)
    resolution = resolution_of(read)
    target = _target(read, options, shared)
    verdicts = [
        _judge(rules, warning, located, read, resolution, target, options, shared)
        for rules, warning in chosen
    ]
    # The engines' readings served this check; kept, each (a resolution of the file) would
    # hold the file that holds it, a cycle that only the cyclic collector frees.
    read.readings.clear()
    return verdicts


def _judge(  # noqa: PLR0917 - the parts of one draft's reading, each built once
    rules: EngineRules,
    engine_warning: ParallelDraftingConfigWarning | None,
    located: Located,
    read: DraftFile,
    resolution: Resolution,
    target: _Target,
    options: CheckOptions,
    shared: _SharedReads,
) -> Verdict:
    """One engine's verdict on a draft already located and read."""
    found = rules.resolver_findings(read)
    found.notes += located.notes
    if engine_warning is not None:  # the installed release is not shipped: first, it frames all
        found.warnings.insert(0, engine_warning)
    found.errors += target.errors
    found.notes += target.notes
    if options.launch is not None:
        _launch_draft(rules, options.launch, located, found)
    reading = rules.judge(
        Subject(read, target.facts, launch=options.launch),
        found,
        _Reads(located, target, options, shared),
        require_parallel=options.require_parallel,
    )
    served = not found.errors
    return Verdict(
        path=located.shown,
        resolution=resolution,
        errors=_unique(found.errors),
        warnings=tuple(one_placeholder_warning(found.warnings)),  # one finding, one fact
        notes=tuple(found.notes),
        target=target.name,
        token=reading.token,
        weights=reading.weights,
        token_id=reading.token_id,
        aux_layer_ids=reading.aux_layer_ids,
        aux_layer_source=reading.aux_layer_source,
        engine=rules.ENGINE,
        algorithm=reading.algorithm,
        token_source=reading.token_source,
        shadowed=reading.shadowed,
        algorithm_assumed=reading.algorithm_assumed,
        mode=reading.mode if served else None,
        parallel=reading.parallel if served else None,
        serve_with=reading.serve_with if served else None,
        token_fields=reading.token_fields,
    )


def _launch_draft(rules: EngineRules, launch: Launch, located: Located, found: Findings) -> None:
    """A warning (``launch-draft-differs``) when the launch's draft is not the draft
    checked: another path (compared as real paths when both are local) or repo id."""
    facts = rules.launch_facts(launch)
    named = facts.draft
    if not facts.ours or named is None or located.shown is None:
        return
    if _same_model(named, located):
        return
    found.warn(
        ParallelDraftingConfigWarning(
            "The launch serves another draft than the one checked.",
            field="launch",
            code=codes.LAUNCH_DRAFT_DIFFERS,
            fix=f"check the draft the launch serves ({display_path(named)}), or launch the one "
            f"checked ({located.shown})",
        )
    )


def _same_model(named: str, located: Located) -> bool:
    """Whether the launch's ``named`` model is the located draft: the same text, or local
    paths to the same directory (or its ``config.json``)."""
    if named == located.text:
        return True
    if located.at is None or not os.path.exists(named):
        return False
    mine = located.at if located.at.is_dir() else located.at.parent
    theirs = Path(named)
    theirs = theirs if theirs.is_dir() else theirs.parent
    return os.path.realpath(mine) == os.path.realpath(theirs)


class _Reads:
    """The files an engine's rules ask for (:class:`~drafting_config.engines.interface.Reads`),
    read as the options say, through what the drafts of one call share."""

    def __init__(
        self, draft: Located, target: _Target, options: CheckOptions, shared: _SharedReads
    ) -> None:
        self._draft = draft
        self._target = target
        self._options = options
        self._shared = shared

    def serve_names(self) -> ServeNames:
        """The draft as given and the target checked, as a serve command names them
        (:class:`~drafting_config.engines.interface.ServeNames`)."""
        draft = self._draft
        return ServeNames(
            _serve_name(draft.shown, draft.is_file, DRAFT_PLACEHOLDER),
            self._target.serve_name,
        )

    def served_tokenizer(self, found: Findings) -> TokenizerFiles | None:
        """The tokenizer the engine serves with: ``options.tokenizer`` (``--tokenizer``),
        else the target's files, else the draft's (a copy of the target's, usually)."""
        options, shared = self._options, self._shared
        if not options.check_tokenizer:
            return None
        try:
            if options.tokenizer is not None:
                located, notes = shared.tokenizer_location(options.tokenizer, options.download)
                found.notes += notes
                return shared.tokenizer_files(located)
            for directory in (_directory_of(self._target.directory), _directory_of(self._draft.at)):
                if directory is not None:
                    files = shared.tokenizer_files(directory)
                    if files is not None:
                        return files
        except ParallelDraftingConfigError as error:
            found.error(error)
            return None
        self._no_tokenizer_note(found)
        return None

    def _searched(self) -> dict[str, Path]:
        """The folders a tokenizer is looked for in, by what they are of."""
        beside = {
            "the draft": _directory_of(self._draft.at),
            "the target": _directory_of(self._target.directory),
        }
        return {name: path for name, path in beside.items() if path is not None}

    def _no_tokenizer_note(self, found: Findings) -> None:
        """The note that no tokenizer was found: the same words whichever engine looked,
        so that a run's footer says it once."""
        searched = self._searched()
        if searched:
            found.note(
                f"tokenizer not checked: no tokenizer files beside {' or '.join(searched)}",
                code=codes.TOKENIZER_NOT_FOUND,
            )
        else:
            found.note(
                "tokenizer not checked: a config object has no directory to look in",
                code=codes.TOKENIZER_NOT_FOUND,
                fix="pass tokenizer=DIR",
            )

    def tokenizer_knowing(self, token_id: int, found: Findings) -> TokenizerFiles | None:
        """The tokenizer files of ``options.tokenizer`` (a directory or a repo id), else of
        the first directory, the draft's then the target's, whose files can classify
        ``token_id``, else the first that has any; a note says when there are none.

        Raises:
            ParallelDraftingConfigError: the tokenizer given cannot be found or read.
        """
        options, shared = self._options, self._shared
        if not options.check_tokenizer:
            return None
        if options.tokenizer is not None:
            located, notes = shared.tokenizer_location(options.tokenizer, options.download)
            found.notes += notes
            files = shared.tokenizer_files(located)
            if files is None:
                raise ConfigFileError(
                    os.fspath(located),
                    "no tokenizer files here (tokenizer.json, tokenizer_config.json, "
                    "special_tokens_map.json).",
                    unavailable=True,
                    code=codes.TOKENIZER_NOT_FOUND,
                    fix="pass --tokenizer a folder that holds the tokenizer's files",
                )
            return files
        files = _first_that_classifies(shared, self._searched().values(), token_id)
        if files is None:
            self._no_tokenizer_note(found)
        return files

    def weights_directory(self) -> str | None:
        """The local model directory of the draft, when weights are checked: the directory
        given, or the one holding the ``config.json`` given (a cache snapshot's included);
        ``None`` for a config file of another name, which no engine pairs with the files
        beside it (:func:`_model_directory`)."""
        if not self._options.check_weights:
            return None
        directory = _model_directory(self._draft.at)
        return None if directory is None else str(directory)

    def mask_embedding(self, directory: str) -> MaskEmbeddingFile | None:
        """``directory``'s ``mask_embedding.pt``, read, or ``None`` when there is none."""
        return read_mask_embedding_beside(directory, self._shared.listings)

    def checkpoint(self, found: Findings) -> CheckpointFiles | None:
        """The safetensors headers beside the draft, when weights are checked.

        Local files are read when the draft is a directory, a ``config.json`` or a cache
        snapshot: vLLM pairs weights with a model directory only, so a config file of another
        name (``drafts/a.json``) has none.  With ``download`` and a repo id, the headers come
        from the hub by HTTP range requests.  No weights at all means nothing to say; ``.bin``
        files only, a note.
        """
        if not self._options.check_weights:
            return None
        listings = self._shared.listings
        directory = _model_directory(self._draft.at)
        if directory is None:
            return None
        text = self._draft.text
        checkpoint: CheckpointHeaders | None
        try:
            if (
                self._options.download
                and text is not None
                and looks_like_repo_id(text)
                and not hub_offline()
            ):
                local = None
                checkpoint = hub_checkpoint_headers(text, directory.name)  # the snapshot's commit
                if checkpoint is None:
                    found.note(
                        "weights not checked: the repo has neither model.safetensors nor "
                        "model.safetensors.index.json",
                        code=codes.WEIGHTS_NOT_FOUND,
                    )
                    return None
                shown = tuple(display_path(f"{text}/{name}") for name in checkpoint.files)
            else:
                local = str(directory)
                files = find_weight_files(local, listings)
                if files.bin_only:
                    found.note(
                        "weights not checked: the draft ships .bin weights only, pickles that "
                        "are not read",
                        code=codes.WEIGHTS_BIN_ONLY,
                        fix="ship the weights as safetensors to have their headers checked",
                    )
                checkpoint = read_weight_files(local, files)
                shown = (
                    ()
                    if checkpoint is None
                    else tuple(display_path(os.path.join(local, name)) for name in checkpoint.files)
                )
        except (HubDownloadError, LfsPointerError) as error:  # nothing known either way
            found.note(
                f"weights not checked: {error}", code=codes.WEIGHTS_UNREADABLE, fix=error.fix
            )
            return None
        except ParallelDraftingConfigError as error:  # WeightsFileError, MissingExtraError
            if (
                isinstance(error, MissingShardError)
                and text is not None
                and looks_like_repo_id(text)
            ):
                found.note(  # a cache snapshot, not a directory: vLLM downloads the rest
                    f"weights not checked: the cache does not hold every weights file ({error}), "
                    "which vLLM downloads when it serves the repo id",
                    code=codes.WEIGHTS_NOT_CACHED,
                    fix="pass --download to read their headers from the hub",
                )
            else:
                found.error(error)
            return None
        mask_embedding = None if local is None else self.mask_embedding(local)
        return CheckpointFiles(checkpoint, shown, mask_embedding)


def _serve_name(shown: str | None, is_file: bool, placeholder: str) -> str:
    """A model as a serve command names it: the path or repo id as given (the folder of a
    ``config.json`` file given, which is what an engine loads), else ``placeholder``: a
    config object, another file (no engine loads a model from one), or a name
    :func:`display_path` had to escape, with backslashes (the command would name another
    path).  ``is_file``: whether the model given is a file (its read found it, so that the
    path is not asked again)."""
    if shown is None or shown == _CONFIG_OBJECT or "\\" in shown:
        return placeholder
    if not is_file:
        return shown
    folder, _, name = shown.rpartition("/")  # a file's path: its last part is its name
    if name != CONFIG_NAME:
        return placeholder
    if folder and os.sep == "/" and "//" not in shown and "." not in folder.split("/"):
        return folder  # already as pathlib writes it: no empty or "." part
    return str(Path(shown).parent)


def _target(read: DraftFile, options: CheckOptions, shared: _SharedReads) -> _Target:
    """The target given, else the launch's model, else the speculators verifier the file
    names, else none: found from the file as written, so that no engine's verdict depends on
    another's reading."""
    target = options.target
    if target is None:
        target = launch_target(options.launch)
    if target is not None:
        return shared.target(None, lambda: _explicit_target(target, options))
    verifier = speculators_verifier(read)
    if verifier is None:
        return _NO_TARGET
    return shared.target(verifier, lambda: _verifier_target(verifier, options))


def _explicit_target(target: ModelArgument, options: CheckOptions) -> _Target:
    try:
        located = _load(target, options.target_revision, options)
        return _Target(
            located.shown or _CONFIG_OBJECT,
            read_target(located.config),
            located.at,
            notes=located.notes,
            is_file=located.is_file,
        )
    except ParallelDraftingConfigError as error:
        return _Target(_shown(target) or _CONFIG_OBJECT, errors=(error,))


def _verifier_target(verifier: str, options: CheckOptions) -> _Target:
    """A speculators draft's verifier, the implicit target.

    A verifier that cannot be found (a path of the machine the draft was trained on, a
    repo id not cached or not downloadable, or no usable huggingface_hub) gets a note;
    one found but broken, an error.
    """
    shown = display_path(verifier)  # a name from the file: never printed raw
    try:
        located = _load(verifier, DEFAULT_REVISION, options)
        facts = read_target(located.config)
    except (
        MissingExtraError,
        RepoNotCachedError,
        RepoIdError,
        HubDownloadError,
        ConfigFileError,
    ) as error:
        if isinstance(error, ConfigFileError) and os.path.lexists(error.path):
            return _Target(shown, errors=(error,))  # the target is there, but broken
        # A path of the machine it was trained on, or a hub model not fetched: a note.
        return _Target(
            None,
            notes=(
                Note(
                    f"target not checked: the verifier {verifier!r} {_why(error)}",
                    code=codes.VERIFIER_NOT_FOUND,
                    field="speculators_config.verifier.name_or_path",
                    fix=_verifier_fix(error),
                ),
            ),
        )
    except ParallelDraftingConfigError as error:
        return _Target(shown, errors=(error,))
    note = Note(
        f"target taken from the speculators verifier {verifier!r}", code=codes.TARGET_FROM_VERIFIER
    )
    return _Target(shown, facts, located.at, notes=(note, *located.notes), is_file=located.is_file)


def _why(error: ParallelDraftingConfigError) -> str:
    """Why a speculators verifier could not be read, for its note."""
    if isinstance(error, MissingExtraError):
        if error.failure is None:
            return f"is a repo id, and looking it up needs the {EXTRA_NAME} extra"
        return f"is a repo id, and {error.problem}"
    if isinstance(error, HubDownloadError):
        return f"could not be downloaded: {error.problem}"
    return "is neither a local directory nor in the Hugging Face cache"


def _verifier_fix(error: ParallelDraftingConfigError) -> str:
    """What makes a speculators verifier that could not be read readable, for its note."""
    if isinstance(error, MissingExtraError):
        if error.failure is None:
            return f"install the {EXTRA_NAME} extra: pip install '{HUB_REQUIREMENT}'"
        return error.fix or "check the HF_* environment variables"
    return "pass --target DIR, or --download"


def _first_that_classifies(
    shared: _SharedReads, directories: Iterable[Path], token_id: int
) -> TokenizerFiles | None:
    """The tokenizer files of the first directory that can classify ``token_id``, reading
    the next only when the one before cannot (a ``tokenizer_config.json`` or a
    sentencepiece model without ``tokenizer.json``); else the first files found, if any."""
    first: TokenizerFiles | None = None
    for directory in directories:
        files = shared.tokenizer_files(directory)
        if files is None:
            continue
        if files.describe(token_id) is not None:
            return files
        first = first or files
    return first


def _unique(errors: list[ParallelDraftingConfigError]) -> tuple[ParallelDraftingConfigError, ...]:
    """The errors without repeats (one broken section can break two rules the same way)."""
    if len(errors) < 2:  # most verdicts: nothing to repeat
        return tuple(errors)
    seen: set[tuple[str | None, str]] = set()
    unique = []
    for error in errors:
        key = (error.field, str(error))
        if key not in seen:
            seen.add(key)
            unique.append(error)
    return tuple(unique)


def _directory_of(location: Path | None) -> Path | None:
    """The model directory of a ``config.json`` or of a model directory."""
    if location is None:
        return None
    return location if location.is_dir() else location.parent


def _model_directory(location: Path | None) -> Path | None:
    """The model directory an engine pairs weights with: ``location`` itself when it is a
    directory, the parent of a file named ``config.json``, else ``None`` (vLLM and SGLang
    load a model from a directory only, so ``drafts/a.json`` has no weights beside it)."""
    if location is None:
        return None
    if location.name == CONFIG_NAME:
        return location.parent
    return location if location.is_dir() else None


def _is_path(argument: object) -> bool:
    return is_kind(argument, (str, bytes, os.PathLike))


def _shown(argument: object) -> str | None:
    """How an argument appears in a verdict: a path as given, escaped; a config as ``None``."""
    if not _is_path(argument):
        return None
    try:
        return display_path(as_path(argument))
    except ParallelDraftingConfigError:  # an os.PathLike whose __fspath__ fails
        return "<unusable path>"


def _load(argument: object, revision: str, options: CheckOptions) -> Located:
    """:func:`load` with a call's options: a download fetches the tokenizer files only when
    the tokenizer is checked."""
    return load(
        argument, revision=revision, download=options.download, tokenizer=options.check_tokenizer
    )


def load(
    argument: object,
    *,
    revision: str = DEFAULT_REVISION,
    download: bool = False,
    tokenizer: bool = False,
) -> Located:
    """A path, a repo id or a config object, located and read once (see :class:`Located`);
    with ``download`` and ``tokenizer``, a repo's tokenizer files are fetched too.

    Only text can be a repo id: an ``os.PathLike`` is a path, even when missing.

    Raises:
        ParallelDraftingConfigError: the file cannot be read or the repo id found.
    """
    if type(argument) is str:  # most arguments: a path or repo id as text, as given
        text, is_text = argument, True
    elif _is_path(argument):
        text, is_text = as_path(argument), is_kind(argument, (str, bytes))
    else:
        return Located(None, argument)
    notes: list[str] = []
    where = local_or_cached(
        text if is_text else Path(text),
        revision=revision,
        download=download,
        files=TOKENIZER_FILE_NAMES if tokenizer else (),
        notes=notes,
    )
    config, is_file = read_config_json(where)
    return Located(
        display_path(text), config, where, tuple(notes), text if is_text else None, is_file
    )
