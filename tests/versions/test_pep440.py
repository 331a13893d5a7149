"""The Python (PEP 440) scheme: the vectors of behaviour §7.6, and packaging as an oracle."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings

from anitrack_core.errors import InvalidVersionError
from anitrack_core.versions import Pep440Scheme, VersionRules

from .oracles import require_module
from .strategies import pep440_strings

PEP440 = Pep440Scheme()


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("1.1RC1", "1.1rc1"),
        ("0900.00+foo0100", "900.0+foo0100"),
        ("1.0alpha", "1.0a0"),
        ("1.0beta", "1.0b0"),
        ("1.0c", "1.0rc0"),
        ("1.0pre", "1.0rc0"),
        ("1.0preview", "1.0rc0"),
        ("1.0rev1", "1.0.post1"),
        ("1.0r1", "1.0.post1"),
        ("1.0-1", "1.0.post1"),
        ("1.0.0post", "1.0.0.post0"),
        ("1.0.0-rc2", "1.0.0rc2"),
        ("1.0.0.a2", "1.0.0a2"),
        ("1.0.0.dev", "1.0.0.dev0"),
        (" 1.0.0\n", "1.0.0"),
        ("v1.0.0", "1.0.0"),
        ("unstable", "unstable"),
    ],
)
def test_display_is_normalised(raw: str, shown: str) -> None:
    assert PEP440.display(raw) == shown


def test_invalid_is_not_a_prerelease() -> None:
    assert not PEP440.is_valid("unstable")
    assert not PEP440.is_prerelease("unstable")
    with pytest.raises(InvalidVersionError, match=r"^'unstable' is not a valid Python \(PEP 440\) version"):
        PEP440.validate("unstable")


@pytest.mark.parametrize(("raw", "flagged"), [("1.0a1", True), ("1.0.dev1", True), ("1.0rc0", True),
                                              ("1.0", False), ("1.0.post1", False)])
def test_prerelease(raw: str, flagged: bool) -> None:
    assert PEP440.is_prerelease(raw) is flagged


def test_prerelease_filter_applies_to_invalid_versions() -> None:
    # Anitya does not apply the filter to versions that are not PEP 440
    scheme = Pep440Scheme(VersionRules(pre_release_filter="nightly"))
    assert scheme.is_prerelease("nightly-2020")
    assert scheme.is_prerelease("1.0+nightly")


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("1.0.0a1", "1.0.0a2"),
        ("1.0.0a1", "1.0.0b1"),
        ("1.0.0a2", "1.0.0rc1"),
        ("1.0.0b2", "1.0.0rc1"),
        ("1.0.0b1", "1.0.1a2"),
        ("1.0.0junk", "1.1.0"),
        ("1.0.0junk", "1.1.0junk"),
        ("1.0.dev1", "1.0a1"),
        ("2.0", "1!1.0"),
        ("1.0", "1.0+local"),
        ("2020.12", "2021.1"),
        ("abc", "1.0"),
    ],
)
def test_order(older: str, newer: str) -> None:
    assert PEP440.compare(older, newer) == -1
    assert PEP440.compare(newer, older) == 1


@pytest.mark.parametrize(
    ("a", "b"),
    [("1.0.0a0", "1.0.0a"), ("1.1.0rc", "1.1.0rc0"), ("1.0.0b", "1.0.0b"), ("1.0.0junk", "1.0.0junk"),
     ("1.0", "1.0.0")],
)
def test_equal(a: str, b: str) -> None:
    assert PEP440.compare(a, b) == 0


def test_invalid_differs_from_valid() -> None:
    assert PEP440.compare("1.0.0junk", "1.0.0") == -1


ASCENDING = ["4.0.0a4", "4.0.0a6", "4.0.0a7", "4.0.0a8", "4.0.0a9", "4.0.0a34", "4.0.0a35", "4.0.0a36",
             "4.0.0a37", "4.0.0b0", "4.0.0b1", "4.0.0b2", "4.0.0rc0", "4.0.0rc1", "4.0.0"]


def test_sorted_list() -> None:
    assert PEP440.newest_first(sorted(ASCENDING)) == ASCENDING[::-1]
    assert PEP440.is_newer("4.0.0", ASCENDING[:-1])
    assert not PEP440.is_newer("4.0.0", ASCENDING)


# ---- against packaging ----


@settings(max_examples=400, deadline=None)
@given(a=pep440_strings(), b=pep440_strings())
def test_order_agrees_with_packaging(a: str, b: str) -> None:
    version = require_module("packaging.version", "packaging is a runtime dependency").Version
    try:
        va, vb = version(a), version(b)
    except ValueError:
        assume(False)
    assert PEP440.compare(a, b) == (va > vb) - (va < vb)
    assert PEP440.display(a) == str(va)
