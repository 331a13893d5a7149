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
    temporary directory.  To run your tests on another database engine,
    override ``anitrack_database_url`` in your conftest.py with a fixture that
    yields the URL of an empty database (anitrack's own test suite does so for
    PostgreSQL).
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
``anitrack_env``
    the ``ANITRACK_*`` environment of an isolated instance (data dir, database),
    applied to ``os.environ`` for the test; ``run_anitrack(*argv)`` runs the CLI
    in-process with it and returns ``(exit_code, stdout, stderr)``.

A fixture that needs what is not installed (a cassette, for example) skips
the test with the reason, except under CI (``CI`` set), where it fails it: CI
must never pass by skipping (:func:`skip_or_fail`).
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest


def in_ci() -> bool:
    """Tell whether we run in CI: environment variable ``CI`` set to anything but 0/false/no."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def skip_or_fail(reason: str) -> None:
    """Skip the test for *reason*, or fail it when running under CI."""
    if in_ci():
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


@pytest.fixture
def anitrack_database_url(tmp_path: Path) -> str:
    """The URL of a new, empty SQLite database in the test's temporary directory."""
    return f"sqlite:///{tmp_path / 'anitrack-test.db'}"


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
