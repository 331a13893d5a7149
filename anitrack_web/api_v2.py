"""API v2: /api/v2/projects/, /api/v2/packages/ and /api/v2/versions/."""

from __future__ import annotations

from typing import Any

from bottle import Bottle, HTTPResponse

from anitrack_core.db import distros, packages, projects
from anitrack_core.db.models import Distro, Package, Project
from anitrack_core.errors import AlreadyExistsError, FieldError
from anitrack_core.resolve import ecosystem_value

from . import queries
from .auth import require_user
from .context import WebContext
from .errors import api_error
from .params import MAX_ID, PAGING, Field, Invalid, read_body, read_query
from .views import iso_utc

PROJECT_FIELDS = [
    *(Field(name, required=name in projects.REQUIRED_FIELDS, nullable=name not in projects.REQUIRED_FIELDS)
      for name in projects.DESCRIPTION_FIELDS),
    Field("insecure", bool, nullable=False),
    Field("check_release", bool, nullable=False),
]
PACKAGE_FIELDS = [Field(name, required=True, nullable=False)
                  for name in ("distribution", "package_name", "project_name", "project_ecosystem")]


def _page_args(extra: list[Field]) -> dict[str, Any]:
    args = read_query([*PAGING, *extra])
    args.setdefault("page", 1)
    args.setdefault("items_per_page", 25)
    return args


def _page(items: list[dict[str, Any]], total: int, args: dict[str, Any]) -> dict[str, Any]:
    return {"items": items, "page": args["page"], "items_per_page": args["items_per_page"],
            "total_items": total}


def add_routes(app: Bottle, ctx: WebContext) -> None:
    """Add the v2 routes to *app*."""

    @app.get(["/api/v2/projects", "/api/v2/projects/"])
    def list_projects() -> dict[str, Any]:
        args = _page_args([Field("ecosystem"), Field("name")])
        ecosystem = ecosystem_value(ctx.plugins, args["ecosystem"]) if args.get("ecosystem") else None
        query = queries.projects_query(name=args.get("name"), ecosystem=ecosystem)
        total, rows = queries.page_of(query, args["page"], args["items_per_page"])
        return _page(ctx.views.v2_items(rows), total, args)

    @app.post("/api/v2/projects/")
    def create_project() -> HTTPResponse:
        user = require_user(allow_query=True)
        fields = read_body(PROJECT_FIELDS)
        check_release = fields.pop("check_release", False)
        try:
            project = projects.create_project(ctx.plugins, agent=user.email, **fields)
        except FieldError as exc:
            raise Invalid({exc.field: str(exc)}) from None
        except AlreadyExistsError as exc:
            existing = getattr(exc, "existing", None)
            body: dict[str, Any] = {"requested_project": {**fields, "id": None}}
            if existing is not None:
                body["project"] = ctx.views.v2_created(queries.project_by_id(existing.id))
            raise api_error(409, str(exc), **body) from None
        if check_release:
            from .api_checks import check_after_create  # the check engine is wired in with it

            check_after_create(ctx, project.id)
        return HTTPResponse(ctx.views.v2_created(queries.project_by_id(project.id)), status=201)

    @app.get(["/api/v2/packages", "/api/v2/packages/"])
    def list_packages() -> dict[str, Any]:
        args = _page_args([Field("distribution"), Field("name")])
        query = (Package.select(Package.package_name, Distro.name.alias("distribution"),
                                Project.id.alias("project_id"), Project.name.alias("project"),
                                Project.ecosystem_name.alias("ecosystem"), Project.latest_version,
                                Project.version_listing,
                                *[getattr(Project, f) for f in ("version_scheme", "backend", "version_prefix",
                                                                "pre_release_filter", "version_filter",
                                                                "version_pattern")])
                 .join_from(Package, Distro).join_from(Package, Project))
        if args.get("distribution"):
            query = query.where(Distro.name_key == args["distribution"].casefold())
        if args.get("name"):
            query = query.where(Package.package_key == args["name"].casefold())
        query = query.order_by(queries.ordered(Package.package_name), queries.ordered(Distro.name_key),
                               Package.id)
        total, rows = queries.page_of(query, args["page"], args["items_per_page"])
        for row in rows:
            row["ecosystem_name"] = row["ecosystem"]
        listings = ctx.views.listings([{**row, "id": row["project_id"]} for row in rows])
        items = [{"distribution": row["distribution"], "name": row["package_name"], "project": row["project"],
                  "ecosystem": row["ecosystem"], "version": row["latest_version"],
                  "stable_version": next(iter(listings[row["project_id"]].stable_versions), None)}
                 for row in rows]
        return _page(items, total, args)

    @app.post("/api/v2/packages/")
    def create_package() -> HTTPResponse:
        user = require_user()
        fields = read_body(PACKAGE_FIELDS)
        project = projects.find_project(fields["project_name"],
                                        ecosystem_value(ctx.plugins, fields["project_ecosystem"]))
        if project is None:
            raise api_error(400, f'Project "{fields["project_name"]}" in ecosystem '
                                 f'"{fields["project_ecosystem"]}" not found')
        distro = distros.find_distro(fields["distribution"])
        if distro is None:
            raise api_error(400, f'Distribution "{fields["distribution"]}" not found')
        try:
            package = packages.map_package(project, distro, fields["package_name"], agent=user.email)
        except FieldError as exc:
            raise Invalid({exc.field: str(exc)}) from None
        except AlreadyExistsError as exc:
            raise api_error(409, str(exc)) from None
        return HTTPResponse({"distribution": distro.name, "name": package.package_name}, status=201)

    @app.get(["/api/v2/versions", "/api/v2/versions/"])
    def project_versions() -> dict[str, Any]:
        args = read_query([Field("project_id", int, required=True, nullable=False, minimum=1,
                                 maximum=MAX_ID)])
        row = queries.project_by_id(args["project_id"])
        if row is None:
            raise api_error(404, "No such project")
        listing = ctx.views.listings([row])[row["id"]]
        return {"latest_version": row["latest_version"], "latest_version_created_on": iso_utc(listing.newest_on),
                "versions": listing.versions, "stable_versions": listing.stable_versions}
