"""What a backend sees of a project: a frozen copy of its fields, never the database row."""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class ProjectSpec:
    """The fields of one project a check needs.  Temporary projects have ``id=None``."""

    id: int | None
    name: str
    homepage: str
    backend: str
    ecosystem_name: str | None = None
    version_url: str | None = None
    regex: str | None = None
    version_prefix: str | None = None
    version_scheme: str | None = None
    version_pattern: str | None = None
    pre_release_filter: str | None = None
    version_filter: str | None = None
    insecure: bool = False
    releases_only: bool = False
    latest_version_cursor: str | None = None
    http_etag: str | None = None
    http_last_modified: str | None = None
    #: when the newest stored version was found (If-Modified-Since when no Last-Modified is known)
    newest_version_on: datetime | None = None

    @classmethod
    def from_row(cls, row: Any, newest_version_on: datetime | None = None) -> ProjectSpec:
        """From a Project model instance or a dict of its columns."""
        get = row.get if isinstance(row, dict) else lambda key, default=None: getattr(row, key, default)
        values = {f.name: get(f.name) for f in fields(cls) if f.name != "newest_version_on"}
        values["insecure"] = bool(values["insecure"])
        values["releases_only"] = bool(values["releases_only"])
        return cls(**values, newest_version_on=newest_version_on)
