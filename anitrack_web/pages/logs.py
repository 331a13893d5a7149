"""What the checks did and what changed: ``/logs``, ``/failures/``, ``/changes/``; ``/about``.

* ``/logs``: every project's last check (name, when, status, the log text),
  latest first, 25 a page; public here (the existing service asked to sign in).
* ``/failures/``: the projects whose last check failed, latest first.
* ``/changes/``: the latest changes of every project, from their history.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bottle import Bottle, redirect

from anitrack_core.db.history import recent_changes
from anitrack_core.db.models import Project, ProjectChange


from . import browse
from .paging import Pager, page_number

if TYPE_CHECKING:
    from ..context import WebContext

LOGS_PER_PAGE = 25
#: where the existing ``/about`` leads now: the API documentation (anitrack_web.docs.DOCS_PAGE)
ABOUT_TARGET = "/static/docs/api.html"


def add_routes(app: Bottle, ctx: WebContext) -> None:
    def checks_page(*, failures: bool) -> str:
        query = Project.select(*browse.LOG_COLUMNS).where(Project.last_check.is_null(False))
        if failures:
            query = query.where(Project.check_successful == False)  # noqa: E712 (peewee expression)
        pager, rows = browse.page_of_projects(query.order_by(Project.last_check.desc(), Project.id.desc()),
                                              per_page=LOGS_PER_PAGE)
        return ctx.render("logs.html", rows=rows, pager=pager, failures=failures,
                          title="Failing checks" if failures else "Check logs")

    @app.get(["/logs", "/logs/"])
    def logs() -> str:
        return checks_page(failures=False)

    @app.get(["/failures", "/failures/"])
    def failures() -> str:
        return checks_page(failures=True)

    @app.get(["/changes", "/changes/"])
    def changes() -> str:
        pager = Pager(page_number(), browse.PER_PAGE, ProjectChange.select().count())
        found = recent_changes(limit=browse.PER_PAGE, offset=(pager.page - 1) * browse.PER_PAGE)
        return ctx.render("changes.html", pager=pager, changes=[(c, browse.describe(c)) for c in found])

    @app.get(["/about", "/about/"])
    def about() -> None:
        redirect(ABOUT_TARGET, 302)
