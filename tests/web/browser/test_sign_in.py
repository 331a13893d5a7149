"""Signing in through a real OpenID Connect provider, in a real browser, as a person would."""

from __future__ import annotations

import pytest
import requests

from anitrack_core.db.models import ApiToken, User

from .browsing import main_text, sign_in, sign_out

pytestmark = pytest.mark.browser


def test_sign_in_make_a_token_use_it_and_delete_it(api, page):
    answer = sign_in(page, api.base, "alice", next_path="/settings/")
    assert answer.status == 303
    assert page.url == api.base + "/settings/"
    assert "Signed in as alice." in main_text(page)
    assert "alice@example.org" in main_text(page)

    page.get_by_label("Description").fill("packaging scripts")
    page.get_by_role("button", name="Create token").click()
    token = page.locator("#new-token-value").input_value()
    assert len(token) == 40
    page.get_by_role("button", name="Copy").click()
    assert page.evaluate("navigator.clipboard.readText()") == token
    assert "packaging scripts" in main_text(page)

    created = requests.post(api.url("/api/v2/projects/"), headers={"Authorization": f"Token {token}"},
                            json={"name": "made-with-my-token", "homepage": "https://example.org/m",
                                  "backend": "custom", "version_url": "https://example.org/m/releases"},
                            timeout=10)
    assert created.status_code == 201, created.text

    page.reload()
    assert "shown only this once" not in main_text(page), "a token must never be shown twice"
    page.get_by_role("button", name="Delete token").click()
    page.wait_for_load_state()
    assert "You have no API token yet." in main_text(page)
    refused = requests.post(api.url("/api/v2/projects/"), headers={"Authorization": f"Token {token}"},
                            json={"name": "too-late", "homepage": "https://example.org/t", "backend": "custom",
                                  "version_url": "https://example.org/t/releases"}, timeout=10)
    assert refused.status_code == 401
    assert refused.json()["error"]


