"""Checks over HTTP: POST /api/v2/versions/ and the deprecated POST /api/version/get.

The network part of a check never runs inside a database transaction (a slow
upstream must not hold the write lock); the edit of a stored project and the
check's results are written afterwards, or rolled back for a dry run.
"""

from __future__ import annotations

import logging
from typing import Any

from bottle import Bottle, request
from peewee import fn

from anitrack_core.check.apply import AppliedCheck
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.check.temporary import check_temporary, temporary_spec
from anitrack_core.db import projects
from anitrack_core.db.models import Project
from anitrack_core.errors import AlreadyExistsError, AnitrackError, FieldError

from .auth import require_user
from .context import WebContext
from .errors import api_error
from .params import MAX_ID, Field, Invalid, read_body

log = logging.getLogger(__name__)
EDITABLE = projects.DESCRIPTION_FIELDS
VERSION_CHECK_FIELDS = [Field("id", int, minimum=1, maximum=MAX_ID), *(Field(name) for name in EDITABLE),
                        Field("insecure", bool, nullable=False), Field("releases_only", bool, nullable=False),
                        Field("dry_run", bool, nullable=False)]


class _Rollback(Exception):
    """Raised to undo a validation-only edit."""


def _edited_spec(ctx: WebContext, project: Project, changes: dict[str, Any], *, keep: bool,
                 agent: str | None = None) -> ProjectSpec:
    """Apply *changes* to *project* (validated as any edit), keep them or not; the spec to check."""
    db = Project._meta.database
    try:
        with db.atomic():
            projects.update_project(ctx.plugins, project, agent=agent, **changes)
            spec = ctx.checker.spec_for(project)
            if not keep:
                raise _Rollback
    except _Rollback:
        pass
    except FieldError as exc:
        raise Invalid({exc.field: str(exc)}) from None
    except AlreadyExistsError as exc:
        raise api_error(409, f"cannot apply the edit: {exc}") from None
    return spec


def _find_project(fields: dict[str, Any]) -> Project | None:
    if fields.get("id"):
        project = Project.get_or_none(Project.id == fields["id"])
        if project is None or project.archived:
            raise api_error(404, "No such project")
        return project
    name, homepage = fields.get("name"), fields.get("homepage")
    if not name or not homepage:
        return None
    found = list(Project.select().where((Project.name_key == name.casefold())
                                        & (fn.LOWER(Project.homepage) == homepage.lower())).limit(2))
    if len(found) > 1:
        raise api_error(400, "More than one project found")
    if found and found[0].archived:
        raise api_error(404, "No such project")
    return found[0] if found else None


def _check_stored(ctx: WebContext, project: Project, fields: dict[str, Any], dry_run: bool,
                  agent: str | None = None) -> dict[str, Any]:
    changes = {key: value for key, value in fields.items()
               if key in (*EDITABLE, "insecure", "releases_only") and value not in (None, "")}
    spec = (_edited_spec(ctx, project, changes, keep=not dry_run, agent=agent) if changes
            else ctx.checker.spec_for(project))
    outcome = ctx.checker.fetch(spec)
    applied: AppliedCheck = ctx.checker.apply(outcome, dry_run=dry_run)
    ctx.checker.notify(applied)
    if outcome.error is not None:
        raise api_error(500, f"Error when checking for new version: {outcome.error}")
    listing = applied.listing
    return {"found_versions": applied.result.new_versions,
            "latest_version": listing.versions[0] if listing.versions else None,
            "versions": listing.versions, "stable_versions": listing.stable_versions}


def _check_temporary(ctx: WebContext, fields: dict[str, Any], dry_run: bool) -> dict[str, Any]:
    missing = [key for key in ("name", "homepage", "backend") if not fields.get(key)]
    if missing:
        raise Invalid({key: "Missing data for required field (no stored project matches; a temporary "
                            "project needs name, homepage and backend)." for key in missing})
    if not dry_run:
        raise Invalid({"dry_run": "Cannot be false for a temporary project (nothing is saved for it)."})
    try:
        report = check_temporary(ctx.checker, temporary_spec(fields))
    except FieldError as exc:
        raise Invalid({exc.field: str(exc)}) from None
    if "error" in report:
        raise api_error(500, f"Error when checking for new version: {report['error']}")
    return {"found_versions": report["versions"], **report}


def add_routes(app: Bottle, ctx: WebContext) -> None:

    @app.post("/api/v2/versions/")
    def check_versions() -> dict[str, Any]:
        user = require_user(allow_query=True)
        fields = read_body(VERSION_CHECK_FIELDS)
        dry_run = fields.pop("dry_run", True)
        project = _find_project(fields)
        if project is None:
            return _check_temporary(ctx, fields, dry_run)
        return _check_stored(ctx, project, fields, dry_run, agent=user.email)

    @app.post("/api/version/get")
    def v1_version_get() -> dict[str, Any]:
        raw_id = (request.forms.get("id") or "").strip()
        if not raw_id:
            raise api_error(400, "No project id specified")
        if not raw_id.isdigit() or int(raw_id) > MAX_ID:
            raise api_error(404, "No such project")
        project = Project.get_or_none(Project.id == int(raw_id))
        if project is None:
            raise api_error(404, "No such project")
        if project.archived:
            raise api_error(400, "Project is archived, can't check new versions")
        test = bool(request.forms.get("test"))
        try:
            applied = ctx.checker.check_project(project.id, dry_run=test)
        except AnitrackError as exc:
            raise api_error(400, str(exc)) from None
        if applied.result.error is not None:
            raise api_error(400, applied.result.error)
        return {"versions": applied.result.new_versions}


def check_after_create(ctx: WebContext, project_id: int) -> None:
    """The check that POST /api/v2/projects/ runs with check_release: failures are only logged."""
    applied = ctx.checker.check_project(project_id)
    if applied.result.error is not None:
        log.info("check_release of project %s failed: %s", project_id,
                                         applied.result.error)
