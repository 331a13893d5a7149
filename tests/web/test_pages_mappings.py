"""Adding, editing and deleting mappings of projects to distribution packages, over HTTP."""

import requests

from anitrack_core.db.models import Package, Project

from .actions_helpers import events, flashes, get, last_event, post, token
from .helpers import add_project, count_rows
from .pages import text_of


def package_id(api, name):
    with api.runtime.db.connection_context():
        return Package.get(Package.package_name == name).id


def test_adding_a_mapping_writes_and_announces_it(api, clients):
    pid = add_project(api, name="geany", homepage="https://geany.example/")
    client = clients["user"]
    page = get(client, api, f"/project/{pid}/map")
    assert page.status_code == 200 and 'value="geany"' in page.text, "the package name defaults to the project's"
    before = last_event(api)
    answer = post(client, api, f"/project/{pid}/map", {"distro": "Fedora", "package_name": "geany-ide",
                                                       "csrf_token": token(client, api)})
    assert answer.status_code == 303 and answer.headers["Location"].endswith(f"/project/{pid}/")
    (row,) = events(api, before)
    assert row["topic"] == "project.map.new" and row["body"]["message"]["new"] == "geany-ide"
    assert "is now mapped to geany" in flashes(client, api, "/settings/")


def test_bad_mappings_name_the_field_and_write_nothing(api, clients):
    pid = add_project(api, name="geany", homepage="https://geany.example/")
    add_project(api, name="other", homepage="https://other.example/", packages_=[("Fedora", "taken")])
    client = clients["user"]
    csrf = token(client, api)
    before = last_event(api)
    for form, field, status in (({"distro": "", "package_name": "x"}, "distro", 400),
                                ({"distro": "Nowhere", "package_name": "x"}, "distro", 400),
                                ({"distro": "Fedora", "package_name": " "}, "package_name", 400),
                                ({"distro": "Fedora", "package_name": "x" * 201}, "package_name", 400),
                                ({"distro": "Fedora", "package_name": "taken"}, "package_name", 409)):
        answer = post(client, api, f"/project/{pid}/map", {**form, "csrf_token": csrf})
        assert answer.status_code == status, form
        assert f'id="{field}-error"' in answer.text, form
    assert "already mapped to other" in text_of(answer.text) and 'href="/project/2/"' in answer.text
    assert post(client, api, f"/project/{pid}/map", {"distro": "Fedora", "package_name": "y"}).status_code == 400
    assert last_event(api) == before and count_rows(api, Package) == 1


def test_editing_a_mapping_announces_what_changed(api, clients):
    pid = add_project(api, name="geany", homepage="https://geany.example/", packages_=[("Fedora", "geany")])
    pkg = package_id(api, "geany")
    client = clients["user"]
    page = get(client, api, f"/project/{pid}/map/{pkg}")
    assert page.status_code == 200 and '<option value="Fedora" selected>' in page.text
    csrf = token(client, api)
    before = last_event(api)
    same = post(client, api, f"/project/{pid}/map/{pkg}", {"distro": "Fedora", "package_name": "geany",
                                                           "csrf_token": csrf})
    assert same.status_code == 303 and last_event(api) == before
    assert "No changes were made" in flashes(client, api, "/settings/")
    moved = post(client, api, f"/project/{pid}/map/{pkg}", {"distro": "Debian", "package_name": "geany-ide",
                                                            "csrf_token": csrf})
    assert moved.status_code == 303
    (row,) = events(api, before)
    assert row["topic"] == "project.map.update"
    assert row["body"]["message"]["edited"] == ["distribution", "package_name"]
    assert row["body"]["message"]["prev"] == "geany" and row["body"]["distro"] == {"name": "Debian"}


def test_mappings_of_archived_projects_cannot_be_added_or_edited(api, clients):
    pid = add_project(api, name="old", homepage="https://old.example/", packages_=[("Fedora", "old")])
    pkg = package_id(api, "old")
    with api.runtime.db.connection_context():
        Project.update(archived=True).where(Project.id == pid).execute()
    client = clients["admin"]
    csrf = token(client, api)
    before = last_event(api)
    assert get(client, api, f"/project/{pid}/map").status_code == 403
    assert post(client, api, f"/project/{pid}/map", {"distro": "Debian", "package_name": "old",
                                                     "csrf_token": csrf}).status_code == 403
    assert post(client, api, f"/project/{pid}/map/{pkg}", {"distro": "Debian", "package_name": "old",
                                                           "csrf_token": csrf}).status_code == 403
    assert last_event(api) == before


def test_unknown_projects_and_mappings_are_404_and_anonymous_people_sign_in(api, clients):
    pid = add_project(api, name="geany", homepage="https://geany.example/", packages_=[("Fedora", "geany")])
    other = add_project(api, name="other", homepage="https://other.example/", packages_=[("Fedora", "other")])
    assert get(clients["user"], api, "/project/999/map").status_code == 404
    assert get(clients["user"], api, f"/project/{pid}/map/999").status_code == 404
    assert get(clients["user"], api, f"/project/{pid}/map/{package_id(api, 'other')}").status_code == 404, other
    assert "/login/" in get(requests, api, f"/project/{pid}/map").headers["Location"]


def test_administrators_delete_a_mapping_after_confirming(api, clients):
    pid = add_project(api, name="geany", homepage="https://geany.example/",
                      packages_=[("Fedora", "geany"), ("Debian", "dir/geany")])
    path = f"/project/{pid}/delete/Debian/dir/geany"
    assert get(clients["user"], api, path).status_code == 403
    assert post(clients["user"], api, path, {"csrf_token": token(clients["user"], api)}).status_code == 403
    assert "/login/" in get(requests, api, path).headers["Location"]
    admin = clients["admin"]
    page = get(admin, api, path)
    assert page.status_code == 200 and "dir/geany" in text_of(page.text)
    assert post(admin, api, path, {}).status_code == 400
    before = last_event(api)
    assert post(admin, api, path + "/", {"csrf_token": token(admin, api)}).status_code == 303
    (row,) = events(api, before)
    assert row["topic"] == "project.map.remove" and row["body"]["message"]["distro"] == "Debian"
    assert row["body"]["message"]["package_name"] == "dir/geany"
    assert count_rows(api, Package) == 1
    assert get(admin, api, path).status_code == 404
