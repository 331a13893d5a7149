"""The PEAR and PECL backends on their own: URLs, a fake upstream, and the recorded upstream answers.

Both channels run the same server, so most tests run once per channel (``channel``).
"""

from dataclasses import dataclass
from urllib.parse import urlsplit

import pytest

import anitrack_backend_pear
from anitrack_core.check.http import FetchError, FetchPolicy, HttpClient, NotModified, Validators
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError, RateLimitError
from anitrack_core.testing_upstream import Answer


@dataclass(frozen=True)
class Channel:
    backend: type
    #: the channel's host
    site: str
    #: a package as the channel spells it, the name a project gives it, and its key in REST URLs
    package: str
    name: str
    key: str
    #: (name, key) pairs for the URL test
    keys: tuple
    #: another package of the feed, and its version
    other: tuple

    @property
    def path(self):
        return f"/rest/r/{self.key}/allreleases.xml"


PEAR = Channel(anitrack_backend_pear.PearBackend, "pear.php.net", "PHP_UML", "PHP-UML", "php_uml",
               (("te-st", "te_st"), ("PHP-UML", "php_uml"), ("PHP_UML", "php_uml"), ("Auth", "auth")),
               ("Auth", "1.7.0"))
PECL = Channel(anitrack_backend_pear.PeclBackend, "pecl.php.net", "pecl_http", "pecl-http", "pecl_http",
               (("te-st", "te_st"), ("pecl-http", "pecl_http"), ("pecl_http", "pecl_http"), ("APCu", "apcu")),
               ("APCu", "5.1.24"))


@pytest.fixture(params=[PEAR, PECL], ids=["PEAR", "PECL"])
def channel(request):
    return request.param


def releases(channel):
    return f"""<?xml version="1.0" encoding="UTF-8" ?>
<a xmlns="http://pear.php.net/dtd/rest.allreleases">
 <p>{channel.package}</p>
 <c>{channel.site}</c>
 <r><v>1.6.2</v><s>stable</s></r>
 <r><v>1.6.1</v><s>stable</s></r> <r><v>1.6.0RC1</v><s>beta</s></r>
</a>"""


def spec(channel, name=None, **fields):
    fields.setdefault("homepage", f"https://{channel.site}/package/{channel.package}")
    return ProjectSpec(id=None, name=name or channel.name, backend=channel.backend.name, **fields)


@pytest.fixture
def http():
    client = HttpClient(FetchPolicy(user_agent="test", allow_private=True, deadline=5))
    yield client
    client.close()


def backend_at(fake_upstream, channel):
    backend = channel.backend()
    backend.api_base = fake_upstream.base + urlsplit(backend.api_base).path
    backend.feed_url = fake_upstream.url("/feed")
    return backend


def versions(fake_upstream, http, channel):
    return backend_at(fake_upstream, channel).get_versions(spec(channel), http.for_check())


# ---- the recorded upstream answers (../shared/upstream-recordings, never copied here) ----

@pytest.mark.parametrize("case_id", ["pear--get-versions--php-uml", "pecl--get-versions--inotify"])
def test_recorded_case(case_id, register_plugin, recorded_case):
    """What ``anitrack check --dry-run`` must print for the case: the backend, then the engine's cleaning."""
    register_plugin(anitrack_backend_pear, "pear")
    recorded_case(case_id)


# ---- registration and URLs ----

@pytest.mark.parametrize("key, name", [("pear", "PEAR"), ("pecl", "PECL")])
def test_registers_both_backends_without_ecosystem(key, name, register_plugin, anitrack_plugins):
    info = register_plugin(anitrack_backend_pear, "pear")
    assert info.status == "loaded", info.error
    assert anitrack_plugins.backends.get(key).name == name
    assert anitrack_plugins.ecosystems.for_backend(name) is None


def test_url_comes_from_the_name_only(channel):
    backend = channel.backend()
    for name, key in channel.keys:
        assert backend.upstream_url(spec(channel, name, version_url="x")) == \
            f"https://{channel.site}/rest/r/{key}/allreleases.xml"


# ---- the fake upstream ----

def test_versions(fake_upstream, http, channel):
    fake_upstream.route(channel.path, Answer(200, releases(channel), {"Content-Type": "text/xml"}))
    assert versions(fake_upstream, http, channel) == ["1.6.2", "1.6.1", "1.6.0RC1"]


def test_request_is_conditional_and_304_means_nothing_new(fake_upstream, http, channel):
    fake_upstream.route(channel.path, Answer(304))
    with pytest.raises(NotModified):
        backend_at(fake_upstream, channel).get_versions(spec(channel), http.for_check(validators=Validators(etag='"e"')))
    assert fake_upstream.requests_to(channel.path)[0].headers["If-None-Match"] == '"e"'


def test_not_found_and_empty(fake_upstream, http, channel):
    key = channel.key
    with pytest.raises(BackendError, match=rf"^No versions found for {key}: no such package at "
                                           rf"http://127\.0\.0\.1:\d+/rest/r/{key}/allreleases\.xml \(HTTP 404\)$"):
        versions(fake_upstream, http, channel)
    fake_upstream.route(channel.path, f"<a><p>{channel.package}</p></a>")
    with pytest.raises(BackendError, match=rf"^No versions found for {key} at http://"):
        versions(fake_upstream, http, channel)


def test_server_error_and_rate_limit(fake_upstream, http, channel):
    fake_upstream.route(channel.path, Answer(500, ""))
    with pytest.raises(BackendError, match="status 500"):
        versions(fake_upstream, http, channel)
    fake_upstream.route(channel.path, Answer(429, ""))
    with pytest.raises(RateLimitError):
        versions(fake_upstream, http, channel)


# ---- the feed ----

def feed(channel):
    site, package = channel.site, channel.package
    other, version = channel.other
    return f"""<?xml version="1.0" encoding="iso-8859-1"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">
<channel rdf:about="https://{site}/"><title>{channel.backend.name}: Latest releases</title></channel>
<item rdf:about="https://{site}/package/{package}/download/1.6.2/">
 <title>{package} 1.6.2</title><link>https://{site}/package/{package}/download/1.6.2/</link>
</item>
<item><title>{other} {version}</title></item>
<item><title>lonely</title></item>
</rdf:RDF>"""


def test_feed(fake_upstream, http, channel):
    fake_upstream.route("/feed", Answer(200, feed(channel).encode("latin-1"), {"Content-Type": "text/xml"}))
    entries = backend_at(fake_upstream, channel).recent_releases(http.for_check())
    homepage = f"https://{channel.site}/package/"
    other, version = channel.other
    assert [(e.name, e.version, e.homepage) for e in entries] == [
        (channel.package, "1.6.2", homepage + channel.package),
        (channel.package.replace("_", "-"), "1.6.2", homepage + channel.package),
        (other, version, homepage + other),
    ]


def test_feed_errors(fake_upstream, http, channel):
    fake_upstream.route("/feed", "not xml at all")
    with pytest.raises(FetchError, match="not well-formed XML"):
        backend_at(fake_upstream, channel).recent_releases(http.for_check())
