"""The rendering of verdicts: text lines and JSON documents, for ``check`` and ``explain``.

No argparse here: :mod:`drafting_config.cli.run` parses the arguments and writes what this
module renders.  The JSON shape is documented with the command line.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Collection, Iterable, Sequence
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Final, NamedTuple, TypeAlias

from drafting_config.cli.output_schema import SCHEMA_VERSION
from drafting_config.cli.terminal import PIPE_WIDTH, Style
from drafting_config.files.json_files import MAX_CONFIG_BYTES, ConfigFileError
from drafting_config.values.edits import EditPlan, plan_edits
from drafting_config.values.errors import describe_value
from drafting_config.values.fields import MISSING
from drafting_config.values.paths import (
    RUNNER_COMMAND,
    display_path,
    parse_display_path,
    printable,
    printable_lines,
)
from drafting_config.verdicts import Verdict

if TYPE_CHECKING:
    from drafting_config.engines.interface import WeightsFacts


def edit_plan(verdicts: Sequence[Verdict]) -> EditPlan:
    """What ``--fix`` does with one draft's verdicts (every engine's): which findings it
    mends (:meth:`~drafting_config.values.edits.EditPlan.fixes`)."""
    return plan_edits(
        [
            finding
            for verdict in verdicts
            for finding in (*verdict.errors, *verdict.warnings, *verdict.notes)
            if getattr(finding, "edit", None) is not None  # most findings carry none
        ]
    )


def verdict_json(
    verdict: Verdict, *, strict: bool = False, plan: EditPlan | None = None
) -> dict[str, object]:
    """The ``--json`` object of one verdict (documented in docs/cli.md).

    ``ok`` is whether the draft passed, as the exit status counts it: with
    ``strict``, a verdict with warnings did not, and its warnings are listed in
    ``errors`` too (``"--strict: ..."``, field null), so ``error`` says why ``ok`` is
    false; ``token_id`` and ``source`` stay set, as the draft itself has no error.
    """
    resolution = verdict.resolution
    usable = verdict.token_id is not None and verdict.ok
    errors: list[dict[str, object]] = [
        {"field": e.field, "message": _message(e, verdict), "code": _code(e)}
        for e in verdict.errors
    ]
    if strict and verdict.ok:  # the warnings are what failed the check: list them as such
        errors += [
            {"field": None, "message": f"--strict: {w}", "code": _code(w)} for w in verdict.warnings
        ]
    first = errors[0] if errors else None
    token = verdict.token
    return {
        "schema_version": SCHEMA_VERSION,
        "path": verdict.path,
        "engine": verdict.engine,
        "ok": passed(verdict, strict),
        "outcome": outcome(verdict, strict),
        "token_id": verdict.token_id if usable else None,
        "source": verdict.token_source if usable else None,
        "shadowed": []
        if not usable
        else [{"source": f.source.value, "token_id": f.token_id} for f in verdict.shadowed],
        "hidden_size": None if resolution is None else resolution.hidden_size,
        "vocab_size": None if resolution is None else resolution.vocab_size,
        "format": None if resolution is None else resolution.format,
        "algorithm": verdict.algorithm,
        "mode": verdict.mode,
        "parallel": verdict.parallel,
        "serve_with": verdict.serve_with,
        "aux_layer_ids": None if verdict.aux_layer_ids is None else list(verdict.aux_layer_ids),
        "aux_layer_source": verdict.aux_layer_source,
        "token": None
        if token is None
        else {"id": token.id, "kind": token.kind.value, "text": token.text},
        "target": verdict.target,
        "weights": _weights_json(verdict),
        "warnings": [str(w) for w in verdict.warnings],
        "notes": list(verdict.notes),
        "errors": errors,
        "error": None if first is None else first["message"],
        "error_field": None if first is None else first["field"],
        "findings": finding_rows(verdict, plan),
    }


def finding_rows(verdict: Verdict, plan: EditPlan | None = None) -> list[dict[str, object]]:
    """Every finding of a verdict as data: its code, step, severity, field, message, fix and
    evidence (``None`` where not known), and whether ``--fix`` mends it (``fixable``, by
    ``plan``, the draft's :func:`edit_plan`; by default the verdict's own), errors first,
    then warnings, then notes."""
    if plan is None:
        plan = edit_plan([verdict])
    marks = bool(plan.edits)  # most drafts: no finding carries an edit the plan applies
    rows: list[dict[str, object]] = []
    for severity, findings in _by_severity(verdict):
        for finding in findings:
            code = getattr(finding, "code", None)
            rows.append(
                {
                    "code": None if code is None else code.name,
                    "step": None if code is None else code.step.value,
                    "severity": severity,
                    "engine": verdict.engine,
                    "field": getattr(finding, "field", None),
                    "message": _finding_message(severity, finding, verdict),
                    "fix": getattr(finding, "fix", None),
                    "evidence": getattr(finding, "evidence", None),
                    "fixable": marks and plan.fixes(finding),
                }
            )
    return rows


def _by_severity(verdict: Verdict) -> tuple[tuple[str, Sequence[object]], ...]:
    """A verdict's findings by severity: errors first, then warnings, then notes."""
    return (("error", verdict.errors), ("warning", verdict.warnings), ("note", verdict.notes))


