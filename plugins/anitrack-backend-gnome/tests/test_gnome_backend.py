"""The GNOME backend: URL building, a fake download site, then the upstream recordings."""

import json

import pytest

import anitrack_backend_gnome
from anitrack_backend_gnome import GnomeBackend
from anitrack_core.check.http import NotModified
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError, RateLimitError
from anitrack_core.testing_upstream import Answer

INDEX = json.dumps([4, {"gnome-maps": {"3.38.0": {"tar.xz": "3.38/gnome-maps-3.38.0.tar.xz"}}},
                    {"gnome-maps": ["3.36.1", "3.38.0", "40.beta"]}, ["LATEST-IS-40.beta"]])
LISTING = '<a href="../">../</a><a href="3.36/">3.36/</a><a href="3.38/">3.38/</a><a href="cache.json">cache.json</a>'


@pytest.fixture
def site(fake_upstream, monkeypatch):
    monkeypatch.setattr(GnomeBackend, "site", fake_upstream.base)
    return fake_upstream


def versions(anitrack_http, name="gnome-maps"):
    spec = ProjectSpec(id=None, name=name, homepage="https://wiki.gnome.org/Apps/Maps", backend="GNOME")
    return GnomeBackend().get_versions(spec, anitrack_http.for_check())


def test_registers(register_plugin, anitrack_plugins):
    assert register_plugin(anitrack_backend_gnome, "gnome").status == "loaded"
    backend = anitrack_plugins.backends.get("gnome")
    assert backend.name == "GNOME" and backend.shared_rate_limit is True and backend.default_regex is None


def test_module_url():
    assert GnomeBackend.module_url("evolution-caldav") == "https://download.gnome.org/sources/evolution-caldav/"
    with pytest.raises(BackendError, match="incorrectly set up"):
        GnomeBackend.module_url("a/b")


def test_index(site, anitrack_http):
    site.route("/sources/gnome-maps/cache.json", Answer(200, INDEX, {"Content-Type": "application/octet-stream"}))
    assert versions(anitrack_http) == ["3.36.1", "3.38.0", "40.beta"]
    assert [r.path for r in site.requests] == ["/sources/gnome-maps/cache.json"]
    assert "If-Modified-Since" in site.requests[0].headers


def test_index_behind_a_mirror_redirect(site, anitrack_http):
    site.route("/sources/gnome-maps/cache.json", Answer(302, "", {"Location": site.url("/mirror/gnome-maps.json")}))
    site.route("/mirror/gnome-maps.json", INDEX)
    assert versions(anitrack_http) == ["3.36.1", "3.38.0", "40.beta"]


@pytest.mark.parametrize("index", [None, "not json", json.dumps([4, {"other": ["1.0"]}]), json.dumps({"a": 1})])
def test_directories_when_the_index_cannot_be_used(site, anitrack_http, index):
    if index is not None:
        site.route("/sources/gnome-maps/cache.json", index)
    site.route("/sources/gnome-maps/", LISTING)
    assert versions(anitrack_http) == ["3.36", "3.38"]


def test_index_not_modified(site, anitrack_http):
    site.route("/sources/gnome-maps/cache.json", Answer(304))
    with pytest.raises(NotModified):
        versions(anitrack_http)
    assert len(site.requests) == 1


def test_index_rate_limited(site, anitrack_http):
    site.route("/sources/gnome-maps/cache.json", Answer(429, "", {"Retry-After": "5"}))
    with pytest.raises(RateLimitError):
        versions(anitrack_http)


def test_empty_directory(site, anitrack_http):
    site.route("/sources/gnome-maps/", '<a href="../">../</a>')
    with pytest.raises(BackendError, match=r'^gnome-maps: no upstream version found\. - .*/gnome-maps/ - href='):
        versions(anitrack_http)


def test_unknown_module(site, anitrack_http):
    expected = '/sources/fake/: server responded with status 404 "Not Found"$'
    with pytest.raises(BackendError, match=expected):
        versions(anitrack_http, name="fake")


# ---- the upstream recordings (read in place from ../shared/upstream-recordings, never copied here) ----

@pytest.mark.parametrize("case_id", [
    "gnome--custom-get-versions--evolution-data-server",
    "gnome--custom-get-versions--fake",
])
def test_recording(case_id, recorded_case):
    recorded_case(case_id, GnomeBackend())
