"""The database half of a check: one transaction per project.

New versions (every one, not only the newest) and the project's check fields
(latest_version, cursor, logs, check_successful, error_counter, last/next
check, upstream validators) are written together, with the events announcing
new versions (``project.version.update`` and ``.v2``, agent "anitrack"); a
failed check changes only the check fields and never the stored versions.  A
dry run computes the same and rolls back, announcing nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from .. import events
from ..db.models import Project, ProjectVersion
from ..events import messages
from ..listing import VersionListing, list_versions
from ..versions import VersionScheme
from .backend_versions import FetchOutcome
from .result import CheckedProject, CheckResult

LOG_NEW = "Version retrieved correctly"
LOG_NOTHING_NEW = "No new version found"


@dataclass
class AppliedCheck:
    """What a check did to one project."""

    project_id: int
    result: CheckResult
    #: every version after the check, as clients see them
    listing: VersionListing
    #: latest_version before the check
    old_version: str | None
    snapshot: CheckedProject
    #: raw strings of the versions stored by this check, in upstream order
    new_raws: list[str] = field(default_factory=list)


def _naive_utc(moment: datetime) -> datetime:
    return moment.astimezone(timezone.utc).replace(tzinfo=None) if moment.tzinfo else moment


def new_versions(outcome: FetchOutcome, stored: list[str], scheme: VersionScheme) -> list:
    """The fetched versions equal (by the scheme) to no stored one, each scheme-distinct once."""
    seen = {scheme.sort_key(raw) for raw in scheme.keep(stored)}
    fresh = []
    for raw_version in outcome.versions:
        key = scheme.sort_key(raw_version.version)
        if key not in seen:
            seen.add(key)
            fresh.append(raw_version)
    return fresh


def _announce_new_versions(project_id: int, scheme: VersionScheme, listing: VersionListing,
                           old_version: str | None, new_raws: list[str]) -> None:
    """Write ``project.version.update`` and ``.v2`` for the versions a check stored (same transaction)."""
    project = Project.get_by_id(project_id)
    ascending = [scheme.display(raw) for raw in reversed(scheme.newest_first(new_raws))]
    v1, v2 = messages.versions_found(project, listing, old_version, ascending, messages.packages_json(project_id))
    events.record("project.version.update", v1, project_id=project_id)
    events.record("project.version.update.v2", v2, project_id=project_id)


def apply_outcome(outcome: FetchOutcome, scheme: VersionScheme, *, now: datetime, interval: timedelta,
                  dry_run: bool = False) -> AppliedCheck:
    """Write *outcome* for its project in one transaction (a savepoint inside an outer one)."""
    db = Project._meta.database
    project_id = outcome.spec.id
    with db.atomic() as transaction:
        old_version, error_counter, stored_listing = (
            Project.select(Project.latest_version, Project.error_counter, Project.version_listing)
            .where(Project.id == project_id).tuples().get())
        changes: dict = {Project.last_check: now}
        fresh: list = []
        listing = VersionListing.from_json(stored_listing, scheme)
        if outcome.rate_limit_reset is not None:
            changes.update({Project.logs: outcome.error, Project.check_successful: False,
                            Project.next_check: _naive_utc(outcome.rate_limit_reset)})
        elif outcome.error is not None:
            error_counter += 1
            changes.update({Project.logs: outcome.error, Project.check_successful: False,
                            Project.error_counter: Project.error_counter + 1, Project.next_check: now + interval})
        else:
            error_counter = 0
            changes.update({Project.check_successful: True, Project.error_counter: 0,
                            Project.next_check: now + interval})
            if outcome.validators is not None:
                changes.update({Project.http_etag: outcome.validators.etag,
                                Project.http_last_modified: outcome.validators.last_modified})
            if outcome.versions or listing is None:
                stored_rows = list(ProjectVersion.select(ProjectVersion.version, ProjectVersion.created_on)
                                   .where(ProjectVersion.project == project_id).tuples())
                fresh = new_versions(outcome, [raw for raw, _ in stored_rows], scheme)
                if fresh:
                    ProjectVersion.insert_many(
                        [{"project": project_id, "version": rv.version, "commit_url": rv.commit_url,
                          "created_on": now} for rv in fresh]).execute()
                listing = list_versions(scheme, stored_rows + [(rv.version, now) for rv in fresh])
                changes[Project.version_listing] = listing.to_json(scheme)
            changes[Project.logs] = LOG_NEW if fresh else LOG_NOTHING_NEW
            changes[Project.latest_version] = listing.versions[0] if listing.versions else None
            cursor = next((rv.cursor for rv in outcome.versions if rv.version == listing.newest_raw and rv.cursor), None)
            if cursor:
                changes[Project.latest_version_cursor] = cursor
        if listing is None:  # a failed check of a project whose listing is not stored: compute it to answer
            listing = list_versions(scheme, ProjectVersion.select(ProjectVersion.version, ProjectVersion.created_on)
                                    .where(ProjectVersion.project == project_id).tuples())
        Project.update(changes).where(Project.id == project_id).execute()
        if dry_run:
            transaction.rollback()
        elif fresh:
            _announce_new_versions(project_id, scheme, listing, old_version, [rv.version for rv in fresh])
    found = list_versions(scheme, [rv.version for rv in outcome.versions]).versions
    fresh_display = [scheme.display(raw) for raw in scheme.newest_first(rv.version for rv in fresh)]
    result = CheckResult(new_versions=fresh_display, found_versions=found, error=outcome.error,
                         rate_limited_until=outcome.rate_limit_reset, dry_run=dry_run)
    spec = outcome.spec
    latest = changes.get(Project.latest_version, old_version)
    successful = changes.get(Project.check_successful)
    snapshot = CheckedProject(id=project_id, name=spec.name, homepage=spec.homepage, backend=spec.backend,
                              ecosystem_name=spec.ecosystem_name or spec.homepage, latest_version=latest,
                              error_counter=error_counter, check_successful=successful)
    return AppliedCheck(project_id, result, listing, old_version, snapshot, [rv.version for rv in fresh])
