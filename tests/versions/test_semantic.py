"""The Semantic scheme: the vectors of behaviour §7.5, and python-semver as an oracle."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from anitrack_core.errors import InvalidVersionError
from anitrack_core.versions import SemanticScheme, VersionRules
from anitrack_core.versions.semantic import SemVer, parse_semver

from .oracles import require_module
from .strategies import semver_like_strings, semver_strings

SEMANTIC = SemanticScheme()


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("1.0.0", "1.1.0"),
        ("1.0.0-pre", "1.0.0"),
        ("1.0.0-pre1", "1.0.0-pre2"),
        ("1.0.0-pre2", "1.0.0-rc1"),
        ("1.0.0-alpha2", "1.0.0-beta1"),
        ("1.0.0-beta1", "1.0.1-alpha2"),
        ("1.1.0-rc", "1.1.0-rc1"),
        ("1.0.0junk", "1.1.0"),
        # computed
        ("1.0.0-rc.1", "1.0.0-rc.2"),
        ("1.0.0-alpha", "1.0.0-alpha.1"),
        ("1.0.0-beta.2", "1.0.0-beta.11"),
        ("1.0", "0.1.0"),
        ("01.0.0", "1.0.0"),
        ("1.9.9", "2.0.0-alpha"),
        # semver.org item 11
        ("1.0.0-alpha.1", "1.0.0-alpha.beta"),
        ("1.0.0-beta", "1.0.0-beta.2"),
        ("1.0.0-rc.1", "1.0.0"),
        ("1.0.0-1", "1.0.0-a"),
    ],
)
def test_order(older: str, newer: str) -> None:
    assert SEMANTIC.compare(older, newer) == -1
    assert SEMANTIC.compare(newer, older) == 1


@pytest.mark.parametrize(
    ("a", "b"),
    [("1.0.0", "1.0.0"), ("1.0.0-beta", "1.0.0-beta"), ("1.0.0junk", "1.0.0junk"),
     ("v1.2.3", "1.2.3"), ("1.0.0+build1", "1.0.0+build2")],
)
def test_equal(a: str, b: str) -> None:
    assert SEMANTIC.compare(a, b) == 0


def test_invalid_differs_from_valid() -> None:
    assert SEMANTIC.compare("1.0.0junk", "1.0.0") != 0


@pytest.mark.parametrize("keyword", ["rc", "alpha", "beta", "dev", "pre"])
@pytest.mark.parametrize("number", ["", "1"])
def test_prerelease(keyword: str, number: str) -> None:
    assert SEMANTIC.is_prerelease(f"1.0.0-{keyword}{number}")


def test_not_prerelease() -> None:
    assert not SEMANTIC.is_prerelease("1.0.0junk1")
    assert not SEMANTIC.is_prerelease("1.0.0+rc1")


@pytest.mark.parametrize(("pre_release_filter", "raw"), [("1.", "1.0.0"), ("a;v", "v1.0.0"),
                                                          ("junk", "1.0.0junk")])
def test_prerelease_filter(pre_release_filter: str, raw: str) -> None:
    # the last one is invalid: anitrack applies the filter anyway (Anitya does not)
    assert SemanticScheme(VersionRules(pre_release_filter=pre_release_filter)).is_prerelease(raw)


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("1.2.3", SemVer(1, 2, 3, (), None)),
        ("1.2.3-rc.1+b.01", SemVer(1, 2, 3, ("rc", 1), "b.01")),
        ("0.0.0-0a.-", SemVer(0, 0, 0, ("0a", "-"), None)),
    ],
)
def test_parse(text: str, parsed: SemVer) -> None:
    assert parse_semver(text) == parsed


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("1.0", "expected MAJOR.MINOR.PATCH"),
        ("1.0.0junk", "expected MAJOR.MINOR.PATCH"),
        ("01.0.0", "leading zeros"),
        ("1.0.0-01", "pre-release and build parts"),
        ("1.0.0-", "pre-release and build parts"),
        ("1.0.0\n", "expected MAJOR.MINOR.PATCH"),
        ("\u0661.0.0", "expected MAJOR.MINOR.PATCH"),  # ASCII digits only
    ],
)
def test_invalid(raw: str, why: str) -> None:
    assert not SEMANTIC.is_valid(raw)
    with pytest.raises(InvalidVersionError, match=f"is not a valid Semantic version: .*{why}"):
        SEMANTIC.validate(raw)


# ---- against python-semver ----


def _semver():  # type: ignore[no-untyped-def]
    return require_module("semver", "pip install semver, listed in the 'test' extra")


def _sign(value: int) -> int:
    return (value > 0) - (value < 0)


@settings(max_examples=400, deadline=None)
@given(a=semver_strings(), b=semver_strings())
def test_order_agrees_with_python_semver(a: str, b: str) -> None:
    semver = _semver()
    assert SEMANTIC.compare(a, b) == _sign(semver.Version.parse(a).compare(b))


@settings(max_examples=400, deadline=None)
@given(text=semver_like_strings())
def test_validity_agrees_with_python_semver(text: str) -> None:
    semver = _semver()
    assert (parse_semver(text) is not None) == semver.Version.is_valid(text)
