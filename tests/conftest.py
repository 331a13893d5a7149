"""This project's own test fixtures: the servers its tests start (tests/servers), per session.

``anitrack_database_url`` (overriding the SQLite one of ``anitrack_core.testing``)
    with ``ANITRACK_TEST_DB=postgres``, a new database on a PostgreSQL server the
    session starts from the Debian ``postgresql`` binaries
    (:class:`tests.servers.postgres.PostgresServer`); SQLite otherwise.
``anitrack_rabbitmq`` / ``anitrack_redis``
    a throwaway RabbitMQ node / Redis server on free loopback ports, started once
    per session from the Debian ``rabbitmq-server`` / ``redis-server`` packages
    (:class:`tests.servers.brokers.Broker`): ``.url`` is the broker URL for kombu;
    ``.halt()`` and ``.restart()`` stage an outage.

Each xdist worker starts its own servers.  A server that is not installed skips
the tests needing it, except under CI, where it fails them.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from anitrack_core.testing import skip_or_fail
from tests.servers import ServerUnavailable


def _session_server(start: Callable[[], Any]) -> Iterator[Any]:
    """Yield the started server (stopped after the session), or the :exc:`ServerUnavailable` saying why
    it is not installed."""
    try:
        server = start()
    except ServerUnavailable as exc:
        yield exc
        return
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def _anitrack_postgres_server() -> Iterator[Any]:
    from tests.servers.postgres import PostgresServer

    yield from _session_server(lambda: PostgresServer().start())


@pytest.fixture(scope="session")
def _anitrack_rabbitmq_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from tests.servers.brokers import start_rabbitmq

    yield from _session_server(lambda: start_rabbitmq(tmp_path_factory.mktemp("rabbitmq")))


@pytest.fixture(scope="session")
def _anitrack_redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from tests.servers.brokers import start_redis

    yield from _session_server(lambda: start_redis(tmp_path_factory.mktemp("redis")))


def _running(server: Any, what: str) -> Any:
    if isinstance(server, Exception):
        skip_or_fail(f"{what} unavailable: {server}")
    if not server.running:  # a test halted it and failed before restarting it
        server.restart()
    return server


@pytest.fixture
def anitrack_rabbitmq(_anitrack_rabbitmq_server: Any) -> Any:
    return _running(_anitrack_rabbitmq_server, "RabbitMQ")


@pytest.fixture
def anitrack_redis(_anitrack_redis_server: Any) -> Any:
    return _running(_anitrack_redis_server, "Redis")


@pytest.fixture
def anitrack_database_url(anitrack_database_url: str, request: pytest.FixtureRequest) -> Iterator[str]:
    kind = os.environ.get("ANITRACK_TEST_DB", "sqlite").lower()
    if kind == "sqlite":
        yield anitrack_database_url  # the plugin author's fixture: SQLite in the test's temporary directory
        return
    if kind != "postgres":
        pytest.fail(f"ANITRACK_TEST_DB must be 'sqlite' or 'postgres', not {kind!r}", pytrace=False)
    server = request.getfixturevalue("_anitrack_postgres_server")
    if isinstance(server, Exception):
        skip_or_fail(f"PostgreSQL unavailable: {server}")
    name = "t_" + uuid.uuid4().hex[:16]
    url = server.create_database(name)
    try:
        yield url
    finally:
        from anitrack_core.db.models import database_proxy

        if database_proxy.obj is not None:
            database_proxy.obj.close_all()
        server.drop_database(name)
