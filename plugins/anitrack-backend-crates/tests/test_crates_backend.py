"""The crates.io backend on its own: URLs, a fake upstream, and the recorded upstream answers."""

import json
import pytest

import anitrack_backend_crates
from anitrack_core.check.http import FetchError, NotModified, Validators
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError, RateLimitError
from anitrack_core.testing_upstream import Answer

BACKEND = "crates.io"
PATH = "/api/v1/crates/itoa/versions"


def spec(name="itoa", **fields):
    fields.setdefault("homepage", f"https://crates.io/crates/{name}")
    return ProjectSpec(id=None, name=name, backend=BACKEND, **fields)


def page(*versions, next_page=None):
    items = [{"num": v.lstrip("!"), "yanked": v.startswith("!")} for v in versions]
    return json.dumps({"versions": items, "meta": {"total": 99, "next_page": next_page}})


def backend_at(fake_upstream):
    return fake_upstream.serving(anitrack_backend_crates.CratesBackend())


def versions(fake_upstream, anitrack_http, project=None):
    return backend_at(fake_upstream).get_versions(project or spec(), anitrack_http.for_check())


# ---- the recorded upstream answers (../shared/upstream-recordings, never copied here) ----

@pytest.mark.parametrize("case_id", ["crates-io--get-ordered-versions--itoa"])
def test_recorded_case(case_id, register_plugin, recorded_case):
    """What ``anitrack check --dry-run`` must print for the case: the backend, then the engine's cleaning."""
    register_plugin(anitrack_backend_crates, "crates.io")
    recorded_case(case_id)


# ---- registration and URLs ----

def test_registers_backend_and_ecosystem_with_alias(register_plugin, anitrack_plugins):
    info = register_plugin(anitrack_backend_crates, "crates.io")
    assert info.status == "loaded", info.error
    assert anitrack_plugins.backends.get("Crates.IO").name == "crates.io"
    ecosystem = anitrack_plugins.ecosystems.for_backend("crates.io")
    assert ecosystem.name == "crates.io" and ecosystem.default_version_scheme is None
    assert anitrack_plugins.ecosystems.find("cargo") is ecosystem
    assert anitrack_plugins.ecosystems.find("Cargo") is ecosystem


def test_url_comes_from_the_name_only():
    backend = anitrack_backend_crates.CratesBackend()
    assert backend.upstream_url(spec(version_url="serde")) == "https://crates.io/api/v1/crates/itoa/versions"


# ---- the fake upstream ----

def test_versions_in_api_order_without_yanked(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, page("0.3.0", "!0.2.1", "0.2.0"))
    assert versions(fake_upstream, anitrack_http) == ["0.3.0", "0.2.0"]


def test_following_pages(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, page("3", "2", next_page="?per_page=2&seek=abc"))
    fake_upstream.route(PATH + "?per_page=2&seek=abc", page("1", "!0"))
    assert versions(fake_upstream, anitrack_http) == ["3", "2", "1"]
    first, second = fake_upstream.requests
    assert "If-Modified-Since" in first.headers and "If-Modified-Since" not in second.headers


def test_pages_are_bounded(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, page("1", next_page="?seek=x"))
    fake_upstream.route(PATH + "?seek=x", page("2", next_page="?seek=x"))
    assert len(versions(fake_upstream, anitrack_http)) == anitrack_backend_crates.MAX_PAGES


def test_request_is_conditional_and_304_means_nothing_new(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(304))
    with pytest.raises(NotModified):
        backend_at(fake_upstream).get_versions(spec(), anitrack_http.for_check(validators=Validators(etag='"e"')))
    assert fake_upstream.requests_to(PATH)[0].headers["If-None-Match"] == '"e"'


def test_not_found(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(404, json.dumps({"errors": [{"detail": "crate `itoa` does not exist"}]})))
    with pytest.raises(BackendError, match=r"^http://127\.0\.0\.1:\d+/api/v1/crates/itoa/versions: "
                                           r'server responded with status 404 "Not Found" \(crate `itoa` does not exist\)$'):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, Answer(500, "<html>"))
    with pytest.raises(BackendError, match='status 500 "Internal Server Error"$'):
        versions(fake_upstream, anitrack_http)


def test_bad_json_and_empty(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, "{not json")
    with pytest.raises(BackendError, match="^Failed to decode JSON: .*not valid JSON"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, json.dumps({"crate": {}}))
    with pytest.raises(BackendError, match="no list of versions"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, json.dumps({"versions": []}))
    assert versions(fake_upstream, anitrack_http) == []


def test_rate_limit(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(429, "", {"Retry-After": "5"}))
    with pytest.raises(RateLimitError):
        versions(fake_upstream, anitrack_http)


# ---- the feed ----

def test_feed(fake_upstream, check_http):
    fake_upstream.route("/feed", json.dumps({"just_updated": [
        {"name": "serde", "newest_version": "1.0.210", "homepage": "https://serde.rs"},
        {"name": "itoa", "max_version": "1.0.11", "homepage": None},
        {"name": "nothing"},
    ], "new_crates": []}))
    entries = backend_at(fake_upstream).recent_releases(check_http)
    assert [(e.name, e.version, e.homepage) for e in entries] == [
        ("serde", "1.0.210", "https://serde.rs"), ("itoa", "1.0.11", "https://crates.io/crates/itoa")]


def test_feed_errors(fake_upstream, anitrack_http):
    fake_upstream.route("/feed", json.dumps([]))
    with pytest.raises(BackendError, match="no just_updated list"):
        backend_at(fake_upstream).recent_releases(anitrack_http.for_check())
    fake_upstream.route("/feed", Answer(403, "forbidden"))
    with pytest.raises(FetchError, match="status 403"):
        backend_at(fake_upstream).recent_releases(anitrack_http.for_check())
