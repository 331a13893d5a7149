"""Adding and editing projects, and checking one now, over HTTP: what is written, announced and refused."""

import re

import pytest
import requests

from anitrack_core.db.models import OutboxEvent, Package, Project
from anitrack_core.testing_upstream import Answer

from .actions_helpers import events, flashes, get, last_event, post, token
from .helpers import add_project, count_rows
from .pages import text_of

PAGE = '<a href="foo-1.0.tar.gz">1.0</a> <a href="foo-1.1.tar.gz">1.1</a>'


def new_form(**fields):
    form = {"name": "foo", "homepage": "https://foo.example/", "backend": "custom", "action": "save"}
    form.update(fields)
    return form


def test_anonymous_people_are_sent_to_sign_in(api):
    assert get(requests, api, "/project/new").headers["Location"].endswith("/login/?next=/project/new")
    answer = post(requests, api, "/project/new", new_form())
    assert answer.status_code == 303 and "/login/" in answer.headers["Location"]
    assert count_rows(api, Project) == 0


def test_the_form_is_prefilled_from_the_query(api, clients):
    page = get(clients["user"], api, "/project/new?name=geany&homepage=https://geany.org/&backend=PyPI"
                                     "&distro=Fedora&package_name=geany-ide")
    assert page.status_code == 200
    assert 'value="geany"' in page.text and 'value="https://geany.org/"' in page.text
    assert '<option value="PyPI" selected>' in page.text and '<option value="Fedora" selected>' in page.text
    assert 'value="geany-ide"' in page.text
    assert "<script>" not in page.text and " style=" not in page.text
    assert "<details" in page.text, "the help of each backend"
    assert get(clients["user"], api, "/project/new/?name=geany").status_code == 200


def test_adding_a_project_with_a_mapping_writes_and_announces_both(api, clients, fake_upstream):
    client = clients["user"]
    answer = post(client, api, "/project/new", new_form(version_url=fake_upstream.url("/dl/"), distro="Fedora",
                                                        package_name="python-foo", csrf_token=token(client, api)))
    assert answer.status_code == 303, text_of(answer.text)
    with api.runtime.db.connection_context():
        project = Project.get(Project.name == "foo")
        assert Package.get(Package.project == project.id).package_name == "python-foo"
    assert answer.headers["Location"].endswith(f"/project/{project.id}/")
    rows = events(api)
    assert [row["topic"] for row in rows][-2:] == ["project.add", "project.map.new"]
    assert {row["body"]["message"]["agent"] for row in rows[-2:]} == {"alice@example.org"}
    assert "Project foo was created" in flashes(client, api, "/settings/")


def test_check_on_save_flashes_the_result(api, clients, fake_upstream):
    fake_upstream.route("/dl/", PAGE)
    client = clients["user"]
    answer = post(client, api, "/project/new", new_form(version_url=fake_upstream.url("/dl/"), check_release="1",
                                                        csrf_token=token(client, api)))
    assert answer.status_code == 303
    assert "New versions found: 1.1, 1.0" in flashes(client, api, "/settings/")
    assert "project.version.update.v2" in [row["topic"] for row in events(api)]


@pytest.mark.parametrize("fields, field", [
    ({"name": ""}, "name"),
    ({"homepage": " "}, "homepage"),
    ({"backend": "nope"}, "backend"),
    ({"regex": "("}, "regex"),
    ({"version_scheme": "Nope"}, "version_scheme"),
    ({"distro": "Fedora"}, "package_name"),
    ({"distro": "Nowhere", "package_name": "x"}, "distro"),
])
def test_bad_input_names_the_field_keeps_the_values_and_writes_nothing(api, clients, fields, field):
    client = clients["user"]
    form = new_form(version_url="https://foo.example/dl/", csrf_token=token(client, api))
    form.update(fields)
    before = last_event(api)
    answer = post(client, api, "/project/new", form)
    assert answer.status_code == 400
    assert f'id="field-{field}"' in answer.text and f'id="{field}-error"' in answer.text
    assert re.search(rf'id="field-{field}"[^>]*aria-invalid="true"', answer.text)
    assert 'value="https://foo.example/dl/"' in answer.text, "what was typed is kept"
    assert count_rows(api, Project) == 0 and last_event(api) == before