def _finding_message(severity: str, finding: object, verdict: Verdict) -> str:
    """A finding's message as the output shows it (an error's by :func:`_message`)."""
    return _message(finding, verdict) if severity == "error" else str(finding)


def _code(finding: object) -> str | None:
    code = getattr(finding, "code", None)
    return None if code is None else str(code)


def _message(error: object, verdict: Verdict) -> str:
    """An error's text; the draft's own path, which the verdict shows already, left out.

    Only an error that kept the draft from being read is about the draft's path; once
    the draft is read, a file error is about the target's or the tokenizer's files,
    and its message keeps the path that says which.
    """
    if verdict.resolution is not None:
        return str(error)
    if isinstance(error, ConfigFileError):
        # The file's own path when it is not the argument: `DIR/config.json` is a directory.
        return error.problem if display_path(error.path) == verdict.path else str(error)
    return str(error).removeprefix(f"{verdict.path}: ")  # a repo id not cached, ...


def passed(verdict: Verdict, strict: bool) -> bool:
    return verdict.ok and not (strict and verdict.warnings)


def outcome(verdict: Verdict, strict: bool) -> str:
    """The verdict's :attr:`~Verdict.outcome` as the exit status counts it: with ``strict``,
    a verdict with warnings is ``"invalid"``."""
    if verdict.ok:
        return "ok" if passed(verdict, strict) else "invalid"
    return verdict.outcome


HEADLINE_WORDS: Final = {"ok": "OK", "invalid": "INVALID", "unchecked": "NOT CHECKED"}
"""The word of a draft's headline for each outcome; ``FAILED (--strict: warnings)`` when
only ``--strict`` fails it."""

STRICT_FAILED: Final = "FAILED (--strict: warnings)"

MAX_LINE: Final = PIPE_WIDTH
"""The longest line the text output prints of a finding, its fix or its evidence when it
goes to no terminal (on one, the terminal's width, as
:class:`~drafting_config.cli.terminal.Style` says): longer ones are wrapped at spaces,
their continuation indented, never inside a span in backticks, a path or a code (a
headline or a ``serve with`` line, which hold a path or a command to copy, are never
wrapped)."""

FIXABLE_MARK: Final = "[*]"
"""Written after the code of a finding ``--fix`` would mend, as ruff marks them."""

_INDENT: Final = "  "
_FACTS: Final = _INDENT * 2
"""The indent of a verdict's facts and its engine's own findings, under its engine's line."""


