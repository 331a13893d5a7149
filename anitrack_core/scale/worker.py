"""``anitrack worker``: a Celery worker (threads pool) that checks batches of claimed projects.

A batch is the message ``(token, ids, claim_seconds)`` the scheduler sent
after claiming *ids* under *token*.  The worker checks, of those, the
projects the claim still gives to this batch, still due, not archived; the
check of each is stored (versions, project fields, events) in the same
transaction that deletes its claim, after locking the claim row.  So:

* a redelivered message (a worker died before acknowledging it) finds the
  projects already stored without a claim and does nothing for them;
* a batch whose claims expired and were given to another batch (the message
  was late) stores nothing: the other batch does;
* two deliveries of one message at once (a connection lost, the broker gave
  it again) do not run side by side: a batch is a session lock on PostgreSQL,
  and the second delivery ends at once (if the first one dies, its claims
  expire and the scheduler enqueues them again).

The check itself is :meth:`Checker.fetch` and :meth:`Checker.write_batch`,
the in-process pass's code, with per-host slots and rate-limit pauses shared
by every worker (:mod:`.limits`).  As in the in-process pass, the worker
process saves and its children fetch (:class:`~anitrack_core.check.workers.FetchProcesses`,
``scale.fetch_processes`` of them, the worker's *concurrency* threads shared
among them; a batch waiting on a busy host does not hold the others back).
It runs *concurrency* / :data:`CHECKS_PER_BATCH_THREAD` batches at once
(Celery's threads, one database connection each); each batch is saved in one
transaction, counted into the worker's pass record (:mod:`.records`).  A
batch the database refuses ends with one log line, its claims given back.
"""

from __future__ import annotations

import functools
import logging
import math
import os
import socket
import threading
import time
import uuid
from collections.abc import Sequence
from concurrent.futures import wait
from dataclasses import asdict, dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from ..check.runner import SPEC_COLUMNS, Checker, RunSummary, WorkerChecker, specs_from_rows
from ..check.workers import FetchProcesses
from ..db.failures import first_line, storage_trouble
from ..db.models import Project, database_proxy, utcnow
from ..errors import StoreError
from ..runtime import settings_snapshot
from .app import TASK_NAME, check_queue, make_app, require_broker, work_queue_url
from .heartbeat import Heartbeat
from .limits import SharedHostSlots, SharedPauses, is_postgres
from .models import CheckClaim
from .records import PassWindows

if TYPE_CHECKING:
    from ..check.apply import AppliedCheck
    from ..check.backend_versions import FetchOutcome
    from ..runtime import Runtime

log = logging.getLogger(__name__)
RECONNECT_MAX_SECONDS = 3.0
#: checks in flight per batch being checked at once: a worker of N checks in flight runs N / this batches
CHECKS_PER_BATCH_THREAD = 8


@dataclass(eq=False)
class _Saving:
    """A batch's outcomes waiting to be saved (with others), then what saving them gave."""

    token: str
    outcomes: list[FetchOutcome]
    counts: RunSummary | None = None
    error: Exception | None = None

    @property
    def done(self) -> bool:
        return self.counts is not None or self.error is not None


@dataclass
class BatchSummary(RunSummary):
    """The counts of a pass, for one batch, and what it left to others."""

    #: claimed by this batch but not checked: already stored, given to another batch, archived, not due
    skipped: int = 0
    #: another delivery of this batch was running
    running_elsewhere: bool = False
    #: why the database refused the batch (its projects stay due), or None
    failed: str | None = None


def batch_lock_key(token: str) -> int:
    """The signed 64-bit advisory lock key of the batch *token*."""
    return (uuid.UUID(token).int >> 64) - 2**63


def batch_threads(concurrency: int) -> int:
    """Batches a worker of *concurrency* checks in flight runs at once (Celery's pool threads)."""
    return max(2, math.ceil(concurrency / CHECKS_PER_BATCH_THREAD))


