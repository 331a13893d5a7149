"""The PECL backend on its own: URLs, a fake upstream, and the recorded upstream answers.

What every channel shares (errors, conditional requests) is tested with the
base, in plugins/anitrack-backend-pear/tests/test_channel.py.
"""

import pytest

import anitrack_backend_pecl
from anitrack_backend_pecl import PeclBackend
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.testing_upstream import Answer

RELEASES = """<?xml version="1.0" encoding="UTF-8" ?>
<a xmlns="http://pear.php.net/dtd/rest.allreleases">
 <p>pecl_http</p><c>pecl.php.net</c>
 <r><v>4.2.4</v><s>stable</s></r> <r><v>4.2.3</v><s>stable</s></r>
 <r><v>4.0.0beta1</v><s>beta</s></r>
</a>"""
FEED = """<?xml version="1.0" encoding="iso-8859-1"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">
<channel rdf:about="https://pecl.php.net/"><title>PECL: Latest releases</title></channel>
<item><title>pecl_http 4.2.4</title><link>https://pecl.php.net/package/pecl_http/4.2.4</link></item>
<item><title>APCu 5.1.24</title></item>
<item><title>lonely</title></item>
</rdf:RDF>"""


def project(name="pecl-http", **fields):
    return ProjectSpec(id=None, name=name, homepage="https://pecl.php.net/package/pecl_http", backend="PECL",
                       **fields)


@pytest.fixture
def pecl(fake_upstream, monkeypatch):
    """PECL, asking the fake upstream."""
    monkeypatch.setattr(PeclBackend, "api_base", fake_upstream.base)
    monkeypatch.setattr(PeclBackend, "feed_url", fake_upstream.url("/feed"))
    return PeclBackend()


def test_plugin_and_recorded_case(register_plugin, anitrack_plugins, recorded_case):
    info = register_plugin(anitrack_backend_pecl, "pecl")
    assert info.status == "loaded", info.error
    assert anitrack_plugins.backends.get("pecl").name == "PECL"
    assert anitrack_plugins.ecosystems.for_backend("PECL") is None
    recorded_case("pecl--get-versions--inotify")


@pytest.mark.parametrize("name, key", [("te-st", "te_st"), ("pecl-http", "pecl_http"), ("pecl_http", "pecl_http"),
                                       ("APCu", "apcu")])
def test_release_list_url(name, key):
    url = PeclBackend().upstream_url(project(name, version_url="x"))
    assert url == f"https://pecl.php.net/rest/r/{key}/allreleases.xml"


def test_release_list(fake_upstream, pecl, check_http):
    fake_upstream.route("/rest/r/pecl_http/allreleases.xml", RELEASES)
    assert pecl.get_versions(project(), check_http) == ["4.2.4", "4.2.3", "4.0.0beta1"]


def test_latest_releases(fake_upstream, pecl, check_http):
    fake_upstream.route("/feed", Answer(200, FEED.encode("latin-1"), {"Content-Type": "text/xml"}))
    found = [(e.name, e.version, e.homepage) for e in pecl.recent_releases(check_http)]
    assert found == [("pecl_http", "4.2.4", "https://pecl.php.net/package/pecl_http"),
                     ("pecl-http", "4.2.4", "https://pecl.php.net/package/pecl_http"),
                     ("APCu", "5.1.24", "https://pecl.php.net/package/APCu")]
