"""Adding and editing projects, and checking one now.

* ``/project/new``: the add form.  Its "Test" button checks the unsaved
  project (a dry run, nothing written) and shows the versions found or the
  error, every field kept; "Save" creates it, after a warning listing similar
  projects (same name, or same homepage), with an optional mapping to a
  package of an existing distribution, in one transaction.
* ``/project/<id>/edit``: the same form without the mapping; archived
  projects are for administrators only.
* ``POST /project/<id>/check``: check now, at most ``check_now_limit`` times
  per person in 10 minutes (per server process).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from bottle import Bottle, redirect, request
from peewee import fn

from anitrack_core.check.temporary import check_temporary, temporary_spec
from anitrack_core.db import packages, projects
from anitrack_core.db.models import Distro, Project
from anitrack_core.errors import AlreadyExistsError, AnitrackError, FieldError

from ..access import check_csrf, require_user
from ..queries import ordered
from ..sessions import flash
from .actions import both, checked, not_archived, project_or_404, project_path, sign_in_first, text

if TYPE_CHECKING:
    from anitrack_core.db.models import User

    from ..context import WebContext


@dataclass(frozen=True)
class FormField:
    name: str
    label: str
    kind: str = "text"  # text, url, select, checkbox
    help: str = ""


FIELDS = (
    FormField("name", "Name", help="The project's name upstream."),
    FormField("homepage", "Homepage", "url", help="The project's home page; with the backend, it decides the "
                                                  "ecosystem in which the name must be unique."),
    FormField("backend", "Backend", "select", help="Where to look for versions (see the help on backends below)."),
    FormField("version_url", "Version URL",
              help="The page or identifier the backend reads; some backends require it."),
    FormField("regex", "Regular expression",
              help="For backends reading a page: how to find versions in it (empty: the backend's default)."),
    FormField("version_scheme", "Version scheme", "select", help="How versions are ordered (empty: the default)."),
    FormField("version_pattern", "Version pattern", help="For the calendar scheme: e.g. YYYY.MM.DD."),
    FormField("version_prefix", "Version prefix",
              help="Text to remove from the front of versions (several: separate them with ';')."),
    FormField("pre_release_filter", "Pre-release filter",
              help="Versions containing any of these (separated by ';') are pre-releases."),
    FormField("version_filter", "Version filter", help="Versions containing any of these (separated by ';') are "
                                                       "ignored."),
    FormField("insecure", "Do not verify the upstream's TLS certificate", "checkbox"),
    FormField("releases_only", "Only releases (not tags), for backends that tell them apart", "checkbox"),
)
TEXT_FIELDS = tuple(f.name for f in FIELDS if f.kind != "checkbox")
BOOL_FIELDS = tuple(f.name for f in FIELDS if f.kind == "checkbox")
#: the query parameters that pre-fill the add form
PREFILL = ("name", "homepage", "backend", "version_scheme", "distro", "package_name")
WINDOW = timedelta(minutes=10)


class CheckBudget:
    """At most *limit* checks per person in :data:`WINDOW` (in this process)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._started: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def take(self, who: str, now: float | None = None) -> float | None:
        """Count a check by *who*; None when allowed, else the time (epoch) they may check again."""
        now = time.time() if now is None else now
        with self._lock:
            started = self._started.setdefault(who, deque())
            while started and started[0] <= now - WINDOW.total_seconds():
                started.popleft()
            if len(started) >= self.limit:
                return started[0] + WINDOW.total_seconds()
            started.append(now)
            return None


class _MappingTaken(Exception):
    """The package asked for at creation is mapped already (the creation is rolled back)."""

    def __init__(self, owner: Project | None) -> None:
        super().__init__(owner)
        self.owner = owner


def _form_values(*, with_mapping: bool) -> dict[str, Any]:
    values: dict[str, Any] = {name: text(name) for name in TEXT_FIELDS}
    values.update({name: checked(name) for name in BOOL_FIELDS})
    if with_mapping:
        values.update(distro=text("distro"), package_name=text("package_name"), check_release=checked("check_release"))
    return values


