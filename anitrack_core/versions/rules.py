"""A project's version rules: prefix stripping, version filter, pre-release filter.

Each rule is a ``;``-delimited string stored on the project.  The module-level
functions take the rule strings as stored; the classes are the same rules parsed
once, which is what a :class:`~anitrack_core.versions.VersionScheme` keeps for
the project it serves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from packaging.version import InvalidVersion, Version

__all__ = [
    "PreReleaseFilter",
    "PrefixRule",
    "VersionFilter",
    "VersionRules",
    "is_filtered_out",
    "matches_pre_release_filter",
    "parse_pep440",
    "split_filter",
    "strip_prefix",
]

#: a lowercase ``v`` directly followed by an ASCII digit ("v1.0", not "V1.0", not "version1")
_V_DIGIT = re.compile(r"v[0-9]")
_ODDS = "!odds"


@dataclass(frozen=True)
class VersionRules:
    """The per-project rules a version scheme applies; every one is optional."""

    #: ``version_prefix``: prefixes to strip, ``;``-delimited
    prefix: str | None = None
    #: ``pre_release_filter``: extra pre-release markers, ``;``-delimited
    pre_release_filter: str | None = None
    #: ``version_filter``: versions containing one of these pieces are dropped
    version_filter: str | None = None
    #: ``version_pattern``: the Calendar scheme's pattern, such as ``YYYY.0M.0D``
    pattern: str | None = None


def split_filter(value: str | None) -> list[str]:
    """The pieces of a ``;``-delimited rule, in order, untrimmed, empty pieces left out.

    >>> split_filter("release_db-; ;;rc")
    ['release_db-', ' ', 'rc']
    """
    if not value:
        return []
    return [piece for piece in value.split(";") if piece]


class PrefixRule:
    """``version_prefix`` parsed: strips the longest matching prefix, then a ``v``."""

    __slots__ = ("pieces",)

    def __init__(self, prefix: str | None) -> None:
        #: the prefixes, longest first (case-sensitive, untrimmed)
        self.pieces: tuple[str, ...] = tuple(sorted(split_filter(prefix), key=len, reverse=True))

    def strip(self, raw: str) -> str:
        """*raw* without its longest matching prefix (then whitespace-trimmed),
        then without a leading ``v`` that directly precedes a digit."""
        for piece in self.pieces:
            if raw.startswith(piece):
                raw = raw[len(piece):].strip()
                break
        if _V_DIGIT.match(raw):
            raw = raw[1:]
        return raw


class VersionFilter:
    """``version_filter`` parsed: which raw versions a project hides.

    Pieces are trimmed and empty ones ignored.  A version is dropped when a
    piece is a substring of the raw string, or of the raw string preceded by one
    of the project's prefixes (so the filter ``v1.0`` with prefix ``v`` hides
    the stored version ``1.0.0``).
    """

    __slots__ = ("pieces", "prefixes")

    def __init__(self, version_filter: str | None, prefix: str | None = None) -> None:
        self.pieces: tuple[str, ...] = tuple(
            piece.strip() for piece in split_filter(version_filter) if piece.strip()
        )
        self.prefixes: tuple[str, ...] = tuple(split_filter(prefix))

    def drops(self, raw: str) -> bool:
        for piece in self.pieces:
            if piece in raw:
                return True
            for prefix in self.prefixes:
                if piece in prefix + raw:
                    return True
        return False


class PreReleaseFilter:
    """``pre_release_filter`` parsed: which raw versions a project calls pre-releases.

    Pieces are read in order up to the first empty one, which ends the filter
    (``alpha;`` flags alpha versions, ``;alpha`` flags nothing).  A piece
    ``!odds`` flags versions whose minor number is odd, ``!odds:N`` looks at
    release number *N* instead (0 = major, 2 = micro); the raw string is read as
    a PEP 440 version, and a version it cannot read, a missing number or a
    malformed ``!odds`` piece flags nothing.  Any other piece flags the versions
    whose raw string (prefix included) contains it.
    """

    __slots__ = ("odd_positions", "substrings")

    def __init__(self, pre_release_filter: str | None) -> None:
        substrings: list[str] = []
        odd_positions: list[int] = []
        for piece in pre_release_filter.split(";") if pre_release_filter else ():
            if not piece:
                break
            if piece.startswith(_ODDS):
                position = _odds_position(piece)
                if position is not None:
                    odd_positions.append(position)
            else:
                substrings.append(piece)
        self.substrings: tuple[str, ...] = tuple(substrings)
        self.odd_positions: tuple[int, ...] = tuple(odd_positions)

    def matches(self, raw: str) -> bool:
        if not raw:
            return False
        if any(piece in raw for piece in self.substrings):
            return True
        if self.odd_positions:
            version = parse_pep440(raw)
            if version is not None:
                release = version.release
                return any(
                    position < len(release) and release[position] % 2 == 1
                    for position in self.odd_positions
                )
        return False


def _odds_position(piece: str) -> int | None:
    """The release position of an ``!odds`` / ``!odds:N`` piece; None if malformed."""
    if piece == _ODDS:
        return 1
    rest = piece[len(_ODDS):]
    if rest.startswith(":") and rest[1:].isascii() and rest[1:].isdigit():
        return int(rest[1:])
    return None


@lru_cache(maxsize=16384)
def parse_pep440(text: str) -> Version | None:
    """*text* read as a PEP 440 version, None if it is not one (shared with the scheme)."""
    try:
        return Version(text)
    except InvalidVersion:
        return None


# The functions below parse each distinct rule string once.

_prefix_rule = lru_cache(maxsize=256)(PrefixRule)
_version_filter = lru_cache(maxsize=256)(VersionFilter)
_pre_release_filter = lru_cache(maxsize=256)(PreReleaseFilter)


def strip_prefix(raw: str, prefix: str | None) -> str:
    """*raw* as users see it: see :meth:`PrefixRule.strip`.

    >>> strip_prefix("release_db-1.2.3", "release_db-;release")
    '1.2.3'
    """
    return _prefix_rule(prefix).strip(raw)


def is_filtered_out(raw: str, version_filter: str | None, prefix: str | None = None) -> bool:
    """True when *version_filter* hides *raw*: see :class:`VersionFilter`.

    *prefix* (the project's ``version_prefix``) is optional; given, a piece also
    matches the raw string preceded by one of the prefixes.
    """
    if not version_filter:
        return False
    return _version_filter(version_filter, prefix).drops(raw)


def matches_pre_release_filter(raw: str, pre_release_filter: str | None) -> bool:
    """True when *pre_release_filter* flags *raw*: see :class:`PreReleaseFilter`."""
    if not pre_release_filter:
        return False
    return _pre_release_filter(pre_release_filter).matches(raw)
