"""The SourceHut backend: URL building, a fake git.sr.ht, then the upstream recordings."""

import pytest

import anitrack_backend_sourcehut
from anitrack_backend_sourcehut import SourceHutBackend
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError
from anitrack_core.testing_upstream import Answer

FEED = """<rss version="2.0"><channel><title>~sircmpwn/scdoc refs</title>
<item><title>1.11.2</title><description>scdoc 1.11.2&lt;br /&gt;</description></item>
<item><title>1.11.1</title></item><item><title> </title></item>
<item><title>1.9.0 &amp; more</title></item></channel></rss>"""
EMPTY = """<rss version="2.0"><channel><title>~sircmpwn/hare refs</title></channel></rss>"""


@pytest.fixture
def site(fake_upstream, monkeypatch):
    monkeypatch.setattr(SourceHutBackend, "site", fake_upstream.base)
    return fake_upstream


def project(homepage="https://git.sr.ht/~sircmpwn/scdoc", **fields):
    return ProjectSpec(id=None, name="scdoc", homepage=homepage, backend="SourceHut", **fields)


def versions(anitrack_http, **fields):
    return SourceHutBackend().get_versions(project(**fields), anitrack_http.for_check())


def test_registers(register_plugin, anitrack_plugins):
    assert register_plugin(anitrack_backend_sourcehut, "sourcehut").status == "loaded"
    backend = anitrack_plugins.backends.get("sourcehut")
    assert backend.name == "SourceHut" and backend.default_regex is None and backend.required_version_url is False


@pytest.mark.parametrize(("fields", "url"), [
    ({}, "https://git.sr.ht/~sircmpwn/scdoc/refs/rss.xml"),
    ({"homepage": "https://git.sr.ht/~sircmpwn/builds.sr.ht/"},
     "https://git.sr.ht/~sircmpwn/builds.sr.ht/refs/rss.xml"),
    ({"homepage": "https://example.org", "version_url": "sircmpwn/hare"},
     "https://git.sr.ht/~sircmpwn/hare/refs/rss.xml"),
    ({"homepage": "https://example.org", "version_url": "~sircmpwn/hare/"},
     "https://git.sr.ht/~sircmpwn/hare/refs/rss.xml"),
    ({"version_url": "https://git.sr.ht/~sircmpwn/hare"}, "https://git.sr.ht/~sircmpwn/hare/refs/rss.xml"),
])
def test_feed_url(fields, url):
    assert SourceHutBackend.feed_url(project(**fields)) == url


@pytest.mark.parametrize("fields", [
    {"homepage": "https://example.org/scdoc"}, {"homepage": "https://git.sr.ht/~sircmpwn"},
    {"version_url": "sircmpwn"}, {"version_url": "https://example.org/a/b"}, {"version_url": "a/b/c"},
])
def test_bad_set_up(fields):
    with pytest.raises(BackendError, match="^Project scdoc was incorrectly set up"):
        SourceHutBackend.feed_url(project(**fields))


def test_tags(site, anitrack_http):
    site.route("/~sircmpwn/scdoc/refs/rss.xml", Answer(200, FEED, {"Content-Type": "application/rss+xml"}))
    assert versions(anitrack_http, homepage=site.url("/~sircmpwn/scdoc")) == ["1.11.2", "1.11.1", "1.9.0 & more"]
    assert "If-Modified-Since" in site.requests[0].headers


def test_no_tag(site, anitrack_http):
    site.route("/~sircmpwn/scdoc/refs/rss.xml", EMPTY)
    with pytest.raises(BackendError, match=r"^scdoc: no upstream version found\. '.*/~sircmpwn/scdoc/refs/rss.xml'$"):
        versions(anitrack_http, version_url="sircmpwn/scdoc")


@pytest.mark.parametrize("body", ["<html><p>oops", ""])
def test_not_a_feed(site, anitrack_http, body):
    site.route("/~sircmpwn/scdoc/refs/rss.xml", body)
    with pytest.raises(BackendError, match="is not well-formed XML"):
        versions(anitrack_http, version_url="sircmpwn/scdoc")


def test_entities_are_refused(site, anitrack_http):
    site.route("/~sircmpwn/scdoc/refs/rss.xml", '<!DOCTYPE r [<!ENTITY a "aaaa">]><rss><channel><item>'
                                                "<title>&a;</title></item></channel></rss>")
    with pytest.raises(BackendError, match="declares XML entities"):
        versions(anitrack_http, version_url="sircmpwn/scdoc")


def test_unknown_repository(site, anitrack_http):
    with pytest.raises(BackendError, match='/~sircmpwn/scdoc/refs/rss.xml: server responded with status 404 "Not Found"$'):
        versions(anitrack_http, version_url="sircmpwn/scdoc")


# ---- the upstream recordings (read in place from ../shared/upstream-recordings, never copied here) ----

@pytest.mark.parametrize("case_id", [
    "sourcehut--get-versions-project-homepage-only--builds-sr-ht",
    "sourcehut--get-versions-project-without-any-release--hare",
])
def test_recording(case_id, recorded_case):
    recorded_case(case_id, SourceHutBackend())
