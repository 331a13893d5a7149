"""The home page: a search box, what the service tracks, how the last check pass went, the latest changes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bottle import Bottle

from anitrack_core.db.history import recent_changes
from anitrack_core.db.models import Distro, Package, Project, Run

from . import browse

if TYPE_CHECKING:
    from ..context import WebContext

LATEST_CHANGES = 10


def add_routes(app: Bottle, ctx: WebContext) -> None:
    @app.get("/")
    def home() -> str:
        counts = {"projects": Project.select().count(), "distros": Distro.select().count(),
                  "packages": Package.select().count()}
        last_run = Run.select().where(Run.state == "finished").order_by(Run.created_on.desc()).first()  # not one running
        changes = [(change, browse.describe(change)) for change in recent_changes(limit=LATEST_CHANGES)]
        return ctx.render("home.html", counts=counts, last_run=last_run, changes=changes)