def test_without_csrf_nothing_is_written(api, clients):
    answer = post(clients["user"], api, "/project/new", new_form())
    assert answer.status_code == 400 and "security token" in answer.text
    assert count_rows(api, Project) == 0 and count_rows(api, OutboxEvent) == 2  # the fixture's two distros


def test_similar_projects_are_shown_before_saving_then_a_duplicate_is_a_409_naming_it(api, clients):
    existing = add_project(api, name="requests", homepage="https://pypi.org/project/requests", backend="PyPI")
    client = clients["user"]
    form = new_form(name="Requests", homepage="https://github.com/psf/requests", backend="PyPI",
                    csrf_token=token(client, api))
    warned = post(client, api, "/project/new", form)
    assert warned.status_code == 200
    assert "Similar projects already exist" in text_of(warned.text)
    assert f'href="/project/{existing}/"' in warned.text and 'name="confirm_similar"' in warned.text
    assert count_rows(api, Project) == 1
    duplicate = post(client, api, "/project/new", {**form, "confirm_similar": "1"})
    assert duplicate.status_code == 409
    assert f'href="/project/{existing}/"' in duplicate.text and 'id="name-error"' in duplicate.text
    assert 'value="https://github.com/psf/requests"' in duplicate.text
    assert count_rows(api, Project) == 1


def test_a_similar_homepage_can_be_saved_once_confirmed(api, clients):
    add_project(api, name="geany", homepage="https://www.geany.org/")
    client = clients["user"]
    form = new_form(name="geany-plugins", homepage="https://WWW.geany.org/", version_url="https://x.example/",
                    csrf_token=token(client, api))
    assert "geany" in text_of(post(client, api, "/project/new", form).text)
    saved = post(client, api, "/project/new", {**form, "confirm_similar": "1"})
    assert saved.status_code == 303 and count_rows(api, Project) == 2


def test_a_package_mapped_elsewhere_refuses_the_whole_creation(api, clients):
    owner = add_project(api, name="owner", homepage="https://owner.example/", packages_=[("Fedora", "taken")])
    client = clients["user"]
    before = last_event(api)
    answer = post(client, api, "/project/new", new_form(version_url="https://foo.example/", distro="Fedora",
                                                        package_name="taken", csrf_token=token(client, api)))
    assert answer.status_code == 409
    assert "already mapped to owner" in text_of(answer.text) and f'href="/project/{owner}/"' in answer.text
    assert count_rows(api, Project) == 1 and last_event(api) == before


def test_the_test_button_checks_without_saving_and_keeps_every_field(api, clients, fake_upstream):
    fake_upstream.route("/dl/", PAGE)
    client = clients["user"]
    before = last_event(api)
    answer = post(client, api, "/project/new", new_form(version_url=fake_upstream.url("/dl/"), action="test",
                                                        version_prefix="v", csrf_token=token(client, api)))
    assert answer.status_code == 200
    text = text_of(answer.text)
    assert "2 versions found; the latest is 1.1" in text and "Nothing was saved" in text
    assert "About the custom backend" in text
    assert f'value="{fake_upstream.url("/dl/")}"' in answer.text and 'value="v"' in answer.text
    assert count_rows(api, Project) == 0 and last_event(api) == before


def test_the_test_button_shows_the_upstream_error(api, clients, fake_upstream):
    client = clients["user"]
    answer = post(client, api, "/project/new", new_form(version_url=fake_upstream.url("/missing/"), action="test",
                                                        csrf_token=token(client, api)))
    assert answer.status_code == 200 and "The check failed" in text_of(answer.text)
    assert count_rows(api, Project) == 0


def test_editing_announces_the_changes_and_a_no_change_edit_says_so(api, clients):
    pid = add_project(api, name="foo", homepage="https://foo.example/")
    client = clients["user"]
    page = get(client, api, f"/project/{pid}/edit")
    assert page.status_code == 200 and 'value="https://foo.example/"' in page.text
    form = {"name": "foo", "homepage": "https://foo.example/", "backend": "custom",
            "version_url": "https://foo.example/", "csrf_token": token(client, api)}
    before = last_event(api)
    same = post(client, api, f"/project/{pid}/edit", form)
    assert same.status_code == 303 and last_event(api) == before
    assert "No changes were made" in flashes(client, api, "/settings/")
    changed = post(client, api, f"/project/{pid}/edit", {**form, "version_prefix": "v", "insecure": "1"})
    assert changed.status_code == 303 and changed.headers["Location"].endswith(f"/project/{pid}/")
    (row,) = events(api, before)
    assert row["topic"] == "project.edit" and row["body"]["message"]["fields"] == ["insecure", "version_prefix"]
    bad = post(client, api, f"/project/{pid}/edit", {**form, "backend": "nope"})
    assert bad.status_code == 400 and 'id="backend-error"' in bad.text
    assert len(events(api, before)) == 1