class _Shown(NamedTuple):
    """One finding as the text output prints it; :data:`_Fact` says when two engines report
    the same fact (severity, code, field and message) the same way."""

    severity: str
    code: str | None
    field: str | None
    message: str
    fix: str | None
    evidence: str | None
    fixable: bool


_Fact: TypeAlias = "tuple[str, str | None, str | None, str]"
"""A finding's severity, code, field and message: what makes two findings one in the text
output (the first one's fix, evidence and mark are printed)."""


def _shown_findings(
    verdict: Verdict, plan: EditPlan, footer: AbstractSet[str] = frozenset()
) -> dict[_Fact, _Shown]:
    """A verdict's findings, each fact once, errors first, then warnings, then notes (those
    whose code's name is in ``footer`` left to the run's footer); fixable by ``plan`` (the
    draft's, so that edits two engines disagree on are marked on neither)."""
    shown: dict[_Fact, _Shown] = {}
    for severity, findings in _by_severity(verdict):
        for finding in findings:
            code = getattr(finding, "code", None)
            name = None if code is None else code.name
            if name in footer and severity == "note":
                continue
            field = getattr(finding, "field", None)
            fact = (severity, name, field, _finding_message(severity, finding, verdict))
            if fact not in shown:
                fix = getattr(finding, "fix", None)
                evidence = getattr(finding, "evidence", None)
                shown[fact] = _Shown(*fact, fix, evidence, plan.fixes(finding))
    return shown


def headline_word(
    verdicts: Sequence[Verdict], strict: bool, outcomes: Collection[str] | None = None
) -> str:
    """A draft's headline word: its worst outcome over its engines, as the exit status
    ranks them (a failed draft before one that could not be checked); ``outcomes`` are
    the verdicts' :func:`outcome`, when the caller has them."""
    if outcomes is None:
        outcomes = [outcome(verdict, strict) for verdict in verdicts]
    if "invalid" in outcomes:
        return (
            HEADLINE_WORDS["invalid"]
            if any(verdict.outcome == "invalid" for verdict in verdicts)
            else STRICT_FAILED  # only --strict failed it: warnings
        )
    return HEADLINE_WORDS["unchecked" if "unchecked" in outcomes else "ok"]


def block_lines(
    verdicts: Sequence[Verdict],
    strict: bool,
    *,
    verbose: bool = False,
    token_fields: bool = False,
    style: Style | None = None,
    plan: EditPlan | None = None,
    footer: AbstractSet[str] = frozenset(),
    word: str | None = None,
) -> list[str]:
    """The text of one draft's verdicts, one per engine (documented in docs/cli.md).

    A headline ``PATH: OK`` (the draft's worst outcome, :func:`headline_word`; ``explain``
    adds a line of what the draft's file says of itself: its format and sizes), then one line
    per engine saying how it serves the draft, or the step it fails at, or that it could not
    check, with the facts of its verdict under it; then the findings, each
    ``SEVERITY CODE field: message`` with its ``fix:`` (and, with ``verbose``, its
    ``evidence:``) on lines of their own.  A finding every engine reports alike is printed
    once, after the engine lines; one that a single engine reports, under that engine's
    line (or, reported by some engines of several, after them, naming them); a finding
    ``--fix`` would mend has :data:`FIXABLE_MARK` after its code.  ``style`` gives the width
    findings are wrapped at and whether to colour the headline's word, each finding's
    severity and code (default: no colour, :data:`MAX_LINE`).  With ``token_fields``
    (``explain``), each engine line is followed by the token-id fields in the order that
    engine reads them.  ``plan`` is the draft's :func:`edit_plan` and ``word`` its
    :func:`headline_word`, when the caller has them; the notes whose code's name is in
    ``footer`` are left out (a run of several drafts says them once, in its footer).
    """
    style = style or Style()
    width = style.width
    first = verdicts[0]
    name = first.path if first.path is not None else "<config>"
    if word is None:
        word = headline_word(verdicts, strict)
    lines = [f"{name}: {word}"]
    if token_fields:
        details = _draft_details(verdicts)
        if details:
            lines.append(f"{_INDENT}draft: {details}")
    if plan is None:
        plan = edit_plan(verdicts)
    if len(verdicts) == 1:  # most runs: every finding is the one engine's, printed last
        lines += _engine_lines(first, token_fields)
        shown = _shown_findings(first, plan, footer)
        if shown:
            lines += _finding_lines(shown.values(), _INDENT, verbose, width=width)
    else:
        lines += _engines_lines(
            verdicts, plan, footer=footer, verbose=verbose, token_fields=token_fields, width=width
        )
    lines = printable_lines(lines)  # config values quoted in messages
    return _coloured(lines, word) if style.colour else lines


