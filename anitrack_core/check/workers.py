"""Fetching in worker processes, so a large pass uses every core.

Parsing HTTP answers and running regular expressions is Python work that one
process cannot spread over cores; and one process whose threads both fetch
and write pays for it again in handing its interpreter lock to and fro (on a
2-core machine, twice the CPU per check of two processes that only fetch).
So the check engine fetches in :class:`FetchProcesses`: child processes, each
with its own threads, HTTP connection pool and backends (loaded from the
installed plugins, like the parent's), that take batches of
:class:`ProjectSpec` and give back each batch's :class:`FetchOutcome` objects;
the parent stays the only writer.  A child fetches every batch it has been
given at once, its threads shared by them: a batch waiting on a slow host does
not hold the others back.  Rate-limit pauses and per-host limits hold within
each child (a scaled-out worker's children share them through the database).

What fetches in a child is made there by the picklable *setup* the caller
gives (the check engine's carries the parent's settings), so this module
knows nothing of the engine.
"""

from __future__ import annotations

import itertools
import logging
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from .backend_versions import FetchOutcome
from .spec import ProjectSpec

log = logging.getLogger(__name__)
BATCH = 64

#: what runs in a child: ``setup()`` gives the function that fetches one spec
Fetcher = Callable[[ProjectSpec], FetchOutcome]


class FetchProcessGone(RuntimeError):
    """The child process fetching a batch exited before answering (killed, out of memory)."""


def _start_method() -> str:
    """``fork`` when this process runs no other thread (a one-off ``anitrack check``): the children start at
    once, with the modules the parent imported; ``spawn`` otherwise (a threaded server, a test: a fork
    there could copy a lock another thread holds), the children then import what they need."""
    if threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods():
        return "fork"
    return "spawn"


# ---- in a child ----

class _Batch:
    """One batch being fetched in a child: its outcomes as they come, sent back with the last one."""

    def __init__(self, job: int, size: int, reply: Callable[[tuple[Any, ...]], None]) -> None:
        self.job, self.left, self.reply = job, size, reply
        self.outcomes: list[Any] = [None] * size
        self.error: str | None = None
        self.lock = threading.Lock()

    def done(self, position: int, future: Future[FetchOutcome]) -> None:
        exc = future.exception()
        with self.lock:
            if exc is not None and self.error is None:
                self.error = f"{type(exc).__name__}: {exc}"
            elif exc is None:
                self.outcomes[position] = future.result()
            self.left -= 1
            last = self.left == 0
        if last:
            self.reply((self.job, None, self.error) if self.error else (self.job, self.outcomes, None))


