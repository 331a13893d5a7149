"""A live anitrack server (waitress on a free loopback port) and a client for it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import anitrack_backend_custom
import anitrack_backend_folder
import pytest
import requests

from anitrack_core import hookimpl
from anitrack_core.backend import Backend
from tests.servers.wsgi import live_wsgi_server as live_server

from .actions_helpers import clients  # noqa: F401 (a fixture of the action pages' tests)


class _Backend(Backend):
    def get_versions(self, project, http):
        return []


def _backend(name, **attrs):
    return type(name.replace(" ", ""), (_Backend,), {"name": name, **attrs})


class FakeCatalogue:
    """Backends and ecosystems named like the real catalogue's, without upstream access.

    The real ``custom`` and ``folder`` backends are registered beside them.
    """

    backends = [_backend("PyPI"), _backend("npmjs"), _backend("GitHub")]

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
    for plugin, name in ((FakeCatalogue(), "fake-catalogue"), (anitrack_backend_custom, "custom"),
                         (anitrack_backend_folder, "folder")):
        info = runtime.plugins.register(plugin, name)
        assert info.status == "loaded", info.error
    yield runtime
    runtime.db.close_all()


@pytest.fixture
def live_port():
    """The port the live server listens on: any free one (tests/web/browser needs a fixed one)."""
    return 0


@pytest.fixture
def api(runtime, live_port):
    from anitrack_core.db import accounts, distros
    from anitrack_web import create_app

    with runtime.db.connection_context():
        user = accounts.add_user("tester@example.org", "tester")
        token = accounts.add_token(user, "tests")
        for name in ("Fedora", "Debian"):
            distros.add_distro(name)
    session = requests.Session()
    with live_server(create_app(runtime), port=live_port) as base:
        try:
            yield Api(base, session, runtime, token)
        finally:
            session.close()
