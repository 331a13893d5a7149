"""The CPAN backend on its own: URLs, a fake upstream, and the recorded upstream answers."""

import pytest

import anitrack_backend_cpan
from anitrack_core.check.http import FetchError, NotModified, Validators
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError, RateLimitError
from anitrack_core.testing_upstream import Answer

BACKEND = "CPAN (perl)"
PATH = "/dist/Net-Whois-Raw/"
PAGE = """<a href="https://cpan.metacpan.org/authors/id/N/NA/NALOBIN/Net-Whois-Raw-2.99037.tar.gz">Download</a>
<option value="/release/NALOBIN/Net-Whois-Raw-2.99036">2.99036</option>
<a href="https://cpan.metacpan.org/authors/id/N/NA/NALOBIN/Net-Whois-Raw-2.99036.tar.gz">Older</a>
<a href="https://cpan.metacpan.org/authors/id/X/XX/Other-1.0.tar.gz">unrelated</a>"""


def spec(name="Net-Whois-Raw", **fields):
    fields.setdefault("homepage", f"https://metacpan.org/dist/{name}/")
    return ProjectSpec(id=None, name=name, backend=BACKEND, **fields)


def backend_at(fake_upstream):
    return fake_upstream.serving(anitrack_backend_cpan.CpanBackend())


def versions(fake_upstream, anitrack_http, project=None):
    return backend_at(fake_upstream).get_versions(project or spec(), anitrack_http.for_check())


# ---- the recorded upstream answers (../shared/upstream-recordings, never copied here) ----

@pytest.mark.parametrize("case_id", ["cpan-perl--cpan-get-versions--soap"])
def test_recorded_case(case_id, register_plugin, recorded_case):
    """What ``anitrack check --dry-run`` must print for the case: the backend, then the engine's cleaning."""
    register_plugin(anitrack_backend_cpan, "cpan")
    recorded_case(case_id)


# ---- registration and URLs ----

def test_registers_backend_without_ecosystem(register_plugin, anitrack_plugins):
    info = register_plugin(anitrack_backend_cpan, "cpan")
    assert info.status == "loaded", info.error
    assert anitrack_plugins.backends.get("cpan (PERL)").name == "CPAN (perl)"
    assert anitrack_plugins.ecosystems.for_backend("CPAN (perl)") is None


def test_url_comes_from_the_name_only():
    backend = anitrack_backend_cpan.CpanBackend()
    assert backend.upstream_url(spec("SOAP", version_url="https://x.example/")) == "https://metacpan.org/dist/SOAP/"


# ---- the fake upstream ----

def test_versions_of_the_tarballs(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, PAGE)
    assert versions(fake_upstream, anitrack_http) == ["2.99037", "2.99036"]


def test_request_is_conditional_and_304_means_nothing_new(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(304))
    with pytest.raises(NotModified):
        backend_at(fake_upstream).get_versions(spec(), anitrack_http.for_check(validators=Validators(etag='"e"')))
    assert fake_upstream.requests_to(PATH)[0].headers["If-None-Match"] == '"e"'


def test_not_found_and_nothing_found(fake_upstream, anitrack_http):
    with pytest.raises(BackendError, match=r'^http://127\.0\.0\.1:\d+/dist/Net-Whois-Raw/: server responded with status 404 "Not Found" '
                                           r"\(no such distribution on CPAN\)$"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, "<html>no release</html>")
    with pytest.raises(BackendError, match="^Net-Whois-Raw: no upstream version found"):
        versions(fake_upstream, anitrack_http)


def test_server_error_and_rate_limit(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(503, "down"))
    with pytest.raises(BackendError, match="status 503"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, Answer(429, ""))
    with pytest.raises(RateLimitError):
        versions(fake_upstream, anitrack_http)


# ---- the feed ----

FEED = """<?xml version="1.0" encoding="UTF-8"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">
<channel rdf:about="https://metacpan.org/feed/recent"><title>Recent CPAN distributions</title></channel>
<item rdf:about="https://metacpan.org/release/X/Net-Whois-Raw-2.99037">
  <title>Net-Whois-Raw-2.99037</title><link>https://metacpan.org/release/X/Net-Whois-Raw-2.99037</link>
</item>
<item rdf:about="https://metacpan.org/release/Y/Moo-2.005005"><title>Moo-2.005005</title></item>
<item><title>nodash</title></item>
</rdf:RDF>"""


def test_feed(fake_upstream, check_http):
    fake_upstream.route("/feed", Answer(200, FEED, {"Content-Type": "application/rss+xml"}))
    entries = backend_at(fake_upstream).recent_releases(check_http)
    assert [(e.name, e.version, e.homepage) for e in entries] == [
        ("Net-Whois-Raw", "2.99037", "https://metacpan.org/dist/Net-Whois-Raw/"),
        ("Moo", "2.005005", "https://metacpan.org/dist/Moo/"),
    ]


def test_feed_errors(fake_upstream, anitrack_http):
    fake_upstream.route("/feed", '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "b">]><r>&a;</r>')
    with pytest.raises(FetchError, match="declares XML entities"):
        backend_at(fake_upstream).recent_releases(anitrack_http.for_check())
    fake_upstream.route("/feed", Answer(500, ""))
    with pytest.raises(FetchError, match="status 500"):
        backend_at(fake_upstream).recent_releases(anitrack_http.for_check())
