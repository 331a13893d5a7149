"""API v1 lists through the live server: /api/projects, /api/projects/names and /api/distro/names."""

from __future__ import annotations

import pytest

from anitrack_core.db.distros import add_distro

from .test_api_v1 import V1_ITEM_FIELDS, make_project

EXCLUSIVE = {"error": ["pattern and homepage are mutually exclusive.  Specify only one."], "output": "notok",
             "status": 400}


@pytest.fixture
def catalogue(api):
    """A few projects whose names and package names exercise the pattern rules."""
    make_project(api, "subsurface", packages=(("Fedora", "subsurface"),))
    make_project(api, "geany", packages=(("Fedora", "geany"), ("Debian", "geany")))
    make_project(api, "R2spec", packages=(("Debian", "r2spec"),))
    make_project(api, "python_requests", packages=(("Fedora", "python-requests/sub"),))
    make_project(api, "pythonXrequests")
    make_project(api, "100%pure", homepage="https://pure.example.org/")
    make_project(api, "100Xpure")
    make_project(api, "back\\slash")
    make_project(api, "Café", packages=(("Debian", "CAFÉ-tools"),))
    return api


def names(reply) -> list[str]:
    assert reply.status_code == 200, reply.text
    body = reply.json()
    listed = [item["name"] if isinstance(item, dict) else item for item in body["projects"]]
    assert body["total"] == len(listed)
    return listed


ALL = ["100%pure", "100Xpure", "back\\slash", "Café", "geany", "python_requests", "pythonXrequests", "R2spec",
       "subsurface"]


# --- GET /api/projects ---------------------------------------------------------------------------------------


def test_projects_all_in_documented_order(catalogue):
    for path in ("/api/projects", "/api/projects/"):
        reply = catalogue.get(path)
        assert reply.headers["Content-Type"].startswith("application/json")
        assert names(reply) == ALL
        assert all(set(item) == V1_ITEM_FIELDS for item in reply.json()["projects"])


def test_projects_empty_store(api):
    assert api.get("/api/projects").json() == {"projects": [], "total": 0}
    assert api.get("/api/projects/names/").json() == {"projects": [], "total": 0}


def test_same_name_ordered_by_id(api):
    first = make_project(api, "twin", homepage="https://a.example.org")
    second = make_project(api, "Twin", homepage="https://b.example.org")
    assert [p["id"] for p in api.get("/api/projects", params={"pattern": "twin"}).json()["projects"]] == [first, second]


PATTERN_CASES = [
    ("geany", ["geany"]),                               # no * -> prefix
    ("GE", ["geany"]),                                  # case-insensitive
    ("*e*", ["100%pure", "100Xpure", "geany", "python_requests", "pythonXrequests", "R2spec", "subsurface"]),
    ("*any", ["geany"]),
    ("g*y", ["geany"]),
    ("python_*", ["python_requests"]),                  # _ is literal
    ("python_", ["python_requests"]),
    ("100%", ["100%pure"]),                             # % is literal
    ("100%*e", ["100%pure"]),
    ("back\\", ["back\\slash"]),                        # backslash is literal
    ("café", ["Café"]),                                 # non-ASCII, case-insensitive
    ("CAFÉ-T", ["Café"]),                               # through a package name
    ("python-*", ["python_requests"]),                  # package python-requests/sub
    ("python-requests/", ["python_requests"]),
    ("r2", ["R2spec"]),                                 # name and package match: listed once
    ("nothing", []),
    ("*", ALL),
    ("**geany**", ["geany"]),
]


def test_projects_pattern(catalogue):
    for pattern, expected in PATTERN_CASES:
        assert names(catalogue.get("/api/projects", params={"pattern": pattern})) == expected, pattern
        assert names(catalogue.get("/api/projects/names/", params={"pattern": pattern})) == expected, pattern


def test_projects_listed_once_when_several_packages_match(api):
    make_project(api, "multi", packages=(("Fedora", "multi-a"), ("Debian", "multi-b"), ("Arch", "multi-c")))
    assert names(api.get("/api/projects/", params={"pattern": "multi"})) == ["multi"]
    assert names(api.get("/api/projects/names", params={"pattern": "mul*"})) == ["multi"]


def test_projects_empty_pattern_means_all(catalogue):
    assert names(catalogue.get("/api/projects", params={"pattern": ""})) == ALL


DISTRO_CASES = [
    ({"distro": "fedora"}, ["geany", "python_requests", "subsurface"]),
    ({"distro": "DEBIAN"}, ["Café", "geany", "R2spec"]),
    ({"distro": "Arch"}, []),
    ({"distro": "debian", "pattern": "r2"}, ["R2spec"]),
    ({"distro": "fedora", "pattern": "r2"}, []),
    ({"distro": "fedora", "pattern": "python-*"}, ["python_requests"]),
    ({"distro": "debian", "pattern": "python*"}, []),
    ({"distro": "debian", "pattern": "caf"}, ["Café"]),
    ({"distro": ""}, ALL),
]


