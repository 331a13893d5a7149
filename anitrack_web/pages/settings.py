"""The settings page of a signed-in person: who they are, and their API tokens.

A new token's 40 characters are shown once: the form's answer redirects to the
settings page (so reloading it cannot make a second token), which takes the
value out of the session as it shows it.  The store keeps only a digest, so
the value can never be shown again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bottle import Bottle, HTTPError, redirect, request

from anitrack_core.db.accounts import add_token, delete_token
from anitrack_core.db.models import ApiToken, UserIdentity

from ..access import check_csrf, require_user
from ..sessions import flash, show_once, take_shown_once

if TYPE_CHECKING:
    from anitrack_core.db.models import User

    from ..context import WebContext

DESCRIPTION_MAX = 200
#: the session key holding a new token's value until the settings page shows it
_NEW_TOKEN = "new_token"


def _both(path: str) -> list[str]:
    return [path, path + "/"]


def add_routes(app: Bottle, ctx: WebContext) -> None:
    def settings_page(user: User, *, status: int = 200, new_token: str | None = None,
                      errors: dict[str, str] | None = None, description: str = "") -> str:
        tokens = list(ApiToken.select().where(ApiToken.user == user.id).order_by(ApiToken.created.desc()))
        identities = list(UserIdentity.select().where(UserIdentity.user == user.id).order_by(UserIdentity.id))
        return ctx.render("settings.html", status=status, tokens=tokens,
                          provider_titles=[ctx.provider_title(i.provider) for i in identities],
                          new_token=new_token, errors=errors or {},
                          description=description, description_max=DESCRIPTION_MAX)

    @app.get(_both("/settings"))
    def show_settings() -> str:
        user = require_user()
        return settings_page(user, new_token=take_shown_once(_NEW_TOKEN))

    @app.post(_both("/settings/tokens/new"))
    def create_token() -> str | None:
        user = require_user()
        check_csrf()
        description = (request.forms.getunicode("description") or "").strip()
        if len(description) > DESCRIPTION_MAX:
            return settings_page(user, status=400, description=description,
                                 errors={"description": f"At most {DESCRIPTION_MAX} characters "
                                                        f"(this one has {len(description)})."})
        show_once(_NEW_TOKEN, add_token(user, description or None))
        redirect("/settings/", 303)

    @app.post(_both("/settings/tokens/delete"))
    def remove_token() -> None:
        user = require_user()
        check_csrf()
        if not delete_token(user, request.forms.getunicode("token") or ""):
            raise HTTPError(404, "You have no such token (it may already be deleted).")
        flash("The token was deleted; it no longer works.", "success")
        redirect("/settings/", 303)
