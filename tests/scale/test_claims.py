"""The database side of scaled-out checking, without a broker: claims, redelivery, shared limits."""

from __future__ import annotations

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

    return ScaleScheduler(scale_runtime, claim_seconds=30)


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
