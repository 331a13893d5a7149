"""The Rubygems backend on its own: URLs, a fake upstream, and the recorded upstream answers."""

import json
import pytest

import anitrack_backend_rubygems
from anitrack_core.check.http import FetchError, NotModified, Validators
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError, RateLimitError
from anitrack_core.testing_upstream import Answer

BACKEND = "Rubygems"
PATH = "/api/v1/versions/bio/latest.json"


def spec(name="bio", **fields):
    fields.setdefault("homepage", f"https://rubygems.org/gems/{name}")
    return ProjectSpec(id=None, name=name, backend=BACKEND, **fields)


def backend_at(fake_upstream):
    return fake_upstream.serving(anitrack_backend_rubygems.RubygemsBackend())


def versions(fake_upstream, anitrack_http, project=None):
    return backend_at(fake_upstream).get_versions(project or spec(), anitrack_http.for_check())


# ---- the recorded upstream answers (../shared/upstream-recordings, never copied here) ----

@pytest.mark.parametrize("case_id", ["rubygems--get-versions--bio"])
def test_recorded_case(case_id, register_plugin, recorded_case):
    """What ``anitrack check --dry-run`` must print for the case: the backend, then the engine's cleaning."""
    register_plugin(anitrack_backend_rubygems, "rubygems")
    recorded_case(case_id)


# ---- registration and URLs ----

def test_registers_backend_and_ecosystem(register_plugin, anitrack_plugins):
    info = register_plugin(anitrack_backend_rubygems, "rubygems")
    assert info.status == "loaded", info.error
    assert anitrack_plugins.backends.get("rubygems").name == "Rubygems"
    ecosystem = anitrack_plugins.ecosystems.for_backend("Rubygems")
    assert ecosystem.name == "rubygems" and ecosystem.default_version_scheme is None


def test_url_comes_from_the_name_only():
    backend = anitrack_backend_rubygems.RubygemsBackend()
    assert backend.upstream_url(spec(version_url="x")) == "https://rubygems.org/api/v1/versions/bio/latest.json"


# ---- the fake upstream ----

def test_latest_version(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, json.dumps({"version": "1.5.1"}))
    assert versions(fake_upstream, anitrack_http) == ["1.5.1"]


def test_request_is_conditional_and_304_means_nothing_new(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(304))
    with pytest.raises(NotModified):
        backend_at(fake_upstream).get_versions(spec(), anitrack_http.for_check(validators=Validators(etag='"e"')))
    assert fake_upstream.requests_to(PATH)[0].headers["If-None-Match"] == '"e"'


def test_unknown_gem(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, json.dumps({"version": "unknown"}))
    with pytest.raises(BackendError, match=r"^Project or version unknown at http://127\.0\.0\.1:\d+/api/v1/versions/bio/latest\.json$"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, Answer(404, "This rubygem could not be found."))
    with pytest.raises(BackendError, match=r'/bio/latest\.json: server responded with status 404 "Not Found" \(no such gem on rubygems\.org\)$'):
        versions(fake_upstream, anitrack_http)


def test_not_json_or_empty(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, "<html>")
    with pytest.raises(BackendError, match=r"^No JSON returned by http://127\.0\.0\.1:\d+/api/v1/versions/bio/latest\.json$"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, json.dumps({}))
    with pytest.raises(BackendError, match="no version in the answer"):
        versions(fake_upstream, anitrack_http)


def test_server_error_and_rate_limit(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(500, "oops"))
    with pytest.raises(BackendError, match='status 500'):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, Answer(429, "", {"Retry-After": "5"}))
    with pytest.raises(RateLimitError):
        versions(fake_upstream, anitrack_http)


# ---- the feed ----

def test_feed(fake_upstream, check_http):
    fake_upstream.route("/feed", json.dumps([
        {"name": "rails", "version": "7.2.1", "homepage_uri": "https://rubyonrails.org"},
        {"name": "bio", "version": "2.0.5"},
        {"name": "broken"},
    ]))
    entries = backend_at(fake_upstream).recent_releases(check_http)
    assert [(e.name, e.version, e.homepage) for e in entries] == [
        ("rails", "7.2.1", "https://rubygems.org/gems/rails"), ("bio", "2.0.5", "https://rubygems.org/gems/bio")]


def test_feed_errors(fake_upstream, anitrack_http):
    fake_upstream.route("/feed", json.dumps({"error": "x"}))
    with pytest.raises(BackendError, match="not a list of gems"):
        backend_at(fake_upstream).recent_releases(anitrack_http.for_check())
    fake_upstream.route("/feed", "<html>")
    with pytest.raises(FetchError, match="not valid JSON"):
        backend_at(fake_upstream).recent_releases(anitrack_http.for_check())
