"""Adding distributions (signed-in people), renaming and deleting them (administrators), over HTTP."""

import requests

from anitrack_core.db.models import Distro, Package

from .actions_helpers import events, get, last_event, post, token
from .helpers import add_project, count_rows
from .pages import text_of


def test_adding_a_distribution(api, clients):
    client = clients["user"]
    assert get(client, api, "/distro/add").status_code == 200
    assert "/login/" in get(requests, api, "/distro/add").headers["Location"]
    csrf = token(client, api)
    before = last_event(api)
    answer = post(client, api, "/distro/add", {"name": "  Arch Linux ", "csrf_token": csrf})
    assert answer.status_code == 303 and answer.headers["Location"].endswith("/distro/Arch%20Linux/")
    (row,) = events(api, before)
    assert row["topic"] == "distro.add" and row["body"]["message"] == {"agent": "alice@example.org",
                                                                       "distro": "Arch Linux"}
    again = post(client, api, "/distro/add", {"name": "arch linux", "csrf_token": csrf})
    assert again.status_code == 409 and 'id="name-error"' in again.text and "/distro/Arch%20Linux/" in again.text
    empty = post(client, api, "/distro/add", {"name": " ", "csrf_token": csrf})
    assert empty.status_code == 400 and 'id="name-error"' in empty.text
    assert post(client, api, "/distro/add", {"name": "Gentoo"}).status_code == 400
    assert len(events(api, before)) == 1 and count_rows(api, Distro) == 3


def test_renaming_a_distribution(api, clients):
    admin = clients["admin"]
    assert get(clients["user"], api, "/distro/Fedora/edit").status_code == 403
    assert get(admin, api, "/distro/Nowhere/edit").status_code == 404
    page = get(admin, api, "/distro/fedora/edit")
    assert page.status_code == 200 and 'value="Fedora"' in page.text
    csrf = token(admin, api)
    before = last_event(api)
    clash = post(admin, api, "/distro/Fedora/edit", {"name": "DEBIAN", "csrf_token": csrf})
    assert clash.status_code == 409 and 'id="name-error"' in clash.text and 'value="DEBIAN"' in clash.text
    same = post(admin, api, "/distro/Fedora/edit", {"name": "Fedora", "csrf_token": csrf})
    assert same.status_code == 303 and last_event(api) == before
    assert post(clients["user"], api, "/distro/Fedora/edit", {"name": "F", "csrf_token": token(clients["user"], api)
                                                              }).status_code == 403
    renamed = post(admin, api, "/distro/Fedora/edit", {"name": "Fedora Linux", "csrf_token": csrf})
    assert renamed.status_code == 303 and renamed.headers["Location"].endswith("/distro/Fedora%20Linux/")
    (row,) = events(api, before)
    assert row["topic"] == "distro.edit"
    assert row["body"]["message"] == {"agent": "root@example.org", "old": "Fedora", "new": "Fedora Linux"}
    assert get(admin, api, "/distro/Fedora%20Linux/edit").status_code == 200


def test_deleting_a_distribution_deletes_its_mappings(api, clients):
    add_project(api, name="foo", homepage="https://foo.example/", packages_=[("Fedora", "foo"), ("Debian", "foo")])
    admin = clients["admin"]
    assert get(clients["user"], api, "/distro/Fedora/delete").status_code == 403
    assert "its 1 mapping to projects" in text_of(get(admin, api, "/distro/Fedora/delete").text)
    before = last_event(api)
    assert post(admin, api, "/distro/Fedora/delete", {}).status_code == 400
    answer = post(admin, api, "/distro/fedora/delete", {"csrf_token": token(admin, api)})
    assert answer.status_code == 303 and answer.headers["Location"].endswith("/distros/")
    (row,) = events(api, before)
    assert row["topic"] == "distro.remove" and row["body"]["distro"] == {"name": "Fedora"}
    assert count_rows(api, Package) == 1 and count_rows(api, Distro) == 1
    assert post(admin, api, "/distro/Fedora/delete", {"csrf_token": token(admin, api)}).status_code == 404
