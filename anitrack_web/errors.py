"""Errors: JSON for the API and for clients asking for JSON, an HTML page for people.

Every error under ``/api/`` (and of the machine endpoints) is JSON, never an
HTML page.  The shape: ``{"error": "<message for people>", "status": <HTTP
status>}``; API v1 paths add ``"output": "notok"`` as its existing clients
expect, and validation errors add ``"message": {"<field>": "<problem>"}``
naming each offending field.  Elsewhere (the web pages) an error is a page,
unless the request's ``Accept`` header prefers JSON.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from bottle import Bottle, HTTPError, HTTPResponse, request, response

log = logging.getLogger(__name__)

_REASONS = {
    400: "bad request", 401: "authentication required", 403: "forbidden", 404: "not found",
    405: "method not allowed", 409: "conflict", 413: "request body too large", 500: "internal server error",
}


def error_body(status: int, error: Any, **extra: Any) -> dict[str, Any]:
    body = {"error": error, "status": status, **extra}
    if request.path.startswith("/api/") and not request.path.startswith("/api/v2/"):
        body.setdefault("output", "notok")
    return body


def api_error(status: int, error: Any, **extra: Any) -> HTTPResponse:
    """An error response to raise from a route."""
    return HTTPResponse(error_body(status, error, **extra), status=status)


#: paths whose errors are always JSON
_JSON_PATHS = ("/api", "/metrics", "/healthz")


def wants_json() -> bool:
    """True when the current request should get JSON: API paths, or an ``Accept`` preferring JSON to HTML."""
    if request.path.startswith(_JSON_PATHS):
        return True
    accept = (request.get_header("Accept") or "").lower()
    return "json" in accept and "text/html" not in accept


def _message(error: HTTPError) -> str:
    status = error.status_code
    if status >= 500:
        log.error("internal error on %s %s: %r\n%s", request.method, request.path, error.exception,
                  error.traceback or "")
        message = "internal server error"
    elif status == 404 and error.body in (None, "", "Not found: " + repr(request.path)):
        message = f"no such resource: {request.path}"
    elif status == 405:
        message = f"method {request.method} is not allowed on {request.path}"
    elif isinstance(error.body, str) and error.body:
        message = error.body
    else:
        message = _REASONS.get(status, "error")
    return message


def install_errors(app: Bottle, error_page: Callable[[int, str], str]) -> None:
    """Make *app* (the root app: mounted apps' handlers are ignored) answer every error in JSON or as a page.

    :param error_page: renders the HTML page of an error (status, message for people).
    """

    def handle(error: HTTPError) -> str:
        message = _message(error)
        if wants_json():
            response.content_type = "application/json"
            return json.dumps(error_body(error.status_code, message))
        return error_page(error.status_code, message)

    app.default_error_handler = handle
