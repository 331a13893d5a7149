"""The RPM scheme: the vectors of behaviour §7.3."""

from __future__ import annotations

import pytest

from anitrack_core.errors import InvalidVersionError
from anitrack_core.versions import RpmScheme, VersionRules
from anitrack_core.versions.rpm import split_rc

RPM = RpmScheme()

# (older, newer)
OLDER_NEWER = [
    # test_rpm.py
    ("v1.0.0", "v2.0.0"),
    ("v1.1.0", "v1.11.0"),
    ("v1.0.0", "v1.1.0"),
    ("v1.0.0", "v1.0.0-1.fc26"),
    ("v1.0.0-1.fc26", "v1.0.0-11.fc26"),
    ("1.0.0pre2", "1.0.0rc1"),
    ("1.0.0alpha2", "1.0.0beta1"),
    ("1.0.0beta1", "1.0.1alpha2"),
    ("v1.1.0rc1", "v1.1.0"),
    ("v1.1.0rc1", "v1.1.0rc11"),
    ("v1.1.0rc", "v1.1.0rc1"),
    ("", "v1.1.0rc1"),
    ("prerelease", "1.1.0"),
    # computed
    ("1.0", "1.0.0"),
    ("1.9", "1.10"),
    ("1.0", "1.0a"),
    ("1.0a", "1.0b"),
    ("1.0", "1.0-1"),
    ("1.0-alpha", "1.0-beta"),
    ("1.0-beta", "1.0-dev"),
    ("1.0-dev", "1.0-pre"),
    ("1.0-pre", "1.0-rc"),
    ("1.0rc2", "1.0rc10"),
    ("1.0-RC1", "1.0-rc2"),
    ("1.9", "2.0-beta"),
    ("1.0.0", "1.0.0junk1"),
    ("2.02-beta3", "2.02-rc1"),
    ("2.02", "2.04-rc1"),
    ("1.2.0-rc0", "1.2.0"),
    ("0.6.0", "0.6.0-1"),
    ("2.1.0", "2.1.0.final"),
    ("1.0", "1.0.Final"),
    ("1.0.0", "1.0.0.0"),
    ("abc", "1.0"),
    ("abc", "abd"),
    ("2019.04.23", "2019.4.24"),
    ("xonotic-v0.8.2", "xonotic-v0.8.10"),
    ("v.0.4.6", "v0.1.0"),
    ("release-1.1", "1.0"),
    ("1.0", "1.0.post1"),
    ("1.0a1", "1.0b1"),
    ("1.0devel", "1.0"),
    ("2.x-dev", "2.0"),
    ("3.x-dev", "3.0-alpha1"),
    ("1.0", "1.0+git"),
    ("1.0", "1.0^post1"),
    # '~' and '^' as the real rpm orders them (behaviour §7.3 AMBIGUOUS)
    ("1.0~a", "1.0"),
    ("1.0~1", "1.0"),
    ("1.0^1", "1.0.1"),
    ("1.0~rc1", "1.0~rc2"),
    ("1.0", "1.0^"),
    # the keyword layer on top of rpm: a number makes a keyword newer
    ("1.0rc", "1.0rc0"),
]

EQUAL = [
    ("v1.0.0", "v1.0.0"),
    ("1.0.0beta", "1.0.0beta"),
    ("v1.0.0-1.fc26", "1.0.0-1.fc26"),
    ("1.0-1", "1.0.1"),
    ("1.0_1", "1.0.1"),
    ("1.01", "1.1"),
    ("v1.0", "1.0"),
    ("1.0-RC1", "1.0rc1"),
    ("1.0", "1.0."),
]


@pytest.mark.parametrize(("older", "newer"), OLDER_NEWER)
def test_order(older: str, newer: str) -> None:
    assert RPM.compare(older, newer) == -1
    assert RPM.compare(newer, older) == 1
    assert RPM.is_newer(newer, [older])
    assert not RPM.is_newer(older, [newer])


@pytest.mark.parametrize(("a", "b"), EQUAL)
def test_equal(a: str, b: str) -> None:
    assert RPM.compare(a, b) == 0
    assert not RPM.is_newer(a, [b])


def test_empty_differs_from_any_version() -> None:
    assert RPM.compare("", "v1.0.0") == -1
    assert not RPM.is_valid("")


@pytest.mark.parametrize(
    "raw",
    ["v1.0.0" + keyword for keyword in ("rc", "alpha", "beta", "dev", "pre", "rc1", "alpha2", "beta10",
                                        "dev3", "pre999")]
    + ["1.0.0rc", "1.0.0alpha2", "2.x-dev", "1.1-alpha-7", "1.0-preview", "1.0devel", "1.0-RC1"],
)
def test_prerelease(raw: str) -> None:
    assert RPM.is_prerelease(raw)


@pytest.mark.parametrize("raw", ["v1.0.0junk1", "1.0.0junk1", "1.0.0post1", "1.0a1", "predict-1.0", "1.8.23"])
def test_not_prerelease(raw: str) -> None:
    assert not RPM.is_prerelease(raw)


@pytest.mark.parametrize("pre_release_filter", ["v", "v;a"])
def test_prerelease_filter(pre_release_filter: str) -> None:
    assert RpmScheme(VersionRules(pre_release_filter=pre_release_filter)).is_prerelease("v1.0.0")


@pytest.mark.parametrize(
    ("version", "parts"),
    [
        ("1.8.23", ("1.8.23", "", "")),
        ("1.8.23-alpha1", ("1.8.23", "alpha", "1")),
        ("1.0devel", ("1.0", "dev", "")),
        ("1.0-preview", ("1.0", "pre", "")),
        ("1.0.rc2", ("1.0", "rc", "2")),
        ("1.0-RC1", ("1.0", "RC", "1")),
        ("predict-1.0", ("predict-1.0", "", "")),
        ("1.0.0junk1", ("1.0.0junk1", "", "")),
        ("1.0-beta-rc1", ("1.0", "beta", "")),  # only the first keyword counts
    ],
)
def test_split_rc(version: str, parts: tuple[str, str, str]) -> None:
    assert split_rc(version) == parts


def test_display_strips_the_prefix_only() -> None:
    scheme = RpmScheme(VersionRules(prefix="release-"))
    assert scheme.display("release-1.0-RC1") == "1.0-RC1"
    assert scheme.validate("release-v2.0") == "2.0"


@pytest.mark.parametrize(("raw", "why"), [("", "it is empty"), ("...", "no letter or digit"),
                                          ("release-", "it is empty")])
def test_invalid(raw: str, why: str) -> None:
    scheme = RpmScheme(VersionRules(prefix="release-"))
    with pytest.raises(InvalidVersionError, match=f"^'{raw}' is not a valid RPM version: .*{why}"):
        scheme.validate(raw)
