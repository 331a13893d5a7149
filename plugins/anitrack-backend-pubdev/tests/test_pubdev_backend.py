"""The pub.dev backend on its own: URLs, a fake pub repository, the feed, the CLI."""

import json

import pytest

import anitrack_backend_pubdev as pubdev
from anitrack_core.check.http import FetchError, NotModified, Validators
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError, RateLimitError
from anitrack_core.testing_upstream import Answer

BACKEND = "pub.dev"
PATH = "/api/packages/http"


def spec(name="http", **fields):
    fields.setdefault("homepage", f"https://pub.dev/packages/{name}")
    return ProjectSpec(id=None, name=name, backend=BACKEND, **fields)


def backend_at(fake_upstream):
    return fake_upstream.serving(pubdev.PubDevBackend())


def versions(fake_upstream, anitrack_http, project=None):
    return backend_at(fake_upstream).get_versions(project or spec(), anitrack_http.for_check())


def package(*versions):
    items = [{"version": v.lstrip("!"), "pubspec": {}, **({"retracted": True} if v.startswith("!") else {})}
             for v in versions]
    return json.dumps({"name": "http", "latest": items[-1] if items else None, "versions": items})


def test_registers_backend_and_ecosystem(register_plugin, anitrack_plugins):
    info = register_plugin(pubdev, "pubdev")
    assert info.status == "loaded", info.error
    assert anitrack_plugins.backends.get("PUB.DEV").name == "pub.dev"
    ecosystem = anitrack_plugins.ecosystems.for_backend("pub.dev")
    assert ecosystem.name == "pub" and ecosystem.default_version_scheme == "Semantic"
    assert anitrack_plugins.ecosystems.find("dart") is ecosystem


def test_url_comes_from_the_name_only():
    assert pubdev.PubDevBackend().upstream_url(spec(version_url="x")) == "https://pub.dev/api/packages/http"
    assert pubdev.PubDevBackend().upstream_url(spec("a/b")) == "https://pub.dev/api/packages/a%2Fb"


def test_versions_without_retracted(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, package("0.13.6", "!1.0.0", "1.1.0", "1.2.0-dev.1"))
    assert versions(fake_upstream, anitrack_http) == ["0.13.6", "1.1.0", "1.2.0-dev.1"]
    assert fake_upstream.requests[0].headers["Accept"] == "application/vnd.pub.v2+json"


def test_request_is_conditional_and_304_means_nothing_new(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(304))
    with pytest.raises(NotModified):
        backend_at(fake_upstream).get_versions(spec(), anitrack_http.for_check(validators=Validators(etag='"p"')))
    assert fake_upstream.requests_to(PATH)[0].headers["If-None-Match"] == '"p"'


def test_not_found(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(404, json.dumps({"error": {"code": "NotFound",
                                                                "message": 'Could not find `package "http"`.'}})))
    with pytest.raises(BackendError, match=r'^http://127\.0\.0\.1:\d+/api/packages/http: server responded with status '
                                           r'404 "Not Found" \(Could not find `package "http"`\.\)$'):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, Answer(404, "<html>"))
    with pytest.raises(BackendError, match=r'404 "Not Found" \(no such package on pub\.dev\)$'):
        versions(fake_upstream, anitrack_http)


def test_rate_limited(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(429, "", {"Retry-After": "30"}))
    with pytest.raises(RateLimitError):
        versions(fake_upstream, anitrack_http)


def test_malformed_bodies(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, "{")
    with pytest.raises(BackendError, match="not valid JSON"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, json.dumps({"name": "http", "versions": {"1.0.0": {}}}))
    with pytest.raises(BackendError, match="no list of versions"):
        versions(fake_upstream, anitrack_http)


FEED = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Pub Feed Demo</title>
<entry><title>v1.2.2 of http</title><link href="https://pub.dev/packages/http"/></entry>
<entry><title>provider 6.1.2</title><link href="https://pub.dev/packages/provider/versions/6.1.2"/></entry>
<entry><title>something else</title><link href="https://pub.dev/help"/></entry>
</feed>"""


def test_feed(fake_upstream, check_http):
    fake_upstream.route("/feed", Answer(200, FEED, {"Content-Type": "application/atom+xml"}))
    entries = backend_at(fake_upstream).recent_releases(check_http)
    assert [(e.name, e.version, e.homepage) for e in entries] == [
        ("http", "1.2.2", "https://pub.dev/packages/http"), ("provider", "6.1.2", "https://pub.dev/packages/provider")]


def test_feed_errors(fake_upstream, anitrack_http):
    with pytest.raises(FetchError, match="status 404"):
        backend_at(fake_upstream).recent_releases(anitrack_http.for_check())
    fake_upstream.route("/feed", "<feed><entry>")
    with pytest.raises(FetchError, match="not well-formed XML"):
        backend_at(fake_upstream).recent_releases(anitrack_http.for_check())


def test_dry_run(run_anitrack, fake_upstream, monkeypatch):
    fake_upstream.route(PATH, package("1.1.0", "1.2.0", "!1.2.1", "1.3.0-dev.1"))
    monkeypatch.setattr(pubdev.PubDevBackend, "api_base", fake_upstream.base)
    code, out, err = run_anitrack("check", "--dry-run", "--backend", "pub.dev", "--name", "http",
                                  "--homepage", "https://pub.dev/packages/http", "--json")
    assert code == 0, err
    assert json.loads(out) == {"versions": ["1.3.0-dev.1", "1.2.0", "1.1.0"], "latest_version": "1.3.0-dev.1",
                               "stable_versions": ["1.2.0", "1.1.0"]}
