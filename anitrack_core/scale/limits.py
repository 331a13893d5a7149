"""Per-host slots and rate-limit pauses shared by every worker, through the database.

A worker's :class:`~anitrack_core.check.runner.Checker` gets these instead of
the per-process :class:`~anitrack_core.check.http.HostSlots` and
:class:`~anitrack_core.check.http.RateLimitPauses`; the check code is the same.

* :class:`SharedHostSlots`: on PostgreSQL, slot *n* of a host is the session
  advisory lock ``(hash of the host, n)``.  A fetch process leases slots on
  one connection of its own (:class:`_Keeper`) and lends them to its threads:
  a request takes a slot the process holds (no query), else the process leases
  one more (one query), else it waits and asks again every
  :data:`POLL_SECONDS`.  A slot no request used for :data:`LINGER_SECONDS` is
  given back.  A host has the bound of the per-process slots (the operator's
  ``[check.host_concurrency]``, else what its backends declare, else
  ``check_per_host``); a process holds at most its share of it (the bound over
  the live workers' fetch processes, rounded up), so no worker starves another.
  A process that dies closes its connection: the server frees its slots.  On
  SQLite (one machine) it is the per-process bound.
* :class:`SharedPauses`: a pause is also written to the ``rate_limit_pause``
  table, which every worker reads again at most every
  :data:`PAUSE_REFRESH_SECONDS`: a backend paused by one worker is paused for
  all of them within that time.
"""

from __future__ import annotations

import logging
import math
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any
from urllib.parse import urlsplit

import peewee

from ..check.http import HostSlots, RateLimitPauses
from ..db.failures import first_line
from ..db.models import database_proxy, utcnow
from .models import RateLimitPause

log = logging.getLogger(__name__)
PAUSE_REFRESH_SECONDS = 2.0
#: a leased slot no request used for this long is given back
LINGER_SECONDS = 1.0
#: how often a process that found every slot of a host taken asks again
POLL_SECONDS = 0.05
#: the longest a request waiting for a slot of its host sleeps before looking again (it is woken sooner)
WAKE_SECONDS = 1.0
#: how often the count of live workers (each one's share of a host's slots) is read again
WORKERS_REFRESH_SECONDS = 10.0
#: the slots of a host no session holds (one statement may not both choose and lock: PostgreSQL may run the
#: lock function on more rows than a LIMIT keeps, and the locks it took for rows it did not return stay held)
_FREE_SLOTS = ("SELECT s FROM generate_series(0, %s) AS s WHERE NOT (s = ANY(%s)) AND s NOT IN ("
               "SELECT objid::bigint FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2"
               " AND classid = %s::bigint::oid"
               " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())) ORDER BY s")
_LIVE_WORKERS = "SELECT COUNT(*) FROM scale_process WHERE kind = 'worker' AND seen_on > %s"


def is_postgres() -> bool:
    return isinstance(database_proxy.obj, peewee.PostgresqlDatabase)


def lock_key(text: str) -> int:
    """A signed 32-bit key for an advisory lock named *text* (stable across processes and machines)."""
    return zlib.crc32(text.encode("utf-8")) - 2**31


@contextmanager
def connected() -> Iterator[None]:
    """This thread's database connection: the one it has open, else one for the block only (a fetching thread
    keeps none)."""
    db = database_proxy.obj
    if db.is_closed():
        with db.connection_context():
            yield
    else:
        yield


