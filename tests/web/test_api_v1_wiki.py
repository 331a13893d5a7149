"""API v1 through the live server: /api/packages/wiki, and the query budget of every v1 endpoint."""

from __future__ import annotations

import threading

from anitrack_core.db.models import Project

from .test_api_v1 import make_project

# --- GET /api/packages/wiki ----------------------------------------------------------------------------------


def test_wiki_empty(api):
    for path in ("/api/packages/wiki", "/api/packages/wiki/"):
        reply = api.get(path)
        assert reply.status_code == 200
        assert reply.headers["Content-Type"] == "text/plain; charset=utf-8"
        assert reply.text == ""


def test_wiki_one_line_per_mapping(api):
    make_project(api, "subsurface", homepage="https://subsurface-divelog.org", regex="subsurface-([\\d.]+)",
                 packages=(("Fedora", "subsurface"),))
    make_project(api, "geany", homepage="https://www.geany.org", regex="DEFAULT",
                 packages=(("Fedora", "geany"), ("Debian", "geany-ide")))
    make_project(api, "unmapped", regex="DEFAULT")
    make_project(api, "Café", homepage="https://café.example.org", packages=(("fedora-epel", "cafe"),))
    expected = "\n".join([
        "* Café None https://café.example.org",
        "* geany DEFAULT https://www.geany.org",  # once per distribution
        "* geany DEFAULT https://www.geany.org",
        "* subsurface subsurface-([\\d.]+) https://subsurface-divelog.org",
    ])
    for path in ("/api/packages/wiki", "/api/packages/wiki/"):
        reply = api.get(path)
        assert reply.status_code == 200
        assert reply.headers["Content-Type"] == "text/plain; charset=utf-8"
        assert reply.content.decode("utf-8") == expected


def test_wiki_keeps_one_line_per_mapping_when_regex_has_line_breaks(api):
    pid = make_project(api, "multiline", regex="a", packages=(("Fedora", "multiline"),))
    with api.runtime.db.connection_context():
        Project.update(regex="first\nsecond\r\nthird").where(Project.id == pid).execute()
    assert api.get("/api/packages/wiki").text == "* multiline first second third https://example.org/multiline"


# --- bounded number of queries -------------------------------------------------------------------------------


class QueryCounter:
    """Counts the statements the database runs (the server thread included)."""

    def __init__(self, db) -> None:
        self.count = 0
        self._lock = threading.Lock()
        self._execute_sql = db.execute_sql

    def __call__(self, *args, **kwargs):
        with self._lock:
            self.count += 1
        return self._execute_sql(*args, **kwargs)


def _populate(api, first: int, last: int) -> None:
    for number in range(first, last):
        make_project(api, f"proj{number:03d}", packages=(("Fedora", f"pkg{number:03d}"), ("Debian", f"p/{number}")),
                     versions=("1.0", "1.1", "2.0"))


PATHS = ["/api/projects", "/api/projects/?pattern=proj", "/api/projects?pattern=pkg*&distro=fedora",
         "/api/projects?homepage=https://example.org/proj001", "/api/projects/names", "/api/projects/names?pattern=p",
         "/api/distro/names", "/api/packages/wiki", "/api/project/1", "/api/project/Debian/p/1",
         "/api/by_ecosystem/pypi/requests"]


def test_query_count_does_not_grow_with_the_result(api, monkeypatch):
    counter = QueryCounter(api.runtime.db)
    monkeypatch.setattr(api.runtime.db, "execute_sql", counter)

    def costs() -> list[int]:
        found = []
        for path in PATHS:
            before = counter.count
            assert api.get(path).status_code in (200, 404), path
            found.append(counter.count - before)
        return found

    make_project(api, "requests", homepage="https://pypi.org/project/requests", backend="PyPI",
                 packages=(("Fedora", "python-requests"),), versions=("1.0",))
    _populate(api, 1, 3)
    small = costs()
    _populate(api, 3, 40)
    assert costs() == small
    assert max(small) <= 5
