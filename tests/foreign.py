"""Foreign values that real callers pass: int subclasses, and objects whose reads raise."""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from typing import Any


def int_enum(value: int) -> int:
    """``value`` as the member of a fresh ``IntEnum``: an int subclass, as a config may hold."""
    Count = enum.IntEnum("Count", {"VALUE": value})
    return Count(value)


class EmptyMapping(Mapping[str, object]):
    """A mapping with no keys; subclasses make one of its reads raise."""

    def __getitem__(self, key: str) -> object:
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


class RaisingGet(EmptyMapping):
    """Its ``get`` raises, as a mapping backed by a file that went away does."""

    def get(self, key: str, default: object = None) -> object:
        raise OSError("disk gone")


class RaisingContains(EmptyMapping):
    """Its membership test raises (``model_validate`` asks it for ``token_id``)."""

    def __contains__(self, key: object) -> bool:
        raise RuntimeError("no membership tests")


class Unusable:
    """An object whose every attribute read, repr, comparison and truth test fails, as a
    half-built config's properties and repr, or a numpy array's truth value, do."""

    __hash__ = None  # type: ignore[assignment]

    def __getattr__(self, name: str) -> object:
        raise RuntimeError(name)

    def __repr__(self) -> str:
        raise RuntimeError("no repr")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("no comparison")

    def __bool__(self) -> bool:
        raise RuntimeError("no truth value")

    def __len__(self) -> int:
        raise RuntimeError("no length")

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        # Hypothesis prints failing examples with this, so a failure stays readable.
        printer.text("Unusable()")
