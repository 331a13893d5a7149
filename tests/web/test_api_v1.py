"""API v1 single-project lookups through the live server: by id, by package, by ecosystem.

The helpers here are shared with the other ``test_api_v1_*`` modules.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from anitrack_core.db.distros import add_distro
from anitrack_core.db.models import Project, ProjectVersion
from anitrack_core.db.packages import map_package
from anitrack_core.db.projects import create_project

V1_ITEM_FIELDS = {"backend", "created_on", "homepage", "id", "name", "regex", "updated_on", "version",
                  "version_url", "versions", "stable_versions"}
V1_DETAIL_FIELDS = V1_ITEM_FIELDS | {"packages"}


def make_project(api, name: str, *, homepage: str | None = None, backend: str = "GitHub",
                 packages: tuple[tuple[str, str], ...] = (), versions: tuple[str, ...] = (),
                 **fields) -> int:
    """Create a project (in the homepage's "ecosystem" unless *backend* is PyPI or npmjs); returns its id.

    *packages* are (distro, package name) pairs, the distro created when unknown;
    *versions* are stored raw, the last one becoming the latest version.
    """
    with api.runtime.db.connection_context():
        project = create_project(api.runtime.plugins, name=name, homepage=homepage or f"https://example.org/{name}",
                                 backend=backend, **fields)
        for distro, package_name in packages:
            map_package(project, add_distro(distro)[0], package_name)
        for day, version in enumerate(versions):
            ProjectVersion.create(project=project, version=version, created_on=datetime(2024, 1, 1) + timedelta(day))
        if versions:
            Project.update(latest_version=versions[-1]).where(Project.id == project.id).execute()
    return project.id


def not_found(message: str) -> dict:
    return {"error": message, "output": "notok", "status": 404}


# --- GET /api/project/{project_id} ---------------------------------------------------------------------------


def test_project_by_id(api):
    pid = make_project(api, "geany", homepage="https://www.geany.org", regex="DEFAULT",
                       version_url="https://www.geany.org/Download/Releases",
                       packages=(("Fedora", "geany"), ("Debian", "geany-ide")), versions=("1.0", "2.0rc1", "1.1"),
                       pre_release_filter="rc")
    body = api.get(f"/api/project/{pid}").json()
    reply = api.get(f"/api/project/{pid}/")
    assert reply.status_code == 200 and reply.json() == body
    assert reply.headers["Content-Type"].startswith("application/json")
    assert set(body) == V1_DETAIL_FIELDS
    assert body["id"] == pid and body["name"] == "geany" and body["backend"] == "GitHub"
    assert body["homepage"] == "https://www.geany.org" and body["regex"] == "DEFAULT"
    assert body["version_url"] == "https://www.geany.org/Download/Releases"
    assert body["version"] == "1.1"
    assert body["versions"] == ["2.0rc1", "1.1", "1.0"]
    assert body["stable_versions"] == ["1.1", "1.0"]
    assert isinstance(body["created_on"], float) and isinstance(body["updated_on"], float)
    assert body["packages"] == [{"distro": "Debian", "package_name": "geany-ide"},
                                {"distro": "Fedora", "package_name": "geany"}]


def test_project_by_id_without_packages_or_versions(api):
    pid = make_project(api, "bare")
    body = api.get(f"/api/project/{pid}").json()
    assert body["packages"] == [] and body["versions"] == [] and body["stable_versions"] == []
    assert body["version"] is None and body["regex"] is None and body["version_url"] is None


def test_project_by_id_unknown_is_json_404(api):
    make_project(api, "present")
    for ident in ("999999", "4294967296", "0", "abc", "-1", "+1", "1.5", "1e3", "%D9%A3", "99999999999999999999999999",
                  "9223372036854775808"):
        for slash in ("", "/"):
            reply = api.get(f"/api/project/{ident}{slash}")
            assert reply.status_code == 404, ident
            assert reply.headers["Content-Type"].startswith("application/json")
            assert reply.json() == not_found("no such project")


def test_project_without_id_is_json_404(api):
    reply = api.get("/api/project/")
    assert reply.status_code == 404 and reply.json()["output"] == "notok"


def test_project_by_id_leading_zeros(api):
    pid = make_project(api, "zeros")
    assert api.get(f"/api/project/000{pid}").json()["name"] == "zeros"


# --- GET /api/project/{distro}/{package_name} --------------------------------------------------------------


def test_project_by_package(api):
    pid = make_project(api, "requests", packages=(("Fedora", "python-requests"), ("Debian", "requests")))
    for path in ("/api/project/Fedora/python-requests", "/api/project/Fedora/python-requests/",
                 "/api/project/fEDORA/python-requests", "/api/project/debian/requests/"):
        reply = api.get(path)
        assert reply.status_code == 200, path
        body = reply.json()
        assert set(body) == V1_DETAIL_FIELDS and body["id"] == pid, path
        assert body["packages"] == [{"distro": "Debian", "package_name": "requests"},
                                    {"distro": "Fedora", "package_name": "python-requests"}]


def test_project_by_package_name_with_slashes(api):
    pid = make_project(api, "x-net", packages=(("Fedora", "golang/github.com/x/net"),))
    for path in ("/api/project/Fedora/golang/github.com/x/net", "/api/project/Fedora/golang/github.com/x/net/",
                 "/api/project/Fedora/golang%2Fgithub.com%2Fx%2Fnet"):
        reply = api.get(path)
        assert reply.status_code == 200, path
        assert reply.json()["id"] == pid
    reply = api.get("/api/project/Fedora/golang/github.com/x")
    assert reply.status_code == 404
    assert reply.json() == not_found('No package "golang/github.com/x" found in distro "Fedora"')


def test_project_by_package_special_characters(api):
    pid = make_project(api, "odd", packages=(("Fedora", "c++ café"), ("Fedora", "a_b%c")))
    assert api.get("/api/project/Fedora/c%2B%2B%20caf%C3%A9").json()["id"] == pid
    assert api.get("/api/project/Fedora/a_b%25c").json()["id"] == pid
    assert api.get("/api/project/Fedora/aXbYc").status_code == 404
    assert api.get("/api/project/Fedora/a_b%25").status_code == 404


def test_project_by_package_not_found(api):
    make_project(api, "requests", packages=(("Fedora", "python-requests"),))
    for path, package, distro in [
        ("/api/project/Fedora/Python-Requests", "Python-Requests", "Fedora"),  # package name: exact case
        ("/api/project/Fedora/python-requests-extra/", "python-requests-extra", "Fedora"),
        ("/api/project/Fedora/python-req", "python-req", "Fedora"),  # no prefix match
        ("/api/project/Fedora/python-req*", "python-req*", "Fedora"),  # no wildcard
        ("/api/project/Debian/python-requests", "python-requests", "Debian"),
        ("/api/project/Arch/python-requests", "python-requests", "Arch"),
        ("/api/project/Fedora//", "", "Fedora"),
    ]:
        reply = api.get(path)
        assert reply.status_code == 404, path
        assert reply.json() == not_found(f'No package "{package}" found in distro "{distro}"')


def test_project_by_package_bad_input_is_400(api):
    for path, field in [("/api/project/Fedora/a%00b", "package_name"), ("/api/project/Fed%00ora/ab", "distro"),
                        ("/api/project/Fedora/" + "x" * 5000, "package_name")]:
        reply = api.get(path)
        assert reply.status_code == 400, path
        assert reply.headers["Content-Type"].startswith("application/json")
        body = reply.json()
        assert body["output"] == "notok" and body["status"] == 400 and set(body["message"]) == {field}


# --- GET /api/by_ecosystem/{ecosystem}/{project_name} -------------------------------------------------------


def test_by_ecosystem(api):
    pid = make_project(api, "requests", homepage="https://pypi.org/project/requests", backend="PyPI",
                       packages=(("Fedora", "python-requests"),), versions=("2.0.0",))
    make_project(api, "requests", homepage="https://npmjs.com/requests", backend="npmjs")
    for path in ("/api/by_ecosystem/pypi/requests", "/api/by_ecosystem/pypi/requests/",
                 "/api/by_ecosystem/PyPI/Requests", "/api/by_ecosystem/PYPI/REQUESTS/"):
        reply = api.get(path)
        assert reply.status_code == 200, path
        body = reply.json()
        assert set(body) == V1_DETAIL_FIELDS
        assert body["id"] == pid and body["backend"] == "PyPI" and body["version"] == "2.0.0"
        assert body["packages"] == [{"distro": "Fedora", "package_name": "python-requests"}]


def test_by_ecosystem_not_found(api):
    make_project(api, "requests", homepage="https://pypi.org/project/requests", backend="PyPI")
    for path, name, ecosystem in [
        ("/api/by_ecosystem/pypi/request", "request", "pypi"),
        ("/api/by_ecosystem/pypi/requests*/", "requests*", "pypi"),
        ("/api/by_ecosystem/npm/requests", "requests", "npm"),
        ("/api/by_ecosystem/cargo/requests", "requests", "cargo"),
        ("/api/by_ecosystem/p_pi/requests", "requests", "p_pi"),
    ]:
        reply = api.get(path)
        assert reply.status_code == 404, path
        assert reply.json() == not_found(f'No project "{name}" found in ecosystem "{ecosystem}"')


def test_by_ecosystem_bad_input_is_400(api):
    reply = api.get("/api/by_ecosystem/pypi/re%00quests")
    assert reply.status_code == 400
    assert reply.json()["output"] == "notok" and set(reply.json()["message"]) == {"project_name"}


def test_by_ecosystem_incomplete_path_is_json_404(api):
    for path in ("/api/by_ecosystem/pypi", "/api/by_ecosystem/pypi/", "/api/by_ecosystem/a/b/c"):
        reply = api.get(path)
        assert reply.status_code == 404, path
        assert reply.headers["Content-Type"].startswith("application/json")
        assert reply.json()["output"] == "notok"
