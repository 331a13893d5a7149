"""User regular expressions: Anitya's extraction rules, and no way to hang a worker."""

from __future__ import annotations

import time

import pytest
import regex

from anitrack_core.check.regex import (
    DEFAULT_REGEX,
    MAX_PATTERN_LENGTH,
    InvalidRegexError,
    compile_user_regex,
    expand_regex,
    versions_from_text,
)
from anitrack_core.errors import BackendError

URL = "https://example.org/downloads/"


def _versions(text: str, pattern: str, name: str = "foo") -> list[str]:
    return versions_from_text(text, pattern, project_name=name, url=URL, timeout=1.0)


def test_default_regex_is_anityas():
    assert DEFAULT_REGEX == (
        r"(?i)%(name)s(?:[-_]?(?:minsrc|src|source))?[-_]([^-/_\s]+?(?:[-_](?:rc|devel|dev|alpha|beta)\d+)?)"
        r"(?:[-_](?:minsrc|src|source|asc|release))?\.(?:tar|t[bglx]z|tbz2|zip)"
    )


@pytest.mark.parametrize("pattern", [None, "DEFAULT", ""])
def test_default_regex_finds_tarballs(pattern):
    page = ('<a href="geany-1.38.tar.gz">x</a> <a href="geany-2.0-rc1.tar.bz2">y</a> '
            '<a href="Geany_1.37.1.zip">z</a> geany-1.38.tar.gz.sig other-9.9.tar.gz')
    assert _versions(page, expand_regex(pattern, "geany"), "geany") == ["1.38", "2.0-rc1", "1.37.1"]


def test_default_regex_escapes_the_whole_name():
    pattern = expand_regex(None, "gtk+")
    assert _versions("gtk+-3.24.38.tar.xz gtkk-9.tar.xz", pattern, "gtk+") == ["3.24.38"]
    dotted = expand_regex("DEFAULT", "foo.bar")
    assert _versions("foo.bar-1.0.tar.gz fooXbar-2.0.tar.gz", dotted, "foo.bar") == ["1.0"]
    odd = expand_regex(None, "c++(tools) [x]")
    assert _versions("c++(tools) [x]-4.1.tgz", odd, "c++(tools) [x]") == ["4.1"]


def test_user_regex_gets_the_name_and_keeps_other_percent_signs():
    assert expand_regex(r"%(name)s v(\d+)%", "a.b") == r"a\.b v(\d+)%"
    assert expand_regex(r"release-(\d+)", "x") == r"release-(\d+)"


def test_groups_are_joined_with_dots_skipping_empty_ones():
    assert _versions("v1_2_3 and v4_5_", r"v(\d)_(\d)_(\d)?") == ["1.2.3", "4.5"]


def test_whole_match_without_groups_and_first_seen_order():
    assert _versions("3.0 1.0 2.0 1.0 3.0", r"\d\.\d") == ["3.0", "1.0", "2.0"]


def test_empty_matches_are_dropped():
    assert _versions("a 1.2 b", r"(\d*\.?\d*)") == ["1.2"]


def test_a_version_with_whitespace_is_an_error():
    with pytest.raises(BackendError) as info:
        _versions("release 1.0 beta!", r"release (.*)!", "proj")
    assert str(info.value) == f"proj: invalid upstream version: >1.0 beta< - {URL} - release (.*)!"


def test_no_match_is_an_error():
    with pytest.raises(BackendError) as info:
        _versions("nothing here", r"foo-(\d+)", "proj")
    assert str(info.value) == rf"proj: no upstream version found. - {URL} - foo-(\d+)"


def test_an_invalid_regex_is_a_backend_error():
    with pytest.raises(BackendError, match=r"^proj: invalid regular expression: missing \)"):
        _versions("x", "(unclosed", "proj")


def test_compiled_patterns_are_accepted():
    assert _versions("v1 v2", compile_user_regex(r"v(\d)")) == ["1", "2"]


