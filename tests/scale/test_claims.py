"""The database side of scaled-out checking, without a broker: claims, redelivery, shared limits."""

from __future__ import annotations

import os
import socket
import threading
import time
from datetime import datetime, timedelta, timezone

import pytest

from anitrack_core.db.models import OutboxEvent, Project, ProjectVersion, utcnow
from anitrack_core.scale.models import CheckClaim
from tests.scale.conftest import Rig


@pytest.fixture
def local(scale_runtime, fake_upstream, tmp_path):
    return Rig(scale_runtime.env, fake_upstream, scale_runtime, tmp_path)


@pytest.fixture
def scheduler(scale_runtime):
    from anitrack_core.scale.scheduler import ScaleScheduler

    return ScaleScheduler(scale_runtime, batch_size=25, claim_seconds=30)


@pytest.fixture
def batches(scale_runtime):
    from anitrack_core.scale.worker import BatchChecker

    checker = BatchChecker(scale_runtime)
    yield checker
    checker.close()


def test_a_redelivered_batch_stores_nothing_twice(local, scheduler, batches):
    ids = local.seed(5)
    with local.runtime.db.connection_context():
        token = "6f1c3c3e-1111-4222-8333-444455556666"
        assert sorted(scheduler.claim(token, 25)) == ids
        assert scheduler.claim("7f1c3c3e-1111-4222-8333-444455556666", 25) == []  # nothing twice while claimed
    first = batches.run(token, ids, 30)
    again = batches.run(token, ids, 30)  # the broker delivered it again
    assert (first.checked, first.ok, again.checked, again.skipped) == (5, 5, 0, 5)
    local.assert_each_stored_once(ids)
    assert local.requests_per_project() == {1: 5}


def test_an_expired_claim_goes_to_a_new_batch_and_the_old_one_stores_nothing(local, scheduler, batches):
    ids = local.seed(3)
    old, new = "00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"
    with local.runtime.db.connection_context():
        scheduler.claim(old, 25)
        CheckClaim.update(expires_on=utcnow() - timedelta(seconds=1)).execute()  # its task was lost
        assert sorted(scheduler.claim(new, 25)) == ids
    late = batches.run(old, ids, 30)
    assert (late.checked, late.skipped) == (0, 3)
    assert batches.run(new, ids, 30).ok == 3
    local.assert_each_stored_once(ids)


def test_archived_or_deleted_while_waiting_ends_quietly(local, scheduler, batches):
    from anitrack_core.db.projects import delete_project
    from anitrack_core.events import SYSTEM_AGENT

    ids = local.seed(3)
    token = "00000000-0000-4000-8000-000000000003"
    with local.runtime.db.connection_context():
        scheduler.claim(token, 25)
        Project.update(archived=True).where(Project.id == ids[0]).execute()
        delete_project(Project.get_by_id(ids[1]), agent=SYSTEM_AGENT)
    summary = batches.run(token, ids, 30)
    assert (summary.checked, summary.ok, summary.errors, summary.skipped) == (1, 1, 0, 2)
    with local.runtime.db.connection_context():
        assert CheckClaim.select().count() == 0
        assert {pid for (pid,) in ProjectVersion.select(ProjectVersion.project).tuples()} == {ids[2]}
        assert OutboxEvent.select().where(OutboxEvent.project_id == ids[0]).count() == 0


def test_a_rate_limit_pause_holds_for_every_worker(scale_runtime):
    from anitrack_core.scale.limits import SharedPauses

    one, other = SharedPauses(), SharedPauses()
    reset = datetime.now(timezone.utc) + timedelta(minutes=5)
    with scale_runtime.db.connection_context():
        assert other.paused_until("GitHub") is None
        one.pause("GitHub", reset)
        other._read_at = 0.0  # its next read is due (every PAUSE_REFRESH_SECONDS)
        assert other.paused_until("github") == reset
        one.pause("GitHub", reset + timedelta(minutes=5))  # an earlier pause still running wins
        fresh = SharedPauses()
        assert fresh.paused_until("github") == reset


