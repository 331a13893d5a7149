"""JSON representations of the records, field for field as the interface defines them."""

from __future__ import annotations

import calendar
from datetime import datetime, timezone
from typing import Any

from anitrack_core.db.listings import versions_with_dates
from anitrack_core.listing import SchemeCache, VersionListing, list_versions

from . import queries


def epoch(value: datetime | str | None) -> float | None:
    """A naive-UTC timestamp (or its text, as SQLite returns it) as seconds since the epoch, whole."""
    value = queries.timestamp(value)
    return float(calendar.timegm(value.utctimetuple())) if value else None


def iso_utc(value: datetime | None) -> str | None:
    return value.replace(tzinfo=timezone.utc).isoformat() if value else None


class ProjectViews:
    """Builds project JSON for a page of rows with one versions query for the page."""

    def __init__(self, schemes: SchemeCache) -> None:
        self.schemes = schemes

    def listings(self, rows: list[dict[str, Any]]) -> dict[int, VersionListing]:
        """The version listing of each row: the stored one when current, else computed (one query)."""
        found: dict[int, VersionListing] = {}
        stale = []
        for row in rows:
            listing = VersionListing.from_json(row.get("version_listing"), self.schemes.for_project(row))
            if listing is None:
                stale.append(row)
            else:
                found[row["id"]] = listing
        if stale:
            versions = versions_with_dates(row["id"] for row in stale)
            for row in stale:
                found[row["id"]] = list_versions(self.schemes.for_project(row), versions.get(row["id"], []))
        return found

    @staticmethod
    def base(row: dict[str, Any], listing: VersionListing) -> dict[str, Any]:
        return {
            "backend": row["backend"],
            "created_on": epoch(row["created_on"]),
            "homepage": row["homepage"],
            "id": row["id"],
            "name": row["name"],
            "regex": row["regex"],
            "updated_on": epoch(row["updated_on"]),
            "version": row["latest_version"],
            "version_url": row["version_url"],
            "versions": listing.versions,
            "stable_versions": listing.stable_versions,
        }

    def v2_items(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Items of GET /api/v2/projects/: the base fields and ``ecosystem``."""
        listings = self.listings(rows)
        return [{**self.base(row, listings[row["id"]]), "ecosystem": row["ecosystem_name"]} for row in rows]

    def v2_created(self, row: dict[str, Any]) -> dict[str, Any]:
        """The body of POST /api/v2/projects/ (no ``ecosystem``, as the interface lists it)."""
        return self.base(row, self.listings([row])[row["id"]])

    def v1_items(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        listings = self.listings(rows)
        return [self.base(row, listings[row["id"]]) for row in rows]

    def v1_detail(self, row: dict[str, Any]) -> dict[str, Any]:
        """A v1 single project: the base fields and its ``packages``."""
        packages = queries.packages_of([row["id"]]).get(row["id"], [])
        return {**self.base(row, self.listings([row])[row["id"]]), "packages": packages}
