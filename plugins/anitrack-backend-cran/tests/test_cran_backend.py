"""The CRAN backend on its own: URLs, a fake upstream, and the recorded upstream answers."""

import json
import pytest

import anitrack_backend_cran
from anitrack_core.check.http import FetchError, NotModified, Validators
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError, RateLimitError
from anitrack_core.testing_upstream import Answer

BACKEND = "CRAN (R)"
PATH = "/whisker/all"


def spec(name="whisker", **fields):
    fields.setdefault("homepage", "https://github.com/edwindj/whisker")
    return ProjectSpec(id=None, name=name, backend=BACKEND, **fields)


def backend_at(fake_upstream):
    return fake_upstream.serving(anitrack_backend_cran.CranBackend())


def versions(fake_upstream, anitrack_http, project=None):
    return backend_at(fake_upstream).get_versions(project or spec(), anitrack_http.for_check())


# ---- the recorded upstream answers (../shared/upstream-recordings, never copied here) ----

@pytest.mark.parametrize("case_id", ["cran-r--get-versions--whisker"])
def test_recorded_case(case_id, register_plugin, recorded_case):
    """What ``anitrack check --dry-run`` must print for the case: the backend, then the engine's cleaning."""
    register_plugin(anitrack_backend_cran, "cran")
    recorded_case(case_id)


# ---- registration and URLs ----

def test_registers_backend_without_ecosystem(register_plugin, anitrack_plugins):
    info = register_plugin(anitrack_backend_cran, "cran")
    assert info.status == "loaded", info.error
    assert anitrack_plugins.backends.get("cran (r)").name == "CRAN (R)"
    assert anitrack_plugins.ecosystems.for_backend("CRAN (R)") is None


def test_url_comes_from_the_name_only():
    backend = anitrack_backend_cran.CranBackend()
    assert backend.upstream_url(spec(version_url="https://x.example/")) == "https://crandb.r-pkg.org/whisker/all"


# ---- the fake upstream ----

def test_versions_in_document_order(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, json.dumps({"name": "whisker", "versions": {"0.1": {}, "0.3-2": {}, "0.2": {}}}))
    assert versions(fake_upstream, anitrack_http) == ["0.1", "0.3-2", "0.2"]


def test_request_is_conditional_and_304_means_nothing_new(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(304))
    with pytest.raises(NotModified):
        backend_at(fake_upstream).get_versions(spec(), anitrack_http.for_check(validators=Validators(etag='"e"')))
    assert fake_upstream.requests_to(PATH)[0].headers["If-None-Match"] == '"e"'


def test_not_found(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(404, json.dumps({"error": "not_found", "reason": "missing"})))
    with pytest.raises(BackendError, match=r'^http://127\.0\.0\.1:\d+/whisker/all: server responded with status 404 "Not Found" '
                                           r"\(no such package on CRAN\)$"):
        versions(fake_upstream, anitrack_http)


def test_no_versions_bad_json_and_empty(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, json.dumps({"name": "whisker"}))
    with pytest.raises(BackendError, match=r"^No versions found at http://127\.0\.0\.1:\d+/whisker/all$"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, "<html>")
    with pytest.raises(FetchError, match="not valid JSON"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, json.dumps({"versions": {}}))
    assert versions(fake_upstream, anitrack_http) == []


def test_rate_limit(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(429, ""))
    with pytest.raises(RateLimitError):
        versions(fake_upstream, anitrack_http)


# ---- the feed ----

def test_feed(fake_upstream, check_http):
    fake_upstream.route("/feed", json.dumps([
        {"date": "2024-09-01T10:00:00+00:00", "name": "whisker", "event": "released",
         "package": {"Package": "whisker", "Version": "0.4.1", "URL": "https://github.com/edwindj/whisker,\n http://x"}},
        {"name": "plain", "package": {"Package": "plain", "Version": "1.0"}},
        {"name": "odd", "package": {"Version": ""}},
        "junk",
    ]))
    entries = backend_at(fake_upstream).recent_releases(check_http)
    assert [(e.name, e.version, e.homepage) for e in entries] == [
        ("whisker", "0.4.1", "https://github.com/edwindj/whisker"),
        ("plain", "1.0", "https://cran.r-project.org/web/packages/plain"),
    ]


def test_feed_errors(fake_upstream, anitrack_http):
    fake_upstream.route("/feed", json.dumps({"error": "x"}))
    with pytest.raises(BackendError, match="not a list of releases"):
        backend_at(fake_upstream).recent_releases(anitrack_http.for_check())
    fake_upstream.route("/feed", "nope")
    with pytest.raises(FetchError, match="not valid JSON"):
        backend_at(fake_upstream).recent_releases(anitrack_http.for_check())
