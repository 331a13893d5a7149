"""Checking projects: one at a time (API, CLI) or a whole pass over the due ones.

A pass fetches with many checks in flight (bounded overall and per upstream
host) while this thread, the only writer, applies the outcomes in batches:
one outer transaction per batch, one savepoint per project, so a project's
failure never touches another's data and SQLite sees one writer.  A backend
that hits a rate limit is paused until its reset time; its remaining projects
are counted as rate-limited and rescheduled for then.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import peewee

from ..backend import Backend
from ..db.models import Package, Project, ProjectVersion, Run, utcnow
from ..db.projects import delete_project
from ..errors import AnitrackError, NotFoundError
from ..events import SYSTEM_AGENT
from ..listing import SchemeCache
from ..runtime import settings_snapshot, worker_count, worker_runtime
from .apply import AppliedCheck, apply_outcome
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


@dataclass(frozen=True)
class WorkerChecker:
    """Sent to each worker process of a pass: the parent's settings; called there, it makes that
    worker's :class:`Checker` (plugins loaded again, its own HTTP client) and gives its ``fetch``."""

    values: dict
    sources: dict

    def __call__(self) -> Fetcher:
        return Checker(worker_runtime(self.values, self.sources)).fetch


class Checker:
    """Checks projects for one process: shared HTTP client, backends and schemes built once."""

    def __init__(self, runtime: Runtime, *, http: HttpClient | None = None) -> None:
        self.plugins = runtime.plugins
        self.settings = runtime.settings
        self.schemes = SchemeCache(self.plugins)
        self.http = http or HttpClient(FetchPolicy.from_settings(self.settings))
        self.slots = HostSlots(self.settings.check_per_host)
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
        scheme = self.schemes.for_project(outcome.spec)
        applied = apply_outcome(outcome, scheme, now=utcnow(), interval=self.interval(outcome.spec.backend),
                                dry_run=dry_run)
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
        rows = list(Project.select().where(Project.id.in_(ids)).dicts())
        newest = dict(ProjectVersion.select(ProjectVersion.project, peewee.fn.MAX(ProjectVersion.created_on))
                      .where(ProjectVersion.project.in_(ids)).group_by(ProjectVersion.project).tuples())
        return [ProjectSpec.from_row(row, newest_version_on=newest.get(row["id"])) for row in rows]

    def run_pass(self, *, everything: bool = False, ids: Iterable[int] | None = None) -> RunSummary:
        """Check the due projects (or *ids*, or *everything* not archived) once; records a Run."""
        started, summary = time.monotonic(), RunSummary()
        run_start = utcnow()
        todo = self.due_ids(now=run_start, everything=everything, ids=ids)
        if not todo:
            return summary
        processes = worker_count(self.settings.check_processes)
        if processes > 1 and len(todo) >= MIN_FOR_PROCESSES:
            threads = max(1, self.settings.check_concurrency // processes)
            setup = WorkerChecker(*settings_snapshot(self.settings))
            for outcomes in fetch_in_processes(self._iter_specs(todo), setup=setup, processes=processes,
                                               threads=threads):
                self._write_batch(outcomes, summary)
        else:
            self._fetch_in_threads(todo, summary)
        summary.seconds = time.monotonic() - started
        Run.create(created_on=run_start, total_count=summary.checked, success_count=summary.ok,
                   error_count=summary.errors, ratelimit_count=summary.ratelimited)
        return summary

    def _iter_specs(self, ids: list[int]) -> Iterator[ProjectSpec]:
        for position in range(0, len(ids), BATCH_SIZE):
            yield from self._specs(ids[position:position + BATCH_SIZE])

    def _fetch_in_threads(self, todo: list[int], summary: RunSummary) -> None:
        in_flight = max(1, self.settings.check_concurrency)
        with ThreadPoolExecutor(max_workers=in_flight, thread_name_prefix="anitrack-check") as pool:
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
                    self._write_batch(done_batch, summary)
                    done_batch = []
            if done_batch:
                self._write_batch(done_batch, summary)

    def _write_batch(self, outcomes: list[FetchOutcome], summary: RunSummary) -> None:
        applied_checks: list[AppliedCheck] = []
        db = Project._meta.database
        with db.atomic():
            for outcome in outcomes:
                summary.checked += 1
                try:
                    applied = self.apply(outcome)
                except Exception:  # the savepoint rolled this project back; the batch goes on
                    log.exception("could not save the check of project %s", outcome.spec.id)
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
        for applied in applied_checks:
            self.notify(applied)

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
