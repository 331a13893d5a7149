"""Who may do what on the web pages, and the checks every form submission passes.

* :func:`require_user`: a page for signed-in people; anonymous visitors are
  sent to the sign-in page, which brings them back afterwards.
* :func:`require_admin`: administrators only; anyone else gets a 403 page.
* :func:`check_csrf`: every POST from a page carries the session's CSRF token
  (the synchronizer-token pattern); a missing or wrong one is a 400 and
  nothing is written.  Checked before the route reads anything else.
* :func:`local_path`: the only ``next`` destinations accepted are paths of
  this site, so sign-in can never redirect elsewhere.
"""

from __future__ import annotations

import hmac
from urllib.parse import quote, urlsplit

from bottle import HTTPError, redirect, request

from anitrack_core.db.models import User

from .sessions import visitor

CSRF_FIELD = "csrf_token"


def local_path(target: str | None, default: str = "/") -> str:
    """*target* if it is a path on this site (``/projects/?page=2``), else *default*."""
    if not target or not target.startswith("/") or target.startswith(("//", "/\\")):
        return default
    if any(ord(char) < 0x20 or char == "\\" for char in target):
        return default
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return default
    return target


def require_user() -> User:
    """The signed-in user; an anonymous visitor is redirected to sign in and come back here."""
    user = visitor().user
    if user is None:
        here = request.fullpath + (f"?{request.query_string}" if request.query_string else "")
        redirect(f"/login/?next={quote(here, safe='/')}", 303)
    return user


def require_admin() -> User:
    """The signed-in administrator; 403 for anyone else (after signing in)."""
    user = require_user()
    if not user.admin:
        raise HTTPError(403, "This page is for administrators.")
    return user


def check_csrf() -> None:
    """Refuse a form submission that does not carry this session's CSRF token (400, nothing written)."""
    expected = visitor().csrf_token
    given = request.forms.get(CSRF_FIELD) or ""
    if not expected or not hmac.compare_digest(given.encode("latin-1", "replace"), expected.encode("ascii")):
        raise HTTPError(400, "This form has expired or did not come from this site (its security token is "
                             "missing or wrong); nothing was changed. Go back, reload the page and try again.")
