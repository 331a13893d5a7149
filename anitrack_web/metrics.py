"""GET /metrics: operators' gauges in the Prometheus text format (version 0.0.4).

``anitrack_outbox_backlog`` counts the events the broker has not accepted
yet; ``anitrack_outbox_oldest_age_seconds`` is how long the oldest of them has
waited (0 when none waits).  A backlog that keeps growing means the broker is
down or no publisher runs (see docs/events.md).
"""

from __future__ import annotations

from bottle import Bottle, response

from anitrack_core.events import backlog

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def render() -> str:
    state = backlog()
    age = state.oldest_age() or 0.0
    return (
        "# HELP anitrack_outbox_backlog Events written but not yet accepted by the message broker.\n"
        "# TYPE anitrack_outbox_backlog gauge\n"
        f"anitrack_outbox_backlog {state.count}\n"
        "# HELP anitrack_outbox_oldest_age_seconds Seconds the oldest unpublished event has waited.\n"
        "# TYPE anitrack_outbox_oldest_age_seconds gauge\n"
        f"anitrack_outbox_oldest_age_seconds {age:.3f}\n"
    )


def add_routes(app: Bottle) -> None:
    @app.get("/metrics")
    def metrics() -> str:
        body = render()
        response.content_type = CONTENT_TYPE
        response.set_header("Cache-Control", "no-store")
        return body