class _Keeper:
    """The connection (autocommit, of its own) that holds the advisory locks of this process's slots; any thread
    may use it, one at a time.  When it breaks, the server has freed the slots: ``lost()`` is called."""

    def __init__(self, lost: Callable[[], None]) -> None:
        self._connection: Any = None
        self._lock = threading.Lock()
        self._lost = lost

    def _query(self, sql: str, params: tuple, *, every_row: bool = False) -> Any:
        with self._lock:
            try:
                if self._connection is None:
                    import psycopg2

                    db = database_proxy.obj
                    self._connection = psycopg2.connect(database=db.database, **db.connect_params)
                    self._connection.autocommit = True
                with self._connection.cursor() as cursor:
                    cursor.execute(sql, params)
                    return cursor.fetchall() if every_row else cursor.fetchone()
            except Exception:
                self._close()
                raise

    def take(self, key: int, per_host: int, held: list[int]) -> int | None:
        """Lease a free slot of the host *key* (not one of *held*); None when all are taken."""
        for (number,) in self._query(_FREE_SLOTS, (per_host - 1, held, key & 0xFFFFFFFF), every_row=True):
            if self._query("SELECT pg_try_advisory_lock(%s, %s)", (key, number))[0]:
                return int(number)
        return None  # all taken (or taken since: another process was quicker)

    def give(self, key: int, number: int) -> None:
        self._query("SELECT pg_advisory_unlock(%s, %s)", (key, number))

    def live_workers(self) -> int:
        from .heartbeat import ALIVE

        return int(self._query(_LIVE_WORKERS, (utcnow() - ALIVE,))[0])

    def close(self) -> None:
        with self._lock:
            self._close()

    def _close(self) -> None:
        if self._connection is not None:
            connection, self._connection = self._connection, None
            try:
                connection.close()
            except Exception:  # noqa: BLE001  (a broken connection: the server dropped it already)
                pass
            self._lost()


@dataclass
class _Host:
    """The slots of one host in this process."""

    name: str
    key: int
    condition: threading.Condition
    #: the slot numbers this process leases
    leased: list[int] = field(default_factory=list)
    #: requests in flight (normally at most ``len(leased)``)
    busy: int = 0
    waiting: int = 0
    #: a thread is asking the database for a slot
    asking: bool = False
    ask_again_at: float = 0.0
    used_at: float = 0.0


