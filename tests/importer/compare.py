"""Comparing what anitrack's API answers with what Anitya's answers, field by field, for every project."""

from __future__ import annotations

from contextlib import contextmanager
from datetime import datetime, timezone
from collections.abc import Iterator
from typing import Any

import requests

PROJECT_FIELDS = ("backend", "created_on", "ecosystem", "homepage", "id", "name", "regex", "stable_versions",
                  "updated_on", "version", "version_url", "versions")
VERSIONS_FIELDS = ("latest_version", "latest_version_created_on", "stable_versions", "versions")


def _get(base: str, path: str, **params: Any) -> Any:
    response = requests.get(base + path, params=params, timeout=10)
    assert response.status_code == 200, (base + path, params, response.status_code, response.text[:300])
    return response.json()


def all_projects(base: str) -> dict[int, dict[str, Any]]:
    found: dict[int, dict[str, Any]] = {}
    page = 1
    while True:
        body = _get(base, "/api/v2/projects/", page=page, items_per_page=250)
        found.update({item["id"]: item for item in body["items"]})
        if page * 250 >= body["total_items"]:
            return found
        page += 1


def _instant(value: str | None) -> datetime | None:
    """Anitya writes naive UTC ISO text, anitrack the same with +00:00: compare the instants."""
    if value is None:
        return None
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def differences(anitya: str, anitrack: str) -> list[tuple[int, str, str, Any, Any]]:
    """``(project id, endpoint, field, Anitya's value, anitrack's value)`` for every field that differs."""
    theirs, ours = all_projects(anitya), all_projects(anitrack)
    out: list[tuple[int, str, str, Any, Any]] = []
    for pid in sorted(set(theirs) | set(ours)):
        if pid not in ours or pid not in theirs:
            out.append((pid, "projects", "(present)", pid in theirs, pid in ours))
            continue
        for field in PROJECT_FIELDS:
            if theirs[pid].get(field) != ours[pid].get(field):
                out.append((pid, "projects", field, theirs[pid].get(field), ours[pid].get(field)))
        a, b = (_get(base, "/api/v2/versions/", project_id=pid) for base in (anitya, anitrack))
        for field in VERSIONS_FIELDS:
            left, right = a.get(field), b.get(field)
            if field == "latest_version_created_on":
                left, right = _instant(left), _instant(right)
            if left != right:
                out.append((pid, "versions", field, left, right))
        a, b = (_get(base, f"/api/project/{pid}") for base in (anitya, anitrack))
        key = lambda p: (p["distro"], p["package_name"])  # noqa: E731
        if sorted(a["packages"], key=key) != sorted(b["packages"], key=key):
            out.append((pid, "v1 project", "packages", a["packages"], b["packages"]))
    return out


@contextmanager
def served_anitrack() -> Iterator[str]:
    """anitrack's app, with the environment's settings, on a free loopback port."""
    from anitrack_core.runtime import load_runtime
    from tests.servers.wsgi import live_wsgi_server
    from anitrack_web import create_app

    runtime = load_runtime()
    try:
        with live_wsgi_server(create_app(runtime)) as base:
            yield base
    finally:
        runtime.db.close_all()
