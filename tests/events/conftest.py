"""Events: a runtime with the custom backend, a live HTTP API, and helpers to read the outbox and the wire.

Broker tests use the session's throwaway servers (``anitrack_rabbitmq``,
``anitrack_redis`` from tests/conftest.py).
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from typing import Any

import anitrack_backend_custom
import pytest
import requests

from anitrack_core.db.models import OutboxEvent
from tests.servers.wsgi import live_wsgi_server as live_server

TOKEN_OWNER = "tester@example.org"
#: an upstream page for the custom backend's default regex (project "foo"), then the same with more versions
PAGE_1 = '<a href="foo-1.0.tar.gz">1.0</a> <a href="foo-1.1.tar.gz">1.1</a> <a href="foo-2.0-beta.tar.gz">b</a>'
PAGE_2 = PAGE_1 + ' <a href="foo-2.0.tar.gz">2.0</a> <a href="foo-1.2rc1.tar.gz">rc</a>'


@pytest.fixture
def runtime(anitrack_env, monkeypatch):
    from anitrack_core.db.database import open_database
    from anitrack_core.db.migrate import upgrade
    from anitrack_core.runtime import load_runtime

    monkeypatch.setenv("ANITRACK_NO_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setenv("ANITRACK_CHECK_DEADLINE", "5")
    upgrade(open_database(anitrack_env["ANITRACK_DATABASE_URL"]))
    runtime = load_runtime()
    assert runtime.plugins.register(anitrack_backend_custom, "custom").status == "loaded"
    yield runtime
    runtime.db.close_all()




@dataclass
class Api:
    base: str
    session: requests.Session
    runtime: Any
    token: str

    def get(self, path: str, **kwargs: Any) -> requests.Response:
        return self.session.get(self.base + path, timeout=10, **kwargs)

    def post(self, path: str, **kwargs: Any) -> requests.Response:
        return self.session.post(self.base + path, headers={"Authorization": f"Token {self.token}"}, timeout=10,
                                 **kwargs)


@pytest.fixture
def api(runtime):
    from anitrack_core.db import accounts
    from anitrack_web import create_app

    with runtime.db.connection_context():
        user = accounts.add_user(TOKEN_OWNER, "tester")
        token = accounts.add_token(user, "tests")
    session = requests.Session()
    with live_server(create_app(runtime)) as base:
        try:
            yield Api(base, session, runtime, token)
        finally:
            session.close()


def outbox(runtime) -> list[dict[str, Any]]:
    """Every outbox row, in id order, with its body decoded."""
    with runtime.db.connection_context():
        rows = list(OutboxEvent.select().order_by(OutboxEvent.id).dicts())
    for row in rows:
        row["body"] = json.loads(row["body"])
    return rows


def schema_class(topic: str):
    from fedora_messaging.message import get_class

    return get_class("anitya." + topic)


def validated(topic: str, body: dict[str, Any], routing_key: str | None = None):
    """The anitya-schema message of *topic* with *body*, validated (raises ValidationError)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the v1 update and removal classes are deprecated
        message = schema_class(topic)(body=body, topic=routing_key or "org.anitrack." + topic)
    message.validate()
    return message


def create(api, upstream, name="foo", path="/dl/", page=PAGE_1):
    upstream.route(path, page)
    answer = api.post("/api/v2/projects/", json={"name": name, "homepage": f"https://{name}.example/",
                                                 "backend": "custom", "version_url": upstream.url(path)})
    assert answer.status_code == 201, answer.text
    return answer.json()["id"]


def map_to(api, name, distro, package):
    answer = api.post("/api/v2/packages/", json={"distribution": distro, "package_name": package,
                                                 "project_name": name, "project_ecosystem": f"https://{name}.example/"})
    assert answer.status_code == 201, answer.text

