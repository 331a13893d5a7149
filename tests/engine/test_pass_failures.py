"""A check pass meeting real trouble: a lock held too long, a full disk, a read-only database file, kill -9.

Each fault is real (another process holding SQLite's write lock, a PostgreSQL ``LOCK TABLE``, a tmpfs
filled to the last byte, an immutable file, SIGKILL) and timed by the fake upstream: it is set off while
the pass fetches, between the pass's start and its first batch.  Each case must end with one
``anitrack: error:`` line (no traceback), a documented exit code, a consistent database and a truthful
pass record.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from anitrack_core.testing import skip_or_fail

PAGE = '<a href="foo-1.0.tar.gz">x</a>\n<a href="foo-1.1.tar.gz">y</a>\n'
HOLD_LOCK = """
import sqlite3, sys, time
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
connection.execute("ROLLBACK")
"""


def _add_projects(count: int, url: str, *, start: int = 0) -> list[int]:
    from anitrack_core.db import projects
    from anitrack_core.runtime import load_runtime

    runtime = load_runtime()
    with runtime.db.connection_context():
        ids = [projects.create_project(runtime.plugins, name="foo", homepage=f"https://foo{index}.example/",
                                       backend="custom", version_url=url).id
               for index in range(start, start + count)]
    runtime.db.close_all()
    return ids


def _read(query):
    """Run *query* (a callable using the models) on a fresh connection of the test's database."""
    from anitrack_core.runtime import load_runtime

    runtime = load_runtime()
    try:
        with runtime.db.connection_context():
            return query()
    finally:
        runtime.db.close_all()


def _records() -> list:
    from anitrack_core.db.models import Run

    return _read(lambda: list(Run.select().order_by(Run.id)))


def _checked_ids() -> set[int]:
    from anitrack_core.db.models import Project

    return _read(lambda: {p.id for p in Project.select().where(Project.last_check.is_null(False))})