def _engine_lines(verdict: Verdict, token_fields: bool) -> list[str]:
    """An engine's line (:func:`_engine_state`), then (``token_fields``) its token-id fields
    and the facts of its verdict."""
    lines = [f"{_INDENT}{verdict.engine}: {_engine_state(verdict)}"]
    if token_fields:
        lines += [_FACTS + row for row in token_field_lines(verdict)]
    _add_fact_lines(lines, verdict)
    return lines


def _engines_lines(
    verdicts: Sequence[Verdict],
    plan: EditPlan,
    *,
    footer: AbstractSet[str],
    verbose: bool,
    token_fields: bool,
    width: int,
) -> list[str]:
    """The lines of several engines' verdicts of a draft (:func:`block_lines`): each engine's
    line with the findings it alone reports, then those several report, naming them unless
    all do."""
    reported: dict[_Fact, tuple[_Shown, list[str]]] = {}
    for verdict in verdicts:
        for fact, shown in _shown_findings(verdict, plan, footer).items():
            if fact in reported:
                reported[fact][1].append(verdict.engine)
            else:
                reported[fact] = (shown, [verdict.engine])
    lines: list[str] = []
    for verdict in verdicts:
        lines += _engine_lines(verdict, token_fields)
        only = [shown for shown, by in reported.values() if by == [verdict.engine]]
        lines += _finding_lines(only, _FACTS, verbose, width=width)
    for shown, by in reported.values():
        if len(by) > 1:
            tag = "" if len(by) == len(verdicts) else f" [{', '.join(by)}]"
            lines += _finding_lines([shown], _INDENT, verbose, tag, width=width)
    return lines


_BOLD: Final = "\x1b[1m"
_RESET: Final = "\x1b[0m"
_COLOURS: Final = {
    "error": "\x1b[1;31m",
    "warning": "\x1b[1;33m",
    "note": "\x1b[1;36m",
    HEADLINE_WORDS["ok"]: "\x1b[1;32m",
    HEADLINE_WORDS["invalid"]: "\x1b[1;31m",
    HEADLINE_WORDS["unchecked"]: "\x1b[1;33m",
    STRICT_FAILED: "\x1b[1;31m",
}
"""The colour of each severity and headline word (ANSI: red, yellow, cyan, green)."""

_FINDING_START: Final = re.compile(r"^( {2}| {4})(error|warning|note) ([^\s:]+)")
"""A finding's first line (its continuation lines and facts are indented otherwise)."""


def _paint(text: str, colour: str) -> str:
    return f"{colour}{text}{_RESET}"


def _coloured(lines: list[str], word: str) -> list[str]:
    """A block's lines (made :func:`printable` already) in colour: the headline's ``word``,
    and each finding's severity and code."""
    name = lines[0].removesuffix(f": {word}")
    painted = [f"{_paint(name, _BOLD)}: {_paint(word, _COLOURS.get(word, _BOLD))}"]
    for line in lines[1:]:
        match = _FINDING_START.match(line)
        if match is None:
            painted.append(line)
            continue
        indent, severity, code = match.groups()
        head = f"{indent}{_paint(severity, _COLOURS[severity])} {_paint(code, _BOLD)}"
        painted.append(head + line[match.end() :])
    return painted


