"""Checking projects: one at a time (API, CLI) or a whole pass over the due ones.

A pass fetches with many checks in flight (bounded overall and per upstream
host) while this thread, the only writer, applies the outcomes in batches:
one outer transaction per batch, one savepoint per project, so a project's
failure never touches another's data and SQLite sees one writer.  A backend
that hits a rate limit is paused until its reset time; its remaining projects
are counted as rate-limited and rescheduled for then.

A pass keeps a record (:mod:`anitrack_core.db.passes`) from its start, whose
counts each batch updates in its own transaction.  A batch the database
refuses as locked is tried again with back-off for ``check_write_retry``
seconds; when it cannot be saved (still locked, disk full, read-only, lost),
nothing of it is kept, its projects stay due, and the pass stops there with
:class:`PassFailed`, its record ``failed`` with the cause.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import peewee

from ..backend import Backend
from ..db import passes
from ..db.failures import StorageError, retrying, storage_trouble
from ..db.models import Package, Project, ProjectVersion, utcnow
from ..db.projects import delete_project
from ..errors import AnitrackError, NotFoundError, StoreError
from ..events import SYSTEM_AGENT
from ..listing import SchemeCache
from ..runtime import settings_snapshot, worker_count, worker_runtime
from .apply import AppliedCheck, CheckToApply, apply_outcome, apply_outcomes
from .backend_versions import FetchOutcome, ask_backend, check_client
from .http import FetchPolicy, HostSlots, HttpClient, RateLimitPauses
from .http.limits import paused_message
from .spec import ProjectSpec
from .workers import Fetcher, fetch_in_processes

if TYPE_CHECKING:
    from ..runtime import Runtime

log = logging.getLogger(__name__)
BATCH_SIZE = 200
#: a pass smaller than this is fetched with threads of this process only
MIN_FOR_PROCESSES = 500


@dataclass
class RunSummary:
    checked: int = 0
    ok: int = 0
    errors: int = 0
    ratelimited: int = 0
    deleted: int = 0
    seconds: float = 0.0

    def line(self) -> str:
        return (f"checked {self.checked}, ok {self.ok}, errors {self.errors}, ratelimited {self.ratelimited}"
                f" ({self.deleted} deleted) in {self.seconds:.1f} s")

    def add(self, batch: RunSummary) -> None:
        """Add the counts of *batch* (its seconds are not added: a pass times itself)."""
        self.checked += batch.checked
        self.ok += batch.ok
        self.errors += batch.errors
        self.ratelimited += batch.ratelimited
        self.deleted += batch.deleted


class PassFailed(StoreError):
    """A pass stopped because the database refused a batch; ``summary`` counts what was saved before,
    ``cause`` is the :class:`~anitrack_core.db.failures.StorageError`."""

    def __init__(self, message: str, summary: RunSummary, cause: StorageError) -> None:
        super().__init__(message)
        self.summary = summary
        self.cause = cause


class _Stopped(Exception):
    """The caller asked the pass to stop (the service is shutting down)."""


@dataclass(frozen=True)
class WorkerChecker:
    """Sent to each worker process of a pass: the parent's settings; called there, it makes that
    worker's :class:`Checker` (plugins loaded again, its own HTTP client) and gives its ``fetch``."""

    values: dict
    sources: dict

    def __call__(self) -> Fetcher:
        return self.checker(worker_runtime(self.values, self.sources)).fetch

    def checker(self, runtime: Runtime) -> Checker:
        """The checker of the worker process (a subclass may share its limits with other processes)."""
        return Checker(runtime)


def _host_bounds(backend: Backend) -> dict[str, int]:
    """The valid entries of *backend*'s ``host_concurrency`` (a plugin's mistake is logged and left out)."""
    declared = getattr(backend, "host_concurrency", None) or {}
    valid = {host: bound for host, bound in dict(declared).items()
             if isinstance(host, str) and host and isinstance(bound, int) and not isinstance(bound, bool) and bound > 0}
    if len(valid) != len(declared):
        log.warning("backend %s: host_concurrency entries ignored (a host name and a whole number above 0 "
                    "each): %r", backend.name, {h: b for h, b in dict(declared).items() if h not in valid})
    return valid