def test_the_per_host_bound_holds_across_workers(scale_runtime):
    from anitrack_core.scale.limits import SharedHostSlots

    first, second = SharedHostSlots(1), SharedHostSlots(1)  # two workers, one request in flight per host
    held, entered, release = threading.Event(), threading.Event(), threading.Event()

    def hold() -> None:
        with scale_runtime.db.connection_context(), first.slot("http://upstream.example/a"):
            held.set()
            release.wait(10)

    def wait_for_slot() -> None:
        with scale_runtime.db.connection_context(), second.slot("http://UPSTREAM.example/b"):
            entered.set()

    threading.Thread(target=hold, daemon=True).start()
    assert held.wait(10)
    waiter = threading.Thread(target=wait_for_slot, daemon=True)
    waiter.start()
    time.sleep(0.5)
    assert not entered.is_set()  # the other worker holds the host's only slot
    release.set()
    assert entered.wait(10)
    waiter.join(10)
    with scale_runtime.db.connection_context(), second.slot("http://other.example/"):
        pass  # another host is not bound by it


def test_a_lease_takes_one_free_slot_and_never_one_its_own_session_still_holds(scale_runtime):
    """A slot given back (popped from the process's leases) is still locked until its unlock runs: a lease
    asked meanwhile must not lock it again (session locks stack: one unlock would leave it held for good)."""
    from anitrack_core.scale.limits import _Keeper, lock_key

    key = lock_key("host:upstream.example")
    keeper = _Keeper(lambda: None)
    try:
        first = keeper.take(key, 4, [])
        assert keeper.take(key, 4, []) not in (None, first), "not the slot this session still holds"
        assert keeper.take(key, 4, [first]) not in (None, first)
        assert keeper.take(key, 4, []) is not None
        assert keeper.take(key, 4, []) is None, "all four are held"

        def held() -> int:
            return keeper._query("SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 "
                                 "AND pid = pg_backend_pid()", ())[0]

        assert held() == 4
        for number in range(4):
            keeper.give(key, number)
        assert held() == 0, "one unlock each frees them all"
    finally:
        keeper.close()


def test_a_broker_that_cannot_be_reached_is_named(run_anitrack, monkeypatch):
    assert run_anitrack("db", "upgrade")[0] == 0
    monkeypatch.setenv("ANITRACK_BROKER_URL", "amqp://guest:secret@127.0.0.1:1//")
    for command in ("worker", "scheduler"):
        code, _, err = run_anitrack(command)
        assert code == 1
        assert "cannot reach the broker at amqp://guest:***@127.0.0.1:1//" in err
        assert "secret" not in err
    monkeypatch.setenv("ANITRACK_BROKER_URL", "memory://")
    code, _, err = run_anitrack("worker")
    assert code == 1 and "not memory://" in err
    monkeypatch.setenv("ANITRACK_SCALE_BROKER_URL", "redis://:queue-secret@127.0.0.1:1/0")  # the work queue's own
    for command in ("worker", "scheduler"):
        code, _, err = run_anitrack(command)
        assert code == 1 and "cannot reach the broker at redis://:***@127.0.0.1:1/0" in err, err


def _history() -> str:
    """``anitrack check --history`` on the test's database."""
    import contextlib
    import io

    from anitrack_core.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["check", "--history"]) == 0
    return out.getvalue()


def test_a_worker_keeps_a_pass_record_per_window(local, scheduler, batches):
    from anitrack_core.db.models import Run

    ids = local.seed(6)
    tokens = ["00000000-0000-4000-8000-00000000000a", "00000000-0000-4000-8000-00000000000b"]
    with local.runtime.db.connection_context():
        first, second = scheduler.claim(tokens[0], 4), scheduler.claim(tokens[1], 4)
    assert batches.run(tokens[0], first, 30).ok == 4
    with local.runtime.db.connection_context():
        (record,) = Run.select()
        assert (record.state, record.total_count, record.success_count) == ("started", 4, 4)
    batches.records.seconds = 0  # the window is over: the next batch starts a new record, the first one ends
    assert batches.run(tokens[1], second, 30).ok == 2
    batches.records.close()  # the worker stops
    with local.runtime.db.connection_context():
        assert [(r.state, r.total_count) for r in Run.select().order_by(Run.id)] == [("finished", 4), ("finished", 2)]
        history = _history()
    assert "checked 4, ok 4" in history and "checked 2, ok 2" in history, history
    assert f" by {socket.gethostname()}:{os.getpid()}: finished in " in history, "the worker is named"
    local.assert_each_stored_once(ids)


