"""The ``Calendar`` scheme: versions read through the project's ``version_pattern``.

A pattern such as ``YYYY.0M.0D-MODIFIER`` is a sequence of tokens and literal
characters (letter case of the tokens does not matter):

=========  ==========================================================
``YYYY``   year, 4 digits, not starting with 0 (``2019``)
``YY``     year, 2 or 3 digits, not starting with 0 (``19``, ``119``)
``0Y``     year like ``YY``, or 2 digits starting with 0 (``09``)
``MM``     month 1-12 without zero padding (``9``, ``12``)
``0M``     month 01-12, two digits
``DD``     day 1-31 without zero padding
``0D``     day 01-31, two digits
``MINOR``  a number
``MICRO``  a number
``MODIFIER`` the rest of the version (``rc1``); must be the last token
=========  ==========================================================

Any other character that is not a letter is a literal the version must repeat
exactly.  A version may stop after any token (``2019.04`` fits
``YYYY.0M.0D``); it may not go on past the pattern.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from ..errors import ConfigError
from .rules import VersionRules
from .scheme import INVALID, VALID, VersionScheme

__all__ = ["CalendarParts", "CalendarPattern", "CalendarScheme"]

#: token -> (field, regular expression of its value)
TOKENS: dict[str, tuple[str, str]] = {
    "YYYY": ("year", "[1-9][0-9]{3}"),
    "YY": ("year", "[1-9][0-9]{1,2}"),
    "0Y": ("year", "[1-9][0-9]{1,2}|0[0-9]"),
    "MM": ("month", "1[0-2]|[1-9]"),
    "0M": ("month", "0[1-9]|1[0-2]"),
    "DD": ("day", "[12][0-9]|3[01]|[1-9]"),
    "0D": ("day", "0[1-9]|[12][0-9]|3[01]"),
    "MINOR": ("minor", "[0-9]+"),
    "MICRO": ("micro", "[0-9]+"),
    "MODIFIER": ("modifier", ".+"),
}
_NUMERIC_FIELDS = ("year", "month", "day", "minor", "micro")
_TOKEN = re.compile("|".join(sorted(TOKENS, key=len, reverse=True)), re.IGNORECASE)
_WEEK = re.compile("WW|0W", re.IGNORECASE)
_MODIFIER_NUMBER = re.compile(r"(.*[^0-9])([0-9]+)", re.DOTALL)
_KNOWN = ", ".join(TOKENS)
_MISSING = -1
_NO_MODIFIER = (1,)


class CalendarParts(NamedTuple):
    """The fields of a calendar version; None where the version has none."""

    year: int | None = None
    month: int | None = None
    day: int | None = None
    minor: int | None = None
    micro: int | None = None
    #: the modifier without its trailing number (``rc`` of ``rc12``)
    modifier: str | None = None
    #: the trailing number of the modifier (12 of ``rc12``)
    rc_number: int | None = None


class CalendarPattern:
    """A ``version_pattern`` compiled into one regular expression.

    :raises ConfigError: the pattern is empty, has an unknown token (named in
        the message), repeats a field, or has something after ``MODIFIER``.
    """

    def __init__(self, pattern: str | None) -> None:
        if not pattern or not pattern.strip():
            raise ConfigError(
                "the Calendar version scheme needs a version pattern, such as YYYY.0M.0D"
            )
        self.pattern = pattern
        literals, tokens = self._tokenize(pattern)
        self._check(literals, tokens)
        self.regex = re.compile(_build_regex(literals, tokens), re.DOTALL)

    def _error(self, message: str) -> ConfigError:
        return ConfigError(f"version pattern '{self.pattern}': {message}")

    def _tokenize(self, pattern: str) -> tuple[list[str], list[str]]:
        """Literal runs and tokens, alternating: literals[i] precedes tokens[i]."""
        literals: list[str] = []
        tokens: list[str] = []
        literal = ""
        position = 0
        while position < len(pattern):
            if _WEEK.match(pattern, position):
                raise self._error("week tokens (WW, 0W) are not supported")
            match = _TOKEN.match(pattern, position)
            if match:
                literals.append(literal)
                tokens.append(match.group().upper())
                literal = ""
                position = match.end()
            elif pattern[position].isalpha():
                raise self._error(f"unknown token '{_word_at(pattern, position)}' (known: {_KNOWN})")
            else:
                literal += pattern[position]
                position += 1
        literals.append(literal)
        return literals, tokens

    def _check(self, literals: list[str], tokens: list[str]) -> None:
        if not tokens:
            raise self._error(f"it has no token (known: {_KNOWN})")
        seen: dict[str, str] = {}
        for token in tokens:
            field = TOKENS[token][0]
            if field in seen:
                raise self._error(f"'{token}' repeats the {field} already given by '{seen[field]}'")
            seen[field] = token
        if "MODIFIER" in tokens and (tokens[-1] != "MODIFIER" or literals[-1]):
            raise self._error("MODIFIER must come last: it takes the rest of the version")

    def split(self, version: str) -> CalendarParts | None:
        """The fields of *version*, or None when it does not fit the pattern."""
        match = self.regex.fullmatch(version)
        if match is None:
            return None
        found = match.groupdict()
        numbers = {field: int(found[field]) for field in _NUMERIC_FIELDS if found.get(field)}
        modifier, rc_number = found.get("modifier"), None
        if modifier:
            tail = _MODIFIER_NUMBER.fullmatch(modifier)
            if tail:
                modifier, rc_number = tail.group(1), int(tail.group(2))
        return CalendarParts(**numbers, modifier=modifier, rc_number=rc_number)


def _word_at(text: str, position: int) -> str:
    """The run of letters of *text* around *position*."""
    start = position
    while start > 0 and text[start - 1].isalpha():
        start -= 1
    end = position
    while end < len(text) and text[end].isalpha():
        end += 1
    return text[start:end]


def _build_regex(literals: list[str], tokens: list[str]) -> str:
    """``L0 T1 (?: L1 T2 (?: ... (?: Ln )? )? )?``: a version may stop after any token."""
    def group(token: str) -> str:
        field, value = TOKENS[token]
        return f"(?P<{field}>{value})"

    tail = f"(?:{re.escape(literals[-1])})?" if literals[-1] else ""
    for literal, token in zip(reversed(literals[1:-1]), reversed(tokens[1:]), strict=True):
        tail = f"(?:{re.escape(literal)}{group(token)}{tail})?"
    return re.escape(literals[0]) + group(tokens[0]) + tail


def calendar_key(parts: CalendarParts) -> tuple[Any, ...]:
    """Year, month, day, minor, micro (a missing field is below any value), then
    the modifier: none is newest, else the lower-cased text, then its number (a
    modifier without number is older than the same one with a number)."""
    numbers = tuple(_MISSING if value is None else value for value in parts[:5])
    if parts.modifier is None:
        modifier: tuple[Any, ...] = _NO_MODIFIER
    elif parts.rc_number is None:
        modifier = (0, parts.modifier.lower(), 0)
    else:
        modifier = (0, parts.modifier.lower(), 1, parts.rc_number)
    return (*numbers, modifier)


class CalendarScheme(VersionScheme):
    """Calendar versioning, read through the project's ``version_pattern``."""

    name = "Calendar"
    description = "Calendar versioning (2024.01.31) read through the project's version pattern."
    needs_pattern = True

    def __init__(self, rules: VersionRules = VersionRules()) -> None:
        super().__init__(rules)
        self.pattern = CalendarPattern(rules.pattern)

    def split(self, raw: str) -> CalendarParts | None:
        """The fields of *raw* (prefix stripped), None when it does not fit the pattern."""
        return self.pattern.split(self.strip_prefix(raw))

    def display(self, raw: str) -> str:
        return self.strip_prefix(raw)

    def is_valid(self, raw: str) -> bool:
        return self.split(raw) is not None

    def why_invalid(self, raw: str) -> str:
        return f"it does not fit the version pattern '{self.pattern.pattern}'"

    def sort_key(self, raw: str) -> tuple[Any, ...]:
        text = self.strip_prefix(raw)
        parts = self.pattern.split(text)
        if parts is None:
            return (INVALID, text)
        return (VALID, calendar_key(parts))

    def scheme_prerelease(self, raw: str) -> bool:
        parts = self.split(raw)
        return parts is not None and bool(parts.modifier)
