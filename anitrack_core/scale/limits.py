"""Per-host slots and rate-limit pauses shared by every worker, through the database.

A worker's :class:`~anitrack_core.check.runner.Checker` gets these instead of
the per-process :class:`~anitrack_core.check.http.HostSlots` and
:class:`~anitrack_core.check.http.RateLimitPauses`; the check code is the same.

* :class:`SharedHostSlots`: on PostgreSQL, slot *n* of a host is the session
  advisory lock ``(hash of the host, n)``: a request takes a free one (one
  query), else waits on one of them; it is given back when the request ends,
  and by the server itself when a worker dies (its connections close), so a
  killed worker never leaves a slot taken.  On SQLite (one machine) it is the
  per-process bound.
* :class:`SharedPauses`: a pause is also written to the ``rate_limit_pause``
  table, which every worker reads again at most every
  :data:`PAUSE_REFRESH_SECONDS`: a backend paused by one worker is paused for
  all of them within that time.
"""

from __future__ import annotations

import random
import threading
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from urllib.parse import urlsplit

import peewee

from ..check.http import HostSlots, RateLimitPauses
from ..db.models import database_proxy, utcnow
from .models import RateLimitPause

PAUSE_REFRESH_SECONDS = 2.0
_TRY_SLOT = "SELECT s FROM generate_series(0, %s) AS s WHERE pg_try_advisory_lock(%s, s) LIMIT 1"


def is_postgres() -> bool:
    return isinstance(database_proxy.obj, peewee.PostgresqlDatabase)


def lock_key(text: str) -> int:
    """A signed 32-bit key for an advisory lock named *text* (stable across processes and machines)."""
    return zlib.crc32(text.encode("utf-8")) - 2**31


class SharedHostSlots(HostSlots):
    """At most *per_host* requests in flight to any one host across every worker (PostgreSQL)."""

    def __init__(self, per_host: int) -> None:
        super().__init__(per_host)
        self.shared = is_postgres()

    @contextmanager
    def slot(self, url: str) -> Iterator[None]:
        if not self.shared:
            with super().slot(url):
                yield
            return
        key = lock_key("host:" + (urlsplit(url).hostname or "").lower())
        db = database_proxy.obj
        # the request runs in this thread, whose pooled connection holds the lock until it is unlocked
        row = db.execute_sql(_TRY_SLOT, (self.per_host - 1, key)).fetchone()
        number = row[0] if row else random.randrange(self.per_host)
        if row is None:
            db.execute_sql("SELECT pg_advisory_lock(%s, %s)", (key, number))
        try:
            yield
        finally:
            db.execute_sql("SELECT pg_advisory_unlock(%s, %s)", (key, number))


class SharedPauses(RateLimitPauses):
    """Rate-limit pauses written to and read from the database (every worker sees each one)."""

    def __init__(self) -> None:
        super().__init__()
        self._read_at = 0.0
        self._read_lock = threading.Lock()

    def paused_until(self, key: str) -> datetime | None:
        self._refresh()
        return super().paused_until(key)

    def pause(self, key: str, reset: datetime) -> None:
        super().pause(key, reset)
        until = reset.astimezone(timezone.utc).replace(tzinfo=None) if reset.tzinfo else reset
        now = utcnow()
        keep_current = (RateLimitPause.until > now) & (RateLimitPause.until < until)
        (RateLimitPause.insert(name=key.casefold(), until=until)
         .on_conflict(conflict_target=[RateLimitPause.name],
                      update={RateLimitPause.until: peewee.Case(None, [(keep_current, RateLimitPause.until)],
                                                                until)})
         .execute())

    def _refresh(self) -> None:
        if time.monotonic() - self._read_at < PAUSE_REFRESH_SECONDS:
            return
        with self._read_lock:
            if time.monotonic() - self._read_at < PAUSE_REFRESH_SECONDS:
                return
            rows = list(RateLimitPause.select(RateLimitPause.name, RateLimitPause.until)
                        .where(RateLimitPause.until > utcnow()).tuples())
            self._read_at = time.monotonic()
        for name, until in rows:
            super().pause(name, until)
