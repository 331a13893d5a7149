"""The lists of projects: all of them (filtered, sorted), the search, the update statuses.

* ``/projects/``: 50 a page; ``?sort=`` one of name, homepage, backend,
  latest, updated (``-`` first for descending; the existing ``name_asc`` /
  ``name_desc``... spellings too); filters ``?q=`` (name, package name,
  homepage or backend contains), ``?ecosystem=``, ``?backend=``, ``?status=``.
* ``/projects/search/?pattern=`` (or ``/projects/search/<pattern>``): the
  existing search, by name or package name, ``*`` a wildcard, ``*pattern*``
  unless ``exact=1``; a single hit named exactly so opens the project.
* ``/projects/updates/<status>``: updated, failed, never_updated or archived,
  with ``?name=`` and ``?log=``; another status is a 400 page naming the valid ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bottle import Bottle, redirect, request
from peewee import fn

from anitrack_core.db.models import Project

from .. import queries
from ..sessions import flash
from . import browse

if TYPE_CHECKING:
    from ..context import WebContext

EXACT_VALUES = ("1", "true", "yes", "on")
#: the update pages: their title, condition, order and extra column
UPDATE_STATUSES: dict[str, dict[str, Any]] = {
    "updated": {"title": "Projects checked successfully", "where": browse.STATUS_FILTERS["updated"],
                "order": lambda: (Project.last_check.desc(), Project.id), "column": "last_check"},
    "failed": {"title": "Projects whose checks fail", "where": browse.STATUS_FILTERS["failed"],
               "order": lambda: (Project.error_counter.desc(), Project.id), "column": "error_counter"},
    "never_updated": {"title": "Projects without any version", "where": browse.STATUS_FILTERS["never"],
                      "order": lambda: (Project.created_on, Project.id), "column": "created_on"},
    "archived": {"title": "Archived projects", "where": browse.STATUS_FILTERS["archived"],
                 "order": lambda: (browse.SORT_KEYS["name"](), Project.id), "column": None},
}


def _both(*paths: str) -> list[str]:
    return [form for path in paths for form in (path, path + "/")]


def search_page(ctx: WebContext, pattern: str, *, distro: Any = None, exact: bool | None = None) -> str:
    """The search results (of one distribution when *distro*), or a redirect to the one exact hit."""
    filters = browse.Filters()
    pattern = filters.text("pattern") if "pattern" in request.query else pattern.strip()
    filters.values["pattern"] = pattern
    if exact is None:
        exact = (request.query.get("exact") or "").lower() in EXACT_VALUES
    sort = filters.choice("sort", browse.SORT_CHOICES, normalise=browse.normal_sort) or "name"
    rows: list[dict[str, Any]] = []
    pager = browse.Pager(1, browse.PER_PAGE, 0)
    if not filters.errors:
        found = browse.search(pattern, exact=exact, distro=distro)
        pager, rows = browse.page_of_projects(browse.sorted_by(found, sort))
        wanted = pattern.replace("*", "").casefold()
        if pager.total == 1 and rows and rows[0]["name"].casefold() == wanted:
            flash("Only one project matches exactly; here it is.", "info")
            redirect(f"/project/{rows[0]['id']}/", 302)
    where = f" in {distro.name}" if distro else ""
    return ctx.render("projects.html", status=filters.status, mode="search", rows=rows, pager=pager,
                      filters=filters.values, errors=filters.errors, sorts=browse.SortLinks(sort),
                      title=f"Projects matching {pattern}{where}" if pattern.strip("*") else f"All projects{where}",
                      action=browse.distro_search_path(distro) if distro else "/projects/search/",
                      distro=distro, exact=exact, pattern=pattern, status_labels=browse.STATUS_LABELS)


def add_routes(app: Bottle, ctx: WebContext) -> None:
    def backend_names() -> list[str]:
        return sorted(ctx.plugins.backends.names(), key=str.casefold)

    def ecosystem_names() -> list[str]:
        return sorted(ctx.plugins.ecosystems.names(), key=str.casefold)

    @app.get(_both("/projects"))
    def projects_page() -> str:
        filters = browse.Filters()
        q = filters.text("q", label="Search text")
        ecosystem = filters.text("ecosystem", label="Ecosystem")
        backend = filters.choice("backend", backend_names(), describe="a backend of the list")
        status = filters.choice("status", browse.STATUS_FILTERS)
        sort = filters.choice("sort", browse.SORT_CHOICES, normalise=browse.normal_sort) or "name"
        rows: list[dict[str, Any]] = []
        pager = browse.Pager(1, browse.PER_PAGE, 0)
        if not filters.errors:
            given = {"like": browse.like_anywhere(q) if q else None,
                     "ecosystem": ecosystem.casefold() if ecosystem else None, "backend": backend or None}
            pager, rows = browse.listed_projects(sort, status, **{k: v for k, v in given.items() if v is not None})
        return ctx.render("projects.html", status=filters.status, mode="all", rows=rows, pager=pager,
                          filters=filters.values, errors=filters.errors, sorts=browse.SortLinks(sort),
                          title="Projects", action="/projects/", backends=backend_names(),
                          ecosystems=ecosystem_names(), status_labels=browse.STATUS_LABELS, distro=None)

    @app.get(_both("/projects/search"))
    def search_by_query() -> str:
        return search_page(ctx, "")

    @app.get(_both("/projects/search/<pattern>"))
    def search_by_path(pattern: str) -> str:
        return search_page(ctx, pattern)

    def updates(status: str) -> str:
        filters = browse.Filters()
        name = filters.text("name", label="Name")
        log = filters.text("log", label="Log text")
        spec = UPDATE_STATUSES.get(status)
        rows: list[dict[str, Any]] = []
        pager = browse.Pager(1, browse.PER_PAGE, 0)
        if spec is None:
            filters.errors["status"] = (f"{status!r} is not a status of the updates pages; use one of: "
                                        f"{', '.join(UPDATE_STATUSES)}.")
        elif not filters.errors:
            query = Project.select(*browse.LOG_COLUMNS).where(spec["where"]())
            if name:
                query = query.where(queries.matches(Project.name_key, browse.like_anywhere(name)))
            if log:
                query = query.where(queries.matches(fn.LOWER(Project.logs), browse.like_anywhere(log)))
            pager, rows = browse.page_of_projects(query.order_by(*spec["order"]()))
        return ctx.render("updates.html", status=filters.status, rows=rows, pager=pager, filters=filters.values,
                          errors=filters.errors, current=status, statuses=UPDATE_STATUSES,
                          spec=spec or {"title": "Project updates", "column": None})

    @app.get(_both("/projects/updates"))
    def updates_default() -> str:
        return updates("updated")

    @app.get(_both("/projects/updates/<status>"))
    def updates_of(status: str) -> str:
        return updates(status)
