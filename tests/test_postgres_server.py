"""Tests of tests.servers.postgres: a real, throwaway PostgreSQL server.

Tests marked ``postgres`` start a server from Debian's ``postgresql`` binaries.
Without them they skip, with the reason shown by ``-ra``; in CI (env CI set)
they fail instead, so CI can never pass without having run them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

import pytest

from anitrack_core.testing import in_ci, skip_or_fail
from tests.servers import ServerError, ServerUnavailable, port_open
from tests.servers import postgres
from tests.servers.postgres import PG_BIN_ENV, PostgresServer, find_postgres_bin


def _unavailable(exc: ServerUnavailable) -> NoReturn:
    """Skip outside CI, fail in CI: a missing server must not pass CI silently."""
    skip_or_fail(f"PostgreSQL unavailable: {exc}")
    raise AssertionError("unreachable")  # pragma: no cover - skip_or_fail raises


def _require_binaries() -> None:
    """Skip (or, in CI, fail) unless the PostgreSQL binaries are installed."""
    try:
        find_postgres_bin()
    except ServerUnavailable as exc:
        _unavailable(exc)


@contextmanager
def running_server(**kwargs: object) -> Iterator[PostgresServer]:
    """A started PostgresServer, or a skip/fail when the binaries are missing."""
    server = PostgresServer(**kwargs)  # type: ignore[arg-type]
    try:
        server.start()
    except ServerUnavailable as exc:
        _unavailable(exc)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def server() -> Iterator[PostgresServer]:
    with running_server() as started:
        yield started


def _query(url: str, sql: str) -> object:
    import psycopg2

    connection = psycopg2.connect(url)
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql)
            return cursor.fetchone()[0]
    finally:
        connection.close()


@pytest.mark.postgres
def test_server_lifecycle() -> None:
    import psycopg2

    with running_server() as server:
        assert server.port is not None and server.root_dir is not None
        port, root = server.port, server.root_dir
        assert server.url == f"postgresql://postgres@127.0.0.1:{port}/anitrack"
        assert root.parent in (Path("/dev/shm"), Path("/tmp"), Path(tempfile.gettempdir()))
        if os.geteuid() == 0:  # PostgreSQL refuses root: it runs as 'postgres'
            assert server.data_dir.stat().st_uid == postgres.pwd.getpwnam("postgres").pw_uid

        started = time.monotonic()
        first = server.create_database("first_db")
        second = server.create_database("second_db")
        assert (time.monotonic() - started) / 2 < 5.0  # 0.03 s (RAM disk) to 0.3 s (disk)
        assert first.endswith(f":{port}/first_db") and second.endswith(f":{port}/second_db")

        for url in (server.url, first, second):
            assert _query(url, "select 1") == 1
            version = str(_query(url, "show server_version"))
            assert version[:2].isdigit()
            assert server.bin_dir is not None
            if server.bin_dir.parent.parent == postgres.DEBIAN_PG_ROOT:
                assert version.split(".")[0] == server.bin_dir.parent.name  # 15 on Debian 12
        assert _query(first, "show lc_ctype") in ("C.UTF-8", "C")
        assert _query(first, "show server_encoding") == "UTF8"

        server.drop_database("first_db")
        with pytest.raises(psycopg2.OperationalError, match="first_db"):
            psycopg2.connect(first)
        assert _query(second, "select 1") == 1
        names = server.psql("select datname from pg_database order by 1").split()
        assert "second_db" in names and "first_db" not in names
        server.drop_database("first_db")  # dropping a missing database is no error
    assert not port_open("127.0.0.1", port)
    assert not root.exists()


@pytest.mark.postgres
def test_drop_closes_open_connections(server: PostgresServer) -> None:
    import psycopg2

    connection = psycopg2.connect(server.create_database("busy_db"))
    try:
        server.drop_database("busy_db")
    finally:
        connection.close()
    assert "busy_db" not in server.psql("select datname from pg_database").split()


@pytest.mark.postgres
def test_create_database_from_a_template(server: PostgresServer) -> None:
    import psycopg2

    connection = psycopg2.connect(server.create_database("template_db"))
    with connection, connection.cursor() as cursor:
        cursor.execute("create table project (name text primary key)")
        cursor.execute("insert into project values ('anitrack')")
    connection.close()  # a template must have no open connections while copied
    clone = server.create_database("clone_db", template="template_db")
    assert _query(clone, "select name from project") == "anitrack"


@pytest.mark.postgres
def test_base_dir_holds_the_server_and_is_kept() -> None:
    base = Path(tempfile.mkdtemp(prefix="anitrack-base-", dir="/tmp"))
    try:
        base.chmod(0o755)  # searchable by 'postgres' when we are root
        with running_server(base_dir=base) as server:
            assert server.root_dir is not None and server.root_dir.parent == base.resolve()
            assert _query(server.url, "select 1") == 1
        assert base.is_dir() and list(base.iterdir()) == []
    finally:
        base.rmdir()


@pytest.mark.postgres
@pytest.mark.skipif(os.geteuid() != 0, reason="only root hands the server to user 'postgres'")
def test_root_needs_a_base_dir_the_postgres_user_can_reach() -> None:
    _require_binaries()
    hidden = Path(tempfile.mkdtemp(prefix="anitrack-hidden-", dir="/tmp"))  # mode 0700, root's
    try:
        with pytest.raises(ServerError, match="must be searchable by that user"):
            PostgresServer(base_dir=hidden).start()
        assert list(hidden.iterdir()) == []
    finally:
        hidden.rmdir()


@pytest.mark.postgres
def test_too_long_a_socket_path_is_refused_early() -> None:
    _require_binaries()
    deep = Path(tempfile.mkdtemp(prefix="anitrack-deep-", dir="/tmp"))
    base = deep / ("d" * 90)
    base.mkdir()
    try:
        with pytest.raises(ServerError, match="would pass 107 bytes; use a shorter base_dir"):
            PostgresServer(base_dir=base).start()
        assert list(base.iterdir()) == []
    finally:
        base.rmdir()
        deep.rmdir()


@pytest.mark.postgres
def test_watchdog_stops_the_server_when_the_test_process_is_killed() -> None:
    _require_binaries()
    script = (
        "import os, signal\n"
        "from tests.servers.postgres import PostgresServer\n"
        "server = PostgresServer().start()\n"
        "print(server.port, server.root_dir, flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == -9, result.stderr
    port_text, root_text = result.stdout.split()
    deadline = time.monotonic() + 30
    while (port_open("127.0.0.1", int(port_text)) or Path(root_text).exists()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not port_open("127.0.0.1", int(port_text))
    assert not Path(root_text).exists()


def test_bin_override_without_binaries_is_unavailable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv(PG_BIN_ENV, str(empty))
    with pytest.raises(ServerUnavailable) as raised:
        find_postgres_bin()
    message = str(raised.value)
    assert f"{PG_BIN_ENV}={empty}" in message
    assert "initdb, pg_ctl, postgres, psql" in message
    assert "install Debian package 'postgresql'" in message

    base = tmp_path / "base"
    base.mkdir()
    with pytest.raises(ServerUnavailable):
        PostgresServer(base_dir=base).start()
    assert list(base.iterdir()) == []  # nothing made before the check


def test_no_binaries_anywhere_is_unavailable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(PG_BIN_ENV, raising=False)
    monkeypatch.setattr(postgres, "DEBIAN_PG_ROOT", tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path))
    (tmp_path / "15" / "bin").mkdir(parents=True)
    (tmp_path / "15" / "bin" / "psql").touch(mode=0o755)  # client only
    with pytest.raises(ServerUnavailable) as raised:
        find_postgres_bin()
    message = str(raised.value)
    assert message.startswith(f"PostgreSQL server binaries not found (looked in {tmp_path}/*/bin")
    assert "lacks initdb, pg_ctl, postgres" in message
    assert "install Debian package 'postgresql'" in message


def test_highest_complete_version_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PG_BIN_ENV, raising=False)
    monkeypatch.setattr(postgres, "DEBIAN_PG_ROOT", tmp_path)
    for version, names in (("9.6", ["initdb", "pg_ctl", "postgres", "psql"]),
                           ("13", ["initdb", "pg_ctl", "postgres", "psql"]),
                           ("16", ["psql"])):
        (tmp_path / version / "bin").mkdir(parents=True)
        for name in names:
            (tmp_path / version / "bin" / name).touch(mode=0o755)
    assert find_postgres_bin() == tmp_path / "13" / "bin"


def test_names_are_checked_before_anything_runs() -> None:
    server = PostgresServer()
    with pytest.raises(ValueError, match="must match"):
        server.create_database('x"; drop database postgres; --')
    with pytest.raises(ValueError, match="must match"):
        server.drop_database("bad name")
    with pytest.raises(RuntimeError, match="not running"):
        server.create_database("fine_name")
    with pytest.raises(ValueError):
        PostgresServer(database="1st")


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, False), ("", False), ("false", False), ("0", False), ("true", True), ("1", True)],
)
def test_in_ci(value: str | None, expected: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if value is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", value)
    assert in_ci() is expected
