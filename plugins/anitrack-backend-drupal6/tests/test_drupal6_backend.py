"""The Drupal6 backend: URL building, a fake release history, then the upstream recordings.

What both cores share (names, errors) is tested with the base, in plugins/anitrack-backend-drupal7/tests/test_release_history.py.
"""

import pytest

import anitrack_backend_drupal6
from anitrack_backend_drupal6 import Drupal6Backend
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError

# the 7.x releases are not Drupal 6 releases
HISTORY = """<?xml version="1.0" encoding="utf-8"?>
<project><title>Wysiwyg</title><releases>
 <release><version>7.x-2.4</version></release>
 <release><version>6.x-2.4</version></release><release><version>6.x-2.0-alpha1</version></release>
 <release><version>6.x-2.x-dev</version></release>
</releases></project>"""


def drupal6_versions(check_http, name="wysiwyg"):
    project = ProjectSpec(id=None, name=name, homepage=f"https://www.drupal.org/project/{name}", backend="Drupal6")
    return Drupal6Backend().get_versions(project, check_http)


def test_plugin_provides_drupal6(register_plugin, anitrack_plugins):
    assert register_plugin(anitrack_backend_drupal6, "drupal6").status == "loaded"
    found = anitrack_plugins.backends.get("DRUPAL6")
    assert found.name == "Drupal6" and "Drupal6:" in found.more_info
    assert found.default_regex is None and found.required_version_url is False


@pytest.mark.parametrize(("name", "url"), [
    ("drupal6:test", "https://updates.drupal.org/release-history/test/6.x"),
    ("te-st", "https://updates.drupal.org/release-history/te_st/6.x"),
    ("Drupal6: te-st ", "https://updates.drupal.org/release-history/te_st/6.x"),
    ("pathauto", "https://updates.drupal.org/release-history/pathauto/6.x"),
])
def test_history_url(name, url):
    assert Drupal6Backend.history_url(name) == url


def test_only_this_core(fake_upstream, monkeypatch, check_http):
    monkeypatch.setattr(Drupal6Backend, "updates", fake_upstream.base)
    fake_upstream.route("/release-history/wysiwyg/6.x", HISTORY)
    assert drupal6_versions(check_http) == ["2.4", "2.0-alpha1", "2.x-dev"]
    fake_upstream.route("/release-history/views/6.x", HISTORY.replace("6.x-", "5.x-"))
    with pytest.raises(BackendError, match=r"^views: no upstream version found\. - .*/6\.x - <version>6"):
        drupal6_versions(check_http, "views")


@pytest.mark.parametrize("case_id", ["drupal6--get-versions--wysiwyg", "drupal6--get-versions--admin-menu"])
def test_recording(case_id, recorded_case):
    recorded_case(case_id, Drupal6Backend())
