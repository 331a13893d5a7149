"""The home page: a search box, what the service tracks, and how the last check pass went."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bottle import Bottle

from anitrack_core.db.models import Distro, Package, Project, Run

if TYPE_CHECKING:
    from ..context import WebContext


def add_routes(app: Bottle, ctx: WebContext) -> None:
    @app.get("/")
    def home() -> str:
        counts = {"projects": Project.select().count(), "distros": Distro.select().count(),
                  "packages": Package.select().count()}
        last_run = Run.select().order_by(Run.created_on.desc()).first()
        return ctx.render("home.html", counts=counts, last_run=last_run)
