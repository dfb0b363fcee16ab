"""The ``[tool.drafting-config]`` table: the defaults a repository gives ``check``.

Read from the nearest ``pyproject.toml`` at or above the current directory, up to the
repository root (the first folder holding ``.git``; with none, the current directory
only: a ``pyproject.toml`` above the repository, whoever owns it, changes no verdict),
or from ``--config FILE``; flags on the command line win over the table.  The keys:

- ``ignore``: a list of finding codes (``drafting_config.engines.CODES``) whose
  warnings and notes to drop (:data:`IGNORABLE`; an error is never dropped, and a code
  that is only ever an error is refused);
- ``strict``: a bool, as ``--strict``;
- ``engine``: ``"vllm"``, ``"sglang"``, a shipped release (``"vllm==VERSION"``), every shipped
  release of one (``"vllm==*"``), or ``"all"``, as one ``--engine``;
- ``require-parallel``: a bool, as ``--require-parallel`` where the command has it.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from drafting_config.engines import CODES, ENGINES, EVERY_RELEASE, RELEASES
from drafting_config.values.paths import display_path

__all__ = ["IGNORABLE", "Settings", "SettingsError", "find_pyproject", "read_settings"]

TABLE: Final = "drafting-config"
"""The table's name under ``[tool]``."""

ENGINE_VALUES: Final = (*ENGINES, *RELEASES, *EVERY_RELEASE, "all")
"""What ``engine`` takes: what ``--engine`` takes (:data:`drafting_config.engines.ENGINES`,
:data:`~drafting_config.engines.RELEASES`, and ``all``)."""


IGNORABLE: Final = frozenset(
    (
        "model-type-remote-code",
        "model-type-too-new",
        "download-skipped",
        "architecture-fallback",
        "dspark-architecture-replaced",
        "token-fields-disagree",
        "token-eagle-disagrees",
        "token-placeholder",
        "token-not-named",
        "token-added-to-tokenizer",
        "token-from-tokenizer",
        "layer-ids-floats",
        "layer-id-minus-one",
        "runners-disagree-on-layers",
        "num-target-layers-not-count",
        "num-target-layers-not-depth",
        "num-target-layers-unexplained",
        "eagle-layer-ids-misplaced",
        "layer-not-read",
        "target-not-given",
        "target-from-verifier",
        "verifier-not-found",
        "target-has-no-sizes",
        "target-architecture-unregistered",
        "size-from-config-default",
        "markov-head-type-nested",
        "sample-from-anchor-ignored",
        "max-model-len-lowered",
        "default-layers-mismatch",
        "weights-not-found",
        "weights-bin-only",
        "weights-unreadable",
        "weights-not-cached",
        "weights-not-modelled",
        "index-names-absent-tensor",
        "weights-architecture-unknown",
        "weights-quantized",
        "weights-bias-ignored",
        "mask-embedding-not-checked",
        "weights-embedding-shared",
        "weights-lm-head-tied-by-default",
        "tokenizer-not-found",
        "tokenizer-cannot-classify",
        "token-is-ordinary",
        "token-mask-elsewhere",
        "served-sequentially",
        "token-unused",
        "projector-unimplemented",
        "installed-release-unknown",
        "layers-guessed",
        "rope-differs-from-target",
        "causality-assumed",
        "sample-from-anchor-assumed",
        "weights-d2t-missing",
        "speculative-tokens-unknown",
        "launch-parallel-off",
        "launch-tokens-differ",
        "launch-draft-differs",
        "launch-steps",
        "launch-option-ignored",
    )
)
"""The codes ``--ignore`` and ``ignore`` take: those some rule gives as a warning or a note
(``tests/cli/test_settings.py`` reads every rule's source for them). An ignored code drops
those only: an error means the engine certainly fails, and no option passes such a draft
(:meth:`drafting_config.verdicts.Verdict.without`)."""


class SettingsError(Exception):
    """The table, or the file holding it, is unusable: a usage error (exit 2)."""


@dataclass(frozen=True)
class Settings:
    """What the table says; ``None`` where it says nothing."""

    ignore: tuple[str, ...] = ()
    strict: bool | None = None
    engine: str | None = None
    require_parallel: bool | None = None
    source: str | None = None
    """The file the settings came from, for messages."""


