"""Sign-in pages, the settings page with API tokens, and the users page, over HTTP.

The complete sign-in through a real identity provider in a real browser is in
tests/browser; here the session is opened directly and everything around it
is checked: what each page says and lets through, CSRF, headers, redirects.
"""

import re

import pytest
import requests

from anitrack_core.db import accounts
from anitrack_core.db.models import ApiToken, User

from .pages import csrf_token, signed_in, text_of

HTML_HEADERS = {"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin"}


@pytest.fixture
def people(api):
    with api.runtime.db.connection_context():
        admin = accounts.add_user("root@example.org", "root", admin=True)
        user = accounts.add_user("alice@example.org", "alice")
    return {"admin": admin, "user": user}


def get(client, api, path, **kwargs):
    return client.get(api.url(path), timeout=10, allow_redirects=False, **kwargs)


def post(client, api, path, data, **kwargs):
    return client.post(api.url(path), data=data, timeout=10, allow_redirects=False, **kwargs)


def test_without_providers_the_login_page_says_sign_in_is_not_configured(api):
    response = get(requests, api, "/login/")
    assert response.status_code == 200
    assert "Sign-in is not configured on this server" in text_of(response.text)


def test_the_api_still_answers_401_in_json_without_providers(api):
    response = api.post("/api/v2/projects/", auth=False, json={"name": "x"})
    assert response.status_code == 401
    assert response.json()["error"] == "authentication_required"


@pytest.mark.parametrize("path", ["/", "/login/", "/nope/", "/logout/", "/static/docs/api.html"])
def test_every_html_page_carries_the_security_headers(api, path):
    response = get(requests, api, path)
    assert response.headers["Content-Type"].startswith("text/html")
    for name, value in HTML_HEADERS.items():
        assert response.headers[name] == value
    policy = response.headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in policy and "unsafe-inline" not in policy.split("script-src")[-1][:30]
    assert "script-src" not in policy or "'unsafe-inline'" not in re.search(r"script-src[^;]*", policy).group(0)


def test_unknown_pages_are_html_404_pages_but_json_for_json_clients(api):
    page = get(requests, api, "/no/such/page")
    assert page.status_code == 404 and page.headers["Content-Type"].startswith("text/html")
    assert "Not found" in page.text
    as_json = get(requests, api, "/no/such/page", headers={"Accept": "application/json"})
    assert as_json.status_code == 404 and as_json.json()["status"] == 404


@pytest.mark.parametrize("path", ["/settings/", "/users/", "/users/00000000-0000-0000-0000-000000000000/delete"])
def test_anonymous_visitors_are_sent_to_sign_in_and_back(api, path):
    response = get(requests, api, path)
    assert response.status_code == 303
    assert response.headers["Location"].endswith(f"/login/?next={path}")


def test_settings_page_creates_a_token_shown_once_that_the_api_accepts(api, people):
    client = signed_in(api, people["user"])
    page = get(client, api, "/settings/")
    assert page.status_code == 200
    assert page.headers["Cache-Control"] == "no-store"
    assert "alice@example.org" in page.text and "You have no API token yet" in text_of(page.text)
    created = post(client, api, "/settings/tokens/new", {"csrf_token": csrf_token(page.text),
                                                         "description": "release script"})
    assert created.status_code == 303 and created.headers["Location"].endswith("/settings/")
    shown = get(client, api, "/settings/")
    assert shown.headers["Cache-Control"] == "no-store"
    token = re.search(r'id="new-token-value"[^>]*value="([A-Za-z0-9]{40})"', shown.text).group(1)
    assert "shown only this once" in text_of(shown.text)
    again = get(client, api, "/settings/")
    assert token not in again.text and token[:4] + "…" in text_of(again.text)
    assert "release script" in again.text
    made = api.session.post(api.url("/api/v2/projects/"), headers={"Authorization": f"Token {token}"}, timeout=10,
                            json={"name": "geany", "homepage": "https://www.geany.org/", "backend": "PyPI"})
    assert made.status_code == 201, made.text
    with api.runtime.db.connection_context():
        digest = ApiToken.get(ApiToken.description == "release script").token
    deleted = post(client, api, "/settings/tokens/delete", {"csrf_token": csrf_token(again.text), "token": digest})
    assert deleted.status_code == 303 and deleted.headers["Location"].endswith("/settings/")
    refused = api.session.post(api.url("/api/v2/projects/"), headers={"Authorization": f"Token {token}"},
                               timeout=10, json={"name": "x", "homepage": "https://x.example/", "backend": "custom"})
    assert refused.status_code == 401


def test_a_form_without_the_right_csrf_token_is_refused_and_writes_nothing(api, people):
    client = signed_in(api, people["user"])
    for data in ({"description": "x"}, {"description": "x", "csrf_token": "forged"}):
        response = post(client, api, "/settings/tokens/new", data)
        assert response.status_code == 400
        assert "security token is missing or wrong" in text_of(response.text)
    with api.runtime.db.connection_context():
        assert ApiToken.select().where(ApiToken.user == people["user"].id).count() == 0


