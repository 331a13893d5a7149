"""The npmjs backend on its own: URLs, a fake upstream, and the recorded upstream answers."""

import json
import pytest

import anitrack_backend_npmjs
from anitrack_core.check.http import FetchError, NotModified, Validators
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError, RateLimitError
from anitrack_core.testing_upstream import Answer

BACKEND = "npmjs"


def spec(name="request", **fields):
    fields.setdefault("homepage", f"https://www.npmjs.org/package/{name}")
    return ProjectSpec(id=None, name=name, backend=BACKEND, **fields)


def backend_at(fake_upstream):
    return fake_upstream.serving(anitrack_backend_npmjs.NpmjsBackend())


def versions(fake_upstream, anitrack_http, project=None):
    return backend_at(fake_upstream).get_versions(project or spec(), anitrack_http.for_check())


# ---- the recorded upstream answers (../shared/upstream-recordings, never copied here) ----

@pytest.mark.parametrize("case_id", [
    "npmjs--get-versions--request",
    "npmjs--get-versions--non-existent-package-that-does-not-exist",
])
def test_recorded_case(case_id, register_plugin, recorded_case):
    """What ``anitrack check --dry-run`` must print for the case: the backend, then the engine's cleaning."""
    register_plugin(anitrack_backend_npmjs, "npmjs")
    recorded_case(case_id)


# ---- registration and URLs ----

def test_registers_backend_and_ecosystem(register_plugin, anitrack_plugins):
    info = register_plugin(anitrack_backend_npmjs, "npmjs")
    assert info.status == "loaded", info.error
    assert anitrack_plugins.backends.get("NPMJS").name == "npmjs"
    ecosystem = anitrack_plugins.ecosystems.for_backend("npmjs")
    assert ecosystem.name == "npm" and ecosystem.default_version_scheme is None
    assert anitrack_plugins.ecosystems.find("npmjs") is ecosystem


def test_url_comes_from_the_name_only():
    backend = anitrack_backend_npmjs.NpmjsBackend()
    assert backend.upstream_url(spec(version_url="https://example.org/")) == "https://registry.npmjs.org/request"
    assert backend.upstream_url(spec("@types/node")) == "https://registry.npmjs.org/@types%2Fnode"


# ---- the fake upstream ----

def test_versions_from_the_abbreviated_document(fake_upstream, anitrack_http):
    fake_upstream.route("/request", json.dumps({"name": "request", "dist-tags": {"latest": "2.0.0"},
                                                "versions": {"1.0.0": {}, "2.0.0": {}, "2.1.0-beta.1": {}}}))
    assert versions(fake_upstream, anitrack_http) == ["1.0.0", "2.0.0", "2.1.0-beta.1"]
    assert fake_upstream.requests[0].headers["Accept"].startswith("application/vnd.npm.install-v1+json")


def test_scoped_name(fake_upstream, anitrack_http):
    fake_upstream.route("/@scope%2Fpkg", json.dumps({"versions": {"0.1.0": {}}}))
    assert versions(fake_upstream, anitrack_http, spec("@scope/pkg")) == ["0.1.0"]


def test_request_is_conditional_and_304_means_nothing_new(fake_upstream, anitrack_http):
    fake_upstream.route("/request", Answer(304))
    with pytest.raises(NotModified):
        backend_at(fake_upstream).get_versions(spec(), anitrack_http.for_check(validators=Validators(etag='"e"')))
    assert fake_upstream.requests_to("/request")[0].headers["If-None-Match"] == '"e"'


def test_not_found_and_error_documents(fake_upstream, anitrack_http):
    with pytest.raises(BackendError, match=r'^http://127\.0\.0\.1:\d+/request: server responded with status 404 "Not Found" '
                                           r"\(no such package on the npm registry\)$"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route("/request", json.dumps({"error": "Not found"}))
    with pytest.raises(BackendError, match="^No versions found at "):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route("/request", json.dumps({"name": "request"}))
    with pytest.raises(BackendError, match="^No versions found at "):
        versions(fake_upstream, anitrack_http)


def test_empty_version_list(fake_upstream, anitrack_http):
    fake_upstream.route("/request", json.dumps({"versions": {}}))
    assert versions(fake_upstream, anitrack_http) == []


def test_bad_json(fake_upstream, anitrack_http):
    fake_upstream.route("/request", "<html>")
    with pytest.raises(FetchError, match="not valid JSON"):
        versions(fake_upstream, anitrack_http)


def test_server_error_and_rate_limit(fake_upstream, anitrack_http):
    fake_upstream.route("/request", Answer(500, "oops"))
    with pytest.raises(BackendError, match='status 500 "Internal Server Error"'):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route("/request", Answer(429, "", {"Retry-After": "30"}))
    with pytest.raises(RateLimitError):
        versions(fake_upstream, anitrack_http)


# ---- the feed ----

def test_feed_one_entry_per_version_deleted_skipped(fake_upstream, check_http):
    fake_upstream.route("/feed", json.dumps({"results": [
        {"id": "left-pad", "deleted": True},
        {"id": "colors", "doc": {"name": "colors", "homepage": "https://github.com/Marak/colors.js",
                                 "versions": {"1.1.0": {}, "1.2.0": {}}}},
        {"id": "tiny", "doc": {"name": "tiny", "versions": {"0.0.1": {}}}},
        {"id": "_design/app"},
    ]}))
    entries = backend_at(fake_upstream).recent_releases(check_http)
    assert [(e.name, e.version, e.homepage) for e in entries] == [
        ("colors", "1.1.0", "https://github.com/Marak/colors.js"),
        ("colors", "1.2.0", "https://github.com/Marak/colors.js"),
        ("tiny", "0.0.1", "https://npmjs.org/package/tiny"),
    ]


def test_feed_errors(fake_upstream, anitrack_http):
    fake_upstream.route("/feed", json.dumps({"rows": []}))
    with pytest.raises(BackendError, match="no list of results"):
        backend_at(fake_upstream).recent_releases(anitrack_http.for_check())
    fake_upstream.route("/feed", Answer(502, "bad gateway"))
    with pytest.raises(FetchError, match="status 502"):
        backend_at(fake_upstream).recent_releases(anitrack_http.for_check())
