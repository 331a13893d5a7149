"""GET and POST /api/v2/projects/."""

import pytest

from anitrack_core.db.models import Project

from .helpers import add_project, count_rows

V2_ITEM = {"backend", "created_on", "ecosystem", "homepage", "id", "name", "regex", "updated_on", "version",
           "version_url", "versions", "stable_versions"}
V2_CREATED = V2_ITEM - {"ecosystem"}


def test_empty_list_is_a_page(api):
    response = api.get("/api/v2/projects/")
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("application/json")
    assert response.json() == {"items": [], "page": 1, "items_per_page": 25, "total_items": 0}
    assert list(response.json()) == ["items", "items_per_page", "page", "total_items"], "keys sorted"


def test_items_have_the_exact_fields_and_versions_newest_first(api):
    add_project(api, name="geany", homepage="https://www.geany.org/", versions=["1.36", "1.9", "2.0rc1", "1.10"],
                latest="2.0rc1")
    item = api.get("/api/v2/projects/").json()["items"][0]
    assert set(item) == V2_ITEM
    assert item["versions"] == ["2.0rc1", "1.36", "1.10", "1.9"]
    assert item["stable_versions"] == ["1.36", "1.10", "1.9"]
    assert item["version"] == "2.0rc1"
    assert item["ecosystem"] == "https://www.geany.org/"
    assert isinstance(item["created_on"], float) and isinstance(item["updated_on"], float)


def test_prefix_and_filters_apply_to_listed_versions(api):
    add_project(api, name="x", homepage="https://x.example/", versions=["release-1.0", "release-1.1", "release-1.2-dev"],
                version_prefix="release-", version_filter="1.1")
    item = api.get("/api/v2/projects/").json()["items"][0]
    assert item["versions"] == ["1.2-dev", "1.0"]
    assert item["stable_versions"] == ["1.0"]


def test_filters_are_case_insensitive(api):
    add_project(api, name="Requests", homepage="https://pypi.org/project/requests", backend="PyPI")
    add_project(api, name="geany", homepage="https://www.geany.org/")
    add_project(api, name="requests", homepage="https://github.com/psf/requests", backend="GitHub")

    def names(**params):
        return [(i["name"], i["ecosystem"]) for i in api.get("/api/v2/projects/", params=params).json()["items"]]

    assert names(name="REQUESTS") == [("requests", "https://github.com/psf/requests"), ("Requests", "pypi")]
    assert names(ecosystem="PyPI") == [("Requests", "pypi")]
    assert names(ecosystem="https://WWW.geany.org/") == [("geany", "https://www.geany.org/")]
    assert names(ecosystem="https://www.geany.org") == [], "the homepage must match exactly, slash included"
    assert names(name="gea*") == [], "no wildcards in v2"
    assert names(name="requests", ecosystem="pypi") == [("Requests", "pypi")]
    assert names(name="") == names(), "an empty filter is no filter"


def test_order_is_by_name_case_insensitively_then_ecosystem(api):
    for name, homepage in [("zlib", "https://zlib.net/"), ("R2spec", "https://r2spec.example/"),
                           ("geany", "https://geany.org/"), ("zlib", "https://hackage.example/zlib")]:
        add_project(api, name=name, homepage=homepage)
    items = api.get("/api/v2/projects/").json()["items"]
    assert [(i["name"], i["ecosystem"]) for i in items] == [
        ("geany", "https://geany.org/"), ("R2spec", "https://r2spec.example/"),
        ("zlib", "https://hackage.example/zlib"), ("zlib", "https://zlib.net/")]


def test_paging(api):
    for index in range(7):
        add_project(api, name=f"p{index}", homepage=f"https://p{index}.example/")
    page = api.get("/api/v2/projects/", params={"page": 2, "items_per_page": 3}).json()
    assert [i["name"] for i in page["items"]] == ["p3", "p4", "p5"]
    assert (page["page"], page["items_per_page"], page["total_items"]) == (2, 3, 7)
    past = api.get("/api/v2/projects/", params={"page": 9, "items_per_page": 3}).json()
    assert past["items"] == [] and past["total_items"] == 7
    assert len(api.get("/api/v2/projects/", params={"items_per_page": 250}).json()["items"]) == 7


@pytest.mark.parametrize("params, field, message", [
    ({"page": 0}, "page", "greater than or equal to 1"),
    ({"page": -25}, "page", "greater than or equal to 1"),
    ({"page": "abc"}, "page", "Not a valid integer."),
    ({"page": ""}, "page", "Not a valid integer."),
    ({"page": "1.5"}, "page", "Not a valid integer."),
    ({"page": "9" * 40}, "page", "Not a valid integer."),
    ({"items_per_page": 0}, "items_per_page", "greater than or equal to 1"),
    ({"items_per_page": 251}, "items_per_page", "less than or equal to 250"),
    ({"name": "x" * 5000}, "name", "Longer than"),
    ({"ecosystem": "a\x00b"}, "ecosystem", "NUL"),
])
def test_bad_query_values_are_400_naming_the_field(api, params, field, message):
    response = api.get("/api/v2/projects/", params=params)
    assert response.status_code == 400
    body = response.json()
    assert set(body) == {"error", "status", "message"} and body["status"] == 400
    assert field in body["message"] and message in body["message"][field]


