"""The PEAR backend on its own: URLs, a fake upstream, and the recorded upstream answers."""

from urllib.parse import urlsplit

import pytest

import anitrack_backend_pear
from anitrack_core.check.http import FetchError, FetchPolicy, HttpClient, NotModified, Validators
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError, RateLimitError
from anitrack_core.testing_upstream import Answer

BACKEND = "PEAR"
PATH = "/rest/r/php_uml/allreleases.xml"
RELEASES = """<?xml version="1.0" encoding="UTF-8" ?>
<a xmlns="http://pear.php.net/dtd/rest.allreleases">
 <p>PHP_UML</p>
 <c>pear.php.net</c>
 <r><v>1.6.2</v><s>stable</s></r>
 <r><v>1.6.1</v><s>stable</s></r> <r><v>1.6.0RC1</v><s>beta</s></r>
</a>"""


def spec(name="PHP-UML", **fields):
    fields.setdefault("homepage", "https://pear.php.net/package/PHP_UML")
    return ProjectSpec(id=None, name=name, backend=BACKEND, **fields)


@pytest.fixture
def http():
    client = HttpClient(FetchPolicy(user_agent="test", allow_private=True, deadline=5))
    yield client
    client.close()


def backend_at(fake_upstream):
    backend = anitrack_backend_pear.PearBackend()
    backend.api_base = fake_upstream.base + urlsplit(backend.api_base).path
    if hasattr(backend, "feed_url"):
        backend.feed_url = fake_upstream.url("/feed")
    return backend


def versions(fake_upstream, http, project=None):
    return backend_at(fake_upstream).get_versions(project or spec(), http.for_check())


# ---- the recorded upstream answers (../shared/upstream-recordings, never copied here) ----

@pytest.mark.parametrize("case_id", ["pear--get-versions--php-uml"])
def test_recorded_case(case_id, register_plugin, recorded_case):
    """What ``anitrack check --dry-run`` must print for the case: the backend, then the engine's cleaning."""
    register_plugin(anitrack_backend_pear, "pear")
    recorded_case(case_id)


# ---- registration and URLs ----

def test_registers_backend_without_ecosystem(register_plugin, anitrack_plugins):
    info = register_plugin(anitrack_backend_pear, "pear")
    assert info.status == "loaded", info.error
    assert anitrack_plugins.backends.get("pear").name == "PEAR"
    assert anitrack_plugins.ecosystems.for_backend("PEAR") is None


@pytest.mark.parametrize("name, key", [("te-st", "te_st"), ("PHP-UML", "php_uml"), ("PHP_UML", "php_uml"), ("Auth", "auth")])
def test_url_comes_from_the_name_only(name, key):
    backend = anitrack_backend_pear.PearBackend()
    assert backend.upstream_url(spec(name, version_url="x")) == f"https://pear.php.net/rest/r/{key}/allreleases.xml"


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
    with pytest.raises(BackendError, match=r"^No versions found for php_uml: no such package at http://127\.0\.0\.1:\d+/rest/r/php_uml/allreleases\.xml \(HTTP 404\)$"):
        versions(fake_upstream, http)
    fake_upstream.route(PATH, "<a><p>PHP_UML</p></a>")
    with pytest.raises(BackendError, match=r"^No versions found for php_uml at http://"):
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
<channel rdf:about="https://pear.php.net/"><title>PEAR: Latest releases</title></channel>
<item rdf:about="https://pear.php.net/package/PHP_UML/download/1.6.2/">
 <title>PHP_UML 1.6.2</title><link>https://pear.php.net/package/PHP_UML/download/1.6.2/</link>
</item>
<item><title>Auth 1.7.0</title></item>
<item><title>lonely</title></item>
</rdf:RDF>"""


def test_feed(fake_upstream, http):
    fake_upstream.route("/feed", Answer(200, FEED.encode("latin-1"), {"Content-Type": "text/xml"}))
    entries = backend_at(fake_upstream).recent_releases(http.for_check())
    assert [(e.name, e.version, e.homepage) for e in entries] == [
        ("PHP_UML", "1.6.2", "https://pear.php.net/package/PHP_UML"),
        ("PHP-UML", "1.6.2", "https://pear.php.net/package/PHP_UML"),
        ("Auth", "1.7.0", "https://pear.php.net/package/Auth"),
    ]


def test_feed_errors(fake_upstream, http):
    fake_upstream.route("/feed", "not xml at all")
    with pytest.raises(FetchError, match="not well-formed XML"):
        backend_at(fake_upstream).recent_releases(http.for_check())