def _anitrack_process(*argv: str) -> tuple[int, str, str]:
    done = subprocess.run([sys.executable, "-m", "anitrack_core.cli", *argv], env=dict(os.environ),
                          capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout, done.stderr


def _one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert "Traceback" not in err, err
    assert len(lines) == 1 and lines[0].startswith("anitrack: error: "), err
    return lines[0]


class _Once:
    """A fake-upstream route that runs *fault* (once) at the first request, then answers PAGE."""

    def __init__(self, fault) -> None:
        self.fault = fault
        self.lock = threading.Lock()
        self.done = False

    def __call__(self, request):
        with self.lock:
            if not self.done:
                self.done = True
                self.fault()
        return PAGE


class _LockHolder:
    """Another process (SQLite) or connection (PostgreSQL) holding a write lock for *seconds*."""

    def __init__(self, url: str, seconds: float) -> None:
        self.url, self.seconds = url, seconds
        self.process = self.connection = None

    def __call__(self) -> None:
        if self.url.startswith("sqlite"):
            path = self.url.split("sqlite:///", 1)[1]
            self.process = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, path, str(self.seconds)],
                                            stdout=subprocess.PIPE, text=True)
            assert self.process.stdout.readline().strip() == "locked"
        else:
            import psycopg2

            self.connection = psycopg2.connect(self.url)
            self.connection.cursor().execute("LOCK TABLE project IN ACCESS EXCLUSIVE MODE")
            threading.Timer(self.seconds, self.release).start()

    def release(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
        if self.connection is not None and not self.connection.closed:
            self.connection.rollback()
            self.connection.close()


@pytest.fixture
def lock_holder(anitrack_env):
    holders: list[_LockHolder] = []

    def make(seconds: float) -> _LockHolder:
        holders.append(_LockHolder(anitrack_env["ANITRACK_DATABASE_URL"], seconds))
        return holders[-1]

    yield make
    for holder in holders:
        holder.release()


def test_a_lock_held_past_the_retries_stops_the_pass_with_one_clear_line(run_anitrack, fake_upstream, lock_holder,
                                                                          monkeypatch):
    monkeypatch.setenv("ANITRACK_DB_BUSY_TIMEOUT", "0.2")
    monkeypatch.setenv("ANITRACK_CHECK_WRITE_RETRY", "1")
    assert run_anitrack("db", "upgrade")[0] == 0
    holder = lock_holder(30)
    fake_upstream.route("/dl/", _Once(holder))
    ids = _add_projects(3, fake_upstream.url("/dl/"))

    began = time.monotonic()
    code, out, err = run_anitrack("check")
    assert code == 1
    assert time.monotonic() - began < 15, "the retries are bounded"
    line = _one_error_line(err)
    assert "the check pass stopped after saving 0 of 3 checks" in line
    assert "the database stayed locked" in line and "check_write_retry" in line
    assert out.startswith("checked 0, ok 0, errors 0")
    holder.release()
    from anitrack_core.db.passes import shown

    (record,) = _records()
    if "refused the pass record too" in line:  # SQLite: the lock was on the whole file
        assert record.state == "started" and shown(record)[0] == "interrupted"
    else:  # PostgreSQL: the lock was on the project table only
        assert record.state == "failed" and "the database stayed locked" in record.cause

    assert _checked_ids() == set(), "nothing of the refused batch was kept: every project stays due"
    code, out, err = run_anitrack("check")  # the same process: it writes the end the database refused
    assert (code, out.split(",")[0]) == (0, "checked 3"), err
    assert _checked_ids() == set(ids)
    failed, finished = _records()
    assert failed.state == "failed" and "the database stayed locked" in failed.cause, failed.cause
    assert failed.total_count == 0 and failed.finished_on is not None
    assert (finished.state, finished.total_count, finished.success_count, finished.cause) == ("finished", 3, 3, None)


def test_a_pass_stopped_by_a_lock_records_failed_once_the_record_can_be_written(fake_upstream, lock_holder,
                                                                                 monkeypatch):
    """An operator's command (a process of its own: no later pass of it can write the end it could not): the
    batch gives up while the lock is held; the lock goes while the end of the pass is being written again."""
    monkeypatch.setenv("ANITRACK_DB_BUSY_TIMEOUT", "0.2")
    monkeypatch.setenv("ANITRACK_CHECK_WRITE_RETRY", "5")
    assert _anitrack_process("db", "upgrade")[0] == 0
    holder = lock_holder(60)
    fake_upstream.route("/dl/", _Once(holder))
    _add_projects(3, fake_upstream.url("/dl/"))
    child = subprocess.Popen([sys.executable, "-m", "anitrack_core.cli", "check"], env=dict(os.environ),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        for line in child.stderr:
            lines.append(line)
            if "could not record the end of check pass" in line:  # the batch gave up; the record is retried
                holder.release()  # (SQLite; PostgreSQL's lock is on the project table only: the record is written)
        code = child.wait(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
        child.communicate()
        holder.release()
    err = "".join(lines)
    assert code == 1 and "Traceback" not in err, err
    assert lines[-1].startswith("anitrack: error: ") and "the database stayed locked" in lines[-1], err
    assert "refused the pass record" not in err, err
    (record,) = _records()
    assert record.state == "failed" and "the database stayed locked" in record.cause
    assert _checked_ids() == set()
    code, out, _ = _anitrack_process("check", "--history")
    assert code == 0 and ": failed" in out and "interrupted" not in out, out


def test_a_lock_released_within_the_retries_loses_nothing(run_anitrack, fake_upstream, lock_holder, monkeypatch):
    monkeypatch.setenv("ANITRACK_DB_BUSY_TIMEOUT", "0.2")
    monkeypatch.setenv("ANITRACK_CHECK_WRITE_RETRY", "20")
    assert run_anitrack("db", "upgrade")[0] == 0
    fake_upstream.route("/dl/", _Once(lock_holder(1.5)))
    ids = _add_projects(3, fake_upstream.url("/dl/"))
    code, out, err = run_anitrack("check")
    assert code == 0 and out.startswith("checked 3, ok 3, errors 0"), err
    assert _checked_ids() == set(ids)
    (record,) = _records()
    assert (record.state, record.total_count) == ("finished", 3)


def test_exit_code_3_when_some_checks_failed(run_anitrack, fake_upstream):
    assert run_anitrack("db", "upgrade")[0] == 0
    fake_upstream.route("/dl/", PAGE)
    _add_projects(2, fake_upstream.url("/dl/"))
    _add_projects(1, fake_upstream.url("/gone/"), start=2)
    code, out, err = run_anitrack("check")
    assert code == 3 and out.startswith("checked 3, ok 2, errors 1"), (out, err)
    assert err == "checks: 3/3 (100%)\n"  # the progress only: failed checks are not an error of the command
    code, out, _ = run_anitrack("check", "--history")
    assert code == 0 and ": finished in " in out and "checked 3, ok 2, errors 1" in out
    import json

    code, out, _ = run_anitrack("check", "--history", "1", "--json")
    (row,) = json.loads(out)
    assert (code, row["state"], row["checked"], row["errors"], row["cause"]) == (0, "finished", 3, 1, None)


@pytest.fixture
def small_filesystem(tmp_path):
    """A 16 MiB tmpfs mounted for the test, unmounted after."""
    where = tmp_path / "small"
    where.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(where)], capture_output=True,
                          text=True)
    if made.returncode != 0:
        skip_or_fail(f"cannot mount a small tmpfs to fill: {made.stderr.strip() or made.returncode}")
    yield where
    from anitrack_core.db.models import database_proxy

    if database_proxy.obj is not None:
        database_proxy.obj.close_all()
    subprocess.run(["umount", "-l", str(where)], check=False)


def _fill(directory: Path) -> None:
    with open(directory / "ballast", "wb", buffering=0) as ballast:
        try:
            while True:
                ballast.write(b"\0" * 65536)
        except OSError:
            pass
        try:
            while True:
                ballast.write(b"\0" * 512)
        except OSError:
            pass


def test_a_full_disk_stops_the_pass_with_one_clear_line(run_anitrack, fake_upstream, small_filesystem, monkeypatch):
    monkeypatch.setenv("ANITRACK_DATABASE_URL", f"sqlite:///{small_filesystem / 'anitrack.db'}")
    assert run_anitrack("db", "upgrade")[0] == 0
    fake_upstream.route("/dl/", _Once(lambda: _fill(small_filesystem)))
    ids = _add_projects(40, fake_upstream.url("/dl/"))

    code, out, err = run_anitrack("check")
    assert code == 1, (out, err)
    line = _one_error_line(err)
    assert "the disk is full (database or disk is full)" in line and "free space" in line, line
    assert "cannot rollback" not in line

    (small_filesystem / "ballast").unlink()
    connection = sqlite3.connect(small_filesystem / "anitrack.db")
    assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    connection.close()
    assert _checked_ids() == set(), "the refused batch left nothing behind"
    code, out, err = run_anitrack("check")
    assert code == 0 and out.startswith("checked 40, ok 40"), err
    failed, finished = _records()
    assert failed.state == "failed" and "the disk is full" in failed.cause, (failed.state, failed.cause)
    assert finished.state == "finished" and _checked_ids() == set(ids)


def test_a_read_only_database_file_is_one_clear_line(run_anitrack, fake_upstream, tmp_path, monkeypatch):
    path = tmp_path / "data" / "ro.db"
    monkeypatch.setenv("ANITRACK_DATABASE_URL", f"sqlite:///{path}")
    assert run_anitrack("db", "upgrade")[0] == 0
    fake_upstream.route("/dl/", PAGE)
    _add_projects(2, fake_upstream.url("/dl/"))
    made = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True)
    if made.returncode != 0:
        skip_or_fail(f"cannot make the database file immutable: {made.stderr.strip()}")
    try:  # an operator's command: a process of its own, not one holding the file open from before
        code, out, err = _anitrack_process("check")
        assert code == 1, (out, err)
        line = _one_error_line(err)
        assert "the database is read-only" in line and "writable" in line, line
        code, out, err = _anitrack_process("check", "--history")
        assert code == 0 and out.strip() == "no check pass recorded", (out, err)
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=False)
    assert _checked_ids() == set()