def test_both_paging_fields_reported_at_once(api):
    body = api.get("/api/v2/projects/", params={"page": 0, "items_per_page": 500}).json()
    assert set(body["message"]) == {"page", "items_per_page"}


def test_non_utf8_query_is_400(api):
    response = api.get("/api/v2/projects/?name=%ff%fe")
    assert response.status_code == 400 and "UTF-8" in response.json()["message"]["name"]


def test_unknown_query_parameters_are_ignored(api):
    assert api.get("/api/v2/projects/", params={"colour": "red"}).status_code == 200


# ---- POST ----

def test_create_with_every_optional_parameter(api):
    body = {"name": "thing", "homepage": "https://thing.example/", "backend": "custom",
            "version_url": "https://thing.example/downloads", "version_scheme": "semantic",
            "version_pattern": "YYYY.MM", "version_prefix": "thing-", "pre_release_filter": "rc;beta",
            "version_filter": "snapshot", "regex": "thing-([0-9.]+)\\.tar", "insecure": True, "check_release": False}
    response = api.post("/api/v2/projects/", json=body)
    assert response.status_code == 201, response.text
    created = response.json()
    assert set(created) == V2_CREATED
    assert created["versions"] == [] and created["stable_versions"] == [] and created["version"] is None
    assert (created["regex"], created["version_url"]) == (body["regex"], body["version_url"])
    with api.runtime.db.connection_context():
        stored = Project.get_by_id(created["id"])
    assert (stored.version_scheme, stored.version_pattern, stored.version_prefix, stored.pre_release_filter,
            stored.version_filter, stored.insecure) == ("Semantic", "YYYY.MM", "thing-", "rc;beta", "snapshot", True)
    assert stored.ecosystem_name == "https://thing.example/", "outside an ecosystem: the homepage"


def test_create_from_a_form_body(api):
    response = api.post("/api/v2/projects/", data={"name": "requests", "homepage": "https://pypi.org/p/requests",
                                                   "backend": "PyPI", "insecure": "false"})
    assert response.status_code == 201, response.text
    with api.runtime.db.connection_context():
        assert Project.get_by_id(response.json()["id"]).ecosystem_name == "pypi"


def test_create_with_access_token_query_parameter(api):
    response = api.post(f"/api/v2/projects/?access_token={api.token}", auth=False,
                        json={"name": "n", "homepage": "https://n.example/", "backend": "GitHub"})
    assert response.status_code == 201, response.text


def test_conflict_in_an_ecosystem_returns_the_existing_project(api):
    first = api.post("/api/v2/projects/", json={"name": "requests", "homepage": "https://a", "backend": "PyPI"}).json()
    response = api.post("/api/v2/projects/", json={"name": "Requests", "homepage": "https://b", "backend": "pypi"})
    assert response.status_code == 409
    body = response.json()
    assert body["status"] == 409 and "already exists" in body["error"]
    assert body["project"]["id"] == first["id"]
    assert body["requested_project"]["name"] == "Requests" and body["requested_project"]["id"] is None
    assert count_rows(api, Project) == 1


def test_no_conflict_outside_an_ecosystem(api):
    body = {"name": "geany", "homepage": "https://www.geany.org/", "backend": "GitHub"}
    assert api.post("/api/v2/projects/", json=body).status_code == 201
    assert api.post("/api/v2/projects/", json=body).status_code == 201


@pytest.mark.parametrize("body, field", [
    ({"homepage": "https://x", "backend": "GitHub"}, "name"),
    ({"name": "x", "backend": "GitHub"}, "homepage"),
    ({"name": "x", "homepage": "https://x"}, "backend"),
    ({"name": "", "homepage": "https://x", "backend": "GitHub"}, "name"),
    ({"name": None, "homepage": "https://x", "backend": "GitHub"}, "name"),
    ({"name": 12, "homepage": "https://x", "backend": "GitHub"}, "name"),
    ({"name": ["x"], "homepage": "https://x", "backend": "GitHub"}, "name"),
    ({"name": "x", "homepage": "https://x", "backend": "NoSuchBackend"}, "backend"),
    ({"name": "x", "homepage": "https://x", "backend": "GitHub", "version_scheme": "Debian"}, "version_scheme"),
    ({"name": "x", "homepage": "https://x", "backend": "GitHub", "version_scheme": "Calendar"}, "version_pattern"),
    ({"name": "x", "homepage": "https://x", "backend": "custom"}, "version_url"),
    ({"name": "x", "homepage": "https://x", "backend": "GitHub", "insecure": "maybe"}, "insecure"),
    ({"name": "x", "homepage": "https://x", "backend": "GitHub", "releases_only": True}, "releases_only"),
    ({"name": "x", "homepage": "https://x", "backend": "GitHub", "colour": "red"}, "colour"),
    ({"name": "x" * 201, "homepage": "https://x", "backend": "GitHub"}, "name"),
    ({"name": "x" * 100_000, "homepage": "https://x", "backend": "GitHub"}, "name"),
])
def test_bad_bodies_are_400_naming_the_field_and_write_nothing(api, body, field):
    response = api.post("/api/v2/projects/", json=body)
    assert response.status_code == 400, response.text
    assert field in response.json()["message"], response.json()
    assert count_rows(api, Project) == 0


