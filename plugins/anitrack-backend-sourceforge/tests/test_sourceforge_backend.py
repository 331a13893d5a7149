"""The Sourceforge backend: URL building, a fake SourceForge, then the recordings."""

import pytest

import anitrack_backend_sourceforge
from anitrack_backend_sourceforge import SourceforgeBackend
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError

FEED = """<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel>
<item><title><![CDATA[/FileZilla_Client/3.31.0/FileZilla_3.31.0_src.tar.bz2]]></title></item>
<item><title><![CDATA[/FileZilla_Client/3.31.0/FileZilla_3.31.0_win64-setup.exe]]></title></item>
<item><title><![CDATA[/FileZilla_Client/3.31.0-rc1/FileZilla_3.31.0-rc1_src.tar.bz2]]></title></item>
</channel></rss>"""


@pytest.fixture
def site(fake_upstream, monkeypatch):
    monkeypatch.setattr(SourceforgeBackend, "site", fake_upstream.base)
    return fake_upstream


def project(backend, name="test", homepage="https://example.org/", **fields):
    return ProjectSpec(id=None, name=name, homepage=homepage, backend=backend, **fields)


def test_registers(register_plugin, anitrack_plugins):
    assert register_plugin(anitrack_backend_sourceforge, "sourceforge").status == "loaded"
    assert anitrack_plugins.backends.get("sourceforge").name == "Sourceforge"


# ---- Sourceforge (files feed) ----

@pytest.mark.parametrize(("fields", "url"), [
    ({"name": "filezilla"}, "https://sourceforge.net/projects/filezilla/rss?limit=200"),
    ({"name": "FileZilla", "version_url": "filezilla"}, "https://sourceforge.net/projects/filezilla/rss?limit=200"),
    ({"name": "x", "version_url": "https://sourceforge.net/projects/file-folder-ren/"},
     "https://sourceforge.net/projects/file-folder-ren/rss?limit=200"),
    ({"name": "test", "version_url": "test+name"}, "https://sourceforge.net/projects/test+name/rss?limit=200"),
    ({"name": "test+"}, "https://sourceforge.net/projects/test+/rss?limit=200"),
])
def test_feed_url(fields, url):
    assert SourceforgeBackend.feed_url(project("Sourceforge", **fields)) == url


@pytest.mark.parametrize("fields", [{"name": " "}, {"name": "x", "version_url": "a/b"}])
def test_feed_bad_set_up(fields):
    with pytest.raises(BackendError, match="incorrectly set up"):
        SourceforgeBackend.feed_url(project("Sourceforge", **fields))


def sf_versions(anitrack_http, **fields):
    return SourceforgeBackend().get_versions(project("Sourceforge", **fields), anitrack_http.for_check())


def test_files(site, anitrack_http):
    site.route("/projects/filezilla/rss?limit=200", FEED)
    assert sf_versions(anitrack_http, name="filezilla") == ["3.31.0", "3.31.0-rc1"]
    assert "If-Modified-Since" in site.requests[0].headers


def test_no_file(site, anitrack_http):
    site.route("/projects/filezilla/rss?limit=200", '<rss version="2.0"><channel></channel></rss>')
    with pytest.raises(BackendError, match=r"^filezilla: no upstream version found\. - .*/rss\?limit=200 - "):
        sf_versions(anitrack_http, name="filezilla")


def test_unknown_project(site, anitrack_http):
    with pytest.raises(BackendError, match=r'/projects/nope/rss\?limit=200: server responded with status 404 "Not Found"$'):
        sf_versions(anitrack_http, name="nope")


# ---- the upstream recordings (read in place from ../shared/upstream-recordings, never copied here) ----

def test_recording(recorded_case):
    recorded_case("sourceforge--get-versions--filezilla", SourceforgeBackend())
