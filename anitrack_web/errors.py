"""Every error the web app returns is JSON, never an HTML page.

The shape: ``{"error": "<message for people>", "status": <HTTP status>}``;
API v1 paths add ``"output": "notok"`` as its existing clients expect, and
validation errors add ``"message": {"<field>": "<problem>"}`` naming each
offending field.
"""

from __future__ import annotations

import json
import logging
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


def _handle(error: HTTPError) -> str:
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
    response.content_type = "application/json"
    return json.dumps(error_body(status, message))


def install_json_errors(app: Bottle) -> None:
    """Make *app* (the root app: mounted apps' handlers are ignored) answer every error in JSON."""
    app.default_error_handler = _handle
