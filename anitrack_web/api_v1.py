"""API v1 (deprecated, read-only part): the routes under /api/ that existing clients use.

Every path answers with and without a trailing slash.  POST /api/version/get
(needs the check engine), GET /api and GET /api/version live elsewhere.

Patterns (``pattern`` of /api/projects, /api/projects/names, /api/distro/names)
-----------------------------------------------------------------------------
* ``*`` is the only wildcard (any run of characters); a pattern without ``*``
  is a prefix match (``foo`` means ``foo*``).
* ``_``, ``%`` and ``\\`` are ordinary characters, on SQLite and PostgreSQL alike.
* Matching ignores case (Unicode case folding, on the stored ``*_key`` columns).
* A project matches by its name or by the name of any of its packages (in any
  distribution, or in ``distro`` when that filter is given); each project is
  listed once.
* An empty parameter is treated as absent, except ``homepage`` (present, even
  empty, means "projects whose homepage is exactly this").

Orders (stable, whatever the database)
--------------------------------------
* Projects (/api/projects, /api/projects/names): case-folded name in code-point
  order, then id.
* Distributions (/api/distro/names): case-folded name in code-point order, then id.
* /api/packages/wiki: the project order above, then the case-folded distribution
  name, then the package name (code-point order), then the package id.

Each request costs a fixed number of queries, whatever the size of the answer.
"""

from __future__ import annotations

import re
from typing import Any

import peewee
from bottle import Bottle, response

from anitrack_core.db.models import Distro, Package, Project
from anitrack_core.resolve import ecosystem_value

from . import queries
from .context import WebContext
from .errors import api_error
from .params import MAX_ID, Field, Invalid, read_query

EXCLUSIVE_MESSAGE = "pattern and homepage are mutually exclusive.  Specify only one."
_ID_RE = re.compile(r"[0-9]{1,19}")
_LINE_BREAKS = re.compile(r"[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]+")


def _both(path: str) -> list[str]:
    """*path* and the same path with a trailing slash."""
    return [path, path + "/"]


def _path_arg(name: str, value: str) -> str:
    """A value taken from the URL path, checked like a query value (length, NUL)."""
    return Field(name, nullable=False).convert(value, from_text=True)


def _like(pattern: str) -> str:
    """The LIKE pattern for a user pattern (runs of ``*`` collapsed first)."""
    return queries.like_pattern(re.sub(r"\*{2,}", "*", pattern))


def _in_distro(distro: str) -> Any:
    """``Package.distro`` restricted to the distribution named *distro* (ignoring case)."""
    return Package.distro.in_(Distro.select(Distro.id).where(Distro.name_key == distro.casefold()))


def search_projects(pattern: str | None = None, distro: str | None = None) -> peewee.SelectQuery:
    """Projects whose name or a package name matches *pattern*, optionally only those in *distro*."""
    query = Project.select(*queries.PROJECT_COLUMNS)
    if pattern:
        like = _like(pattern)
        by_name = queries.matches(Project.name_key, like)
        by_package = Package.select(Package.project).where(queries.matches(Package.package_key, like))
        if distro:
            by_name &= Project.id.in_(Package.select(Package.project).where(_in_distro(distro)))
            by_package = by_package.where(_in_distro(distro))
        query = query.where(by_name | Project.id.in_(by_package))
    elif distro:
        query = query.where(Project.id.in_(Package.select(Package.project).where(_in_distro(distro))))
    return query.order_by(queries.ordered(Project.name_key), Project.id)


def project_by_package(distro: str, package_name: str) -> dict[str, Any] | None:
    """The project mapped to *package_name* (exact) of *distro* (ignoring case)."""
    return (Project.select(*queries.PROJECT_COLUMNS).join(Package).join(Distro)
            .where((Distro.name_key == distro.casefold()) & (Package.package_name == package_name))
            .dicts().first())


def project_by_ecosystem(ecosystem: str, name: str) -> dict[str, Any] | None:
    """The project *name* of *ecosystem* (both ignoring case); the oldest when several."""
    return (Project.select(*queries.PROJECT_COLUMNS)
            .where((Project.ecosystem_key == ecosystem.casefold()) & (Project.name_key == name.casefold()))
            .order_by(Project.id).dicts().first())


