"""API token authentication: ``Authorization: Token <40 characters>``.

The scheme word is matched case-insensitively (``Token``, ``token``); the
endpoints that the interface names also accept ``?access_token=``.  Tokens
of inactive users are refused, and a refused request gets a 401 whose JSON
body says why, before its body is even read.
"""

from __future__ import annotations

from bottle import HTTPResponse, request

from anitrack_core.db.accounts import user_for_token
from anitrack_core.db.models import User

from .errors import error_body


def _presented_token(allow_query: bool) -> str | None:
    header = request.get_header("Authorization")
    if header:
        parts = header.split()
        if len(parts) == 2 and parts[0].lower() == "token":
            return parts[1]
        return None
    if allow_query:
        return request.query.get("access_token") or None
    return None


def require_user(*, allow_query: bool = False) -> User:
    """The user the request's token belongs to; raises the 401 response otherwise."""
    token = _presented_token(allow_query)
    user = user_for_token(token) if token else None
    if user is None:
        description = ("Authentication is required to access this API: send 'Authorization: Token <your "
                       "API token>'." if token is None else "The API token is invalid or its user is inactive.")
        body = error_body(401, "authentication_required", error_description=description)
        raise HTTPResponse(body, status=401, headers={"WWW-Authenticate": "Token"})
    return user