@dataclass(frozen=True)
class SharedFetchSetup(WorkerChecker):
    """Sent to each fetch process of a worker (:class:`WorkerChecker`): there it also opens the database, and
    the checker's per-host slots and rate-limit pauses are shared by every worker."""

    #: fetch processes per worker (they divide the worker's share of each host's slots)
    per_worker: int = 1

    def checker(self, runtime: Runtime) -> Checker:
        from ..db.database import open_database

        settings = runtime.settings
        open_database(settings.database_url, check=False, busy_timeout=settings.db_busy_timeout)
        checker = Checker(runtime)
        checker.slots = SharedHostSlots(settings.check_per_host, settings.get("check.host_concurrency"),
                                        per_worker=self.per_worker)
        checker.pauses = SharedPauses()
        return checker


class BatchChecker:
    """Checks batches for one worker process (any of its threads): the checks of every batch are fetched by
    *processes* child processes sharing *concurrency* threads, each batch is saved in one transaction by the
    thread running it."""

    def __init__(self, runtime: Runtime, *, concurrency: int = 8, processes: int = 1) -> None:
        self.checker = Checker(runtime)  # saves (its own slots and pauses stay unused: the children fetch)
        setup = SharedFetchSetup(*settings_snapshot(runtime.settings), per_worker=processes)
        # spawned: a forked child would hold this process's database connections
        self.fetching = FetchProcesses(setup, processes=processes, threads=math.ceil(concurrency / processes),
                                       method="spawn")
        self.records = PassWindows(runtime.settings.scheduler_interval)
        self._queue: list[_Saving] = []  # batches fetched, waiting to be saved
        self._queue_lock = threading.Lock()
        self._save_lock = threading.Lock()  # one thread saves at a time, every batch waiting

    def close(self) -> None:
        """Stop fetching (the children's per-host slots go with them), end the pass record."""
        self.fetching.close()
        try:
            with database_proxy.connection_context():
                self.records.close()
        except Exception as exc:  # noqa: BLE001  (the record shows the worker gone: interrupted)
            log.warning("could not end the pass record of this worker (%s)", exc)

    def run(self, token: str, ids: list[int], claim_seconds: float) -> BatchSummary:
        """Check the batch *token*; a database that refuses it ends it with one log line, its claims given back
        (its projects stay due: the scheduler enqueues them again)."""
        summary, started = BatchSummary(), time.monotonic()
        db = database_proxy
        try:
            with db.connection_context():
                if not self._lock(token, True):
                    summary.running_elsewhere = True
                    return summary
                try:
                    self._run(token, ids, claim_seconds, summary)
                finally:
                    self._unlock(token)
        except Exception as exc:
            trouble = storage_trouble(exc)
            if trouble is None:
                raise
            summary.failed = str(exc) if isinstance(exc, StoreError) else trouble.message()
            log.error("batch %s: the database refused it, its projects stay due: %s", token, summary.failed)
            self._give_back(token)
        summary.seconds = time.monotonic() - started
        if summary.failed is None:
            log.info("batch %s: %s, skipped %d", token, summary.line(), summary.skipped)
        return summary

    def _lock(self, token: str, take: bool) -> bool:
        if not is_postgres():
            return True
        function = "pg_try_advisory_lock" if take else "pg_advisory_unlock"
        return bool(database_proxy.execute_sql(f"SELECT {function}(%s)", (batch_lock_key(token),)).fetchone()[0])

    def _unlock(self, token: str) -> None:
        try:
            self._lock(token, False)
        except Exception as exc:  # noqa: BLE001  (a broken connection: the server released the lock with it)
            log.debug("could not unlock batch %s: %s", token, exc)

    @staticmethod
    def _give_back(token: str) -> None:
        try:
            with database_proxy.connection_context():
                CheckClaim.delete().where(CheckClaim.token == token).execute()
        except Exception as exc:  # noqa: BLE001  (the claims expire: the scheduler enqueues them again then)
            log.warning("batch %s: could not give its claims back (%s); they expire", token,
                        first_line(exc))

    def _run(self, token: str, ids: list[int], claim_seconds: float, summary: BatchSummary) -> None:
        rows = list(Project.select(*SPEC_COLUMNS, CheckClaim.expires_on)
                    .join(CheckClaim, on=(CheckClaim.project == Project.id))
                    .where(CheckClaim.token == token, Project.id.in_(ids), Project.archived == False,  # noqa: E712
                           Project.next_check <= CheckClaim.claimed_on)
                    .order_by(Project.next_check, Project.id).dicts())
        mine = {row["id"] for row in rows}
        others = [pid for pid in ids if pid not in mine]
        summary.skipped += len(others)
        if others:  # archived or checked meanwhile: the claim goes; a deleted project took its claim along
            CheckClaim.delete().where(CheckClaim.token == token, CheckClaim.project.in_(others)).execute()
        if not rows:
            return
        # a claim is renewed once a quarter of its time is gone (the scheduler's is fresh: not at once)
        left = (min(row.pop("expires_on") for row in rows) - utcnow()).total_seconds()
        renewed = time.monotonic() - (claim_seconds - left)
        if time.monotonic() - renewed > claim_seconds / 4:
            renewed = self._renew(token, claim_seconds)
        fetched = self.fetching.submit(specs_from_rows(rows))
        while not wait([fetched], timeout=claim_seconds / 4).done:
            if time.monotonic() - renewed > claim_seconds / 4:
                renewed = self._renew(token, claim_seconds)
        self._write(token, fetched.result(), summary)

    @staticmethod
    def _renew(token: str, claim_seconds: float) -> float:
        (CheckClaim.update(expires_on=utcnow() + timedelta(seconds=claim_seconds))
         .where(CheckClaim.token == token).execute())
        return time.monotonic()

    def _write(self, token: str, outcomes: list[FetchOutcome], summary: BatchSummary) -> None:
        """Store the *outcomes* whose claim this batch still holds, releasing those claims in the same
        transaction, and count them into this worker's pass record.

        The batches whose fetching ends while another one is being saved wait, then are saved together by
        whichever of their threads comes first (one transaction, a few statements for them all, where one
        each would cost the database and this process several times more at a high pace)."""
        mine = _Saving(token, outcomes)
        with self._queue_lock:
            self._queue.append(mine)
        with self._save_lock:
            if not mine.done:
                with self._queue_lock:
                    group, self._queue = self._queue, []
                self._save(group)
        if mine.error is not None:
            raise mine.error
        assert mine.counts is not None
        summary.skipped += len(outcomes) - mine.counts.checked  # stored by an earlier delivery, or given elsewhere
        summary.add(mine.counts)

    def _save(self, group: list[_Saving]) -> None:
        """Save the batches of *group* in one transaction (the runner's batch writer: its retries on a locked
        database, its error handling); each gets its counts, or the error that refused them all."""
        token_of = {id(outcome): saving.token for saving in group for outcome in saving.outcomes}

        def still_held(outcomes: Sequence[FetchOutcome]) -> list[FetchOutcome]:
            query = (CheckClaim.select(CheckClaim.project, CheckClaim.token)
                     .where(CheckClaim.project.in_([outcome.spec.id for outcome in outcomes])))
            held = dict((query.for_update() if is_postgres() else query).tuples())
            kept = []
            for outcome in outcomes:
                if held.get(outcome.spec.id) == token_of[id(outcome)]:
                    kept.append(outcome)
                    del held[outcome.spec.id]  # one project delivered twice at once (SQLite: no batch lock)
            return kept

        def release(stored: list[AppliedCheck]) -> None:
            if stored:
                CheckClaim.delete().where(CheckClaim.project.in_([a.project_id for a in stored])).execute()

        checks = sum(len(saving.outcomes) for saving in group)
        try:
            with self.records.batch() as record:
                try:
                    counts = self.checker.write_batches([saving.outcomes for saving in group], record=record,
                                                        keep=still_held, then=release)
                except StoreError as exc:
                    what = f"a batch of {checks}" if len(group) == 1 else f"{len(group)} batches of {checks}"
                    self.records.fail(record, f"{what} check(s) could not be saved (the projects stay due): {exc}")
                    raise
        except Exception as exc:  # each batch's thread raises it, and handles it as its own
            for saving in group:
                saving.error = exc
            return
        for saving, batch_counts in zip(group, counts):
            saving.counts = batch_counts