def test_a_pass_killed_mid_way_is_recorded_as_interrupted(run_anitrack, fake_upstream, anitrack_env, monkeypatch):
    monkeypatch.setenv("ANITRACK_CHECK_CONCURRENCY", "2")
    assert run_anitrack("db", "upgrade")[0] == 0

    def slow(request):
        time.sleep(0.25)
        return PAGE

    fake_upstream.route("/dl/", slow)
    ids = _add_projects(24, fake_upstream.url("/dl/"))
    child = subprocess.Popen([sys.executable, "-m", "anitrack_core.cli", "check"], env=dict(os.environ),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            records = _records()
            if records and records[0].total_count >= 4:
                break
            time.sleep(0.05)
        else:
            pytest.fail("the pass saved nothing in 30 s")
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
        child.communicate()

    (record,) = _records()
    assert record.state == "started", "a killed process writes nothing more"
    assert len(_checked_ids()) == record.total_count < 24, "the record's counts match what was saved"
    code, out, _ = run_anitrack("check", "--history")
    assert code == 0 and f"pass {record.id} started" in out and ": interrupted;" in out, out
    assert "was killed" in out

    code, out, err = run_anitrack("check")
    assert code == 0 and out.startswith(f"checked {24 - record.total_count}, "), err
    assert _checked_ids() == set(ids)
    killed, finished = _records()
    assert killed.state == "interrupted" and "ended without recording" in killed.cause
    assert finished.state == "finished"


def test_the_scheduler_logs_a_failed_pass_as_one_line_and_goes_on(run_anitrack, fake_upstream, lock_holder,
                                                                  monkeypatch, caplog):
    import logging

    from anitrack_core.check.runner import Checker
    from anitrack_core.check.scheduler import Scheduler
    from anitrack_core.runtime import load_runtime

    monkeypatch.setenv("ANITRACK_DB_BUSY_TIMEOUT", "0.2")
    monkeypatch.setenv("ANITRACK_CHECK_WRITE_RETRY", "0.5")
    monkeypatch.setenv("ANITRACK_USE_FEEDS", "0")
    assert run_anitrack("db", "upgrade")[0] == 0
    holder = lock_holder(30)
    fake_upstream.route("/dl/", _Once(holder))
    ids = _add_projects(2, fake_upstream.url("/dl/"))
    runtime = load_runtime()
    checker = Checker(runtime)
    scheduler = Scheduler(checker, 60)
    try:
        with caplog.at_level(logging.ERROR, logger="anitrack_core.check.scheduler"):
            scheduler.run_once()
        (logged,) = [r for r in caplog.records if r.name == "anitrack_core.check.scheduler"]
        assert logged.exc_info is None and "the database stayed locked" in logged.getMessage()
        assert logged.getMessage().startswith("scheduler pass: checked 0, ok 0")
        holder.release()
        scheduler.run_once()  # the same process: it writes the end the database refused before
    finally:
        checker.http.close()
        runtime.db.close_all()
    failed, finished = _records()
    assert failed.state == "failed" and "the database stayed locked" in failed.cause
    assert finished.state == "finished" and _checked_ids() == set(ids)


def test_the_batch_writer_alone_counts_into_a_pass_record(checker, add_project, fake_upstream, anitrack_env):
    """What a scaled-out worker calls: ``write_batch(outcomes, record=None) -> RunSummary``."""
    from anitrack_core.check.backend_versions import FetchOutcome
    from anitrack_core.db import passes
    from anitrack_core.db.models import Run

    fake_upstream.route("/dl/", PAGE)
    projects = [add_project(name="foo", homepage=f"https://e.org/{i}", version_url=fake_upstream.url("/dl/"))
                for i in range(3)]
    outcomes = [checker.fetch(checker.spec_for(project)) for project in projects]
    outcomes.append(FetchOutcome(outcomes[0].spec, error="upstream said no"))
    record = passes.start_pass(passes.utcnow())
    counts = checker.write_batch(outcomes, record=record.id)
    assert (counts.checked, counts.ok, counts.errors) == (4, 3, 1)
    assert Run.get_by_id(record.id).total_count == 4
    passes.end_pass(record.id, passes.FINISHED)
    assert Run.get_by_id(record.id).state == "finished"
    assert checker.write_batch([]).checked == 0, "no record: only the counts"


def test_a_lost_postgresql_connection_is_retried(run_anitrack, fake_upstream, anitrack_env, monkeypatch):
    url = anitrack_env["ANITRACK_DATABASE_URL"]
    if not url.startswith("postgres"):
        pytest.skip("PostgreSQL's case (ANITRACK_TEST_DB=postgres)")
    import psycopg2

    def cut_connections():
        with psycopg2.connect(url) as admin, admin.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                           "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        admin.close()

    assert run_anitrack("db", "upgrade")[0] == 0
    fake_upstream.route("/dl/", _Once(cut_connections))
    ids = _add_projects(3, fake_upstream.url("/dl/"))
    code, out, err = run_anitrack("check")
    assert code == 0 and out.startswith("checked 3, ok 3"), (out, err)
    assert _checked_ids() == set(ids)
    assert [r.state for r in _records()] == ["finished"]


def test_the_busy_timeout_is_a_setting_for_both_engines(tmp_path):
    from anitrack_core.db.database import make_database

    sqlite = make_database(f"sqlite:///{tmp_path}/a.db", busy_timeout=2.5)
    assert dict(sqlite._pragmas)["busy_timeout"] == 2500
    postgres = make_database("postgresql://u@h/db", busy_timeout=0.5)
    assert postgres.connect_params["options"] == "-c lock_timeout=500"
    mine = make_database("postgresql://u@h/db?options=-c%20lock_timeout%3D30000", busy_timeout=0.5)
    assert mine.connect_params["options"] == "-c lock_timeout=30000", "the URL's own wins"


def test_a_pass_asked_to_stop_ends_after_its_batch_as_interrupted(checker, add_project, fake_upstream):
    from anitrack_core.db.models import Project, Run

    def slow(request):
        time.sleep(0.2)
        return PAGE

    fake_upstream.route("/dl/", slow)
    for index in range(6):
        add_project(name="foo", homepage=f"https://e.org/{index}", version_url=fake_upstream.url("/dl/"))
    checker.settings._values["check_concurrency"] = 1
    stop = threading.Event()
    stop.set()  # `anitrack serve` stopping
    summary = checker.run_pass(stop=stop)
    assert 1 <= summary.checked < 6
    record = Run.get()
    assert record.state == "interrupted" and "the service was stopping" in record.cause
    assert record.total_count == summary.checked
    assert Project.select().where(Project.last_check.is_null(False)).count() == summary.checked


def test_any_command_meeting_a_read_only_database_says_so_in_one_line(run_anitrack, tmp_path, monkeypatch):
    path = tmp_path / "data" / "ro.db"
    monkeypatch.setenv("ANITRACK_DATABASE_URL", f"sqlite:///{path}")
    assert run_anitrack("db", "upgrade")[0] == 0
    made = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True)
    if made.returncode != 0:
        skip_or_fail(f"cannot make the database file immutable: {made.stderr.strip()}")
    try:
        code, out, err = _anitrack_process("distro", "add", "Fedora")
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=False)
    assert code == 1
    assert "the database is read-only" in _one_error_line(err)


