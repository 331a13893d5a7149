"""Choosing and opening the database from ``ANITRACK_DATABASE_URL``.

``sqlite:////abs/path.db`` (the default, a file in the data directory) opens a
pooled SQLite database in WAL mode with foreign keys on; ``postgresql://...``
opens a pooled PostgreSQL database (needs ``psycopg2``, the ``postgres``
extra).  Either way the models' :data:`~anitrack_core.db.models.database_proxy`
is bound to it.

URLs are read by peewee's own :mod:`playhouse.db_url`: a percent-encoded user or
password is decoded, and query parameters are connection options
(``?sslmode=require&connect_timeout=5`` for PostgreSQL), which win over
anitrack's defaults.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import peewee
from playhouse import db_url
from playhouse.pool import PooledPostgresqlDatabase, PooledSqliteDatabase

from ..errors import StoreError
from .models import database_proxy

SQLITE_PRAGMAS = {
    "journal_mode": "wal",
    "foreign_keys": 1,
    "synchronous": "normal",
    "cache_size": -64_000,
}
#: seconds a statement waits for a lock another connection holds (setting ``db_busy_timeout``)
BUSY_TIMEOUT = 10.0
POOL_SIZE = 16
POOL_STALE_SECONDS = 300
POOL_WAIT_SECONDS = 30


def redact(url: str) -> str:
    """*url* with its password replaced, fit for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def _parse(url: str) -> dict[str, Any]:
    try:
        return db_url.parse(url, unquote_password=True, unquote_user=True)
    except ValueError as exc:  # a port that is not a number
        raise StoreError(f"database URL {redact(url)!r} is malformed: {exc}") from None


def _sqlite(url: str, busy_timeout: float) -> peewee.Database:
    options = _parse(url)
    path = options.pop("database")
    if url.split("?")[0].rstrip("/") in ("sqlite:", "sqlite:/") or not path:
        raise StoreError(f"database URL {url!r} names no file; use sqlite:////absolute/path.db")
    if path != ":memory:":
        parent = Path(path).expanduser().parent
        if not parent.is_dir():
            raise StoreError(f"cannot open SQLite database {path}: directory {parent} does not exist")
    # transactions take the write lock when they begin (BEGIN IMMEDIATE): one that read first and
    # wrote later would otherwise fail at once with "database is locked" when another connection
    # committed in between, instead of waiting its turn (busy_timeout)
    pragmas = {**SQLITE_PRAGMAS, "busy_timeout": int(busy_timeout * 1000)}
    defaults = {"pragmas": pragmas, "max_connections": POOL_SIZE, "stale_timeout": POOL_STALE_SECONDS,
                "timeout": POOL_WAIT_SECONDS, "check_same_thread": False, "lock_type": "IMMEDIATE"}
    return PooledSqliteDatabase(path, **{**defaults, **options})


def _postgres(url: str, busy_timeout: float) -> peewee.Database:
    try:
        import psycopg2  # noqa: F401  (checked here for a clear message)
    except ImportError:
        raise StoreError("PostgreSQL needs the psycopg2 driver: pip install 'anitrack-core[postgres]'") from None
    options = _parse(url)
    name = options.pop("database")
    if not name:
        raise StoreError(f"database URL {redact(url)!r} names no database (postgresql://user@host:port/NAME)")
    # lock_timeout: a statement waiting for a lock fails after busy_timeout, as on SQLite, instead of hanging
    defaults = {"max_connections": POOL_SIZE, "stale_timeout": POOL_STALE_SECONDS, "timeout": POOL_WAIT_SECONDS,
                "connect_timeout": 10, "options": f"-c lock_timeout={int(busy_timeout * 1000)}"}
    return PooledPostgresqlDatabase(name, **{**defaults, **options})


def make_database(url: str, *, busy_timeout: float = BUSY_TIMEOUT) -> peewee.Database:
    """A (not yet connected) database for *url*.

    :param busy_timeout: seconds a statement waits for a lock held by another connection before failing
        (SQLite's busy_timeout, PostgreSQL's lock_timeout).
    """
    if url.startswith("sqlite://"):
        return _sqlite(url, busy_timeout)
    if re.match(r"^postgres(ql)?://", url):
        return _postgres(url, busy_timeout)
    raise StoreError(f"unsupported database URL {redact(url)!r}: use sqlite:// or postgresql://")


def open_database(url: str, *, check: bool = True, busy_timeout: float = BUSY_TIMEOUT) -> peewee.Database:
    """Bind the models to the database at *url* and, if *check*, connect once to prove it works.

    :raises StoreError: the URL is malformed or the database cannot be reached.
    """
    db = make_database(url, busy_timeout=busy_timeout)
    if check:
        try:
            db.connect(reuse_if_open=True)
            db.execute_sql("SELECT 1")
        except peewee.DatabaseError as exc:
            first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise StoreError(f"cannot reach the database at {redact(url)}: {first_line}") from None
        finally:
            if not db.is_closed():
                db.close()
    database_proxy.initialize(db)
    return db