def test_the_session_id_changes_at_sign_in_and_sign_out_is_a_post(api, page):
    page.goto(api.base + "/login/")
    before = {c["name"]: c["value"] for c in page.context.cookies()}.get("anitrack_session")
    sign_in(page, api.base, "alice")
    after = {c["name"]: c["value"] for c in page.context.cookies()}["anitrack_session"]
    assert after != before
    cookie = next(c for c in page.context.cookies() if c["name"] == "anitrack_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax"

    page.goto(api.base + "/logout/")
    assert page.get_by_role("button", name="Sign out").count()  # a GET only asks
    page.goto(api.base + "/settings/")
    assert page.url.startswith(api.base + "/settings/")
    sign_out(page)
    page.goto(api.base + "/settings/")
    assert page.url.startswith(api.base + "/login/")


def test_a_second_provider_with_the_same_email_is_refused_naming_the_first(api, page):
    sign_in(page, api.base, "alice", provider="one")
    sign_out(page)
    answer = sign_in(page, api.base, "alice", provider="two")
    assert answer.status == 400
    text = main_text(page)
    assert "alice@example.org" in text and "sign in with Provider One" in text
    with api.runtime.db.connection_context():
        assert User.select().where(User.email == "alice@example.org").count() == 1
    page.goto(api.base + "/settings/")
    assert page.url.startswith(api.base + "/login/"), "the refused sign-in must not sign anyone in"


def test_a_banned_user_loses_their_session_and_tokens_and_cannot_sign_in(api, new_page):
    alice = new_page()
    sign_in(alice, api.base, "alice", next_path="/settings/")
    alice.get_by_role("button", name="Create token").click()
    token = alice.locator("#new-token-value").input_value()
    assert requests.get(api.url("/api/v2/projects/"), timeout=10).ok

    root = new_page()
    sign_in(root, api.base, "root", next_path="/users/")
    root.get_by_role("button", name="Ban alice").click()
    root.wait_for_load_state()
    row = root.get_by_role("row").filter(has_text="alice@example.org")
    assert "Banned" in row.inner_text()

    alice.goto(api.base + "/settings/")
    assert alice.url.startswith(api.base + "/login/"), "a banned user's open session must end at once"
    refused = requests.post(api.url("/api/v2/projects/"), headers={"Authorization": f"Token {token}"},
                            json={"name": "banned", "homepage": "https://example.org/b", "backend": "custom",
                                  "version_url": "https://example.org/b/releases"}, timeout=10)
    assert refused.status_code == 401

    answer = sign_in(alice, api.base, "alice")
    assert answer.status == 403
    assert "deactivated" in main_text(alice).lower() or "banned" in main_text(alice).lower()


def test_a_form_without_its_csrf_token_is_refused_and_writes_nothing(api, page):
    sign_in(page, api.base, "alice", next_path="/settings/")
    page.locator('form[action="/settings/tokens/new"] input[name="csrf_token"]').evaluate("e => e.remove()")
    page.get_by_label("Description").fill("forged")
    with page.expect_response(lambda r: r.url.endswith("/settings/tokens/new")) as answer:
        page.get_by_role("button", name="Create token").click()
    assert answer.value.status == 400
    with api.runtime.db.connection_context():
        assert ApiToken.select().where(ApiToken.description == "forged").count() == 0


@pytest.mark.parametrize("elsewhere", ["https://elsewhere.example/steal", "//elsewhere.example/steal",
                                       "/\\elsewhere.example"])
def test_next_never_leaves_the_site(api, page, elsewhere):
    sign_in(page, api.base, "alice", next_path=elsewhere)
    assert page.url.startswith(api.base + "/")
    assert "elsewhere" not in page.url.removeprefix(api.base)


def test_an_administrator_promotes_bans_and_deletes(api, new_page):
    bob = new_page()
    sign_in(bob, api.base, "bob")
    root = new_page()
    sign_in(root, api.base, "root", next_path="/users/")
    assert "Administrator" in root.locator(".site-nav").inner_text() or root.get_by_role("link", name="Users").count()

    root.get_by_role("button", name="Make admin bob").click()
    root.wait_for_load_state()
    bob_row = root.get_by_role("row").filter(has_text="bob@example.org")
    assert "Admin" in bob_row.inner_text()
    root.get_by_role("button", name="Revoke admin bob").click()
    root.wait_for_load_state()
    root.get_by_role("button", name="Ban bob").click()
    root.wait_for_load_state()
    root.get_by_role("button", name="Unban bob").click()
    root.wait_for_load_state()
    root.get_by_role("link", name="Delete bob").click()
    root.get_by_role("button", name="Delete").click()
    root.wait_for_load_state()
    assert "bob@example.org" not in main_text(root)
    with api.runtime.db.connection_context():
        assert not User.select().where(User.email == "bob@example.org").exists()
    bob.goto(api.base + "/settings/")
    assert bob.url.startswith(api.base + "/login/"), "a deleted user's session ends with them"


def test_a_non_administrator_gets_no_access_to_the_users_page(api, page):
    sign_in(page, api.base, "alice")
    assert page.get_by_role("link", name="Users").count() == 0
    answer = page.goto(api.base + "/users/")
    assert answer.status == 403
    with api.runtime.db.connection_context():
        alice = User.get(User.email == "alice@example.org")
    answer = page.request.post(f"{api.base}/users/{alice.id}/admin/true", form={"csrf_token": "x"},
                               max_redirects=0)
    assert answer.status == 403


def test_the_sign_in_and_account_pages_pass_axe(api, new_page, accessibility_problems):
    root = new_page()
    sign_in(root, api.base, "root", next_path="/settings/")
    root.get_by_role("button", name="Create token").click()
    problems = accessibility_problems(root)
    for path in ("/users/", f"/users/{_user_id(api, 'tester@example.org')}/delete", "/logout/"):
        root.goto(api.base + path)
        problems += accessibility_problems(root)
    visitor = new_page()
    for path in ("/", "/login/", "/no/such/page"):
        visitor.goto(api.base + path)
        problems += accessibility_problems(visitor)
    assert not problems, "\n".join(problems)


def _user_id(api, email):
    with api.runtime.db.connection_context():
        return User.get(User.email == email).id
