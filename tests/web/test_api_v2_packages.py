"""GET and POST /api/v2/packages/."""

import pytest

from anitrack_core.db.models import Package

from .helpers import add_project, count_rows


def test_list_with_latest_and_stable_versions(api):
    add_project(api, name="geany", homepage="https://www.geany.org/", versions=["1.36", "2.0rc1"], latest="2.0rc1",
                packages_=[("Fedora", "geany"), ("Debian", "geany")])
    add_project(api, name="empty", homepage="https://empty.example/", latest="1", packages_=[("Fedora", "Empty")])
    page = api.get("/api/v2/packages/").json()
    assert page["total_items"] == 3 and page["page"] == 1 and page["items_per_page"] == 25
    assert page["items"] == [
        {"distribution": "Fedora", "name": "Empty", "project": "empty", "ecosystem": "https://empty.example/",
         "version": "1", "stable_version": None},
        {"distribution": "Debian", "name": "geany", "project": "geany", "ecosystem": "https://www.geany.org/",
         "version": "2.0rc1", "stable_version": "1.36"},
        {"distribution": "Fedora", "name": "geany", "project": "geany", "ecosystem": "https://www.geany.org/",
         "version": "2.0rc1", "stable_version": "1.36"},
    ]


def test_filters_are_case_insensitive_equality(api):
    add_project(api, name="geany", homepage="https://www.geany.org/", packages_=[("Fedora", "geany"),
                                                                                 ("Debian", "geany-plugins")])

    def names(**params):
        return [(i["distribution"], i["name"]) for i in api.get("/api/v2/packages/", params=params).json()["items"]]

    assert names(distribution="FEDORA") == [("Fedora", "geany")]
    assert names(name="GEANY") == [("Fedora", "geany")]
    assert names(name="gea") == [] and names(name="gea*") == []
    assert names(distribution="Arch") == []


@pytest.mark.parametrize("params", [{"page": 0}, {"items_per_page": 251}, {"items_per_page": "x"}])
def test_bad_paging_is_400(api, params):
    assert api.get("/api/v2/packages/", params=params).status_code == 400


def test_create_mapping(api):
    add_project(api, name="requests", homepage="https://pypi.org/project/requests", backend="PyPI")
    response = api.post("/api/v2/packages/", json={"distribution": "fedora", "package_name": "python-requests",
                                                   "project_name": "REQUESTS", "project_ecosystem": "PyPI"})
    assert response.status_code == 201, response.text
    assert response.json() == {"distribution": "Fedora", "name": "python-requests"}
    assert api.get("/api/v2/packages/").json()["items"][0]["project"] == "requests"


def test_create_mapping_from_form_and_outside_an_ecosystem(api):
    add_project(api, name="geany", homepage="https://www.geany.org/")
    response = api.post("/api/v2/packages/", data={"distribution": "Debian", "package_name": "geany",
                                                   "project_name": "geany",
                                                   "project_ecosystem": "https://www.geany.org/"})
    assert response.status_code == 201, response.text


def test_existing_mapping_is_409_even_for_another_project(api):
    add_project(api, name="a", homepage="https://a.example/", packages_=[("Fedora", "pkg")])
    add_project(api, name="b", homepage="https://b.example/")
    response = api.post("/api/v2/packages/", json={"distribution": "Fedora", "package_name": "pkg",
                                                   "project_name": "b", "project_ecosystem": "https://b.example/"})
    assert response.status_code == 409
    assert response.json()["error"] == "package already exists in distribution"
    assert count_rows(api, Package) == 1


def test_unknown_project_or_distribution_is_400(api):
    add_project(api, name="a", homepage="https://a.example/")
    body = {"distribution": "Fedora", "package_name": "a", "project_name": "nope", "project_ecosystem": "x"}
    response = api.post("/api/v2/packages/", json=body)
    assert response.status_code == 400
    assert response.json()["error"] == 'Project "nope" in ecosystem "x" not found'
    body.update(project_name="a", project_ecosystem="https://a.example/", distribution="Arch")
    response = api.post("/api/v2/packages/", json=body)
    assert response.status_code == 400 and response.json()["error"] == 'Distribution "Arch" not found'
    assert count_rows(api, Package) == 0


@pytest.mark.parametrize("missing", ["distribution", "package_name", "project_name", "project_ecosystem"])
def test_missing_fields_are_400(api, missing):
    body = {"distribution": "Fedora", "package_name": "a", "project_name": "a", "project_ecosystem": "x"}
    del body[missing]
    response = api.post("/api/v2/packages/", json=body)
    assert response.status_code == 400 and missing in response.json()["message"]


def test_create_mapping_needs_a_token(api):
    response = api.post("/api/v2/packages/", auth=False, json={})
    assert response.status_code == 401
    assert api.post(f"/api/v2/packages/?access_token={api.token}", auth=False, json={}).status_code == 401, \
        "the interface allows access_token only on POST projects and versions"
