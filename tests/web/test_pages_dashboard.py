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


def test_the_runs_say_how_each_pass_ended(api, clients):
    with api.runtime.db.connection_context():
        start = datetime(2026, 11, 2, 12, 0)
        Run.create(created_on=start, total_count=5, success_count=5)
        Run.create(created_on=start + timedelta(hours=1), total_count=2, success_count=2, state="failed",
                   cause="could not save the checks of 3 project(s): the disk is full")
        Run.create(created_on=start + timedelta(hours=2), started_on=start + timedelta(hours=2), total_count=1,
                   success_count=1, state="started", owner="elsewhere.example:1",
                   updated_on=start + timedelta(hours=2))
    text = text_of(get(clients["admin"], api, "/dashboard/").text)
    assert "2026-11-02 12:00 UTC 5 5 0 0 finished" in text
    assert "2026-11-02 13:00 UTC 2 2 0 0 failed: could not save the checks of 3 project(s): the disk is full" in text
    assert "2026-11-02 14:00 UTC 1 1 0 0 interrupted: the process running the pass (elsewhere.example:1)" in text, \
        "a pass silent for long is shown interrupted"
    assert "The last pass was interrupted: the process running the pass" in text
    home = text_of(get(clients["admin"], api, "/").text)
    assert "5 in total" in home, "the home page shows the last pass that ended"
