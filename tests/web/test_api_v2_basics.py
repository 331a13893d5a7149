"""A first pass over API v2 through the live server."""


def test_create_then_list_project(api):
    created = api.post("/api/v2/projects/", json={"name": "requests", "homepage": "https://pypi.org/project/requests",
                                                  "backend": "pypi"})
    assert created.status_code == 201, created.text
    body = created.json()
    assert set(body) == {"backend", "created_on", "homepage", "id", "name", "regex", "updated_on", "version",
                         "version_url", "versions", "stable_versions"}
    assert body["backend"] == "PyPI" and body["versions"] == [] and body["version"] is None
    listed = api.get("/api/v2/projects/", params={"ecosystem": "PYPI"}).json()
    assert listed["total_items"] == 1 and listed["items"][0]["ecosystem"] == "pypi"
    assert api.post("/api/v2/projects/", json={"name": "Requests", "homepage": "x", "backend": "PyPI"}).status_code == 409


def test_lists_answer_without_the_trailing_slash(api):
    api.post("/api/v2/projects/", json={"name": "requests", "homepage": "https://pypi.org/project/requests",
                                        "backend": "pypi"})
    for path, params in (("/api/v2/projects", {}), ("/api/v2/packages", {}), ("/api/v2/versions", {"project_id": 1})):
        without, with_slash = api.get(path, params=params), api.get(path + "/", params=params)
        assert without.status_code == 200, path
        assert without.json() == with_slash.json()
