"""transformers' names per version, as data: ``transformers-5.json`` beside this module, read
once, lazily; every engine that hands a draft's config to transformers reads it.

The file is written from transformers' wheels by ``python -m tools.engine_tables vllm
VERSION`` (``tools/engines/vllm/tables.py``, a dev tool), for the releases of every shipped vLLM
release's range.  It holds, for each version it lists, the model types of ``CONFIG_MAPPING_NAMES``
(``models/auto/configuration_auto.py``) and the model classes the package exports: every name
the oldest version knows, and what each later version adds (no later version drops one).
Nothing here imports transformers.
"""

from __future__ import annotations

import json
import pkgutil
from dataclasses import dataclass
from functools import cache
from typing import Final

DATA_FILE: Final = "transformers-5.json"
"""The file's name, in this package."""


@cache
def version_key(version: str) -> tuple[int, ...]:
    """A release number (``"5.19.0"``) as a tuple that orders releases (cached: every rule
    gated by release asks it of the same few numbers, for every draft of a sweep)."""
    return tuple(int(part) for part in version.split("."))


@dataclass(frozen=True)
class TransformersTables:
    """The tables of :data:`DATA_FILE`, typed."""

    versions: tuple[str, ...]
    """The versions the file lists, oldest first."""
    model_types: dict[str, str]
    """Each model type of ``CONFIG_MAPPING_NAMES`` to the first listed version that knows it."""
    model_classes: dict[str, str]
    """Each exported model class to the first listed version that exports it."""

    def model_types_of(self, version: str) -> frozenset[str]:
        """The model types ``version`` knows (one of :attr:`versions`).

        Raises:
            ValueError: the file lists no such version (a data mistake).
        """
        if version not in self.versions:
            raise ValueError(f"{DATA_FILE} lists no transformers {version}")
        return frozenset(
            name
            for name, first in self.model_types.items()
            if version_key(first) <= version_key(version)
        )


def _first_versions(every: list[str], added: dict[str, list[str]], oldest: str) -> dict[str, str]:
    first = dict.fromkeys(every, oldest)
    for version, names in added.items():
        first |= dict.fromkeys(names, version)
    return first


def package_text(package: str, name: str) -> str:
    """The text of the data file ``name`` of ``package``, through the package's loader (a
    folder, a wheel, a zip), as ``importlib.resources`` would read it, without importing
    it (``tempfile``, ``zipfile`` and more: a tenth of a check's start-up).

    Raises:
        FileNotFoundError: the loader cannot read data files.
    """
    data = pkgutil.get_data(package, name)
    if data is None:
        raise FileNotFoundError(f"{package}: {name} (its loader reads no data files)")
    return data.decode("utf-8")


@cache
def transformers_tables() -> TransformersTables:
    """The tables, read from the package's data file on first use."""
    raw = json.loads(package_text(__package__, DATA_FILE))
    versions = tuple(raw["versions"])
    return TransformersTables(
        versions=versions,
        model_types=_first_versions(**raw["model_types"], oldest=versions[0]),
        model_classes=_first_versions(**raw["model_classes"], oldest=versions[0]),
    )
