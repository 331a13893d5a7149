"""The body of each event, as Anitya sends it and the anitya-schema classes validate it.

Every body is ``{"project": <project JSON or null>, "distro": <{"name": ...} or
null>, "message": {...}}``.  The project JSON is Anitya's serialisation of a
project with ``ecosystem`` (see anitya-behaviour §9.4), with ``created_on`` and
``updated_on`` as whole seconds since the epoch, like the HTTP API's.
Package JSON inside messages is ``{"package_name": ..., "distro": ...}``.
"""

from __future__ import annotations

import calendar
import json
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from ..db.models import Distro, Package, Project, ProjectVersion
from ..listing import VersionListing

#: the agent of changes anitrack makes by itself (checks, automatic deletions)
SYSTEM_AGENT = "anitrack"
#: the distribution whose packages get ``fedora_messaging_rpm_<name>`` headers (fedora-messaging's rule)
FEDORA = "Fedora"


def _epoch(value: datetime | str | None) -> float | None:
    if value is None:
        return None
    if isinstance(value, str):  # SQLite text, when a row was read as a dict
        value = datetime.fromisoformat(value)
    return float(calendar.timegm(value.utctimetuple()))


def _versions(project: Project, listing: VersionListing | None) -> tuple[list[str], list[str]]:
    """The project's versions and stable versions as clients see them.

    *listing* when the caller has it; else the stored listing; else (a listing
    no one recomputed since versions changed outside the check engine) the
    raw versions, most recently found first.
    """
    if listing is not None:
        return list(listing.versions), list(listing.stable_versions)
    if project.version_listing:
        try:
            stored = json.loads(project.version_listing)
            return list(stored["versions"]), list(stored["stable_versions"])
        except (ValueError, KeyError, TypeError):
            pass
    raws = [raw for (raw,) in ProjectVersion.select(ProjectVersion.version)
            .where(ProjectVersion.project == project.id)
            .order_by(ProjectVersion.created_on.desc(), ProjectVersion.id.desc()).tuples()]
    return raws, raws


def project_json(project: Project, listing: VersionListing | None = None) -> dict[str, Any]:
    """Anitya's JSON of *project* (with ``ecosystem``, without ``packages``)."""
    versions, stable = _versions(project, listing)
    return {
        "backend": project.backend,
        "created_on": _epoch(project.created_on),
        "ecosystem": project.ecosystem_name,
        "homepage": project.homepage,
        "id": project.id,
        "name": project.name,
        "regex": project.regex,
        "updated_on": _epoch(project.updated_on),
        "version": project.latest_version,
        "version_url": project.version_url,
        "versions": versions,
        "stable_versions": stable,
    }


def packages_json(project_id: int) -> list[dict[str, str]]:
    """Every package mapped to the project, as ``{"package_name", "distro"}``."""
    return packages_of([project_id]).get(project_id, [])


def packages_of(project_ids: list[int]) -> dict[int, list[dict[str, str]]]:
    """:func:`packages_json` of each project of *project_ids* that has packages, in one query."""
    rows = (Package.select(Package.project, Package.package_name, Distro.name).join(Distro)
            .where(Package.project.in_(project_ids)).order_by(Distro.name_key, Package.package_key).tuples())
    found: dict[int, list[dict[str, str]]] = {}
    for project_id, name, distro in rows:
        found.setdefault(project_id, []).append({"package_name": name, "distro": distro})
    return found


def _body(project: dict[str, Any] | None, distro: str | None, message: dict[str, Any]) -> dict[str, Any]:
    return {"project": project, "distro": {"name": distro} if distro is not None else None, "message": message}


def project_add(project: Project, agent: str) -> dict[str, Any]:
    return _body(project_json(project), None, {"agent": agent, "project": project.name})


def project_edit(project: Project, agent: str, diff: dict[str, tuple[Any, Any]]) -> dict[str, Any]:
    """*diff* is ``{field: (old, new)}`` as :func:`anitrack_core.db.projects.update_project` returns it."""
    fields = sorted(diff)
    changes = {field: {"old": diff[field][0], "new": diff[field][1]} for field in fields}
    return _body(project_json(project), None,
                 {"agent": agent, "project": project.name, "fields": fields, "changes": changes})


