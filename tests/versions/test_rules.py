"""Prefix stripping, version filter and pre-release filter (behaviour §7.2, §4.8)."""

from __future__ import annotations

import pytest

from anitrack_core.versions import (
    is_filtered_out,
    matches_pre_release_filter,
    split_filter,
    strip_prefix,
)


@pytest.mark.parametrize(
    ("value", "pieces"),
    [
        (None, []),
        ("", []),
        (";", []),
        ("rc", ["rc"]),
        ("release_db-;release", ["release_db-", "release"]),
        ("release_db-; ", ["release_db-", " "]),
        (";alpha;;beta;", ["alpha", "beta"]),
    ],
)
def test_split_filter(value: str | None, pieces: list[str]) -> None:
    assert split_filter(value) == pieces


@pytest.mark.parametrize(
    ("raw", "prefix", "expected"),
    [
        ("release_db-1.2.3", "release_db-;release", "1.2.3"),
        ("release_db-1.2.3", "release_db-; ", "1.2.3"),
        ("version 1.0.0", "version", "1.0.0"),
        ("release1.0.0", "release", "1.0.0"),
        ("release-v1.0.0", "release-", "1.0.0"),
        ("version1.0.0", None, "version1.0.0"),
        ("release_1_0_0", None, "release_1_0_0"),
        ("V1.0", None, "V1.0"),
        ("v1.0", None, "1.0"),
        ("v.1.0", None, "v.1.0"),
        ("vv1.0", "v", "1.0"),  # prefix "v" removed, then the v before a digit
        ("1.0", "v", "1.0"),
        ("Release-1.0", "release-", "Release-1.0"),  # case-sensitive
        ("release-1.0", "release-;release-1", ".0"),  # only the longest prefix goes
        ("  1.0 ", None, "  1.0 "),  # whitespace is trimmed only with a prefix removed
        ("", "v", ""),
    ],
)
def test_strip_prefix(raw: str, prefix: str | None, expected: str) -> None:
    assert strip_prefix(raw, prefix) == expected


@pytest.mark.parametrize(
    ("raw", "version_filter", "prefix", "dropped"),
    [
        ("1.0.0", None, None, False),
        ("1.0.0", "", None, False),
        ("1.0.0-rc1", "rc", None, True),
        ("1.0.0", "rc", None, False),
        ("1.0.0-beta", "alpha; beta", None, True),  # pieces are trimmed
        ("1.0.0", " ; ;", None, False),  # empty pieces never match
        ("1.0.0", "v1.0", "v", True),  # piece matches prefix + raw
        ("1.0.0", "v1.0", None, False),
        ("1.0.0", "rel-1.0", "v;rel-", True),  # each prefix piece is tried
        ("v1.0.0", "v1", None, True),
    ],
)
def test_is_filtered_out(raw: str, version_filter: str | None, prefix: str | None, dropped: bool) -> None:
    assert is_filtered_out(raw, version_filter, prefix) is dropped


@pytest.mark.parametrize(
    ("raw", "pre_release_filter", "flagged"),
    [
        ("1.0.0", None, False),
        ("1.0.0", "", False),
        ("v1.0.0", "v", True),  # the raw string, prefix included
        ("v1.0.0", "v;a", True),
        ("v1.0.0", "a;v", True),
        ("1.0.0", "1.", True),
        ("1.0.0-alpha", "alpha;", True),
        ("1.0.0-alpha", ";alpha", False),  # an empty piece ends the filter
        ("1.0.0-beta", "alpha;;beta", False),
        ("1.0.0-alpha", "alpha;;beta", True),
        ("", "v", False),
        # !odds: odd minor number; !odds:N odd release number N
        ("1.3.0", "!odds", True),
        ("1.4.0", "!odds", False),
        ("v1.3.0", "!odds", True),  # packaging reads a leading v
        ("1.4.1", "!odds:2", True),
        ("1.4.2", "!odds:2", False),
        ("3.4.2", "!odds:0", True),
        ("1", "!odds", False),  # no minor number: piece skipped
        ("foo-1.3", "!odds", False),  # not PEP 440: piece skipped
        ("foo-1.3", "!odds;foo", True),
        ("1.3.0", "!odds:x", False),  # malformed piece: ignored
        ("1.3.0", "!oddsy", False),
        ("1.4.0-rc1", "!odds;rc", True),
    ],
)
def test_matches_pre_release_filter(raw: str, pre_release_filter: str | None, flagged: bool) -> None:
    assert matches_pre_release_filter(raw, pre_release_filter) is flagged
