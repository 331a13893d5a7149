"""The BitBucket backend: URL building and a fake Bitbucket API (no usable recording exists)."""

import json

import pytest

import anitrack_backend_bitbucket
from anitrack_backend_bitbucket import BitBucketBackend
from anitrack_core.check.http import NotModified
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError, RateLimitError
from anitrack_core.testing_upstream import Answer

API_PATH = "/2.0/repositories/cherrypy/cherrypy/refs/tags?sort=-target.date"
API_URL = "https://api.bitbucket.org" + API_PATH
TAGS = json.dumps({"pagelen": 10, "values": [{"name": "v18.1.0", "type": "tag"}, {"name": "v18.0.1", "type": "tag"},
                                             {"name": "", "type": "tag"}, {"type": "tag"}],
                   "next": "https://api.bitbucket.org/2.0/repositories/cherrypy/cherrypy/refs/tags?page=2"})


@pytest.fixture
def api(fake_upstream, monkeypatch):
    monkeypatch.setattr(BitBucketBackend, "api", fake_upstream.base)
    return fake_upstream


def project(homepage="https://bitbucket.org/cherrypy/cherrypy", **fields):
    return ProjectSpec(id=None, name="cherrypy", homepage=homepage, backend="BitBucket", **fields)


def versions(anitrack_http, **fields):
    return BitBucketBackend().get_versions(project(**fields), anitrack_http.for_check())


def test_registers(register_plugin, anitrack_plugins):
    assert register_plugin(anitrack_backend_bitbucket, "bitbucket").status == "loaded"
    backend = anitrack_plugins.backends.get("bitbucket")
    assert backend.name == "BitBucket" and backend.shared_rate_limit is True and backend.default_regex is None


@pytest.mark.parametrize("fields", [
    {"homepage": "https://bitbucket.org/cherrypy/cherrypy"},
    {"homepage": "https://bitbucket.org/cherrypy/cherrypy/"},
    {"homepage": "https://bitbucket.org/cherrypy/cherrypy/downloads"},
    {"homepage": "https://bitbucket.org/cherrypy/cherrypy/src/master"},
    {"homepage": "https://example.org", "version_url": "https://bitbucket.org/cherrypy/cherrypy"},
    {"homepage": "https://example.org", "version_url": "https://bitbucket.org/cherrypy/cherrypy/"},
    {"homepage": "https://example.org", "version_url": "cherrypy/cherrypy"},
])
def test_tags_url(fields):
    assert BitBucketBackend.tags_url(project(**fields)) == API_URL


@pytest.mark.parametrize("fields", [
    {"homepage": "https://example.org/cherrypy/cherrypy"}, {"homepage": "https://bitbucket.org/cherrypy"},
    {"homepage": "https://example.org", "version_url": "https://example.org/a/b"}, {"homepage": ""},
])
def test_bad_set_up(fields):
    with pytest.raises(BackendError, match="^Project cherrypy was incorrectly set up"):
        BitBucketBackend.tags_url(project(**fields))


def test_tags(api, anitrack_http):
    api.route(API_PATH, Answer(200, TAGS, {"Content-Type": "application/json"}))
    assert versions(anitrack_http) == ["v18.1.0", "v18.0.1"]
    assert len(api.requests) == 1 and "If-Modified-Since" in api.requests[0].headers


def test_no_tag(api, anitrack_http):
    api.route(API_PATH, '{"pagelen": 10, "values": []}')
    assert versions(anitrack_http) == []


def test_not_modified(api, anitrack_http):
    api.route(API_PATH, Answer(304))
    with pytest.raises(NotModified):
        versions(anitrack_http)


def test_unknown_repository(api, anitrack_http):
    api.route(API_PATH, Answer(404, '{"type": "error", "error": {"message": "Repository not found"}}'))
    with pytest.raises(BackendError, match='^Could not retrieve versions from Bitbucket API: .* status 404'):
        versions(anitrack_http)


@pytest.mark.parametrize("body", ["<html>", '["v1.0"]', '{"values": {}}'])
def test_malformed_answer(api, anitrack_http, body):
    api.route(API_PATH, body)
    with pytest.raises(BackendError, match="^Could not retrieve versions from Bitbucket API: "):
        versions(anitrack_http)


def test_rate_limited(api, anitrack_http):
    api.route(API_PATH, Answer(429, "", {"Retry-After": "120"}))
    with pytest.raises(RateLimitError):
        versions(anitrack_http)
