"""The ``RPM`` scheme: rpm's version comparison with a pre-release keyword layer.

Two layers, read from the version as users see it (prefix stripped):

1. :func:`split_rc` cuts a pre-release keyword (``rc``, ``pre``, ``beta``,
   ``alpha``, ``dev``, any letter case) and its number off the end:
   ``1.8.23-alpha1`` -> (``1.8.23``, ``alpha``, ``1``).
2. The bases are compared as rpm compares versions (:func:`rpmvercmp_key`).
   Equal bases are then ordered by the keyword: no keyword is newest; between
   keywords, the lower-cased keyword as a string (``alpha < beta < dev < pre <
   rc``), then the number as an integer, a keyword without a number being older
   than the same keyword with one.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from .scheme import INVALID, VALID, VersionScheme

__all__ = ["RpmScheme", "rpm_key", "rpmvercmp", "rpmvercmp_key", "split_rc"]

#: rpm's segments: digit runs, letter runs (ASCII only), '~' and '^'; all else separates
_SEGMENT = re.compile(r"[0-9]+|[A-Za-z]+|[~^]")
_ALNUM = re.compile(r"[A-Za-z0-9]")
_RC = re.compile(r"(.*?)\.?(-?(rc|pre|beta|alpha|dev)([0-9]*))", re.IGNORECASE)

# Rank of each kind of segment.  Comparing two versions segment by segment,
# rpm puts '~' below the end of the string, the end below '^', '^' below a
# letter run and a letter run below a digit run.
_TILDE = (0,)
_END = (1,)
_CARET = (2,)
_ALPHA = 3
_NUMBER = 4

_NO_KEYWORD = (1,)


@lru_cache(maxsize=16384)
def rpmvercmp_key(version: str) -> tuple[tuple[Any, ...], ...]:
    """A key that orders version strings exactly as rpm's ``rpmvercmp`` does.

    Letter runs compare as strings, digit runs as integers (so ``01 == 1``);
    ``1.0~rc1 < 1.0 < 1.0^git1 < 1.0a < 1.0.1``.
    """
    segments: list[tuple[Any, ...]] = []
    for segment in _SEGMENT.findall(version):
        if segment == "~":
            segments.append(_TILDE)
        elif segment == "^":
            segments.append(_CARET)
        elif segment[0] <= "9":
            segments.append((_NUMBER, int(segment)))
        else:
            segments.append((_ALPHA, segment))
    segments.append(_END)
    return tuple(segments)


def rpmvercmp(a: str, b: str) -> int:
    """-1, 0 or 1 as rpm orders version *a* against *b* (no keyword layer)."""
    key_a, key_b = rpmvercmp_key(a), rpmvercmp_key(b)
    return (key_a > key_b) - (key_a < key_b)


def split_rc(version: str) -> tuple[str, str, str]:
    """(base, keyword, number) of *version*; keyword and number are '' when absent.

    Only the first keyword counts and the base must not be empty:
    ``1.0devel`` -> (``1.0``, ``dev``, ''), ``predict-1.0`` is not split.
    """
    match = _RC.match(version)
    if match and match.group(1):
        return match.group(1), match.group(3), match.group(4)
    return version, "", ""


@lru_cache(maxsize=16384)
def rpm_key(version: str) -> tuple[Any, ...]:
    """The RPM scheme's sort key of a prefix-stripped *version*."""
    if not _ALNUM.search(version):
        return (INVALID, version)
    base, keyword, number = split_rc(version)
    if not keyword:
        release: tuple[Any, ...] = _NO_KEYWORD
    elif number:
        release = (0, keyword.lower(), 1, int(number))
    else:
        release = (0, keyword.lower(), 0)
    return (VALID, rpmvercmp_key(base), release)


class RpmScheme(VersionScheme):
    """rpm's ordering (``1.9 < 1.10``, ``1.0~rc1 < 1.0``) with pre-release keywords."""

    name = "RPM"
    description = "Compares versions as rpm does, with rc/pre/beta/alpha/dev as pre-releases (the default)."

    def display(self, raw: str) -> str:
        return self.strip_prefix(raw)

    def is_valid(self, raw: str) -> bool:
        return _ALNUM.search(self.strip_prefix(raw)) is not None

    def why_invalid(self, raw: str) -> str:
        if not self.strip_prefix(raw):
            return "it is empty once the prefix is removed"
        return "it has no letter or digit"

    def sort_key(self, raw: str) -> tuple[Any, ...]:
        return rpm_key(self.strip_prefix(raw))

    def scheme_prerelease(self, raw: str) -> bool:
        return bool(split_rc(self.strip_prefix(raw))[1])