def project_remove(project_data: dict[str, Any], agent: str) -> dict[str, Any]:
    """*project_data* is the project's JSON, taken before it was deleted."""
    return _body(project_data, None, {"agent": agent, "project": project_data["name"]})


def map_new(project: Project, distro: str, package_name: str, agent: str) -> dict[str, Any]:
    return _body(project_json(project), distro,
                 {"agent": agent, "project": project.name, "distro": distro, "new": package_name})


def distro_add(distro: str, agent: str) -> dict[str, Any]:
    return _body(None, distro, {"agent": agent, "distro": distro})


def map_update(project: Project, distro: str, prev: str, new: str, edited: list[str],
               agent: str) -> dict[str, Any]:
    """A mapping changed: *distro* is its distribution now, *prev*/*new* its package name before/after,
    *edited* what changed (``distribution``, ``package_name``)."""
    return _body(project_json(project), distro,
                 {"agent": agent, "project": project.name, "distro": distro, "prev": prev, "new": new,
                  "edited": edited})


def map_remove(project: Project, distro: str, package_name: str, agent: str) -> dict[str, Any]:
    """A mapping was deleted (``distro`` is null at the top, as Anitya sends it).

    ``package_name`` is an addition to Anitya's message (which names only the distribution),
    so that a consumer and the project's history know which package went.
    """
    return _body(project_json(project), None,
                 {"agent": agent, "project": project.name, "distro": distro, "package_name": package_name})


def project_flag(project: Project, reason: str, agent: str) -> dict[str, Any]:
    return _body(project_json(project), None,
                 {"agent": agent, "project": project.name, "reason": reason,
                  "packages": packages_json(project.id)})


def flag_set(flag_id: int, state: str, project_name: str, agent: str) -> dict[str, Any]:
    """A flag opened or closed (``project`` and ``distro`` are null, as the schema requires).

    ``project`` in the message (the flagged project's name) is an addition to Anitya's message.
    """
    return _body(None, None, {"agent": agent, "flag": flag_id, "state": state, "project": project_name})


def versions_removed(project: Project, versions: list[str], agent: str) -> dict[str, Any]:
    """``project.version.remove.v2``: *versions* (raw, as stored) were deleted; *project* is after."""
    return _body(project_json(project), None, {"agent": agent, "project": project.name, "versions": versions})


def distro_edit(old: str, new: str, agent: str) -> dict[str, Any]:
    return _body(None, old, {"agent": agent, "old": old, "new": new})


def distro_remove(distro: str, agent: str) -> dict[str, Any]:
    return _body(None, distro, {"agent": agent, "distro": distro})


def versions_found(project: Project, listing: VersionListing, old_version: str | None,
                   new_versions: Iterable[str], packages: list[dict[str, str]],
                   agent: str = SYSTEM_AGENT) -> tuple[dict[str, Any], dict[str, Any]]:
    """The bodies of ``project.version.update`` and ``project.version.update.v2`` for one check.

    *project* is the row after the check; *new_versions* are the versions this
    check stored, as users see them, **oldest first**; *old_version* is the
    latest version before the check.  v1 names the new overall latest version
    (which may be older than a new one when a check finds an old release);
    v2 lists every new version.
    """
    data = project_json(project, listing)
    common = {"agent": agent, "project": data, "old_version": old_version or "", "packages": packages,
              "versions": data["versions"], "stable_versions": data["stable_versions"],
              "ecosystem": project.ecosystem_name}
    v1 = {**common, "upstream_version": project.latest_version or "", "odd_change": False}
    v2 = {**common, "upstream_versions": list(new_versions)}
    return _body(data, None, v1), _body(data, None, v2)


def fedora_packages(topic: str, body: dict[str, Any]) -> list[str]:
    """The packages fedora-messaging names in ``fedora_messaging_rpm_<name>`` headers for this event.

    The ``packages`` property of the anitya-schema class of *topic*: the Fedora
    packages of a mapping event or of a v2 version update; none for any other
    event (the deprecated v1 update included).
    """
    message = body.get("message") or {}
    distro = (body.get("distro") or {}).get("name")
    if topic == "project.map.new":
        return [message["new"]] if distro == FEDORA else []
    if topic == "project.map.update":
        return sorted({message["prev"], message["new"]}) if distro == FEDORA else []
    if topic == "project.version.update.v2":
        return [package["package_name"] for package in message.get("packages", []) if package["distro"] == FEDORA]
    return []
