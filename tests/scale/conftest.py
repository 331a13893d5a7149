"""Scaled-out checking against real servers: PostgreSQL (always, whatever ANITRACK_TEST_DB says), RabbitMQ
and Redis from the test set-up, a loopback fake upstream, workers as ``anitrack worker`` subprocesses and the
scheduler in a thread of the test.

:class:`Rig` seeds N ``custom`` projects whose pages list three versions, starts and kills workers, runs
schedulers and reads back what the store holds (versions, events, claims) and what the upstream was asked.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from anitrack_core.testing import skip_or_fail

VERSIONS = ("1.0", "1.1", "1.2")
ANITRACK = str(Path(sys.executable).parent / "anitrack")


def page(n: int) -> str:
    return " ".join(f'<a href="proj{n}-{v}.tar.gz">proj{n}-{v}.tar.gz</a>' for v in VERSIONS)


@pytest.fixture
def scale_database_url(_anitrack_postgres_server: Any) -> Any:
    server = _anitrack_postgres_server
    if isinstance(server, Exception):
        skip_or_fail(f"PostgreSQL unavailable: {server}")
    name = "s_" + uuid.uuid4().hex[:16]
    url = server.create_database(name)
    yield url
    from anitrack_core.db.models import database_proxy

    if database_proxy.obj is not None:
        database_proxy.obj.close_all()
    server.psql(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'")
    server.drop_database(name)


@pytest.fixture(params=["rabbitmq", "redis"])
def broker(request: pytest.FixtureRequest) -> Any:
    return request.getfixturevalue(f"anitrack_{request.param}")


@dataclass
class Rig:
    env: dict[str, str]
    upstream: Any
    runtime: Any
    tmp: Path
    workers: list[subprocess.Popen] = field(default_factory=list)
    schedulers: list[tuple[Any, threading.Thread]] = field(default_factory=list)
    started: Any = None
    delay: float = 0.0

    def seed(self, count: int) -> list[int]:
        from anitrack_core.db.models import Project, utcnow

        now = utcnow()
        rows = []
        for n in range(1, count + 1):
            path = f"/p/{n}/"
            body = page(n)
            self.upstream.route(path, (lambda seen, body=body: (time.sleep(self.delay), body)[1]))
            homepage = f"https://proj{n}.example/"
            rows.append({"name": f"proj{n}", "name_key": f"proj{n}", "homepage": homepage, "backend": "custom",
                         "ecosystem_name": homepage, "ecosystem_key": homepage, "in_ecosystem": False,
                         "version_url": self.upstream.url(path), "insecure": False, "releases_only": False,
                         "error_counter": 0, "archived": False, "created_on": now, "updated_on": now,
                         "next_check": now})
        with self.runtime.db.connection_context(), self.runtime.db.atomic():
            for start in range(0, len(rows), 500):
                Project.insert_many(rows[start:start + 500]).execute()
            ids = [pid for (pid,) in Project.select(Project.id).order_by(Project.id).tuples()]
        self.started = utcnow()
        return ids

    # ---- processes ----

    def start_worker(self, concurrency: int = 8) -> subprocess.Popen:
        number = len(self.workers)
        log = open(self.tmp / f"worker{number}.log", "wb")
        process = subprocess.Popen([ANITRACK, "worker", "--concurrency", str(concurrency), "--name",
                                    f"w{number}@test-{uuid.uuid4().hex[:6]}"], env={**os.environ, **self.env},
                                   stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.workers.append(process)
        return process

    def start_scheduler(self, **options: Any) -> Any:
        from anitrack_core.scale.scheduler import ScaleScheduler

        options = {"batch_size": 25, "claim_seconds": 8.0, "tick_seconds": 0.5, "lease_seconds": 3.0, **options}
        scheduler = ScaleScheduler(self.runtime, **options)
        thread = threading.Thread(target=scheduler.run, daemon=True)
        thread.start()
        self.schedulers.append((scheduler, thread))
        return scheduler

    def stop_scheduler(self, scheduler: Any) -> None:
        for item in self.schedulers:
            if item[0] is scheduler:
                scheduler.stop()
                item[1].join(timeout=10)

    def kill(self, worker: subprocess.Popen) -> None:
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=10)

    def close(self) -> None:
        for scheduler, thread in self.schedulers:
            scheduler.stop()
            thread.join(timeout=10)
        for worker in self.workers:
            if worker.poll() is None:
                worker.send_signal(signal.SIGTERM)
        for worker in self.workers:
            try:
                worker.wait(timeout=10)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()

    def logs(self) -> str:
        return "\n".join(f"--- {path.name}\n{path.read_text(errors='replace')[-3000:]}"
                         for path in sorted(self.tmp.glob("worker*.log")))

    # ---- what the store holds ----

    def pending(self) -> int:
        """Projects not checked since the rig was seeded."""
        from anitrack_core.db.models import Project

        with self.runtime.db.connection_context():
            return Project.select().where((Project.last_check.is_null()) | (Project.last_check < self.started)).count()

    def stored(self) -> int:
        from anitrack_core.db.models import ProjectVersion

        with self.runtime.db.connection_context():
            return ProjectVersion.select().count()

    def wait_until_checked(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while self.pending():
            for worker in self.workers:
                if worker.poll() is not None and worker.returncode not in (0, -9):
                    pytest.fail(f"a worker exited with {worker.returncode}:\n{self.logs()}")
            if time.monotonic() > deadline:
                pytest.fail(f"{self.pending()} project(s) still unchecked after {timeout} s:\n{self.logs()}")
            time.sleep(0.3)

    def assert_each_stored_once(self, ids: list[int]) -> None:
        """Every project: its three versions once, one update event of each kind, no claim left."""
        from anitrack_core.db.models import OutboxEvent, Project, ProjectVersion
        from anitrack_core.scale.models import CheckClaim

        with self.runtime.db.connection_context():
            versions = Counter(pid for (pid,) in ProjectVersion.select(ProjectVersion.project).tuples())
            events = Counter(OutboxEvent.select(OutboxEvent.project_id, OutboxEvent.topic).tuples())
            latest = Counter(v for (v,) in Project.select(Project.latest_version).tuples())
            claims = CheckClaim.select().count()
        assert set(versions.values()) == {len(VERSIONS)} and len(versions) == len(ids)
        for topic in ("project.version.update", "project.version.update.v2"):
            per_project = Counter(events[(pid, topic)] for pid in ids)
            assert per_project == {1: len(ids)}, f"{topic}: {per_project}"
        assert len(events) == 2 * len(ids)  # nothing else was announced
        assert latest == {VERSIONS[-1]: len(ids)}
        assert claims == 0

    def requests_per_project(self) -> Counter:
        return Counter(Counter(seen.path for seen in self.upstream.requests if seen.path.startswith("/p/")).values())


@pytest.fixture
def scale_runtime(scale_database_url, tmp_path, monkeypatch, request) -> Any:
    """A runtime on a fresh PostgreSQL database, on the test's ``broker`` (else memory://)."""
    from anitrack_core.db.database import open_database
    from anitrack_core.db.migrate import upgrade
    from anitrack_core.runtime import load_runtime

    for key in [k for k in os.environ if k.startswith("ANITRACK_") and k != "ANITRACK_PG_BIN"]:
        monkeypatch.delenv(key)
    env = {"ANITRACK_DATA_DIR": str(tmp_path / "data"), "ANITRACK_DATABASE_URL": scale_database_url,
           "ANITRACK_ALLOW_PRIVATE_UPSTREAMS": "1", "ANITRACK_CHECK_DEADLINE": "5", "ANITRACK_CHECK_PER_HOST": "16",
           "ANITRACK_USE_FEEDS": "0"}
    if "broker" in request.fixturenames:
        env["ANITRACK_BROKER_URL"] = request.getfixturevalue("broker").url
    (tmp_path / "data").mkdir(exist_ok=True)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    upgrade(open_database(scale_database_url))
    runtime = load_runtime()
    runtime.env = env
    yield runtime
    runtime.db.close_all()


@pytest.fixture
def rig(broker, scale_runtime, fake_upstream, tmp_path) -> Any:
    from anitrack_core.scale.app import check_queue, make_app

    runtime = scale_runtime
    with make_app(broker.url).connection_for_write() as connection:  # what an earlier test left
        check_queue()(connection.default_channel).declare()
        check_queue()(connection.default_channel).purge()
    the_rig = Rig(runtime.env, fake_upstream, runtime, tmp_path)
    try:
        yield the_rig
    finally:
        the_rig.close()
