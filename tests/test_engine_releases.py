"""Which release a verdict speaks for (issue 36, points 4 and 5), through the Python API.

The installed release is read from the distribution's metadata (a fake ``.dist-info`` here,
:mod:`tests.installed_engines`); one not shipped gets the newest shipped release's verdict
with a coded warning naming both.  ``"vllm==*"`` asks for every shipped release, one
verdict each.  Every release and engine list here is derived from
:data:`~drafting_config.engines.RELEASES` and :data:`~drafting_config.engines.ENGINES`, so
that the tests hold whichever releases ship.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import get_args

import pytest

from drafting_config import check, check_many
from drafting_config.engines import (
    ENGINE_NAMES,
    ENGINES,
    EVERY_RELEASE,
    RELEASES,
    EngineName,
    EveryRelease,
    chosen_engines,
    distribution_version,
    engine_rules,
)
from drafting_config.values import codes
from drafting_config.verdicts import CheckOptions, check_each
from tests.conftest import EXAMPLES
from tests.installed_engines import Install, fake_installs
from tests.typing_checks import MypyResult, expected_errors, snippet

DFLASH = EXAMPLES / "dflash-qwen3-4b"
BROKEN = EXAMPLES / "invalid" / "pard-token-as-string"
NOT_SHIPPED = "99.0.0"
"""A release no engine ships."""


@pytest.fixture
def install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Install]:
    yield from fake_installs(monkeypatch, tmp_path)


def releases_of(engine: EngineName) -> list[str]:
    """How the verdicts name ``engine``'s shipped releases, oldest first (from RELEASES)."""
    return [rules.ENGINE for name, rules in RELEASES.items() if name.startswith(f"{engine}==")]


# --- point 4: the installed release ----------------------------------------------------------


@pytest.mark.parametrize("engine", list(ENGINES))
def test_an_installed_release_not_shipped_is_a_coded_warning_naming_both(
    install: Install, engine: EngineName
) -> None:
    install(engine, NOT_SHIPPED)
    verdict = check(DFLASH, engine=engine, check_tokenizer=False)
    assert verdict.engine == ENGINE_NAMES[engine]  # the newest shipped
    assert verdict.ok
    warning = verdict.warnings[0]
    assert warning.code is codes.INSTALLED_RELEASE_UNKNOWN
    assert f"{engine} {NOT_SHIPPED} is installed" in str(warning)
    assert f"the verdict speaks for {ENGINE_NAMES[engine]}" in str(warning)
    assert warning.field is None
    assert warning.fix is not None
    assert all(name in warning.fix for name in releases_of(engine))
    assert not any("installed" in note for note in verdict.notes)


def test_an_installed_release_older_than_every_shipped_one_is_warned_of_too(
    install: Install,
) -> None:
    install("vllm", "0.0.1")
    (warning,) = check(DFLASH, check_tokenizer=False).warnings
    assert warning.code is codes.INSTALLED_RELEASE_UNKNOWN
    assert "vllm 0.0.1 is installed" in str(warning)


@pytest.mark.parametrize("release", list(RELEASES))
def test_a_shipped_release_installed_is_the_bare_names_without_a_warning(
    install: Install, release: str
) -> None:
    engine, _, version = release.partition("==")
    install(engine, version)
    assert engine_rules(engine) == (RELEASES[release], None)  # type: ignore[arg-type, index]
    verdict = check(DFLASH, engine=engine, check_tokenizer=False)  # type: ignore[arg-type]
    assert verdict.engine == RELEASES[release].ENGINE  # type: ignore[index]
    assert not any(w.code is codes.INSTALLED_RELEASE_UNKNOWN for w in verdict.warnings)


def test_a_local_build_of_a_shipped_release_is_that_release(install: Install) -> None:
    oldest = next(name for name in RELEASES if name.startswith("vllm=="))
    install("vllm", f"{oldest.partition('==')[2]}+cu129")
    verdict = check(DFLASH, check_tokenizer=False)
    assert verdict.engine == RELEASES[oldest].ENGINE
    assert verdict.warnings == ()


def test_a_distribution_whose_metadata_names_no_version_is_not_installed(
    install: Install,
) -> None:
    install("vllm", None)
    verdict = check(DFLASH, check_tokenizer=False)
    assert verdict.engine == ENGINE_NAMES["vllm"]
    assert verdict.warnings == ()


def test_a_release_named_is_itself_whatever_is_installed(install: Install) -> None:
    install("vllm", NOT_SHIPPED)
    for release in (name for name in RELEASES if name.startswith("vllm==")):
        verdict = check(DFLASH, engine=release, check_tokenizer=False)
        assert verdict.engine == RELEASES[release].ENGINE
        assert verdict.warnings == ()


def test_a_draft_that_cannot_be_read_carries_the_warning_too(install: Install) -> None:
    install("vllm", NOT_SHIPPED)
    verdict = check("no/such/draft.json", check_tokenizer=False)
    assert verdict.outcome == "unchecked"
    assert [w.code for w in verdict.warnings] == [codes.INSTALLED_RELEASE_UNKNOWN]


# --- point 5: releases side by side ----------------------------------------------------------


def test_every_release_names_each_engine() -> None:
    assert set(get_args(EveryRelease)) == set(EVERY_RELEASE)
    assert dict(EVERY_RELEASE) == {f"{engine}==*": engine for engine in ENGINES}


