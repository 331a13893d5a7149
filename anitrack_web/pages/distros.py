"""The distributions: their list, the projects mapped in one, and the search within one.

``/distros/`` (50 a page, with the number of packages of each),
``/distro/<name>/`` (its projects, sortable like the projects page),
``/distro/<name>/search/?pattern=`` (the search of the projects page, within the
distribution).  An unknown distribution is a 404 page; names ignore case.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bottle import Bottle, HTTPError
import peewee
from peewee import fn

from anitrack_core.db.models import Distro, Package

from .. import queries
from . import browse
from .paging import Pager, page_number
from .projects import search_page

if TYPE_CHECKING:
    from ..context import WebContext


def _distro_or_404(name: str) -> Distro:
    distro = Distro.get_or_none(Distro.name_key == name.strip().casefold())
    if distro is None:
        raise HTTPError(404, f"There is no distribution named {name}.")
    return distro


def add_routes(app: Bottle, ctx: WebContext) -> None:
    @app.get(["/distros", "/distros/"])
    def distros_page() -> str:
        filters = browse.Filters()
        q = filters.text("q", label="Name")
        query = Distro.select(Distro.id, Distro.name, Distro.created_on)
        if q:
            query = query.where(queries.matches(Distro.name_key, browse.like_anywhere(q)))
        rows: list[dict[str, Any]] = []
        pager = Pager(1, browse.PER_PAGE, 0)
        if not filters.errors:
            pager = Pager(page_number(), browse.PER_PAGE, query.count())
            counts = (Package.select(Package.distro, fn.COUNT(Package.id).alias("packages"))
                      .group_by(Package.distro).alias("counts"))
            page = (query.select_extend(fn.COALESCE(counts.c.packages, 0).alias("packages"))
                    .join(counts, peewee.JOIN.LEFT_OUTER, on=(counts.c.distro_id == Distro.id))
                    .order_by(queries.ordered(Distro.name_key), Distro.id).paginate(pager.page, browse.PER_PAGE))
            rows = queries.rows(page)
        return ctx.render("distros.html", status=filters.status, rows=rows, pager=pager, filters=filters.values,
                          errors=filters.errors)

    @app.get(["/distro/<name>", "/distro/<name>/"])
    def distro_page(name: str) -> str:
        distro = _distro_or_404(name)
        filters = browse.Filters()
        sort = filters.choice("sort", browse.SORT_CHOICES, normalise=browse.normal_sort) or "name"
        rows: list[dict[str, Any]] = []
        pager = Pager(1, browse.PER_PAGE, 0)
        if not filters.errors:
            pager, rows = browse.listed_projects(sort, distro=distro.id)
        return ctx.render("projects.html", status=filters.status, mode="distro", rows=rows, pager=pager,
                          filters=filters.values, errors=filters.errors, sorts=browse.SortLinks(sort),
                          title=f"Projects packaged in {distro.name}", action=browse.distro_search_path(distro),
                          distro=distro, exact=False, pattern="", status_labels=browse.STATUS_LABELS)

    @app.get(["/distro/<name>/search", "/distro/<name>/search/"])
    def distro_search(name: str) -> str:
        return search_page(ctx, "", distro=_distro_or_404(name))

    @app.get(["/distro/<name>/search/<pattern>", "/distro/<name>/search/<pattern>/"])
    def distro_search_by_path(name: str, pattern: str) -> str:
        return search_page(ctx, pattern, distro=_distro_or_404(name))
