"""The Sourceforge (git) backend: URL building, a fake SourceForge, then the recordings."""

import pytest

import anitrack_backend_sourceforge_git
from anitrack_backend_sourceforge_git import SourceforgeGitBackend
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError

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
def site(fake_upstream, monkeypatch):
    monkeypatch.setattr(SourceforgeGitBackend, "site", fake_upstream.base)
    return fake_upstream


def project(backend, name="test", homepage="https://example.org/", **fields):
    return ProjectSpec(id=None, name=name, homepage=homepage, backend=backend, **fields)


def test_registers(register_plugin, anitrack_plugins):
    assert register_plugin(anitrack_backend_sourceforge_git, "sourceforge-git").status == "loaded"
    backend = anitrack_plugins.backends.get("SOURCEFORGE (GIT)")
    assert backend.name == "Sourceforge (git)" and backend.default_regex is None and not backend.required_version_url


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


def git_versions(anitrack_http, **fields):
    return SourceforgeGitBackend().get_versions(project("Sourceforge (git)", **fields), anitrack_http.for_check())


def test_tags(site, anitrack_http):
    site.route("/p/flightgear/flightgear/ref/master/tags/", TAGS)
    found = git_versions(anitrack_http, version_url="flightgear/flightgear")
    assert found == ["v2.0.0", "version/2020.3.9", "a&b", "bold"]
    assert "If-Modified-Since" in site.requests[0].headers


def test_tags_page_given_verbatim(site, anitrack_http):
    site.route("/p/flightgear/flightgear/ref/next/tags/", TAGS)
    found = git_versions(anitrack_http, version_url=site.url("/p/flightgear/flightgear/ref/next/tags/"))
    assert found[:2] == ["v2.0.0", "version/2020.3.9"]


def test_no_tag(site, anitrack_http):
    site.route("/p/test/git/ref/master/tags/", "<p>No tags</p>")
    with pytest.raises(BackendError, match="^test: no tag found on .*/p/test/git/ref/master/tags/$"):
        git_versions(anitrack_http)


def test_unknown_repository(site, anitrack_http):
    with pytest.raises(BackendError, match='/p/test/git/ref/master/tags/: server responded with status 404 "Not Found"$'):
        git_versions(anitrack_http)


# ---- the upstream recordings (read in place from ../shared/upstream-recordings, never copied here) ----

def test_recording(recorded_case):
    recorded_case("sourceforge-git--get-versions--flightgear", SourceforgeGitBackend())
