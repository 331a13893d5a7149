"""The Launchpad backend: URL building, a fake download page, then the upstream recordings."""

import pytest

import anitrack_backend_launchpad
from anitrack_backend_launchpad import LaunchpadBackend
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError

DOWNLOADS = """<a href="https://launchpad.net/terminator/gtk3/2.1.3/+download/terminator-2.1.3.tar.gz">terminator-2.1.3.tar.gz</a>
<a href="https://launchpad.net/terminator/gtk3/2.1.3/+download/terminator-2.1.3.tar.gz.asc">sig</a>
<a href="https://launchpad.net/terminator/gtk3/2.0rc1/+download/terminator-2.0-rc1.tar.gz">terminator-2.0-rc1.tar.gz</a>"""


@pytest.fixture
def site(fake_upstream, monkeypatch):
    monkeypatch.setattr(LaunchpadBackend, "site", fake_upstream.base)
    return fake_upstream


def versions(anitrack_http, name="terminator"):
    spec = ProjectSpec(id=None, name=name, homepage=f"https://launchpad.net/{name}", backend="Launchpad")
    return LaunchpadBackend().get_versions(spec, anitrack_http.for_check())


def test_registers(register_plugin, anitrack_plugins):
    assert register_plugin(anitrack_backend_launchpad, "launchpad").status == "loaded"
    backend = anitrack_plugins.backends.get("launchpad")
    assert backend.name == "Launchpad" and backend.default_regex is None and backend.required_version_url is False


def test_download_url():
    assert LaunchpadBackend.download_url("exaile") == "https://launchpad.net/exaile/+download"
    with pytest.raises(BackendError, match="incorrectly set up"):
        LaunchpadBackend.download_url("a/b")


def test_tarballs(site, anitrack_http):
    site.route("/terminator/+download", DOWNLOADS)
    assert versions(anitrack_http) == ["2.1.3", "2.0-rc1"]
    assert "If-Modified-Since" in site.requests[0].headers


def test_no_tarball(site, anitrack_http):
    site.route("/terminator/+download", "<p>No downloads yet.</p>")
    with pytest.raises(BackendError, match=r"^terminator: no upstream version found\. - .*/terminator/\+download - "):
        versions(anitrack_http)


def test_unknown_project(site, anitrack_http):
    with pytest.raises(BackendError, match=r'/foo/\+download: server responded with status 404 "Not Found"$'):
        versions(anitrack_http, name="foo")


# ---- the upstream recordings (read in place from ../shared/upstream-recordings, never copied here) ----

@pytest.mark.parametrize("case_id", ["launchpad--get-versions--exaile"])
def test_recording(case_id, recorded_case):
    recorded_case(case_id, LaunchpadBackend())
