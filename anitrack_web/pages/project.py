"""The project page: what is tracked, the versions newest first, the mappings, the checks, the history.

``/project/<id>/`` by id; ``/project/<name>/`` looks the name up exactly, as a
project name or a package name: one hit shows that project, several the search
results, none a 404 page.  The page costs a fixed number of queries (the
project, its packages, its versions, its open flags, its history), whatever
the number of each; the order of the versions comes from the project's
stored listing (:mod:`anitrack_core.listing`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from bottle import Bottle, HTTPError

from anitrack_core.db.history import project_history
from anitrack_core.db.models import Distro, Package, Project, ProjectFlag, ProjectVersion

from .. import queries
from ..sessions import current_user
from . import browse
from .projects import search_page

if TYPE_CHECKING:
    from ..context import WebContext

#: the timeline draws at most this many versions (the most recently found)
TIMELINE_MAX = 40
_WIDTH, _LEFT, _RIGHT = 640, 16, 624


@dataclass(frozen=True)
class VersionRow:
    shown: str
    raw: str
    found_on: datetime | None
    prerelease: bool
    hidden: bool
    commit_url: str | None


def package_links(setting: list[str]) -> dict[str, str]:
    """``{case-folded distribution name: URL template}`` from the ``web.package_links`` entries."""
    links = {}
    for entry in setting:
        distro, _, template = entry.partition("=")
        links[distro.strip().casefold()] = template.strip()
    return links


def timeline(versions: list[VersionRow]) -> dict[str, Any] | None:
    """Where to draw each dated version on the release timeline, or None with fewer than two dates."""
    dated = sorted((v for v in versions if v.found_on and not v.hidden), key=lambda v: v.found_on)[-TIMELINE_MAX:]
    if len(dated) < 2:
        return None
    start, end = dated[0].found_on, dated[-1].found_on
    span = (end - start).total_seconds() or 1.0
    points = [{"x": round(_LEFT + (_RIGHT - _LEFT) * (v.found_on - start).total_seconds() / span, 1),
               "version": v, "label": None, "anchor": "middle"} for v in dated]
    _place_labels(points)
    return {"points": points, "start": start, "end": end, "width": _WIDTH}


#: the least distance between two labels on the timeline, and how many labels at most
_LABEL_GAP = 56
_LABELS = 6


def _place_labels(points: list[dict[str, Any]]) -> None:
    """Label the newest point, then older ones where a label fits without overlapping; a label also
    counts the unlabelled versions drawn nearest to it ("2.1 (+2 more)")."""
    labelled: list[dict[str, Any]] = []
    for point in reversed(points):
        if len(labelled) < _LABELS and all(abs(point["x"] - other["x"]) >= _LABEL_GAP for other in labelled):
            labelled.append(point)
    if not labelled:
        return
    more = {id(point): 0 for point in labelled}
    for point in points:
        if id(point) not in more:
            more[id(min(labelled, key=lambda other: abs(other["x"] - point["x"])))] += 1
    for point in labelled:
        extra = more[id(point)]
        point["label"] = point["version"].shown + (f" (+{extra} more)" if extra else "")
        x = point["x"]
        point["anchor"] = "start" if x - _LEFT < 40 else ("end" if _RIGHT - x < 40 else "middle")


PROJECT = browse.Prepared(lambda pid: Project.select().where(Project.id == pid), pid=int)
PACKAGES = browse.Prepared(
    lambda pid: (Package.select(Package.id, Distro.name, Package.package_name).join(Distro)
                 .where(Package.project == pid)
                 .order_by(queries.ordered(Distro.name_key), queries.ordered(Package.package_name))),
    pid=int)
VERSIONS = browse.Prepared(
    lambda pid: (ProjectVersion.select(ProjectVersion.version, ProjectVersion.created_on, ProjectVersion.commit_url)
                 .where(ProjectVersion.project == pid)),
    pid=int)
OPEN_FLAGS = browse.Prepared(
    lambda pid: (ProjectFlag.select(ProjectFlag.id, ProjectFlag.reason, ProjectFlag.user, ProjectFlag.created_on)
                 .where((ProjectFlag.project == pid) & (ProjectFlag.state == "open"))
                 .order_by(ProjectFlag.id.desc())),
    pid=int)


def add_routes(app: Bottle, ctx: WebContext) -> None:
    links = package_links(ctx.runtime.settings["web.package_links"])

    def package_url(distro: str, package: str) -> str | None:
        template = links.get(distro.casefold())
        return template.replace("{package}", quote(package, safe="/")) if template else None

    def versions_of(row: dict[str, Any]) -> list[VersionRow]:
        """The versions newest first (the stored listing's order), then the hidden ones (one query)."""
        scheme = ctx.schemes.for_project(row)
        listing = ctx.views.listings([row])[row["id"]]
        stable = set(listing.stable_versions)
        found = VERSIONS.tuples(pid=row["id"])
        by_shown: dict[str, tuple[str, Any, Any]] = {}
        hidden = []
        for raw, created_on, commit_url in found:
            if scheme.is_filtered_out(raw):
                hidden.append(VersionRow(scheme.display(raw), raw, queries.timestamp(created_on), False, True,
                                         commit_url))
            else:
                by_shown.setdefault(scheme.display(raw), (raw, created_on, commit_url))
        shown = []
        for text in listing.versions:
            raw, created_on, commit_url = by_shown.get(text, (text, None, None))
            shown.append(VersionRow(text, raw, queries.timestamp(created_on), text not in stable, False, commit_url))
        return shown + sorted(hidden, key=lambda v: v.raw)

    def project_page(row: dict[str, Any]) -> str:
        user = current_user()
        admin = bool(user and user.admin)
        project_id = row["id"]
        packages = PACKAGES.tuples(pid=project_id)
        mappings = [{"id": pid, "distro": distro, "package": name, "url": package_url(distro, name),
                     "delete_path": f"/project/{project_id}/delete/{quote(distro, safe='')}/{quote(name, safe='/')}"}
                    for pid, distro, name in packages]
        versions = versions_of(row)
        flags = browse.with_times(OPEN_FLAGS.dicts(pid=project_id))
        history = [(change, browse.describe(change)) for change in project_history(project_id, limit=50)]
        visible = [v for v in versions if not v.hidden]
        newest = visible[0] if visible else None
        return ctx.render("project.html", project=row, admin=admin, mappings=mappings,
                          versions=versions if admin else visible, newest=newest, flags=flags, history=history,
                          timeline=timeline(versions), quote=quote,
                          backend_known=ctx.plugins.backends.find(row["backend"]) is not None)

    def by_name(name: str) -> str:
        query = browse.search(name, exact=True)
        found = list(query.select(Project.id).limit(2).tuples())
        if len(found) == 1:
            return project_page(browse.with_times(PROJECT.dicts(pid=found[0][0]))[0])
        if not found:
            raise HTTPError(404, f"There is no project or package named {name}.")
        return search_page(ctx, name, exact=True)

    @app.get(["/project/<key>", "/project/<key>/"])
    def project(key: str) -> str:
        if key.isdigit() and len(key) < 19:
            found = browse.with_times(PROJECT.dicts(pid=int(key)))
            if not found:
                raise HTTPError(404, f"There is no project {key}.")
            return project_page(found[0])
        return by_name(key)