#: the project columns a :class:`ProjectSpec` is made of (the others, dates among them, are not read)
SPEC_COLUMNS = [Project._meta.fields[f.name] for f in dataclasses.fields(ProjectSpec) if f.name in Project._meta.fields]


def specs_from_rows(rows: list[dict[str, Any]]) -> list[ProjectSpec]:
    """The specs of the projects of *rows* (project rows as dicts), with one query for their newest versions."""
    ids = [row["id"] for row in rows]
    newest = dict(ProjectVersion.select(ProjectVersion.project, peewee.fn.MAX(ProjectVersion.created_on))
                  .where(ProjectVersion.project.in_(ids)).group_by(ProjectVersion.project).tuples())
    return [ProjectSpec.from_row(row, newest_version_on=newest.get(row["id"])) for row in rows]


class Checker:
    """Checks projects for one process: shared HTTP client, backends and schemes built once."""

    def __init__(self, runtime: Runtime, *, http: HttpClient | None = None) -> None:
        self.plugins = runtime.plugins
        self.settings = runtime.settings
        self.schemes = SchemeCache(self.plugins)
        self.http = http or HttpClient(FetchPolicy.from_settings(self.settings))
        self.slots = HostSlots(self.settings.check_per_host, self.settings.get("check.host_concurrency"))
        self.pauses = RateLimitPauses()  # by backend name
        self._backends: dict[str, Backend] = {}
        self._lock = threading.Lock()

    # ---- fetching (any thread) ----

    def backend(self, name: str) -> Backend:
        """The instance of the backend *name*, made once; ``configure(settings)`` is called on it if defined."""
        cls = self.plugins.backends.get(name)
        with self._lock:
            if cls.name not in self._backends:
                backend = cls()
                configure = getattr(backend, "configure", None)
                if callable(configure):
                    configure(self.settings)
                self.slots.declare(_host_bounds(backend))
                self._backends[cls.name] = backend
            return self._backends[cls.name]

    def interval(self, backend_name: str) -> timedelta:
        cls = self.plugins.backends.find(backend_name)
        interval = getattr(cls, "check_interval", None)
        return interval if isinstance(interval, timedelta) else timedelta(hours=1)

    def paused_until(self, backend_name: str) -> datetime | None:
        """When the rate-limit pause of *backend_name* ends (aware UTC), or None."""
        return self.pauses.paused_until(backend_name)

    def fetch(self, spec: ProjectSpec) -> FetchOutcome:
        """The network half of a check of *spec*; never raises for upstream or plugin trouble."""
        scheme = self.schemes.for_project(spec)
        reset = self.paused_until(spec.backend)
        if reset is not None:
            return FetchOutcome(spec, error=paused_message(reset), rate_limit_reset=reset)
        try:
            backend = self.backend(spec.backend)
        except AnitrackError as exc:
            return FetchOutcome(spec, error=str(exc))
        shared = getattr(backend, "shared_rate_limit", True)
        http = check_client(self.http, spec, slots=self.slots, pauses=self.pauses if shared else None)
        outcome = ask_backend(spec, backend, http, scheme)
        if outcome.rate_limit_reset is not None and shared:
            self.pauses.pause(spec.backend, outcome.rate_limit_reset)
        return outcome

    # ---- applying (the writer thread) ----

    def apply(self, outcome: FetchOutcome, *, dry_run: bool = False) -> AppliedCheck:
        outcome, scheme, interval = self._to_apply(outcome)
        return apply_outcome(outcome, scheme, now=utcnow(), interval=interval, dry_run=dry_run)

    def _to_apply(self, outcome: FetchOutcome) -> CheckToApply:
        return outcome, self.schemes.for_project(outcome.spec), self.interval(outcome.spec.backend)

    def _apply_batch(self, outcomes: Sequence[FetchOutcome]) -> list[AppliedCheck | None]:
        """Write *outcomes* together; when that fails for a project's own reason, one at a time, so only
        the checks that cannot be written are lost (None, logged).

        :raises Exception: the database's own trouble (:func:`~anitrack_core.db.failures.storage_trouble`).
        """
        try:
            return list(apply_outcomes([self._to_apply(outcome) for outcome in outcomes], now=utcnow()))
        except Exception as exc:  # the batch's savepoint rolled back: find the culprit(s) one by one
            if storage_trouble(exc) is not None:
                raise
        applied: list[AppliedCheck | None] = []
        for outcome in outcomes:
            try:
                applied.append(self.apply(outcome))
            except Exception as exc:  # the savepoint rolled this project back; the batch goes on
                if storage_trouble(exc) is not None:
                    raise  # the database's own trouble: the whole batch is tried again, or given up
                log.exception("could not save the check of project %s", outcome.spec.id)
                applied.append(None)
        return applied

    def notify(self, applied: AppliedCheck) -> None:
        self.plugins.call_each("anitrack_project_checked", project=applied.snapshot, result=applied.result)

    # ---- one project ----

    def spec_for(self, project: Project) -> ProjectSpec:
        newest = (ProjectVersion.select(peewee.fn.MAX(ProjectVersion.created_on))
                  .where(ProjectVersion.project == project.id).scalar())
        return ProjectSpec.from_row(project, newest_version_on=newest)

    def check_project(self, project_id: int, *, dry_run: bool = False) -> AppliedCheck:
        """Check one stored project now (archived ones included: callers decide).

        :raises NotFoundError: no such project.
        """
        project = Project.get_or_none(Project.id == project_id)
        if project is None:
            raise NotFoundError(f"no project with id {project_id}")
        applied = self.apply(self.fetch(self.spec_for(project)), dry_run=dry_run)
        self.notify(applied)
        return applied

    def check_temporary(self, spec: ProjectSpec) -> FetchOutcome:
        """Check a project that is not stored; nothing is written."""
        return self.fetch(spec)

    # ---- a pass ----

    def due_ids(self, *, now: datetime, everything: bool = False, ids: Iterable[int] | None = None) -> list[int]:
        query = Project.select(Project.id).where(Project.archived == False)  # noqa: E712
        if ids is not None:
            query = query.where(Project.id.in_(list(ids)))
        elif not everything:
            query = query.where(Project.next_check <= now)
        return [pid for (pid,) in query.order_by(Project.next_check, Project.id).tuples()]

    def _specs(self, ids: list[int]) -> list[ProjectSpec]:
        return specs_from_rows(list(Project.select(*SPEC_COLUMNS).where(Project.id.in_(ids)).dicts()))

    def run_pass(self, *, everything: bool = False, ids: Iterable[int] | None = None,
                 stop: threading.Event | None = None,
                 progress: Callable[[int, int], None] | None = None) -> RunSummary:
        """Check the due projects (or *ids*, or *everything* not archived) once, keeping a pass record.

        *stop*, once set, ends the pass after the batch being saved (record ``interrupted``; the projects
        not checked stay due).  *progress* is called after each saved batch with the checks saved so far
        and the checks of the pass.  Nothing is recorded when no project is due.

        :raises PassFailed: the database refused a batch (after retrying one it found locked); the pass
            stopped there, its record says so.
        :raises StorageError: the database could not be read or written before the pass began (a lock is
            waited for as by :meth:`write_batch`).
        """
        started, summary = time.monotonic(), RunSummary()
        run_start = utcnow()
        db = Project._meta.database
        patience = self.settings.check_write_retry
        todo = retrying(lambda: self.due_ids(now=run_start, everything=everything, ids=ids), db=db,
                        patience=patience, what="could not read the projects due for a check")
        if not todo:
            return summary
        record = retrying(lambda: passes.start_pass(run_start), db=db, patience=patience,
                          what="could not start a check pass")
        try:
            self._run(todo, summary, record.id, stop, progress)
        except _Stopped:
            summary.seconds = time.monotonic() - started
            if summary.checked < len(todo):
                passes.end_pass(record.id, passes.INTERRUPTED, f"stopped before the end (the service was stopping) "
                                                               f"after {summary.checked} of {len(todo)} checks; "
                                                               "the projects not checked stay due")
                return summary
        except StorageError as exc:
            summary.seconds = time.monotonic() - started
            message = (f"the check pass stopped after saving {summary.checked} of {len(todo)} checks (the other "
                       f"projects stay due): {exc}")
            if not passes.end_pass(record.id, passes.FAILED, message, patience=patience):
                message += " (the database refused the pass record too: it shows the pass as interrupted)"
            raise PassFailed(message, summary, exc) from exc
        except BaseException as exc:
            interrupted = isinstance(exc, (KeyboardInterrupt, SystemExit))
            cause = ("interrupted (Ctrl-C or a signal)" if interrupted
                     else f"stopped by an unexpected error: {type(exc).__name__}: {exc}")
            passes.end_pass(record.id, passes.INTERRUPTED if interrupted else passes.FAILED,
                            f"{cause} after {summary.checked} of {len(todo)} checks; the projects not checked "
                            "stay due")
            raise
        summary.seconds = time.monotonic() - started
        passes.end_pass(record.id, passes.FINISHED)
        return summary

    def _run(self, todo: list[int], summary: RunSummary, record: int, stop: threading.Event | None,
             progress: Callable[[int, int], None] | None) -> None:
        def write(outcomes: list[FetchOutcome]) -> None:
            summary.add(self.write_batch(outcomes, record=record))
            if progress is not None:
                progress(summary.checked, len(todo))
            if stop is not None and stop.is_set():
                raise _Stopped()

        processes = worker_count(self.settings.check_processes)
        if processes > 1 and len(todo) >= MIN_FOR_PROCESSES:
            threads = max(1, self.settings.check_concurrency // processes)
            setup = WorkerChecker(*settings_snapshot(self.settings))
            batches = fetch_in_processes(self._iter_specs(todo), setup=setup, processes=processes, threads=threads)
            try:
                for outcomes in batches:
                    write(outcomes)
            finally:
                batches.close()  # stops the workers, giving up what they have not begun
        else:
            self._fetch_in_threads(todo, write)

    def _iter_specs(self, ids: list[int]) -> Iterator[ProjectSpec]:
        db = Project._meta.database
        for position in range(0, len(ids), BATCH_SIZE):
            chunk = ids[position:position + BATCH_SIZE]
            yield from retrying(lambda: self._specs(chunk), patience=self.settings.check_write_retry, db=db,
                                what="could not read the projects to check")

    def _fetch_in_threads(self, todo: list[int], write: Callable[[list[FetchOutcome]], None]) -> None:
        in_flight = max(1, self.settings.check_concurrency)
        with ThreadPoolExecutor(max_workers=in_flight, thread_name_prefix="anitrack-check") as pool:
            try:
                pending: set[Future[FetchOutcome]] = set()
                done_batch: list[FetchOutcome] = []
                specs = self._iter_specs(todo)
                exhausted = False
                while pending or not exhausted:
                    while not exhausted and len(pending) < in_flight * 4:
                        spec = next(specs, None)
                        if spec is None:
                            exhausted = True
                        else:
                            pending.add(pool.submit(self.fetch, spec))
                    if not pending:
                        break
                    finished, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                    done_batch.extend(future.result() for future in finished)
                    if len(done_batch) >= BATCH_SIZE or (done_batch and (not pending or not finished)):
                        batch, done_batch = done_batch, []
                        write(batch)
                if done_batch:
                    write(done_batch)
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)  # the checks not begun are given up: still due
                raise

    def write_batch(self, outcomes: Sequence[FetchOutcome], *, record: int | None = None,
                    keep: Callable[[Sequence[FetchOutcome]], Sequence[FetchOutcome]] | None = None,
                    then: Callable[[list[AppliedCheck]], None] | None = None) -> RunSummary:
        """Save *outcomes* in one transaction (one savepoint per project), then tell the plugins; returns
        the counts of the batch.  Usable alone (a worker of a scaled-out pass): *record*, the id of a pass
        record (:func:`anitrack_core.db.passes.start_pass`), gets the counts in the same transaction.
        In that transaction too, *keep* chooses the outcomes still to save (a worker's claims still held:
        those it leaves out are not counted) and *then* gets the checks saved (to release their claims).

        A project whose check cannot be saved for its own reason (bad data, a plugin's bug) is rolled back
        alone and counted as an error.  A database found locked (or a lost PostgreSQL connection) makes the
        whole batch be tried again with back-off for ``check_write_retry`` seconds.

        :raises StorageError: the batch could not be saved (still locked, disk full, read-only, lost); nothing
            of it was kept and its projects stay due.
        """
        return self.write_batches([outcomes], record=record, keep=keep, then=then)[0]

    def write_batches(self, batches: Sequence[Sequence[FetchOutcome]], *, record: int | None = None,
                      keep: Callable[[Sequence[FetchOutcome]], Sequence[FetchOutcome]] | None = None,
                      then: Callable[[list[AppliedCheck]], None] | None = None) -> list[RunSummary]:
        """:meth:`write_batch` for several *batches* at once, in one transaction (fewer statements than one
        each); returns the counts of each batch (*record* gets their sum)."""
        db = Project._meta.database
        count = sum(len(batch) for batch in batches)
        applied_checks, counts = retrying(lambda: self._write_once(batches, record, keep, then), db=db,
                                          patience=self.settings.check_write_retry,
                                          what=f"could not save the checks of {count} project(s)")
        for applied in applied_checks:
            self.notify(applied)
        return counts

    def _write_once(self, batches: Sequence[Sequence[FetchOutcome]], record: int | None,
                    keep: Callable[[Sequence[FetchOutcome]], Sequence[FetchOutcome]] | None,
                    then: Callable[[list[AppliedCheck]], None] | None) -> tuple[list[AppliedCheck], list[RunSummary]]:
        applied_checks: list[AppliedCheck] = []
        counts = [RunSummary() for _ in batches]
        outcomes = [outcome for batch in batches for outcome in batch]
        batch_of = {id(outcome): index for index, batch in enumerate(batches) for outcome in batch}
        db = Project._meta.database
        with db.atomic():
            kept = list(keep(outcomes) if keep is not None else outcomes)
            for outcome, applied in zip(kept, self._apply_batch(kept) if kept else []):
                summary = counts[batch_of[id(outcome)]]
                summary.checked += 1
                if applied is None:
                    summary.errors += 1
                    continue
                applied_checks.append(applied)
                if outcome.rate_limit_reset is not None:
                    summary.ratelimited += 1
                elif outcome.error is not None:
                    summary.errors += 1
                    summary.deleted += self._delete_if_hopeless(applied)
                else:
                    summary.ok += 1
            if then is not None:
                then(applied_checks)
            if record is not None:
                total = RunSummary()
                for summary in counts:
                    total.add(summary)
                passes.add_batch(record, checked=total.checked, ok=total.ok, errors=total.errors,
                                 ratelimited=total.ratelimited)
        return applied_checks, counts

    def _delete_if_hopeless(self, applied: AppliedCheck) -> int:
        """Delete a project that has failed too often and has neither versions nor packages."""
        if applied.snapshot.error_counter < self.settings.check_error_threshold:
            return 0
        pid = applied.project_id
        if ProjectVersion.select().where(ProjectVersion.project == pid).exists():
            return 0
        if Package.select().where(Package.project == pid).exists():
            return 0
        log.info("deleting project %s (%s): %d failed checks and no versions", pid, applied.snapshot.name,
                 applied.snapshot.error_counter)
        delete_project(Project.get_by_id(pid), agent=SYSTEM_AGENT)
        return 1
