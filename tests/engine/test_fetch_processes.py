"""The processes that fetch for a pass or a worker: batches answered as they finish, a dead child replaced."""

from __future__ import annotations

import os
import time
from concurrent.futures import wait

import pytest

from anitrack_core.check.backend_versions import FetchOutcome
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.check.workers import FetchProcesses, FetchProcessGone


class NappingFetch:
    """A child's fetch without a network: a spec named ``nap-S`` takes S seconds, ``crash`` kills its process;
    the outcome says which process fetched it."""

    def __call__(self):
        def fetch(spec: ProjectSpec) -> FetchOutcome:
            if spec.name == "crash":
                os._exit(3)
            if spec.name.startswith("nap-"):
                time.sleep(float(spec.name[4:]))
            return FetchOutcome(spec, error=f"fetched by {os.getpid()}")

        return fetch


def specs(*names: str) -> list[ProjectSpec]:
    return [ProjectSpec(id=n, name=name, homepage=f"https://e.org/{n}", backend="custom")
            for n, name in enumerate(names)]


@pytest.fixture
def children():
    pool = FetchProcesses(NappingFetch(), processes=1, threads=8, method="spawn")
    yield pool
    pool.close()


def test_a_slow_batch_does_not_hold_back_the_next_one(children):
    slow = children.submit(specs("nap-3", "quick"))
    fast = children.submit(specs("a", "b", "c"))
    assert [o.spec.name for o in fast.result(timeout=60)] == ["a", "b", "c"]  # in order, while the slow one naps
    assert not slow.done()
    assert [o.spec.name for o in slow.result(timeout=10)] == ["nap-3", "quick"]
    assert children.submit([]).result(timeout=1) == []


def test_a_child_that_dies_fails_its_batches_and_another_takes_its_place(children):
    first = children.submit(specs("a")).result(timeout=60)[0].error
    waiting = children.submit(specs("nap-1"))
    doomed = children.submit(specs("crash"))
    wait([waiting, doomed], timeout=30)
    for future in (waiting, doomed):
        with pytest.raises(FetchProcessGone, match=r"exited \(code 3\) before answering"):
            future.result()
    again = children.submit(specs("b")).result(timeout=60)[0].error
    assert again.startswith("fetched by ") and again != first, "a new process fetches"


def test_closed_they_exit_and_take_no_more_work():
    pool = FetchProcesses(NappingFetch(), processes=2, threads=2, method="spawn")
    assert len(pool.submit(specs("a", "b")).result(timeout=60)) == 2
    processes = [child.process for child in pool._children]
    pool.close()
    assert not any(process.is_alive() for process in processes)
    with pytest.raises(RuntimeError, match="closed"):
        pool.submit(specs("c"))
