"""The web pages: server-rendered HTML for people, beside the API.

Each module adds the routes of one concern; a route validates its input,
calls the same store function the API calls (so a change is announced once,
from one place) and renders a template.  Pages work without JavaScript;
``static/anitrack.js`` only adds conveniences (a copy button, confirmations).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bottle import Bottle

from . import (admin_projects, assets, dashboard, distro_admin, distros, flags, home, logs, mappings, project,
               project_forms, projects, settings, signin, users, webhooks)

if TYPE_CHECKING:
    from ..context import WebContext


def add_routes(app: Bottle, ctx: WebContext) -> None:
    for module in (assets, home, signin, settings, users, webhooks, projects, project, distros, logs,
                   project_forms, admin_projects, mappings, flags, distro_admin, dashboard):
        module.add_routes(app, ctx)
