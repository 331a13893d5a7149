"""A signed-in person's webhooks: /settings/webhooks/ (subscribe, pause, delete) and each one's
delivery log, /settings/webhooks/<id>/.  The same store functions as the API
(anitrack_core.webhooks.subscriptions); the secret is shown once, after the redirect."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bottle import Bottle, HTTPError, redirect, request

from anitrack_core.errors import FieldError
from anitrack_core.events import TOPICS
from anitrack_core.webhooks import subscriptions

from ..access import check_csrf, require_user
from ..sessions import flash, show_once, take_shown_once

if TYPE_CHECKING:
    from ..context import WebContext

_NEW_SECRET = "webhook_secret"


def _both(path: str) -> list[str]:
    return [path, path + "/"]


def _names(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def add_routes(app: Bottle, ctx: WebContext) -> None:
    def listing(user: Any, *, status: int = 200, errors: dict[str, str] | None = None,
                typed: dict[str, Any] | None = None) -> str:
        hooks = [{**subscriptions.as_json(w), "last": (subscriptions.deliveries(w, 1) or [None])[0]}
                 for w in subscriptions.of_user(user)]
        return ctx.render("webhooks.html", status=status, hooks=hooks, topics=TOPICS, errors=errors or {},
                          typed=typed or {"topics": []}, new_secret=take_shown_once(_NEW_SECRET),
                          limit=ctx.runtime.settings["webhooks_per_user"])

    def own(user: Any, webhook_id: int) -> Any:
        webhook = subscriptions.find(user, webhook_id)
        if webhook is None:
            raise HTTPError(404, "You have no webhook with that id.")
        return webhook

    @app.get(_both("/settings/webhooks"))
    def webhooks_page() -> str:
        return listing(require_user())

    @app.post(_both("/settings/webhooks/new"))
    def create_webhook() -> str | None:
        user = require_user()
        check_csrf()
        forms = request.forms
        typed = {"url": forms.getunicode("url") or "", "description": forms.getunicode("description") or "",
                 "topics": [t for t in forms.getall("topics")],
                 **{name: forms.getunicode(name) or "" for name in subscriptions.FILTERS}}
        try:
            webhook, secret = subscriptions.create(
                user, ctx.runtime.settings, ctx.plugins, url=typed["url"], description=typed["description"],
                topics=typed["topics"], **{name: _names(typed[name]) for name in subscriptions.FILTERS})
        except FieldError as exc:
            return listing(user, status=400, errors={exc.field: str(exc)}, typed=typed)
        show_once(_NEW_SECRET, secret)
        flash(f"Webhook {webhook.id} created: events from now on are sent to {webhook.url}.", "success")
        redirect("/settings/webhooks/", 303)

    @app.post("/settings/webhooks/<webhook_id:int>/active/<state>")
    def pause_or_resume(webhook_id: int, state: str) -> None:
        user = require_user()
        check_csrf()
        if state not in ("true", "false"):
            raise HTTPError(404, "No such action.")
        subscriptions.set_active(own(user, webhook_id), state == "true")
        flash(f"Webhook {webhook_id} {'resumed: waiting events follow' if state == 'true' else 'paused'}.",
              "success")
        redirect("/settings/webhooks/", 303)

    @app.post("/settings/webhooks/<webhook_id:int>/delete")
    def delete_webhook(webhook_id: int) -> None:
        user = require_user()
        check_csrf()
        if not subscriptions.delete(user, webhook_id):
            raise HTTPError(404, "You have no webhook with that id.")
        flash(f"Webhook {webhook_id} deleted.", "success")
        redirect("/settings/webhooks/", 303)

    @app.get(_both("/settings/webhooks/<webhook_id:int>"))
    def delivery_log(webhook_id: int) -> str:
        user = require_user()
        webhook = own(user, webhook_id)
        return ctx.render("webhook_log.html", hook=subscriptions.as_json(webhook),
                          deliveries=subscriptions.deliveries(webhook, 100))
