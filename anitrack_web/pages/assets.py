"""The pages' own stylesheet and script, served by anitrack itself (no CDN, nothing from elsewhere)."""

from __future__ import annotations

from importlib import resources
from typing import TYPE_CHECKING

from bottle import Bottle, HTTPError, HTTPResponse, static_file

if TYPE_CHECKING:
    from ..context import WebContext

ASSETS = ("anitrack.css", "anitrack.js")


def add_routes(app: Bottle, ctx: WebContext) -> None:
    root = str(resources.files("anitrack_web") / "static")

    @app.get("/static/<name>")
    def asset(name: str) -> HTTPResponse:
        if name not in ASSETS:
            raise HTTPError(404, f"no such file: /static/{name}")
        answer = static_file(name, root=root)
        answer.set_header("Cache-Control", "public, max-age=3600")
        answer.set_header("X-Content-Type-Options", "nosniff")
        return answer
