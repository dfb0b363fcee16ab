"""The error and warning types of drafting_config, and how values appear in messages."""

from __future__ import annotations

import reprlib
import sys
from types import FrameType
from typing import Final, TypeVar

from drafting_config.values import codes
from drafting_config.values.codes import Code, Step
from drafting_config.values.edits import ConfigEdit

__all__ = [
    "ConflictingTokenIdWarning",
    "ParallelDraftingConfigError",
    "ParallelDraftingConfigWarning",
    "PlaceholderTokenIdWarning",
    "TargetLayersWarning",
    "TokenizerTokenIdWarning",
]


class _FindingFields(Exception):
    """What every error and warning carries beside its message (see
    :class:`ParallelDraftingConfigError`), and how it pickles."""

    field: str | None
    code: Code | None
    fix: str | None
    evidence: str | None
    edit: ConfigEdit | None

    def __init__(
        self,
        message: str,
        *,
        field: str | None = None,
        code: Code | None = None,
        fix: str | None = None,
        evidence: str | None = None,
        edit: ConfigEdit | None = None,
    ) -> None:
        super().__init__(message)
        self.field = field
        self.code = code
        self.fix = fix
        self.evidence = evidence
        self.edit = edit

    @property
    def step(self) -> Step | None:
        """The step of the engine's load path the finding is about (its code's)."""
        return None if self.code is None else self.code.step

    def __reduce__(self) -> tuple[object, ...]:
        # Pickling and copying call ``cls(*args)``, which keyword-only and extra constructor
        # arguments break; rebuild from the message and attributes instead (``field``, a
        # subclass's ``path``...), so that every error and warning class pickles intact.
        return (_rebuild, (type(self), self.args, self.__dict__))


_Finding = TypeVar("_Finding", bound=_FindingFields)


def _rebuild(cls: type[_Finding], args: tuple[object, ...], state: dict[str, object]) -> _Finding:
    finding = cls.__new__(cls)
    finding.args = args
    finding.__dict__.update(state)
    return finding


class ParallelDraftingConfigError(_FindingFields, ValueError):
    """A draft model's config does not name a usable parallel-drafting token.

    It subclasses :class:`ValueError`, the type vLLM documents for this failure,
    so existing ``except ValueError`` handlers keep working.

    Attributes:
        field: the config field at fault (``"pard_token"``, ``"dflash_config"``,
            ``"vocab_size"``, ...), or ``None`` when no single field is to blame.
        code: the fact the error states (:class:`~drafting_config.values.codes.Code`),
            or ``None`` where none is declared yet.
        fix: what to change to remove the error, when one change is known.
        evidence: the engine code or published convention the error follows
            (``"vllm/config/speculative.py: SpeculativeConfig.__post_init__"``).
        edit: the fix as a change to the draft's ``config.json`` that ``check --fix`` can
            apply (:class:`~drafting_config.values.edits.ConfigEdit`), when the fix is
            certain and uses only values already in the file; else ``None``.
        step: the step of the engine's load path the error is about (its code's).
        unavailable: whether the error says the check could not be made, rather than
            that the draft is wrong: a file or repo the check needs could not be had
            (missing, unopenable, absent from the cache, a failed download, a missing
            extra).  A verdict whose only errors are such is "could not check"
            (``Verdict.outcome``), and the command line exits 2 for it, not 1.
    """

    unavailable: bool = False


class ParallelDraftingConfigWarning(_FindingFields, UserWarning):
    """Base class of the warnings about configs that resolve but look wrong.

    Attributes:
        field, code, fix, evidence, edit, step: as :class:`ParallelDraftingConfigError`'s.
    """


class ConflictingTokenIdWarning(ParallelDraftingConfigWarning):
    """Two token-id fields are set to different values; the higher-priority one wins."""


class PlaceholderTokenIdWarning(ParallelDraftingConfigWarning):
    """The resolved token id equals a pad, bos or eos token id (of the draft's config, the
    target's or the tokenizer's).

    Attributes:
        token_id: the token id.
        seen: each ``(role, whose)`` the id was found as (``("eos", "target")``), so that
            the findings of one id from several sources can be said as one.
    """

    token_id: int | None = None
    seen: tuple[tuple[str, str], ...] = ()


