"""Helpers for tests of the web pages over HTTP: a browser-like session, forms read from the HTML."""

from __future__ import annotations

import re
from datetime import timedelta
from html import unescape

import requests

from anitrack_core.db.sessions import open_session
from anitrack_web.sessions import COOKIE

_CSRF = re.compile(r'name="csrf_token" value="([^"]*)"')


def signed_in(api, user) -> requests.Session:
    """A client holding a session of *user*, as if they had signed in (the sign-in itself is tested in a
    real browser against a real identity provider, tests/browser)."""
    with api.runtime.db.connection_context():
        secret, _ = open_session(user, timedelta(hours=1))
    client = requests.Session()
    client.cookies.set(COOKIE, secret, domain="127.0.0.1", path="/")
    return client


def csrf_token(html: str) -> str:
    found = _CSRF.search(html)
    assert found, "the page has no form with a CSRF token"
    return unescape(found.group(1))


def text_of(html: str) -> str:
    """The page's text without tags, whitespace collapsed (for assertions on what a person reads)."""
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())