def _draft_details(verdicts: Sequence[Verdict]) -> str:
    """What the draft's file says of itself, the same for every engine: its format when not
    HF's, and its sizes."""
    resolution = next((v.resolution for v in verdicts if v.resolution is not None), None)
    if resolution is None:
        return ""
    details = [
        f"{size_name} {size}"
        for size_name, size in (
            ("hidden_size", resolution.hidden_size),
            ("vocab_size", resolution.vocab_size),
        )
        if size is not None
    ]
    if resolution.format != "hf":
        details.insert(0, f"{resolution.format} {resolution.algorithm}")
    return ", ".join(details)


def _engine_state(verdict: Verdict) -> str:
    """How the engine serves the draft, or the step its first error is at, or that the
    check could not be made."""
    if verdict.errors:
        if verdict.outcome == "unchecked":
            return "could not check"
        error = next((e for e in verdict.errors if not e.unavailable), verdict.errors[0])
        return "fails" if error.step is None else f"fails at {error.step.value}"
    if verdict.mode is None:
        state = "serves the draft"
    else:
        drafted = "parallel" if verdict.parallel else "sequential"
        state = f"serves as {verdict.mode} ({drafted})"
    if verdict.parallel is False:
        return state  # sequential drafting reads no parallel-drafting token
    return f"{state}, {_token_part(verdict)}"


def _add_fact_lines(lines: list[str], verdict: Verdict) -> None:
    """Add the facts of a verdict to ``lines``, one short line each, at :data:`_FACTS`: the
    command that serves it, the shadowed token-id fields, the token, the target and the
    weights read."""
    if verdict.serve_with is not None:
        lines.append(f"{_FACTS}serve with: {verdict.serve_with}")
    ok = verdict.ok
    if ok and verdict.shadowed:
        shadowed = ", ".join(f"`{f.source.value}` = {f.token_id}" for f in verdict.shadowed)
        lines.append(f"{_FACTS}shadowed: {shadowed}")
    if ok and verdict.token is not None:
        token = verdict.token
        text = "" if token.text is None else f" {token.text!r}"
        lines.append(f"{_FACTS}token: {token.kind.value}{text}")
    if verdict.target is not None:
        lines.append(f"{_FACTS}target: {verdict.target}")
    if verdict.weights is not None:
        lines.append(f"{_FACTS}weights: {_weights_line(verdict.weights)}")


def _finding_lines(
    findings: Iterable[_Shown],
    indent: str,
    verbose: bool,
    tag: str = "",
    *,
    width: int = MAX_LINE,
) -> list[str]:
    """``SEVERITY CODE [*] field: message``, then ``fix:`` and (``verbose``) ``evidence:``,
    each wrapped at ``width``."""
    lines: list[str] = []
    for shown in findings:
        where = shown.code or "-"
        if shown.fixable:
            where += f" {FIXABLE_MARK}"
        if shown.field is not None:
            where += f" {shown.field}"
        lines += wrapped(f"{shown.severity} {where}{tag}: {shown.message}", indent, width)
        if shown.fix is not None:
            lines += wrapped(f"fix: {shown.fix}", indent + _INDENT, width)
        if verbose and shown.evidence is not None:
            lines += wrapped(f"evidence: {shown.evidence}", indent + _INDENT, width)
    return lines


_QUOTED: Final = re.compile(r"`[^`]*`")
"""A span in backticks: a field, a value, a command to copy; wrapped as one word."""

_KEPT_SPACE: Final = "\ue000"
"""A space inside a quoted span while the text is wrapped: a private-use character, which
:func:`printable` escapes, so no text it made holds one."""