def test_a_batch_the_database_refuses_ends_in_one_line_and_gives_its_claims_back(local, scheduler, monkeypatch,
                                                                                 caplog):
    import logging

    import psycopg2

    from anitrack_core.db.models import Run
    from anitrack_core.runtime import load_runtime
    from anitrack_core.scale.worker import BatchChecker
    from tests.scale.conftest import page

    monkeypatch.setenv("ANITRACK_DB_BUSY_TIMEOUT", "0.2")
    monkeypatch.setenv("ANITRACK_CHECK_WRITE_RETRY", "0.5")
    ids = local.seed(3)
    url = local.env["ANITRACK_DATABASE_URL"]
    holder = psycopg2.connect(url)

    locked = threading.Event()

    def lock_then_answer(seen):  # a long migration takes the project table while the batch fetches (once)
        if not locked.is_set():
            locked.set()
            holder.cursor().execute("LOCK TABLE project IN ACCESS EXCLUSIVE MODE")
        return page(1)

    local.upstream.route("/p/1/", lock_then_answer)
    batches = BatchChecker(load_runtime())
    token = "00000000-0000-4000-8000-00000000000c"
    try:
        with local.runtime.db.connection_context():
            assert sorted(scheduler.claim(token, 25)) == ids
        with caplog.at_level(logging.INFO, logger="anitrack_core.scale.worker"):
            summary = batches.run(token, ids, 30)
        holder.rollback()
        (logged,) = [r for r in caplog.records if r.name == "anitrack_core.scale.worker"]
        assert logged.levelno == logging.ERROR and logged.exc_info is None
        assert "the database refused it" in logged.getMessage() and "the database stayed locked" in summary.failed
        assert (summary.checked, summary.ok) == (0, 0)
        with local.runtime.db.connection_context():
            assert CheckClaim.select().count() == 0, "the claims are given back at once"
            (record,) = Run.select()
            assert record.state == "failed"
            assert "a batch of 3 check(s) could not be saved (the projects stay due)" in record.cause
            assert "the database stayed locked" in record.cause
            assert local.pending() == 3 and Project.select().where(Project.next_check <= utcnow()).count() == 3
            assert sorted(scheduler.claim("00000000-0000-4000-8000-00000000000d", 25)) == ids  # enqueued again
        assert batches.run("00000000-0000-4000-8000-00000000000d", ids, 30).ok == 3
    finally:
        holder.close()
        batches.close()
    local.assert_each_stored_once(ids)
    with local.runtime.db.connection_context():
        assert [r.state for r in Run.select().order_by(Run.id)] == ["failed", "finished"]


def test_batches_are_claimed_together_each_with_its_token(local, scheduler):
    ids = local.seed(60)
    with local.runtime.db.connection_context():
        batches = scheduler.claim_batches(4)
        assert [len(batch) for _, batch in batches] == [25, 25, 10]
        assert sorted(pid for _, batch in batches for pid in batch) == ids
        held = dict(CheckClaim.select(CheckClaim.project, CheckClaim.token).tuples())
        assert all(held[pid] == token for token, batch in batches for pid in batch)
        assert len({token for token, _ in batches}) == 3
        assert scheduler.claim_batches(4) == []  # every due project is in flight


def test_an_outage_is_one_line_per_minute_in_the_scheduler_log(scheduler, caplog):
    import logging

    import peewee

    locked = peewee.OperationalError("database is locked")
    with caplog.at_level(logging.WARNING, logger="anitrack_core.scale.scheduler"):
        for _ in range(3):  # the database stays away for three ticks
            scheduler._log_failure(locked)
        scheduler._log_failure(ConnectionRefusedError(111, "Connection refused"))
        scheduler._log_failure(KeyError("a bug"))
    lines = [(r.getMessage(), r.exc_info) for r in caplog.records]
    assert len(lines) == 3, lines
    assert "the database stayed locked" in lines[0][0] and lines[0][1] is None
    assert "the broker: [Errno 111] Connection refused" in lines[1][0] and lines[1][1] is None
    assert lines[2][1] is not None, "a bug keeps its traceback"
