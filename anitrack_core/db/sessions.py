"""Browser sessions of the web app, kept in the database so that they can be ended.

The browser's cookie holds a random secret; the row is keyed by its SHA-256
digest.  Ending a session is deleting its row: sign-out does it for one, a
ban or a deletion for every session of the user, and the next request of
that browser is anonymous.  A session of an inactive user is ended when it
is next seen.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from datetime import timedelta
from typing import Any

from peewee import JOIN

from .models import User, WebSession, utcnow

#: a session's last_seen is written at most this often (it is read on every request)
TOUCH_EVERY = timedelta(minutes=5)
#: how long a session started for a sign-in in progress lives
PENDING_LIFETIME = timedelta(minutes=15)


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def open_session(user: User | None, lifetime: timedelta, data: dict[str, Any] | None = None) -> tuple[str, WebSession]:
    """A new session; returns (the secret for the cookie, the row).  Expired sessions are swept first."""
    WebSession.delete().where(WebSession.expires_on < utcnow()).execute()
    secret = secrets.token_urlsafe(32)
    now = utcnow()
    row = WebSession.create(id=_digest(secret), user=user, csrf_token=secrets.token_urlsafe(32),
                            data=json.dumps(data or {}), created_on=now, last_seen=now, expires_on=now + lifetime)
    return secret, row


def find_session(secret: str | None) -> WebSession | None:
    """The live session whose cookie holds *secret*, with its user loaded; None if ended, expired or banned."""
    if not secret or len(secret) > 200:
        return None
    row = (WebSession.select(WebSession, User).join(User, JOIN.LEFT_OUTER)
           .where(WebSession.id == _digest(secret)).first())
    if row is None:
        return None
    now = utcnow()
    if row.expires_on < now or (row.user_id is not None and not row.user.active):
        row.delete_instance()
        return None
    if now - row.last_seen > TOUCH_EVERY:
        WebSession.update(last_seen=now).where(WebSession.id == row.id).execute()
    return row


def session_data(row: WebSession) -> dict[str, Any]:
    try:
        data = json.loads(row.data or "{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def save_session_data(row: WebSession, data: dict[str, Any]) -> None:
    row.data = json.dumps(data)
    WebSession.update(data=row.data).where(WebSession.id == row.id).execute()


def end_session(row: WebSession) -> None:
    WebSession.delete().where(WebSession.id == row.id).execute()


def end_sessions_of(user: User) -> int:
    """End every session of *user*; returns how many there were."""
    return WebSession.delete().where(WebSession.user == user.id).execute()