def test_a_large_pass_in_worker_processes_stops_cleanly_too(run_anitrack, fake_upstream, lock_holder, monkeypatch):
    from anitrack_core.check import runner
    from anitrack_core.check.runner import Checker, PassFailed
    from anitrack_core.runtime import load_runtime

    monkeypatch.setattr(runner, "MIN_FOR_PROCESSES", 5)
    monkeypatch.setenv("ANITRACK_CHECK_PROCESSES", "2")
    monkeypatch.setenv("ANITRACK_DB_BUSY_TIMEOUT", "0.2")
    monkeypatch.setenv("ANITRACK_CHECK_WRITE_RETRY", "0.5")
    assert run_anitrack("db", "upgrade")[0] == 0
    holder = lock_holder(60)
    fake_upstream.route("/dl/", _Once(holder))
    _add_projects(12, fake_upstream.url("/dl/"))
    runtime = load_runtime()
    checker = Checker(runtime)
    began = time.monotonic()
    try:
        with pytest.raises(PassFailed, match="the database stayed locked") as failed:
            checker.run_pass()
    finally:
        checker.http.close()
        runtime.db.close_all()
    assert time.monotonic() - began < 30, "the workers were stopped"
    assert failed.value.summary.checked == 0
    holder.release()
    assert _checked_ids() == set()
