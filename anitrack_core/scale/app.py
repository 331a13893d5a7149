"""The Celery application of scaled-out checking: one queue, one task, no result backend.

The broker is :func:`work_queue_url`'s.  The scheduler (:mod:`.scheduler`) sends ``anitrack.check_batch(token, ids,
claim_seconds)`` messages; workers (:mod:`.worker`) run them.  Celery is
set for work that must be neither lost nor done twice:

* late acknowledgement (``task_acks_late``, ``task_reject_on_worker_lost``):
  a message is acknowledged once its batch is stored, so a worker that dies
  leaves it to the broker to deliver again;
* prefetch 1 per thread (``worker_prefetch_multiplier``): a worker holds no
  more messages than it is running, the rest stay in the queue for others;
* no result backend: the database says what was checked (the claims of
  :class:`~anitrack_core.scale.models.CheckClaim`).
"""

from __future__ import annotations

from typing import Any

from kombu import Exchange, Queue

from ..db.database import redact
from ..db.failures import first_line
from ..errors import AnitrackError

QUEUE_NAME = "anitrack.check"
TASK_NAME = "anitrack.check_batch"


def check_queue() -> Queue:
    """The durable queue of check batches (declared the same way by the scheduler and the workers)."""
    return Queue(QUEUE_NAME, Exchange(QUEUE_NAME, type="direct", durable=True), routing_key=QUEUE_NAME,
                 durable=True)


def work_queue_url(settings: Any) -> str:
    """The broker of the work queue: ``scale.broker_url`` (``ANITRACK_SCALE_BROKER_URL``), else the events'
    ``broker_url``."""
    return settings["scale.broker_url"] or settings.broker_url


def make_app(broker_url: str) -> Any:
    """A Celery application on *broker_url* (:func:`work_queue_url`)."""
    try:
        from celery import Celery
    except ImportError:  # an optional dependency: the embedded default does not need it
        raise AnitrackError("scaled-out checking needs Celery: pip install 'anitrack-core[scale]'") from None
    app = Celery("anitrack", broker=broker_url, set_as_current=False)
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_ignore_result=True,
        result_backend=None,
        task_serializer="json",
        accept_content=["json"],
        task_queues=[check_queue()],
        task_default_queue=QUEUE_NAME,
        task_routes={TASK_NAME: {"queue": QUEUE_NAME}},
        task_create_missing_queues=False,
        broker_connection_retry=True,
        broker_connection_retry_on_startup=True,
        broker_connection_max_retries=None,  # a broker lost while running: reconnect for as long as it takes
        # after a lost connection Celery lowers the prefetch to 1 until the tasks it was running finish; those
        # finished while it was away, the prefetch stayed at 1 and the worker stopped taking work (RabbitMQ)
        worker_enable_prefetch_count_reduction=False,
        broker_heartbeat=10,  # a half-dead connection is noticed in seconds, not minutes
        worker_consumer="anitrack_core.scale.worker:Consumer",
        worker_hijack_root_logger=False,
        worker_redirect_stdouts=False,
        enable_utc=True,
    )
    return app


def require_broker(app: Any, url: str) -> None:
    """:raises AnitrackError: *url* is ``memory://`` (one process only) or cannot be reached now."""
    if url.split(":", 1)[0] == "memory":
        raise AnitrackError("workers and the scheduler need a broker every process reaches: set "
                            "ANITRACK_SCALE_BROKER_URL (or ANITRACK_BROKER_URL, the events' broker) to "
                            "amqp://... (RabbitMQ) or redis://..., not memory://")
    try:
        with app.connection_for_write() as connection:
            connection.ensure_connection(max_retries=1, interval_start=0, interval_step=0.5, timeout=5)
    except Exception as exc:  # kombu raises the transport's own errors
        raise AnitrackError(f"cannot reach the broker at {redact(url)}: {first_line(exc)}") from None
