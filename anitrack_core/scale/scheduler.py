"""``anitrack scheduler``: claims due projects in batches and enqueues them for the workers.

One scheduler is active at a time: each tick renews the database lease
``scheduler`` (:func:`~anitrack_core.events.outbox.take_lease`); another
scheduler stands by until that lease runs out.  Each tick of the active one:

1. every ``scheduler_interval`` seconds (with ``use_feeds``), the feeds of
   recent releases are read and the projects they name made due first (the
   in-process scheduler's :meth:`~anitrack_core.check.scheduler.Scheduler.promote_feed_projects`);
2. the depth of the broker's queue is read, and kept at about
   :data:`AHEAD_SECONDS` of the workers' measured pace (at least
   :data:`MIN_QUEUED` batches): a message never waits in the broker longer
   than its claim lasts;
3. batches are claimed, up to :data:`CLAIM_AT_ONCE` of them in one statement
   (``INSERT ... SELECT`` the due projects without a live claim, ``ON CONFLICT``
   taking over expired claims; then each batch gets its own token), and sent.

What is due stays ``next_check``; what is in flight is the claims.  A claim
lasts *claim_seconds* (90 by default), renewed by its worker while the batch
runs; a batch lost with the broker or a machine leaves claims that expire,
and the next tick enqueues those projects again: within two minutes.  Two
schedulers can never claim one project twice while its claim is live.
"""

from __future__ import annotations

import logging
import math
import os
import socket
import threading
import time
import uuid
from collections import deque
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from ..check.runner import Checker
from ..check.scheduler import Scheduler as InProcessScheduler
from ..db.failures import first_line, storage_trouble
from ..db.models import Project, database_proxy, utcnow
from ..events.outbox import release_lease, take_lease
from . import BATCH_SIZE
from .app import TASK_NAME, check_queue, make_app, work_queue_url
from .heartbeat import beat, gone, live_workers
from .models import CheckClaim, ScaleProcess

if TYPE_CHECKING:
    from ..runtime import Runtime

log = logging.getLogger(__name__)
LEASE_NAME = "scheduler"
CLAIM_SECONDS = 90.0
#: keep this many seconds of the workers' pace waiting in the queue ...
AHEAD_SECONDS = 10.0
#: ... but at least / at most this many batches
MIN_QUEUED = 8
MAX_QUEUED = 2000
#: the packages whose errors say the broker is away (not a bug of ours)
BROKER_CLIENTS = frozenset({"kombu", "amqp", "redis", "celery"})
#: batches claimed by one statement (each statement scans the due projects, in flight ones included)
CLAIM_AT_ONCE = 40


