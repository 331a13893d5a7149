"""The database half of a check: one transaction per project.

New versions (every one, not only the newest) and the project's check fields
(latest_version, cursor, logs, check_successful, error_counter, last/next
check, upstream validators) are written together; a failed check changes only
the check fields and never the stored versions.  A dry run computes the same
and rolls back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from ..db.models import Project, ProjectVersion
from ..listing import VersionListing, list_versions
from ..versions import VersionScheme
from .fetch import FetchOutcome
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


def apply_outcome(outcome: FetchOutcome, scheme: VersionScheme, *, now: datetime, interval: timedelta,
                  dry_run: bool = False) -> AppliedCheck:
    """Write *outcome* for its project in one transaction (a savepoint inside an outer one)."""
    db = Project._meta.database
    with db.atomic() as transaction:
        project = Project.get_by_id(outcome.spec.id)
        stored = [raw for (raw,) in ProjectVersion.select(ProjectVersion.version)
                  .where(ProjectVersion.project == project.id).tuples()]
        changes: dict = {Project.last_check: now}
        fresh = []
        if outcome.rate_limit_reset is not None:
            changes.update({Project.logs: outcome.error, Project.check_successful: False,
                            Project.next_check: _naive_utc(outcome.rate_limit_reset)})
        elif outcome.error is not None:
            changes.update({Project.logs: outcome.error, Project.check_successful: False,
                            Project.error_counter: Project.error_counter + 1, Project.next_check: now + interval})
        else:
            fresh = new_versions(outcome, stored, scheme)
            if fresh:
                ProjectVersion.insert_many(
                    [{"project": project.id, "version": rv.version, "commit_url": rv.commit_url, "created_on": now}
                     for rv in fresh]).execute()
            changes.update({Project.logs: LOG_NEW if fresh else LOG_NOTHING_NEW, Project.check_successful: True,
                            Project.error_counter: 0, Project.next_check: now + interval})
            if outcome.validators is not None:
                changes.update({Project.http_etag: outcome.validators.etag,
                                Project.http_last_modified: outcome.validators.last_modified})
        listing = list_versions(scheme, stored + [rv.version for rv in fresh])
        if outcome.error is None:
            changes[Project.latest_version] = listing.versions[0] if listing.versions else None
            cursor = next((rv.cursor for rv in fresh if rv.version == listing.newest_raw and rv.cursor), None)
            if cursor:
                changes[Project.latest_version_cursor] = cursor
        Project.update(changes).where(Project.id == project.id).execute()
        after = Project.get_by_id(project.id)
        if dry_run:
            transaction.rollback()
    found = list_versions(scheme, [rv.version for rv in outcome.versions]).versions
    fresh_display = [scheme.display(raw) for raw in scheme.newest_first(rv.version for rv in fresh)]
    result = CheckResult(new_versions=fresh_display, found_versions=found, error=outcome.error,
                         rate_limited_until=outcome.rate_limit_reset, dry_run=dry_run)
    snapshot = CheckedProject(id=after.id, name=after.name, homepage=after.homepage, backend=after.backend,
                              ecosystem_name=after.ecosystem_name, latest_version=after.latest_version,
                              error_counter=after.error_counter, check_successful=after.check_successful)
    return AppliedCheck(project.id, result, listing, project.latest_version, snapshot,
                        [rv.version for rv in fresh])
