"""What went wrong with the database, in words an operator can act on, and waiting out a lock.

SQLite and PostgreSQL report a lock held too long, a full disk, a read-only
database or a lost connection through their own exception types and codes,
often wrapped by peewee and chained behind a second error (SQLite rolls a
transaction back itself when the disk is full, so the rollback that follows
fails with ``cannot rollback - no transaction is active``).
:func:`storage_trouble` finds the real cause anywhere in that chain;
:func:`retrying` runs a piece of work again, with back-off, while the cause is
one that passes (a lock, a lost connection), for a bounded time.
"""

from __future__ import annotations

import errno
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

import peewee

from ..errors import StoreError

log = logging.getLogger(__name__)
T = TypeVar("T")

LOCKED, FULL, READ_ONLY, GONE, MOVED, DISK, DAMAGED = ("locked", "full", "read-only", "gone", "moved", "disk",
                                                       "damaged")
#: the kinds of trouble that pass by themselves: worth waiting for
PASSING = frozenset({LOCKED, GONE})

_ADVICE = {
    LOCKED: "another connection held a lock on it (a long transaction, a backup, a migration?): find it, "
            "or raise the db_busy_timeout or check_write_retry setting",
    FULL: "the disk holding the database is full: free space there, then run the check again",
    READ_ONLY: "the database cannot be written: make the database file and its directory (with the -wal and "
               "-shm files beside it) writable by the user running anitrack, or check the mount or the "
               "PostgreSQL role",
    GONE: "the database cannot be reached: check that the PostgreSQL server is up, or that the SQLite file "
          "is still where ANITRACK_DATABASE_URL says",
    MOVED: "the SQLite file was moved or deleted while anitrack had it open: put it back (or restore a backup) "
           "where ANITRACK_DATABASE_URL says",
    DISK: "the disk holding the database failed: check the disk and the system log",
    DAMAGED: "the database file is damaged: restore a backup (see the operator guide, 'The database')",
}
_SUMMARY = {LOCKED: "the database stayed locked", FULL: "the disk is full", READ_ONLY: "the database is read-only",
            GONE: "the database was lost", MOVED: "the database file is gone", DISK: "a disk error", DAMAGED: "the database is damaged"}


@dataclass(frozen=True)
class Trouble:
    """One storage failure: its *kind* (``locked``, ``full``, ``read-only``, ``gone``, ``moved``, ``disk``,
    ``damaged``) and the driver's own words."""

    kind: str
    detail: str

    @property
    def passing(self) -> bool:
        return self.kind in PASSING

    def message(self, *, waited: float | None = None) -> str:
        """``<summary> (<driver's words>[, for N s]): <what to do>``."""
        during = f", for {waited:.0f} s" if waited is not None and self.kind in PASSING else ""
        return f"{_SUMMARY[self.kind]} ({self.detail}{during}): {_ADVICE[self.kind]}"


class StorageError(StoreError):
    """The database could not be written or read (after waiting, for troubles that pass); ``trouble`` says why."""

    def __init__(self, message: str, trouble: Trouble) -> None:
        super().__init__(message)
        self.trouble = trouble


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """*exc*, the driver error peewee wrapped in it, and every error it was raised from or during."""
    seen: set[int] = set()
    todo = [exc]
    while todo:
        current = todo.pop(0)
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        wrapped = current.args[0] if current.args and isinstance(current.args[0], BaseException) else None
        todo.extend(e for e in (wrapped, current.__cause__, current.__context__) if e is not None)


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _sqlite_kind(exc: BaseException) -> str | None:
    name = getattr(exc, "sqlite_errorname", "") or ""
    text = str(exc).lower()
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "database is locked" in text \
            or "database table is locked" in text:
        return LOCKED
    if name == "SQLITE_FULL" or "database or disk is full" in text:
        return FULL
    if name == "SQLITE_READONLY_DBMOVED":
        return MOVED
    if name.startswith("SQLITE_READONLY") or "readonly database" in text:
        return READ_ONLY
    if name.startswith("SQLITE_CANTOPEN") or "unable to open database file" in text:
        return GONE
    if name.startswith("SQLITE_IOERR") or "disk i/o error" in text:
        return DISK
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) or "malformed" in text:
        return DAMAGED
    return None


def _postgres_kind(exc: BaseException) -> str | None:
    code = getattr(exc, "pgcode", None) or ""
    if code in ("55P03", "40P01", "40001"):  # lock_not_available, deadlock_detected, serialization_failure
        return LOCKED
    if code == "53100":  # disk_full
        return FULL
    if code == "25006":  # read_only_sql_transaction (a standby, default_transaction_read_only)
        return READ_ONLY
    if code.startswith(("08", "57P")) or code == "53300":  # connection lost, server shutting down, too many
        return GONE
    if not code and type(exc).__name__ in ("OperationalError", "InterfaceError"):  # the connection broke
        return GONE
    return None


def _one(exc: BaseException) -> str | None:
    module = type(exc).__module__ or ""
    if module.startswith("sqlite3"):
        return _sqlite_kind(exc)
    if module.startswith("psycopg2"):
        return _postgres_kind(exc)
    if isinstance(exc, OSError):
        return {errno.ENOSPC: FULL, errno.EROFS: READ_ONLY, errno.EIO: DISK}.get(exc.errno)
    if isinstance(exc, peewee.DatabaseError) and not (exc.args and isinstance(exc.args[0], BaseException)):
        return _sqlite_kind(exc)  # raised by peewee itself (a wrapper's driver error is looked at next)
    return None


def storage_trouble(exc: BaseException) -> Trouble | None:
    """The storage failure behind *exc*, or None when *exc* is something else (a bug, bad data)."""
    for current in _chain(exc):
        kind = _one(current)
        if kind is not None:
            return Trouble(kind, first_line(current))
    return None


def _forget_connection(db: peewee.Database) -> None:
    """Close this thread's connection (a pool drops a broken one), so the next attempt opens a new one."""
    try:
        if not db.is_closed() and not db.in_transaction():
            db.close()
    except Exception:  # noqa: BLE001  (closing a broken connection may fail too; the next attempt reconnects)
        log.debug("closing the connection after a storage failure failed", exc_info=True)


def retrying(work: Callable[[], T], *, patience: float, db: peewee.Database, what: str,
             sleep: Callable[[float], None] = time.sleep) -> T:
    """``work()``, run again with back-off (0.25 s doubling up to 10 s) while it fails for a trouble that
    passes (a lock, a lost connection), until *patience* seconds have gone by.

    :raises StorageError: a storage failure that does not pass, or one that outlived *patience*;
        its message begins with *what* ("could not save 200 checks") and says what to do.
    """
    started = time.monotonic()
    delay = 0.25
    while True:
        try:
            return work()
        except Exception as exc:
            trouble = storage_trouble(exc)
            if trouble is None:
                raise
            waited = time.monotonic() - started
            if not trouble.passing or waited + delay > patience:
                raise StorageError(f"{what}: {trouble.message(waited=waited)}", trouble) from exc
            log.warning("%s: %s; trying again in %.2f s", what, trouble.detail, delay)
            if trouble.kind == GONE:
                _forget_connection(db)
            sleep(delay)
            delay = min(delay * 2, 10.0)

