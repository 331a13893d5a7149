"""The Freshmeat backend: URL building, a fake project page, then the upstream recordings."""

import pytest

import anitrack_backend_freshmeat
from anitrack_backend_freshmeat import FreshmeatBackend
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError
from anitrack_core.testing_upstream import Answer

PAGE = """<ul>
<li><a href="/projects/awstats/releases/364561">7.3</a></li>
<li><a href="/projects/awstats/releases/351234">7.0</a></li>
<li><a href="/projects/awstats/tags/perl">perl</a></li>
</ul>"""


@pytest.fixture
def site(fake_upstream, monkeypatch):
    monkeypatch.setattr(FreshmeatBackend, "site", fake_upstream.base)
    return fake_upstream


def versions(anitrack_http, name="awstats"):
    spec = ProjectSpec(id=None, name=name, homepage=f"http://freecode.com/projects/{name}", backend="Freshmeat")
    return FreshmeatBackend().get_versions(spec, anitrack_http.for_check())


def test_registers(register_plugin, anitrack_plugins):
    assert register_plugin(anitrack_backend_freshmeat, "freshmeat").status == "loaded"
    backend = anitrack_plugins.backends.get("freshmeat")
    assert backend.name == "Freshmeat" and backend.default_regex is None and backend.required_version_url is False


def test_project_url():
    assert FreshmeatBackend.project_url("atmail") == "http://freshmeat.net/projects/atmail"
    with pytest.raises(BackendError, match="incorrectly set up"):
        FreshmeatBackend.project_url(" ")


def test_releases(site, anitrack_http):
    site.route("/projects/awstats", PAGE)
    assert versions(anitrack_http) == ["7.3", "7.0"]
    assert "If-Modified-Since" in site.requests[0].headers


def test_follows_the_redirect_to_freecode(site, anitrack_http):
    site.route("/projects/awstats", Answer(302, "", {"Location": site.url("/freecode/projects/awstats")}))
    site.route("/freecode/projects/awstats", PAGE)
    assert versions(anitrack_http) == ["7.3", "7.0"]


def test_version_with_a_space(site, anitrack_http):
    site.route("/projects/awstats", PAGE.replace(">7.0<", ">7.0 beta1<"))
    with pytest.raises(BackendError, match="^awstats: invalid upstream version: >7.0 beta1< - "):
        versions(anitrack_http)


def test_no_release(site, anitrack_http):
    site.route("/projects/awstats", "<html><body>no release yet</body></html>")
    with pytest.raises(BackendError, match=r"^awstats: no upstream version found\. - "):
        versions(anitrack_http)


def test_unknown_project(site, anitrack_http):
    with pytest.raises(BackendError, match='/projects/foo: server responded with status 404 "Not Found"$'):
        versions(anitrack_http, name="foo")


# ---- the upstream recordings (read in place from ../shared/upstream-recordings, never copied here) ----

@pytest.mark.parametrize("case_id", ["freshmeat--get-versions--atmail", "freshmeat--get-versions--foo"])
def test_recording(case_id, recorded_case):
    recorded_case(case_id, FreshmeatBackend())