def test_projects_distro_filter(catalogue):
    for params, expected in DISTRO_CASES:
        assert names(catalogue.get("/api/projects", params=params)) == expected, params


def test_projects_by_homepage(catalogue):
    get = catalogue.get
    assert names(get("/api/projects", params={"homepage": "https://pure.example.org/"})) == ["100%pure"]
    assert names(get("/api/projects", params={"homepage": "https://pure.example.org"})) == []
    assert names(get("/api/projects/", params={"homepage": "https://PURE.example.org/"})) == []
    assert names(get("/api/projects", params={"homepage": "https://pure.example.org/", "distro": "Fedora"})) \
        == ["100%pure"]
    # present but empty: the homepage branch (no homepage is empty), the pattern is not used
    assert names(get("/api/projects", params={"homepage": "", "pattern": "geany"})) == []


def test_projects_pattern_and_homepage_is_400(catalogue):
    for path in ("/api/projects", "/api/projects/"):
        reply = catalogue.get(path, params={"pattern": "geany", "homepage": "https://example.org/geany"})
        assert reply.status_code == 400
        assert reply.headers["Content-Type"].startswith("application/json")
        assert reply.json() == EXCLUSIVE


def test_projects_bad_input_is_400(api):
    for query in ("pattern=%FF", "pattern=ab%00", "homepage=%C3", "distro=%00", "pattern=" + "a" * 5000):
        for path in ("/api/projects?", "/api/projects/?"):
            reply = api.get(path + query)
            assert reply.status_code == 400, query
            assert reply.headers["Content-Type"].startswith("application/json")
            body = reply.json()
            assert body["output"] == "notok" and body["status"] == 400
            assert set(body["message"]) == {query.split("=")[0]}


# --- GET /api/projects/names ---------------------------------------------------------------------------------


def test_project_names(catalogue):
    for path in ("/api/projects/names", "/api/projects/names/"):
        reply = catalogue.get(path)
        assert reply.headers["Content-Type"].startswith("application/json")
        assert reply.json() == {"projects": ALL, "total": len(ALL)}
        assert catalogue.get(path, params={"pattern": "p*"}).json() \
            == {"projects": ["python_requests", "pythonXrequests"], "total": 2}


def test_project_names_is_always_200(catalogue):
    for query in ("pattern=%FF", "pattern=%00", "pattern=" + "a" * 5000, "pattern=zzz"):
        reply = catalogue.get("/api/projects/names?" + query)
        assert reply.status_code == 200, query
        assert reply.json() == {"projects": [], "total": 0}


# --- GET /api/distro/names -----------------------------------------------------------------------------------


ALL_DISTROS = ["50%", "a_b", "aXb", "Debian", "Fedora", "fedora-epel", "openSUSE", "Ubuntu"]


@pytest.fixture
def distros(api):
    with api.runtime.db.connection_context():
        for name in ("fedora-epel", "openSUSE", "a_b", "aXb", "50%", "Ubuntu"):
            add_distro(name)
    return api


def test_distro_names_all(distros):
    for path in ("/api/distro/names", "/api/distro/names/"):
        reply = distros.get(path)
        assert reply.status_code == 200 and reply.headers["Content-Type"].startswith("application/json")
        assert reply.json() == {"distro": ALL_DISTROS, "total": 8}


DISTRO_PATTERN_CASES = [
    ("fedora", ["Fedora", "fedora-epel"]),
    ("FEDORA", ["Fedora", "fedora-epel"]),
    ("*e*", ["Debian", "Fedora", "fedora-epel", "openSUSE"]),
    ("*n", ["Debian"]),
    ("a_", ["a_b"]),
    ("a_b", ["a_b"]),
    ("5*%", ["50%"]),
    ("%", []),
    ("", ALL_DISTROS),
    ("arch", []),
]


def test_distro_names_pattern(distros):
    for pattern, expected in DISTRO_PATTERN_CASES:
        reply = distros.get("/api/distro/names", params={"pattern": pattern})
        assert reply.json() == {"distro": expected, "total": len(expected)}, pattern


def test_distro_names_bad_input_is_400(api):
    for query in ("pattern=%FF", "pattern=%00", "pattern=" + "a" * 5000):
        reply = api.get("/api/distro/names/?" + query)
        assert reply.status_code == 400, query
        assert reply.json()["output"] == "notok" and set(reply.json()["message"]) == {"pattern"}
