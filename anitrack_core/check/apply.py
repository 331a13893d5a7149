"""The database half of a check: one savepoint per batch of checks, a few statements for all of them.

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

from collections.abc import Sequence
from typing import Any

from .. import events
from ..db import bulk
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


#: one check to write: its outcome, the project's version scheme and its backend's check interval
CheckToApply = tuple[FetchOutcome, VersionScheme, timedelta]

#: the project fields a check reads: its own, and those its events carry
_READ = (Project.id, Project.latest_version, Project.error_counter, Project.version_listing, Project.name,
         Project.homepage, Project.backend, Project.ecosystem_name, Project.regex, Project.version_url,
         Project.created_on, Project.updated_on)
_NEW_VERSION = (ProjectVersion.project, ProjectVersion.version, ProjectVersion.commit_url, ProjectVersion.created_on)


@dataclass
class _Plan:
    """What one check changes, worked out before anything is written."""

    outcome: FetchOutcome
    scheme: VersionScheme
    row: dict[str, Any]
    listing: VersionListing | None
    changes: dict = field(default_factory=dict)
    fresh: list = field(default_factory=list)
    #: how many versions were stored before the check (when they were read)
    stored_count: int = 0

    @property
    def project_id(self) -> int:
        return self.row["id"]


def apply_outcome(outcome: FetchOutcome, scheme: VersionScheme, *, now: datetime, interval: timedelta,
                  dry_run: bool = False) -> AppliedCheck:
    """Write *outcome* for its project in one savepoint (inside the caller's transaction, if any)."""
    return apply_outcomes([(outcome, scheme, interval)], now=now, dry_run=dry_run)[0]


def apply_outcomes(checks: Sequence[CheckToApply], *, now: datetime, dry_run: bool = False) -> list[AppliedCheck]:
    """Write the outcomes of *checks* in one savepoint: all of them, or none when one fails.

    A batch that names a project twice is written one check after the other.

    :raises peewee.DoesNotExist: a project is no longer stored.
    """
    ids = [outcome.spec.id for outcome, _scheme, _interval in checks]
    if len(set(ids)) < len(ids):
        return [applied for check in checks for applied in apply_outcomes([check], now=now, dry_run=dry_run)]
    db = Project._meta.database
    with db.atomic() as transaction:
        names = [f.name for f in _READ]
        rows = {row[0]: dict(zip(names, row)) for row in bulk.select_in(Project, _READ, Project.id, ids)}
        missing = [pid for pid in ids if pid not in rows]
        if missing:
            raise Project.DoesNotExist(f"no project with id {missing[0]}")
        plans = [_Plan(outcome, scheme, rows[outcome.spec.id],
                       VersionListing.from_json(rows[outcome.spec.id]["version_listing"], scheme))
                 for outcome, scheme, _interval in checks]
        stored = _stored_versions([plan.project_id for plan in plans if _needs_stored(plan)])
        for plan, (_outcome, _scheme, interval) in zip(plans, checks):
            _work_out(plan, stored.get(plan.project_id, []), now=now, interval=interval)
        bulk.insert_rows(ProjectVersion, _NEW_VERSION, [(plan.project_id, rv.version, rv.commit_url, now)
                                                         for plan in plans for rv in plan.fresh])
        bulk.update_rows(Project, [(plan.project_id, plan.changes) for plan in plans])
        if dry_run:
            transaction.rollback()
        else:
            _announce_new_versions([plan for plan in plans if plan.fresh])
    return [_applied(plan, dry_run) for plan in plans]


def _needs_stored(plan: _Plan) -> bool:
    """Whether the check needs the stored versions: it found some, or the stored listing is not usable."""
    return plan.listing is None or (plan.outcome.error is None and plan.outcome.rate_limit_reset is None
                                    and bool(plan.outcome.versions))


def _stored_versions(project_ids: list[int]) -> dict[int, list[tuple[str, datetime | None]]]:
    """The stored (version, found on) of each project of *project_ids*."""
    found: dict[int, list[tuple[str, datetime | None]]] = {}
    when = ProjectVersion.created_on
    for project_id, raw, created_on in bulk.select_in(
            ProjectVersion, (ProjectVersion.project, ProjectVersion.version, when), ProjectVersion.project,
            project_ids):
        found.setdefault(project_id, []).append((raw, when.python_value(created_on)))
    return found


def _work_out(plan: _Plan, stored_rows: list[tuple[str, datetime | None]], *, now: datetime,
              interval: timedelta) -> None:
    """Fill *plan*'s changes (and new versions) from its outcome and the project's stored versions."""
    outcome, scheme, changes = plan.outcome, plan.scheme, plan.changes
    changes[Project.last_check] = now
    if outcome.rate_limit_reset is not None:
        changes.update({Project.logs: outcome.error, Project.check_successful: False,
                        Project.next_check: _naive_utc(outcome.rate_limit_reset)})
    elif outcome.error is not None:
        changes.update({Project.logs: outcome.error, Project.check_successful: False,
                        Project.error_counter: bulk.INCREMENT, Project.next_check: now + interval})
    else:
        changes.update({Project.check_successful: True, Project.error_counter: 0,
                        Project.next_check: now + interval})
        if outcome.validators is not None:
            changes.update({Project.http_etag: outcome.validators.etag,
                            Project.http_last_modified: outcome.validators.last_modified})
        if outcome.versions or plan.listing is None:
            plan.stored_count = len(stored_rows)
            plan.fresh = new_versions(outcome, [raw for raw, _ in stored_rows], scheme)
            plan.listing = list_versions(scheme, stored_rows + [(rv.version, now) for rv in plan.fresh])
            changes[Project.version_listing] = plan.listing.to_json(scheme)
        changes[Project.logs] = LOG_NEW if plan.fresh else LOG_NOTHING_NEW
        changes[Project.latest_version] = plan.listing.versions[0] if plan.listing.versions else None
        newest = plan.listing.newest_raw
        cursor = next((rv.cursor for rv in outcome.versions if rv.version == newest and rv.cursor), None)
        if cursor:
            changes[Project.latest_version_cursor] = cursor
    if plan.listing is None:  # a failed check of a project whose listing is not stored: compute it to answer
        plan.listing = list_versions(scheme, stored_rows)


def _announce_new_versions(plans: list[_Plan]) -> None:
    """Write ``project.version.update`` and ``.v2`` for the versions each check stored (same transaction)."""
    if not plans:
        return
    packages = messages.packages_of([plan.project_id for plan in plans])
    written = []
    for plan in plans:
        project = Project(**{**plan.row, "latest_version": plan.changes[Project.latest_version]})
        scheme = plan.scheme
        ascending = [scheme.display(raw) for raw in reversed(scheme.newest_first(rv.version for rv in plan.fresh))]
        v1, v2 = messages.versions_found(project, plan.listing, plan.row["latest_version"], ascending,
                                         packages.get(plan.project_id, []))
        written += [("project.version.update", v1, plan.project_id),
                    ("project.version.update.v2", v2, plan.project_id)]
    events.record_many(written)


def _applied(plan: _Plan, dry_run: bool) -> AppliedCheck:
    outcome, scheme, changes, row = plan.outcome, plan.scheme, plan.changes, plan.row
    if not plan.stored_count and len(plan.fresh) == len(outcome.versions):
        found = list(plan.listing.versions)  # the listing was made of exactly the versions found
    else:
        found = list_versions(scheme, [rv.version for rv in outcome.versions]).versions
    fresh_display = [scheme.display(raw) for raw in scheme.newest_first(rv.version for rv in plan.fresh)]
    result = CheckResult(new_versions=fresh_display, found_versions=found, error=outcome.error,
                         rate_limited_until=outcome.rate_limit_reset, dry_run=dry_run)
    spec = outcome.spec
    old_version = row["latest_version"]
    error_counter = row["error_counter"] + 1 if changes.get(Project.error_counter) is bulk.INCREMENT else (
        changes.get(Project.error_counter, row["error_counter"]))
    snapshot = CheckedProject(id=plan.project_id, name=spec.name, homepage=spec.homepage, backend=spec.backend,
                              ecosystem_name=spec.ecosystem_name or spec.homepage,
                              latest_version=changes.get(Project.latest_version, old_version),
                              error_counter=error_counter, check_successful=changes.get(Project.check_successful))
    return AppliedCheck(plan.project_id, result, plan.listing, old_version, snapshot,
                        [rv.version for rv in plan.fresh])