def _serve(connection: Any, setup: Callable[[], Fetcher], threads: int, inherited: Sequence[Any]) -> None:
    """A child's life: fetch each batch the parent sends, answer each when all its specs are fetched, exit
    when the parent closes the pipe (or dies: the pipe closes with it)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group: the parent decides
    for other in inherited:  # a forked child holds copies of the parent's ends of the pipes: closed, so
        other.close()        # each child sees its own pipe close when the parent goes
    fetch = setup()
    pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="anitrack-fetch")
    send_lock = threading.Lock()

    def reply(message: tuple[Any, ...]) -> None:
        try:
            with send_lock:
                connection.send(message)
        except (OSError, ValueError):  # the parent is gone: so is this child, soon
            pass

    while True:
        try:
            message = connection.recv()
        except (EOFError, OSError):
            break
        if message is None:
            break
        job, specs = message
        batch = _Batch(job, len(specs), reply)
        for position, spec in enumerate(specs):
            pool.submit(fetch, spec).add_done_callback(lambda future, p=position, b=batch: b.done(p, future))
    # no clean-up: the parent wants nothing more, and a forked child must not close the parent's connections
    os._exit(0)


# ---- in the parent ----

@dataclass
class _Child:
    process: Any
    connection: Any
    #: job number -> (its future, its size)
    pending: dict[int, tuple[Future[list[FetchOutcome]], int]] = field(default_factory=dict)
    load: int = 0
    gone: bool = False
    send_lock: threading.Lock = field(default_factory=threading.Lock)
    #: the thread reading its answers (the only one that waits for it)
    reader: threading.Thread | None = None


class FetchProcesses:
    """*processes* child processes of *threads* threads each, fetching the batches given to :meth:`submit`
    (each to the child with the fewest specs in hand).  A child that exits fails its batches
    (:class:`FetchProcessGone`) and another takes its place at the next :meth:`submit`.

    :param setup: called once in each child, it returns the function that fetches one spec; picklable
        unless the children are forked.
    :param method: ``fork`` or ``spawn``; by default :func:`_start_method`'s choice.
    """

    def __init__(self, setup: Callable[[], Fetcher], *, processes: int, threads: int,
                 method: str | None = None) -> None:
        self._setup, self._threads = setup, max(1, threads)
        self._lock = threading.Lock()
        self._jobs = itertools.count()
        self._closed = False
        method = method or _start_method()
        self._children: list[_Child] = []
        for _ in range(max(1, processes)):  # every child is started before any thread reading answers: forking
            self._children.append(self._start(method))  # stays safe
        for child in self._children:
            self._listen(child)

    def submit(self, specs: Sequence[ProjectSpec]) -> Future[list[FetchOutcome]]:
        """Fetch *specs* in a child; the future gives their outcomes, in order."""
        future: Future[list[FetchOutcome]] = Future()
        if not specs:
            future.set_result([])
            return future
        with self._lock:
            if self._closed:
                raise RuntimeError("the fetch processes are closed")
            position, child = min(enumerate(self._children), key=lambda item: (item[1].gone, item[1].load))
            if child.gone:
                log.warning("a fetch process exited (code %s); starting another", child.process.exitcode)
                child = self._children[position] = self._start(_start_method())
                self._listen(child)
            job = next(self._jobs)
            child.pending[job] = (future, len(specs))
            child.load += len(specs)
        try:
            with child.send_lock:
                child.connection.send((job, list(specs)))
        except (OSError, ValueError):  # the child is gone: its reader fails the batch
            pass
        return future

    def close(self) -> None:
        """Stop the children (what they are fetching is given up)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        for child in self._children:
            try:
                with child.send_lock:
                    child.connection.send(None)
            except (OSError, ValueError):
                pass
        for child in self._children:  # its reader ends when it exits, and reaps it
            assert child.reader is not None
            child.reader.join(5)
            if child.reader.is_alive():
                child.process.kill()
                child.reader.join(5)
            child.connection.close()

    def __enter__(self) -> FetchProcesses:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ---- the parts ----

    def _start(self, method: str) -> _Child:
        context = multiprocessing.get_context(method)
        mine, theirs = context.Pipe()
        inherited = [child.connection for child in self._children] + [mine]
        process = context.Process(target=_serve, name="anitrack-fetch", daemon=True,
                                  args=(theirs, self._setup, self._threads, inherited if method == "fork" else []))
        process.start()
        theirs.close()
        return _Child(process, mine)

    def _listen(self, child: _Child) -> None:
        child.reader = threading.Thread(target=self._read, args=(child,), name="anitrack-fetch-answers", daemon=True)
        child.reader.start()

    def _read(self, child: _Child) -> None:
        """Resolve *child*'s batches as it answers; when it exits, reap it (this thread only: two threads
        waiting for one process confuse multiprocessing) and fail the batches it had not answered."""
        while True:
            try:
                job, outcomes, error = child.connection.recv()
            except (EOFError, OSError, ValueError):
                break
            with self._lock:
                future, size = child.pending.pop(job)
                child.load -= size
            if error is None:
                future.set_result(outcomes)
            else:
                future.set_exception(RuntimeError(f"fetching failed in a fetch process: {error}"))
        child.process.join(10)
        with self._lock:
            child.gone = True
            lost, child.pending, child.load = list(child.pending.values()), {}, 0
        for future, _ in lost:
            future.set_exception(FetchProcessGone(f"the fetch process exited (code {child.process.exitcode}) "
                                                  "before answering"))


def fetch_in_processes(specs: Iterator[ProjectSpec], *, setup: Callable[[], Fetcher], processes: int,
                       threads: int) -> Iterator[list[FetchOutcome]]:
    """Fetch *specs* in *processes* children of *threads* threads; yields batches of outcomes as they finish.
    Closed early, it gives up the batches not yet fetched.

    :param setup: picklable; called once in each child, it returns the function that fetches one spec.
    """
    with FetchProcesses(setup, processes=processes, threads=threads) as children:
        pending: set[Future[list[FetchOutcome]]] = set()
        exhausted = False
        while pending or not exhausted:
            while not exhausted and len(pending) < processes * 3:
                batch = [spec for _, spec in zip(range(BATCH), specs)]
                if not batch:
                    exhausted = True
                    break
                pending.add(children.submit(batch))
            if not pending:
                break
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                yield future.result()
