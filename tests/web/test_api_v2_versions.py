"""GET /api/v2/versions/."""

import pytest

from .helpers import add_project


def test_versions_of_a_project(api):
    project_id = add_project(api, name="x", homepage="https://x.example/", versions=["v1.0", "v1.10", "v1.9", "v2.0-beta"],
                             latest="v2.0-beta")
    response = api.get("/api/v2/versions/", params={"project_id": project_id})
    assert response.status_code == 200
    assert response.json() == {
        "latest_version": "v2.0-beta",
        "latest_version_created_on": "2024-01-04T00:00:00+00:00",
        "versions": ["2.0-beta", "1.10", "1.9", "1.0"],
        "stable_versions": ["1.10", "1.9", "1.0"],
    }


def test_project_without_versions(api):
    project_id = add_project(api, name="x", homepage="https://x.example/")
    assert api.get("/api/v2/versions/", params={"project_id": project_id}).json() == {
        "latest_version": None, "latest_version_created_on": None, "versions": [], "stable_versions": []}


def test_scheme_of_the_project_orders_the_versions(api):
    project_id = add_project(api, name="x", homepage="https://x.example/", version_scheme="Python (PEP 440)",
                             versions=["1.0", "1.0.post1", "1.0rc1", "1.0.dev3"])
    body = api.get("/api/v2/versions/", params={"project_id": project_id}).json()
    assert body["versions"] == ["1.0.post1", "1.0", "1.0rc1", "1.0.dev3"]
    assert body["stable_versions"] == ["1.0.post1", "1.0"]


def test_unknown_project_is_404(api):
    response = api.get("/api/v2/versions/", params={"project_id": 4242})
    assert response.status_code == 404
    assert response.json() == {"error": "No such project", "status": 404}


@pytest.mark.parametrize("value", ["", "abc", "-1", "0", "1.5", "9" * 30])
def test_bad_project_id_is_400(api, value):
    response = api.get("/api/v2/versions/", params={"project_id": value})
    assert response.status_code == 400 and "project_id" in response.json()["message"]


def test_missing_project_id_is_400(api):
    response = api.get("/api/v2/versions/")
    assert response.status_code == 400
    assert response.json()["message"] == {"project_id": "Missing data for required field."}
