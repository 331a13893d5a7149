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
``anitrack_env``
    the ``ANITRACK_*`` environment of an isolated instance (data dir, database),
    applied to ``os.environ`` for the test; ``run_anitrack(*argv)`` runs the CLI
    in-process with it and returns ``(exit_code, stdout, stderr)``.

A server that is absent skips the tests needing it, with the reason, except
under CI (``CI`` set), where it fails them: CI must never pass by skipping.
"""

from __future__ import annotations

import io
import os
import uuid
from collections.abc import Callable, Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest


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
