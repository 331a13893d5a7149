"""POST /api/v2/versions/, check_release and POST /api/version/get against a loopback upstream."""

import pytest

from anitrack_core.db.models import Project, ProjectVersion

from .helpers import add_project, count_rows

PAGE = '<a href="foo-1.0.tar.gz">x</a>\n<a href="foo-1.1.tar.gz">y</a>\n<a href="foo-2.0-beta1.tar.gz">z</a>\n'


@pytest.fixture
def foo(api, fake_upstream):
    fake_upstream.route("/dl/", PAGE)
    return add_project(api, name="foo", homepage="https://foo.example/", version_url=fake_upstream.url("/dl/"))


def test_dry_run_by_id_saves_nothing(api, foo):
    response = api.post("/api/v2/versions/", json={"id": foo})
    assert response.status_code == 200, response.text
    assert response.json() == {"found_versions": ["2.0-beta1", "1.1", "1.0"], "latest_version": "2.0-beta1",
                               "versions": ["2.0-beta1", "1.1", "1.0"], "stable_versions": ["1.1", "1.0"]}
    assert count_rows(api, ProjectVersion) == 0
    assert api.get("/api/v2/versions/", params={"project_id": foo}).json()["versions"] == []


def test_real_run_saves_and_reports(api, foo):
    response = api.post("/api/v2/versions/", json={"id": foo, "dry_run": False})
    assert response.status_code == 200, response.text
    assert response.json()["found_versions"] == ["2.0-beta1", "1.1", "1.0"]
    assert api.get("/api/v2/versions/", params={"project_id": foo}).json()["versions"] == ["2.0-beta1", "1.1", "1.0"]
    again = api.post("/api/v2/versions/", json={"id": foo, "dry_run": False}).json()
    assert again["found_versions"] == [] and again["versions"] == ["2.0-beta1", "1.1", "1.0"]


def test_found_by_name_and_homepage_with_edits_in_a_dry_run(api, foo):
    response = api.post("/api/v2/versions/", data={"name": "FOO", "homepage": "https://foo.example/",
                                                   "version_filter": "beta", "dry_run": "true"})
    assert response.status_code == 200, response.text
    assert response.json()["versions"] == ["1.1", "1.0"]
    with api.runtime.db.connection_context():
        assert Project.get_by_id(foo).version_filter is None, "a dry run keeps no edit"


def test_edits_are_kept_in_a_real_run(api, foo):
    response = api.post("/api/v2/versions/", json={"id": foo, "version_filter": "beta", "dry_run": False})
    assert response.status_code == 200
    with api.runtime.db.connection_context():
        assert Project.get_by_id(foo).version_filter == "beta"
    assert response.json()["versions"] == ["1.1", "1.0"]


def test_temporary_project(api, fake_upstream):
    fake_upstream.route("/dl/", PAGE)
    response = api.post(f"/api/v2/versions/?access_token={api.token}", auth=False,
                        json={"name": "foo", "homepage": "https://new.example/", "backend": "custom",
                              "version_url": fake_upstream.url("/dl/"), "version_prefix": "v"})
    assert response.status_code == 200, response.text
    assert response.json()["found_versions"] == ["2.0-beta1", "1.1", "1.0"]
    assert count_rows(api, Project) == 0


def test_temporary_project_cannot_be_saved(api):
    response = api.post("/api/v2/versions/", json={"name": "x", "homepage": "https://x.example/", "backend": "custom",
                                                   "version_url": "https://x.example/", "dry_run": False})
    assert response.status_code == 400 and "dry_run" in response.json()["message"]


def test_temporary_project_needs_its_fields(api):
    response = api.post("/api/v2/versions/", json={"name": "x"})
    assert response.status_code == 400
    assert set(response.json()["message"]) == {"homepage", "backend"}


def test_missing_or_archived_project_is_404(api, foo):
    assert api.post("/api/v2/versions/", json={"id": 999}).status_code == 404
    with api.runtime.db.connection_context():
        Project.update(archived=True).where(Project.id == foo).execute()
    response = api.post("/api/v2/versions/", json={"id": foo})
    assert response.status_code == 404 and response.json()["error"] == "No such project"


