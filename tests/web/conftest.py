"""A live anitrack server (waitress on a free loopback port) and a client for it."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import pytest
import requests
import waitress.server

from anitrack_core import hookimpl
from anitrack_core.backend import Backend


class _Backend(Backend):
    def get_versions(self, project, http):
        return []


def _backend(name, **attrs):
    return type(name.replace(" ", ""), (_Backend,), {"name": name, **attrs})


class FakeCatalogue:
    """Backends and ecosystems like the real catalogue's, without upstream access."""

    backends = [_backend("PyPI"), _backend("npmjs"), _backend("custom", required_version_url=True),
                _backend("GitHub"), _backend("folder", required_version_url=True)]

    @hookimpl
    def anitrack_register_backends(self, registry):
        for backend in self.backends:
            registry.add(backend)

    @hookimpl
    def anitrack_register_ecosystems(self, registry):
        registry.add(type("Pypi", (), {"name": "pypi", "default_backend": "PyPI", "aliases": []}))
        registry.add(type("Npm", (), {"name": "npm", "default_backend": "npmjs", "aliases": []}))


@dataclass
class Api:
    """A requests session bound to the live server."""

    base: str
    session: requests.Session
    runtime: Any
    token: str | None = None

    def url(self, path: str) -> str:
        return self.base + path

    def get(self, path: str, **kwargs: Any) -> requests.Response:
        return self.session.get(self.url(path), timeout=10, **kwargs)

    def post(self, path: str, *, auth: bool = True, **kwargs: Any) -> requests.Response:
        headers = dict(kwargs.pop("headers", {}))
        if auth and self.token:
            headers.setdefault("Authorization", f"Token {self.token}")
        return self.session.post(self.url(path), headers=headers, timeout=10, **kwargs)

    def request(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        return self.session.request(method, self.url(path), timeout=10, **kwargs)


@pytest.fixture
def runtime(anitrack_env, monkeypatch):
    from anitrack_core.db.database import open_database
    from anitrack_core.db.migrate import upgrade
    from anitrack_core.runtime import load_runtime

    monkeypatch.setenv("ANITRACK_NO_PLUGIN_AUTOLOAD", "1")
    upgrade(open_database(anitrack_env["ANITRACK_DATABASE_URL"]))
    runtime = load_runtime()
    info = runtime.plugins.register(FakeCatalogue(), "fake-catalogue")
    assert info.status == "loaded", info.error
    yield runtime
    runtime.db.close_all()


@pytest.fixture
def api(runtime):
    from anitrack_core.db import accounts, distros
    from anitrack_web import create_app

    server = waitress.server.create_server(create_app(runtime), host="127.0.0.1", port=0, threads=4)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    with runtime.db.connection_context():
        user = accounts.add_user("tester@example.org", "tester")
        token = accounts.add_token(user, "tests")
        for name in ("Fedora", "Debian"):
            distros.add_distro(name)
    session = requests.Session()
    try:
        yield Api(f"http://127.0.0.1:{server.effective_port}", session, runtime, token)
    finally:
        session.close()
        server.close()
        thread.join(timeout=5)
