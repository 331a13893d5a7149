"""A project's stored versions as clients see them: filtered, newest first, stable ones apart.

Schemes are built once per distinct set of rules and reused (they are
immutable), so listing many projects does not rebuild them.  A project whose
stored scheme can no longer be built (its plugin was removed, its Calendar
pattern is missing) is listed with the global default scheme rather than
failing the whole request; the problem is logged.
"""

from __future__ import annotations

import json
import logging
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from threading import Lock
from typing import TYPE_CHECKING, Any

from .errors import AnitrackError
from .resolve import GLOBAL_DEFAULT_SCHEME, RULE_FIELDS, scheme_for
from .versions import VersionScheme

if TYPE_CHECKING:
    from .plugins import Plugins

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class VersionListing:
    #: display strings, newest first, version_filter applied
    versions: list[str]
    #: the same without pre-releases
    stable_versions: list[str]
    #: the raw string of the newest version, or None
    newest_raw: str | None
    #: when the newest version was found (naive UTC), if known
    newest_on: datetime | None = None

    def to_json(self, scheme: VersionScheme) -> str:
        """The stored form (``project.version_listing``), tagged with the rules it was made with."""
        return json.dumps({"rules": _rules_tag(scheme), "versions": self.versions,
                           "stable_versions": self.stable_versions, "newest_raw": self.newest_raw,
                           "newest_on": self.newest_on.isoformat() if self.newest_on else None})

    @classmethod
    def from_json(cls, text: str | None, scheme: VersionScheme) -> VersionListing | None:
        """The stored listing, or None when absent or made with other rules than *scheme*'s."""
        if not text:
            return None
        try:
            data = json.loads(text)
            if data["rules"] != _rules_tag(scheme):
                return None
            newest_on = datetime.fromisoformat(data["newest_on"]) if data["newest_on"] else None
            return cls(data["versions"], data["stable_versions"], data["newest_raw"], newest_on)
        except (ValueError, KeyError, TypeError):
            return None


def _rules_tag(scheme: VersionScheme) -> list[Any]:
    rules = scheme.rules
    return [scheme.name, rules.prefix, rules.pre_release_filter, rules.version_filter, rules.pattern]


def list_versions(scheme: VersionScheme, raws: Iterable[str] | Iterable[tuple[str, datetime | None]]) -> VersionListing:
    """The listing of *raws* (strings, or (string, found on) pairs) under *scheme*."""
    found_on: dict[str, datetime | None] = {}
    strings = []
    for item in raws:
        if isinstance(item, tuple):
            found_on[item[0]] = item[1]
            strings.append(item[0])
        else:
            strings.append(item)
    ordered = scheme.newest_first(scheme.keep(strings))
    displayed = [(raw, scheme.display(raw)) for raw in ordered]
    newest = ordered[0] if ordered else None
    return VersionListing(
        versions=[shown for _, shown in displayed],
        stable_versions=[shown for raw, shown in displayed if not scheme.is_prerelease(raw)],
        newest_raw=newest,
        newest_on=found_on.get(newest) if newest is not None else None,
    )


class SchemeCache:
    """Version schemes for projects, built once per distinct rules (bounded, thread-safe)."""

    def __init__(self, plugins: Plugins, size: int = 4096) -> None:
        self.plugins = plugins
        self.size = size
        self._cache: OrderedDict[tuple[Any, ...], VersionScheme] = OrderedDict()
        self._lock = Lock()

    def for_project(self, project: Any) -> VersionScheme:
        """The scheme of *project*: a model, a dict of its fields or anything with those attributes."""
        get = project.get if isinstance(project, dict) else lambda key: getattr(project, key, None)
        fields = {name: get(name) for name in RULE_FIELDS}
        # only a registered ecosystem changes the rules: every other ecosystem_name (a homepage) shares them
        ecosystem = self.plugins.ecosystems.find(fields["ecosystem_name"])
        fields["ecosystem_name"] = ecosystem.name if ecosystem is not None else None
        key = tuple(fields.values())
        with self._lock:
            scheme = self._cache.get(key)
            if scheme is not None:
                self._cache.move_to_end(key)
                return scheme
        scheme = self._build(dict(zip(RULE_FIELDS, key)))
        with self._lock:
            self._cache[key] = scheme
            if len(self._cache) > self.size:
                self._cache.popitem(last=False)
        return scheme

    def _build(self, fields: dict[str, Any]) -> VersionScheme:
        try:
            return scheme_for(self.plugins, fields)
        except AnitrackError as exc:
            log.warning("version scheme of a project cannot be used (%s); listing with %s", exc,
                        GLOBAL_DEFAULT_SCHEME)
            return scheme_for(self.plugins, {**fields, "version_scheme": GLOBAL_DEFAULT_SCHEME,
                                             "version_pattern": None})
