"""Heartbeats of schedulers and workers in ``scale_process``: what /metrics counts."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import timedelta

import peewee

from ..db.failures import first_line
from ..db.models import database_proxy, utcnow
from .models import CheckClaim, ScaleProcess

log = logging.getLogger(__name__)
EVERY_SECONDS = 10.0
#: a process not seen for this long is counted as gone
ALIVE = timedelta(seconds=3 * EVERY_SECONDS)


def beat(name: str, kind: str, concurrency: int = 0, queue_depth: int | None = None) -> None:
    now = utcnow()
    update = {ScaleProcess.seen_on: now, ScaleProcess.concurrency: concurrency}
    if queue_depth is not None:
        update[ScaleProcess.queue_depth] = queue_depth
    (ScaleProcess.insert(name=name, kind=kind, concurrency=concurrency, queue_depth=queue_depth, started_on=now,
                         seen_on=now)
     .on_conflict(conflict_target=[ScaleProcess.name], update=update).execute())


def gone(name: str) -> None:
    ScaleProcess.delete().where(ScaleProcess.name == name).execute()


class Heartbeat:
    """Writes the heartbeat of *name* every :data:`EVERY_SECONDS` in a daemon thread, then calls *each_beat*
    (with the beat's connection open)."""

    def __init__(self, name: str, kind: str, concurrency: int, *,
                 each_beat: Callable[[], None] | None = None) -> None:
        self.name, self.kind, self.concurrency = name, kind, concurrency
        self.each_beat = each_beat
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=f"anitrack-{kind}-heartbeat", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        try:
            with database_proxy.connection_context():
                gone(self.name)
        except peewee.DatabaseError:
            log.warning("could not remove the heartbeat of %s", self.name)

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                with database_proxy.connection_context():
                    beat(self.name, self.kind, self.concurrency)
                    if self.each_beat is not None:
                        self.each_beat()
            except peewee.DatabaseError as exc:  # one line each time: the database is away, not a bug
                log.warning("could not write the heartbeat of %s (%s)", self.name, first_line(exc))
            self._stop.wait(EVERY_SECONDS)


def live_workers() -> peewee.ModelSelect:
    """The heartbeats of the workers seen within :data:`ALIVE` (their concurrency: ``.select(...)`` on it)."""
    return ScaleProcess.select().where((ScaleProcess.seen_on > utcnow() - ALIVE) & (ScaleProcess.kind == "worker"))


def scale_state() -> dict[str, float]:
    """The gauges of scaled-out checking for /metrics (four small queries, whatever the size of the store)."""
    now = utcnow()
    alive = ScaleProcess.seen_on > now - ALIVE
    workers, threads = (live_workers().select(peewee.fn.COUNT(ScaleProcess.name),
                                              peewee.fn.COALESCE(peewee.fn.SUM(ScaleProcess.concurrency), 0)).tuples().get())
    scheduler = (ScaleProcess.select(ScaleProcess.queue_depth).where(alive & (ScaleProcess.kind == "scheduler"))
                 .order_by(ScaleProcess.seen_on.desc()).first())
    live = CheckClaim.select().where(CheckClaim.expires_on >= now).count()
    expired = CheckClaim.select().where(CheckClaim.expires_on < now).count()
    return {"workers": workers, "worker_threads": threads, "schedulers": 1 if scheduler else 0,
            "queue_depth": (scheduler.queue_depth or 0) if scheduler else 0, "claims": live,
            "claims_expired": expired}
