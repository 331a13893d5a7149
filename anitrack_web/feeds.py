"""Atom feeds of new versions: per project, per distribution, per ecosystem, and of all projects.

``/feeds/project/<id>.atom``, ``/feeds/distro/<name>.atom``,
``/feeds/ecosystem/<name>.atom`` and ``/feeds/recent.atom``.  An entry is a
version as anitrack found it (newest first, at most :data:`ENTRIES`), with
the project's own rules applied: versions its version filter hides are left
out, pre-releases are marked with the category ``pre-release`` and left out
with ``?stable=1``.  Feeds are written by feedgen and answered conditionally
(``ETag`` / ``Last-Modified``; a matching request gets 304).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import datetime, timezone
from email.utils import format_datetime, parsedate_to_datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import peewee
from bottle import Bottle, HTTPError, HTTPResponse, request
from feedgen.feed import FeedGenerator

from anitrack_core import core_version
from anitrack_core.db.models import Distro, Package, Project, ProjectVersion
from anitrack_core.resolve import RULE_FIELDS, ecosystem_value

from . import queries

if TYPE_CHECKING:
    from .context import WebContext

#: entries in a feed
ENTRIES = 50
#: rows read at most to fill a feed (hidden versions and, with ?stable=1, pre-releases are skipped)
SCAN_LIMIT = 2000
_BATCH = 200
_COLUMNS = (ProjectVersion.id, ProjectVersion.version, ProjectVersion.created_on, ProjectVersion.commit_url,
            Project.id.alias("project_id"), Project.name, *(getattr(Project, f) for f in RULE_FIELDS))


def _versions(where: peewee.Expression, ctx: WebContext, stable: bool) -> Iterator[dict[str, Any]]:
    """The newest versions matching *where*, as the project's rules show them."""
    seen = 0
    last: tuple[Any, int] | None = None
    while seen < SCAN_LIMIT:
        query = (ProjectVersion.select(*_COLUMNS).join(Project)
                 .where(where & ProjectVersion.created_on.is_null(False)))
        if last is not None:
            query = query.where((ProjectVersion.created_on < last[0])
                                | ((ProjectVersion.created_on == last[0]) & (ProjectVersion.id < last[1])))
        rows = list(query.order_by(ProjectVersion.created_on.desc(), ProjectVersion.id.desc())
                    .limit(_BATCH).dicts())
        for row in rows:
            scheme = ctx.schemes.for_project(row)
            if scheme.is_filtered_out(row["version"]):
                continue
            row["prerelease"] = scheme.is_prerelease(row["version"])
            if stable and row["prerelease"]:
                continue
            row["display"] = scheme.display(row["version"])
            row["found"] = queries.timestamp(row["created_on"]).replace(tzinfo=timezone.utc)
            yield row
        seen += len(rows)
        if len(rows) < _BATCH:
            return
        last = (rows[-1]["created_on"], rows[-1]["id"])


