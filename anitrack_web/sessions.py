"""Who is visiting: the browser's session, its user and its CSRF token, for the web pages.

The session lives in the database (:mod:`anitrack_core.db.sessions`); the
cookie ``anitrack_session`` holds its secret, HttpOnly, SameSite=Lax, and
Secure whenever the service's ``base_url`` is https.  A session id changes at
sign-in (the session of the sign-in in progress is ended and a new one made),
so a cookie planted before sign-in is worth nothing after it.

The API does not look at sessions: it authenticates with tokens only, so it
needs no CSRF defence and costs no session lookup.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from bottle import Bottle, request, response

from anitrack_core.db.models import User, WebSession
from anitrack_core.db.sessions import (
    PENDING_LIFETIME,
    end_session,
    find_session,
    open_session,
    save_session_data,
    session_data,
)

COOKIE = "anitrack_session"
_ENVIRON_KEY = "anitrack.visitor"
#: paths served without a session (token-authenticated API, machine endpoints, assets)
_SESSIONLESS = ("/api/", "/metrics", "/healthz", "/static/")


@dataclass
class Visitor:
    """The session of the current request, if its browser has one."""

    session: WebSession | None = None
    _data: dict[str, Any] | None = field(default=None, repr=False)

    @property
    def user(self) -> User | None:
        return self.session.user if self.session is not None and self.session.user_id is not None else None

    @property
    def csrf_token(self) -> str | None:
        return self.session.csrf_token if self.session is not None else None

    @property
    def data(self) -> dict[str, Any]:
        """The session's stored data (empty without a session); call :meth:`save` after changing it."""
        if self._data is None:
            self._data = session_data(self.session) if self.session is not None else {}
        return self._data

    def save(self) -> None:
        if self.session is not None and self._data is not None:
            save_session_data(self.session, self._data)


def visitor() -> Visitor:
    """The visitor of the current request."""
    found = request.environ.get(_ENVIRON_KEY)
    if found is None:
        found = request.environ[_ENVIRON_KEY] = Visitor()
    return found


def current_user() -> User | None:
    return visitor().user


class SessionCookies:
    """Reads the session of each page request and issues session cookies."""

    def __init__(self, *, secure: bool, lifetime: timedelta) -> None:
        self.secure = secure
        self.lifetime = lifetime

    def install(self, app: Bottle) -> None:
        """Load the visitor's session before every page request (after the database hook)."""

        @app.hook("before_request")
        def _load_visitor() -> None:
            if not request.path.startswith(_SESSIONLESS):
                request.environ[_ENVIRON_KEY] = Visitor(find_session(request.get_cookie(COOKIE)))

    def ensure_session(self) -> Visitor:
        """The visitor, with a session made for it if it had none (a sign-in about to start)."""
        current = visitor()
        if current.session is None:
            secret, row = open_session(None, PENDING_LIFETIME)
            self._set_cookie(secret, PENDING_LIFETIME)
            current = request.environ[_ENVIRON_KEY] = Visitor(row)
        return current

    def sign_in(self, user: User, data: dict[str, Any] | None = None) -> Visitor:
        """End the current session and open a new one for *user* (a fresh id and CSRF token)."""
        old = visitor()
        if old.session is not None:
            end_session(old.session)
        secret, row = open_session(user, self.lifetime, data)
        row.user = user
        self._set_cookie(secret, self.lifetime)
        request.environ[_ENVIRON_KEY] = new = Visitor(row)
        return new

    def sign_out(self) -> None:
        """End the current session and forget its cookie."""
        current = visitor()
        if current.session is not None:
            end_session(current.session)
        request.environ[_ENVIRON_KEY] = Visitor()
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax", secure=self.secure)

    def _set_cookie(self, secret: str, lifetime: timedelta) -> None:
        response.set_cookie(COOKIE, secret, path="/", httponly=True, samesite="lax", secure=self.secure,
                            max_age=int(lifetime.total_seconds()))


def flash(text: str, kind: str = "info") -> None:
    """Show *text* on the visitor's next page (kinds: info, success, error)."""
    current = visitor()
    if current.session is None:
        return
    current.data.setdefault("flashes", []).append({"text": text, "kind": kind})
    current.save()


def pop_flashes() -> list[dict[str, str]]:
    """The messages waiting for the visitor, removed from the session."""
    current = visitor()
    if current.session is None or not current.data.get("flashes"):
        return []
    messages = current.data.pop("flashes")
    current.save()
    return messages


def show_once(key: str, value: str) -> None:
    """Keep a secret (a new token, a webhook secret) for the next page to show once, after a redirect."""
    current = visitor()
    current.data.setdefault("show_once", {})[key] = value
    current.save()


def take_shown_once(key: str) -> str | None:
    """The secret :func:`show_once` kept under *key*, removed from the session (None if there is none)."""
    current = visitor()
    kept = current.data.get("show_once") or {}
    if key not in kept:
        return None
    value = kept.pop(key)
    current.save()
    return value
