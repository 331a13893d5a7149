"""Rendering pages: Jinja2 templates with automatic escaping, and the headers every HTML page carries.

Every HTML answer of the service goes through :func:`html_headers`: a
Content-Security-Policy that allows no inline script and nothing from another
site, ``X-Frame-Options: DENY``, a strict Referrer-Policy, ``nosniff``, and
``Cache-Control: no-store`` on pages shown to a signed-in person (they can show
a token, and are nobody else's business).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import jinja2
from bottle import request, response

from anitrack_core import core_version

from ..access import CSRF_FIELD
from ..sessions import pop_flashes, visitor

CONTENT_SECURITY_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                           "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
                           "form-action 'self'; frame-ancestors 'none'")


def html_headers(*, private: bool) -> None:
    """Set the security headers of an HTML page on the current response."""
    response.content_type = "text/html; charset=utf-8"
    response.set_header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    response.set_header("X-Frame-Options", "DENY")
    response.set_header("X-Content-Type-Options", "nosniff")
    response.set_header("Referrer-Policy", "same-origin")
    if private:
        response.set_header("Cache-Control", "no-store")
    else:
        response.set_header("Cache-Control", "no-cache")


STATUS_TITLES = {400: "That did not work", 401: "Sign-in needed", 403: "Not allowed", 404: "Not found",
                 405: "Not allowed here", 409: "Conflict", 413: "Too large", 502: "Provider unreachable"}


def _datetime(value: datetime | str | None, style: str = "%Y-%m-%d %H:%M") -> str:
    """A stored (naive UTC) timestamp for people: ``2026-11-23 14:05 UTC``."""
    if value is None or value == "":
        return "never"
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value.replace(tzinfo=timezone.utc).strftime(style) + " UTC"


def _iso(value: datetime | None) -> str:
    return value.replace(tzinfo=timezone.utc).isoformat() if value else ""


class Renderer:
    """The template environment of one application."""

    def __init__(self, *, site_name: str = "anitrack") -> None:
        self.env = jinja2.Environment(
            loader=jinja2.PackageLoader("anitrack_web", "templates"),
            autoescape=jinja2.select_autoescape(default=True, default_for_string=True),
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.env.filters["datetime"] = _datetime
        self.env.filters["iso"] = _iso
        version = core_version() or "dev"
        self.env.globals.update(site_name=site_name, version=version, csrf_field=CSRF_FIELD)

    def render(self, template: str, *, status: int = 200, show_flashes: bool = True, **context: Any) -> str:
        """The page *template* for the current visitor, with its headers set on the current response.

        :param show_flashes: show (and consume) the messages waiting in the session;
            error pages leave them for the next page.
        """
        current = visitor()
        user = current.user
        response.status = status
        html_headers(private=user is not None)
        page = self.env.get_template(template)
        return page.render(user=user, status=status, csrf_token=current.csrf_token or "",
                           flashes=pop_flashes() if show_flashes else [],
                           request_path=request.path, request_url=request.fullpath
                           + (f"?{request.query_string}" if request.query_string else ""), **context)

    def error_page(self, status: int, message: str) -> str:
        """The page of an error; it leaves the session's waiting messages for the next page."""
        title = STATUS_TITLES.get(status, "Something went wrong")
        return self.render("error.html", status=status, show_flashes=False, status_title=title, message=message)
