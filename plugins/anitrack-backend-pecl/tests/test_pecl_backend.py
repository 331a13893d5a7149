"""The PECL backend on its own: URLs, a fake upstream, and the recorded upstream answers."""

from urllib.parse import urlsplit

import pytest

import anitrack_backend_pecl
from anitrack_core.check.http import FetchError, FetchPolicy, HttpClient, NotModified, Validators
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError, RateLimitError
from anitrack_core.testing_upstream import Answer

BACKEND = "PECL"
PATH = "/rest/r/pecl_http/allreleases.xml"
RELEASES = """<?xml version="1.0" encoding="UTF-8" ?>
<a xmlns="http://pear.php.net/dtd/rest.allreleases">
 <p>pecl_http</p>
 <c>pecl.php.net</c>
 <r><v>1.6.2</v><s>stable</s></r>
 <r><v>1.6.1</v><s>stable</s></r> <r><v>1.6.0RC1</v><s>beta</s></r>
</a>"""


def spec(name="pecl-http", **fields):
    fields.setdefault("homepage", "https://pecl.php.net/package/pecl_http")
    return ProjectSpec(id=None, name=name, backend=BACKEND, **fields)


@pytest.fixture
def http():
    client = HttpClient(FetchPolicy(user_agent="test", allow_private=True, deadline=5))
    yield client
    client.close()


def backend_at(fake_upstream):
    backend = anitrack_backend_pecl.PeclBackend()
    backend.api_base = fake_upstream.base + urlsplit(backend.api_base).path
    if hasattr(backend, "feed_url"):
        backend.feed_url = fake_upstream.url("/feed")
    return backend


def versions(fake_upstream, http, project=None):
    return backend_at(fake_upstream).get_versions(project or spec(), http.for_check())


# ---- the recorded upstream answers (../shared/upstream-recordings, never copied here) ----

@pytest.mark.parametrize("case_id", ["pecl--get-versions--inotify"])
def test_recorded_case(case_id, register_plugin, recorded_case):
    """What ``anitrack check --dry-run`` must print for the case: the backend, then the engine's cleaning."""
    register_plugin(anitrack_backend_pecl, "pecl")
    recorded_case(case_id)


# ---- registration and URLs ----

def test_registers_backend_without_ecosystem(register_plugin, anitrack_plugins):
    info = register_plugin(anitrack_backend_pecl, "pecl")
    assert info.status == "loaded", info.error
    assert anitrack_plugins.backends.get("pecl").name == "PECL"
    assert anitrack_plugins.ecosystems.for_backend("PECL") is None


@pytest.mark.parametrize("name, key", [("te-st", "te_st"), ("pecl-http", "pecl_http"), ("pecl_http", "pecl_http"), ("APCu", "apcu")])
def test_url_comes_from_the_name_only(name, key):
    backend = anitrack_backend_pecl.PeclBackend()
    assert backend.upstream_url(spec(name, version_url="x")) == f"https://pecl.php.net/rest/r/{key}/allreleases.xml"


# ---- the fake upstream ----

def test_versions(fake_upstream, http):
    fake_upstream.route(PATH, Answer(200, RELEASES, {"Content-Type": "text/xml"}))
    assert versions(fake_upstream, http) == ["1.6.2", "1.6.1", "1.6.0RC1"]


def test_request_is_conditional_and_304_means_nothing_new(fake_upstream, http):
    fake_upstream.route(PATH, Answer(304))
    with pytest.raises(NotModified):
        backend_at(fake_upstream).get_versions(spec(), http.for_check(validators=Validators(etag='"e"')))
    assert fake_upstream.requests_to(PATH)[0].headers["If-None-Match"] == '"e"'


def test_not_found_and_empty(fake_upstream, http):
    with pytest.raises(BackendError, match=r"^No versions found for pecl_http: no such package at http://127\.0\.0\.1:\d+/rest/r/pecl_http/allreleases\.xml \(HTTP 404\)$"):
        versions(fake_upstream, http)
    fake_upstream.route(PATH, "<a><p>pecl_http</p></a>")
    with pytest.raises(BackendError, match=r"^No versions found for pecl_http at http://"):
        versions(fake_upstream, http)


def test_server_error_and_rate_limit(fake_upstream, http):
    fake_upstream.route(PATH, Answer(500, ""))
    with pytest.raises(BackendError, match="status 500"):
        versions(fake_upstream, http)
    fake_upstream.route(PATH, Answer(429, ""))
    with pytest.raises(RateLimitError):
        versions(fake_upstream, http)


# ---- the feed ----

FEED = """<?xml version="1.0" encoding="iso-8859-1"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">
<channel rdf:about="https://pecl.php.net/"><title>PECL: Latest releases</title></channel>
<item rdf:about="https://pecl.php.net/package/pecl_http/download/1.6.2/">
 <title>pecl_http 1.6.2</title><link>https://pecl.php.net/package/pecl_http/download/1.6.2/</link>
</item>
<item><title>APCu 5.1.24</title></item>
<item><title>lonely</title></item>
</rdf:RDF>"""


def test_feed(fake_upstream, http):
    fake_upstream.route("/feed", Answer(200, FEED.encode("latin-1"), {"Content-Type": "text/xml"}))
    entries = backend_at(fake_upstream).recent_releases(http.for_check())
    assert [(e.name, e.version, e.homepage) for e in entries] == [
        ("pecl_http", "1.6.2", "https://pecl.php.net/package/pecl_http"),
        ("pecl-http", "1.6.2", "https://pecl.php.net/package/pecl_http"),
        ("APCu", "5.1.24", "https://pecl.php.net/package/APCu"),
    ]


def test_feed_errors(fake_upstream, http):
    fake_upstream.route("/feed", "not xml at all")
    with pytest.raises(FetchError, match="not well-formed XML"):
        backend_at(fake_upstream).recent_releases(http.for_check())
