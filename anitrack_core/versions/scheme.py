"""The base class of every version scheme.

A scheme is built once per project with that project's :class:`VersionRules`
and then answers questions about raw version strings, as the backends found
them: what users see (:meth:`~VersionScheme.display`), whether the string is a
version of the scheme, how versions order, which are pre-releases.

A scheme defines four methods: :meth:`~VersionScheme.display`,
:meth:`~VersionScheme.is_valid`, :meth:`~VersionScheme.sort_key` and
:meth:`~VersionScheme.scheme_prerelease`.  Everything else is built here on top
of them.  ``sort_key`` must give a *total* order: every string gets a key, keys
of any two strings compare without error, higher means newer, and strings that
are not valid versions sort below every valid one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from ..errors import InvalidVersionError
from .rules import PrefixRule, PreReleaseFilter, VersionFilter, VersionRules

__all__ = ["INVALID", "VALID", "VersionScheme"]

#: first element of the sort key of a valid version ...
VALID = 1
#: ... and of a string that is not a version of the scheme (sorts below)
INVALID = 0


class VersionScheme:
    """Orders and classifies one project's versions.

    :param rules: the project's prefix, filters and (Calendar) pattern.
    :raises ConfigError: the rules cannot be used by this scheme.
    """

    #: the scheme's name, as clients see and send it (lookups ignore letter case)
    name: ClassVar[str]
    #: one sentence, shown by ``anitrack plugins``
    description: ClassVar[str]
    #: True when the scheme cannot work without ``VersionRules.pattern``
    needs_pattern: ClassVar[bool] = False

    def __init__(self, rules: VersionRules = VersionRules()) -> None:
        self.rules = rules
        self._prefix = PrefixRule(rules.prefix)
        self._pre_release_filter = PreReleaseFilter(rules.pre_release_filter)
        self._version_filter = VersionFilter(rules.version_filter, rules.prefix)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.rules!r})"

    # ---- what each scheme defines ----

    def display(self, raw: str) -> str:
        """*raw* as users see it: prefix stripped (and normalised where the scheme does)."""
        raise NotImplementedError

    def is_valid(self, raw: str) -> bool:
        """True when *raw* (prefix stripped) is a version of this scheme."""
        raise NotImplementedError

    def sort_key(self, raw: str) -> tuple[Any, ...]:
        """A key that orders versions, higher = newer; see the module docstring."""
        raise NotImplementedError

    def scheme_prerelease(self, raw: str) -> bool:
        """True when the scheme itself calls *raw* a pre-release (the filter aside)."""
        raise NotImplementedError

    def why_invalid(self, raw: str) -> str:
        """Why *raw* is not valid, for error messages; called only for invalid strings."""
        return "it cannot be read as such"

    # ---- built on top ----

    def strip_prefix(self, raw: str) -> str:
        """*raw* without the project's prefix nor a leading ``v`` before a digit."""
        return self._prefix.strip(raw)

    def is_prerelease(self, raw: str) -> bool:
        """True when the scheme calls *raw* a pre-release or the project's
        pre-release filter flags it (the filter applies to invalid strings too)."""
        return self.scheme_prerelease(raw) or self._pre_release_filter.matches(raw)

    def compare(self, a: str, b: str) -> int:
        """-1, 0 or 1 as *a* is older than, the same as, or newer than *b*."""
        key_a, key_b = self.sort_key(a), self.sort_key(b)
        return (key_a > key_b) - (key_a < key_b)

    def newest_first(self, raws: Iterable[str]) -> list[str]:
        """*raws* sorted newest first; versions that compare equal keep their order."""
        return sorted(raws, key=self.sort_key, reverse=True)

    def latest(self, raws: Iterable[str]) -> str | None:
        """The newest of *raws* (the first of :meth:`newest_first`), None if empty."""
        return max(raws, key=self.sort_key, default=None)

    def latest_stable(self, raws: Iterable[str]) -> str | None:
        """The newest of *raws* that is not a pre-release, None if there is none."""
        stable = (raw for raw in raws if not self.is_prerelease(raw))
        return max(stable, key=self.sort_key, default=None)

    def is_newer(self, raw: str, others: Iterable[str]) -> bool:
        """True when *raw* sorts strictly above every one of *others* (True if none)."""
        key = self.sort_key(raw)
        return all(key > self.sort_key(other) for other in others)

    def is_filtered_out(self, raw: str) -> bool:
        """True when the project's version filter hides *raw*."""
        return self._version_filter.drops(raw)

    def keep(self, raws: Iterable[str]) -> list[str]:
        """*raws* without the versions the project's version filter hides, in order.

        The sorting methods do not filter: call this first where hidden versions
        must not count.
        """
        return [raw for raw in raws if not self._version_filter.drops(raw)]

    def validate(self, raw: str) -> str:
        """:meth:`display` of *raw*, or an error when *raw* is not a valid version.

        :raises InvalidVersionError: with a message for the user.
        """
        if self.is_valid(raw):
            return self.display(raw)
        raise InvalidVersionError(
            f"'{raw}' is not a valid {self.name} version: {self.why_invalid(raw)}"
        )