def _consumer_class() -> type:
    from celery.worker.consumer import Consumer as CeleryConsumer

    class Consumer(CeleryConsumer):
        """Celery's consumer, reconnecting to a lost broker every :data:`RECONNECT_MAX_SECONDS` at most
        (Celery's own waits grow to 30 s: a broker back after a restart would wait that long for work).

        An acknowledgement still pending when the broker goes is run as the consumer closes; on Redis,
        kombu then raises ``AttributeError`` (the channel's connection is already gone), which Celery does
        not count among connection errors: the worker would exit.  Counted as one, the acknowledgement is
        logged as lost and the consumer reconnects; the message comes again and its batch, whose claims
        were released when it was saved, does nothing.  Closing the lost connection can raise it too
        (the Redis channel gives its unacknowledged messages back through that connection), outside
        anything that counts connection errors: the worker would exit with "Unrecoverable error"."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.connection_errors = (*self.connection_errors, AttributeError)

        def on_connection_error_after_connected(self, exc: Exception) -> None:
            try:
                super().on_connection_error_after_connected(exc)
            except AttributeError as error:  # see above: the connection was gone; the consumer reconnects
                log.warning("the lost broker connection could not be closed (%s); reconnecting", error)

        def ensure_connected(self, conn: Any) -> Any:
            conn.ensure_connection = functools.partial(conn.ensure_connection, interval_start=0.5,
                                                       interval_step=1, interval_max=RECONNECT_MAX_SECONDS)
            return super().ensure_connected(conn)

    return Consumer


def __getattr__(name: str) -> Any:  # ``worker_consumer = "anitrack_core.scale.worker:Consumer"``, made on demand
    if name == "Consumer":
        return _consumer_class()
    raise AttributeError(name)


def worker_app(runtime: Runtime, batches: BatchChecker) -> Any:
    """The Celery app of a worker, with the check task bound to this process's *batches*."""
    app = make_app(work_queue_url(runtime.settings))

    @app.task(name=TASK_NAME, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
    def check_batch(token: str, ids: list[int], claim_seconds: float) -> dict[str, Any]:
        return asdict(batches.run(token, [int(pid) for pid in ids], float(claim_seconds)))

    return app


def run_worker(runtime: Runtime, *, concurrency: int, name: str | None = None, loglevel: str = "INFO") -> int:
    """Run a Celery worker with *concurrency* checks in flight until it is stopped (SIGTERM, Ctrl-C: warm
    shutdown); returns its exit code.

    :raises AnitrackError: the broker is memory:// or cannot be reached.
    """
    batches = BatchChecker(runtime, concurrency=concurrency, processes=runtime.settings["scale.fetch_processes"])
    threads = batch_threads(concurrency)
    try:
        app = worker_app(runtime, batches)
        require_broker(app, work_queue_url(runtime.settings))
        db = runtime.db
        if hasattr(db, "_max_connections"):  # one pooled connection per batch thread, the heartbeat's, some room
            db._max_connections = max(db._max_connections, threads + 4)
        hostname = name or f"anitrack@{socket.gethostname()}:{os.getpid()}"
        heartbeat = Heartbeat(hostname, "worker", concurrency, each_beat=batches.records.end_if_over)
        worker = app.Worker(hostname=hostname, pool="threads", concurrency=threads, loglevel=loglevel,
                            queues=[check_queue().name], without_mingle=True, without_gossip=True)
        heartbeat.start()
        try:
            worker.start()
        finally:
            heartbeat.stop()
    finally:
        batches.close()
    return worker.exitcode or 0