def _one_line(value: Any) -> str:
    """A wiki column: ``None`` printed as such (as Anitya does), line breaks turned into spaces."""
    return _LINE_BREAKS.sub(" ", str(value))


def wiki_text() -> str:
    """``* <project name> <regex> <homepage>``, one line per package mapping, no final newline."""
    rows = (Package.select(Project.name, Project.regex, Project.homepage)
            .join_from(Package, Project).join_from(Package, Distro)
            .order_by(queries.ordered(Project.name_key), Project.id, queries.ordered(Distro.name_key),
                      queries.ordered(Package.package_name), Package.id)
            .tuples())
    return "\n".join(f"* {_one_line(name)} {_one_line(regex)} {_one_line(homepage)}"
                     for name, regex, homepage in rows)


def _optional(args: dict[str, Any], name: str) -> str | None:
    return args.get(name) or None


def add_routes(app: Bottle, ctx: WebContext) -> None:
    """Add the v1 routes to *app*."""

    @app.get(_both("/api/projects"))
    def projects() -> dict[str, Any]:
        args = read_query([Field("pattern"), Field("homepage"), Field("distro")])
        pattern, homepage = _optional(args, "pattern"), args.get("homepage")
        if pattern and homepage:
            raise api_error(400, [EXCLUSIVE_MESSAGE])
        if homepage is not None:
            query = (Project.select(*queries.PROJECT_COLUMNS).where(Project.homepage == homepage)
                     .order_by(queries.ordered(Project.name_key), Project.id))
        else:
            query = search_projects(pattern, _optional(args, "distro"))
        rows = list(query.dicts())
        return {"projects": ctx.views.v1_items(rows), "total": len(rows)}

    @app.get(_both("/api/projects/names"))
    def project_names() -> dict[str, Any]:
        try:
            pattern = _optional(read_query([Field("pattern")]), "pattern")
        except Invalid:
            # 200 in all cases: a pattern that is not valid text matches no project name
            return {"projects": [], "total": 0}
        names = [name for (name,) in search_projects(pattern).select(Project.name).tuples()]
        return {"projects": names, "total": len(names)}

    @app.get(_both("/api/distro/names"))
    def distro_names() -> dict[str, Any]:
        pattern = _optional(read_query([Field("pattern")]), "pattern")
        query = Distro.select(Distro.name)
        if pattern:
            query = query.where(queries.matches(Distro.name_key, _like(pattern)))
        names = [name for (name,) in query.order_by(queries.ordered(Distro.name_key), Distro.id).tuples()]
        return {"distro": names, "total": len(names)}

    @app.get(_both("/api/packages/wiki"))
    def packages_wiki() -> str:
        text = wiki_text()
        response.content_type = "text/plain; charset=utf-8"
        return text

    @app.get(_both("/api/project/<project_id>"))
    def project(project_id: str) -> dict[str, Any]:
        row = None
        if _ID_RE.fullmatch(project_id) and int(project_id) <= MAX_ID:
            row = queries.project_by_id(int(project_id))
        if row is None:
            raise api_error(404, "no such project")
        return ctx.views.v1_detail(row)

    @app.get("/api/project/<distro>/<package_name:path>")
    def project_of_package(distro: str, package_name: str) -> dict[str, Any]:
        if package_name.endswith("/"):
            package_name = package_name[:-1]
        distro = _path_arg("distro", distro)
        package_name = _path_arg("package_name", package_name)
        row = project_by_package(distro, package_name)
        if row is None:
            raise api_error(404, f'No package "{package_name}" found in distro "{distro}"')
        return ctx.views.v1_detail(row)

    @app.get(_both("/api/by_ecosystem/<ecosystem>/<project_name>"))
    def project_in_ecosystem(ecosystem: str, project_name: str) -> dict[str, Any]:
        ecosystem = _path_arg("ecosystem", ecosystem)
        project_name = _path_arg("project_name", project_name)
        row = project_by_ecosystem(ecosystem_value(ctx.plugins, ecosystem), project_name)
        if row is None:
            raise api_error(404, f'No project "{project_name}" found in ecosystem "{ecosystem}"')
        return ctx.views.v1_detail(row)
