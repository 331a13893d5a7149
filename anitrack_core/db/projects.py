"""Creating, changing and finding projects, with the interface's rules applied.

The ecosystem rule: whenever a project's backend or homepage is set, its
``ecosystem_name`` becomes the name of the ecosystem whose default backend is
the project's backend, or else the homepage.  Within a registered ecosystem a
project name is unique (ignoring case), which the database enforces.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import peewee

from .. import events
from ..errors import AlreadyExistsError, FieldError
from ..events import messages
from ..listing import SchemeCache, list_versions
from ..resolve import assign_ecosystem, scheme_for, validate_project
from .listings import refresh_listings
from .models import Project, ProjectVersion, utcnow

if TYPE_CHECKING:
    from ..plugins import Plugins

#: fields that may be set, with their maximum length (None: boolean); who may set ``archived``
#: (administrators) is the caller's rule
EDITABLE_FIELDS: dict[str, int | None] = {
    "name": 200,
    "homepage": 1024,
    "backend": 200,
    "version_url": 1024,
    "version_scheme": 50,
    "version_pattern": 200,
    "version_prefix": 1024,
    "pre_release_filter": 4096,
    "version_filter": 4096,
    "regex": 4096,
    "insecure": None,
    "releases_only": None,
    "archived": None,
}
REQUIRED_FIELDS = ("name", "homepage", "backend")
#: the fields that describe where and how to find a project's versions (what clients send and a dry run
#: checks): the text fields above; the API's lists are made from it
DESCRIPTION_FIELDS = tuple(key for key, limit in EDITABLE_FIELDS.items() if limit is not None)
#: fields whose change alters how the project's versions are listed
LISTING_FIELDS = {"backend", "ecosystem_name", "version_scheme", "version_prefix", "pre_release_filter",
                  "version_filter", "version_pattern"}


def _clean(fields: dict[str, Any]) -> dict[str, Any]:
    """Check types and lengths; strip strings; empty optional strings become None."""
    unknown = sorted(set(fields) - set(EDITABLE_FIELDS))
    if unknown:
        raise FieldError(unknown[0], f"unknown project field(s): {', '.join(unknown)}")
    clean: dict[str, Any] = {}
    for key, value in fields.items():
        limit = EDITABLE_FIELDS[key]
        if limit is None:
            if not isinstance(value, bool):
                raise FieldError(key, f"{key} must be true or false")
            clean[key] = value
            continue
        if value is not None and not isinstance(value, str):
            raise FieldError(key, f"{key} must be a string")
        value = value.strip() if isinstance(value, str) else None
        if value and len(value) > limit:
            raise FieldError(key, f"{key} is too long ({len(value)} characters, at most {limit})")
        if key in REQUIRED_FIELDS and not value:
            raise FieldError(key, f"{key} is required")
        clean[key] = value or None
    return clean


def _validate(plugins: Plugins, project: Project) -> None:
    """Canonicalise backend and scheme names and check the version rules (:func:`validate_project`)."""
    for key, value in validate_project(plugins, project).items():
        setattr(project, key, value)


def _apply_ecosystem(plugins: Plugins, project: Project) -> None:
    assignment = assign_ecosystem(plugins, project.backend, project.homepage)
    project.ecosystem_name = assignment.name
    project.ecosystem_key = assignment.name.casefold()
    project.in_ecosystem = assignment.registered


def create_project(plugins: Plugins, *, agent: str | None = None, **fields: Any) -> Project:
    """Validate *fields* and create the project; announces ``project.add`` by *agent*.

    :raises AnitrackError: a field is missing, malformed or names an unknown
        backend or scheme (the message names the field).
    :raises AlreadyExistsError: the name is taken in the project's ecosystem;
        ``exc.existing`` is that project.
    """
    missing = [key for key in REQUIRED_FIELDS if key not in fields]
    if missing:
        raise FieldError(missing[0], f"{missing[0]} is required")
    clean = _clean(fields)
    project = Project(**clean)
    project.name_key = project.name.casefold()
    _validate(plugins, project)
    _apply_ecosystem(plugins, project)
    now = utcnow()
    project.created_on = project.updated_on = project.next_check = now
    scheme = scheme_for(plugins, project)
    project.version_listing = list_versions(scheme, []).to_json(scheme)
    with Project._meta.database.atomic():
        _save_or_conflict(project, insert=True)
        events.record("project.add", messages.project_add(project, agent or events.SYSTEM_AGENT),
                      project_id=project.id)
    return project


def update_project(plugins: Plugins, project: Project, *, agent: str | None = None,
                   **changes: Any) -> dict[str, tuple[Any, Any]]:
    """Apply *changes*; returns ``{field: (old, new)}`` for the fields that changed.

    A change is announced as ``project.edit`` by *agent*, in the same
    transaction (a caller that rolls the edit back, a dry run, announces nothing).
    Archiving is an edit like any other (``archived=True``; who may do it is
    the caller's rule); it changes nothing else.
    """
    clean = _clean(changes)
    before = {key: getattr(project, key) for key in (*clean, "ecosystem_name")}
    for key, value in clean.items():
        setattr(project, key, value)
    project.name_key = project.name.casefold()
    _validate(plugins, project)
    if "backend" in clean or "homepage" in clean or not project.ecosystem_name:
        _apply_ecosystem(plugins, project)
    diff = {key: (old, getattr(project, key)) for key, old in before.items() if getattr(project, key) != old}
    if diff:
        project.updated_on = utcnow()
        with Project._meta.database.atomic():
            _save_or_conflict(project, insert=False)
            if LISTING_FIELDS & set(diff):
                refresh_listings(SchemeCache(plugins), [project.id])
                project.version_listing = Project.get_by_id(project.id).version_listing
            events.record("project.edit", messages.project_edit(project, agent or events.SYSTEM_AGENT, diff),
                          project_id=project.id)
    return diff


def _save_or_conflict(project: Project, *, insert: bool) -> None:
    try:
        with Project._meta.database.atomic():
            project.save(force_insert=insert)
    except peewee.IntegrityError:
        existing = find_project(project.name, project.ecosystem_name)
        error = AlreadyExistsError(
            f"a project named {project.name!r} already exists in ecosystem {project.ecosystem_name!r}")
        error.existing = existing  # type: ignore[attr-defined]
        raise error from None


def find_project(name: str, ecosystem: str) -> Project | None:
    """The project named *name* in *ecosystem* (both ignoring case), the oldest if several."""
    return (Project.select()
            .where((Project.name_key == name.strip().casefold())
                   & (Project.ecosystem_key == ecosystem.strip().casefold()))
            .order_by(Project.id).first())


def delete_project(project: Project, *, agent: str | None = None) -> None:
    """Delete *project*; the database deletes its versions, packages and flags with it.

    Announced as ``project.remove`` by *agent*, in the same transaction.
    """
    data = messages.project_json(project)  # read before the transaction, which then starts with its write
    with Project._meta.database.atomic():
        project.delete_instance()
        events.record("project.remove", messages.project_remove(data, agent or events.SYSTEM_AGENT),
                      project_id=project.id)


def delete_versions(plugins: Plugins, project: Project, versions: list[str] | None = None, *,
                    agent: str | None = None) -> list[str]:
    """Delete *versions* of *project* (raw strings as stored; None: every version); returns those deleted.

    The latest version and the stored listing are recomputed, and the
    upstream validators and cursor forgotten (so the next check reads the
    upstream afresh).  Announced as one ``project.version.remove.v2`` by
    *agent* naming the deleted versions (see docs/events.md for why the
    deprecated ``project.version.remove`` is not sent); nothing deleted,
    nothing announced.
    """
    query = ProjectVersion.select(ProjectVersion.id, ProjectVersion.version).where(
        ProjectVersion.project == project.id)
    if versions is not None:
        query = query.where(ProjectVersion.version.in_(list(versions)))
    found = list(query.order_by(ProjectVersion.created_on, ProjectVersion.id).tuples())
    if not found:
        return []
    deleted = [version for _, version in found]
    with Project._meta.database.atomic():
        ProjectVersion.delete().where(ProjectVersion.id.in_([row_id for row_id, _ in found])).execute()
        refresh_listings(SchemeCache(plugins), [project.id])
        fresh = Project.get_by_id(project.id)
        listing = json.loads(fresh.version_listing) if fresh.version_listing else {}
        shown = listing.get("versions") or []
        latest = shown[0] if shown else None
        changes = {Project.latest_version: latest, Project.updated_on: utcnow()}
        if latest != fresh.latest_version:
            changes.update({Project.latest_version_cursor: None, Project.http_etag: None,
                            Project.http_last_modified: None})
        Project.update(changes).where(Project.id == project.id).execute()
        fresh = Project.get_by_id(project.id)
        events.record("project.version.remove.v2",
                      messages.versions_removed(fresh, deleted, agent or events.SYSTEM_AGENT),
                      project_id=project.id)
    for name in ("latest_version", "latest_version_cursor", "http_etag", "http_last_modified", "version_listing",
                 "updated_on"):
        setattr(project, name, getattr(fresh, name))
    return deleted