class SharedHostSlots(HostSlots):
    """At most a host's :meth:`bound` requests in flight to it across every worker (PostgreSQL)."""

    def __init__(self, per_host: int, overrides: Mapping[str, int] | None = None, *, per_worker: int = 1) -> None:
        super().__init__(per_host, overrides)
        self.shared = is_postgres()
        #: the processes of one worker that hold slots (its fetch processes): they share the worker's share
        self.per_worker = max(1, per_worker)
        #: this process's leases by host name (the per-process token queues of HostSlots stay in ``_hosts``)
        self._leases: dict[str, _Host] = {}
        self._mutex = threading.Lock()
        self._keeper = _Keeper(self._forget_leases)
        self._workers = 1
        self._workers_read_at = -math.inf
        self._sweeper: threading.Thread | None = None
        self._closed = threading.Event()

    @contextmanager
    def slot(self, url: str) -> Iterator[None]:
        if not self.shared:
            with super().slot(url):
                yield
            return
        host = self._take((urlsplit(url).hostname or "").lower())
        try:
            yield
        finally:
            self._give(host)

    def close(self) -> None:
        """Give every slot back (closing the keeper's connection) and stop the sweeper."""
        self._closed.set()
        self._keeper.close()

    # ---- the parts ----

    def _take(self, name: str) -> _Host:
        with self._mutex:
            if self._sweeper is None:
                self._sweeper = threading.Thread(target=self._sweep, name="anitrack-host-slots", daemon=True)
                self._sweeper.start()
            host = self._leases.get(name)
            if host is None:
                host = self._leases[name] = _Host(name, lock_key("host:" + name), threading.Condition(self._mutex))
            host.waiting += 1
            try:
                while host.busy >= len(host.leased):
                    if host.asking or len(host.leased) >= self._share(host):
                        host.condition.wait(WAKE_SECONDS)  # a slot given back here notifies one waiter
                        continue
                    now = time.monotonic()
                    if now < host.ask_again_at:
                        host.condition.wait(host.ask_again_at - now)
                        continue
                    host.asking = True
                    self._mutex.release()
                    try:
                        number = self._lease(host)
                    finally:
                        self._mutex.acquire()
                        host.asking = False
                    if number is None:
                        host.ask_again_at = time.monotonic() + POLL_SECONDS
                    else:
                        host.leased.append(number)
                    host.condition.notify()  # the next waiter asks in turn (at once, or when POLL_SECONDS are up)
                host.busy += 1
                host.used_at = time.monotonic()
                return host
            finally:
                host.waiting -= 1

    def _share(self, host: _Host) -> int:
        """How many of *host*'s slots this process may hold: its bound over the live workers' fetch processes,
        rounded up."""
        return max(1, math.ceil(self.bound(host.name) / (self._workers * self.per_worker)))

    def _lease(self, host: _Host) -> int | None:
        try:
            return self._keeper.take(host.key, self.bound(host.name), list(host.leased))
        except Exception as exc:  # noqa: BLE001  (the database is away: the request waits and asks again)
            log.warning("could not lease a per-host slot (%s); asking again", first_line(exc))
            time.sleep(POLL_SECONDS * 10)
            return None

    def _give(self, host: _Host) -> None:
        surplus = None
        with self._mutex:
            host.busy -= 1
            host.used_at = time.monotonic()
            if len(host.leased) > self._share(host) and host.leased and host.busy < len(host.leased):
                surplus = host.leased.pop()  # more workers came: the process's share shrank
            elif host.waiting:
                host.condition.notify()
        if surplus is not None:
            self._give_back(host, surplus)

    def _give_back(self, host: _Host, number: int) -> None:
        try:
            self._keeper.give(host.key, number)
        except Exception as exc:  # noqa: BLE001  (its connection broke: the server freed every slot of it)
            log.warning("could not give a per-host slot back (%s)", exc)

    def _sweep(self) -> None:
        """Give back the slots not used for :data:`LINGER_SECONDS`; read the worker count again now and then."""
        while not self._closed.wait(LINGER_SECONDS / 2):
            now = time.monotonic()
            if now - self._workers_read_at > WORKERS_REFRESH_SECONDS:
                self._workers_read_at = now
                try:
                    self._workers = max(1, self._keeper.live_workers())
                except Exception as exc:  # noqa: BLE001  (the share stays as it was)
                    log.warning("could not count the live workers (%s)", exc)
            idle: list[tuple[_Host, int]] = []
            with self._mutex:
                for host in self._leases.values():
                    while host.leased and host.busy < len(host.leased) and not host.waiting \
                            and now - host.used_at > LINGER_SECONDS:
                        idle.append((host, host.leased.pop()))
            for host, number in idle:
                self._give_back(host, number)

    def _forget_leases(self) -> None:
        """The keeper's connection is gone, and with it every lease of this process."""
        with self._mutex:
            for host in self._leases.values():
                host.leased.clear()


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
        try:
            with self._read_lock, connected():
                (RateLimitPause.insert(name=key.casefold(), until=until)
                 .on_conflict(conflict_target=[RateLimitPause.name],
                              update={RateLimitPause.until: peewee.Case(None, [(keep_current, RateLimitPause.until)],
                                                                        until)})
                 .execute())
        except peewee.DatabaseError as exc:  # this worker pauses all the same; the others meet the limit themselves
            log.warning("could not share the rate-limit pause of %s (%s)", key, exc)

    def _refresh(self) -> None:
        if time.monotonic() - self._read_at < PAUSE_REFRESH_SECONDS:
            return
        with self._read_lock:
            if time.monotonic() - self._read_at < PAUSE_REFRESH_SECONDS:
                return
            self._read_at = time.monotonic()
            try:
                with connected():
                    rows = list(RateLimitPause.select(RateLimitPause.name, RateLimitPause.until)
                                .where(RateLimitPause.until > utcnow()).tuples())
            except peewee.DatabaseError as exc:  # read again at the next refresh
                log.warning("could not read the shared rate-limit pauses (%s)", exc)
                return
        for name, until in rows:
            super().pause(name, until)
