"""Flags: anyone signed in reports a problem with a project (archived ones too: it is how one asks
for a project to be unarchived); administrators work through the queue and close or re-open flags."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from bottle import Bottle, HTTPError, redirect, request

from anitrack_core.db import flags
from anitrack_core.db.models import Project, ProjectFlag
from anitrack_core.errors import FieldError

from ..access import check_csrf, require_admin, require_user
from ..params import MAX_ID
from ..sessions import flash
from .actions import back, both, project_or_404, project_path, sign_in_first, text
from .paging import Pager, page_number

if TYPE_CHECKING:
    from ..context import WebContext

PER_PAGE = 50
STATE_CHOICES = ("open", "closed", "all")


def _flag_or_404(flag_id: str) -> ProjectFlag:
    flag = None
    if flag_id.isdigit() and int(flag_id) <= MAX_ID:
        flag = ProjectFlag.get_or_none(ProjectFlag.id == int(flag_id))
    if flag is None:
        raise HTTPError(404, "There is no such flag.")
    return flag


def add_routes(app: Bottle, ctx: WebContext) -> None:
    def flag_form(project: Project, *, reason: str = "", status: int = 200,
                  errors: dict[str, str] | None = None) -> str:
        return ctx.render("flag_form.html", status=status, project=project, reason=reason, errors=errors or {},
                          reason_max=flags.REASON_MAX)

    @app.get(both("/project/<project_id>/flag"))
    def flag_page(project_id: str) -> str:
        require_user()
        return flag_form(project_or_404(project_id))

    @app.post(both("/project/<project_id>/flag"))
    def flag_project(project_id: str) -> str | None:
        user = require_user()
        check_csrf()
        project = project_or_404(project_id)
        reason = text("reason")
        try:
            flags.flag_project(project, reason, user=user.email)
        except FieldError as exc:
            return flag_form(project, reason=reason, status=400, errors={exc.field: str(exc)})
        flash("Thank you: the project was flagged for the administrators.", "success")
        redirect(project_path(project.id), 303)

    # ---- the administrators' queue ----

    @app.get(both("/flags"))
    def flag_queue() -> str:
        require_admin()
        raw_state = request.query.getunicode("state")
        filters = {"state": "open" if raw_state is None else (raw_state.strip().lower() or "all"),
                   "project": (request.query.getunicode("project") or "").strip(),
                   "user": (request.query.getunicode("user") or "").strip(),
                   "from_date": (request.query.getunicode("from_date") or "").strip()}
        errors: dict[str, str] = {}
        query = ProjectFlag.select(ProjectFlag, Project.id, Project.name, Project.archived).join(Project)
        if filters["state"] not in STATE_CHOICES:
            errors["state"] = "Choose open, closed or all."
        elif filters["state"] != "all":
            query = query.where(ProjectFlag.state == filters["state"])
        if filters["project"]:
            query = query.where(Project.name_key == filters["project"].casefold())
        if filters["user"]:
            query = query.where(ProjectFlag.user == filters["user"])
        if filters["from_date"]:
            try:
                since = datetime.strptime(filters["from_date"], "%Y-%m-%d")
            except ValueError:
                errors["from_date"] = "Give a date as YYYY-MM-DD, e.g. 2026-11-01."
            else:
                query = query.where(ProjectFlag.created_on >= since)
        if errors:
            return ctx.render("flags.html", status=400, flags=[], pager=Pager(1, PER_PAGE, 0), filters=filters,
                              errors=errors)
        pager = Pager(page_number(), PER_PAGE, query.count())
        rows = list(query.order_by(ProjectFlag.created_on.desc(), ProjectFlag.id.desc())
                    .paginate(pager.page, PER_PAGE))
        return ctx.render("flags.html", flags=rows, pager=pager, filters=filters, errors={})

    @app.post(both("/flags/<flag_id>/set/<state>"))
    def set_flag(flag_id: str, state: str) -> None:
        sign_in_first("/flags")
        admin = require_admin()
        check_csrf()
        flag = _flag_or_404(flag_id)
        state = state.lower()
        if state not in flags.STATES:
            raise HTTPError(404, "The state must be open or closed.")
        if flags.set_flag_state(flag, state, agent=admin.email):
            flash(f"Flag {flag.id} is now {state}.", "success")
        else:
            flash(f"Flag {flag.id} was already {state}: nothing changed.", "info")
        back("/flags")
