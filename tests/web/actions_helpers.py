"""Helpers of the tests of the action pages: people, requests without redirects, the outbox."""

from __future__ import annotations

import json
import warnings

import pytest

from anitrack_core.db import accounts
from anitrack_core.db.models import OutboxEvent

from .pages import csrf_token, signed_in


def people(api):
    with api.runtime.db.connection_context():
        admin = accounts.add_user("root@example.org", "root", admin=True)
        user = accounts.add_user("alice@example.org", "alice")
    return {"admin": signed_in(api, admin), "user": signed_in(api, user)}


def get(client, api, path, **kwargs):
    return client.get(api.url(path), timeout=10, allow_redirects=False, **kwargs)


def post(client, api, path, data=None, **kwargs):
    return client.post(api.url(path), data=data or {}, timeout=10, allow_redirects=False, **kwargs)


def token(client, api, path="/settings/"):
    """The CSRF token of the client's session (read from a page it may see)."""
    return csrf_token(get(client, api, path).text)


def events(api, after=0):
    """The outbox rows after id *after*, bodies decoded and validated with anitya-schema."""
    from fedora_messaging.message import get_class

    with api.runtime.db.connection_context():
        rows = list(OutboxEvent.select().where(OutboxEvent.id > after).order_by(OutboxEvent.id).dicts())
    for row in rows:
        row["body"] = json.loads(row["body"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            get_class("anitya." + row["topic"])(body=row["body"], topic="org.anitrack." + row["topic"]).validate()
    return rows


def last_event(api):
    with api.runtime.db.connection_context():
        return OutboxEvent.select(OutboxEvent.id).order_by(OutboxEvent.id.desc()).scalar() or 0


def flashes(client, api, path):
    from .pages import text_of

    return text_of(get(client, api, path).text)


@pytest.fixture
def clients(api):
    """Signed-in sessions of an administrator ("admin", root@example.org) and a user ("user", alice@example.org)."""
    sessions = people(api)
    yield sessions
    for session in sessions.values():
        session.close()
