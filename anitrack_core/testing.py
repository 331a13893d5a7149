"""Pytest fixtures for anitrack and for authors of anitrack plugins.

Installed as a pytest plugin (entry point ``pytest11``), so a plugin's test
suite gets these fixtures with nothing to import:

``anitrack_plugins``
    a fresh plugin manager with the built-in plugins only (no entry points).
``register_plugin``
    ``register_plugin(module_or_object, name=None)`` registers a plugin into
    ``anitrack_plugins`` exactly as the loader does and returns its
    :class:`~anitrack_core.plugins.PluginInfo` (``status`` is ``"broken"`` and
    ``error`` says why when it fails); it is unregistered after the test.
``anitrack_database_url`` / ``anitrack_db``
    a new, empty database with the current schema: SQLite in the test's
    temporary directory, or, when ``ANITRACK_TEST_DB=postgres``, a database on
    a PostgreSQL server the session starts from the Debian ``postgresql``
    binaries.
``fake_upstream``
    a :class:`~anitrack_core.testing_upstream.FakeUpstream` on a free loopback
    port: ``fake_upstream.route("/releases/", "<html>...")``, then
    ``fake_upstream.url("/releases/")``; ``fake_upstream.requests`` records every
    request with its headers.  Checks may reach it because the environment of
    ``anitrack_env`` sets ``ANITRACK_ALLOW_PRIVATE_UPSTREAMS=1``.
``anitrack_http`` / ``check_http``
    an ``HttpClient`` (user agent ``anitrack-tests``, private addresses such as
    ``fake_upstream`` allowed, 5 s deadline), closed after the test, and its
    ``for_check()``, the per-check client a backend's ``get_versions`` takes;
    use ``anitrack_http.for_check(validators=...)`` for conditional requests.
``replay_http``
    ``replay_http(cassette)`` returns a
    :class:`~anitrack_core.testing_replay.ReplayClient`: an ``HttpClient``
    whose every request is answered from a recorded vcrpy cassette (a path, or
    the name of a file in ``cassettes/`` of the shared upstream recordings,
    located by ``ANITRACK_RECORDINGS`` or ``shared/upstream-recordings`` beside
    the checkout).  Pass ``client.for_check()`` to a backend; afterwards
    ``client.requests`` lists what was asked and ``client.misses`` what the
    cassette had no answer for (those failed like a refused connection).  A
    missing cassette skips the test (fails it under CI).
``recorded_case``
    ``recorded_case(case_id, backend=None)`` runs
    :func:`~anitrack_core.testing_replay.run_recorded_case`: checks the project
    of that case of the shared recordings' ``manifest.json`` with *backend* (or
    the backend the case names, from ``anitrack_plugins``: register your plugin
    first) against the case's cassette, asserts what the case expects and
    returns the :class:`~anitrack_core.testing_replay.RecordedRun`.
``anitrack_rabbitmq`` / ``anitrack_redis``
    a throwaway RabbitMQ node / Redis server on free loopback ports, started
    once per session from the Debian ``rabbitmq-server`` / ``redis-server``
    packages (:class:`~anitrack_core.testing_servers.RabbitMQServer`,
    :class:`~anitrack_core.testing_servers.RedisServer`): ``.url`` is the
    broker URL for kombu; ``.halt()`` and ``.restart()`` stage an outage.
``anitrack_env``
    the ``ANITRACK_*`` environment of an isolated instance (data dir, database),
    applied to ``os.environ`` for the test; ``run_anitrack(*argv)`` runs the CLI
    in-process with it and returns ``(exit_code, stdout, stderr)``.

``live_wsgi_server(app)``
    a context manager serving a WSGI app with waitress on a free loopback port;
    yields its base URL (tests drive the real server over HTTP).

A server that is absent skips the tests needing it, with the reason, except
under CI (``CI`` set), where it fails them: CI must never pass by skipping.

``pytest --store-only`` runs only the tests that use a database (those that
ask, directly or through other fixtures, for ``anitrack_database_url``): the
run on a second database engine repeats only what that engine changes.
"""

from __future__ import annotations

import io
import os
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--store-only", action="store_true",
                     help="run only the tests that use a database (anitrack_database_url)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.getoption("--store-only"):
        return
    kept, dropped = [], []
    for item in items:
        (kept if "anitrack_database_url" in getattr(item, "fixturenames", ()) else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


@contextmanager
def live_wsgi_server(app: Any, threads: int = 4, port: int = 0) -> Iterator[str]:
    """Serve the WSGI *app* with waitress on loopback in a thread; yields the base URL.

    :param port: the port to listen on; 0 (the default) takes a free one.
    """
    import threading

    import waitress.server

    server = waitress.server.create_server(app, host="127.0.0.1", port=port, threads=threads)

    def run() -> None:
        try:
            server.run()
        except OSError:  # the sockets are closed under the loop when the server stops
            pass

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.effective_port}"
    finally:
        server.close()
        thread.join(timeout=5)


