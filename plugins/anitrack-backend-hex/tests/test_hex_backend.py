"""The Hex backend on its own: URLs, a fake hex.pm API, the feed, the CLI."""

import json

import pytest

import anitrack_backend_hex as hex_backend
from anitrack_core.check.http import FetchError, NotModified, Validators
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError, RateLimitError
from anitrack_core.testing_upstream import Answer

BACKEND = "Hex"
PATH = "/api/packages/jason"


def spec(name="jason", **fields):
    fields.setdefault("homepage", f"https://hex.pm/packages/{name}")
    return ProjectSpec(id=None, name=name, backend=BACKEND, **fields)


def backend_at(fake_upstream):
    return fake_upstream.serving(hex_backend.HexBackend())


def versions(fake_upstream, anitrack_http, project=None):
    return backend_at(fake_upstream).get_versions(project or spec(), anitrack_http.for_check())


def package(*versions, retired=()):
    return json.dumps({"name": "jason", "releases": [{"version": v, "url": f"https://hex.pm/api/packages/jason/releases/{v}"}
                                                     for v in versions],
                       "retirements": {v: {"reason": "security", "message": "CVE"} for v in retired}})


def test_registers_backend_and_ecosystem(register_plugin, anitrack_plugins):
    info = register_plugin(hex_backend, "hex")
    assert info.status == "loaded", info.error
    assert anitrack_plugins.backends.get("hex").name == "Hex"
    ecosystem = anitrack_plugins.ecosystems.for_backend("Hex")
    assert ecosystem.name == "hex" and ecosystem.default_version_scheme == "Semantic"


def test_url_comes_from_the_name_only():
    assert hex_backend.HexBackend().upstream_url(spec(version_url="x")) == "https://hex.pm/api/packages/jason"


def test_versions_without_retired_releases(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, package("1.4.4", "1.4.3", "1.4.2", "1.5.0-alpha.1", retired=["1.4.3"]))
    assert versions(fake_upstream, anitrack_http) == ["1.4.4", "1.4.2", "1.5.0-alpha.1"]


def test_request_is_conditional_and_304_means_nothing_new(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(304))
    with pytest.raises(NotModified):
        backend_at(fake_upstream).get_versions(spec(), anitrack_http.for_check(validators=Validators(etag='"h"')))
    assert fake_upstream.requests_to(PATH)[0].headers["If-None-Match"] == '"h"'


def test_not_found_and_errors(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(404, json.dumps({"status": 404, "message": "Page not found"})))
    with pytest.raises(BackendError, match=r'^http://127\.0\.0\.1:\d+/api/packages/jason: server responded with status '
                                           r'404 "Not Found" \(no such package on hex\.pm\)$'):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, Answer(400, json.dumps({"status": 400, "message": "bad request"})))
    with pytest.raises(BackendError, match=r'400 "Bad Request" \(bad request\)$'):
        versions(fake_upstream, anitrack_http)


def test_rate_limited(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(429, json.dumps({"status": 429, "message": "API rate limit exceeded"}),
                                     {"X-RateLimit-Limit": "100", "X-RateLimit-Remaining": "0",
                                      "X-RateLimit-Reset": "1893456000"}))
    with pytest.raises(RateLimitError):
        versions(fake_upstream, anitrack_http)


def test_malformed_bodies(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, "<html>")
    with pytest.raises(BackendError, match="not valid JSON"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, json.dumps({"name": "jason"}))
    with pytest.raises(BackendError, match="no list of releases"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, json.dumps({"releases": [{"version": "1.0.0"}, "x", {"version": 2}], "retirements": []}))
    assert versions(fake_upstream, anitrack_http) == ["1.0.0"]


def test_feed(fake_upstream, check_http):
    fake_upstream.route("/feed", json.dumps([
        {"name": "phoenix", "latest_version": "1.7.14", "html_url": "https://hex.pm/packages/phoenix",
         "releases": [{"version": "1.7.14"}]},
        {"name": "jason", "releases": [{"version": "1.4.4"}, {"version": "1.4.3"}]},
        {"name": "empty", "releases": []}, {"releases": [{"version": "1"}]}, "x"]))
    entries = backend_at(fake_upstream).recent_releases(check_http)
    assert [(e.name, e.version, e.homepage) for e in entries] == [
        ("phoenix", "1.7.14", "https://hex.pm/packages/phoenix"), ("jason", "1.4.4", "https://hex.pm/packages/jason")]


def test_feed_errors(fake_upstream, anitrack_http):
    fake_upstream.route("/feed", json.dumps({"packages": []}))
    with pytest.raises(BackendError, match="not a list of packages"):
        backend_at(fake_upstream).recent_releases(anitrack_http.for_check())
    fake_upstream.route("/feed", Answer(503, ""))
    with pytest.raises(FetchError, match="status 503"):
        backend_at(fake_upstream).recent_releases(anitrack_http.for_check())


def test_dry_run(run_anitrack, fake_upstream, monkeypatch):
    fake_upstream.route(PATH, package("1.4.4", "1.4.3", "1.10.0", retired=["1.10.0"]))
    monkeypatch.setattr(hex_backend.HexBackend, "api_base", fake_upstream.base)
    code, out, err = run_anitrack("check", "--dry-run", "--backend", "Hex", "--name", "jason",
                                  "--homepage", "https://hex.pm/packages/jason", "--json")
    assert code == 0, err
    assert json.loads(out)["versions"] == ["1.4.4", "1.4.3"]