class ScaleScheduler:
    """The scheduler loop (``run()`` until ``stop()``); ``tick()`` is one round."""

    def __init__(self, runtime: Runtime, *, batch_size: int = BATCH_SIZE, claim_seconds: float = CLAIM_SECONDS,
                 tick_seconds: float = 1.0, lease_seconds: float = 30.0, holder: str | None = None,
                 app: Any = None) -> None:
        self.settings = runtime.settings
        self.app = app or make_app(work_queue_url(runtime.settings))
        self.checker = Checker(runtime)  # reads the feeds
        self.feeds = InProcessScheduler(self.checker, runtime.settings.scheduler_interval)
        self.batch_size = batch_size
        self.claim_seconds = claim_seconds
        self.tick_seconds = tick_seconds
        self.lease = timedelta(seconds=lease_seconds)
        self.holder = holder or f"scheduler@{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        self.active = False
        self.enqueued_batches = 0
        self.enqueued_projects = 0
        self._feeds_read_at: float | None = None
        self._pace: deque[tuple[float, int]] = deque()
        self._connection: Any = None
        self._stop = threading.Event()
        self._announced_standby = False
        self._last_failure: tuple[str, float] = ("", 0.0)

    # ---- the loop ----

    def run(self) -> None:
        try:
            while not self._stop.is_set():
                try:
                    sent = self.tick()
                except Exception as exc:  # a broker or database outage: logged, the next tick tries again
                    self._log_failure(exc)
                    self._close_connection()
                    sent = 0
                self._stop.wait(self.tick_seconds / 4 if sent else self.tick_seconds)
        finally:
            self._close_connection()
            try:
                with database_proxy.connection_context():
                    release_lease(self.holder, LEASE_NAME)
                    gone(self.holder)
            except Exception:
                log.warning("could not release the scheduler lease", exc_info=True)

    def _log_failure(self, exc: Exception) -> None:
        """One line per failed tick (the same trouble again: once a minute), a traceback only for a bug."""
        trouble = storage_trouble(exc)
        broker = isinstance(exc, OSError) or (type(exc).__module__ or "").split(".")[0] in BROKER_CLIENTS
        if trouble is None and not broker:
            log.warning("scheduler tick failed; retrying", exc_info=True)
            return
        line = trouble.message() if trouble is not None else f"the broker: {first_line(exc)}"
        now = time.monotonic()
        if line != self._last_failure[0] or now - self._last_failure[1] > 60:
            log.warning("scheduler tick failed (%s); retrying every %.0f s", line, self.tick_seconds)
            self._last_failure = (line, now)

    def stop(self, timeout: float | None = None) -> None:
        self._stop.set()

    def tick(self) -> int:
        """One round; returns the number of batches sent (0 while standing by)."""
        with database_proxy.connection_context():
            if not take_lease(self.holder, self.lease, LEASE_NAME):
                if not self._announced_standby:
                    log.warning("another scheduler holds the lease; %s stands by", self.holder)
                    self._announced_standby = True
                self.active = False
                return 0
            if not self.active:
                log.info("%s is the active scheduler", self.holder)
            self.active, self._announced_standby = True, False
            self._read_feeds()
            depth = self.queue_depth()
            beat(self.holder, "scheduler", queue_depth=depth)
            room = self.target_depth(depth) - depth
            sent = 0
            while room > 0 and not self._stop.is_set():
                wanted = min(room, CLAIM_AT_ONCE)
                batches = self.claim_batches(wanted)
                for position, (token, ids) in enumerate(batches):
                    try:
                        self.send(token, ids)
                    except Exception:  # the broker is away: the batches not sent give their claims back too
                        unsent = [later for later, _ in batches[position + 1:]]
                        CheckClaim.delete().where(CheckClaim.token.in_(unsent)).execute()
                        raise
                sent, room = sent + len(batches), room - len(batches)
                if sum(len(ids) for _, ids in batches) < wanted * self.batch_size:
                    break  # nothing more is due
            return sent

    # ---- the parts ----

    def _read_feeds(self) -> None:
        if not self.settings.use_feeds:
            return
        if self._feeds_read_at is not None and time.monotonic() - self._feeds_read_at < self.feeds.interval:
            return
        self._feeds_read_at = time.monotonic()
        try:
            promoted = self.feeds.promote_feed_projects()
        except Exception:
            log.warning("could not read the feeds of recent releases", exc_info=True)
            return
        if promoted:
            log.info("feeds: %d project(s) made due first", promoted)

    def queue_depth(self) -> int:
        """Messages waiting in the broker's queue (declaring it, durable, if absent)."""
        if self._connection is None:
            self._connection = self.app.connection_for_write()
            self._connection.ensure_connection(max_retries=1, timeout=5)
        declared = check_queue()(self._connection.default_channel).queue_declare()
        return int(declared.message_count)

    def _close_connection(self) -> None:
        if self._connection is not None:
            try:
                self._connection.release()
            except Exception:
                pass
            self._connection = None

    def target_depth(self, depth: int) -> int:
        """How many batches should wait in the queue: :data:`AHEAD_SECONDS` of the measured pace, and at
        least one for each batch the live workers run at once (they start fed, before there is a pace)."""
        now = time.monotonic()
        consumed = max(0, self.enqueued_batches - depth)
        self._pace.append((now, consumed))
        while len(self._pace) > 2 and now - self._pace[0][0] > 30:
            self._pace.popleft()
        since, before = self._pace[0]
        pace = (consumed - before) / (now - since) if now - since >= 1 else 0.0
        ahead = min(AHEAD_SECONDS, self.claim_seconds / 4)
        return int(min(MAX_QUEUED, max(MIN_QUEUED, self._batches_in_hand(), math.ceil(pace * ahead))))

    @staticmethod
    def _batches_in_hand() -> int:
        """The batches every live worker runs at once (its Celery threads, from its heartbeat)."""
        from .worker import batch_threads

        query = live_workers().select(ScaleProcess.concurrency)
        return sum(batch_threads(concurrency) for (concurrency,) in query.tuples())

    def claim(self, token: str, limit: int) -> list[int]:
        """Claim up to *limit* due projects for the batch *token* (one statement); returns their ids."""
        db = database_proxy
        now = utcnow()
        project, claim, p = Project._meta.table_name, CheckClaim._meta.table_name, db.param
        sql = (f"INSERT INTO {claim} (project_id, token, claimed_on, expires_on)"
               f" SELECT p.id, {p}, {p}, {p} FROM {project} AS p"
               f" WHERE p.archived = {p} AND p.next_check <= {p}"
               f" AND NOT EXISTS (SELECT 1 FROM {claim} AS c WHERE c.project_id = p.id AND c.expires_on >= {p})"
               f" ORDER BY p.next_check LIMIT {p}"  # the index's order: no sort of every due project
               f" ON CONFLICT (project_id) DO UPDATE SET token = excluded.token,"
               f" claimed_on = excluded.claimed_on, expires_on = excluded.expires_on"
               f" WHERE {claim}.expires_on < {p}"
               f" RETURNING project_id")
        params = (token, now, now + timedelta(seconds=self.claim_seconds), False, now, now, limit, now)
        with db.atomic():
            return [row[0] for row in db.execute_sql(sql, params).fetchall()]

    def claim_batches(self, count: int) -> list[tuple[str, list[int]]]:
        """Claim up to *count* batches of due projects with one scan of the due ones (:meth:`claim`), then
        give each batch its own token; returns ``(token, ids)`` pairs."""
        tokens = [str(uuid.uuid4()) for _ in range(count)]
        with database_proxy.atomic():
            ids = self.claim(tokens[0], count * self.batch_size)
            batches = [(token, ids[start:start + self.batch_size])
                       for token, start in zip(tokens, range(0, len(ids), self.batch_size))]
            for token, batch in batches[1:]:
                CheckClaim.update(token=token).where(CheckClaim.project.in_(batch)).execute()
        return batches

    def send(self, token: str, ids: list[int]) -> None:
        """Enqueue the batch; if the broker refuses it, its claims are given back and the error raised."""
        try:
            self.app.send_task(TASK_NAME, args=[token, ids, self.claim_seconds], queue=check_queue(), retry=True,
                               retry_policy={"max_retries": 2, "interval_start": 0.2, "interval_step": 0.5,
                                             "interval_max": 1})
        except Exception:
            CheckClaim.delete().where(CheckClaim.token == token).execute()
            raise
        self.enqueued_batches += 1
        self.enqueued_projects += len(ids)
