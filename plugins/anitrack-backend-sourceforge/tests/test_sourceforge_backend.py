"""The Sourceforge and Sourceforge (git) backends: URL building, a fake SourceForge, then the recordings."""

import pytest

import anitrack_backend_sourceforge
from anitrack_backend_sourceforge import SourceforgeBackend, SourceforgeGitBackend
from anitrack_core.check.http import FetchPolicy, HttpClient
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError

FEED = """<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel>
<item><title><![CDATA[/FileZilla_Client/3.31.0/FileZilla_3.31.0_src.tar.bz2]]></title></item>
<item><title><![CDATA[/FileZilla_Client/3.31.0/FileZilla_3.31.0_win64-setup.exe]]></title></item>
<item><title><![CDATA[/FileZilla_Client/3.31.0-rc1/FileZilla_3.31.0-rc1_src.tar.bz2]]></title></item>
</channel></rss>"""
TAGS = """<ul class="sidebarmenu"><li>
  <a href="/p/flightgear/flightgear/ci/next/tree/"  >
      <span>next</span>
  </a></li></ul>
<div class="content">
  <a href="/p/flightgear/flightgear/ci/v2.0.0/~/tree/">v2.0.0</a><br>
  <a href="/p/flightgear/flightgear/ci/version/2020.3.9/~/tree/">version/2020.3.9</a><br/>
  <a href="/p/flightgear/flightgear/ci/a%26b/~/tree/">a&amp;b</a>
  <a href="/p/flightgear/flightgear/ci/x/~/tree/"><b>bold</b></a>
  <a href="/p/flightgear/flightgear/ci/y/~/tree/"><b>two</b> <i>children</i></a>
  <a href="/p/flightgear/fgdata/ci/3.0/~/tree/">3.0</a>
  <a href="/p/flightgear/flightgear/ci/empty/~/tree/"></a>
</div>"""


@pytest.fixture
def http():
    client = HttpClient(FetchPolicy(user_agent="test", allow_private=True, deadline=10))
    yield client
    client.close()


@pytest.fixture
def site(fake_upstream, monkeypatch):
    monkeypatch.setattr(SourceforgeBackend, "site", fake_upstream.base)
    monkeypatch.setattr(SourceforgeGitBackend, "site", fake_upstream.base)
    return fake_upstream


def project(backend, name="test", homepage="https://example.org/", **fields):
    return ProjectSpec(id=None, name=name, homepage=homepage, backend=backend, **fields)


def test_registers_both(register_plugin, anitrack_plugins):
    assert register_plugin(anitrack_backend_sourceforge, "sourceforge").status == "loaded"
    assert anitrack_plugins.backends.get("sourceforge").name == "Sourceforge"
    backend = anitrack_plugins.backends.get("SOURCEFORGE (GIT)")
    assert backend.name == "Sourceforge (git)" and backend.default_regex is None and not backend.required_version_url


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


def sf_versions(http, **fields):
    return SourceforgeBackend().get_versions(project("Sourceforge", **fields), http.for_check())


def test_files(site, http):
    site.route("/projects/filezilla/rss?limit=200", FEED)
    assert sf_versions(http, name="filezilla") == ["3.31.0", "3.31.0-rc1"]
    assert "If-Modified-Since" in site.requests[0].headers


def test_no_file(site, http):
    site.route("/projects/filezilla/rss?limit=200", '<rss version="2.0"><channel></channel></rss>')
    with pytest.raises(BackendError, match=r"^filezilla: no upstream version found\. - .*/rss\?limit=200 - "):
        sf_versions(http, name="filezilla")


def test_unknown_project(site, http):
    with pytest.raises(BackendError, match='^nope: Server responded with status "404": "Not Found" - '):
        sf_versions(http, name="nope")


# ---- Sourceforge (git) ----

@pytest.mark.parametrize(("fields", "url"), [
    ({"version_url": "https://sourceforge.net/p/test_name/ref/master/tags"},
     "https://sourceforge.net/p/test_name/ref/master/tags"),
    ({"homepage": "https://sourceforge.net/p/test/ci/master/tree"},
     "https://sourceforge.net/p/test/git/ref/master/tags/"),
    ({"homepage": "https://sourceforge.net/p/flightgear/flightgear/ci/master/tree/"},
     "https://sourceforge.net/p/flightgear/flightgear/ref/master/tags/"),
    ({"homepage": "https://sourceforge.net/p/test"}, "https://sourceforge.net/p/test/git/ref/master/tags/"),
    ({"version_url": "test+name"}, "https://sourceforge.net/p/test+name/git/ref/master/tags/"),
    ({"version_url": "test_version_url"}, "https://sourceforge.net/p/test_version_url/git/ref/master/tags/"),
    ({"version_url": "flightgear/fgdata"}, "https://sourceforge.net/p/flightgear/fgdata/ref/master/tags/"),
    ({"name": "ubuntuzilla"}, "https://sourceforge.net/p/ubuntuzilla/git/ref/master/tags/"),
])
def test_tags_url(fields, url):
    assert SourceforgeGitBackend.tags_url(project("Sourceforge (git)", **fields)) == url


def test_tags_bad_set_up():
    with pytest.raises(BackendError, match="incorrectly set up"):
        SourceforgeGitBackend.tags_url(project("Sourceforge (git)", version_url="a/b/c"))


def git_versions(http, **fields):
    return SourceforgeGitBackend().get_versions(project("Sourceforge (git)", **fields), http.for_check())


def test_tags(site, http):
    site.route("/p/flightgear/flightgear/ref/master/tags/", TAGS)
    found = git_versions(http, version_url="flightgear/flightgear")
    assert found == ["v2.0.0", "version/2020.3.9", "a&b", "bold"]
    assert "If-Modified-Since" in site.requests[0].headers


def test_tags_page_given_verbatim(site, http):
    site.route("/p/flightgear/flightgear/ref/next/tags/", TAGS)
    found = git_versions(http, version_url=site.url("/p/flightgear/flightgear/ref/next/tags/"))
    assert found[:2] == ["v2.0.0", "version/2020.3.9"]


def test_no_tag(site, http):
    site.route("/p/test/git/ref/master/tags/", "<p>No tags</p>")
    with pytest.raises(BackendError, match="^test: no tag found on .*/p/test/git/ref/master/tags/$"):
        git_versions(http)


def test_unknown_repository(site, http):
    with pytest.raises(BackendError, match='^test: Server responded with status "404": "Not Found" - '):
        git_versions(http)


# ---- the upstream recordings (read in place from ../shared/upstream-recordings, never copied here) ----

@pytest.mark.parametrize(("case_id", "backend"), [
    ("sourceforge--get-versions--filezilla", SourceforgeBackend),
    ("sourceforge-git--get-versions--flightgear", SourceforgeGitBackend),
])
def test_recording(case_id, backend, recorded_case):
    recorded_case(case_id, backend())
