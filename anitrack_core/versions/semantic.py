"""The ``Semantic`` scheme: Semantic Versioning 2.0.0 (https://semver.org).

A version is ``MAJOR.MINOR.PATCH``, optionally followed by ``-PRERELEASE`` and
``+BUILD``.  The three numbers have no leading zeros; pre-release identifiers
are dot-separated runs of ASCII letters, digits and hyphens, numeric ones
without leading zeros; build metadata is ignored when ordering.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, NamedTuple

from .scheme import INVALID, VALID, VersionScheme

__all__ = ["SemVer", "SemanticScheme", "explain_semver", "parse_semver", "semver_key"]

_NUMBER = r"(?:0|[1-9][0-9]*)"
_PRE_IDENTIFIER = rf"(?:{_NUMBER}|[0-9]*[A-Za-z-][0-9A-Za-z-]*)"
_BUILD_IDENTIFIER = r"[0-9A-Za-z-]+"
_SEMVER = re.compile(
    rf"(?P<major>{_NUMBER})\.(?P<minor>{_NUMBER})\.(?P<patch>{_NUMBER})"
    rf"(?:-(?P<pre>{_PRE_IDENTIFIER}(?:\.{_PRE_IDENTIFIER})*))?"
    rf"(?:\+(?P<build>{_BUILD_IDENTIFIER}(?:\.{_BUILD_IDENTIFIER})*))?"
)
_CORE = re.compile(r"([0-9]+)\.([0-9]+)\.([0-9]+)(?=[-+]|\Z)")
_NO_PRERELEASE = (1,)


class SemVer(NamedTuple):
    major: int
    minor: int
    patch: int
    #: pre-release identifiers; numeric ones as int
    prerelease: tuple[int | str, ...]
    build: str | None


@lru_cache(maxsize=16384)
def parse_semver(text: str) -> SemVer | None:
    """*text* read as a semantic version, None if it is not one."""
    match = _SEMVER.fullmatch(text)
    if match is None:
        return None
    pre = match.group("pre")
    prerelease = tuple(
        int(part) if part.isdigit() else part for part in pre.split(".")
    ) if pre else ()
    return SemVer(
        int(match.group("major")), int(match.group("minor")), int(match.group("patch")),
        prerelease, match.group("build"),
    )


def semver_key(version: SemVer) -> tuple[Any, ...]:
    """The precedence of *version* (semver.org item 11) as a sortable tuple.

    A version without pre-release is above any with one; identifiers compare
    numerically when numeric, as ASCII strings otherwise, numeric below
    alphanumeric; a longer list of equal leading identifiers is higher.
    """
    if not version.prerelease:
        release: tuple[Any, ...] = _NO_PRERELEASE
    else:
        release = (0, tuple(
            (0, part) if isinstance(part, int) else (1, part) for part in version.prerelease
        ))
    return (version.major, version.minor, version.patch, release)


def explain_semver(text: str) -> str:
    """Why *text* is not a semantic version (for a user)."""
    core = _CORE.match(text)
    if core is None:
        return "expected MAJOR.MINOR.PATCH, optionally followed by -PRERELEASE and +BUILD"
    if any(len(number) > 1 and number[0] == "0" for number in core.groups()):
        return "MAJOR, MINOR and PATCH must not have leading zeros"
    return (
        "the pre-release and build parts must be dot-separated ASCII letters, digits "
        "and hyphens (numeric pre-release parts without leading zeros)"
    )


class SemanticScheme(VersionScheme):
    """Semantic Versioning 2.0.0; anything else is an invalid version."""

    name = "Semantic"
    description = "Semantic Versioning 2.0.0 (MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD])."

    def display(self, raw: str) -> str:
        return self.strip_prefix(raw)

    def is_valid(self, raw: str) -> bool:
        return parse_semver(self.strip_prefix(raw)) is not None

    def why_invalid(self, raw: str) -> str:
        return explain_semver(self.strip_prefix(raw))

    def sort_key(self, raw: str) -> tuple[Any, ...]:
        text = self.strip_prefix(raw)
        version = parse_semver(text)
        if version is None:
            return (INVALID, text)
        return (VALID, semver_key(version))

    def scheme_prerelease(self, raw: str) -> bool:
        version = parse_semver(self.strip_prefix(raw))
        return version is not None and bool(version.prerelease)