def wrapped(text: str, indent: str, width: int = MAX_LINE) -> list[str]:
    """``text`` at ``indent``, wrapped at spaces into lines of at most ``width`` characters
    (a word longer than that stays whole), continuation lines indented more.  A span in
    backticks (a command such as `hf download ORG/NAME config.json`) is never broken, so it
    can be copied whole; nor is a word (a path, a code, an identifier)."""
    text = printable(text)  # printable from here on: its only white space is the space
    if len(indent) + len(text) <= width and text[:1] != " " and text[-1:] != " ":
        return [indent + text]  # one line, as textwrap would make it, at a tenth of its cost
    if "`" in text:
        text = _QUOTED.sub(lambda span: span.group().replace(" ", _KEPT_SPACE), text)
    lines = _wrapped_at_spaces(text, width, indent, indent + _INDENT * 2) or [indent]
    return [line.replace(_KEPT_SPACE, " ") for line in lines]


_SPACES: Final = re.compile("( +)")


def _wrapped_at_spaces(text: str, width: int, first: str, rest: str) -> list[str]:
    """``textwrap.wrap(text, width, initial_indent=first, subsequent_indent=rest,
    break_long_words=False, break_on_hyphens=False)`` for a :func:`printable` text, whose
    only white space is the space: the same greedy filling of words and runs of spaces
    (a run is dropped at the end of a line and at the start of every line but the first;
    a word longer than a line has a line of its own), at a fraction of the cost of
    building a ``TextWrapper``, which a sweep paid for every long note.
    ``tests/cli/test_terminal.py`` holds it to textwrap's result on any text."""
    if text and " " not in (text[0], text[-1]) and "  " not in text:
        return _wrapped_at_single_spaces(text, width, first, rest)
    chunks = [chunk for chunk in _SPACES.split(text) if chunk]
    chunks.reverse()  # a stack: the next chunk is the last
    lines: list[str] = []
    while chunks:
        indent = rest if lines else first
        room = width - len(indent)
        if lines and chunks[-1][0] == " ":
            chunks.pop()
        line: list[str] = []
        used = 0
        while chunks and used + len(chunks[-1]) <= room:
            used += len(chunks[-1])
            line.append(chunks.pop())
        if chunks and not line and len(chunks[-1]) > room:
            line.append(chunks.pop())  # a word no line holds: on a line of its own
        if line and line[-1][0] == " ":
            line.pop()
        if line:
            lines.append(indent + "".join(line))
    return lines


def _wrapped_at_single_spaces(text: str, width: int, first: str, rest: str) -> list[str]:
    """:func:`_wrapped_at_spaces` of a text whose words are parted by single spaces, at
    neither end (a message, almost always): each line the longest run of whole words that
    fits (the last space in reach found by ``rfind``), a longer word on a line of its own,
    with no list of chunks made."""
    lines: list[str] = []
    indent = first
    start = 0
    while True:
        room = width - len(indent)
        if len(text) - start <= room:
            lines.append(indent + text[start:])
            return lines
        end = text.rfind(" ", start, start + max(room + 1, 0))
        if end < start:  # no space in reach: the first word, longer than a line, alone
            end = text.find(" ", start)
            if end < 0:
                lines.append(indent + text[start:])
                return lines
        lines.append(indent + text[start:end])
        start = end + 1
        indent = rest


def footer_line(note: str, drafts: int, style: Style | None = None) -> str:
    """A note the run's footer says once, with the number of drafts it holds for."""
    line = printable(f"note ({drafts} draft{'' if drafts == 1 else 's'}): {note}")
    if style is not None and style.colour:
        return _paint("note", _COLOURS["note"]) + line.removeprefix("note")
    return line