def test_archived_projects_are_edited_by_administrators_only(api, clients):
    pid = add_project(api, name="old", homepage="https://old.example/")
    with api.runtime.db.connection_context():
        Project.update(archived=True).where(Project.id == pid).execute()
    assert get(clients["user"], api, f"/project/{pid}/edit").status_code == 403
    form = {"name": "new", "homepage": "https://old.example/", "backend": "custom",
            "version_url": "https://old.example/", "csrf_token": token(clients["user"], api)}
    assert post(clients["user"], api, f"/project/{pid}/edit", form).status_code == 403
    assert get(clients["admin"], api, f"/project/{pid}/edit").status_code == 200
    admin_form = {**form, "csrf_token": token(clients["admin"], api)}
    assert post(clients["admin"], api, f"/project/{pid}/edit", admin_form).status_code == 303
    with api.runtime.db.connection_context():
        assert Project.get_by_id(pid).name == "new"


def test_unknown_projects_are_404(api, clients):
    for path in ("/project/999/edit", "/project/abc/edit", "/project/99999999999999999999999/edit"):
        assert get(clients["user"], api, path).status_code == 404
    csrf = token(clients["user"], api)
    assert post(clients["user"], api, "/project/999/check", {"csrf_token": csrf}).status_code == 404


def test_check_now_flashes_the_result_and_refuses_archived_projects(api, clients, fake_upstream):
    fake_upstream.route("/dl/", PAGE)
    pid = add_project(api, name="foo", homepage="https://foo.example/", version_url=fake_upstream.url("/dl/"))
    client = clients["user"]
    csrf = token(client, api)
    to_sign_in = post(requests, api, f"/project/{pid}/check")
    assert to_sign_in.status_code == 303
    assert to_sign_in.headers["Location"].endswith(f"/login/?next=/project/{pid}/"), "then to the project page"
    assert post(client, api, f"/project/{pid}/check").status_code == 400
    answer = post(client, api, f"/project/{pid}/check", {"csrf_token": csrf})
    assert answer.status_code == 303 and answer.headers["Location"].endswith(f"/project/{pid}/")
    assert "New versions found: 1.1, 1.0" in flashes(client, api, "/settings/")
    post(client, api, f"/project/{pid}/check", {"csrf_token": csrf})
    assert "The check found no new version" in flashes(client, api, "/settings/")
    fake_upstream.route("/dl/", Answer(500, b"down"))
    post(client, api, f"/project/{pid}/check", {"csrf_token": csrf})
    assert "The check failed" in flashes(client, api, "/settings/")
    with api.runtime.db.connection_context():
        Project.update(archived=True).where(Project.id == pid).execute()
    before = last_event(api)
    assert post(client, api, f"/project/{pid}/check", {"csrf_token": csrf}).status_code == 403
    assert last_event(api) == before


@pytest.fixture
def two_checks(anitrack_env, monkeypatch):
    monkeypatch.setenv("ANITRACK_CHECK_NOW_LIMIT", "2")


def test_check_now_is_bounded_per_person(two_checks, api, clients, fake_upstream):
    fake_upstream.route("/dl/", PAGE)
    pid = add_project(api, name="foo", homepage="https://foo.example/", version_url=fake_upstream.url("/dl/"))
    client = clients["user"]
    csrf = token(client, api)
    for _ in range(2):
        post(client, api, f"/project/{pid}/check", {"csrf_token": csrf})
    flashes(client, api, "/settings/")
    post(client, api, f"/project/{pid}/check", {"csrf_token": csrf})
    shown = flashes(client, api, "/settings/")
    assert re.search(r"you may check again at \d\d:\d\d:\d\d UTC", shown), shown
    assert len(fake_upstream.requests_to("/dl/")) == 2
    post(clients["admin"], api, f"/project/{pid}/check", {"csrf_token": token(clients["admin"], api)})
    assert len(fake_upstream.requests_to("/dl/")) == 3, "another person has their own budget"
