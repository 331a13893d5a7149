"""Webhook subscriptions over the API: ``/api/v2/webhooks/`` (token authentication).

``GET`` lists the caller's subscriptions, ``POST`` creates one (the 201 answer
carries its ``secret``, shown this once), ``DELETE /api/v2/webhooks/<id>/``
deletes one, ``GET /api/v2/webhooks/<id>/deliveries/`` lists its latest
deliveries.  Another user's subscription is a 404, as if it did not exist.
"""

from __future__ import annotations

from typing import Any

from bottle import Bottle, HTTPResponse

from anitrack_core.errors import FieldError
from anitrack_core.webhooks import subscriptions

from .auth import require_user
from .context import WebContext
from .errors import api_error
from .params import MAX_ID, Field, Invalid, read_body

WEBHOOK_FIELDS = [Field("url", required=True, nullable=False), Field("description"),
                  *(Field(name, list, nullable=False) for name in ("topics", *subscriptions.FILTERS))]


def delivery_json(delivery: Any) -> dict[str, Any]:
    stamp = lambda moment: moment.replace(microsecond=0).isoformat() + "Z" if moment else None  # noqa: E731
    return {"id": delivery.id, "event_id": delivery.event_id, "topic": delivery.topic,
            "webhook_id": delivery.message_id, "state": delivery.state, "attempts": delivery.attempts,
            "last_status": delivery.last_status, "last_error": delivery.last_error,
            "last_duration_ms": delivery.last_duration_ms, "created_on": stamp(delivery.created_on),
            "finished_on": stamp(delivery.finished_on),
            "next_attempt_on": stamp(delivery.next_attempt_on) if delivery.state == "pending" else None}


def add_routes(app: Bottle, ctx: WebContext) -> None:
    def own(webhook_id: int) -> Any:
        user = require_user()
        webhook = subscriptions.find(user, webhook_id) if 0 < webhook_id <= MAX_ID else None
        if webhook is None:
            raise api_error(404, f"You have no webhook with the id {webhook_id}.")
        return user, webhook

    @app.get("/api/v2/webhooks/")
    def list_webhooks() -> dict[str, Any]:
        user = require_user()
        return {"items": [subscriptions.as_json(w) for w in subscriptions.of_user(user)]}

    @app.post("/api/v2/webhooks/")
    def create_webhook() -> HTTPResponse:
        user = require_user()
        fields = read_body(WEBHOOK_FIELDS)
        try:
            webhook, secret = subscriptions.create(user, ctx.runtime.settings, ctx.plugins, **fields)
        except FieldError as exc:
            raise Invalid({exc.field: str(exc)}) from None
        return HTTPResponse({**subscriptions.as_json(webhook), "secret": secret}, status=201)

    @app.delete("/api/v2/webhooks/<webhook_id:int>/")
    def delete_webhook(webhook_id: int) -> HTTPResponse:
        user, webhook = own(webhook_id)
        subscriptions.delete(user, webhook.id)
        return HTTPResponse(status=204)

    @app.get("/api/v2/webhooks/<webhook_id:int>/deliveries/")
    def list_deliveries(webhook_id: int) -> dict[str, Any]:
        _, webhook = own(webhook_id)
        return {"items": [delivery_json(d) for d in subscriptions.deliveries(webhook)]}
