"""Keeping ``project.version_listing`` in step with a project's versions and rules.

Every write path that adds or removes versions, or changes how they are
ordered or filtered, ends by calling :func:`refresh_listings` (the check
engine stores the listing it computed itself).  Readers use the stored
listing when it was made with the project's current rules and recompute it
otherwise, so a stale listing is never served.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from ..listing import SchemeCache, list_versions
from .models import Project, ProjectVersion


def versions_with_dates(project_ids: Iterable[int]) -> dict[int, list[tuple[str, Any]]]:
    """``{project id: [(raw version, found on), ...]}`` in one query."""
    ids = list(set(project_ids))
    found: dict[int, list[tuple[str, Any]]] = defaultdict(list)
    if ids:
        rows = (ProjectVersion.select(ProjectVersion.project, ProjectVersion.version, ProjectVersion.created_on)
                .where(ProjectVersion.project.in_(ids)).tuples())
        for project_id, version, created_on in rows:
            found[project_id].append((version, created_on))
    return found


def refresh_listings(schemes: SchemeCache, project_ids: Iterable[int]) -> None:
    """Recompute and store the listing of each project in *project_ids*."""
    ids = list(set(project_ids))
    if not ids:
        return
    versions = versions_with_dates(ids)
    for row in Project.select().where(Project.id.in_(ids)).dicts():
        scheme = schemes.for_project(row)
        listing = list_versions(scheme, versions.get(row["id"], []))
        Project.update(version_listing=listing.to_json(scheme)).where(Project.id == row["id"]).execute()


def refresh_missing(schemes: SchemeCache, batch: int = 500) -> int:
    """Fill the listings no one has computed yet (after migrating); returns how many."""
    done = 0
    while True:
        ids = [pid for (pid,) in Project.select(Project.id).where(Project.version_listing.is_null())
               .order_by(Project.id).limit(batch).tuples()]
        if not ids:
            return done
        with Project._meta.database.atomic():
            refresh_listings(schemes, ids)
        done += len(ids)