def github_lines(verdict: Verdict, strict: bool) -> list[str]:
    """GitHub Actions workflow commands for a verdict's errors and warnings (``--format
    github``): ``::error file=DRAFT,title=CODE::message``, one per finding, so that a CI
    shows each on the draft's file, and on the line and column of its field where the
    file holds it (``file=DRAFT,line=L,col=C,title=...``, from the JSON's own positions:
    :func:`~drafting_config.files.json_spans.field_position`).  Properties and messages
    are escaped as the runner reads them (``%``, ``\\r``, ``\\n``; in properties ``:`` and
    ``,`` too), and any other unprintable character as :func:`printable` writes it, so no
    config value can forge a workflow command."""
    path = verdict.path if verdict.path is not None else "<config>"
    config = None if verdict.path is None else os.fsdecode(parse_display_path(verdict.path))
    if config is not None and os.path.isdir(config):
        path = f"{path}/config.json"
        config = os.path.join(config, "config.json")
    text = None
    if config is not None and any(f.field for f in (*verdict.errors, *verdict.warnings)):
        text = _config_text(config)
    prefix = f"[{verdict.engine}] "
    lines = []
    for error in verdict.errors:
        word = "could not check" if error.unavailable else "error"
        message = prefix + _with_fix(_message(error, verdict), error.fix)
        where = _position(text, error.field)
        lines.append(_workflow_command("error", path, _code(error) or word, message, where))
    level = "error" if strict and verdict.ok else "warning"
    lines += [
        _workflow_command(
            level,
            path,
            _code(warning) or "warning",
            prefix + _with_fix(str(warning), warning.fix),
            _position(text, warning.field),
        )
        for warning in verdict.warnings
    ]
    return lines


def _config_text(path: str) -> str | None:
    """The text of the draft's config file for annotations' positions, or ``None`` when it
    cannot be read as UTF-8 within the config size limit."""
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_CONFIG_BYTES + 1)
        return data.decode("utf-8") if len(data) <= MAX_CONFIG_BYTES else None
    except (OSError, UnicodeDecodeError):
        return None


def _position(text: str | None, field: str | None) -> tuple[int, int] | None:
    """The line and column of ``field``'s key in ``text``, where it holds the field."""
    if text is None or not field:
        return None
    from drafting_config.files.json_spans import field_position  # noqa: PLC0415 (github only)

    return field_position(text, field)


def _with_fix(message: str, fix: str | None) -> str:
    """An annotation's text: the message, and the fix where one is known."""
    return message if fix is None else f"{message} (fix: {fix})"


def _workflow_command(
    level: str, file: str, title: str, message: str, where: tuple[int, int] | None = None
) -> str:
    place = "" if where is None else f",line={where[0]},col={where[1]}"
    properties = f"file={escape_property(file)}{place},title={escape_property(title)}"
    return f"::{level} {properties}::{escape_data(message)}"


def escape_data(text: str) -> str:
    """A workflow command's message, escaped as the Actions runner unescapes it."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return printable(text)


def escape_property(text: str) -> str:
    """A workflow command's property value, escaped: ``:`` and ``,`` too."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _token_part(verdict: Verdict) -> str:
    """Which token id the engine feeds the masked slots, and where it comes from."""
    if verdict.token_id is None:  # SGLang: the served tokenizer's, or EAGLE3's none
        if verdict.algorithm == "EAGLE3":
            return "no token id (sequential EAGLE3)"
        return "token id from the served tokenizer at start-up"
    if verdict.token_source == "tokenizer":
        return f"token id {verdict.token_id} from the tokenizer"
    return f"token id {verdict.token_id} from `{verdict.token_source}`"


def _weights_json(verdict: Verdict) -> dict[str, object] | None:
    weights = verdict.weights
    if weights is None:
        return None
    return {
        "files": list(weights.files),
        "tensors": weights.tensors,
        "architecture": weights.architecture,
        "embedding_rows": weights.embedding_rows,
        "fc_input_width": weights.fc_input_width,
        "layers": weights.layers,
    }


def _weights_line(weights: WeightsFacts) -> str:
    """``7 tensors in DIR/model.safetensors (qwen3_dflash: 2 layers, fc input 192)``."""
    files = weights.files
    where = files[0] if len(files) == 1 else f"{len(files)} files ({files[0]}, ...)"
    found = [f"{weights.layers} layers"] if weights.layers is not None else []
    if weights.embedding_rows is not None:
        found.append(f"embedding rows {weights.embedding_rows}")
    if weights.fc_input_width is not None:
        found.append(f"fc input {weights.fc_input_width}")
    row = weights.architecture or "architecture not checked"
    details = f"{row}: {', '.join(found)}" if found else row
    return f"{weights.tensors} tensors in {where} ({details})"