def skip_or_fail(reason: str) -> None:
    """Skip the test for *reason*, or fail it when running under CI."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI must not skip)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture
def anitrack_plugins() -> Any:
    from anitrack_core.plugins import load_plugins

    return load_plugins(autoload=False)


@pytest.fixture
def register_plugin(anitrack_plugins: Any) -> Iterator[Callable[..., Any]]:
    added: list[str] = []

    def register(plugin: object, name: str | None = None) -> Any:
        name = name or getattr(plugin, "__name__", None) or f"test-plugin-{len(added)}"
        added.append(name)
        return anitrack_plugins.register(plugin, name, distribution="(test)")

    yield register
    for name in added:
        anitrack_plugins.unregister(name)


@pytest.fixture
def fake_upstream() -> Iterator[Any]:
    from anitrack_core.testing_upstream import FakeUpstream

    upstream = FakeUpstream().start()
    try:
        yield upstream
    finally:
        upstream.stop()


@pytest.fixture
def anitrack_http() -> Iterator[Any]:
    from anitrack_core.check.http import FetchPolicy, HttpClient

    client = HttpClient(FetchPolicy(user_agent="anitrack-tests", allow_private=True, deadline=5))
    try:
        yield client
    finally:
        client.close()


@pytest.fixture
def check_http(anitrack_http: Any) -> Any:
    return anitrack_http.for_check()


@pytest.fixture
def replay_http() -> Iterator[Callable[..., Any]]:
    from anitrack_core.testing_replay import ReplayClient, find_cassette, recordings_dir

    clients: list[Any] = []

    def make(cassette: str | os.PathLike[str], policy: Any = None) -> Any:
        path = find_cassette(cassette)
        if path is None:
            where = recordings_dir()
            skip_or_fail(f"cassette {cassette} not found (recordings: {where or 'absent'}; "
                         "set ANITRACK_RECORDINGS to the upstream-recordings directory)")
        client = ReplayClient(path, policy)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


@pytest.fixture
def recorded_case(anitrack_plugins: Any) -> Callable[..., Any]:
    from anitrack_core.testing_replay import run_recorded_case

    def run(case_id: str, backend: Any = None) -> Any:
        return run_recorded_case(case_id, backend, plugins=anitrack_plugins)

    return run


@pytest.fixture(scope="session")
def _anitrack_postgres_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from anitrack_core.testing_servers import PostgresServer, ServerUnavailable

    try:
        server = PostgresServer().__enter__()
    except ServerUnavailable as exc:
        yield exc
        return
    try:
        yield server
    finally:
        server.__exit__(None, None, None)


def _session_server(kind: str) -> Iterator[Any]:
    from anitrack_core import testing_servers

    try:
        server = getattr(testing_servers, kind)().start()
    except testing_servers.ServerUnavailable as exc:
        yield exc
        return
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def _anitrack_rabbitmq_server() -> Iterator[Any]:
    yield from _session_server("RabbitMQServer")


@pytest.fixture(scope="session")
def _anitrack_redis_server() -> Iterator[Any]:
    yield from _session_server("RedisServer")


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
def anitrack_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    kind = os.environ.get("ANITRACK_TEST_DB", "sqlite").lower()
    if kind == "sqlite":
        yield f"sqlite:///{tmp_path / 'anitrack-test.db'}"
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


@pytest.fixture
def anitrack_db(anitrack_database_url: str) -> Iterator[Any]:
    from anitrack_core.db.database import open_database
    from anitrack_core.db.migrate import upgrade

    db = open_database(anitrack_database_url)
    upgrade(db)
    db.connect(reuse_if_open=True)
    try:
        yield db
    finally:
        if not db.is_closed():
            db.close()
        db.close_all()


@pytest.fixture
def anitrack_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, anitrack_database_url: str) -> dict[str, str]:
    for key in [k for k in os.environ if k.startswith("ANITRACK_") and k != "ANITRACK_PG_BIN"]:
        monkeypatch.delenv(key)
    env = {
        "ANITRACK_DATA_DIR": str(tmp_path / "data"),
        "ANITRACK_DATABASE_URL": anitrack_database_url,
        "ANITRACK_ALLOW_PRIVATE_UPSTREAMS": "1",
    }
    (tmp_path / "data").mkdir(exist_ok=True)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return env


@pytest.fixture
def run_anitrack(anitrack_env: dict[str, str]) -> Callable[..., tuple[int, str, str]]:
    from anitrack_core.cli import main

    def run(*argv: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = main(list(argv))
            except SystemExit as exc:  # argparse usage errors and --help
                code = exc.code if isinstance(exc.code, int) else 1
        return code, out.getvalue(), err.getvalue()

    return run