def _project_values(project: Project) -> dict[str, Any]:
    values: dict[str, Any] = {name: getattr(project, name) or "" for name in TEXT_FIELDS}
    values.update({name: bool(getattr(project, name)) for name in BOOL_FIELDS})
    return values


def similar_projects(name: str, homepage: str, limit: int = 10) -> list[Project]:
    """Stored projects with the same name (ignoring case) or the same homepage."""
    condition = Project.name_key == name.casefold()
    if homepage:
        condition |= fn.LOWER(Project.homepage) == homepage.lower()
    return list(Project.select(Project.id, Project.name, Project.homepage, Project.backend, Project.archived)
                .where(condition).order_by(ordered(Project.name_key), Project.id).limit(limit))


def _store_fields(values: dict[str, Any], *, creating: bool) -> dict[str, Any]:
    """The fields to give the store: on creation the non-empty ones, on edit all of them."""
    fields = {name: values[name] for name in TEXT_FIELDS if values[name] or not creating}
    fields.update({name: values[name] for name in BOOL_FIELDS})
    return fields


def add_routes(app: Bottle, ctx: WebContext) -> None:
    budget = CheckBudget(ctx.runtime.settings["check_now_limit"])

    def backends_help() -> list[dict[str, Any]]:
        found = []
        for name in ctx.plugins.backends.names():
            backend = ctx.plugins.backends.get(name)
            found.append({"name": name, "examples": list(getattr(backend, "examples", []) or []),
                          "more_info": getattr(backend, "more_info", None),
                          "default_regex": getattr(backend, "default_regex", None),
                          "required_version_url": bool(getattr(backend, "required_version_url", False))})
        return found

    def form_page(values: dict[str, Any], *, project: Project | None = None, status: int = 200,
                  errors: dict[str, str] | None = None, **extra: Any) -> str:
        distros = [name for (name,) in Distro.select(Distro.name).order_by(ordered(Distro.name_key)).tuples()]
        context = {"report": None, "similar": [], "duplicate": None, "confirm_similar": False, **extra}
        return ctx.render("project_form.html", status=status, project=project, values=values,
                          errors=errors or {}, fields=FIELDS, backends=backends_help(),
                          schemes=ctx.plugins.schemes.names(), distros=distros, **context)

    # ---- add ----

    @app.get(both("/project/new"))
    def new_project_form() -> str:
        require_user()
        values: dict[str, Any] = {name: "" for name in TEXT_FIELDS}
        values.update({name: False for name in BOOL_FIELDS}, distro="", package_name="", check_release=False)
        values["backend"] = "custom"
        for name in PREFILL:
            given = request.query.getunicode(name)
            if given:
                values[name] = given.strip()[:1024]
        return form_page(values)

    @app.post(both("/project/new"))
    def add_project() -> str | None:
        user = require_user()
        check_csrf()
        values = _form_values(with_mapping=True)
        action = text("action", "save")
        if action == "test":
            return test_page(values)
        errors: dict[str, str] = {}
        distro = None
        if values["distro"] or values["package_name"]:
            distro = Distro.get_or_none(Distro.name_key == values["distro"].casefold()) if values["distro"] else None
            if distro is None:
                errors["distro"] = ("Choose the distribution of the package (or leave both empty)."
                                    if not values["distro"] else f"There is no distribution {values['distro']!r}.")
            if not values["package_name"]:
                errors["package_name"] = "Give the package's name in the distribution (or leave both empty)."
        if errors:
            return form_page(values, status=400, errors=errors)
        similar = similar_projects(values["name"], values["homepage"]) if values["name"] else []
        if similar and not checked("confirm_similar"):
            return form_page(values, similar=similar, confirm_similar=True)
        try:
            with Project._meta.database.atomic():
                project = projects.create_project(ctx.plugins, agent=user.email,
                                                  **_store_fields(values, creating=True))
                if distro is not None:
                    try:
                        packages.map_package(project, distro, values["package_name"], agent=user.email)
                    except AlreadyExistsError as exc:
                        raise _MappingTaken(getattr(exc, "existing", None)) from None
        except FieldError as exc:
            return form_page(values, status=400, errors={exc.field: str(exc)})
        except _MappingTaken as exc:
            owner = f" to {exc.owner.name}" if exc.owner is not None else ""
            return form_page(values, status=409, duplicate=exc.owner, errors={
                "package_name": f"{values['package_name']} of {distro.name} is already mapped{owner}; "
                                "nothing was saved."})
        except AlreadyExistsError as exc:
            return form_page(values, status=409, errors={"name": str(exc)}, duplicate=getattr(exc, "existing", None))
        flash(f"Project {project.name} was created.", "success")
        if values["check_release"]:
            flash_check(project.id)
        redirect(project_path(project.id), 303)

    def test_page(values: dict[str, Any]) -> str:
        missing = {name: f"{label} is required for a test." for name, label in
                   (("name", "Name"), ("homepage", "Homepage"), ("backend", "Backend")) if not values[name]}
        if missing:
            return form_page(values, status=400, errors=missing)
        fields = {name: value or None for name, value in values.items() if name in TEXT_FIELDS}
        fields.update({name: values[name] for name in BOOL_FIELDS})
        try:
            report = check_temporary(ctx.checker, temporary_spec(fields))
        except FieldError as exc:
            return form_page(values, status=400, errors={exc.field: str(exc)})
        similar = similar_projects(values["name"], values["homepage"])
        return form_page(values, report=report, similar=similar, confirm_similar=bool(similar))

    # ---- edit ----

    def editable(project_id: str) -> tuple[User, Project]:
        user = require_user()
        project = project_or_404(project_id)
        if project.archived and not user.admin:
            not_archived(project, user, "edit it")
        return user, project

    @app.get(both("/project/<project_id>/edit"))
    def edit_form(project_id: str) -> str:
        _, project = editable(project_id)
        return form_page(_project_values(project), project=project)

    @app.post(both("/project/<project_id>/edit"))
    def edit_project(project_id: str) -> str | None:
        require_user()
        check_csrf()
        user, project = editable(project_id)
        values = _form_values(with_mapping=False)
        try:
            diff = projects.update_project(ctx.plugins, project, agent=user.email,
                                           **_store_fields(values, creating=False))
        except FieldError as exc:
            return form_page(values, project=project_or_404(project_id), status=400, errors={exc.field: str(exc)})
        except AlreadyExistsError as exc:
            return form_page(values, project=project_or_404(project_id), status=409, errors={"name": str(exc)},
                             duplicate=getattr(exc, "existing", None))
        if diff:
            flash(f"Project {project.name} was edited: {', '.join(sorted(diff))} changed.", "success")
        else:
            flash("No changes were made: the form was saved as it was.", "info")
        redirect(project_path(project.id), 303)

    # ---- check now ----

    def flash_check(project_id: int) -> None:
        try:
            applied = ctx.checker.check_project(project_id)
        except AnitrackError as exc:
            flash(f"The check failed: {exc}", "error")
            return
        result = applied.result
        if result.error is not None:
            flash(f"The check failed: {result.error}", "error")
        elif result.new_versions:
            flash(f"New version{'s' if len(result.new_versions) > 1 else ''} found: "
                  f"{', '.join(result.new_versions)}.", "success")
        else:
            flash("The check found no new version.", "info")

    @app.post(both("/project/<project_id>/check"))
    def check_now(project_id: str) -> None:
        sign_in_first(project_path(project_id))
        user = require_user()
        check_csrf()
        project = project_or_404(project_id)
        not_archived(project, user, "check it (archived projects are not checked)")
        again = budget.take(str(user.id))
        if again is not None:
            when = datetime.fromtimestamp(again, timezone.utc).strftime("%H:%M:%S UTC")
            flash(f"You have started {budget.limit} checks in the last 10 minutes; you may check again at "
                  f"{when}.", "error")
        else:
            flash_check(project.id)
        redirect(project_path(project.id), 303)
