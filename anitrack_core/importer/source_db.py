"""Reading an Anitya database (SQLite or PostgreSQL), read-only, in bounded batches.

Rows come out in anitrack's column names, with Anitya's storage quirks
undone: SQLite's text timestamps and 0/1 booleans, its 32-hex-digit user ids,
PostgreSQL's time-zone-aware check times (made naive UTC).  Projects are read
in id order, a batch at a time (``WHERE id > last ORDER BY id LIMIT n``), with
the versions, packages and flags of just that batch: memory stays bounded
whatever the size of the database, and a batch is a natural place to resume.
"""

from __future__ import annotations

import re
import sqlite3
import uuid
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..db.database import redact
from .report import SourceError

#: the Alembic revisions of Anitya's schema this reader knows, newest first, with what they are
SUPPORTED_REVISIONS = {
    "ebc827e80373": "usernames not unique (Anitya 1.0 and later, up to 2.3 at least)",
    "8ba7d4c42044": "social-auth tables removed",
    "2d1aa7ff82a5": "Google Code backend removed",
    "8be6e153962c": "latest_version_cursor removed",
    "5b8b587d7dbe": "version_filter added (latest_version_cursor present)",
}
TABLES = ("projects", "projects_versions", "packages", "distros", "projects_flags", "users", "tokens")
#: project columns anitrack reads (latest_version_cursor is optional: older schemas only)
PROJECT_COLUMNS = ("id", "name", "homepage", "backend", "ecosystem_name", "version_url", "regex",
                   "version_prefix", "version_pattern", "version_scheme", "pre_release_filter", "version_filter",
                   "insecure", "releases_only", "error_counter", "latest_version", "logs", "check_successful",
                   "archived", "last_check", "next_check", "updated_on", "created_on")
BOOLEAN_COLUMNS = {"insecure", "releases_only", "archived", "check_successful", "active", "admin"}
DATE_COLUMNS = {"last_check", "next_check", "updated_on", "created_on", "created"}


def supported_text() -> str:
    return ", ".join(f"{rev} ({what})" for rev, what in SUPPORTED_REVISIONS.items())


