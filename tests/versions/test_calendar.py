"""The Calendar scheme: the vectors of behaviour §7.4, and pattern errors."""

from __future__ import annotations

import pytest

from anitrack_core.errors import ConfigError, InvalidVersionError
from anitrack_core.versions import CalendarScheme, VersionRules
from anitrack_core.versions.calendar import CalendarParts


def calendar(pattern: str, **rules: str) -> CalendarScheme:
    return CalendarScheme(VersionRules(pattern=pattern, **rules))


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        (None, "needs a version pattern"),
        ("", "needs a version pattern"),
        ("AAA", "unknown token 'AAA'"),
        ("YYYY.XX", "unknown token 'XX'"),
        ("YYYYY", "unknown token 'YYYYY'"),
        ("YYYY.WW", "week tokens"),
        ("YYYY.0W", "week tokens"),
        ("YYYY.YY", "'YY' repeats the year"),
        ("MODIFIER-YYYY", "MODIFIER must come last"),
        ("YYYY-MODIFIER.", "MODIFIER must come last"),
        ("...", "no token"),
    ],
)
def test_bad_pattern(pattern: str | None, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        CalendarScheme(VersionRules(pattern=pattern))


def test_pattern_letter_case_does_not_matter() -> None:
    assert calendar("yyyy.0m").split("2019.04") == CalendarParts(year=2019, month=4)


def test_needs_pattern() -> None:
    assert CalendarScheme.needs_pattern


@pytest.mark.parametrize(
    ("pattern", "good", "bad"),
    [
        ("YYYY", ["2019"], ["19", "aaaa", "0201", "20190"]),
        ("YY", ["119", "19"], ["019", "aa", "1"]),
        ("0Y", ["09", "19", "119"], ["019"]),
        ("MM", ["9", "12"], ["09", "13", "0"]),
        ("0M", ["09", "10", "12"], ["13", "013", "3", "aa", "00"]),
        ("DD", ["9", "31"], ["09", "32"]),
        ("0D", ["09", "10", "31"], ["-1", "013", "3", "32"]),
        ("MINOR", ["9", "0", "123"], ["a", ""]),
        ("MICRO", ["9"], ["a"]),
        ("YYYY.MM", ["2019.1", "2019.12"], ["2019.13", "2019.01"]),
        ("YYYY.0M.0D", ["2019.04.23", "2019.04", "2019"], ["2019.04.3", "2019.", "2019.04.23.1"]),
        ("YY.0M.MICRO", ["18.04.1"], ["18.04-1"]),
        ("YYYY0M0D", ["20191018"], ["2019108"]),
    ],
)
def test_tokens(pattern: str, good: list[str], bad: list[str]) -> None:
    scheme = calendar(pattern)
    assert [raw for raw in good if not scheme.is_valid(raw)] == []
    assert [raw for raw in bad if scheme.is_valid(raw)] == []


@pytest.mark.parametrize(
    ("pattern", "raw", "parts"),
    [
        ("MODIFIER", "rc", CalendarParts(modifier="rc")),
        ("MODIFIER", "rc1", CalendarParts(modifier="rc", rc_number=1)),
        ("MODIFIER", "rc12", CalendarParts(modifier="rc", rc_number=12)),  # the whole number
        ("MODIFIER", "12", CalendarParts(modifier="12")),
        ("MODIFIER", "rc1a", CalendarParts(modifier="rc1a")),
        ("YY.0M.MICRO", "18.04.1", CalendarParts(year=18, month=4, micro=1)),
        ("YYYY.0M.DD-MODIFIER", "2019.04.23", CalendarParts(year=2019, month=4, day=23)),
        ("YYYY.0M.DD-MINOR-MICRO_MODIFIER", "2019.04.23-1-2_pre",
         CalendarParts(2019, 4, 23, 1, 2, "pre")),
    ],
)
def test_split(pattern: str, raw: str, parts: CalendarParts) -> None:
    assert calendar(pattern).split(raw) == parts


def test_split_invalid() -> None:
    assert calendar("YY.0M.MICRO").split("18.04-1") is None


@pytest.mark.parametrize("keyword", ["rc", "alpha", "beta", "dev", "pre"])
@pytest.mark.parametrize("number", ["", "1", "12"])
def test_prerelease(keyword: str, number: str) -> None:
    assert calendar("YYYY.0M.DD-MODIFIER").is_prerelease(f"2019.04.23-{keyword}{number}")


def test_not_prerelease() -> None:
    assert not calendar("YYYY.0M.DD").is_prerelease("2019.04.23")
    assert not calendar("YYYY.0M.DD").is_prerelease("2019.04.23junk")


def test_prerelease_filter() -> None:
    assert calendar("YYYY.0M.DD", pre_release_filter="05.").is_prerelease("2019.05.23")
    # invalid for the pattern: anitrack applies the filter anyway (Anitya does not)
    assert calendar("YYYY.0M.DD", pre_release_filter="junk").is_prerelease("2019.04.23junk")


@pytest.mark.parametrize(
    ("pattern", "older", "newer"),
    [
        ("YYYY.0M.DD", "2019.04.23", "2020.04.23"),
        ("0M.DD", "04.23", "05.23"),
        ("DD", "23", "24"),
        ("MINOR", "1", "2"),
        ("MICRO", "1", "2"),
        ("YYYY.0M.DD-MINOR-MICRO_MODIFIER", "2019.04.23-1-2_pre", "2019.04.23-1-2"),
        ("YYYY.0M.DD-MODIFIER", "2019.04.23-pre1", "2019.04.23-pre2"),
        ("YYYY.0M.DD-MODIFIER", "2019.04.23-pre1", "2019.04.23-rc1"),
        ("YYYY.0M.DD-MODIFIER", "2019.04.23-beta1", "2019.04.23-pre1"),
        ("YYYY.0M.DD-MODIFIER", "2019.04.23-alpha1", "2019.04.23-beta1"),
        ("YYYY.0M.DD-MODIFIER", "2019.04.23-rc", "2019.04.23-rc1"),
        ("YYYY.0M.DD-MODIFIER", "2019.04.23-rc3", "2019.04.23-rc12"),  # BUG (Anitya): reversed
        ("YYYY.0M.DD", "2019.04.23junk", "2019.04.24"),
        ("YYYY0M0D", "20191018", "20191213"),
        ("YYYY.MM.DD", "2019.4.23", "2019.12.1"),
        ("YYYY.0M.0D", "2019.04.3", "2019.04.23"),  # the first is invalid
        ("YY.0M.MICRO", "18.04.1", "18.04.10"),
        ("YYYY.0M.0D", "2019.04", "2019.04.01"),  # a missing field is below any value
        ("YYYY.0M.0D", "2019", "2019.01"),
    ],
)
def test_order(pattern: str, older: str, newer: str) -> None:
    scheme = calendar(pattern)
    assert scheme.compare(older, newer) == -1
    assert scheme.compare(newer, older) == 1


@pytest.mark.parametrize(
    ("pattern", "a", "b"),
    [
        ("YYYY.0M.DD-MODIFIER", "2019.04.23-alpha", "2019.04.23-alpha"),
        ("YYYY.0M.DD-MODIFIER", "2019.04.23-RC1", "2019.04.23-rc1"),
        ("YYYY.0M.DD", "2019.04.23", "2019.04.23"),
        ("YYYY.0M.DD", "2019.04.23junk", "2019.04.23junk"),
        ("YYYY.MINOR", "2019.1", "2019.01"),  # numbers, not strings
        ("YYYY.0M.DD", "v2019.04.23", "2019.04.23"),
    ],
)
def test_equal(pattern: str, a: str, b: str) -> None:
    assert calendar(pattern).compare(a, b) == 0


def test_invalid_differs() -> None:
    scheme = calendar("YYYY.0M.DD-MODIFIER")
    assert scheme.compare("2019.04.23junk", "2019.04.23-beta") == -1
    with pytest.raises(InvalidVersionError,
                       match=r"^'2019\.13' is not a valid Calendar version: .*'YYYY\.MM'"):
        calendar("YYYY.MM").validate("2019.13")


def test_prefix() -> None:
    scheme = calendar("YYYY.0M.0D", prefix="release-")
    assert scheme.validate("release-2019.04.23") == "2019.04.23"