class TargetLayersWarning(ParallelDraftingConfigWarning):
    """The target layers a drafter taps, or a count of target layers, look wrong, though
    vLLM would not fail on them for certain (another runner, another reading, no target)."""


class TokenizerTokenIdWarning(ParallelDraftingConfigWarning):
    """The tokenizer disagrees with the token id: an ordinary token, or a mask token elsewhere."""


class _BoundedRepr(reprlib.Repr):
    """``reprlib.Repr`` that also bounds huge integers, which ``repr`` refuses to print."""

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 96:
            sign = "-" if x < 0 else ""
            return f"{sign}<int of {x.bit_length()} bits>"
        return repr(x)


_REPR: Final = _BoundedRepr()
_REPR.maxstring = 40
_REPR.maxother = 40
_REPR.maxlevel = 3


MAX_VALUE_CHARS: Final = 120
"""The most characters :func:`describe_value` shows of a value (its type name comes after)."""

MAX_TYPE_NAME_CHARS: Final = 60
"""The most characters :func:`describe_value` shows of a type's name."""


def describe_value(value: object) -> str:
    """Render a config value for an error message: short, bounded, never raising.

    Shows the value and its type (``'7' (str)``, ``7.0 (float)``, ``True (bool)``),
    truncating long strings and deep or recursive containers.  The value part is
    at most :data:`MAX_VALUE_CHARS` characters and the type name at most
    :data:`MAX_TYPE_NAME_CHARS`, each ending in ``...`` when cut.
    """
    if value is None:
        return "None"
    name = _truncate(type(value).__name__, MAX_TYPE_NAME_CHARS)
    try:
        text = _truncate(_REPR.repr(value), MAX_VALUE_CHARS)
    except Exception:  # a __repr__ that fails (a half-built config): say what it is instead
        text = f"<{name} object>"
    return f"{text} ({name})"


def bounded_repr(value: object) -> str:
    """A value as :func:`describe_value` shows it, without the type: a long string, list or
    integer is cut (``[1, 2, 3, ...]``, ``<int of 1330 bits>``), never raising."""
    try:
        return _truncate(_REPR.repr(value), MAX_VALUE_CHARS)
    except Exception:  # a __repr__ that fails: say what it is instead
        return f"<{_truncate(type(value).__name__, MAX_TYPE_NAME_CHARS)} object>"


def _truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def foreign_error(
    what: str, error: BaseException, *, field: str | None
) -> ParallelDraftingConfigError:
    """Our error for an exception raised by someone else's code (a property, a mapping).

    The message is ``"{what}: {ExceptionType}: {its first sentence}"`` (see
    :func:`exception_text`).
    """
    return ParallelDraftingConfigError(
        f"{what}: {exception_text(error, kind=True)}",
        field=field,
        code=codes.CONFIG_ATTRIBUTE_UNREADABLE,
    )


def exception_text(error: BaseException, *, kind: bool = False) -> str:
    """The first sentence of an exception's message, for one line of ours.

    The first line of ``str(error)``, up to its first ``". "``, at most 200
    characters (cut with ``...``); ``"no message"`` when it is empty and
    ``"<unprintable>"`` when its ``__str__`` raises.  With ``kind``, after the
    exception's type: ``"OSError: disk gone"``.
    """
    if kind:
        return f"{type(error).__name__}: {exception_text(error)}"
    try:
        lines = str(error).strip().splitlines()
    except Exception:
        return "<unprintable>"
    sentence = lines[0].partition(". ")[0].rstrip(".") if lines else ""
    return _truncate(sentence, 200) if sentence else "no message"


# Not mutated: mutmut would call it through a trampoline, a frame that itself shifts the
# answer by one; the warning tests check it (they run under mutmut too, see tests/conftest.py).
def caller_stacklevel() -> int:  # pragma: no mutate block
    """The ``stacklevel`` that makes ``warnings.warn`` point at the first frame outside
    this package and pydantic, i.e. at the user's call site.

    Counted from the frame that calls ``warnings.warn``, which is the caller of this
    function.
    """
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if not (
            isinstance(module, str)
            and (module.startswith(("drafting_config.", "pydantic.")) or module in _OWN_MODULES)
        ):
            return level
        frame = frame.f_back
        level += 1
    return level


_OWN_MODULES: Final = frozenset({"drafting_config", "pydantic"})