@pytest.mark.parametrize("data, headers, key", [
    ("{bad json", {"Content-Type": "application/json"}, "_schema"),
    ("[1, 2]", {"Content-Type": "application/json"}, "_schema"),
    ('"text"', {"Content-Type": "application/json"}, "_schema"),
    (b'{"name": "\xff\xfe"}', {"Content-Type": "application/json"}, "_schema"),
    ("{}", {"Content-Type": "application/json"}, "name"),
])
def test_malformed_bodies_are_400(api, data, headers, key):
    response = api.post("/api/v2/projects/", data=data, headers=headers)
    assert response.status_code == 400, response.text
    assert key in response.json()["message"]
    assert count_rows(api, Project) == 0


def test_oversized_body_is_413_json(api):
    response = api.post("/api/v2/projects/", data="x" * (2 * 1024 * 1024), headers={"Content-Type": "application/json"})
    assert response.status_code == 413
    assert response.json()["status"] == 413


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer abc"}, {"Authorization": "Token"},
                                     {"Authorization": "Token " + "a" * 40},
                                     {"Authorization": "Token a b"}])
def test_unauthenticated_create_is_401_before_validation(api, headers):
    response = api.post("/api/v2/projects/", auth=False, json={}, headers=headers)
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == "Token"
    body = response.json()
    assert body["error"] == "authentication_required" and body["error_description"]
    assert count_rows(api, Project) == 0


@pytest.mark.parametrize("scheme_word", ["Token", "token", "TOKEN"])
def test_token_scheme_word_any_case(api, scheme_word):
    response = api.post("/api/v2/projects/", auth=False, headers={"Authorization": f"{scheme_word} {api.token}"},
                        json={"name": "x", "homepage": "https://x", "backend": "GitHub"})
    assert response.status_code == 201


def test_tokens_of_inactive_users_are_refused(api):
    from anitrack_core.db.models import User

    with api.runtime.db.connection_context():
        User.update(active=False).execute()
    response = api.post("/api/v2/projects/", json={"name": "x", "homepage": "https://x", "backend": "GitHub"})
    assert response.status_code == 401


@pytest.mark.parametrize("data", ['{"name": "\\ud800", "homepage": "https://x.org", "backend": "PyPI"}', "[" * 100_000])
def test_unencodable_or_deeply_nested_json_is_400(api, data):
    response = api.post("/api/v2/projects/", data=data, headers={"Content-Type": "application/json"})
    assert response.status_code == 400, response.text
    assert count_rows(api, Project) == 0


def test_form_bodies_get_the_same_size_limit_as_json(api):
    response = api.post("/api/v2/projects/", data={"name": "x", "homepage": "https://x.example/",
                                                   "backend": "GitHub", "regex": "a" * 200_000})
    assert response.status_code == 400 and "regex" in response.json()["message"], "read, then refused by length"


def test_ecosystem_aliases_resolve(api, runtime):
    from anitrack_core import hookimpl

    class Cargo:
        @hookimpl
        def anitrack_register_ecosystems(self, registry):
            registry.add(type("Crates", (), {"name": "crates.io", "default_backend": "GitHub", "aliases": ["cargo"]}))

    assert runtime.plugins.register(Cargo(), "cargo-ecosystem").status == "loaded"
    add_project(api, name="serde", homepage="https://github.com/serde-rs/serde", backend="GitHub")
    items = api.get("/api/v2/projects/", params={"ecosystem": "Cargo"}).json()["items"]
    assert [(i["name"], i["ecosystem"]) for i in items] == [("serde", "crates.io")]
    assert api.get("/api/by_ecosystem/cargo/SERDE").json()["name"] == "serde"
    response = api.post("/api/v2/packages/", json={"distribution": "Fedora", "package_name": "rust-serde",
                                                   "project_name": "serde", "project_ecosystem": "CARGO"})
    assert response.status_code == 201, response.text