def test_a_failing_check_is_a_json_500_and_counted(api, foo, fake_upstream):
    fake_upstream.route("/dl/", "empty")
    response = api.post("/api/v2/versions/", json={"id": foo, "dry_run": False})
    assert response.status_code == 500
    assert response.json()["error"].startswith("Error when checking for new version: foo: no upstream version found")
    with api.runtime.db.connection_context():
        assert Project.get_by_id(foo).error_counter == 1


def test_needs_a_token(api, foo):
    assert api.post("/api/v2/versions/", auth=False, json={"id": foo}).status_code == 401


def test_bad_regex_is_400(api):
    response = api.post("/api/v2/versions/", json={"name": "x", "homepage": "https://x.example/", "backend": "custom",
                                                   "version_url": "https://x.example/", "regex": "(a"})
    assert response.status_code == 400 and "regex" in response.json()["message"]
    response = api.post("/api/v2/projects/", json={"name": "x", "homepage": "https://x.example/", "backend": "custom",
                                                   "version_url": "https://x.example/", "regex": "(a"})
    assert response.status_code == 400 and "regex" in response.json()["message"]


def test_check_release_on_create(api, fake_upstream):
    fake_upstream.route("/dl/", PAGE)
    response = api.post("/api/v2/projects/", json={"name": "foo", "homepage": "https://foo.example/",
                                                   "backend": "custom", "version_url": fake_upstream.url("/dl/"),
                                                   "check_release": True})
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["version"] == "2.0-beta1" and body["versions"] == ["2.0-beta1", "1.1", "1.0"]
    assert body["stable_versions"] == ["1.1", "1.0"]


def test_check_release_failure_still_creates(api, fake_upstream):
    fake_upstream.route("/dl/", "nothing")
    response = api.post("/api/v2/projects/", json={"name": "foo", "homepage": "https://foo.example/",
                                                   "backend": "custom", "version_url": fake_upstream.url("/dl/"),
                                                   "check_release": True})
    assert response.status_code == 201 and response.json()["versions"] == []


# ---- v1 ----

def test_v1_version_get(api, foo):
    response = api.post("/api/version/get", auth=False, data={"id": str(foo), "test": "1"})
    assert response.status_code == 200, response.text
    assert response.json() == {"versions": ["2.0-beta1", "1.1", "1.0"]}
    assert count_rows(api, ProjectVersion) == 0, "test mode saves nothing"
    response = api.post("/api/version/get", auth=False, data={"id": str(foo)})
    assert response.json() == {"versions": ["2.0-beta1", "1.1", "1.0"]}
    assert count_rows(api, ProjectVersion) == 3


@pytest.mark.parametrize("data, status, error", [
    ({}, 400, "No project id specified"),
    ({"id": ""}, 400, "No project id specified"),
    ({"id": "999"}, 404, "No such project"),
    ({"id": "abc"}, 404, "No such project"),
])
def test_v1_version_get_errors(api, data, status, error):
    response = api.post("/api/version/get", auth=False, data=data)
    assert response.status_code == status
    assert response.json()["error"] == error and response.json()["output"] == "notok"


def test_v1_version_get_failure_and_archived(api, foo, fake_upstream):
    fake_upstream.route("/dl/", "nothing")
    response = api.post("/api/version/get", auth=False, data={"id": str(foo)})
    assert response.status_code == 400 and "no upstream version found" in response.json()["error"]
    with api.runtime.db.connection_context():
        Project.update(archived=True).where(Project.id == foo).execute()
    response = api.post("/api/version/get", auth=False, data={"id": str(foo)})
    assert response.json()["error"] == "Project is archived, can't check new versions"


def test_an_edit_clashing_with_another_project_is_409(api, fake_upstream):
    add_project(api, name="one", homepage="https://pypi.org/p/one", backend="PyPI")
    other = add_project(api, name="two", homepage="https://pypi.org/p/two", backend="PyPI")
    response = api.post("/api/v2/versions/", json={"id": other, "name": "ONE", "dry_run": False})
    assert response.status_code == 409 and "already exists" in response.json()["error"]


def test_v1_version_get_errors_are_strings(api, foo, fake_upstream):
    for data in ({}, {"id": "999"}, {"id": str(foo)}):
        fake_upstream.route("/dl/", "nothing")
        body = api.post("/api/version/get", auth=False, data=data).json()
        assert isinstance(body["error"], str) and body["output"] == "notok", data
