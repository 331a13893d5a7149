"""The administrators' dashboard, over HTTP."""

from datetime import datetime, timedelta

import requests

from anitrack_core.db.models import Project, Run
from anitrack_core.plugins import PluginInfo

from .actions_helpers import get
from .helpers import add_project
from .pages import text_of


def test_the_dashboard_is_for_administrators(api, clients):
    assert get(clients["user"], api, "/dashboard/").status_code == 403
    assert "/login/" in get(requests, api, "/dashboard/").headers["Location"]
    page = get(clients["admin"], api, "/dashboard")
    assert page.status_code == 200
    text = text_of(page.text)
    assert "No check pass has run yet" in text and "Every plugin loaded" in text


def test_runs_backends_events_and_broken_plugins(api, clients):
    ok = add_project(api, name="ok", homepage="https://ok.example/")
    bad = add_project(api, name="bad", homepage="https://bad.example/")
    add_project(api, name="pypi-one", homepage="https://pypi.org/project/one", backend="PyPI")
    with api.runtime.db.connection_context():
        Project.update(check_successful=True).where(Project.id == ok).execute()
        Project.update(check_successful=False).where(Project.id == bad).execute()
        start = datetime(2026, 11, 1, 12, 0)
        for index in range(3):
            Run.create(created_on=start + timedelta(hours=index), total_count=10 + index, success_count=7,
                       error_count=2 + index, ratelimit_count=1)
    api.runtime.plugins.info["broken-one"] = PluginInfo("broken-one", "anitrack-backend-broken", "0.1", "broken",
                                                        "ImportError: no module named nowhere")
    try:
        page = get(clients["admin"], api, "/dashboard/")
    finally:
        del api.runtime.plugins.info["broken-one"]
    assert page.status_code == 200
    assert "<svg" in page.text and page.text.count('class="bar-errors"') == 3
    assert " style=" not in page.text and "<script>" not in page.text
    text = text_of(page.text)
    assert "2026-11-01 14:00 UTC 12 7 4 1" in text, "the table fallback"
    assert "custom 2 1 50.0 %" in text and "PyPI 1 0 0.0 %" in text
    assert "broken-one anitrack-backend-broken 0.1 broken ImportError: no module named nowhere" in text
    assert "Waiting" in text
