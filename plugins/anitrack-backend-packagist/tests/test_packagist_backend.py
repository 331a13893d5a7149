"""The Packagist backend on its own: URLs, a fake upstream, and the recorded upstream answers."""

import json
import pytest

import anitrack_backend_packagist
from anitrack_core.check.http import NotModified, Validators
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError, RateLimitError
from anitrack_core.testing_upstream import Answer

BACKEND = "Packagist"
PATH = "/packages/phpunit/php-timer.json"


def spec(name="php-timer", **fields):
    fields.setdefault("homepage", f"https://packagist.org/packages/phpunit/{name}")
    fields.setdefault("version_url", "phpunit")
    return ProjectSpec(id=None, name=name, backend=BACKEND, **fields)


def backend_at(fake_upstream):
    return fake_upstream.serving(anitrack_backend_packagist.PackagistBackend())


def versions(fake_upstream, anitrack_http, project=None):
    return backend_at(fake_upstream).get_versions(project or spec(), anitrack_http.for_check())


# ---- the recorded upstream answers (../shared/upstream-recordings, never copied here) ----

@pytest.mark.parametrize("case_id", [
    "packagist--packagist-get-versions--php-code-coverage",
    "packagist--packagist-get-versions--fake",
])
def test_recorded_case(case_id, register_plugin, recorded_case):
    """What ``anitrack check --dry-run`` must print for the case: the backend, then the engine's cleaning."""
    register_plugin(anitrack_backend_packagist, "packagist")
    recorded_case(case_id)


# ---- registration and URLs ----

def test_registers_backend_without_ecosystem(register_plugin, anitrack_plugins):
    info = register_plugin(anitrack_backend_packagist, "packagist")
    assert info.status == "loaded", info.error
    assert anitrack_plugins.backends.get("packagist").name == "Packagist"
    assert anitrack_plugins.ecosystems.for_backend("Packagist") is None


def test_url():
    backend = anitrack_backend_packagist.PackagistBackend()
    assert backend.upstream_url(spec("test", version_url="test")) == "https://packagist.org/packages/test/test.json"
    assert backend.upstream_url(spec(version_url=" phpunit/ ")) == "https://packagist.org/packages/phpunit/php-timer.json"
    assert backend.upstream_url(spec(version_url=None)) is None
    assert backend.upstream_url(spec(version_url="  ")) is None


# ---- the fake upstream ----

def test_versions_sorted_as_strings(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, json.dumps({"package": {"name": "phpunit/php-timer", "versions": {
        "dev-master": {}, "1.0.5": {}, "1.0.10": {}, "2.0.x-dev": {}}}}))
    assert versions(fake_upstream, anitrack_http) == ["1.0.10", "1.0.5", "2.0.x-dev", "dev-master"]


def test_request_is_conditional_and_304_means_nothing_new(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(304))
    with pytest.raises(NotModified):
        backend_at(fake_upstream).get_versions(spec(), anitrack_http.for_check(validators=Validators(etag='"e"')))
    assert fake_upstream.requests_to(PATH)[0].headers["If-None-Match"] == '"e"'


def test_no_vendor(fake_upstream, anitrack_http):
    with pytest.raises(BackendError, match="^Project php-timer is not correctly set up"):
        versions(fake_upstream, anitrack_http, spec(version_url=None))
    assert fake_upstream.requests == []


def test_error_message_of_packagist(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(404, json.dumps({"status": "error", "message": "Package not found"})))
    with pytest.raises(BackendError, match=r"^http://127\.0\.0\.1:\d+/packages/phpunit/php-timer\.json: "
                                           r'server responded with status 404 "Not Found" \(Package not found\)$'):
        versions(fake_upstream, anitrack_http)


def test_invalid_json(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, "<html>")
    with pytest.raises(BackendError, match=r"^http://.*/php-timer\.json: the answer is not valid JSON"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, json.dumps({"package": {"name": "x"}}))
    with pytest.raises(BackendError, match=r"^Invalid JSON returned by http://"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, json.dumps({"package": {"versions": {}}}))
    assert versions(fake_upstream, anitrack_http) == []


def test_server_error_and_rate_limit(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(500, "<html>"))
    with pytest.raises(BackendError, match="status 500"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, Answer(429, "{}"))
    with pytest.raises(RateLimitError):
        versions(fake_upstream, anitrack_http)
