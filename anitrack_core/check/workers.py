"""Fetching in worker processes, so a large pass uses every core.

Parsing HTTP answers and running regular expressions is Python work that one
process cannot spread over cores.  A pass of many projects therefore sends
batches of :class:`ProjectSpec` to worker processes (see :func:`_start_method`),
each fetching with its own threads, HTTP
connection pool and backends (loaded from the installed plugins, like the
parent's), and returning :class:`FetchOutcome` objects; the parent stays the
only writer.  Rate-limit pauses and per-host limits hold within each worker.

What fetches in a worker is made there by the picklable *setup* the caller
gives (the check engine's carries the parent's settings), so this module
knows nothing of the engine.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait
from typing import Any

from .backend_versions import FetchOutcome
from .spec import ProjectSpec

BATCH = 64
_worker: dict[str, Any] = {}


#: what runs in a worker: ``setup()`` gives the function that fetches one spec
Fetcher = Callable[[ProjectSpec], FetchOutcome]


def _init(setup: Callable[[], Fetcher], threads: int) -> None:
    _worker["fetch"] = setup()
    _worker["pool"] = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="anitrack-fetch")


def _fetch_batch(specs: list[ProjectSpec]) -> list[FetchOutcome]:
    return list(_worker["pool"].map(_worker["fetch"], specs))


def _start_method() -> str:
    """``fork`` when this process runs no other thread (a one-off ``anitrack check``): the workers start at
    once, with the modules the parent imported; ``spawn`` otherwise (a threaded server, a test: a fork
    there could copy a lock another thread holds), the workers then import what they need."""
    if threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods():
        return "fork"
    return "spawn"


def fetch_in_processes(specs: Iterator[ProjectSpec], *, setup: Callable[[], Fetcher], processes: int,
                       threads: int) -> Iterator[list[FetchOutcome]]:
    """Fetch *specs* in *processes* workers of *threads* threads; yields batches of outcomes as they finish.
    Closed early, it gives up the batches no worker has begun.

    :param setup: picklable; called once in each worker, it returns the function that fetches one spec.
    """
    context = multiprocessing.get_context(_start_method())
    with ProcessPoolExecutor(max_workers=processes, mp_context=context, initializer=_init,
                             initargs=(setup, threads)) as pool:
        pending: set[Future[list[FetchOutcome]]] = set()
        exhausted = False
        try:
            while pending or not exhausted:
                while not exhausted and len(pending) < processes * 3:
                    batch = [spec for _, spec in zip(range(BATCH), specs)]
                    if not batch:
                        exhausted = True
                        break
                    pending.add(pool.submit(_fetch_batch, batch))
                if not pending:
                    break
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    yield future.result()
        except BaseException:  # closed early (the caller stopped): give up the batches not begun
            pool.shutdown(wait=False, cancel_futures=True)
            raise