def _feed(ctx: WebContext, *, path: str, page: str, title: str, subtitle: str,
          where: peewee.Expression) -> HTTPResponse:
    base = ctx.runtime.settings.base_url.rstrip("/")
    stable = request.query.get("stable", "").strip().lower() in ("1", "true", "yes")
    rows = []
    for row in _versions(where, ctx, stable):
        rows.append(row)
        if len(rows) == ENTRIES:
            break
    feed = FeedGenerator()
    feed.id(f"{base}{path}")
    feed.title(title)
    feed.subtitle(subtitle)
    feed.author({"name": "anitrack"})
    feed.link(href=f"{base}{path}{'?stable=1' if stable else ''}", rel="self")
    feed.link(href=f"{base}{page}", rel="alternate")
    feed.generator("anitrack", core_version() or "dev")
    updated = rows[0]["found"] if rows else datetime(1970, 1, 1, tzinfo=timezone.utc)
    feed.updated(updated)
    for row in rows:
        entry = feed.add_entry(order="append")
        entry.id(f"{base}/project/{row['project_id']}/#version-{quote(row['version'], safe='')}")
        entry.title(f"{row['name']} {row['display']}{' (pre-release)' if row['prerelease'] else ''}")
        entry.link(href=f"{base}/project/{row['project_id']}/", rel="alternate")
        if row["commit_url"]:
            entry.link(href=row["commit_url"], rel="related")
        entry.updated(row["found"])
        entry.published(row["found"])
        kind = "pre-release" if row["prerelease"] else "version"
        entry.content(f"anitrack found {kind} {row['display']} of {row['name']} "
                      f"on {row['found']:%Y-%m-%d %H:%M} UTC.", type="text")
        if row["prerelease"]:
            entry.category(term="pre-release", label="pre-release")
    body = feed.atom_str(pretty=False)
    etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    headers = {"ETag": etag, "Last-Modified": format_datetime(updated, usegmt=True),
               "Cache-Control": "public, max-age=300"}
    if _not_modified(etag, updated):
        return HTTPResponse(status=304, headers=headers)
    return HTTPResponse(body, status=200, headers={**headers, "Content-Type": "application/atom+xml; charset=utf-8"})


def _not_modified(etag: str, updated: datetime) -> bool:
    given = request.headers.get("If-None-Match")
    if given is not None:
        return etag in [tag.strip() for tag in given.split(",")] or given.strip() == "*"
    since = request.headers.get("If-Modified-Since")
    if since:
        try:
            return updated.replace(microsecond=0) <= parsedate_to_datetime(since)
        except (TypeError, ValueError):
            return False
    return False


def add_routes(app: Bottle, ctx: WebContext) -> None:
    site = ctx.renderer.env.globals.get("site_name", "anitrack")

    @app.get("/feeds/recent.atom")
    def recent_feed() -> HTTPResponse:
        return _feed(ctx, path="/feeds/recent.atom", page="/projects/", title=f"New versions on {site}",
                     subtitle="Versions of every project, newest first.", where=Project.archived == False)  # noqa: E712

    @app.get("/feeds/project/<project_id:int>.atom")
    def project_feed(project_id: int) -> HTTPResponse:
        project = Project.get_or_none(Project.id == project_id)
        if project is None:
            raise HTTPError(404, f"There is no project with the id {project_id}.")
        return _feed(ctx, path=f"/feeds/project/{project_id}.atom", page=f"/project/{project_id}/",
                     title=f"New versions of {project.name}", subtitle=f"Versions of {project.name} ({project.homepage}).",
                     where=Project.id == project_id)

    @app.get("/feeds/distro/<name>.atom")
    def distro_feed(name: str) -> HTTPResponse:
        distro = Distro.get_or_none(Distro.name_key == name.casefold())
        if distro is None:
            raise HTTPError(404, f"There is no distribution named {name!r}.")
        mapped = Package.select(Package.project).where(Package.distro == distro.id)
        return _feed(ctx, path=f"/feeds/distro/{quote(distro.name)}.atom", page=f"/distro/{quote(distro.name)}/",
                     title=f"New versions of {distro.name}'s projects",
                     subtitle=f"Versions of the projects mapped to packages of {distro.name}.",
                     where=Project.id.in_(mapped))

    @app.get("/feeds/ecosystem/<name>.atom")
    def ecosystem_feed(name: str) -> HTTPResponse:
        ecosystem = ctx.plugins.ecosystems.find(name)
        if ecosystem is None:
            raise HTTPError(404, f"There is no ecosystem named {name!r}.")
        stored = ecosystem_value(ctx.plugins, ecosystem.name)
        return _feed(ctx, path=f"/feeds/ecosystem/{quote(ecosystem.name)}.atom",
                     page=f"/projects/?ecosystem={quote(ecosystem.name)}",
                     title=f"New versions in {ecosystem.name}", subtitle=f"Versions of the {ecosystem.name} projects.",
                     where=Project.ecosystem_key == stored.casefold())