def naive_utc(value: Any) -> datetime | None:
    """A stored timestamp (datetime or SQLite text) as a naive UTC datetime."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value.strip().replace(" ", "T", 1))
    if value.tzinfo is not None:
        value = value.astimezone(timezone.utc).replace(tzinfo=None)
    return value


def _bool(value: Any) -> bool | None:
    return None if value is None else bool(value)


def _uuid(value: Any) -> uuid.UUID:
    return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))


class AnityaDatabase:
    """An open, read-only connection to an Anitya database."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.shown_url = redact(url)
        if url.startswith("sqlite:"):
            self.kind = "sqlite"
            self.conn = self._open_sqlite(url)
        elif re.match(r"^postgres(ql)?://", url):
            self.kind = "postgres"
            self.conn = self._open_postgres(url)
        else:
            raise SourceError(f"unsupported database URL {self.shown_url!r}: use sqlite:////path or postgresql://")
        self.revision = self._check_schema()
        self.project_columns = self._columns("projects")
        missing = [c for c in PROJECT_COLUMNS if c not in self.project_columns]
        if missing:
            raise SourceError(f"{self.shown_url}: table projects lacks column(s) {', '.join(missing)}; "
                              f"supported Anitya schema revisions: {supported_text()}")

    # ---- connecting ------------------------------------------------------------------------------

    def _open_sqlite(self, url: str) -> Any:
        path = urlsplit(url).path
        if url.startswith("sqlite:////"):
            path = "/" + path.lstrip("/")
        if not path or not Path(path).is_file():
            raise SourceError(f"no SQLite database at {path or url!r}")
        try:
            conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            conn.execute("SELECT 1 FROM sqlite_master LIMIT 1")
        except sqlite3.DatabaseError as exc:
            raise SourceError(f"cannot read {path} as an SQLite database: {exc}") from None
        return conn

    def _open_postgres(self, url: str) -> Any:
        try:
            import psycopg2
        except ImportError:
            raise SourceError("reading PostgreSQL needs psycopg2: pip install 'anitrack-core[postgres]'") from None
        try:
            conn = psycopg2.connect(url, connect_timeout=10, options="-c default_transaction_read_only=on",
                                    application_name="anitrack-import")
        except psycopg2.Error as exc:
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise SourceError(f"cannot reach the database at {self.shown_url}: {first}") from None
        conn.autocommit = True
        return conn

    def close(self) -> None:
        self.conn.close()

    # ---- queries ---------------------------------------------------------------------------------

    def _sql(self, sql: str) -> str:
        return sql.replace("?", "%s") if self.kind == "postgres" else sql

    def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> Iterator[dict[str, Any]]:
        cur = self.conn.cursor()
        try:
            cur.execute(self._sql(sql), params)
            names = [d[0] for d in cur.description]
            while True:
                chunk = cur.fetchmany(2000)
                if not chunk:
                    return
                for row in chunk:
                    yield dict(zip(names, row))
        finally:
            cur.close()

    def _scalar(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        cur = self.conn.cursor()
        try:
            cur.execute(self._sql(sql), params)
            row = cur.fetchone()
            return row[0] if row else None
        finally:
            cur.close()

    def _tables(self) -> set[str]:
        if self.kind == "sqlite":
            sql = "SELECT name AS table_name FROM sqlite_master WHERE type = 'table'"
        else:
            sql = "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        return {r["table_name"] for r in self._rows(sql)}

    def _columns(self, table: str) -> set[str]:
        if self.kind == "sqlite":
            return {row[1] for row in self.conn.execute(f"PRAGMA table_info({table})")}
        return {r["column_name"] for r in self._rows(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
            "AND table_name = ?", (table,))}

    def _check_schema(self) -> str:
        tables = self._tables()
        if "alembic_version" not in tables or "projects" not in tables:
            raise SourceError(f"{self.shown_url} is not an Anitya database (no alembic_version or projects table)")
        revision = self._scalar("SELECT version_num FROM alembic_version")
        if revision not in SUPPORTED_REVISIONS:
            raise SourceError(f"Anitya schema revision {revision!r} of {self.shown_url} is not supported; "
                              f"supported revisions: {supported_text()}; upgrade Anitya's database "
                              "(alembic upgrade head) first")
        missing = [t for t in TABLES if t not in tables]
        if missing:
            raise SourceError(f"{self.shown_url} is not a complete Anitya database: "
                              f"table(s) {', '.join(missing)} missing")
        return revision

    # ---- records ---------------------------------------------------------------------------------

    def count_projects(self, after: int = 0) -> int:
        return int(self._scalar("SELECT COUNT(*) FROM projects WHERE id > ?", (after,)))

    def distros(self) -> list[str]:
        return [r["name"] for r in self._rows("SELECT name FROM distros ORDER BY name")]

    def users(self) -> list[dict[str, Any]]:
        rows = [{"id": _uuid(r["id"]), "email": r["email"], "username": r["username"],
                 "active": r["active"] is None or bool(r["active"]), "admin": bool(r["admin"])}
                for r in self._rows("SELECT id, email, username, active, admin FROM users")]
        # of users whose e-mails differ only in letter case, the writer keeps the first: the one written in
        # lower case, if any (the spelling sign-ins most likely give)
        return sorted(rows, key=lambda r: (r["email"].casefold(), r["email"] != r["email"].lower(), r["email"],
                                           str(r["id"])))

    def tokens(self) -> list[dict[str, Any]]:
        rows = [{"secret": r["token"], "user_id": _uuid(r["user_id"]), "description": r["description"],
                 "created": naive_utc(r["created"])}
                for r in self._rows("SELECT token, user_id, description, created FROM tokens")]
        return sorted(rows, key=lambda r: (r["created"] or datetime.min, r["secret"]))

    def orphan_packages(self) -> list[dict[str, Any]]:
        """Package rows whose project is gone (possible where foreign keys were not enforced)."""
        return list(self._rows(
            "SELECT id, distro_name, project_id, package_name FROM packages WHERE project_id IS NULL "
            "OR project_id NOT IN (SELECT id FROM projects) ORDER BY id"))

    def project_batches(self, after: int, size: int) -> Iterator[list[dict[str, Any]]]:
        """Projects with id > *after*, *size* at a time, each with ``versions``, ``packages``, ``flags``."""
        columns = ", ".join(c for c in (*PROJECT_COLUMNS, "latest_version_cursor") if c in self.project_columns)
        last = after
        while True:
            projects = [self._project(r) for r in self._rows(
                f"SELECT {columns} FROM projects WHERE id > ? ORDER BY id LIMIT ?", (last, size))]
            if not projects:
                return
            low, high = projects[0]["id"], projects[-1]["id"]
            by_id = {p["id"]: p for p in projects}
            for r in self._rows("SELECT project_id, version, created_on, commit_url FROM projects_versions "
                                "WHERE project_id >= ? AND project_id <= ?", (low, high)):
                if r["project_id"] in by_id:
                    by_id[r["project_id"]]["versions"].append(
                        (r["version"], naive_utc(r["created_on"]), r["commit_url"]))
            for r in self._rows("SELECT id, distro_name, project_id, package_name FROM packages "
                                "WHERE project_id >= ? AND project_id <= ? ORDER BY id", (low, high)):
                if r["project_id"] in by_id:
                    by_id[r["project_id"]]["packages"].append(
                        {"id": r["id"], "distro": r["distro_name"], "package_name": r["package_name"]})
            for r in self._rows("SELECT id, project_id, reason, state, " + self._quote("user") + ", created_on, "
                                "updated_on FROM projects_flags WHERE project_id >= ? AND project_id <= ? "
                                "ORDER BY id", (low, high)):
                if r["project_id"] in by_id:
                    by_id[r["project_id"]]["flags"].append(
                        {"id": r["id"], "reason": r["reason"], "state": r["state"], "user": r["user"],
                         "created_on": naive_utc(r["created_on"]), "updated_on": naive_utc(r["updated_on"])})
            yield projects
            last = high

    def _quote(self, name: str) -> str:
        return f'"{name}"'

    def _project(self, row: dict[str, Any]) -> dict[str, Any]:
        project = dict(row)
        for key in BOOLEAN_COLUMNS & project.keys():
            project[key] = _bool(project[key])
        for key in DATE_COLUMNS & project.keys():
            project[key] = naive_utc(project[key])
        project.setdefault("latest_version_cursor", None)
        project.update(versions=[], packages=[], flags=[])
        return project
