"""The PyPI backend on its own: URLs, a fake upstream, and the recorded upstream answers."""

import json
import pytest

import anitrack_backend_pypi
from anitrack_core.check.http import FetchError, NotModified, Validators
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError, RateLimitError
from anitrack_core.testing_upstream import Answer

BACKEND = "PyPI"


def spec(name="chai", **fields):
    fields.setdefault("homepage", f"https://pypi.org/project/{name}/")
    return ProjectSpec(id=None, name=name, backend=BACKEND, **fields)


def backend_at(fake_upstream):
    return fake_upstream.serving(anitrack_backend_pypi.PypiBackend())


def versions(fake_upstream, anitrack_http, project=None):
    return backend_at(fake_upstream).get_versions(project or spec(), anitrack_http.for_check())


# ---- the recorded upstream answers (../shared/upstream-recordings, never copied here) ----

@pytest.mark.parametrize("case_id", [
    "pypi--pypi-get-versions--repo-manager",
    "pypi--pypi-get-version--chai",
])
def test_recorded_case(case_id, register_plugin, recorded_case):
    """What ``anitrack check --dry-run`` must print for the case: the backend, then the engine's cleaning."""
    register_plugin(anitrack_backend_pypi, "pypi")
    recorded_case(case_id)


# ---- registration and URLs ----

def test_registers_backend_and_ecosystem(register_plugin, anitrack_plugins):
    info = register_plugin(anitrack_backend_pypi, "pypi")
    assert info.status == "loaded", info.error
    backend = anitrack_plugins.backends.get("pypi")
    assert backend.name == "PyPI" and not backend.required_version_url and backend.default_version_scheme is None
    ecosystem = anitrack_plugins.ecosystems.for_backend("PyPI")
    assert ecosystem.name == "pypi" and ecosystem.default_version_scheme is None


def test_url_comes_from_the_name_only():
    backend = anitrack_backend_pypi.PypiBackend()
    assert backend.upstream_url(spec("repo_manager", version_url="https://example.org/x")) == \
        "https://pypi.org/pypi/repo_manager/json"
    assert backend.upstream_url(spec(" a/b ")) == "https://pypi.org/pypi/a%2Fb/json"


# ---- the fake upstream ----

def test_versions_skip_fully_yanked_releases(fake_upstream, anitrack_http):
    fake_upstream.route("/pypi/chai/json", json.dumps({"info": {"version": "1.1"}, "releases": {
        "0.9": [], "1.0": [{"yanked": False}, {"yanked": True}], "1.0.1": [{"yanked": True}], "1.1": [{}]}}))
    assert versions(fake_upstream, anitrack_http) == ["0.9", "1.0", "1.1"]


def test_request_is_conditional_and_304_means_nothing_new(fake_upstream, anitrack_http):
    fake_upstream.route("/pypi/chai/json", Answer(304))
    backend = backend_at(fake_upstream)
    with pytest.raises(NotModified):
        backend.get_versions(spec(), anitrack_http.for_check(validators=Validators(etag='"v1"')))
    assert fake_upstream.requests_to("/pypi/chai/json")[0].headers["If-None-Match"] == '"v1"'


def test_not_found(fake_upstream, anitrack_http):
    with pytest.raises(BackendError, match=r'^http://127\.0\.0\.1:\d+/pypi/chai/json: server responded with status 404 "Not Found" '
                                           r"\(no such package on PyPI\)$"):
        versions(fake_upstream, anitrack_http)


def test_bad_json(fake_upstream, anitrack_http):
    fake_upstream.route("/pypi/chai/json", "<html>maintenance</html>")
    with pytest.raises(BackendError, match="not valid JSON"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route("/pypi/chai/json", "[1, 2]")
    with pytest.raises(BackendError, match="not a JSON object"):
        versions(fake_upstream, anitrack_http)


def test_empty_and_missing_releases(fake_upstream, anitrack_http):
    fake_upstream.route("/pypi/chai/json", json.dumps({"info": {}, "releases": {}}))
    assert versions(fake_upstream, anitrack_http) == []
    fake_upstream.route("/pypi/chai/json", json.dumps({"info": {"version": "2.0"}}))
    assert versions(fake_upstream, anitrack_http) == ["2.0"]


def test_server_error_and_rate_limit(fake_upstream, anitrack_http):
    fake_upstream.route("/pypi/chai/json", Answer(503, "down"))
    with pytest.raises(BackendError, match='status 503 "Service Unavailable"'):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route("/pypi/chai/json", Answer(429, "slow down", {"Retry-After": "60"}))
    with pytest.raises(RateLimitError):
        versions(fake_upstream, anitrack_http)


# ---- the feed ----

FEED = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>PyPI recent updates</title>
<item><title>requests 2.32.3</title><link>https://pypi.org/project/requests/2.32.3/</link></item>
<item><title>Django  5.1</title><link>https://pypi.org/project/Django/5.1/</link></item>
<item><title>broken</title></item>
</channel></rss>"""


def test_feed(fake_upstream, check_http):
    fake_upstream.route("/feed", Answer(200, FEED, {"Content-Type": "text/xml"}))
    entries = backend_at(fake_upstream).recent_releases(check_http)
    assert [(e.name, e.version, e.homepage) for e in entries] == [
        ("requests", "2.32.3", "https://pypi.org/project/requests/"),
        ("Django", "5.1", "https://pypi.org/project/Django/"),
    ]


def test_feed_errors(fake_upstream, anitrack_http):
    with pytest.raises(FetchError, match="status 404"):
        backend_at(fake_upstream).recent_releases(anitrack_http.for_check())
    fake_upstream.route("/feed", "<rss><channel><item>")
    with pytest.raises(FetchError, match="not well-formed XML"):
        backend_at(fake_upstream).recent_releases(anitrack_http.for_check())