def json_text(document: object) -> str:
    """``document`` as strict JSON: a ``NaN`` or infinity from a config (which Python's
    ``json``, transformers and vLLM all read) is written as the string ``"NaN"``,
    ``"Infinity"`` or ``"-Infinity"``, which strict parsers accept; a ``##[`` in a string as
    ``\\u0023#[``, the same string, which no CI runner reads as a workflow command."""
    try:
        text = _STRICT_JSON.encode(document)
    except ValueError:  # rare: walk the document only when it holds one
        text = _STRICT_JSON.encode(_finite(document))
    if RUNNER_COMMAND in text:  # only ever inside a string: the same value, inert for CI
        text = text.replace(RUNNER_COMMAND, "\\u0023#[")
    return text


_STRICT_JSON: Final = json.JSONEncoder(allow_nan=False, check_circular=False)
"""One encoder for every document (``json.dumps`` with an option builds one per call); a
document is a tree built afresh by :func:`verdict_json`, so no cycle check."""


_NON_FINITE: Final = {math.inf: "Infinity", -math.inf: "-Infinity"}


def _finite(value: object) -> object:
    if isinstance(value, float) and not math.isfinite(value):
        return _NON_FINITE.get(value, "NaN")
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_finite(item) for item in value]
    return value


def _token_fields(verdict: Verdict) -> list[tuple[str, object, str, str | None]]:
    """Each token-id field of a verdict in the order its engine reads them: the field, its
    raw value (:data:`MISSING` when absent), its status and why it is invalid."""
    if verdict.token_fields is not None:  # the engine's own order
        return [(f.field, f.value, f.status, f.error) for f in verdict.token_fields]
    resolution = verdict.resolution
    if resolution is None:
        return []
    return [
        (f.source.value, f.value, f.status.value, None if f.error is None else str(f.error))
        for f in resolution.fields
    ]


def field_rows(verdict: Verdict) -> list[dict[str, object]]:
    """``explain --json``'s ``fields``: the token-id fields in the order the verdict's engine
    reads them, each with its rank, value (null when absent), status and error."""
    return [
        {
            "rank": rank,
            "field": name,
            "value": None if value is MISSING else value,
            "status": status,
            "error": error,
        }
        for rank, (name, value, status, error) in enumerate(_token_fields(verdict), 1)
    ]


def _shown(value: object) -> str:
    if value is MISSING:
        return "-"
    if value is None:
        return "null"
    return str(value) if type(value) is int else describe_value(value)


def token_field_lines(verdict: Verdict) -> list[str]:
    """The token-id fields of a verdict in the order its engine reads them, as a table:
    rank, field, value and status."""
    rows = _token_fields(verdict)
    if not rows:
        return [] if verdict.token_fields is None else ["reads no token id"]
    header = ("rank", "field", "value", "status")
    table = [header] + [
        (str(rank), name, _shown(value), status)
        for rank, (name, value, status, _) in enumerate(rows, 1)
    ]
    widths = [max(len(cells[i]) for cells in table) for i in range(len(header) - 1)]
    return [
        "".join(cell.ljust(width + 2) for cell, width in zip(cells, widths, strict=False))
        + cells[-1]
        for cells in table
    ]


def explain_lines(
    verdicts: Sequence[Verdict],
    strict: bool,
    *,
    verbose: bool = False,
    style: Style | None = None,
) -> list[str]:
    """The text of ``explain`` for one draft: its block (:func:`block_lines`), each engine's
    line followed by the token-id fields in the order that engine reads them."""
    return block_lines(
        verdicts,
        strict,
        verbose=verbose,
        token_fields=True,
        style=style,
    )