def find_pyproject(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` at or above ``start`` and at or below the repository
    root, the first folder holding ``.git`` at or above ``start``; outside a repository,
    ``start``'s own only."""
    folders = (start, *start.parents)
    root = next((folder for folder in folders if (folder / ".git").exists()), None)
    searched = folders[: folders.index(root) + 1] if root is not None else (start,)
    for directory in searched:
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def read_settings(config: str | None) -> Settings:
    """The ``[tool.drafting-config]`` table of ``config`` (``--config FILE``), else of the
    nearest ``pyproject.toml`` at or above the current directory; empty settings when there
    is none.

    Raises:
        SettingsError: the file cannot be read or parsed, or the table holds a key or value
            it does not take.
    """
    if config is not None:
        path = Path(config)
    else:
        try:
            here = os.getcwd()
        except OSError as error:  # the working directory was deleted
            raise SettingsError(
                f"cannot read the current directory (deleted?): {error.strerror}"
            ) from None
        found = find_pyproject(Path(here))
        if found is None:
            return Settings()
        path = found
    shown = display_path(str(path))
    # Imported here: a run with no pyproject.toml (a sweep's folder) never pays for the parser.
    if sys.version_info >= (3, 11):
        import tomllib  # noqa: PLC0415
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]  # noqa: PLC0415
    try:
        document = tomllib.loads(_read_text(path, shown))
    except tomllib.TOMLDecodeError as error:
        raise SettingsError(f"{shown} is not valid TOML: {error}") from None
    tool = document.get("tool", {})
    table = tool.get(TABLE) if isinstance(tool, dict) else None
    if table is None:
        if config is not None:
            raise SettingsError(f"{shown} has no [tool.{TABLE}] table")
        return Settings()
    if not isinstance(table, dict):
        raise SettingsError(f"{shown}: [tool.{TABLE}] must be a table")
    return _settings(table, shown)


MAX_SETTINGS_BYTES: Final = 1 << 20
"""The largest settings file read (1 MiB): a ``pyproject.toml`` is a few KB."""


def _read_text(path: Path, shown: str) -> str:
    """The text of the settings file ``path`` (``shown`` in messages): a regular file of at
    most :data:`MAX_SETTINGS_BYTES`, in UTF-8.  Opened without blocking and tested before
    it is read, so that ``/dev/zero`` or a FIFO is refused rather than read without end.

    Raises:
        SettingsError: it cannot be opened, is not a regular file, is larger, or is not
            UTF-8.
    """
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        raise SettingsError(f"cannot read {shown}: {error.strerror}") from None
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise SettingsError(f"cannot read {shown}: not a regular file")
    with os.fdopen(descriptor, "rb") as file:
        try:
            data = file.read(MAX_SETTINGS_BYTES + 1)
        except OSError as error:
            raise SettingsError(f"cannot read {shown}: {error.strerror}") from None
    if len(data) > MAX_SETTINGS_BYTES:
        raise SettingsError(f"cannot read {shown}: larger than {MAX_SETTINGS_BYTES} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SettingsError(f"cannot read {shown}: not UTF-8 ({error.reason})") from None


def _settings(table: Mapping[str, object], source: str) -> Settings:
    where = f"{source}: [tool.{TABLE}]"
    unknown = sorted(set(table) - {"ignore", "strict", "engine", "require-parallel"})
    if unknown:
        raise SettingsError(
            f"{where} has unknown keys {', '.join(unknown)}; it takes ignore, strict, engine, "
            "require-parallel"
        )
    ignore = table.get("ignore", [])
    if not isinstance(ignore, list) or not all(isinstance(code, str) for code in ignore):
        raise SettingsError(f"{where}: `ignore` must be a list of codes")
    bad = unknown_codes(ignore)
    if bad:
        raise SettingsError(f"{where}: `ignore` names unknown codes: {', '.join(bad)}")
    errors = error_codes(ignore)
    if errors:
        raise SettingsError(f"{where}: `ignore` names {error_codes_text(errors)}")
    flags: dict[str, bool | None] = {}
    for key in ("strict", "require-parallel"):
        value = table.get(key)
        if value is not None and not isinstance(value, bool):
            raise SettingsError(f"{where}: `{key}` must be true or false")
        flags[key] = value
    engine = table.get("engine")
    if engine is not None and engine not in ENGINE_VALUES:
        raise SettingsError(f"{where}: `engine` must be one of {', '.join(ENGINE_VALUES)}")
    return Settings(
        tuple(ignore),
        flags["strict"],
        engine if isinstance(engine, str) else None,
        flags["require-parallel"],
        source,
    )


def unknown_codes(names: list[str] | tuple[str, ...]) -> list[str]:
    """The names that are no declared code, in the order given."""
    return [name for name in names if name not in CODES]


def error_codes(names: list[str] | tuple[str, ...]) -> list[str]:
    """The declared codes among ``names`` that are only ever an error (not in
    :data:`IGNORABLE`), in the order given."""
    return [name for name in names if name in CODES and name not in IGNORABLE]


def error_codes_text(names: list[str]) -> str:
    """What ``ignore`` or ``--ignore`` naming the error codes ``names`` is told."""
    plural = "s" if len(names) > 1 else ""
    return (
        f"the error code{plural} {', '.join(names)}: an error means the engine refuses the "
        "draft, and only warnings and notes can be ignored"
    )
