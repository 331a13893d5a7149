"""Heartbeats of schedulers and workers in ``scale_process``: what /metrics counts."""

from __future__ import annotations

import logging
import threading
from datetime import timedelta

import peewee

from ..db.models import database_proxy, utcnow
from .models import ScaleProcess

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
    """Writes the heartbeat of *name* every :data:`EVERY_SECONDS` in a daemon thread."""

    def __init__(self, name: str, kind: str, concurrency: int) -> None:
        self.name, self.kind, self.concurrency = name, kind, concurrency
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
            except peewee.DatabaseError:
                log.warning("could not write the heartbeat of %s", self.name, exc_info=True)
            self._stop.wait(EVERY_SECONDS)
