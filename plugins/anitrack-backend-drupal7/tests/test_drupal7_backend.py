"""The Drupal7 backend: URL building, a fake release history, then the upstream recordings.

What both cores share (names, errors) is tested with the base, in tests/test_release_history.py.
"""

import pytest

import anitrack_backend_drupal7
from anitrack_backend_drupal7 import Drupal7Backend
from anitrack_core.check.spec import ProjectSpec

HISTORY = """<?xml version="1.0" encoding="utf-8"?>
<project xmlns:dc="http://purl.org/dc/elements/1.1/"><title>Pathauto</title><api_version>7.x</api_version>
<releases>
 <release><name>pathauto 7.x-1.3</name><version>7.x-1.3</version></release>
 <release><name>pathauto 7.x-1.0-rc1</name><version>7.x-1.0-rc1</version></release>
 <release><name>pathauto 7.x-1.x-dev</name><version>7.x-1.x-dev</version></release>
 <release><name>pathauto 6.x-2.1</name><version>6.x-2.1</version></release>
</releases></project>"""


def test_registers(register_plugin, anitrack_plugins):
    assert register_plugin(anitrack_backend_drupal7, "drupal7").status == "loaded"
    backend = anitrack_plugins.backends.get("drupal7")
    assert backend.name == "Drupal7" and backend.more_info and "Drupal7:" in backend.more_info
    assert backend.default_regex is None and backend.required_version_url is False


@pytest.mark.parametrize(("name", "url"), [
    ("DRUPAL7:wysiwyg", "https://updates.drupal.org/release-history/wysiwyg/7.x"),
    ("admin_menu", "https://updates.drupal.org/release-history/admin_menu/7.x"),
    ("drupal6:views", "https://updates.drupal.org/release-history/drupal6:views/7.x"),
])
def test_history_url(name, url):
    assert Drupal7Backend.history_url(name) == url


def test_versions_of_one_core(fake_upstream, monkeypatch, check_http):
    monkeypatch.setattr(Drupal7Backend, "updates", fake_upstream.base)
    fake_upstream.route("/release-history/pathauto/7.x", HISTORY)
    spec = ProjectSpec(id=None, name="pathauto", homepage="https://www.drupal.org/project/pathauto", backend="Drupal7")
    assert Drupal7Backend().get_versions(spec, check_http) == ["1.3", "1.0-rc1", "1.x-dev"]
    assert "If-Modified-Since" in fake_upstream.requests[0].headers


# ---- the upstream recordings (read in place from ../shared/upstream-recordings, never copied here) ----

@pytest.mark.parametrize("case_id", ["drupal7--get-versions--wysiwyg", "drupal7--get-versions--admin-menu"])
def test_recording(case_id, recorded_case):
    recorded_case(case_id, Drupal7Backend())
