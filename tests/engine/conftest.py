"""A runtime with the custom and folder backends and a fake upstream on loopback."""

from __future__ import annotations

import pytest

import anitrack_backend_custom
import anitrack_backend_folder


@pytest.fixture
def runtime(anitrack_env, monkeypatch):
    from anitrack_core.db.database import open_database
    from anitrack_core.db.migrate import upgrade
    from anitrack_core.runtime import load_runtime

    monkeypatch.setenv("ANITRACK_NO_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setenv("ANITRACK_CHECK_DEADLINE", "5")
    upgrade(open_database(anitrack_env["ANITRACK_DATABASE_URL"]))
    runtime = load_runtime()
    for module, name in ((anitrack_backend_custom, "custom"), (anitrack_backend_folder, "folder")):
        assert runtime.plugins.register(module, name).status == "loaded"
    runtime.db.connect(reuse_if_open=True)
    yield runtime
    if not runtime.db.is_closed():
        runtime.db.close()
    runtime.db.close_all()


@pytest.fixture
def checker(runtime):
    from anitrack_core.check.runner import Checker

    checker = Checker(runtime)
    yield checker
    checker.http.close()


@pytest.fixture
def add_project(runtime):
    from anitrack_core.db import projects

    def add(**fields):
        fields.setdefault("backend", "custom")
        fields.setdefault("homepage", "https://example.org/" + fields["name"])
        return projects.create_project(runtime.plugins, **fields)

    return add
