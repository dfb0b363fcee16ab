"""Hostile values for tests: objects whose own methods lie or raise."""

from __future__ import annotations

import types
from collections.abc import Iterator, Mapping
from typing import Any


class LyingInt(int):
    """An int whose every own method lies or raises: only int.__int__ may be trusted."""

    def __int__(self) -> int:
        return 7

    def __index__(self) -> int:
        return 7

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("no ==")

    def __lt__(self, other: object) -> bool:
        raise RuntimeError("no <")

    def __le__(self, other: object) -> bool:
        raise RuntimeError("no <=")

    def __gt__(self, other: object) -> bool:
        raise RuntimeError("no >")

    def __ge__(self, other: object) -> bool:
        raise RuntimeError("no >=")

    def __sub__(self, other: object) -> int:
        raise RuntimeError("no -")

    def __rsub__(self, other: object) -> int:
        raise RuntimeError("no -")

    def __bool__(self) -> bool:
        raise RuntimeError("no truth value")

    def __repr__(self) -> str:
        raise RuntimeError("no repr")

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        # Hypothesis prints failing examples with this, so a failure stays readable.
        printer.text(f"LyingInt({int.__repr__(self)})")

    __hash__ = int.__hash__


class PretendsToBeInt:
    """Not an int, whatever ``__class__`` says."""

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        return int


class RaisingInt(int):
    """An int whose conversions and comparisons all raise."""

    def __int__(self) -> int:
        raise RuntimeError("no __int__")

    def __index__(self) -> int:
        raise RuntimeError("no __index__")

    def __gt__(self, other: object) -> bool:
        raise RuntimeError("no >")

    def __lt__(self, other: object) -> bool:
        raise RuntimeError("no <")

    def __ge__(self, other: object) -> bool:
        raise RuntimeError("no >=")

    def __le__(self, other: object) -> bool:
        raise RuntimeError("no <=")

    __hash__ = int.__hash__


class RaisingClass:
    """Its ``__class__`` raises when asked."""

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        raise RuntimeError("no class")


class EmptyMapping(Mapping[str, object]):
    """A mapping with no keys; subclasses make one of its methods hostile."""

    def __getitem__(self, key: str) -> object:
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


class RaisingGet(EmptyMapping):
    """Its ``get`` raises when called."""

    def get(self, key: str, default: object = None) -> object:
        raise OSError("disk gone")


class RaisingGetAttribute(EmptyMapping):
    """Its ``get`` attribute raises when looked up."""

    @property
    def get(self) -> Any:
        raise RuntimeError("no get for you")


class RaisingContains(EmptyMapping):
    """Its ``__contains__`` raises (``model_validate`` asks it for ``token_id``)."""

    def __contains__(self, key: object) -> bool:
        raise RuntimeError("no membership tests")


class Hostile:
    """An object whose every attribute read, repr, comparison and truth test fails."""

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
        printer.text("Hostile()")


class HashRaisingMeta(type):
    """A metaclass whose ``__hash__`` raises: ABC checks such as ``Mapping`` trip over it."""

    def __hash__(cls) -> int:
        raise TypeError("no hash for this class")

    __eq__ = type.__eq__


class EqRaisingMeta(type):
    """A metaclass whose ``__eq__`` raises: ``type(x) in (list, tuple)`` trips over it."""

    def __eq__(cls, other: object) -> bool:
        raise RuntimeError("no == for this class")

    __hash__ = type.__hash__


class GetattributeRaisingMeta(type):
    """A metaclass whose ``__getattribute__`` raises on every lookup."""

    def __getattribute__(cls, name: str) -> Any:
        raise RuntimeError(f"no {name} for this class")


def instance_of(metaclass: type) -> object:
    """An instance of a fresh class of ``metaclass`` (made on demand: such classes at
    module level trip up tools that scan modules)."""
    return types.new_class("UnderHostileMeta", (), {"metaclass": metaclass})()


class HostileStr(str):
    """A str whose own methods raise: only ``str.__str__`` may read it."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("no ==")

    def __ne__(self, other: object) -> bool:
        raise RuntimeError("no !=")

    def __contains__(self, key: object) -> bool:
        raise RuntimeError("no in")

    def __len__(self) -> int:
        raise RuntimeError("no len")

    __hash__ = str.__hash__


class TokenIdMapping(EmptyMapping):
    """Claims a ``token_id`` key (so it looks like the model's own form), then raises on reads."""

    def __iter__(self) -> Iterator[str]:
        return iter(["token_id"])

    def __len__(self) -> int:
        return 1

    def __contains__(self, key: object) -> bool:
        return True

    def __getitem__(self, key: str) -> object:
        raise RuntimeError("no items for you")