def test_a_too_long_description_comes_back_with_the_field_named(api, people):
    client = signed_in(api, people["user"])
    page = get(client, api, "/settings/")
    response = post(client, api, "/settings/tokens/new", {"csrf_token": csrf_token(page.text),
                                                          "description": "d" * 300})
    assert response.status_code == 400
    assert 'aria-invalid="true"' in response.text and "At most 200 characters" in response.text
    assert 'value="' + "d" * 300 + '"' in response.text


def test_another_users_token_cannot_be_deleted(api, people):
    with api.runtime.db.connection_context():
        accounts.add_token(people["admin"], "admin's")
        digest = ApiToken.get(ApiToken.user == people["admin"].id).token
    client = signed_in(api, people["user"])
    page = get(client, api, "/settings/")
    response = post(client, api, "/settings/tokens/delete", {"csrf_token": csrf_token(page.text), "token": digest})
    assert response.status_code == 404
    with api.runtime.db.connection_context():
        assert ApiToken.select().where(ApiToken.user == people["admin"].id).count() == 1


def test_sign_out_is_a_post_that_ends_the_session(api, people):
    client = signed_in(api, people["user"])
    page = get(client, api, "/logout/")
    assert page.status_code == 200 and "Sign out" in page.text
    assert get(client, api, "/settings/").status_code == 200
    out = post(client, api, "/logout/", {"csrf_token": csrf_token(page.text)})
    assert out.status_code == 303
    assert get(client, api, "/settings/").status_code == 303


def test_the_users_page_is_for_administrators_only(api, people):
    client = signed_in(api, people["user"])
    page = get(client, api, "/users/")
    assert page.status_code == 403 and "for administrators" in page.text
    settings = get(client, api, "/settings/")
    target = f"/users/{people['admin'].id}/active/false"
    response = post(client, api, target, {"csrf_token": csrf_token(settings.text)})
    assert response.status_code == 403
    with api.runtime.db.connection_context():
        assert User.get_by_id(people["admin"].id).active


def test_an_administrator_filters_promotes_bans_and_deletes(api, people):
    admin = signed_in(api, people["admin"])
    alice = signed_in(api, people["user"])
    with api.runtime.db.connection_context():
        token = accounts.add_token(people["user"])
    listed = get(admin, api, "/users/?q=ALI&admin=no&active=yes")
    assert listed.status_code == 200
    assert "alice@example.org" in listed.text and "root@example.org" not in listed.text
    form = {"csrf_token": csrf_token(listed.text)}
    user_id = people["user"].id

    assert post(admin, api, f"/users/{user_id}/admin/true", form).status_code == 303
    assert get(alice, api, "/users/").status_code == 200
    assert post(admin, api, f"/users/{user_id}/admin/false", form).status_code == 303
    assert get(alice, api, "/users/").status_code == 403

    assert post(admin, api, f"/users/{user_id}/active/false", form).status_code == 303
    assert get(alice, api, "/settings/").status_code == 303, "the banned user's session must end at once"
    refused = api.session.post(api.url("/api/v2/projects/"), headers={"Authorization": f"Token {token}"},
                               timeout=10, json={"name": "x", "homepage": "https://x.example/", "backend": "custom"})
    assert refused.status_code == 401
    assert "Banned" in get(admin, api, "/users/?active=no").text

    confirm = get(admin, api, f"/users/{user_id}/delete")
    assert confirm.status_code == 200 and "cannot be undone" in confirm.text
    assert post(admin, api, f"/users/{user_id}/delete", {"csrf_token": csrf_token(confirm.text)}).status_code == 303
    with api.runtime.db.connection_context():
        assert User.get_or_none(User.id == user_id) is None


def test_an_administrator_cannot_ban_or_delete_themselves(api, people):
    admin = signed_in(api, people["admin"])
    form = {"csrf_token": csrf_token(get(admin, api, "/users/").text)}
    for path in (f"/users/{people['admin'].id}/active/false", f"/users/{people['admin'].id}/delete",
                 f"/users/{people['admin'].id}/admin/false"):
        assert post(admin, api, path, form).status_code == 403
    with api.runtime.db.connection_context():
        assert User.get_by_id(people["admin"].id).admin


def test_bad_filters_are_named(api, people):
    admin = signed_in(api, people["admin"])
    response = get(admin, api, "/users/?admin=maybe")
    assert response.status_code == 400 and "Choose yes, no or any." in response.text


@pytest.mark.parametrize("target, expected", [
    ("/projects/?page=2", "/projects/?page=2"), ("https://elsewhere.example/", "/"), ("//elsewhere.example/", "/"),
    ("/\\elsewhere.example", "/"), ("javascript:alert(1)", "/"), ("/ok\r\nSet-Cookie: x", "/"), ("", "/"),
])
def test_next_destinations_stay_on_this_site(target, expected):
    from anitrack_web.access import local_path

    assert local_path(target) == expected
