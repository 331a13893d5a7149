"""Who a sign-in is: found by (provider, subject), made at the first sign-in, refused when it must be."""

import pytest

from anitrack_core.db import accounts
from anitrack_core.db.models import User, UserIdentity, WebSession
from anitrack_core.db.sessions import find_session, open_session
from anitrack_core.errors import AnitrackError, EmailTakenError, InactiveUserError
from anitrack_core.identity import Identity
from datetime import timedelta

pytestmark = pytest.mark.usefixtures("anitrack_db")


def alice(subject="sub-1", email="alice@example.org", **kwargs):
    return Identity(subject, email, kwargs.pop("username", "alice"), **kwargs)


def test_a_first_sign_in_makes_the_user_and_a_second_finds_it():
    user = accounts.sign_in("corp", alice())
    assert (user.email, user.username, user.admin, user.active) == ("alice@example.org", "alice", False, True)
    assert user.last_login is not None
    again = accounts.sign_in("corp", alice(email="alice@new.example.org"))
    assert again.id == user.id
    assert User.select().count() == 1
    assert UserIdentity.get().email == "alice@new.example.org"


def test_the_same_email_through_another_provider_is_refused_naming_the_first():
    accounts.sign_in("corp", alice())
    with pytest.raises(EmailTakenError) as caught:
        accounts.sign_in("github", alice(subject="gh-77", email="ALICE@example.org"))
    assert caught.value.providers == ["corp"]
    assert UserIdentity.select().count() == 1


def test_a_user_who_never_signed_in_is_bound_to_the_first_provider():
    made = accounts.add_user("bob@example.org", "bob", admin=True)
    user = accounts.sign_in("github", Identity("42", "Bob@Example.org", "bobby"))
    assert user.id == made.id and user.admin
    assert [(i.provider, i.subject) for i in UserIdentity.select()] == [("github", "42")]


def test_inactive_users_cannot_sign_in_and_nothing_is_written():
    made = accounts.add_user("carol@example.org", "carol")
    accounts.set_active(made, False)
    with pytest.raises(InactiveUserError):
        accounts.sign_in("corp", Identity("c", "carol@example.org", "carol"))
    assert UserIdentity.select().count() == 0
    assert User.get_by_id(made.id).last_login is None


def test_admin_emails_are_made_administrators_at_sign_in():
    user = accounts.sign_in("corp", alice(), admin_emails=["Alice@Example.org"])
    assert user.admin and User.get_by_id(user.id).admin


@pytest.mark.parametrize("identity, problem", [
    (Identity("x", None, "nomail"), "did not give an e-mail"),
    (Identity("x", "not-an-address", "x"), "did not give an e-mail"),
    (Identity("x", "eve@example.org", "eve", email_verified=False), "not verified"),
])
def test_unusable_email_addresses_are_refused(identity, problem):
    with pytest.raises(AnitrackError, match=problem):
        accounts.sign_in("corp", identity)
    assert User.select().count() == 0


def test_a_ban_ends_every_session_and_stops_the_tokens():
    user = accounts.sign_in("corp", alice())
    token = accounts.add_token(user, "scripts")
    secrets = [open_session(user, timedelta(hours=1))[0] for _ in range(2)]
    assert accounts.user_for_token(token).id == user.id
    accounts.set_active(user, False)
    assert WebSession.select().count() == 0
    assert all(find_session(secret) is None for secret in secrets)
    assert accounts.user_for_token(token) is None
    accounts.set_active(user, True)
    assert accounts.user_for_token(token).id == user.id


def test_deleting_a_user_deletes_identities_tokens_and_sessions():
    user = accounts.sign_in("corp", alice())
    accounts.add_token(user)
    open_session(user, timedelta(hours=1))
    accounts.delete_user(user)
    assert (User.select().count(), UserIdentity.select().count(), WebSession.select().count()) == (0, 0, 0)


def test_expired_sessions_are_not_found():
    user = accounts.sign_in("corp", alice())
    secret, _ = open_session(user, timedelta(seconds=-1))
    assert find_session(secret) is None
    assert find_session("not-a-session") is None