@pytest.mark.parametrize("engine", list(ENGINES))
def test_every_release_is_one_verdict_per_shipped_release(engine: EngineName) -> None:
    pattern = f"{engine}==*"
    verdicts = check_many([DFLASH], engine=pattern, check_tokenizer=False)  # type: ignore[arg-type]
    assert [v.engine for v in verdicts] == releases_of(engine)


def test_several_engines_give_each_draft_its_verdicts_together_in_release_order() -> None:
    backwards = list(reversed(list(EVERY_RELEASE)))
    verdicts = check_many([DFLASH, BROKEN], engine=backwards, check_tokenizer=False)
    every = [rules.ENGINE for rules in RELEASES.values()]
    assert [v.engine for v in verdicts] == every * 2
    assert [v.path for v in verdicts] == [str(DFLASH)] * len(every) + [str(BROKEN)] * len(every)
    assert all(v.ok for v in verdicts[: len(every)])


def test_a_release_named_twice_gets_one_verdict() -> None:
    meant = engine_rules("vllm")[0].ENGINE  # nothing installed: the newest
    newest = next(name for name, rules in RELEASES.items() if meant == rules.ENGINE)
    verdicts = check_many([DFLASH], engine=("vllm", newest, "vllm"), check_tokenizer=False)
    assert [v.engine for v in verdicts] == [ENGINE_NAMES["vllm"]]
    assert chosen_engines(["vllm==*", "vllm"]) == tuple(
        name for name in RELEASES if name.startswith("vllm==")
    )


def test_check_each_takes_every_release() -> None:
    verdicts = list(check_each([DFLASH], CheckOptions(check_tokenizer=False), ["vllm==*"]))
    assert [v.engine for v in verdicts] == releases_of("vllm")


@pytest.mark.parametrize(
    "engine", ["vlm==*", "sglang=*", "vllm==0.0.1", "", 3, None, ["vllm", "x"]]
)
def test_an_engine_that_is_none_is_refused_naming_it_and_the_accepted_ones(
    engine: object,
) -> None:
    with pytest.raises(ValueError, match="engine must be") as raised:
        check_many([DFLASH], engine=engine)  # type: ignore[arg-type]
    message = str(raised.value)
    assert all(repr(name) in message for name in (*ENGINES, *RELEASES, *EVERY_RELEASE))
    shown = engine[-1] if isinstance(engine, list) else engine
    assert repr(shown) in message


def test_no_engine_at_all_is_refused() -> None:
    with pytest.raises(ValueError, match="names no engine"):
        check_many([DFLASH], engine=[])


def test_check_takes_one_engine_only() -> None:
    with pytest.raises(ValueError, match="engine must be"):
        check(DFLASH, engine="vllm==*")  # type: ignore[arg-type]


ENGINES_TYPED = """
from drafting_config import check, check_many

check_many(["a"], engine="vllm==*")
check_many(["a"], engine="sglang==*")
check_many(["a"], engine=["vllm==*", "sglang"])
check_many(["a"], engine=("vllm", "sglang==*"))
check_many(["a"], engine="vlm==*")  # E: arg-type
check_many(["a"], engine=["vllm==*", "vlm"])  # E: list-item
check({"pard_token": 7}, engine="vllm==*")  # E: arg-type
"""

ENGINES_TYPED_CHECK = snippet("typing_every_release", ENGINES_TYPED)


@pytest.mark.slow
def test_mypy_takes_every_release_where_several_verdicts_are_asked_for(
    mypy_results: dict[str, MypyResult],
) -> None:
    errors, report = mypy_results[ENGINES_TYPED_CHECK]
    assert errors == expected_errors(ENGINES_TYPED), report


def test_the_installed_version_is_what_importlib_metadata_reads_for_every_distribution(
    install: Install,
) -> None:
    """The direct read of the metadata files agrees with the standard library's, over every
    distribution of this environment (whatever spelling its folder has) and a fake one."""
    from importlib import metadata

    install("vllm", "99.0.0")
    names = {dist.metadata["Name"] for dist in metadata.distributions()} | {"vllm"}
    assert len(names) > 20
    for name in sorted(names):
        assert distribution_version(name) == metadata.version(name), name
        for spelling in (name.upper(), name.replace("-", "_"), name.replace("_", "-")):
            assert distribution_version(spelling) == metadata.version(name), spelling
    assert distribution_version("no-such-distribution-anywhere") is None


def test_start_up_does_not_import_importlib_metadata() -> None:
    """Reading the installed release costs no import of :mod:`importlib.metadata` (and
    :mod:`email` with it): a plain ``check`` pays for neither."""
    import subprocess
    import sys

    code = (
        "import sys; from drafting_config.command import main; "
        "from drafting_config.engines import installed_version; installed_version('vllm'); "
        "print(sorted(m for m in ('importlib.metadata', 'email') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_a_check_that_asks_for_vllm_only_never_loads_sglangs_rules() -> None:
    """SGLang's rules load on the first SGLang verdict, not with the package: a plain
    ``check`` pays nothing for an engine it was not asked about."""
    import subprocess
    import sys

    draft = str(EXAMPLES / "dflash-qwen3-4b")
    code = (
        "import sys; from drafting_config.command import main; "
        f"status = main(['check', {draft!r}, *sys.argv[1:]]); "
        "print('drafting_config.engines.sglang.judging' in sys.modules, file=sys.stderr)"
    )
    for engine, loaded in (("vllm", "False"), ("all", "True")):
        result = subprocess.run(
            [sys.executable, "-c", code, "--engine", engine],
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.stderr.strip().splitlines()[-1] == loaded, (engine, result.stderr)