def test_catastrophic_backtracking_ends_in_bounded_time():
    page = "a" * 50_000 + "b"
    started = time.monotonic()
    with pytest.raises(BackendError) as info:
        versions_from_text(page, r"(a+)+$", project_name="proj", url=URL, timeout=1)
    # without the timeout this match would run for ages; the bound leaves room for a loaded CI machine
    assert time.monotonic() - started < 30
    assert str(info.value) == (
        f"proj: the regular expression took longer than 1 s on the page at {URL} and should be simplified - (a+)+$"
    )


def test_compile_user_regex_errors():
    with pytest.raises(InvalidRegexError, match=r"^invalid regular expression: missing \) at position 3"):
        compile_user_regex("ab(")
    with pytest.raises(InvalidRegexError, match="unbalanced|missing|nothing to repeat"):
        compile_user_regex("*a")
    with pytest.raises(InvalidRegexError, match=f"1025 characters long; at most {MAX_PATTERN_LENGTH}"):
        compile_user_regex("a" * (MAX_PATTERN_LENGTH + 1))
    assert compile_user_regex("a" * MAX_PATTERN_LENGTH).match("a" * MAX_PATTERN_LENGTH)


def test_the_longest_literal_allowed_is_cheap():
    # the regex engine builds a table for a long literal without watching the clock, in time that
    # grows with the cube of its length: the length limit is what bounds it
    regex.purge()
    started = time.monotonic()
    found = versions_from_text("a" * MAX_PATTERN_LENGTH, "a" * MAX_PATTERN_LENGTH, project_name="p", url=URL,
                               timeout=1)
    assert found == ["a" * MAX_PATTERN_LENGTH]
    assert time.monotonic() - started < 2


_PAGES = [
    '<a href="foo-1.0.tar.gz">foo-1.0</a> <a href="FOO_src_2.1rc1.tgz"> Foo-src-3_beta2.zip foo-4.tar.gz',
    "foofoo-1.0.tar.gz foo-foo-2.0.tar.gz foo-1.0-foo-2.0.tar.gz foo-3.0.tar.gz.asc foo-4-release.tar.xz",
    "\u212aDE-5.1.tar.gz kde-5.2.tar.gz ſpam-1.0.tar.gz SPAM-2.0.zip ß-1.0.zip Straße-9.tar.gz",
    "proj1-1.0.tar.gz proj10-2.0.tar.gz proj1_2.0.tgz PROJ1-3.0.TAR.GZ proj1.0-4.tar.gz",
    "\u0130SO-1.0.tar.gz \u0131so-2.0.tar.gz Iso-3.0.tar.gz ıSO-4.tar.gz iso-5.zip",
    "c++-1.0.tar.gz C++-2.0.zip c+-3.0.tar.gz a.b-1.0.tar.gz axb-2.0.tar.gz éfoo-1.0.tar.gz",
]


@pytest.mark.parametrize("name", ["foo", "FOO", "kde", "spam", "proj1", "c++", "a.b", "foo-", "-", "x", "iso", "ISO", "Iso"])
@pytest.mark.parametrize("page", _PAGES)
def test_the_default_regex_finds_what_the_compiled_pattern_finds(name, page):
    """The default pattern runs without being compiled for ASCII names: same versions, same order."""
    pattern = expand_regex(None, name)
    compiled = compile_user_regex(pattern)
    try:
        expected = _versions(page, compiled, name)
    except BackendError as exc:
        with pytest.raises(BackendError, match="no upstream version found"):
            _versions(page, pattern, name)
        assert "no upstream version found" in str(exc)
    else:
        assert _versions(page, pattern, name) == expected


def test_which_characters_match_ascii_ones_case_insensitively():
    """What the uncompiled default pattern assumes of the regex engine's case-insensitive matching."""
    everything = "".join(chr(code) for code in range(0x110000) if not 0xD800 <= code <= 0xDFFF)
    for char in map(chr, range(0x20, 0x7F)):
        found = set(regex.findall("(?i)" + regex.escape(char), everything, regex.VERSION0))
        expected = {char.lower(), char.upper(), *{"k": "\u212a", "s": "\u017f"}.get(char.lower(), ""),
                    *{"i": "\u0130", "I": "\u0131"}.get(char, "")}
        assert found == expected, char
