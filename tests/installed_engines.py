"""An engine "installed" for a test: a fake ``.dist-info`` on ``sys.path``, which
:func:`~drafting_config.engines.installed_version` reads as it reads a real one (nothing of
the engine is installed or imported)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from drafting_config.engines import installed_version

Install = Callable[[str, "str | None"], None]
"""``install(distribution, version)``: a ``.dist-info`` of ``distribution`` on ``sys.path``,
its ``METADATA`` naming ``version`` (``None``: naming none)."""


def fake_installs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Install]:
    """A fixture's body: put fake distributions on ``sys.path``, the installed releases read
    afresh before, after and at each."""

    def put(distribution: str, version: str | None) -> None:
        site = tmp_path / f"site-{distribution}"
        info = site / f"{distribution}-{version or '0'}.dist-info"
        info.mkdir(parents=True)
        lines = ["Metadata-Version: 2.1", f"Name: {distribution}"]
        lines += [] if version is None else [f"Version: {version}"]
        (info / "METADATA").write_text("\n".join(lines) + "\n", encoding="utf-8")
        monkeypatch.syspath_prepend(str(site))
        installed_version.cache_clear()

    installed_version.cache_clear()
    yield put
    installed_version.cache_clear()
