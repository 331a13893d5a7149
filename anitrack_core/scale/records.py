"""The pass records of a worker: one per window of ``scheduler_interval`` seconds of its batches.

A scaled-out pass has no end of its own (the scheduler enqueues as projects
fall due), so a worker's record (:mod:`anitrack_core.db.passes`, the table the
CLI's and ``anitrack serve``'s passes write) covers what it checked in one
window: started with the first batch of the window, counted by each batch's
write (in that write's transaction), ended ``finished`` when the window is
over and its last batch is saved, ``failed`` with the cause when the database
refused a batch (the next batch starts a new record), and shown
``interrupted`` when the worker was killed.  With W workers there are about W
records a minute, each naming its worker's machine and process.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from ..db import passes
from ..db.models import utcnow


@dataclass
class _Window:
    record: int
    opened: float
    #: batches writing into it now
    users: int = 0
    ended: bool = False


class PassWindows:
    """The current pass record of a worker process (thread-safe)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._lock = threading.Lock()
        self._current: _Window | None = None

    @contextmanager
    def batch(self) -> Iterator[int]:
        """The id of the record a batch's write counts into (starting one when the window is over)."""
        with self._lock:
            window = self._current
            if window is None or time.monotonic() - window.opened >= self.seconds:
                window = _Window(passes.start_pass(utcnow()).id, time.monotonic())
                old, self._current = self._current, window
                if old is not None and not old.users:
                    self._end(old, passes.FINISHED)
            window.users += 1
        try:
            yield window.record
        finally:
            with self._lock:
                window.users -= 1
                if window is not self._current and not window.users:
                    self._end(window, passes.FINISHED)

    def fail(self, record: int, cause: str) -> None:
        """End the record *record* ``failed`` with *cause* (a batch of it could not be saved)."""
        with self._lock:
            window = self._current
            if window is not None and window.record == record:
                self._current = None
                self._end(window, passes.FAILED, cause)

    def end_if_over(self) -> None:
        """End the current record if its window is over and no batch writes into it (an idle worker's)."""
        with self._lock:
            window = self._current
            if window is not None and not window.users and time.monotonic() - window.opened >= self.seconds:
                self._current = None
                self._end(window, passes.FINISHED)

    def close(self) -> None:
        """End the current record (the worker stops)."""
        with self._lock:
            window, self._current = self._current, None
            if window is not None:
                self._end(window, passes.FINISHED)

    @staticmethod
    def _end(window: _Window, state: str, cause: str | None = None) -> None:
        if not window.ended:
            window.ended = True
            passes.end_pass(window.record, state, cause)
