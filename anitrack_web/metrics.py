"""GET /metrics: operators' gauges in the Prometheus text format (version 0.0.4).

``anitrack_outbox_backlog`` counts the events the broker has not accepted
yet; ``anitrack_outbox_oldest_age_seconds`` is how long the oldest of them has
waited (0 when none waits).  A backlog that keeps growing means the broker is
down or no publisher runs (see docs/events.md).

Scaled-out checking (``anitrack scheduler`` and ``anitrack worker``, see
docs/operator-guide.md) adds ``anitrack_scale_*``: the workers and their
threads alive (heartbeats of the last 30 s), whether a scheduler is active,
the batches waiting in the broker's queue as that scheduler last saw them,
and the projects in flight (live claims) or whose claim ran out (their task
was lost: the scheduler enqueues them again).  All are 0 in the embedded mode.
"""

from __future__ import annotations

from bottle import Bottle, response

from anitrack_core.events import backlog
from anitrack_core.scale.heartbeat import scale_state

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
    ) + "".join(f"# HELP anitrack_scale_{key} {SCALE_HELP[key]}\n# TYPE anitrack_scale_{key} gauge\n"
                f"anitrack_scale_{key} {value}\n" for key, value in scale_state().items())


SCALE_HELP = {
    "workers": "Celery workers alive (anitrack worker).",
    "worker_threads": "Checks the live workers can run at once (the sum of their concurrency).",
    "schedulers": "1 while an active scheduler (anitrack scheduler) reports, else 0.",
    "queue_depth": "Batches waiting in the broker's check queue, as the active scheduler last saw.",
    "claims": "Projects enqueued or being checked by the workers (live claims).",
    "claims_expired": "Projects whose claim ran out (task lost): enqueued again by the scheduler.",
}


def add_routes(app: Bottle) -> None:
    @app.get("/metrics")
    def metrics() -> str:
        body = render()
        response.content_type = CONTENT_TYPE
        response.set_header("Cache-Control", "no-store")
        return body
