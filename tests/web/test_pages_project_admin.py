"""Administrators: deleting and archiving projects, deleting versions, over HTTP."""

import pytest
import requests

from anitrack_core.db.models import Project, ProjectVersion

from .actions_helpers import events, get, last_event, post, token
from .helpers import add_project, count_rows
from .pages import text_of


@pytest.fixture
def foo(api):
    return add_project(api, name="foo", homepage="https://foo.example/", versions=["1.0", "1.1", "2.0"],
                       latest="2.0", packages_=[("Fedora", "python-foo")], version_filter="rc")


ACTIONS = ["/project/{pid}/delete", "/project/{pid}/delete/versions", "/project/{pid}/delete/1.0",
           "/project/{pid}/archive/set/true"]


@pytest.mark.parametrize("path", ACTIONS)
def test_only_administrators_may(api, clients, foo, path):
    path = path.format(pid=foo)
    before = last_event(api)
    assert post(clients["user"], api, path, {"csrf_token": token(clients["user"], api)}).status_code == 403
    assert "/login/" in post(requests, api, path).headers["Location"]
    assert post(clients["admin"], api, path, {}).status_code == 400, "no CSRF token"
    if "archive" not in path:
        assert get(clients["user"], api, path).status_code == 403
    assert last_event(api) == before and count_rows(api, ProjectVersion) == 3


@pytest.mark.parametrize("path", ACTIONS)
def test_unknown_projects_are_404(api, clients, path):
    path = path.format(pid=999)
    assert post(clients["admin"], api, path, {"csrf_token": token(clients["admin"], api)}).status_code == 404


def test_deleting_a_project_after_confirming(api, clients, foo):
    admin = clients["admin"]
    page = get(admin, api, f"/project/{foo}/delete")
    assert page.status_code == 200
    text = text_of(page.text)
    assert "Fedora: python-foo" in text and "Latest version: 2.0 (3 versions stored)" in text
    before = last_event(api)
    answer = post(admin, api, f"/project/{foo}/delete", {"csrf_token": token(admin, api)})
    assert answer.status_code == 303 and answer.headers["Location"].endswith("/projects/")
    (row,) = events(api, before)
    assert row["topic"] == "project.remove" and row["body"]["message"]["agent"] == "root@example.org"
    assert count_rows(api, Project) == 0


def test_archiving_changes_archived_only_and_says_so(api, clients, foo):
    admin = clients["admin"]
    csrf = token(admin, api)
    before = last_event(api)
    answer = post(admin, api, f"/project/{foo}/archive/set/true", {"csrf_token": csrf})
    assert answer.status_code == 303 and answer.headers["Location"].endswith(f"/project/{foo}/")
    post(admin, api, f"/project/{foo}/archive/set/TRUE", {"csrf_token": csrf})
    (row,) = events(api, before)
    assert row["topic"] == "project.edit"
    assert row["body"]["message"]["changes"] == {"archived": {"old": False, "new": True}}
    with api.runtime.db.connection_context():
        project = Project.get_by_id(foo)
        assert project.archived and project.version_filter == "rc"
    assert post(admin, api, f"/project/{foo}/archive/set/false", {"csrf_token": csrf}).status_code == 303
    assert len(events(api, before)) == 2
    assert post(admin, api, f"/project/{foo}/archive/set/maybe", {"csrf_token": csrf}).status_code == 404


def test_deleting_one_version_recomputes_the_latest(api, clients, foo):
    admin = clients["admin"]
    assert get(admin, api, f"/project/{foo}/delete/9.9").status_code == 404
    assert "2.0" in text_of(get(admin, api, f"/project/{foo}/delete/2.0/").text)
    before = last_event(api)
    answer = post(admin, api, f"/project/{foo}/delete/2.0", {"csrf_token": token(admin, api)})
    assert answer.status_code == 303
    (row,) = events(api, before)
    assert row["topic"] == "project.version.remove.v2" and row["body"]["message"]["versions"] == ["2.0"]
    assert row["body"]["project"]["version"] == "1.1"
    listing = api.get("/api/v2/versions/", params={"project_id": foo}).json()
    assert listing["latest_version"] == "1.1" and listing["versions"] == ["1.1", "1.0"]


def test_deleting_all_versions(api, clients, foo):
    admin = clients["admin"]
    assert "Delete all 3 versions" in text_of(get(admin, api, f"/project/{foo}/delete/versions").text)
    before = last_event(api)
    assert post(admin, api, f"/project/{foo}/delete/versions/", {"csrf_token": token(admin, api)}).status_code == 303
    (row,) = events(api, before)
    assert row["topic"] == "project.version.remove.v2" and sorted(row["body"]["message"]["versions"]) == [
        "1.0", "1.1", "2.0"]
    assert count_rows(api, ProjectVersion) == 0
    assert api.get("/api/v2/versions/", params={"project_id": foo}).json()["latest_version"] is None
