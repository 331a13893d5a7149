"""The Drupal6 and Drupal7 backends: URL building, a fake release history, then the upstream recordings."""

import pytest

import anitrack_backend_drupal
from anitrack_backend_drupal import Drupal6Backend, Drupal7Backend, DrupalBackend
from anitrack_core.check.http import FetchPolicy, HttpClient
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError
from anitrack_core.testing_upstream import Answer

HISTORY = """<?xml version="1.0" encoding="utf-8"?>
<project xmlns:dc="http://purl.org/dc/elements/1.1/"><title>Pathauto</title><api_version>7.x</api_version>
<releases>
 <release><name>pathauto 7.x-1.3</name><version>7.x-1.3</version></release>
 <release><name>pathauto 7.x-1.0-rc1</name><version>7.x-1.0-rc1</version></release>
 <release><name>pathauto 7.x-1.x-dev</name><version>7.x-1.x-dev</version></release>
 <release><name>pathauto 6.x-2.1</name><version>6.x-2.1</version></release>
</releases></project>"""
MISSING = """<?xml version="1.0" encoding="utf-8"?>
<error>No release history was found for the requested project (foo).</error>"""


@pytest.fixture
def http():
    client = HttpClient(FetchPolicy(user_agent="test", allow_private=True, deadline=10))
    yield client
    client.close()


@pytest.fixture
def updates(fake_upstream, monkeypatch):
    monkeypatch.setattr(DrupalBackend, "updates", fake_upstream.base)
    return fake_upstream


def versions(http, backend=Drupal7Backend, name="pathauto"):
    spec = ProjectSpec(id=None, name=name, homepage=f"https://www.drupal.org/project/{name}", backend=backend.name)
    return backend().get_versions(spec, http.for_check())


def test_registers_both(register_plugin, anitrack_plugins):
    assert register_plugin(anitrack_backend_drupal, "drupal").status == "loaded"
    for name in ("Drupal6", "Drupal7"):
        backend = anitrack_plugins.backends.get(name.lower())
        assert backend.name == name and backend.more_info and f"{name}:" in backend.more_info
        assert backend.default_regex is None and backend.required_version_url is False


@pytest.mark.parametrize(("backend", "name", "url"), [
    (Drupal6Backend, "drupal6:test", "https://updates.drupal.org/release-history/test/6.x"),
    (Drupal6Backend, "te-st", "https://updates.drupal.org/release-history/te_st/6.x"),
    (Drupal6Backend, "Drupal6: te-st ", "https://updates.drupal.org/release-history/te_st/6.x"),
    (Drupal6Backend, "pathauto", "https://updates.drupal.org/release-history/pathauto/6.x"),
    (Drupal7Backend, "DRUPAL7:wysiwyg", "https://updates.drupal.org/release-history/wysiwyg/7.x"),
    (Drupal7Backend, "admin_menu", "https://updates.drupal.org/release-history/admin_menu/7.x"),
    (Drupal7Backend, "drupal6:views", "https://updates.drupal.org/release-history/drupal6:views/7.x"),
])
def test_history_url(backend, name, url):
    assert backend.history_url(name) == url


@pytest.mark.parametrize("name", ["drupal6:", " ", "a/b"])
def test_bad_name(name):
    with pytest.raises(BackendError, match="incorrectly set up"):
        Drupal6Backend.history_url(name)


def test_versions_of_one_core(updates, http):
    updates.route("/release-history/pathauto/7.x", HISTORY)
    assert versions(http) == ["1.3", "1.0-rc1", "1.x-dev"]
    assert "If-Modified-Since" in updates.requests[0].headers


def test_no_release_for_this_core(updates, http):
    updates.route("/release-history/pathauto/6.x", HISTORY.replace("6.x-2.1", "5.x-2.1"))
    with pytest.raises(BackendError, match=r"^pathauto: no upstream version found\. - .*/6\.x - <version>6"):
        versions(http, Drupal6Backend)


def test_unknown_project(updates, http):
    updates.route("/release-history/foo/7.x", MISSING)
    with pytest.raises(BackendError, match=r"^foo: No release history was found for the requested project \(foo\)\."):
        versions(http, name="foo")


def test_server_error(updates, http):
    updates.route("/release-history/pathauto/7.x", Answer(503, "down"))
    with pytest.raises(BackendError, match='^pathauto: Server responded with status "503"'):
        versions(http)


# ---- the upstream recordings (read in place from ../shared/upstream-recordings, never copied here) ----

@pytest.mark.parametrize(("case_id", "backend"), [
    ("drupal6--get-versions--wysiwyg", Drupal6Backend),
    ("drupal6--get-versions--admin-menu", Drupal6Backend),
    ("drupal7--get-versions--wysiwyg", Drupal7Backend),
    ("drupal7--get-versions--admin-menu", Drupal7Backend),
])
def test_recording(case_id, backend, recorded_case):
    recorded_case(case_id, backend())
